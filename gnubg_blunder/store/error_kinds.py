"""What kind of database error an exception is (errors.STORE_ERROR_KINDS),
decided once, here, for every program that reports one (pipeline.store_error).

SQLite says it by its error code (``sqlite_errorcode``, Python 3.11+);
Python 3.9 and 3.10 give its errors no code, and there, only there, the
kind is read from the words SQLite uses for it (sqlite3_errstr's).  The
store's own errors (``StoreError``) carry their kind."""

from __future__ import annotations

import sqlite3
from typing import Optional

from ..errors import StoreError

__all__ = ["error_kind", "sqlite_kind"]

# SQLite's primary result codes -> kind: SQLITE_BUSY, SQLITE_LOCKED; SQLITE_FULL; SQLITE_READONLY;
# SQLITE_CORRUPT, SQLITE_NOTADB
SQLITE_CODE_KINDS = {5: "busy", 6: "busy", 13: "full", 8: "read-only", 11: "damaged", 26: "damaged"}
# the same, by SQLite's words, where Python gives no code (before 3.11)
SQLITE_WORDS_KINDS = (("database is locked", "busy"), ("database table is locked", "busy"),
                      ("database or disk is full", "full"), ("readonly database", "read-only"),
                      ("malformed", "damaged"), ("not a database", "damaged"))


def sqlite_kind(exc: sqlite3.Error) -> Optional[str]:
    """The kind of one of SQLite's errors (None: none of the kinds)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return SQLITE_CODE_KINDS.get(code & 0xFF)
    text = str(exc)
    return next((kind for words, kind in SQLITE_WORDS_KINDS if words in text), None)


def error_kind(exc: BaseException) -> Optional[str]:
    """The kind of a database error: the store's own carry it, SQLite's
    are classified by :func:`sqlite_kind`; anything else has none."""
    if isinstance(exc, StoreError):
        return exc.kind
    if isinstance(exc, sqlite3.Error):
        return sqlite_kind(exc)
    return None
