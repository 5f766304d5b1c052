"""User text as text output shows it (docs/reliability.md, "Hostile text"):
control and bidi characters escaped, long fields cut; and the names nearest
to a mistyped one.  Below every layer (docs/architecture.md "Layers"): the
importers, the store and the views all print user text this one way."""

from __future__ import annotations

import unicodedata
from typing import Optional
from .lazy import lazy

_difflib = lazy("difflib")

DASH = "—"  # never measured: unknown is "—", never 0

# -- user text in text output (docs/reliability.md, "Hostile text and impossible values") --------
#
# Names, events, comments and move notations come from the files: in text
# output a control character (Unicode category Cc: ESC, newline, tab, CR,
# ...), a bidi control (U+202A-202E, U+2066-2069) or a line/paragraph
# separator (U+2028, U+2029) is shown escaped ("\x1b", "\n", "\u202e"), and a
# long field is cut with "…".  JSON keeps the exact string; HTML escapes it.

FIELD_WIDTH = 60  # the most characters text output shows of one user string (a name, an event, a move)
CELL_WIDTH = 128  # the most characters of one text-table cell (two names and " v " fit)
ELLIPSIS = "…"

_BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_SEPARATORS = frozenset((0x2028, 0x2029))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(c: str) -> str:
    """One character as text output shows it: itself, or escaped."""
    o = ord(c)
    if o in _BIDI_CONTROLS or o in _SEPARATORS or unicodedata.category(c) == "Cc":
        return _NAMED.get(c) or (f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
    return c


def clean_text(s: str, limit: Optional[int] = FIELD_WIDTH) -> str:
    """``s`` with its control characters escaped, cut to ``limit``
    characters (the last one "…") when longer; None: never cut."""
    head = s if limit is None else s[:limit + 1]  # escaping only lengthens: no more is needed
    pieces = [_shown(c) for c in head]
    if limit is None or (len(s) <= limit and sum(map(len, pieces)) <= limit):
        return "".join(pieces)
    out, n = [], 0
    for p in pieces:  # whole escapes only: never a cut "\x1"
        if n + len(p) > limit - 1:
            break
        out.append(p)
        n += len(p)
    return "".join(out) + ELLIPSIS


def safe_text(s, limit: Optional[int] = FIELD_WIDTH) -> str:
    """User data (a name, an event, a comment, a move) as text output shows
    it: control and bidi characters escaped, cut to ``limit`` characters
    (``FIELD_WIDTH``; None: whole); None is "—"."""
    if s is None:
        return DASH
    return clean_text(str(s), limit)


def closest_names(name: str, names: list, limit: int = 5) -> list:
    """The stored names nearest to ``name``: those containing it, then the
    most alike (difflib), without case."""
    low = name.casefold()
    by_low = {n.casefold(): n for n in names}
    containing = [n for n in names if low in n.casefold()]
    alike = [by_low[k] for k in _difflib.get_close_matches(low, list(by_low), n=limit, cutoff=0.5)]
    out = []
    for n in containing + alike:
        if n not in out:
            out.append(n)
    return out[:limit]
