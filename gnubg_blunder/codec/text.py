"""Text a database engine cannot hold, written in one documented form.

PostgreSQL's ``text`` holds no NUL character and only valid UTF-8; a name
read from a file may hold a NUL, and a file name on Linux may be any bytes
(Python gives those as lone surrogates, ``os.fsdecode``).  Such a value is
stored as the character U+FFFF (a Unicode noncharacter: no text from a
match file starts with it) followed by the value with ``%`` as ``%25``,
NUL as ``%00`` and each byte that is not UTF-8 as ``%XX``.  Every other
value is stored as it is.  docs/postgres.md, "Text".

The same form serves both engines: SQLite holds NUL and stores such names
as they are, but a file name that is not UTF-8 is written in this form
(``importers.files.stored_path``), so that ``copy`` moves every value
between the engines unchanged.
"""

from __future__ import annotations

import re

MARK = "\uffff"


def needs_encoding(text: str) -> bool:
    """True when ``text`` cannot be stored as it is (NUL, a lone surrogate,
    or it starts with the mark itself)."""
    if text.isascii():  # most text: no surrogate, no mark
        return "\x00" in text
    if "\x00" in text or text[:1] == MARK:
        return True
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _escape(ch: str) -> str:
    if ch == "%":
        return "%25"
    if ch == "\x00":
        return "%00"
    return "%%%02X" % (ord(ch) - 0xDC00)  # a byte os.fsdecode gave as U+DC80..U+DCFF


def encode_text(text: str) -> str:
    """The stored form of ``text`` (itself when it needs none)."""
    if not needs_encoding(text):
        return text
    return MARK + re.sub(r"[%\x00\udc80-\udcff]", lambda m: _escape(m.group(0)), text)


def decode_text(stored: str) -> str:
    """The value of a stored text (itself when it is not encoded)."""
    if stored[:1] != MARK:
        return stored
    body = stored[1:]

    def back(m):
        code = int(m.group(1), 16)
        if code == 0 or code == 0x25:
            return chr(code)
        return chr(0xDC00 + code)

    return re.sub(r"%([0-9A-F]{2})", back, body)
