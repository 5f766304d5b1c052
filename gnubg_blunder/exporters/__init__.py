"""The decision model -> files gnubg reads: its SGF and Jellyfish ``.mat``.

``write_sgf(match, path_or_file)`` and ``write_mat(match, path_or_file)``
(docs/convert.md).  Both writers take a game's records from
:func:`game_records`: the rolls and cube actions of the model in record
order, each move resolved to single-checker steps from the position the
roll started from to the position it left.  Analysis is not written: gnubg
analyses a loaded match again when asked.
"""

from __future__ import annotations

import io
import os
from typing import Optional

from ..model import Match
from .mat_writer import mat_text as _mat
from .records import ExportError, Record, check_exportable, game_records, initial_cube  # noqa: F401
from .sgf_writer import sgf_text as _sgf

__all__ = ["ExportError", "Record", "game_records", "write_sgf", "write_mat", "sgf_text", "mat_text",
           "WRITERS", "writer_for"]


def _write(text: str, path_or_file) -> None:
    if hasattr(path_or_file, "write"):
        if isinstance(path_or_file, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(path_or_file, "mode", ""):
            path_or_file.write(text.encode("utf-8"))
        else:
            path_or_file.write(text)
        return
    path = os.fspath(path_or_file)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def sgf_text(match: Match) -> str:
    return _sgf(match)


def mat_text(match: Match) -> str:
    return _mat(match)


def write_sgf(match: Match, path_or_file) -> None:
    """Write ``match`` as a gnubg SGF file (UTF-8): a path, or a text/binary file."""
    _write(sgf_text(match), path_or_file)


def write_mat(match: Match, path_or_file) -> None:
    """Write ``match`` as a Jellyfish ``.mat`` text in gnubg's layout (UTF-8)."""
    _write(mat_text(match), path_or_file)


WRITERS = {".sgf": write_sgf, ".mat": write_mat}


def writer_for(path) -> Optional[object]:
    """The writer for an output file's suffix, or None."""
    return WRITERS.get(os.path.splitext(os.fspath(path))[1].lower())
