"""The PostgreSQL engine: the store's one interface over a database server.

:class:`PostgresStore` is the one store (:class:`~.sqlite.Store`) given
PostgreSQL's dialect (:class:`PostgresDialect`, store/dialect.py): another
connection (:class:`~.pg_sql.PgConnection`, SQLite's SQL rewritten where
the dialects differ) and another schema maker (:mod:`.pg_schema`); every
query, every rule of storing and reading, and the array cache are the
same code.  What differs is the dialect's part: opening, read-only roles,
the write lock, the cache's snapshot, a match stored by another writer
meanwhile.  docs/postgres.md.

Concurrency is the server's: any number of importers and gnubg sessions
write at once.  Each write transaction first takes one advisory lock, so
writers take turns (as SQLite's ``BEGIN IMMEDIATE`` makes them) and a
match's rows are written whole by one of them; the match's identity is
UNIQUE besides (the constraint, not the check, is what keeps a match
once).  Readers never wait.
"""

from __future__ import annotations

from .derived import DerivedRules
from .pg_sql import PgConnection, PgUniqueViolation, redacted
from .schema import StoreError
from .sqlite import Store
from . import pg_schema
from ..labels import LABELS_VERSION


class PostgresDialect:
    """PostgreSQL's part of a store (store/dialect.py ``Dialect``)."""

    name = "postgresql"
    guards_writes = True  # a role granted SELECT alone: refused in one line, not in the server's words
    blob_reads_are_cheap = False  # each read of a blob handle (store/pg_sql.py PgBlob) is a query
    unique_violation = (PgUniqueViolation,)  # another writer took the match's identity meanwhile

    def __init__(self, url: str):
        self.url = url
        self.shown_name = redacted(url)  # messages name it without its password

    def open(self, store, upgrade: bool) -> None:
        store._found_whole = True  # the server keeps its pages whole: no quick_check before writing
        store.conn = PgConnection(self.url)
        try:
            store.conn.execute(f"SET lock_timeout = '{int(store.busy_timeout * 1000)}ms'")
            if not self.may_write(store):
                user = store.conn.execute("SELECT current_user").fetchone()[0]
                store.read_only = True
                store.read_only_reason = f"the role {user} may only read it"
            if upgrade:
                pg_schema.migrate(store.conn, read_only=store.read_only, report=store.report)
                if store.read_only:
                    self.up_to_date_read_only(store)
        except BaseException:
            store.conn.close()
            raise

    def may_write(self, store) -> bool:
        """Whether this role may store matches (a read-only role, for a
        ranking page, may not: docs/postgres.md "Roles")."""
        row = store.conn.execute(
            "SELECT CASE WHEN to_regclass('matches') IS NULL "
            "THEN has_schema_privilege(current_schema(), 'CREATE') "
            "ELSE has_table_privilege('matches', 'INSERT') END").fetchone()
        return bool(row[0])

    def compact_after_upgrade(self, store) -> None:
        pass  # the server reclaims space itself (autovacuum)

    def up_to_date_read_only(self, store) -> None:
        """A read-only role reads what writers made; it can make nothing, so
        labels of older rules or an array cache not built are refused with
        what to do (a writer's next command makes them)."""
        if not store.labels_current():
            why = f"its labels are of rules version {store.get_meta('labels_version')} (now {LABELS_VERSION})"
        elif store._analyses_without_cache():
            why = "its array cache is not built"
        else:
            return
        raise StoreError(f"{store.read_only_reason}, and {why}: run any command once with a writer role "
                         "(e.g. `gnubg-blunder check`)")

    def snapshot_connection(self, store) -> tuple:
        """A read of the array cache has a connection of its own, in a
        REPEATABLE READ transaction kept while its columns may be read
        (closed with them): other writers' merges are not seen meanwhile.
        Inside this store's own write transaction: its connection."""
        if store.conn.in_transaction:
            return store.conn, False
        return PgConnection(self.url), True

    def end_snapshot(self, store, conn, owned: bool) -> None:
        pass  # the read's own connection keeps its snapshot until its handles close it


class PostgresStore(Store):
    """The store in a PostgreSQL database (``postgresql://`` URL)."""

    def __init__(self, url: str, report=None, upgrade: bool = True, *, rules: DerivedRules):
        super().__init__(PostgresDialect(url), report, upgrade, rules=rules)
