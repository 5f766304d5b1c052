"""The row-for-row copy of one store into another (``gnubg-blunder copy``,
docs/copy.md; the command, its progress and its report: copying.py).

Every match, analysis and piece of study data of SRC that DST lacks,
written with SRC's ids where DST has them free; each write transaction of
DST holds whole matches (a batch), so a crash leaves every match whole or
absent.  Both engines (``?`` parameters, PostgreSQL's COPY for the rows).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from typing import Callable, Optional

from ..codec.paths import stored_path
from ..labels import LABELS_VERSION
from .connection import write_transaction
from .pg_schema import ID_TABLES
from .schema import StoreError
from .verifications import COLUMNS

# A write transaction of DST holds whole matches: up to this many, or about this many rows.
BATCH_MATCHES = 200
BATCH_ROWS = 100_000
IN_CHUNK = 500  # ids in one ``IN (...)``

# The tables copied row for row with every column, in the order they are written.
MATCH_TABLES = ("matches", "games", "analyses", "decisions", "decision_candidates", "rolls")
# meta keys that are the engine's, never copied: the rest are the user's settings.
ENGINE_KEYS = frozenset({"schema_version", "labels_version", "upgrade_from"})


# -- small SQL helpers (the SQL both engines share, ``?`` parameters) -----------------

def _chunks(seq, size: int = IN_CHUNK):
    seq = list(seq)
    for start in range(0, len(seq), size):
        yield seq[start:start + size]


def _rows_in(conn, sql: str, ids, extra: tuple = ()) -> list:
    """``sql`` (with ``{in}`` where the ``IN (...)`` list goes) over ``ids``, in chunks."""
    out = []
    for part in _chunks(ids):
        out += conn.execute(sql.format(**{"in": ",".join("?" * len(part))}), tuple(part) + extra).fetchall()
    return out


def _columns(conn, table: str) -> list:
    cur = conn.execute(f"SELECT * FROM {table} LIMIT 0")
    return [d[0] for d in cur.description]


def _max_id(conn, table: str) -> int:
    return conn.execute(f"SELECT MAX(id) FROM {table}").fetchone()[0] or 0


def _write(store, table: str, columns: list, rows: list) -> None:
    """Rows into ``table``: PostgreSQL's COPY, SQLite's executemany."""
    if not rows:
        return
    if store.engine == "postgresql":
        store.conn.copy_rows(table, columns, rows)
    else:
        store.conn.executemany(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})",
                               rows)


def advance_sequences(store) -> None:
    """After rows were given explicit ids, PostgreSQL's identity sequences
    are moved past the largest id (the next import would collide otherwise).
    Nothing to do on SQLite (a new row takes the largest id + 1)."""
    if store.engine != "postgresql":
        return

    for table in ID_TABLES:
        store.conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                           f"GREATEST((SELECT MAX(id) FROM {table}), 1))")


@contextlib.contextmanager
def _transaction(store):
    """One write transaction of DST (the store's ``write_transaction``: its
    writer lock, rolled back on any error), the sequences advanced before
    COMMIT."""
    with write_transaction(store.conn) as conn:
        yield conn
        advance_sequences(store)


@contextlib.contextmanager
def read_snapshot(store):
    """``store`` read in one snapshot (one read transaction): what is copied is what is checked."""
    store.conn.execute("BEGIN")
    try:
        yield
    finally:
        if store.conn.in_transaction:
            store.conn.execute("COMMIT")


def server_instance(store) -> Optional[tuple]:
    """A PostgreSQL database's fingerprint (its server's start time, port
    and the database's name): two URLs of one database give the same."""
    if store.engine != "postgresql":
        return None
    return tuple(store.conn.execute(
        "SELECT pg_postmaster_start_time()::text, inet_server_port(), current_database()").fetchone())


# -- the copy ---------------------------------------------------------------------

class Copier:
    """The copy of ``src`` into ``dst`` (two open stores), its counts and the
    maps from SRC's ids to DST's."""

    def __init__(self, src, dst, src_name: str, dst_name: str, progress: Callable):
        """``progress(total, what, unit, units)``: a context manager with
        ``advance(n)`` and ``detail(text)`` (the command's progress line)."""
        self.progress, self.src, self.dst = progress, src, dst
        self.src_name, self.dst_name = src_name, dst_name
        self.counts = dict.fromkeys(
            ("matches", "matches_there", "analyses", "analyses_added", "analyses_there", "games", "decisions",
             "candidates", "rolls", "new_match_ids", "aliases", "aliases_there", "actions", "actions_there",
             "collections", "collections_there", "filed", "filed_there", "notes", "notes_there", "settings",
             "settings_there", "verified", "verified_there"), 0)
        self.notes: list = []
        # {SRC analysis id: (DST analysis id, first id of its new block of decision ids or None when
        # its decision ids were kept, whether DST held it already)}
        self.analysis_map: dict = {}
        self._decision_map: dict = {}
        self.cache_built = 0
        self.cache_seconds = 0.0

    # -- what SRC holds ---------------------------------------------------------------
    def plan(self) -> None:
        s = self.src.conn
        self.src_matches = s.execute("SELECT id, identity FROM matches ORDER BY id").fetchall()
        self.src_analyses: dict = {}  # match id -> [(analysis id, engine, depth_label)]
        for aid, mid, engine, label in s.execute("SELECT id, match_id, engine, depth_label FROM analyses ORDER BY id"):
            self.src_analyses.setdefault(mid, []).append((aid, engine, label))
        self.src_decisions = {a: (n, lo, hi) for a, n, lo, hi in s.execute(
            "SELECT analysis_id, COUNT(*), MIN(id), MAX(id) FROM decisions GROUP BY analysis_id")}
        self.src_rolls = dict(s.execute("SELECT analysis_id, COUNT(*) FROM rolls GROUP BY analysis_id").fetchall())
        self.src_games = dict(s.execute("SELECT match_id, COUNT(*) FROM games GROUP BY match_id").fetchall())
        self.src_max = {t: _max_id(s, t) for t in ("matches", "analyses", "decisions")}
        for table in MATCH_TABLES:
            a, b = _columns(s, table), _columns(self.dst.conn, table)
            if set(a) != set(b):
                raise StoreError(f"the table {table} differs between the two databases (columns "
                                 f"{', '.join(sorted(set(a) ^ set(b)))})")
        self.columns = {t: _columns(s, t) for t in MATCH_TABLES}

    def _match_rows(self, mid: int) -> int:
        rows = self.src_games.get(mid, 0) + 1
        for aid, _e, _l in self.src_analyses.get(mid, ()):
            rows += 1 + 2 * self.src_decisions.get(aid, (0,))[0] + self.src_rolls.get(aid, 0)
        return rows

    def batches(self):
        batch, rows = [], 0
        for m in self.src_matches:
            batch.append(m)
            rows += self._match_rows(m[0])
            if len(batch) >= BATCH_MATCHES or rows >= BATCH_ROWS:
                yield batch
                batch, rows = [], 0
        if batch:
            yield batch

    # -- the matches --------------------------------------------------------------------
    def copy_matches(self) -> None:
        self.dst_had_decisions = self.dst.conn.execute("SELECT 1 FROM decisions LIMIT 1").fetchone() is not None
        self.labels_noted = self.dst_had_decisions
        with self.progress(len(self.src_matches), "copy", "match", "matches") as progress:
            for batch in self.batches():
                self._copy_batch(batch, LABELS_VERSION)
                progress.advance(len(batch))
                progress.detail(f"{self.counts['matches']} copied, {self.counts['decisions']} decisions")

    def _copy_batch(self, batch: list, labels_version) -> None:
        """One transaction of DST: the batch's matches whole (or nothing); the
        counts counted once it is committed."""
        got: Counter = Counter()
        with _transaction(self.dst):
            self._write_batch(batch, got, labels_version)
        for key, n in got.items():
            self.counts[key] += n

    def _write_batch(self, batch: list, got, labels_version) -> None:
        s, d = self.src.conn, self.dst.conn
        # what DST holds now (read under its writer lock: another writer may have stored some meanwhile)
        found = dict(_rows_in(d, "SELECT identity, id FROM matches WHERE identity IN ({in})",
                              [identity for _mid, identity in batch]))
        there = {}
        for mid, aid, engine, label in _rows_in(
                d, "SELECT match_id, id, engine, depth_label FROM analyses WHERE match_id IN ({in})",
                list(found.values())):
            there[(mid, engine, label)] = aid
        new_matches, copy_analyses = [], []  # SRC match ids; (SRC analysis id, SRC match id)
        match_map: dict = {}
        for mid, identity in batch:
            if identity not in found:
                new_matches.append(mid)
                copy_analyses += [(aid, mid) for aid, _e, _l in self.src_analyses.get(mid, ())]
                continue
            match_map[mid] = found[identity]
            added = 0
            for aid, engine, label in self.src_analyses.get(mid, ()):
                key = (found[identity], engine, label)
                if key in there:
                    self.analysis_map[aid] = (there[key], None, True)
                    got["analyses_there"] += 1
                else:
                    copy_analyses.append((aid, mid))
                    added += 1
            got["analyses_added"] += added
            if not added:
                got["matches_there"] += 1
        if not new_matches and not copy_analyses:
            return

        # ids: SRC's where DST has them free, else new ones beyond both databases' largest
        def allocator(table):
            nxt = max(_max_id(d, table), self.src_max[table]) + 1

            def take(n=1):
                nonlocal nxt
                first, nxt = nxt, nxt + n
                return first
            return take

        taken = {r[0] for r in _rows_in(d, "SELECT id FROM matches WHERE id IN ({in})", new_matches)}
        new_match_id = allocator("matches")
        for mid in new_matches:
            match_map[mid] = new_match_id() if mid in taken else mid
        got["new_match_ids"] += len(taken)
        src_aids = [a for a, _m in copy_analyses]
        taken = {r[0] for r in _rows_in(d, "SELECT id FROM analyses WHERE id IN ({in})", src_aids)}
        new_analysis_id = allocator("analyses")
        dst_max_decision = _max_id(d, "decisions")
        new_decision_id = allocator("decisions")
        aid_map, block = {}, {}
        for aid, _mid in copy_analyses:
            aid_map[aid] = new_analysis_id() if aid in taken else aid
            n, lo, hi = self.src_decisions.get(aid, (0, None, None))
            if n and lo <= dst_max_decision and d.execute(
                    "SELECT 1 FROM decisions WHERE id BETWEEN ? AND ? LIMIT 1", (lo, hi)).fetchone():
                block[aid] = new_decision_id(n)  # a new run of ids, in SRC's order
            self.analysis_map[aid] = (aid_map[aid], block.get(aid), False)

        # the rows, SRC's ids mapped to DST's
        cols = self.columns
        if new_matches:
            rows = _rows_in(s, "SELECT * FROM matches WHERE id IN ({in})", new_matches)
            k = cols["matches"].index("id")
            rows = [_with(r, {k: match_map[r[k]]}) for r in rows]
            _write(self.dst, "matches", cols["matches"], rows)
            rows = _rows_in(s, "SELECT * FROM games WHERE match_id IN ({in})", new_matches)
            k = cols["games"].index("match_id")
            _write(self.dst, "games", cols["games"], [_with(r, {k: match_map[r[k]]}) for r in rows])
            got["games"] += len(rows)
            got["matches"] += len(new_matches)
        rows = _rows_in(s, "SELECT * FROM analyses WHERE id IN ({in})", src_aids)
        ki, km = cols["analyses"].index("id"), cols["analyses"].index("match_id")
        kp = cols["analyses"].index("source_path")
        # a path that is not UTF-8, kept as its bytes by SQLite files stored before: in the text form both hold
        _write(self.dst, "analyses", cols["analyses"],
               [_with(r, {ki: aid_map[r[ki]], km: match_map[r[km]], kp: _text_path(r[kp])}) for r in rows])
        got["analyses"] += len(rows)

        rows = _rows_in(s, "SELECT * FROM decisions WHERE analysis_id IN ({in}) ORDER BY analysis_id, id",
                        src_aids)
        ki, ka = cols["decisions"].index("id"), cols["decisions"].index("analysis_id")
        decision_map, out, at, current = {}, [], 0, None
        for r in rows:
            aid = r[ka]
            if aid != current:
                current, at = aid, block.get(aid)
            if at is not None:
                decision_map[r[ki]] = at
                out.append(_with(r, {ki: at, ka: aid_map[aid]}))
                at += 1
            else:
                out.append(r if aid_map[aid] == aid else _with(r, {ka: aid_map[aid]}))
        _write(self.dst, "decisions", cols["decisions"], out)
        got["decisions"] += len(out)
        decisions_copied = bool(out)
        del out
        rows = _rows_in(s, "SELECT c.* FROM decision_candidates c JOIN decisions d ON d.id = c.decision_id "
                           "WHERE d.analysis_id IN ({in})", src_aids)
        kd = cols["decision_candidates"].index("decision_id")
        if decision_map:
            rows = [_with(r, {kd: decision_map[r[kd]]}) if r[kd] in decision_map else r for r in rows]
        _write(self.dst, "decision_candidates", cols["decision_candidates"], rows)
        got["candidates"] += len(rows)
        rows = _rows_in(s, "SELECT * FROM rolls WHERE analysis_id IN ({in})", src_aids)
        ka = cols["rolls"].index("analysis_id")
        _write(self.dst, "rolls", cols["rolls"],
               [r if aid_map[r[ka]] == r[ka] else _with(r, {ka: aid_map[r[ka]]}) for r in rows])
        got["rolls"] += len(rows)
        if decisions_copied and not self.labels_noted:
            # DST held no decision before: it takes the labels' version of the rows copied (SRC's, current)
            self.dst.set_meta("labels_version", labels_version)
            self.labels_noted = True

    # -- references to decisions (study data) -----------------------------------------------
    def decision_id(self, src_id) -> Optional[int]:
        """DST's id of SRC's decision ``src_id``: the same decision of the
        same analysis (None when SRC holds no such decision, or DST none
        that is surely it)."""
        if src_id is None:
            return None
        if src_id in self._decision_map:
            return self._decision_map[src_id]
        self._decision_map[src_id] = out = self._find_decision(int(src_id))
        return out

    def _find_decision(self, src_id: int) -> Optional[int]:
        s, d = self.src.conn, self.dst.conn
        row = s.execute("SELECT analysis_id, game, seq, player, kind FROM decisions WHERE id = ?", (src_id,)).fetchone()
        if row is None or row[0] not in self.analysis_map:
            return None
        aid, game, seq, player, kind = row
        dst_aid, block, already = self.analysis_map[aid]
        if not already:
            if block is None:
                return src_id
            return block + s.execute("SELECT COUNT(*) FROM decisions WHERE analysis_id = ? AND id < ?",
                                     (aid, src_id)).fetchone()[0]
        # DST held this analysis before: its decision at the same place (the k-th of those alike)
        same = "analysis_id = ? AND game = ? AND seq = ? AND player = ? AND kind = ?"
        rank = s.execute(f"SELECT COUNT(*) FROM decisions WHERE {same} AND id < ?",
                         (aid, game, seq, player, kind, src_id)).fetchone()[0]
        found = d.execute(f"SELECT id FROM decisions WHERE {same} ORDER BY id",
                          (dst_aid, game, seq, player, kind)).fetchall()
        return found[rank][0] if rank < len(found) else None

    # -- study data ------------------------------------------------------------------------
    def copy_study(self, copy_settings: Callable) -> None:
        """The study data, in one transaction of DST with the user's
        settings (``copy_settings(self)``: the command knows which keys go
        together and how a note names them)."""
        s, d = self.src.conn, self.dst.conn
        c = self.counts
        with _transaction(self.dst):
            # aliases: one already in DST (without case) stays as DST has it; chains end at one name
            for alias, canonical in s.execute("SELECT alias, canonical FROM aliases ORDER BY alias").fetchall():
                if d.execute("SELECT 1 FROM aliases WHERE lower(alias) = lower(?)", (alias,)).fetchone():
                    c["aliases_there"] += 1
                    continue
                row = d.execute("SELECT canonical FROM aliases WHERE lower(alias) = lower(?)", (canonical,)).fetchone()
                canonical = row[0] if row else canonical
                if canonical.strip().lower() == alias.strip().lower():
                    c["aliases_there"] += 1
                    continue
                d.execute("INSERT INTO aliases(alias, canonical) VALUES (?, ?)", (alias, canonical))
                d.execute("UPDATE aliases SET canonical = ? WHERE lower(canonical) = lower(?)", (canonical, alias))
                c["aliases"] += 1

            # study actions, oldest first: one equal on position, action, grade and time is there already
            top = max(_max_id(d, "study_actions"), _max_id(s, "study_actions")) + 1
            for sid, pid, action, grade, did, at in s.execute(
                    "SELECT id, position_id, action, grade, decision_id, at FROM study_actions "
                    "ORDER BY at, id").fetchall():
                if d.execute("SELECT 1 FROM study_actions WHERE position_id = ? AND action = ? AND grade IS ? "
                             "AND at = ?", (pid, action, grade, at)).fetchone():
                    c["actions_there"] += 1
                    continue
                if d.execute("SELECT 1 FROM study_actions WHERE id = ?", (sid,)).fetchone():
                    sid, top = top, top + 1
                d.execute("INSERT INTO study_actions(id, position_id, action, grade, decision_id, at) "
                          "VALUES (?, ?, ?, ?, ?, ?)", (sid, pid, action, grade, self.decision_id(did), at))
                c["actions"] += 1

            # collections by name (without case); a position already filed stays as it is
            top = max(_max_id(d, "collections"), _max_id(s, "collections")) + 1
            collection_map = {}
            for cid, name, created in s.execute("SELECT id, name, created_at FROM collections ORDER BY id").fetchall():
                row = d.execute("SELECT id FROM collections WHERE lower(name) = lower(?)", (name,)).fetchone()
                if row:
                    collection_map[cid] = row[0]
                    c["collections_there"] += 1
                    continue
                new = cid
                if d.execute("SELECT 1 FROM collections WHERE id = ?", (cid,)).fetchone():
                    new, top = top, top + 1
                d.execute("INSERT INTO collections(id, name, created_at) VALUES (?, ?, ?)", (new, name, created))
                collection_map[cid] = new
                c["collections"] += 1
            for cid, pid, did, added in s.execute(
                    "SELECT collection_id, position_id, decision_id, added_at FROM collection_positions "
                    "ORDER BY added_at, rowid").fetchall():  # SRC's order of filing
                if cid not in collection_map:
                    continue
                n = d.execute("INSERT OR IGNORE INTO collection_positions(collection_id, position_id, decision_id, "
                              "added_at) VALUES (?, ?, ?, ?)",
                              (collection_map[cid], pid, self.decision_id(did), added)).rowcount
                c["filed" if n > 0 else "filed_there"] += 1

            # Anki notes, by GUID (a note key exported under another GUID in DST stays DST's)
            for guid, key, pid, did, deck, at, content, changed in s.execute(
                    "SELECT guid, note_key, position_id, decision_id, deck, exported_at, content, changed_at "
                    "FROM anki_notes ORDER BY exported_at, guid").fetchall():
                n = d.execute("INSERT OR IGNORE INTO anki_notes(guid, note_key, position_id, decision_id, deck, "
                              "exported_at, content, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              (guid, key, pid, self.decision_id(did), deck, at, content, changed)).rowcount
                c["notes" if n > 0 else "notes_there"] += 1

            self._copy_verifications()
            copy_settings(self)

    def _copy_verifications(self) -> None:
        """The depth check's evaluations (SPEC §16, docs/verify.md), each to
        DST's same decision; one DST has at that depth stays DST's."""
        s, d = self.src.conn, self.dst.conn
        for row in s.execute(f"SELECT {', '.join(COLUMNS)} FROM verifications ORDER BY decision_id, plies").fetchall():
            did = self.decision_id(row[0])
            if did is None:
                continue
            if d.execute("SELECT 1 FROM verifications WHERE decision_id = ? AND plies = ?", (did, row[1])).fetchone():
                self.counts["verified_there"] += 1
                continue
            d.execute(f"INSERT INTO verifications({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                      (did,) + tuple(row[1:]))
            self.counts["verified"] += 1

    def settings(self) -> tuple:
        """({key: value} of SRC's ``meta``, of DST's): the settings both hold."""
        return (dict(self.src.conn.execute("SELECT key, value FROM meta").fetchall()),
                dict(self.dst.conn.execute("SELECT key, value FROM meta").fetchall()))

    # -- the array cache ------------------------------------------------------------------
    def build_cache(self) -> None:
        """DST's array cache for every analysis without one (the store's own
        ``_ensure_arrays``), a bundle a step of the progress."""
        dst = self.dst
        missing = dst._analyses_without_cache()
        start = time.monotonic()
        if missing:
            with self.progress(missing, "array cache", "analysis", "analyses") as progress:
                progress.detail(f"building the array cache of {self.dst_name}")
                dst._ensure_arrays([a for (a,) in dst.conn.execute("SELECT id FROM analyses").fetchall()],
                                   progress=progress.advance)
        self.cache_built = missing
        self.cache_seconds = time.monotonic() - start

    # -- the check ------------------------------------------------------------------------
    def check(self) -> list:
        """What DST lacks of SRC (empty: nothing): every match of SRC by its
        identity, its games, each analysis (engine, depth) with as many
        decisions and rolls; the aliases, collections and their positions,
        study actions, Anki notes and settings."""
        problems = []

        def holdings(conn):
            dec = dict((a, n) for a, n in conn.execute(
                "SELECT analysis_id, COUNT(*) FROM decisions GROUP BY analysis_id").fetchall())
            rol = dict(conn.execute("SELECT analysis_id, COUNT(*) FROM rolls GROUP BY analysis_id").fetchall())
            games = dict(conn.execute("SELECT match_id, COUNT(*) FROM games GROUP BY match_id").fetchall())
            out = {}
            for mid, identity in conn.execute("SELECT id, identity FROM matches").fetchall():
                out[identity] = {"id": mid, "games": games.get(mid, 0), "analyses": {}}
            for aid, mid, engine, label, identity in conn.execute(
                    "SELECT a.id, a.match_id, a.engine, a.depth_label, m.identity FROM analyses a "
                    "JOIN matches m ON m.id = a.match_id").fetchall():
                out[identity]["analyses"][(engine, label)] = (dec.get(aid, 0), rol.get(aid, 0))
            return out

        src, dst = holdings(self.src.conn), holdings(self.dst.conn)
        self.checked_matches, self.checked_analyses = len(src), sum(len(m["analyses"]) for m in src.values())
        for identity, m in sorted(src.items(), key=lambda kv: kv[1]["id"]):
            name = f"match {m['id']} of {self.src_name}"
            other = dst.get(identity)
            if other is None:
                problems.append(f"{name} is not in {self.dst_name}")
                continue
            if other["games"] != m["games"]:
                problems.append(f"{name}: {m['games']} games, {other['games']} in {self.dst_name} "
                                f"(match {other['id']})")
            for (engine, label), (n_dec, n_rol) in sorted(m["analyses"].items(), key=lambda kv: str(kv[0])):
                what = f"{name}, analysis {engine} {label or 'depth unknown'}"
                got = other["analyses"].get((engine, label))
                if got is None:
                    problems.append(f"{what}: not in {self.dst_name} (match {other['id']})")
                elif got != (n_dec, n_rol):
                    problems.append(f"{what}: {n_dec} decisions and {n_rol} rolls, {got[0]} and {got[1]} in "
                                    f"{self.dst_name} (match {other['id']})")

        s, d = self.src.conn, self.dst.conn

        def missing(what, sql, key=lambda r: r):
            have = {key(r) for r in d.execute(sql).fetchall()}
            lack = [r for r in s.execute(sql).fetchall() if key(r) not in have]
            if lack:
                problems.append(f"{len(lack)} {what} of {self.src_name} not in {self.dst_name}")

        fold = _ascii_lower
        missing("aliases", "SELECT alias FROM aliases", key=lambda r: fold(r[0]))
        missing("collections", "SELECT name FROM collections", key=lambda r: fold(r[0]))
        missing("filed positions", "SELECT c.name, p.position_id FROM collection_positions p "
                "JOIN collections c ON c.id = p.collection_id", key=lambda r: (fold(r[0]), r[1]))
        missing("study actions", "SELECT position_id, action, grade, at FROM study_actions", key=tuple)
        notes = d.execute("SELECT guid, note_key FROM anki_notes").fetchall()
        have = {g for g, _k in notes} | {k for _g, k in notes}
        lack = [g for g, k in s.execute("SELECT guid, note_key FROM anki_notes").fetchall()
                if g not in have and k not in have]
        if lack:
            problems.append(f"{len(lack)} Anki notes of {self.src_name} not in {self.dst_name}")
        missing("settings", "SELECT key FROM meta WHERE key NOT IN ('schema_version', 'labels_version', "
                "'upgrade_from')", key=lambda r: r[0])
        return problems


def _text_path(value):
    """A stored source path as both engines hold it: the bytes a SQLite file
    written before kept for a path that is not UTF-8 become the text form
    (codec.paths.stored_path); text is copied as it is."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return stored_path(bytes(value))
    return value


def _ascii_lower(text) -> str:
    """Lower case as SQLite's ``lower`` and ``NOCASE`` fold (ASCII only)."""
    return (text or "").translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))


def _with(row, changes: dict) -> tuple:
    row = list(row)
    for k, v in changes.items():
        row[k] = v
    return tuple(row)
