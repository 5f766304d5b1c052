"""The store's connection: opening a database (WAL, read-only files, copies
in memory), its schema migrated, transactions, metadata.  docs/reliability.md."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Optional

from .damage import file_identity, store_identity
from .error_kinds import sqlite_kind
from .schema import SCHEMA_VERSION, StoreError, current_version, migrate
from ..labels import LABELS_VERSION


# How long a statement waits for a lock another program holds (gnubg
# storing a match, another import) before it fails with "database is locked"
# (docs/reliability.md).  GNUBG_BLUNDER_BUSY_TIMEOUT (seconds) changes it.
BUSY_TIMEOUT = 30.0


def busy_timeout() -> float:
    try:
        value = float(os.environ.get("GNUBG_BLUNDER_BUSY_TIMEOUT", BUSY_TIMEOUT))
    except ValueError:
        return BUSY_TIMEOUT
    return value if 0 <= value <= 1e6 else BUSY_TIMEOUT


@contextlib.contextmanager
def write_transaction(conn):
    """One write transaction (the connection has no implicit ones):
    BEGIN IMMEDIATE takes the write lock at once (waiting up to the busy
    timeout), COMMIT at the end, a rollback on any error that does not
    hide it (docs/reliability.md).  Either engine's connection."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn) -> None:
    """Roll back the open transaction, if SQLite has not already (it does
    after some errors, e.g. a COMMIT that found the disk full): the error
    that stopped the transaction is the one the caller sees."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except (sqlite3.Error, StoreError):  # StoreError: PostgreSQL's (store/pg_sql.py), a lost connection
            pass


# A read-only database that needs a schema upgrade, its labels redone or
# its array cache built is brought up to date in a copy in memory, up to
# this size; above, it is refused (docs/reliability.md).
MEMORY_COPY_LIMIT = 512 * 2**20
COMPACT_MIN_BYTES = 32 * 2**20  # free pages worth a VACUUM after an upgrade


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def _read_only_reason(path: Path) -> Optional[str]:
    """Why the existing database ``path`` cannot be written (its mount, its
    file, its folder: SQLite writes its -wal and -shm beside it), or None."""
    if not path.exists():
        return None
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "the file system holding it is mounted read-only"
    except (OSError, AttributeError):
        pass
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"its folder {path.parent} is read-only"
    return None


def _error_code(exc: sqlite3.Error) -> Optional[int]:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _is_read_only_error(exc: sqlite3.Error) -> bool:
    return _error_code(exc) in (8, 14)  # SQLITE_READONLY, SQLITE_CANTOPEN


def _is_busy(exc: sqlite3.Error) -> bool:
    return sqlite_kind(exc) == "busy"  # SQLITE_BUSY, SQLITE_LOCKED


def _use_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """WAL, so that gnubg and the command line read while the other writes.
    Processes opening a new database at once all ask for it: one that finds
    the file busy asks again (up to the busy timeout)."""
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if mode.lower() != "wal":
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() == "wal":
                return
            problem, kind = f"its journal mode stays {mode}", None
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            problem, kind = str(exc), "busy"
        if time.monotonic() >= deadline:
            raise StoreError(f"cannot set it to WAL mode ({problem})", kind=kind)
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _wal_frames(path: Path) -> bool:
    """Whether the database's -wal file holds changes (a writer stopped
    before merging them into the file)."""
    try:
        return os.path.getsize(str(path) + "-wal") > 0
    except OSError:
        return False




class StoreConnection:
    """Opening, closing and the metadata of a store (:class:`~.sqlite.SQLiteStore`'s first part)."""

    def _open(self, upgrade: bool = True) -> None:
        if self.path == ":memory:":
            self.conn = self._connect(self.path)
        else:
            self.conn = self._open_file(Path(self.path))
        self.conn.execute("PRAGMA foreign_keys = ON")
        if not self.read_only:
            self.conn.execute("PRAGMA synchronous = NORMAL")
        if self.path != ":memory:":
            # the file this connection opened: what the once-a-process check and the manifests parsed once
            # are keyed by (store/check.py: store_identity)
            self.opened_file = store_identity(self.path, self.conn)
        if upgrade:
            self.dialect.migrate(self)

    def _follow_the_path(self) -> None:
        """Before a write: when the path now names another file than the one
        this store opened (moved or copied over it, or deleted), the store
        opens the file at the path again, so that the write lands there and
        not in the replaced file's inode, which nobody reads any more (a
        store kept open: ``watch``).  The replaced file's last changes are
        first written into it from the -wal beside the path (a checkpoint
        through this connection, which still has it open): that -wal would
        otherwise be read as the new file's.  When that cannot be done
        (another program reading), nothing is written, one line says why.
        A file rebuilt in place by ``check --repair`` is the same inode,
        written through SQLite's locks: this connection sees it
        (store/check.py).  docs/reliability.md "A database changed or
        replaced by other programs"."""
        if self.opened_file is None or self.read_only or self.memory_copy:
            return
        if file_identity(self.path) == self.opened_file[:2]:
            return
        try:
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error:
            busy = 1
        wal = self.path + "-wal"
        if busy or (os.path.exists(wal) and os.path.getsize(wal) > 0):
            raise StoreError("the database file was replaced while this program had it open, and the -wal file "
                             "beside it still holds the replaced file's last changes (another program reads it): "
                             "nothing was written; close the programs using the database, then store again")
        self.conn.close()
        self._manifests, self._found_whole, self._damage = {}, False, None
        self._open(upgrade=True)

    def _start(self, path: str, report, rules) -> None:
        """The store's state before its connection is made (both engines)."""
        self.rules = rules  # the metric rules of its derived columns (store/derived.py)
        self.path = path  # how messages name the database
        self.report = report if report is not None else _say
        self.busy_timeout = busy_timeout()  # seconds a write waits for another program's lock
        self.read_only = False
        self.read_only_reason: Optional[str] = None  # why nothing can be written, when read_only
        self.memory_copy = False  # read from a copy in memory (read-only, brought up to date)
        self._read_only_uri: Optional[str] = None  # how a read-only file was opened
        self._compact_pending = False  # an upgrade ran: compact after the cache is built again
        self._manifests: dict = {}  # {bundle key: (manifest text, parsed)}: parsed once per text
        self.opened_file: Optional[tuple] = None  # (device, inode) of the file opened; None: memory, a server

    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        # isolation_level None: no implicit transactions; writes say BEGIN IMMEDIATE ... COMMIT
        return sqlite3.connect(target, timeout=self.busy_timeout, isolation_level=None, uri=uri)

    def _open_file(self, path: Path) -> sqlite3.Connection:
        reason = _read_only_reason(path)
        if reason is None:
            if not path.exists():
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(f"cannot create its folder {path.parent} ({exc.strerror or exc})") from exc
                if not os.access(path.parent, os.W_OK | os.X_OK):
                    raise StoreError(f"cannot create it: its folder {path.parent} is read-only")
            conn = self._connect(self.path)
            try:
                _use_wal(conn, self.busy_timeout)
                return conn
            except sqlite3.OperationalError as exc:
                conn.close()
                if not _is_read_only_error(exc) or not path.exists():
                    raise
                reason = "SQLite can only open it read-only"
        self.read_only, self.read_only_reason = True, reason
        return self._open_read_only(path)

    def _open_read_only(self, path: Path) -> sqlite3.Connection:
        """A read-only connection.  A WAL database needs its -shm file: where
        it cannot be made (a read-only folder or mount) the file is opened
        ``immutable`` (nobody can write it there), unless its -wal holds
        changes not yet in the file: then they are read from a copy."""
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        error = None
        for query in ("", "&immutable=1"):
            if query and _wal_frames(path):
                return self._copy_with_wal(path)
            conn = self._connect(uri + query, uri=True)
            try:
                conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                self._read_only_uri = uri + query  # for the array cache's reads (_snapshot_connection)
                return conn
            except sqlite3.OperationalError as exc:
                conn.close()
                error = exc
        raise error

    def _copy_with_wal(self, path: Path) -> sqlite3.Connection:
        """The database and its -wal copied to a temporary folder, opened
        there (SQLite merges the -wal), then into memory."""
        self._check_copy_size(path, "its last changes are in its -wal file")
        tmp = tempfile.mkdtemp(prefix="gnubg-blunder-ro-")
        try:
            copy = os.path.join(tmp, "copy.db")
            shutil.copyfile(path, copy)
            shutil.copyfile(str(path) + "-wal", copy + "-wal")
            src = self._connect(copy)
            try:
                mem = self._connect(":memory:")
                src.backup(mem)
            finally:
                src.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.memory_copy = True
        return mem

    def _check_copy_size(self, path: Path, why: str) -> None:
        size = sum(os.path.getsize(f) for f in (str(path), str(path) + "-wal") if os.path.exists(f))
        if size > MEMORY_COPY_LIMIT:
            raise StoreError(
                f"read-only ({self.read_only_reason}) and {why}: at {size / 2**20:.0f} MB it is too large to read "
                f"from a copy in memory (limit {MEMORY_COPY_LIMIT / 2**20:.0f} MB); open it once where it can be written"
            )

    def _analyses_without_cache(self) -> int:
        covered = self._coverage(self._bundles())
        return sum(1 for (a,) in self.conn.execute("SELECT id FROM analyses") if a not in covered)

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- metadata ------------------------------------------------------------
    def get_meta(self, key: str, default=None):
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_meta(self, key: str, value) -> None:
        self._guard_write()
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, None if value is None else str(value)),
        )

    def delete_meta(self, key: str) -> bool:
        """Forget a metadata value; True when there was one."""
        self._guard_write()
        return self.conn.execute("DELETE FROM meta WHERE key = ?", (key,)).rowcount > 0

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")

    def _guard_write(self) -> None:
        """Before a write of metadata, aliases or labels: a database this
        store may only read refuses it here, in one line, where its engine
        would not say so itself (``Dialect.guards_writes``: a PostgreSQL role
        granted SELECT alone; SQLite refuses by the file's mode)."""
        if self.dialect.guards_writes:
            self._writable()


class SQLiteDialect:
    """SQLite's part of a store (store/dialect.py ``Dialect``): a database
    file (or ``:memory:``) opened by the store's own opening above, its
    schema migrated by numbered steps, a read-only file brought up to date
    in memory, the array cache read through a connection of its own."""

    name = "sqlite"
    guards_writes = False  # the file's mode refuses a write: SQLite says why
    blob_reads_are_cheap = True  # a blob handle reads the file's pages directly
    unique_violation = ()  # BEGIN IMMEDIATE: two writers never store one match at once

    def __init__(self, path):
        self.shown_name = str(path)

    def open(self, store, upgrade: bool) -> None:
        store._open(upgrade)

    def migrate(self, store):
        """The schema brought to this version, from the store's opening
        (``_open``, SQLite's alone: PostgreSQL's is in its ``open``)."""
        if store.read_only:
            self.up_to_date_read_only(store)
            return
        found = migrate(store.conn, path=None if store.path == ":memory:" else store.path, report=store.report,
                        rules=store.rules)
        # compacted once the array cache is built again (the first selection): not while opening
        store._compact_pending = 0 < found < SCHEMA_VERSION and store.path != ":memory:"

    def compact_after_upgrade(self, store) -> None:
        """An upgrade that rewrote tables (step 10 turns the candidate lists
        into a fifth of their size; a new cache format rebuilds the cache)
        leaves their old pages free inside the file: when more than a
        quarter of it (and more than ``COMPACT_MIN_BYTES``) is free,
        ``VACUUM`` gives them back (one line says so), after the first
        selection has built the cache again.  Best effort: another process
        writing meanwhile leaves it for later, nothing is lost (VACUUM is
        one transaction; the backup of the upgrade was made before)."""
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        free = store.conn.execute("PRAGMA freelist_count").fetchone()[0]
        page_size = store.conn.execute("PRAGMA page_size").fetchone()[0]
        if not pages or free * 4 < pages or free * page_size < COMPACT_MIN_BYTES:
            return
        size = os.path.getsize(store.path)
        try:
            store.conn.execute("VACUUM")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                return
            raise
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.report(f"gnubg-blunder: database {store.path}: compacted after the upgrade "
                     f"({size / 1e6:.0f} MB → {os.path.getsize(store.path) / 1e6:.0f} MB)")

    def up_to_date_read_only(self, store):
        """A read-only database is never written.  One that needs a schema
        upgrade, its labels redone or its array cache built is copied into
        memory and brought up to date there, for this run (one line says
        so); above MEMORY_COPY_LIMIT that is refused.  Then writes fail."""
        version = current_version(store.conn)
        if version > SCHEMA_VERSION:
            migrate(store.conn)  # refuses, one line
        if version < SCHEMA_VERSION:
            why = f"at schema version {version} (this gnubg-blunder reads {SCHEMA_VERSION})"
        elif not store.labels_current():
            why = f"its labels are of rules version {store.get_meta('labels_version')} (now {LABELS_VERSION})"
        elif store._analyses_without_cache():
            why = "its array cache is not built"
        else:
            why = None
        if why:
            if not store.memory_copy:
                store._check_copy_size(Path(store.path), why)
                mem = store._connect(":memory:")
                store.conn.backup(mem)
                store.conn.close()
                store.conn, store.memory_copy = mem, True
                store.conn.execute("PRAGMA foreign_keys = ON")
            migrate(store.conn, rules=store.rules)
            if not store.labels_current():
                store.relabel(only_if_stale=True)
            store._ensure_arrays([a for (a,) in store.conn.execute("SELECT id FROM analyses")])
            store.report(f"gnubg-blunder: database {store.path} is read-only ({store.read_only_reason}) and {why}: "
                         "read from a copy in memory brought up to date (the file is unchanged)")
        elif store.memory_copy:
            store.report(f"gnubg-blunder: database {store.path} is read-only ({store.read_only_reason}) and its last "
                         "changes are in its -wal file: read from a copy in memory (the file is unchanged)")
        store.conn.execute("PRAGMA query_only = ON")

    def snapshot_connection(self, store):
        """(connection, whether it is this read's own) for the array
        cache's blob handles.  Open handles keep the snapshot they were
        opened in, and a connection holding an old snapshot cannot write:
        a file is read through a connection of its own, so that this store
        still writes while a selection lives, and a selection still reads
        after its store is closed.  The store's connection serves a copy in
        memory (nobody else writes it) and a read inside a write
        transaction (which must see its own writes)."""
        if store.memory_copy or store.path == ":memory:" or store.conn.in_transaction:
            return store.conn, False
        if store.read_only:
            uri = store._read_only_uri
            return (store._connect(uri, uri=True), True) if uri else (store.conn, False)
        return store._connect(store.path), True

    def end_snapshot(self, store, conn, owned: bool) -> None:
        """The read's transaction ended once its handles are open (SQLite's
        blob handles keep the snapshot they were opened in)."""
        conn.execute("COMMIT")
