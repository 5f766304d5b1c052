"""Storage behind one interface (today SQLite; the same methods would serve
a PostgreSQL engine)."""

from __future__ import annotations

import os
from pathlib import Path

from .schema import StoreError
from .sqlite import ALREADY_STORED, ANALYSIS_ADDED, STORED, SQLiteStore, StoreResult

__all__ = ["open_store", "StoreError", "default_db_path", "SQLiteStore", "StoreResult", "STORED", "ALREADY_STORED",
           "ANALYSIS_ADDED"]


def default_db_path() -> Path:
    """The user's database: ``$GNUBG_BLUNDER_DB``, else
    ``$XDG_DATA_HOME/gnubg-blunder/gnubg-blunder.db`` (``~/.local/share/...``).
    The gnubg plugin and the command line use the same one."""
    env = os.environ.get("GNUBG_BLUNDER_DB")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "gnubg-blunder" / "gnubg-blunder.db"


def open_store(path=None, report=None, upgrade: bool = True) -> SQLiteStore:
    """The store at ``path`` (default: :func:`default_db_path`), its schema
    brought up to date.  ``report(line)`` takes its one-line notes for the
    user (a backup written before an upgrade, a read-only database read from
    a copy); default: standard error.  ``upgrade=False`` opens it as it is
    (``check``).  docs/reliability.md."""
    return SQLiteStore(path if path is not None else default_db_path(), report=report, upgrade=upgrade)
