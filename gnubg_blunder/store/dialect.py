"""What differs between the store's engines, given to the one store as its
dialect (docs/architecture.md "The store"; docs/postgres.md).

A :class:`~.sqlite.Store` runs every query, every rule of storing and
reading and the array cache itself, over ``store.conn`` (sqlite3's
connection, or :class:`~.pg_sql.PgConnection`, which rewrites SQLite's SQL
where PostgreSQL's differs).  Its dialect is the engine's part: how the
database is opened and its schema made, what a role that may only read is
refused and when, how a read of the array cache keeps one snapshot, and
which error says that another writer stored a match first.  The two:
store/connection.py ``SQLiteDialect``, store/postgres.py
``PostgresDialect``.
"""

from __future__ import annotations

from typing import Protocol


class Dialect(Protocol):
    name: str  # "sqlite" | "postgresql": ``store.engine``
    shown_name: str  # how messages name the database (a URL without its password)
    guards_writes: bool  # a read-only store refuses metadata, alias and label writes before any SQL
    blob_reads_are_cheap: bool  # a blob handle's read is no query (SQLite): the array cache reads headers through one
    unique_violation: tuple  # the exceptions of a match's identity taken by another writer meanwhile

    def open(self, store, upgrade: bool) -> None:
        """Make ``store.conn`` (and ``store.read_only``); the schema
        brought to this version when ``upgrade`` (a read-only database: up
        to date as :meth:`up_to_date_read_only` can make it)."""

    def compact_after_upgrade(self, store) -> None:
        """Space an upgrade freed given back, after the first selection."""

    def up_to_date_read_only(self, store) -> None:
        """A store that may only read: readable as this version reads, or
        refused in one line."""

    def snapshot_connection(self, store) -> tuple:
        """(connection, whether it is the read's own) for one read of the
        array cache, in one snapshot."""

    def end_snapshot(self, store, conn, owned: bool) -> None:
        """After the read's handles are open."""
