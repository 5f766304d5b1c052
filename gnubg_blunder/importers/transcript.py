"""Match transcripts: the Jellyfish text gnubg imports (``import mat``).

Programs save it as ``.mat`` (gnubg, GridGammon) or as ``.txt``
(Backgammon Studio, GridGammon, Galaxy's plain-text export), so a
transcript is told by its first lines, not by its name: comment lines
starting with ``;`` (``; [Site "Backgammon Studio"]``), then a line
`` 13 point match`` (``0`` for money), then `` Game 1``.  A transcript holds
no analysis: ``gnubg-blunder analyse`` has gnubg analyse it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .files import read_match_head

# The names a transcript may have where files are looked for by name (a
# folder, a watched folder); a .mat is one by its name, any other by its lines.
TRANSCRIPT_SUFFIXES = (".mat", ".txt")
# Comment lines before the length line are a few hundred bytes in practice;
# a head this long without the length line is no transcript.
HEAD_BYTES = 64 * 1024

_LENGTH_LINE = re.compile(r"\s*\d+\s+point\s+match\s*$", re.IGNORECASE)
_FIRST_GAME = re.compile(r"\s*Game\s+1\s*$", re.IGNORECASE)


def transcript_text(text: str) -> bool:
    """Whether ``text`` begins as a transcript: ``;`` comment lines and
    blank lines, a ``N point match`` line, blank lines, a ``Game 1`` line."""
    lines = (line for line in text.lstrip("\ufeff").splitlines() if line.strip())
    for line in lines:
        if line.lstrip().startswith(";"):
            continue
        if not _LENGTH_LINE.match(line):
            return False
        return bool(_FIRST_GAME.match(next(lines, "")))
    return False


def is_transcript(path) -> bool:
    """A ``.mat`` (by its name: gnubg's import judges it), or a file of any
    other name whose first lines are a transcript's.  A file that cannot be
    read is none (the file check that reads it says why)."""
    if Path(path).suffix.lower() == ".mat":
        return True
    try:
        head = read_match_head(path, HEAD_BYTES)
    except OSError:
        return False
    return transcript_text(head.decode("utf-8", "replace"))


def not_a_transcript(path) -> str:
    """The one-line reason a file taken for a transcript is refused."""
    suffix = Path(path).suffix or "(no suffix)"
    return (f"not a match transcript: its first lines are not `; ` comments, then `N point match`, then `Game 1` "
            f"(a {suffix} file is analysed when it holds a transcript; gnubg analyse takes .sgf files and "
            "match transcripts)")
