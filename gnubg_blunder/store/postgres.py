"""The PostgreSQL engine: the store's one interface over a database server.

:class:`PostgresStore` is :class:`~.sqlite.SQLiteStore` with another
connection (:class:`~.pg_sql.PgConnection`, SQLite's SQL rewritten where
the dialects differ) and another schema maker (:mod:`.pg_schema`); every
query, every rule of storing and reading, and the array cache are the
same code.  What differs is the engine's part: opening, read-only roles,
the write lock, the cache's snapshot.  docs/postgres.md.

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
from .sqlite import ALREADY_STORED, SQLiteStore, StoreResult
from . import pg_schema
from ..labels import LABELS_VERSION


class PostgresStore(SQLiteStore):
    """The store in a PostgreSQL database (``postgresql://`` URL)."""

    engine = "postgresql"

    def __init__(self, url: str, report=None, upgrade: bool = True, *, rules: DerivedRules):
        self.url = url
        self._start(redacted(url), report, rules)  # messages name it without its password
        self._found_whole = True  # the server keeps its pages whole: no quick_check before writing
        self.conn = PgConnection(url)
        try:
            self.conn.execute(f"SET lock_timeout = '{int(self.busy_timeout * 1000)}ms'")
            if not self._may_write():
                user = self.conn.execute("SELECT current_user").fetchone()[0]
                self.read_only = True
                self.read_only_reason = f"the role {user} may only read it"
            if upgrade:
                pg_schema.migrate(self.conn, read_only=self.read_only, report=self.report)
                if self.read_only:
                    self._up_to_date_read_only()
        except BaseException:
            self.conn.close()
            raise

    def _may_write(self) -> bool:
        """Whether this role may store matches (a read-only role, for a
        ranking page, may not: docs/postgres.md "Roles")."""
        row = self.conn.execute(
            "SELECT CASE WHEN to_regclass('matches') IS NULL "
            "THEN has_schema_privilege(current_schema(), 'CREATE') "
            "ELSE has_table_privilege('matches', 'INSERT') END").fetchone()
        return bool(row[0])

    def _migrate(self):  # made in __init__
        pass

    def _compact_after_upgrade(self) -> None:
        pass  # the server reclaims space itself (autovacuum)

    def _up_to_date_read_only(self):
        """A read-only role reads what writers made; it can make nothing, so
        labels of older rules or an array cache not built are refused with
        what to do (a writer's next command makes them)."""
        if not self.labels_current():
            why = f"its labels are of rules version {self.get_meta('labels_version')} (now {LABELS_VERSION})"
        elif self._analyses_without_cache():
            why = "its array cache is not built"
        else:
            return
        raise StoreError(f"{self.read_only_reason}, and {why}: run any command once with a writer role "
                         "(e.g. `gnubg-blunder check`)")

    def add_match(self, match) -> StoreResult:
        """As on SQLite; a match another writer stored first (its identity
        taken meanwhile) is "already stored"."""
        try:
            return super().add_match(match)
        except PgUniqueViolation:
            row, same = self._stored(match)
            if row and same:
                return StoreResult(ALREADY_STORED, row[0], same[0])
            raise

    # writes that SQLite refuses by its file's mode: a read-only role's are refused here, in one line
    def set_meta(self, key: str, value) -> None:
        self._writable()
        super().set_meta(key, value)

    def delete_meta(self, key: str) -> bool:
        self._writable()
        return super().delete_meta(key)

    def add_alias(self, canonical: str, alias: str) -> None:
        self._writable()
        super().add_alias(canonical, alias)

    def remove_alias(self, alias: str) -> bool:
        self._writable()
        return super().remove_alias(alias)

    def relabel(self, progress=None, only_if_stale: bool = False) -> int:
        self._writable()
        return super().relabel(progress=progress, only_if_stale=only_if_stale)

    def _snapshot_connection(self):
        """A read of the array cache has a connection of its own, in a
        REPEATABLE READ transaction kept while its columns may be read
        (closed with them): other writers' merges are not seen meanwhile.
        Inside this store's own write transaction: its connection."""
        if self.conn.in_transaction:
            return self.conn, False
        return PgConnection(self.url), True

    def _end_snapshot(self, conn, owned: bool) -> None:
        pass  # the read's own connection keeps its snapshot until its handles close it
