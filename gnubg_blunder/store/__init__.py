"""Storage behind one interface (:class:`Store`), two engines given to it as
its dialect (store/dialect.py): SQLite (a file, the default) and PostgreSQL
(a ``postgresql://`` URL; store/postgres.py, docs/postgres.md)."""

from __future__ import annotations

import os
from pathlib import Path

from .schema import ConnectionLost, StoreError
from .sqlite import ALREADY_STORED, ANALYSIS_ADDED, EXTENDED, STORED, SQLiteStore, Store, StoreResult
from ..codec.paths import shown_path
from ..lazy import lazy

_store_pg_sql = lazy("gnubg_blunder.store.pg_sql")
_store_postgres = lazy("gnubg_blunder.store.postgres")

__all__ = ["open_store", "StoreError", "ConnectionLost", "default_db_path", "Store", "SQLiteStore", "StoreResult",
           "STORED", "ALREADY_STORED", "ANALYSIS_ADDED", "EXTENDED", "is_database_url", "shown_database"]


def is_database_url(target) -> bool:
    """True for a PostgreSQL database (``postgresql://…`` or ``postgres://…``);
    False for a file's path (text, bytes or a Path)."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def shown_database(target) -> str:
    """How a database is named in every line we print: a file's path as
    paths are shown (``codec.paths.shown_path``), or a URL with its
    password as ``***`` (docs/postgres.md)."""
    if is_database_url(target):
        return _store_pg_sql.redacted(target)

    return shown_path(target)


def default_db_path():
    """The user's database: ``$GNUBG_BLUNDER_DB`` (a path, or a
    ``postgresql://`` URL, given back as it is), else
    ``$XDG_DATA_HOME/gnubg-blunder/gnubg-blunder.db`` (``~/.local/share/...``).
    The gnubg plugin and the command line use the same one."""
    env = os.environ.get("GNUBG_BLUNDER_DB")
    if env:
        return env if is_database_url(env) else Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "gnubg-blunder" / "gnubg-blunder.db"


def open_store(path=None, report=None, upgrade: bool = True, *, rules) -> Store:
    """The store at ``path`` (default: :func:`default_db_path`), its schema
    brought up to date.  ``report(line)`` takes its one-line notes for the
    user (a backup written before an upgrade, a read-only database read from
    a copy); default: standard error.  ``upgrade=False`` opens it as it is
    (``check``).  ``rules``: the metric rules of its derived columns
    (store/derived.py); ``gnubg_blunder.database.open_store`` gives the
    metrics' own.  docs/reliability.md."""
    target = path if path is not None else default_db_path()
    if is_database_url(target):
        return _store_postgres.PostgresStore(str(target), report=report, upgrade=upgrade, rules=rules)
    return SQLiteStore(target, report=report, upgrade=upgrade, rules=rules)
