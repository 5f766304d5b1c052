"""Source paths as they are shown and stored: a path is any bytes the OS
gives; the terminal gets text, and both engines keep it losslessly."""

from __future__ import annotations

import os

from ..text import clean_text
from .text import encode_text


def shown_path(path) -> str:
    """A path as printed: text, with the bytes that are not UTF-8 written
    ``\\xNN`` (a path is any bytes the OS gives; the terminal gets text),
    and control and bidi characters escaped as in every text output
    (``formatting.py: clean_text``: a newline in a name is ``\\n``, it
    cannot forge a line).  Stored paths (``analyses.source_path``, text or,
    for such a path, its bytes) are shown the same way."""
    if path is None:
        return ""
    return clean_text(_path_text(path), None)


def _path_text(path) -> str:
    if isinstance(path, (bytes, bytearray)):
        raw = bytes(path)
    else:
        text = os.fspath(path)
        if isinstance(text, bytes):
            raw = text
        else:
            try:
                text.encode("utf-8")
                return text
            except UnicodeEncodeError:
                try:
                    raw = os.fsencode(text)
                except UnicodeEncodeError:
                    raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


def stored_path(path):
    """How a source path is stored, losslessly, on both engines: text when
    it is UTF-8, else the text form of codec/text.py (the bytes that
    are not UTF-8 as ``%XX`` after a U+FFFF mark; docs/postgres.md "Text").
    Files stored before kept such a path's bytes as a BLOB (SQLite)."""
    if path is None:
        return None
    text = os.fspath(path)
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            return encode_text(os.fsdecode(text))
    return encode_text(text)
