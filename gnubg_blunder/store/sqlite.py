"""The SQLite store: all SQL of the project lives here.

One transaction per match (a match is stored whole or not at all), WAL so
that gnubg and the command line can share the database, schema migrated by
numbered steps (:mod:`.schema`).  Figures are never computed here: the store
selects decisions and hands arrays to :mod:`gnubg_blunder.metrics`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import sys
import time
import urllib.parse
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from ..filters import Filter
from ..metrics.arrays import (BLOT_COLUMNS, KIND_CODES, LABELS, DecisionArrays, LazyPositions, MatchInfo, RollArrays,
                              Selection)
from ..metrics.difficulty import difficulties
from ..model import Match, match_identity, match_moves, move_token, opening_keys
from .check import CHECK_HINT, DamagedDatabase, file_identity, refuses_damage, store_identity
from .column_cache import (BUNDLE_DECISIONS, CACHE_FORMAT, BlobSource, CacheReader, decode_bundle, encode_bundle,
                           header_size, merges, read_manifest, sealed)
from ..importers.files import stored_path
from .insert import insert_analysis, insert_decisions
from .insert import utc_now as _now
from . import candidates as candidate_lists
from .schema import StoreError, migrate

# The array cache's format: bump when the columns change.  2: the dice of
# each decision; 3: comments stay in their rows (the cache lists which), a
# checksum; 4: difficulty, its truncation, duration; 5: the blots of the boards
# each wrong checker play left and its best play leaves (``_pack_blots``);
# 6: column by column, each compressed, in bundles of analyses
# (store/column_cache.py); 7: decision ids stored as differences.
ARRAYS_FORMAT = CACHE_FORMAT


STORED = "stored"
ALREADY_STORED = "already stored"
ANALYSIS_ADDED = "analysis added"
EXTENDED = "extended"  # a later save of a stored match: the match made longer (docs/storage.md)


@dataclass
class StoreResult:
    status: str  # STORED, ALREADY_STORED, ANALYSIS_ADDED or EXTENDED
    match_id: int
    analysis_id: Optional[int]
    games_before: Optional[int] = None  # EXTENDED: the games the stored match had


def _sql_text(text: str) -> str:
    """A SQL string literal (for label names in CASE expressions)."""
    return "'" + str(text).replace("'", "''") + "'"


# How long a statement waits for a lock another program holds (gnubg
# storing a match, another import) before it fails with "database is locked"
# (docs/reliability.md).  GNUBG_BLUNDER_BUSY_TIMEOUT (seconds) changes it.
BUSY_TIMEOUT = 30.0


def busy_timeout() -> float:
    import os

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
    code = _error_code(exc)
    return code in (5, 6) if code is not None else "locked" in str(exc)  # SQLITE_BUSY, SQLITE_LOCKED


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
            problem = f"its journal mode stays {mode}"
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            problem = str(exc)
        if time.monotonic() >= deadline:
            raise StoreError(f"cannot set it to WAL mode ({problem})")
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _wal_frames(path: Path) -> bool:
    """Whether the database's -wal file holds changes (a writer stopped
    before merging them into the file)."""
    try:
        return os.path.getsize(str(path) + "-wal") > 0
    except OSError:
        return False


def _close_sources(sources: dict, conn=None) -> None:
    """Close a read's blob handles, and ``conn``, its own connection."""
    for pair in sources.values():
        for src in pair:
            try:
                src.close()
            except sqlite3.Error:
                pass  # its connection closed already
    if conn is not None:
        conn.close()


def _counted_flags(records: np.ndarray) -> np.ndarray:
    """SPEC §2's counted flag of an analysis' cached decisions (1/0), kept
    beside them so that a view reads one small column instead of the ten
    the rule reads (metrics/counting.py: the same rule)."""
    from ..metrics.counting import counted_by_rule

    names = [n for n in records.dtype.names if n in DecisionArrays.SPEC and n not in ("position", "counted")]
    return counted_by_rule(DecisionArrays(**{n: records[n] for n in names})).astype(np.int8)


def _nocase_order(a: bytes, b: bytes) -> int:
    """SQLite's NOCASE collation: the UTF-8 bytes compared with ASCII
    letters folded, up to the shorter length or a NUL of the first; then
    the shorter first."""
    fold = _ASCII_FOLD
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] != 0 and fold[a[i]] == fold[b[i]]:
        i += 1
    r = 0 if i == n else fold[a[i]] - fold[b[i]]
    return r or len(a) - len(b)


_ASCII_FOLD = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))


_NOCASE = functools.cmp_to_key(_nocase_order)


def _nocase_key(row: dict):
    return _NOCASE(str(row["name"]).encode("utf-8", "surrogatepass"))


def _damaged_bundle(key) -> DamagedDatabase:
    """What a selection says of a bundle whose seal differs (read from its row or its blob handles)."""
    return DamagedDatabase(f"the array cache of analysis {key} is damaged (its checksum differs): "
                           f"no figure was computed from it. {CHECK_HINT}")


# {(file identity, bundle key): (the bundle's seal, its parsed manifest, its text)}: the array cache's manifests
# parsed once per process (SQLiteStore._sealed_manifests; every bdb.store() opens a new store).
_MANIFESTS: dict = {}


class SQLiteStore:
    """Storage behind one interface: ``add_match``, ``matches``, ``select``,
    ``get_meta``/``set_meta``.  The PostgreSQL engine (store/postgres.py) is
    this class over another connection."""

    engine = "sqlite"

    def __init__(self, path, report=None, upgrade: bool = True):
        """Open (or create) the database at ``path``, migrated to the current
        schema (``upgrade=False``: as it is, for ``check``).  ``report`` takes
        the one-line notes the opening has for the user (a backup made before
        an upgrade, a read-only database read from a copy); default: stderr.

        Any number of processes may open one database at once.  A database
        that cannot be written (its file, folder or mount read-only) is
        opened read-only: every read works, a write says why it cannot be
        made (``read_only_reason``).  docs/reliability.md."""
        self._start(str(path), report)
        self._open(upgrade)

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
            self._migrate()

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

    def _start(self, path: str, report) -> None:
        """The store's state before its connection is made (both engines)."""
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
        import shutil
        import tempfile

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

    def _migrate(self):
        if self.read_only:
            self._up_to_date_read_only()
            return
        from .schema import SCHEMA_VERSION

        found = migrate(self.conn, path=None if self.path == ":memory:" else self.path, report=self.report)
        # compacted once the array cache is built again (the first selection): not while opening
        self._compact_pending = 0 < found < SCHEMA_VERSION and self.path != ":memory:"

    def _compact_after_upgrade(self) -> None:
        """An upgrade that rewrote tables (step 10 turns the candidate lists
        into a fifth of their size; a new cache format rebuilds the cache)
        leaves their old pages free inside the file: when more than a
        quarter of it (and more than ``COMPACT_MIN_BYTES``) is free,
        ``VACUUM`` gives them back (one line says so), after the first
        selection has built the cache again.  Best effort: another process
        writing meanwhile leaves it for later, nothing is lost (VACUUM is
        one transaction; the backup of the upgrade was made before)."""
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        free = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
        page_size = self.conn.execute("PRAGMA page_size").fetchone()[0]
        if not pages or free * 4 < pages or free * page_size < COMPACT_MIN_BYTES:
            return
        size = os.path.getsize(self.path)
        try:
            self.conn.execute("VACUUM")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                return
            raise
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.report(f"gnubg-blunder: database {self.path}: compacted after the upgrade "
                    f"({size / 1e6:.0f} MB → {os.path.getsize(self.path) / 1e6:.0f} MB)")

    def _up_to_date_read_only(self):
        """A read-only database is never written.  One that needs a schema
        upgrade, its labels redone or its array cache built is copied into
        memory and brought up to date there, for this run (one line says
        so); above MEMORY_COPY_LIMIT that is refused.  Then writes fail."""
        from ..labels import LABELS_VERSION
        from .schema import SCHEMA_VERSION, current_version

        version = current_version(self.conn)
        if version > SCHEMA_VERSION:
            migrate(self.conn)  # refuses, one line
        if version < SCHEMA_VERSION:
            why = f"at schema version {version} (this gnubg-blunder reads {SCHEMA_VERSION})"
        elif not self.labels_current():
            why = f"its labels are of rules version {self.get_meta('labels_version')} (now {LABELS_VERSION})"
        elif self._analyses_without_cache():
            why = "its array cache is not built"
        else:
            why = None
        if why:
            if not self.memory_copy:
                self._check_copy_size(Path(self.path), why)
                mem = self._connect(":memory:")
                self.conn.backup(mem)
                self.conn.close()
                self.conn, self.memory_copy = mem, True
                self.conn.execute("PRAGMA foreign_keys = ON")
            migrate(self.conn)
            if not self.labels_current():
                self.relabel(only_if_stale=True)
            self._ensure_arrays([a for (a,) in self.conn.execute("SELECT id FROM analyses")])
            self.report(f"gnubg-blunder: database {self.path} is read-only ({self.read_only_reason}) and {why}: "
                        "read from a copy in memory brought up to date (the file is unchanged)")
        elif self.memory_copy:
            self.report(f"gnubg-blunder: database {self.path} is read-only ({self.read_only_reason}) and its last "
                        "changes are in its -wal file: read from a copy in memory (the file is unchanged)")
        self.conn.execute("PRAGMA query_only = ON")

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
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, None if value is None else str(value)),
        )

    def delete_meta(self, key: str) -> bool:
        """Forget a metadata value; True when there was one."""
        return self.conn.execute("DELETE FROM meta WHERE key = ?", (key,)).rowcount > 0

    # -- writing -------------------------------------------------------------
    @refuses_damage  # quick_check before this store's first write (store/check.py)
    def _stored(self, match: Match) -> tuple:
        """(the stored match's row or None, the stored analysis' row of the
        same engine and depth or None): what makes a store a no-op."""
        row = self.conn.execute("SELECT id FROM matches WHERE identity=?", (match_identity(match),)).fetchone()
        if not row:
            return None, None
        a = match.analysis
        return row, self.conn.execute("SELECT id FROM analyses WHERE match_id=? AND engine=? AND depth_label IS ?",
                                      (row[0], a.engine, a.depth_label)).fetchone()

    def analysis_stored(self, match: Match) -> bool:
        """Is this analysis of ``match`` (its engine and depth) stored?"""
        return self._stored(match)[1] is not None

    def stored_analysis(self, match: Match) -> Optional[StoreResult]:
        """What storing ``match`` would be when its analysis (engine and
        depth) is stored already: that "already stored" result, else None.
        ``analyse`` asks before gnubg analyses a file it has stored."""
        row, same = self._stored(match)
        if same:
            return StoreResult(ALREADY_STORED, row[0], same[0])
        if row is None:
            save = self._other_save(match)
            if save is not None and save[0] == "shorter":
                return StoreResult(ALREADY_STORED, save[1], None)
        return None

    def _other_save(self, match: Match) -> Optional[tuple]:
        """A stored match of which ``match`` is another save (docs/storage.md
        "A match saved twice"): the same length and starting score, and the
        moves of one begin with the other's.  ("longer", match id, its games)
        when ``match`` goes on from the stored one; ("shorter", match id,
        its games) when the stored one goes on from ``match``; else None.
        Found by the indexed opening key (``matches.opening``), then the
        candidates' moves compared."""
        own, earlier = opening_keys(match)
        if own is None:
            return None
        keys = sorted(set(earlier) | {own})
        candidates = [mid for (mid,) in self.conn.execute(
            f"SELECT id FROM matches WHERE opening IN ({','.join('?' * len(keys))}) AND kind = 'match' "
            "AND length = ? ORDER BY id", (*keys, match.length))]
        if not candidates:
            return None
        moves = match_moves(match)
        found = None
        for mid in candidates:
            stored, games = self._stored_moves(mid)
            if stored is None or stored == moves:
                continue
            if len(stored) < len(moves) and moves[:len(stored)] == stored:
                if found is None or found[0] != "longer" or games > found[2]:
                    found = ("longer", mid, games)  # the longest earlier save is extended
            elif len(moves) < len(stored) and stored[:len(moves)] == moves and found is None:
                found = ("shorter", mid, games)
        return found

    def _stored_moves(self, match_id: int) -> tuple:
        """(the stored match's moves as :func:`model.match_moves` makes them,
        its number of games); (None, 0) when its starting score is unknown.
        The rolls are the analysis' holding the most of them (an analysis of
        an earlier save, kept beside the longer one's, holds fewer)."""
        games = self.conn.execute("SELECT game, score0, score1 FROM games WHERE match_id = ? ORDER BY game",
                                  (match_id,)).fetchall()
        if not games:
            return None, 0
        row = self.conn.execute(
            "SELECT r.analysis_id FROM rolls r JOIN analyses a ON a.id = r.analysis_id WHERE a.match_id = ? "
            "GROUP BY r.analysis_id ORDER BY COUNT(*) DESC, r.analysis_id LIMIT 1", (match_id,)).fetchone()
        by_game: dict = {}
        if row is not None:
            for game, d1, d2, after in self.conn.execute(
                    "SELECT game, dice1, dice2, position_after FROM rolls WHERE analysis_id = ? ORDER BY game, seq",
                    (row[0],)):
                by_game.setdefault(game, []).append(move_token((d1, d2), after))
        moves = []
        for game, _s0, _s1 in games:
            moves.append(f"game={game}")
            moves += by_game.get(game, [])
        return moves, len(games)

    def add_match(self, match: Match) -> StoreResult:
        """Store a match in one transaction.  A match already stored is a
        no-op; a new analysis of a stored match is added beside the others;
        a later save of a stored match extends it, an earlier one is already
        stored (docs/storage.md "A match saved twice")."""
        if self.read_only:
            raise StoreError(f"cannot store into it: {self.read_only_reason}")
        self._follow_the_path()
        identity = match_identity(match)
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            row, same = self._stored(match)
            if row:
                match_id = row[0]
                if same:
                    c.execute("ROLLBACK")
                    return StoreResult(ALREADY_STORED, match_id, same[0])
                analysis_id = self._add_analysis(match_id, match)
                c.execute("COMMIT")
                return StoreResult(ANALYSIS_ADDED, match_id, analysis_id)
            save = self._other_save(match)
            if save is not None and save[0] == "shorter":
                c.execute("ROLLBACK")
                return StoreResult(ALREADY_STORED, save[1], None)
            if save is not None:
                result = self._extend(save[1], save[2], match, identity)
                c.execute("COMMIT")
                return result
            final = match.final_score()
            cur = c.execute(
                """INSERT INTO matches(identity, length, player0, player1, date, event, round, place,
                   annotator, comment, crawford_rule, jacoby, variation, rating0, rating1,
                   final_score0, final_score1, winner, source, imported_at, kind, opening)
                   VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                (
                    identity, match.length, match.players[0], match.players[1], match.date,
                    match.event, match.round, match.place, match.annotator, match.comment,
                    int(match.crawford_rule), int(match.jacoby), match.variation,
                    match.ratings[0], match.ratings[1], final[0], final[1], match.winner(),
                    match.source, _now(), match.kind, opening_keys(match)[0],
                ),
            )
            match_id = cur.lastrowid
            self._insert_games(match_id, match)
            analysis_id = self._add_analysis(match_id, match)
            c.execute("COMMIT")
            return StoreResult(STORED, match_id, analysis_id)
        except BaseException:
            _rollback(c)  # never masks the error (a failed COMMIT may have rolled back already)
            raise

    def _insert_games(self, match_id: int, match: Match) -> None:
        self.conn.executemany(
            "INSERT INTO games(match_id, game, score0, score1, crawford, winner, points, resigned) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [(match_id, g.number, g.score[0], g.score[1], int(g.crawford), g.winner, g.points, int(g.resigned))
             for g in match.games])

    # the tables of study data that name a decision by its id (SPEC §10, §11, §16)
    DECISION_REFERENCES = ("study_actions", "collection_positions", "anki_notes")

    def _extend(self, match_id: int, games_before: int, match: Match, identity: str) -> StoreResult:
        """``match`` is a later save of the stored ``match_id`` (inside the
        caller's transaction; docs/storage.md "A match saved twice"): the
        match takes its identity, games and result (its id, names and
        import time stay; what it did not say, the file may say now); the
        stored analysis of the same engine and depth is replaced by the
        file's, under its id, and what names its decisions (study actions,
        collections, Anki notes, verified evaluations) follows each decision
        to the new row of the same game, move, kind and position; other
        analyses stay as they are."""
        c = self.conn
        final = match.final_score()
        c.execute(
            "UPDATE matches SET identity = ?, opening = ?, final_score0 = ?, final_score1 = ?, winner = ?, "
            "date = COALESCE(date, ?), event = COALESCE(event, ?), round = COALESCE(round, ?), "
            "place = COALESCE(place, ?), annotator = COALESCE(annotator, ?), comment = COALESCE(comment, ?), "
            "rating0 = COALESCE(rating0, ?), rating1 = COALESCE(rating1, ?) WHERE id = ?",
            (identity, opening_keys(match)[0], final[0], final[1], match.winner(), match.date, match.event,
             match.round, match.place, match.annotator, match.comment, match.ratings[0], match.ratings[1],
             match_id))
        c.execute("DELETE FROM games WHERE match_id = ?", (match_id,))
        self._insert_games(match_id, match)
        a = match.analysis
        same = c.execute("SELECT id FROM analyses WHERE match_id = ? AND engine = ? AND depth_label IS ?",
                         (match_id, a.engine, a.depth_label)).fetchone()
        if same is None:
            analysis_id = self._add_analysis(match_id, match)
            return StoreResult(EXTENDED, match_id, analysis_id, games_before)
        analysis_id = same[0]
        old = {(g, q, k, p): i for i, g, q, k, p in c.execute(
            "SELECT id, game, seq, kind, position_id FROM decisions WHERE analysis_id = ?", (analysis_id,))}
        last_old = max(old.values(), default=0)
        c.execute("DELETE FROM rolls WHERE analysis_id = ?", (analysis_id,))
        c.execute(
            "UPDATE analyses SET source = ?, source_path = ?, source_player0 = ?, source_player1 = ?, "
            "engine_version = ?, depth = ?, met = ?, met_assumed = ?, imported_at = ? WHERE id = ?",
            (match.source, stored_path(match.source_path), match.players[0], match.players[1], a.engine_version,
             a.depth, a.met, int(a.met_assumed), _now(), analysis_id))
        self._insert_decisions(analysis_id, match)
        new = {(g, q, k, p): i for i, g, q, k, p in c.execute(
            "SELECT id, game, seq, kind, position_id FROM decisions WHERE analysis_id = ? AND id > ?",
            (analysis_id, last_old))}
        moved = [(new[key], i) for key, i in old.items() if key in new]
        gone = [(i,) for key, i in old.items() if key not in new]
        for table in self.DECISION_REFERENCES:
            c.executemany(f"UPDATE {table} SET decision_id = ? WHERE decision_id = ?", moved)
            c.executemany(f"UPDATE {table} SET decision_id = NULL WHERE decision_id = ?", gone)
        c.executemany("UPDATE verifications SET decision_id = ? WHERE decision_id = ?", moved)
        c.execute("DELETE FROM decisions WHERE analysis_id = ? AND id <= ?", (analysis_id, last_old))
        self._note_labels_version(analysis_id)
        self._rebuild_arrays_of(analysis_id)
        return StoreResult(EXTENDED, match_id, analysis_id, games_before)

    def _rebuild_arrays_of(self, analysis_id: int) -> None:
        """The cache of an analysis whose rows were replaced: the bundle
        holding it written again from the rows (its other analyses too),
        inside the caller's transaction."""
        where = self._coverage(self._bundles()).get(analysis_id)
        if where is None:
            self._store_arrays(analysis_id)
            return
        key = where[0]
        members = list(self._bundles()[key]["analyses"])
        self.conn.execute("DELETE FROM analysis_arrays WHERE analysis_id = ?", (key,))
        self._write_bundle([(a, *self._pack_records(a)) for a in members])

    def _note_labels_version(self, analysis_id: int) -> None:
        """A new match comes labelled by this version's rules.  A store with
        no other decisions takes this version; otherwise its version stays,
        and older labels are redone by ``relabel`` when the store is read."""
        from ..labels import LABELS_VERSION

        if self.get_meta("labels_version") is None and not self.conn.execute(
            "SELECT 1 FROM decisions WHERE analysis_id != ? LIMIT 1", (analysis_id,)
        ).fetchone():
            self.set_meta("labels_version", LABELS_VERSION)

    def _add_analysis(self, match_id: int, match: Match) -> int:
        """A new analysis of a stored match, whole: its row, its decisions
        and rolls, the labels' version it was made with and its arrays in
        the cache (inside the caller's transaction)."""
        analysis_id = self._insert_analysis(match_id, match)
        self._insert_decisions(analysis_id, match)
        self._note_labels_version(analysis_id)
        self._store_arrays(analysis_id)
        return analysis_id

    def _insert_analysis(self, match_id: int, match: Match) -> int:
        return insert_analysis(self.conn, match_id, match)

    def _insert_decisions(self, analysis_id: int, match: Match) -> None:
        insert_decisions(self.conn, analysis_id, match)

    # -- reading -------------------------------------------------------------
    def _analyses_by_match(self, match_ids=None) -> dict:
        """{match id: its analyses}; of ``match_ids`` only, when given (a
        selection of a few matches reads their rows, not the database's)."""
        out: dict = {}
        sql, args = "SELECT id, match_id, engine, depth, depth_label, source FROM analyses", []
        if match_ids is not None:
            sql += f" WHERE match_id IN ({','.join('?' * len(match_ids)) or 'NULL'})"
            args = list(match_ids)
        for row in self.conn.execute(sql + " ORDER BY id", args):
            out.setdefault(row[1], []).append(
                {"id": row[0], "engine": row[2], "depth": row[3], "depth_label": row[4], "source": row[5]}
            )
        return out

    @staticmethod
    def choose_analysis(analyses: list, flt: Filter) -> Optional[dict]:
        """SPEC §14: the engine/depth filter picks; without it, the deepest
        (the first imported among equals)."""
        ok = [
            a for a in analyses
            if (flt.engine is None or a["engine"] == flt.engine)
            and (flt.min_depth is None or (a["depth"] is not None and a["depth"] >= flt.min_depth))
        ]
        if not ok:
            return None
        return max(ok, key=lambda a: (a["depth"] if a["depth"] is not None else -1, -a["id"]))

    # -- players and aliases ------------------------------------------------
    def aliases(self) -> dict:
        """{alias (lower case): canonical name}."""
        return {a.lower(): c for a, c in self.conn.execute("SELECT alias, canonical FROM aliases")}

    def alias_pairs(self) -> list:
        """[(canonical, alias)], sorted: every alias as it was written."""
        return sorted(self.conn.execute("SELECT canonical, alias FROM aliases").fetchall())

    def add_alias(self, canonical: str, alias: str) -> None:
        """``alias`` is another spelling of ``canonical`` (SPEC §14: aliases merged)."""
        if canonical.strip().lower() == alias.strip().lower():
            raise ValueError("a name is not an alias of itself")
        canonical = self.canonical_name(canonical)  # chains end at one name
        with write_transaction(self.conn):
            # the alias as first written stays (its case), its canonical name changes
            if not self.conn.execute("UPDATE aliases SET canonical=? WHERE lower(alias)=lower(?)",
                                     (canonical, alias.strip())).rowcount:
                self.conn.execute("INSERT INTO aliases(alias, canonical) VALUES (?, ?)", (alias.strip(), canonical))
            self.conn.execute("UPDATE aliases SET canonical=? WHERE lower(canonical)=lower(?)", (canonical, alias.strip()))

    def remove_alias(self, alias: str) -> bool:
        with write_transaction(self.conn):
            return self.conn.execute("DELETE FROM aliases WHERE lower(alias) = lower(?)", (alias.strip(),)).rowcount > 0

    def canonical_name(self, name: str) -> str:
        row = self.conn.execute("SELECT canonical FROM aliases WHERE lower(alias) = lower(?)", (name.strip(),)).fetchone()
        return row[0] if row else name.strip()

    def player_names(self) -> list:
        """Every player of a stored match as the filter knows them (aliases
        merged), sorted without case."""
        aliases = self.aliases()
        names = {}
        for (name,) in self.conn.execute("SELECT player0 FROM matches WHERE kind = 'match' "
                                         "UNION SELECT player1 FROM matches WHERE kind = 'match'"):
            canonical = aliases.get((name or "").lower(), name or "")
            names.setdefault(canonical.lower(), canonical)
        return sorted(names.values(), key=str.casefold)

    # -- labels -------------------------------------------------------------
    def relabel(self, progress=None, only_if_stale: bool = False) -> int:
        """Recompute the derived labels of every decision (labels.py) and its
        difficulty d (SPEC §6, metrics/difficulty.py), and record the rules'
        version; returns the number of decisions.
        ``only_if_stale``: the automatic relabel after a rules change, which
        another process may have done while this one waited (then 0)."""
        from ..labels import LABELS_VERSION, decision_labels

        # one transaction: another process that opens the database meanwhile
        # waits, then finds the labels current (and the cache it reads whole)
        with write_transaction(self.conn):
            if only_if_stale and self.get_meta("labels_version") == LABELS_VERSION:
                return 0  # done by another process while this one waited
            rows = self.conn.execute(
                "SELECT d.id, d.kind, d.position_id, d.error, c.candidates, d.played_index, d.nd, d.dt, d.dp, "
                "d.n_legal, d.n_candidates, d.equity_spread, d.xg_counted, d.beaver_take, d.dice1, d.dice2 "
                "FROM decisions d LEFT JOIN decision_candidates c ON c.decision_id = d.id"
            ).fetchall()
            updates, hard_rows = [], []
            for rid, kind, pid, err, cands, pi, nd, dt, dp, n_legal, n_cands, spread, xg, beaver, d1, d2 in rows:
                cands = candidate_lists.decode(cands, pid, (d1, d2), notation=False)
                labels = decision_labels(kind, pid, err, cands, pi, nd, dt, dp)
                updates.append(labels + (rid,))
                hard_rows.append({"kind": kind, "error": err, "n_legal": n_legal, "n_candidates": n_cands,
                                  "equity_spread": spread, "xg_counted": xg, "nd": nd, "dt": dt, "dp": dp,
                                  "beaver_take": beaver, "equities": cands.equities()})
            # the difficulty of SPEC §6 is made again from the same rows (metrics/difficulty.py)
            hard = difficulties(hard_rows)
            updates = [u[:3] + h + u[3:] for u, h in zip(updates, hard)]
            self.conn.executemany("UPDATE decisions SET phase=?, game_plan=?, theme=?, difficulty=?, "
                                  "difficulty_truncated=? WHERE id=?", updates)
            self.conn.execute("DELETE FROM analysis_arrays")  # rebuilt with the new labels when read
            self.set_meta("labels_version", LABELS_VERSION)
        return len(updates)

    def labels_current(self) -> bool:
        from ..labels import LABELS_VERSION

        if not self.conn.execute("SELECT 1 FROM decisions LIMIT 1").fetchone():
            return True
        return self.get_meta("labels_version") == LABELS_VERSION

    # -- selecting ------------------------------------------------------------
    def select(self, flt: Optional[Filter] = None, match_ids=None, kind: str = "match", keep=None,
               choose=None) -> Selection:
        """The matches kept by ``flt`` (and among ``match_ids`` if given) with
        all their decisions and rolls (one analysis each), as arrays for the
        metrics.  ``kind`` "match" leaves out one-position files.  Player
        names are merged through the aliases.  ``keep``: only the decisions
        it keeps and no rolls (:meth:`select_rows`).  ``choose(stored)``:
        which of a match's stored analyses (dicts ``id``, ``engine``,
        ``depth``, ``depth_label``, ``source``) to read, None to leave the
        match out, instead of :meth:`choose_analysis` (``agreement``)."""
        flt = flt or Filter()
        if not self.labels_current():
            self.relabel(only_if_stale=True)
        aliases = self.aliases()

        def canon(name):
            return aliases.get((name or "").lower(), name)

        where, args = [], []
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if match_ids is not None:
            ids = [int(i) for i in match_ids]
            where.append(f"id IN ({','.join('?' * len(ids)) or 'NULL'})")
            args.extend(ids)
        if flt.date_from:
            where.append("date >= ?")
            args.append(flt.date_from)
        if flt.date_to:
            where.append("date <= ?")
            args.append(flt.date_to)
        if flt.lengths is not None:
            where.append(f"length IN ({','.join('?' * len(flt.lengths))})")
            args.extend(flt.lengths)
        if flt.tournaments:
            where.append(f"lower(event) IN ({','.join('?' * len(flt.tournaments))})")
            args.extend(t.lower() for t in flt.tournaments)
        sql = (
            "SELECT id, player0, player1, length, date, event, round, winner, final_score0, final_score1, "
            "source, imported_at FROM matches"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY COALESCE(date, '9999'), imported_at, id"
        # a few matches asked for (a store's summary and review): their rows only, not the database's (issue 29)
        few = [int(i) for i in match_ids] if match_ids is not None and len(match_ids) <= 900 else None
        analyses = self._analyses_by_match(few)
        wanted = canon(flt.player).lower() if flt.player else None
        any_analysis = flt.engine is None and flt.min_depth is None
        infos, sides = [], []
        for row in self.conn.execute(sql, args).fetchall():
            mid = row[0]
            names = (canon(row[1]), canon(row[2])) if aliases else (row[1], row[2])
            if wanted is not None and wanted not in (names[0].lower(), names[1].lower()):
                continue
            stored = analyses.get(mid, [])
            if choose is not None:
                chosen = choose(stored)
            else:
                chosen = stored[0] if any_analysis and len(stored) == 1 else self.choose_analysis(stored, flt)
            if chosen is None:
                continue
            infos.append(
                MatchInfo(
                    id=mid, players=(row[1], row[2]), length=row[3], date=row[4], event=row[5], round=row[6],
                    winner=row[7], final_score=(row[8], row[9]), n_games=0,
                    source=row[10], analysis_id=chosen["id"], engine=chosen["engine"],
                    depth=chosen["depth"], depth_label=chosen["depth_label"],
                    analyses=[{"engine": a["engine"], "depth": a["depth_label"]} for a in stored],
                    start_score=None, names=names, imported_at=row[11], analysis_source=chosen.get("source"),
                )
            )
            if wanted is not None:
                sides.append([n.lower() == wanted for n in names])
        if infos:  # each match's number of games and the score of its first (none read when no match is chosen)
            games = self._first_games(few)
            for info in infos:
                info.n_games, info.start_score = games.get(info.id, (0, None))
        if wanted is None:
            sides = np.ones((len(infos), 2), dtype=bool)
        sel = self._arrays(infos, np.array(sides, dtype=bool).reshape(-1, 2), flt.player and canon(flt.player),
                           keep=keep)
        if flt.family:  # --family: only that study-plan family's decisions (metrics/plan.py, SPEC §9)
            from ..metrics.plan import restrict_to_family

            sel = restrict_to_family(sel, flt.family)
        if getattr(flt, "collection", None):  # --collection: only decisions at a position filed in it
            sel = self._restrict_to_collection(sel, flt.collection)
        return sel

    def _first_games(self, few) -> dict:
        """{match id: (its number of games, (score0, score1, crawford) of
        its first)} of the matches ``few`` (ids), or of every match.
        :meth:`select` asks only when it chose a match (``agreement``'s
        second analyses of a database of one engine and depth: two
        selections of nothing in every report, each 0.05 s of this query
        over 10,000 matches)."""
        only = "" if few is None else f" WHERE match_id IN ({','.join('?' * len(few)) or 'NULL'})"
        return {mid: (n, (s0, s1, bool(cr))) for mid, n, s0, s1, cr in self.conn.execute(
            "SELECT g.match_id, f.n, g.score0, g.score1, g.crawford FROM games g JOIN "
            f"(SELECT match_id, COUNT(*) AS n, MIN(game) AS first FROM games{only} GROUP BY match_id) f "
            "ON f.match_id = g.match_id AND g.game = f.first", few or [])}

    def _restrict_to_collection(self, sel: Selection, name: str) -> Selection:
        """The ``--collection`` filter: the same matches, rolls and sides,
        only the decisions whose position is in the collection ``name``."""
        import dataclasses

        filed = self.collection_positions(name)
        if filed is None:
            from ..commands import closest_names

            near = closest_names(name, [c["name"] for c in self.collections()])
            hint = f" (closest names: {', '.join(near)})" if near else ""
            raise StoreError(f"no collection '{name}'{hint}: `gnubg-blunder collection list` lists them")
        wanted = {r["position_id"] for r in filed}
        keep_pos = np.array([p in wanted for p in sel.positions], dtype=bool)
        dec = sel.decisions
        if not len(dec):
            return sel
        pos = np.asarray(dec.position, dtype=np.int64)
        ok = (pos >= 0) & (pos < len(keep_pos))
        mask = np.zeros(len(pos), dtype=bool)
        mask[ok] = keep_pos[pos[ok]]
        return dataclasses.replace(sel, decisions=dec.take(mask), whole_analyses=False)

    def select_rows(self, flt: Optional[Filter], keep) -> Selection:
        """:meth:`select` holding only the decisions ``keep(decisions)``
        keeps (a bool mask over the selection's lazy ``DecisionArrays``)
        and no rolls: ``keep`` reads the columns it names, and the other
        columns are read for the kept rows alone, so a view that needs a
        few decisions of 10,000 matches (the reference positions: the
        errors) holds only those."""
        return self.select(flt, keep=keep)

    # -- the array cache (store/column_cache.py) ------------------------------
    # (array column, SQL expression); integers never NULL in SQL, floats NULL -> NaN
    def _column_spec(self) -> list:
        def case(column, names):
            whens = " ".join(f"WHEN {_sql_text(n)} THEN {k}" for k, n in enumerate(names))
            return f"CASE {column} {whens} ELSE -1 END"

        return [
            ("game", "d.game"), ("seq", "d.seq"), ("player", "d.player"),
            ("kind", case("d.kind", list(KIND_CODES))), ("error", "d.error"),
            ("mwc_per_emg", "d.mwc_per_emg"), ("nd", "d.nd"), ("dt", "d.dt"), ("dp", "d.dp"),
            ("n_legal", "COALESCE(d.n_legal, -1)"), ("n_candidates", "d.n_candidates"),
            ("equity_spread", "d.equity_spread"), ("xg_counted", "COALESCE(d.xg_counted, -1)"),
            ("beaver_take", "d.beaver_take"), ("gnubg_dead_cube", "d.gnubg_dead_cube"), ("row_id", "d.id"),
            ("score_self", "d.score_self"), ("score_opp", "d.score_opp"), ("crawford", "d.crawford"),
            ("cube_value", "d.cube_value"),
            ("dice", "COALESCE(MAX(d.dice1, d.dice2) * 10 + MIN(d.dice1, d.dice2), -1)"), ("phase", case("d.phase", LABELS["phase"])),
            ("game_plan", case("d.game_plan", LABELS["game_plan"])), ("theme", case("d.theme", LABELS["theme"])),
            ("difficulty", "d.difficulty"), ("difficulty_truncated", "COALESCE(d.difficulty_truncated, -1)"),
            ("duration", "d.duration"),
        ]

    def _record_dtypes(self):
        spec = self._column_spec()
        dec = np.dtype([(name, DecisionArrays.SPEC[name][0]) for name, _ in spec] + [("position", "S16")]
                       + [(name, np.int8) for name in BLOT_COLUMNS] + [("counted", np.int8)])
        rol = np.dtype([(name, RollArrays.SPEC[name][0]) for name in ("game", "seq", "player", "luck", "mwc_per_emg")])
        return spec, dec, rol

    def _pack_records(self, analysis_id: int) -> tuple:
        """The analysis' cached decisions and rolls as record arrays, read
        from its rows, and the indices of its decisions that have a comment
        (a comment's text is stored once, in its decisions row: ``_arrays``
        reads it from there)."""
        spec, dec_dtype, roll_dtype = self._record_dtypes()
        rows = self.conn.execute(
            "SELECT " + ", ".join(e for _, e in spec) + ", COALESCE(d.position_id, ''), "
            "d.comment IS NOT NULL AND d.comment != '' "
            "FROM decisions d WHERE d.analysis_id = ? ORDER BY d.game, d.seq, d.id", (analysis_id,)
        ).fetchall()
        dec = np.zeros(len(rows), dtype=dec_dtype)
        if rows:
            cols = list(zip(*rows))
            for (name, _), values in zip(spec, cols):
                dtype = DecisionArrays.SPEC[name][0]
                dec[name] = np.array(values, dtype=np.float64 if dtype == np.float64 else dtype)
            dec["position"] = np.array(cols[-2], dtype="S16")
            comments = [k for k, has in enumerate(cols[-1]) if has]
            self._pack_blots(analysis_id, dec)
            dec["counted"] = _counted_flags(dec)
        else:
            comments = []
        rrows = self.conn.execute(
            "SELECT game, seq, player, luck, mwc_per_emg FROM rolls WHERE analysis_id = ? ORDER BY game, seq",
            (analysis_id,),
        ).fetchall()
        rol = np.zeros(len(rrows), dtype=roll_dtype)
        if rrows:
            for name, values in zip(roll_dtype.names, zip(*rrows)):
                rol[name] = np.array(values, dtype=np.float64 if rol.dtype[name] == np.float64 else rol.dtype[name])
        return dec, rol, comments

    def _pack_blots(self, analysis_id: int, dec: np.ndarray) -> None:
        """The blots the analysis' wrong checker plays (e > 0) leave, for the
        blot bias (SPEC §12, metrics/biases.py): ``blots_played``, the
        blots of the player on roll on the board the played move left, -1
        where that board is not one of the candidates' (not reproduced) or
        unknown; ``blots_best``, on the board of the analysis' first
        candidate, -1 unknown; -1 for every other decision.  The boards are
        read as :func:`boards.checker_results` reads them (one query)."""
        from ..metrics.biases import blots_on_roll
        from .boards import wrong_play_results

        for name in BLOT_COLUMNS:
            dec[name] = -1
        results = wrong_play_results(self.conn, analysis_id)
        if not results:
            return
        where = {int(r): k for k, r in enumerate(dec["row_id"].tolist())}
        idx = np.array([where[r] for r in results], dtype=np.int64)
        got = list(results.values())
        blots = blots_on_roll([g[0] for g in got] + [g[2] for g in got])  # one decoding for both boards
        dec["blots_played"][idx] = np.where([g[1] for g in got], blots[:len(got)], -1)
        dec["blots_best"][idx] = blots[len(got):]

    # -- the array cache: bundles of analyses (store/column_cache.py) ------------
    def _bundles(self, conn=None) -> dict:
        """{key: manifest} of the cache's bundles of this format (a bundle
        whose manifest cannot be read covers nothing: rebuilt, ``check``
        names it)."""
        conn = conn or self.conn
        if self.engine == "sqlite" and self.opened_file is not None:
            return self._sealed_manifests(conn)
        out, seen = {}, self._manifests
        for key, text in conn.execute(
                "SELECT analysis_id, comments FROM analysis_arrays WHERE format = ?", (ARRAYS_FORMAT,)):
            if key in seen and seen[key][0] == text:  # parsed before (a select asks twice): the same text
                out[key] = seen[key][1]
                continue
            try:
                out[key] = read_manifest(text)
            except ValueError:
                continue
            seen[key] = (text, out[key])
        return out

    def _sealed_manifests(self, conn, wanted=None) -> dict:
        """:meth:`_bundles` of a file, its manifests parsed once per process:
        a manifest lies after its bundle's columns in the row, so reading it
        walks the whole row (every manifest: the cache's every byte, 26 ms
        at 10,000 matches, at each store and each selection: what grew with
        the file, issue 29).  Each bundle's seal — the first 4 bytes of its
        decisions blob, read through a blob handle from the row's first
        page, a CRC-32 over its headers and manifest — says whether the
        manifest parsed before is still the one stored; only the others are
        read.  The seal itself is checked when a bundle is read
        (:meth:`_read_bundles`).  With ``wanted`` (analysis ids), the other
        bundles are not read once the known ones hold them all (an analysis
        lies in one bundle): a store's summary and review find the bundle
        this process has just written (:meth:`_write_bundle`)."""
        keys = [k for (k,) in conn.execute("SELECT analysis_id FROM analysis_arrays WHERE format = ?",
                                           (ARRAYS_FORMAT,)).fetchall()]
        out, unread, seals = {}, [], {}
        for key in keys:
            try:
                with conn.blobopen("analysis_arrays", "decisions", key, readonly=True) as blob:
                    seals[key] = blob.read(4)
            except sqlite3.Error:
                seals[key] = None  # another process dropped it meanwhile, or no blob: read below
            known = _MANIFESTS.get((self.opened_file, key))
            if known is not None and seals[key] is not None and known[0] == seals[key]:
                out[key] = known[1]
            else:
                unread.append(key)
        if wanted is not None and unread:
            held = set().union(*(man["analyses"] for man in out.values())) if out else set()
            if held.issuperset(wanted):
                return out
        for start in range(0, len(unread), 900):
            part = unread[start:start + 900]
            for key, text in conn.execute(
                    f"SELECT analysis_id, comments FROM analysis_arrays WHERE format = ? AND analysis_id IN "
                    f"({','.join('?' * len(part))})", (ARRAYS_FORMAT, *part)):
                try:
                    out[key] = read_manifest(text)
                except ValueError:
                    continue
                if seals.get(key) is not None:
                    _MANIFESTS[(self.opened_file, key)] = (seals[key], out[key], text)
        return out

    def _bundles_holding(self, ids, conn=None) -> dict:
        """{key: manifest} of the bundles holding any of the analyses ``ids``."""
        wanted = set(ids)
        conn = conn or self.conn
        if self.engine == "sqlite" and self.opened_file is not None:
            found = self._sealed_manifests(conn, wanted)
        else:
            found = self._bundles(conn)
        return {key: man for key, man in found.items() if wanted.intersection(man["analyses"])}

    @staticmethod
    def _coverage(bundles: dict) -> dict:
        """{analysis id: (bundle key, its place in the bundle)}."""
        return {a: (key, i) for key, man in bundles.items() for i, a in enumerate(man["analyses"])}

    def _selection_order(self, ids=None) -> dict:
        """{analysis id: its place in the order ``select`` reads matches
        (date, import time, match id; then the analysis id)}: a bundle
        keeps its analyses in that order, and a bundle built from many
        analyses holds a stretch of it, so that a selection reads long runs
        of rows as they lie (column_cache.gather).  ``ids``: of those
        analyses only (a merge's: not every analysis' row at each store)."""
        sql = ("SELECT a.id, COALESCE(m.date, '9999'), m.imported_at, m.id, a.id FROM analyses a "
               "JOIN matches m ON m.id = a.match_id")
        if ids is None:
            return {a: key for a, *key in self.conn.execute(sql)}
        ids, out = sorted(set(ids)), {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            out.update((a, key) for a, *key in self.conn.execute(
                f"{sql} WHERE a.id IN ({','.join('?' * len(part))})", part))
        return out

    def _write_bundle(self, parts: list) -> int:
        """Store ``parts`` [(analysis id, decisions, rolls, commented)] as one
        bundle keyed by its smallest analysis id, the analyses in the order
        selections read them (:meth:`_selection_order`), inside the caller's
        transaction."""
        key = min(p[0] for p in parts)
        if len(parts) > 1:
            order = self._selection_order(p[0] for p in parts)
            parts = sorted(parts, key=lambda p: order.get(p[0], (p[0],)))
        dec, rol, manifest = encode_bundle(parts)
        self.conn.execute(
            "INSERT INTO analysis_arrays(analysis_id, format, decisions, rolls, comments) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(analysis_id) DO UPDATE SET format=excluded.format, decisions=excluded.decisions, "
            "rolls=excluded.rolls, comments=excluded.comments",
            (key, ARRAYS_FORMAT, dec, rol, manifest),
        )
        if self.engine == "sqlite" and self.opened_file is not None:
            # known to this process by its seal (_sealed_manifests): not read back by the next selection
            _MANIFESTS[(self.opened_file, key)] = (bytes(dec[:4]), read_manifest(manifest), manifest)
        return key

    def _store_arrays(self, analysis_id: int) -> None:
        """The cache of one analysis just stored (a bundle of its own), then
        small bundles merged (inside the caller's transaction)."""
        self._write_bundle([(analysis_id, *self._pack_records(analysis_id))])
        self._merge_bundles()

    def _merge_bundles(self) -> None:
        """Eight small bundles of one size class merged into one
        (column_cache.merges), inside the caller's transaction."""
        # each bundle's decisions, from its header (decision rows, uint32 after the seal): no manifest parsed
        if self.engine == "sqlite":
            # 4 bytes read through a blob handle: substr() of a blob reads the whole blob (the cache's every
            # byte at each store: what grew with the file, issue 29)
            sizes = {}
            for (key,) in self.conn.execute("SELECT analysis_id FROM analysis_arrays WHERE format = ?",
                                            (ARRAYS_FORMAT,)).fetchall():
                with self.conn.blobopen("analysis_arrays", "decisions", key, readonly=True) as blob:
                    blob.seek(4)
                    sizes[key] = int.from_bytes(blob.read(4), "little")
        else:
            sizes = {key: int.from_bytes(rows, "little") for key, rows in self.conn.execute(
                "SELECT analysis_id, substr(decisions, 5, 4) FROM analysis_arrays WHERE format = ?",
                (ARRAYS_FORMAT,))}
        groups = merges(sizes)
        if not groups:
            return
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        for group in groups:
            parts = []
            for key in group:
                row = self.conn.execute("SELECT decisions, rolls, comments FROM analysis_arrays WHERE analysis_id = ?",
                                        (key,)).fetchone()
                try:
                    if row is None or not sealed(row[0], row[1], row[2], dec_dtype, roll_dtype):
                        raise ValueError("its seal differs")
                    parts += decode_bundle(*row, dec_dtype, roll_dtype)
                except ValueError:
                    parts = None  # damaged: left for the reader to refuse and `check` to repair
                    break
            if parts is None:
                continue
            self.conn.executemany("DELETE FROM analysis_arrays WHERE analysis_id = ?", [(k,) for k in group])
            self._write_bundle(parts)

    def _ensure_arrays(self, analysis_ids, progress=None) -> None:
        """Build the cache of analyses that have none (older databases, new
        formats, relabelled decisions): bundles of up to
        ``BUNDLE_DECISIONS`` decisions, in one transaction.  ``progress(n)``
        is told each bundle's number of analyses as it is written."""
        analysis_ids = list(analysis_ids)
        covered = self._coverage(self._bundles_holding(analysis_ids))
        if all(a in covered for a in analysis_ids):
            return
        with write_transaction(self.conn):
            self.conn.execute("DELETE FROM analysis_arrays WHERE format != ?", (ARRAYS_FORMAT,))
            covered = self._coverage(self._bundles())  # again: another process may have built them meanwhile
            def write(parts):
                self._write_bundle(parts)
                if progress is not None:
                    progress(len(parts))

            parts, size = [], 0
            order = self._selection_order()
            for a in sorted(set(analysis_ids) - set(covered), key=lambda a: order.get(a, (a,))):
                parts.append((a, *self._pack_records(a)))
                size += len(parts[-1][1])
                if size >= BUNDLE_DECISIONS:
                    write(parts)
                    parts, size = [], 0
            if parts:
                write(parts)
            self._merge_bundles()
        if self._compact_pending:
            self._compact_pending = False
            self._compact_after_upgrade()

    def _snapshot_connection(self):
        """(connection, whether it is this read's own) for the array
        cache's blob handles.  Open handles keep the snapshot they were
        opened in, and a connection holding an old snapshot cannot write:
        a file is read through a connection of its own, so that this store
        still writes while a selection lives, and a selection still reads
        after its store is closed.  The store's connection serves a copy in
        memory (nobody else writes it) and a read inside a write
        transaction (which must see its own writes)."""
        if self.memory_copy or self.path == ":memory:" or self.conn.in_transaction:
            return self.conn, False
        if self.read_only:
            uri = self._read_only_uri
            return (self._connect(uri, uri=True), True) if uri else (self.conn, False)
        return self._connect(self.path), True

    def _read_bundles(self, ids) -> tuple:
        """({key: manifest}, {key: (decisions source, rolls source)}, the
        connection to close with them or None) of the bundles holding the
        analyses ``ids``: their manifests and headers read and their seals
        checked, their columns left in the file behind open blob handles
        (:class:`column_cache.BlobSource`), all in one snapshot (a merge by
        another process is seen whole or not at all; the handles keep that
        snapshot until they are closed)."""
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        n, m = header_size(dec_dtype), header_size(roll_dtype)
        wanted = set(ids)
        conn, owned = self._snapshot_connection()
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")
        sources = {}
        try:
            mans = self._bundles_holding(wanted, conn)
            keys = sorted(mans)
            if self.engine == "sqlite":
                self._open_bundles(conn, keys, mans, n, m, dec_dtype, roll_dtype, sources)
            else:  # PostgreSQL: each blob handle's read is a query; the headers come with the rows
                for start in range(0, len(keys), 900):
                    part = keys[start:start + 900]
                    for key, d, r, cm in conn.execute(
                        f"SELECT analysis_id, substr(decisions, 1, {4 + n}), substr(rolls, 1, {m}), comments "
                        f"FROM analysis_arrays WHERE analysis_id IN ({','.join('?' * len(part))}) AND format = ?",
                        part + [ARRAYS_FORMAT],
                    ):
                        if not sealed(d, r, cm, dec_dtype, roll_dtype):
                            raise _damaged_bundle(key)
                        sources[key] = (
                            BlobSource(d[4:], conn.blobopen("analysis_arrays", "decisions", key, readonly=True), 4),
                            BlobSource(r, conn.blobopen("analysis_arrays", "rolls", key, readonly=True)))
        except BaseException:
            if own:
                _rollback(conn)
            _close_sources(sources, conn if owned else None)
            raise
        if own:
            self._end_snapshot(conn, owned)
        return mans, sources, conn if owned else None

    def _open_bundles(self, conn, keys, mans, n, m, dec_dtype, roll_dtype, sources) -> None:
        """:meth:`_read_bundles`' blob handles on SQLite, into ``sources``:
        each bundle's headers read through its handles (``substr()`` of a
        blob reads the whole blob: every bundle's columns, 30-70 ms at
        10,000 matches, before a column was asked for), and its manifest's
        text from this process' parse of it when the seal read in this
        snapshot is the one parsed (:meth:`_sealed_manifests`: the
        manifest lies after the columns, and reading it walks the whole
        row); the others' read from the row.  The seal is checked as
        before, over the headers and the manifest's text."""
        texts = {}
        for key in keys:
            known = _MANIFESTS.get((self.opened_file, key)) if self.opened_file is not None else None
            if known is not None and known[1] is mans[key]:
                texts[key] = known[2]
        current = set()
        for start in range(0, len(keys), 900):
            part = keys[start:start + 900]
            args = part + [ARRAYS_FORMAT]
            marks = ",".join("?" * len(part))
            current.update(k for (k,) in conn.execute(
                f"SELECT analysis_id FROM analysis_arrays WHERE analysis_id IN ({marks}) AND format = ?", args))
            unread = [k for k in part if k not in texts]
            if unread:
                texts.update(conn.execute(
                    f"SELECT analysis_id, comments FROM analysis_arrays WHERE analysis_id IN "
                    f"({','.join('?' * len(unread))}) AND format = ?", unread + [ARRAYS_FORMAT]))
        for key in keys:
            if key not in current:
                continue  # dropped by another process meanwhile: not covered, read again (_arrays)
            dec = conn.blobopen("analysis_arrays", "decisions", key, readonly=True)
            try:
                rol = conn.blobopen("analysis_arrays", "rolls", key, readonly=True)
            except BaseException:
                dec.close()
                raise
            sources[key] = (BlobSource(b"", dec, 4), BlobSource(b"", rol))
            d, r = dec.read(4 + n), rol.read(m)
            if not sealed(d, r, texts.get(key), dec_dtype, roll_dtype):
                raise _damaged_bundle(key)
            sources[key][0].head, sources[key][1].head = d[4:], r

    def _end_snapshot(self, conn, owned: bool) -> None:
        """The read's transaction ended once its handles are open (SQLite's
        blob handles keep the snapshot they were opened in)."""
        conn.execute("COMMIT")

    def _arrays(self, infos: list, sides: np.ndarray, player: Optional[str], keep=None) -> Selection:
        """The decisions and rolls of the chosen analyses, from the array
        cache, read lazily: the bundles holding them are fetched (and their
        checksums checked) here, a column is decompressed when a metric
        first reads it (:class:`column_cache.CacheReader`).  Comments are
        read from their rows, by id (the manifest says which decisions have
        one).  ``keep``: only the decisions ``keep(decisions)`` keeps (a
        bool mask over the lazy columns), no rolls."""
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        ids = [m.analysis_id for m in infos]
        for _attempt in range(3):
            if not ids:  # no match chosen: no bundle to read, no connection of its own to open
                mans, rows, conn, coverage = {}, {}, None, {}
                break
            # another process may merge or drop bundles between the build and
            # the read (a relabel after a rules change): build what is missing again
            self._ensure_arrays(ids)
            mans, rows, conn = self._read_bundles(ids)
            coverage = self._coverage(mans)
            if all(a in coverage for a in ids):
                break
            _close_sources(rows, conn)
        else:
            raise StoreError("the array cache kept changing while it was read (other processes relabelling): "
                             "run the command again")
        keys = sorted(rows)
        # each selected analysis' first row in the bundles' columns end to end (bundles in key order) and its
        # number of rows, as arrays: the entries of every bundle, flat, and the selection's among them
        dec_n = [np.asarray(mans[key]["decisions"], dtype=np.int64) for key in keys]
        roll_n = [np.asarray(mans[key]["rolls"], dtype=np.int64) for key in keys]
        sizes = [len(x) for x in dec_n]
        base_of = dict(zip(keys, np.cumsum([0] + sizes)[:-1].tolist()))
        dec_n = np.concatenate(dec_n) if keys else np.zeros(0, dtype=np.int64)
        roll_n = np.concatenate(roll_n) if keys else np.zeros(0, dtype=np.int64)
        flat = np.fromiter((base_of[key] + i for key, i in map(coverage.__getitem__, ids)), dtype=np.int64,
                           count=len(ids))
        dec_runs = np.stack([(np.cumsum(dec_n) - dec_n)[flat], dec_n[flat]], axis=1)
        roll_runs = np.stack([(np.cumsum(roll_n) - roll_n)[flat], roll_n[flat]], axis=1)
        commented = []
        noted = {base_of[key] + int(i): ks for key in keys for i, ks in mans[key]["commented"].items() if ks}
        if noted:
            at = np.cumsum(dec_runs[:, 1]) - dec_runs[:, 1]  # each selected analysis' first decision
            for p in np.flatnonzero(np.isin(flat, np.fromiter(noted, dtype=np.int64, count=len(noted)))).tolist():
                commented += [int(at[p]) + k for k in noted[int(flat[p])]]
        try:
            reader = CacheReader([rows[k][0] for k in keys], [rows[k][1] for k in keys], dec_dtype, roll_dtype,
                                 dec_runs, roll_runs)
        except ValueError as exc:
            _close_sources(rows, conn)
            raise DamagedDatabase(f"the array cache is damaged ({exc}): no figure was computed from it. "
                                  f"{CHECK_HINT}") from None
        weakref.finalize(reader, _close_sources, rows, conn)  # the handles live as long as the columns may be read
        if commented:
            row_ids = reader.stored_decisions("row_id")
            texts = self._comment_texts([int(row_ids[k]) for k in commented])
            reader.comments = {k: texts.get(int(row_ids[k])) for k in commented}
        if keep is None:
            dec = DecisionArrays.lazy(reader.n_decisions, reader.decision_column, load_at=reader.decision_values_at)
            rolls = RollArrays.lazy(reader.n_rolls, reader.roll_column)
            positions = LazyPositions(reader.positions)
        else:
            whole = DecisionArrays.lazy(reader.n_decisions, reader.decision_column)
            kept = reader.subset(np.nonzero(keep(whole))[0])
            dec = DecisionArrays.lazy(kept.n_decisions, kept.decision_column, load_at=kept.decision_values_at)
            rolls = RollArrays()
            positions = LazyPositions(kept.positions)
        return Selection(matches=infos, decisions=dec, rolls=rolls, sides=sides, player_filter=player,
                         positions=positions, whole_analyses=keep is None)

    def _comment_texts(self, row_ids) -> dict:
        """{decision id: its comment} (stored once, in the decisions row)."""
        out = {}
        for start in range(0, len(row_ids), 900):
            part = row_ids[start:start + 900]
            out.update(self.conn.execute(
                f"SELECT id, comment FROM decisions WHERE id IN ({','.join('?' * len(part))})", part))
        return out

    def decision_rows(self, row_ids) -> list:
        """Full rows of decisions (for drill-down lists and reviews), with
        their candidate list (JSON text) as ``candidates``."""
        ids = [int(i) for i in row_ids]
        if not ids:
            return []
        out = []
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            q = (f"SELECT d.*, c.candidates FROM decisions d LEFT JOIN decision_candidates c "
                 f"ON c.decision_id = d.id WHERE d.id IN ({','.join('?' * len(part))})")
            cur = self.conn.execute(q, part)
            cols = [x[0] for x in cur.description]
            out += [dict(zip(cols, r)) for r in cur.fetchall()]
        order = {i: k for k, i in enumerate(ids)}
        return sorted(out, key=lambda r: order.get(r["id"], 0))

    # -- reference positions and study actions (SPEC §10, §11) ------------------------
    def second_costs(self, decision_ids) -> dict:
        """{decision id: max(0, eq₁ − eq₂)} (EMG): what the second candidate
        of each checker play's stored list costs against the first (the
        analysis' second choice); decisions with fewer than two candidates
        with an equity are left out.  The lists' equities are read without
        resolving a play (store/candidates.py)."""
        return candidate_lists.second_costs(self.conn, decision_ids)

    ANALYSIS_COLUMNS = ("id", "position_id", "kind", "dice", "length", "score_self", "score_opp", "crawford",
                        "cube_value", "cube_owner", "nd", "dt", "dp", "best_move", "depth", "engine",
                        "analysis_depth")

    def position_analyses(self, position_ids, decision_ids=(), every: bool = False) -> dict:
        """Every stored analysis of decisions at ``position_ids`` that can
        give a verdict other than the analysis read (SPEC §10 "unstable"):
        the cube decisions and the rollouts at those positions, in every
        analysis of every match, and the decisions ``decision_ids``
        themselves — as columns (``ANALYSIS_COLUMNS``; metrics/references.py
        ``stability``).  {} when the database holds one engine and depth and
        no rollout: no other verdict can exist (``every``: read them all the
        same, for the verified evaluations beside them, SPEC §16)."""
        kinds = self.conn.execute(
            "SELECT COUNT(DISTINCT engine || '|' || COALESCE(depth_label, '')), "
            "COALESCE(SUM(CASE WHEN depth_label LIKE 'rollout%' OR depth_label LIKE '%+' THEN 1 ELSE 0 END), 0) "
            "FROM analyses").fetchone()
        if kinds[0] <= 1 and not kinds[1] and not every:
            return {}
        pids = sorted(set(position_ids))
        ids = sorted({int(i) for i in decision_ids})
        select = ("SELECT d.id, d.position_id, d.kind, "
                  "COALESCE(MAX(d.dice1, d.dice2) * 10 + MIN(d.dice1, d.dice2), -1), m.length, d.score_self, "
                  "d.score_opp, d.crawford, d.cube_value, d.cube_owner, d.nd, d.dt, d.dp, d.best_move, d.depth, "
                  "a.engine, a.depth_label "
                  "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id ")
        rows = []
        for start in range(0, len(pids), 500):  # the cube decisions and the rollouts at those positions
            part = pids[start:start + 500]
            rows += self.conn.execute(
                select + f"WHERE d.position_id IN ({','.join('?' * len(part))}) AND (d.kind != 'checker' "
                "OR d.depth LIKE 'rollout%' OR a.depth_label LIKE 'rollout%')", part).fetchall()
        for start in range(0, len(ids), 500):  # the decisions themselves (a checker play's own verdict)
            part = ids[start:start + 500]
            rows += self.conn.execute(select + f"WHERE d.id IN ({','.join('?' * len(part))})", part).fetchall()
        rows = list({r[0]: r for r in rows}.values())
        return {name: [r[k] for r in rows] for k, name in enumerate(self.ANALYSIS_COLUMNS)}

    def add_study_action(self, position_id: str, action: str = "studied", grade=None, decision_id=None,
                         at: Optional[str] = None) -> str:
        """Store a study action on a position (now or at ``at``, UTC ISO
        8601); returns its time."""
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")
        at = at or _now()
        with write_transaction(self.conn):
            self.conn.execute("INSERT INTO study_actions(position_id, action, grade, decision_id, at) "
                              "VALUES (?, ?, ?, ?, ?)", (position_id, action, grade, decision_id, at))
        return at

    def mark_studied(self, position_id: str) -> tuple:
        """``mark studied``: a "studied" study action at ``position_id``,
        now.  ``(at, True)`` when stored; ``(the earlier mark's at, False)``
        when the position has a mark of this UTC day already: nothing is
        stored (one mark a day; a family's study is dated by its day).
        ValueError when no stored decision is at the position: a mistyped
        ID, or another database's position, is not marked."""
        from ..metrics.study import STUDIED, utc_day

        self._writable()
        at = _now()
        with write_transaction(self.conn):
            if self.conn.execute("SELECT 1 FROM decisions WHERE position_id = ? LIMIT 1",
                                 (position_id,)).fetchone() is None:
                raise ValueError(f"position {position_id} is in no stored match: nothing marked "
                                 "(`references` and `positions --errors` list your positions)")
            today = utc_day(at)
            for (earlier,) in self.conn.execute("SELECT at FROM study_actions WHERE position_id = ? AND action = ? "
                                                "ORDER BY at, id", (position_id, STUDIED)).fetchall():
                if utc_day(earlier) == today:
                    return earlier, False
            self.conn.execute("INSERT INTO study_actions(position_id, action, grade, decision_id, at) "
                              "VALUES (?, ?, NULL, NULL, ?)", (position_id, STUDIED, at))
        return at, True

    def remove_study_actions(self, position_id: str, action: str = "studied") -> int:
        """Forget a position's ``action`` rows; how many there were."""
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")
        with write_transaction(self.conn):
            return self.conn.execute("DELETE FROM study_actions WHERE position_id = ? AND action = ?",
                                     (position_id, action)).rowcount

    def study_actions(self) -> list:
        """Every study action, oldest first: ``id``, ``position_id``,
        ``action``, ``grade``, ``decision_id``, ``at``."""
        cur = self.conn.execute("SELECT id, position_id, action, grade, decision_id, at FROM study_actions "
                                "ORDER BY at, id")
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def studied_positions(self) -> dict:
        """{position ID: [why, ...]} of the positions already studied (SPEC
        §10): a study action ("studied", later a quiz answer, a review), a
        decision at it commented in its imported file ("comment"), filed in a
        collection ("collection NAME") or exported as an Anki note ("anki
        card").  Filing and exporting are no study actions (SPEC §11): they
        are not in ``study_actions``, only here."""
        out: dict = {}
        for pid, action in self.conn.execute("SELECT DISTINCT position_id, action FROM study_actions"):
            out.setdefault(pid, []).append(action)
        for (pid,) in self.conn.execute("SELECT DISTINCT position_id FROM decisions "
                                        "WHERE comment IS NOT NULL AND comment != '' AND position_id IS NOT NULL"):
            out.setdefault(pid, []).append("comment")
        for pid, name in self.conn.execute("SELECT p.position_id, c.name FROM collection_positions p "
                                           "JOIN collections c ON c.id = p.collection_id"):
            out.setdefault(pid, []).append(f"collection {name}")
        for (pid,) in self.conn.execute("SELECT DISTINCT position_id FROM anki_notes"):
            out.setdefault(pid, []).append("anki card")
        return {pid: sorted(set(why)) for pid, why in out.items()}

    # -- collections (docs/collections.md; schema step 9) ----------------------------------
    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")

    def collections(self) -> list:
        """Every collection, by name without case: ``name``, ``created_at``,
        ``positions`` (how many)."""
        cur = self.conn.execute(
            "SELECT c.name, c.created_at, COUNT(p.position_id) AS positions FROM collections c "
            "LEFT JOIN collection_positions p ON p.collection_id = c.id GROUP BY c.id")
        cols = [c[0] for c in cur.description]
        # sorted here, as SQLite's NOCASE orders them, on both engines (PostgreSQL would sort the stored form
        # of a name holding NUL: docs/postgres.md "Text")
        return sorted((dict(zip(cols, r)) for r in cur.fetchall()), key=_nocase_key)

    def collection(self, name: str) -> Optional[dict]:
        """The collection ``name`` (without case): ``id``, ``name`` (as it
        was created), ``created_at``; None when there is none."""
        row = self.conn.execute("SELECT id, name, created_at FROM collections WHERE lower(name) = lower(?)",
                                (str(name).strip(),)).fetchone()
        return {"id": row[0], "name": row[1], "created_at": row[2]} if row else None

    def collection_positions(self, name: str) -> Optional[list]:
        """The positions filed in ``name``, in the order they were filed:
        ``position_id``, ``decision_id`` (or None), ``added_at``; None when
        there is no such collection."""
        c = self.collection(name)
        if c is None:
            return None
        cur = self.conn.execute("SELECT position_id, decision_id, added_at FROM collection_positions "
                                "WHERE collection_id = ? ORDER BY added_at, rowid", (c["id"],))
        cols = [x[0] for x in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def add_to_collection(self, name: str, items) -> dict:
        """File ``items`` ((position ID, decision id or None), ...) into the
        collection ``name``, made when it does not exist; a position already
        in it stays as it was (its first decision and time).  One
        transaction.  Returns ``name`` (as stored), ``created`` (bool),
        ``added``, ``already`` (positions given that were in it), ``at``."""
        self._writable()
        name = str(name).strip()
        at = _now()
        with write_transaction(self.conn):
            row = self.conn.execute("SELECT id, name FROM collections WHERE lower(name) = lower(?)", (name,)).fetchone()
            created = row is None
            if created:
                cid = self.conn.execute("INSERT INTO collections(name, created_at) VALUES (?, ?)",
                                        (name, at)).lastrowid
            else:
                cid, name = row
            seen, rows = set(), []
            for pid, did in items:
                if pid in seen:
                    continue
                seen.add(pid)
                rows.append((cid, pid, None if did is None else int(did), at))
            before = self.conn.total_changes
            self.conn.executemany("INSERT OR IGNORE INTO collection_positions(collection_id, position_id, "
                                  "decision_id, added_at) VALUES (?, ?, ?, ?)", rows)
            added = self.conn.total_changes - before
        return {"name": name, "created": created, "added": added, "already": len(rows) - added, "at": at}

    def remove_from_collection(self, name: str, position_id: Optional[str] = None) -> Optional[int]:
        """Forget a position of the collection ``name`` (``position_id``),
        or the whole collection (None): how many positions were forgotten;
        None when there is no such collection."""
        self._writable()
        with write_transaction(self.conn):
            row = self.conn.execute("SELECT id FROM collections WHERE lower(name) = lower(?)",
                                    (str(name).strip(),)).fetchone()
            if row is None:
                return None
            if position_id is not None:
                return self.conn.execute("DELETE FROM collection_positions WHERE collection_id = ? "
                                         "AND position_id = ?", (row[0], position_id)).rowcount
            n = self.conn.execute("DELETE FROM collection_positions WHERE collection_id = ?", (row[0],)).rowcount
            self.conn.execute("DELETE FROM collections WHERE id = ?", (row[0],))
            return n

    def decisions_at(self, position_ids) -> dict:
        """{position ID: [decision, ...]} of the stored decisions at each of
        ``position_ids`` (every analysis, in store order), each a dict:
        ``id``, ``match_id``, ``engine``, ``depth`` (the analysis' label),
        ``game`` and ``move`` (from 1), ``player`` and ``opponent`` (names as
        the match file writes them), ``side`` (0/1), ``kind``, ``dice``
        ([d1, d2] or None), ``cube_value``, ``cube_owner`` (-1 centred),
        ``score`` ([decider, opponent]), ``length``, ``crawford``,
        ``jacoby``, ``played``, ``best``, ``error`` (EMG or None), ``gnubg_row``
        (the row of gnubg's game record listing it, None unknown: :meth:`gnubg_rows`)."""
        out: dict = {}
        ids = list(dict.fromkeys(p for p in position_ids if p))
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            cur = self.conn.execute(
                "SELECT d.position_id, d.id, m.id, a.engine, a.depth_label, d.game, d.seq, m.player0, m.player1, "
                "d.player, d.kind, d.dice1, d.dice2, d.cube_value, d.cube_owner, d.score_self, d.score_opp, "
                "m.length, d.crawford, m.jacoby, d.played_move, d.best_move, d.error "
                "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id "
                f"WHERE d.position_id IN ({','.join('?' * len(part))}) ORDER BY d.id", part)
            for (pid, did, mid, engine, depth, game, seq, p0, p1, side, kind, d1, d2, cube, owner, me, opp, length,
                 crawford, jacoby, played, best, error) in cur:
                names = (p0, p1)
                out.setdefault(pid, []).append({
                    "id": did, "match_id": mid, "engine": engine, "depth": depth, "game": game + 1,
                    "move": seq + 1, "player": names[side], "opponent": names[1 - side], "side": side,
                    "kind": kind, "dice": [d1, d2] if d1 else None, "cube_value": cube, "cube_owner": owner,
                    "score": [me, opp], "length": length, "crawford": bool(crawford), "jacoby": bool(jacoby),
                    "played": played, "best": best, "error": error})
        places = self.gnubg_rows([d["id"] for decs in out.values() for d in decs])
        for decs in out.values():
            for d in decs:
                d["gnubg_row"] = places.get(d["id"])
        return out

    def gnubg_rows(self, decision_ids) -> dict:
        """{decision id: its row in gnubg's game record, or None} (the rule:
        game_record.gnubg_rows; None for an XG analysis, whose records are
        not gnubg's, and after a record the store does not keep).  Each
        game's records up to the last one asked for (a row depends only on
        the records before it), a hundred games a query: one query a game
        took 2 s of the report over 10,000 matches (15,000 games)."""
        import itertools

        from ..game_record import GNUBG_SOURCES, gnubg_rows

        ids = list(dict.fromkeys(int(i) for i in decision_ids))
        wanted = {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            cur = self.conn.execute(
                "SELECT d.id, d.analysis_id, d.game, d.seq, a.source FROM decisions d "
                f"JOIN analyses a ON a.id = d.analysis_id WHERE d.id IN ({','.join('?' * len(part))})", part)
            for did, aid, game, seq, source in cur:
                wanted[did] = (aid, game, seq, source in GNUBG_SOURCES)
        asked = {}  # (analysis, game): its decisions asked for
        for did, (aid, game, seq, gnubg) in wanted.items():
            if gnubg:
                asked.setdefault((aid, game), []).append((did, seq))
        out = dict.fromkeys(wanted)
        keys = list(asked)
        for start in range(0, len(keys), 100):
            part = keys[start:start + 100]
            last = [max(seq for _, seq in asked[key]) for key in part]
            where = " OR ".join(["(analysis_id = ? AND game = ? AND seq <= ?)"] * len(part))
            args = [x for key, top in zip(part, last) for x in (*key, top)]
            records = self.conn.execute(
                f"SELECT analysis_id, game, seq, player, 0 FROM rolls WHERE {where} UNION "
                f"SELECT analysis_id, game, seq, player, beaver_take FROM decisions WHERE {where} "
                "ORDER BY 1, 2, 3, 4, 5", args + args)
            for key, found in itertools.groupby(records, key=lambda r: (r[0], r[1])):
                rows = gnubg_rows(r[2:] for r in found)
                for did, seq in asked[key]:
                    out[did] = rows.get(seq)
        return out

    def count_matches(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]

    def match_players(self, match_id: int):
        """(player0, player1) of a stored match as stored, or None."""
        row = self.conn.execute("SELECT player0, player1 FROM matches WHERE id = ?", (match_id,)).fetchone()
        return tuple(row) if row else None
