"""Damage: is the database file whole, and does what is derived from its
rows agree with them?  ``gnubg-blunder check [--repair]`` (docs/reliability.md).

Three layers, each one finding a line:

- the file: SQLite's ``PRAGMA integrity_check`` (every page, every index
  against its table);
- the array cache (``analysis_arrays``, sqlite.py): each analysis' cached
  records decoded and compared with the records its rows give now — the
  number of decisions and rolls, Σ error, and which columns differ;
- the labels (phase, game plan, theme): recomputed from each decision's
  position and analysis (labels.py) and compared with the stored ones.

What can be rebuilt from the rows is repaired by ``--repair``: the array
cache, the labels, and — when a page of the file is damaged but every table
of rows still reads whole — the file itself (rows copied into a new file,
indexes and cache remade, written back over the damaged file with SQLite's
backup API; the damaged file is kept beside it).  Rows lost to a damaged
page cannot be rebuilt: ``check`` names the table and says so.

What writes refuse (the check before a store first writes into a file, and
SQLite's damage raised while writing): store/damage.py.
"""

from __future__ import annotations

import datetime as _dt
import glob
import os
import re
import secrets
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..codec.candidates import decode as decode_candidates
from .schema import SCHEMA_VERSION, StoreError, current_version
from . import is_database_url, open_store, shown_database
from .array_cache import ARRAYS_FORMAT
from .damage import REBUILT_KEY, DamagedDatabase, forget_whole, integrity_check, is_damage, quick_check
from ..board.position import Board
from ..labels import LABELS_VERSION, decision_labels
from ..run_files import owned_name, remove_leftovers
from .column_cache import decode_bundle, sealed
from .sqlite import SQLiteStore

# Tables that are caches of the others: rebuilt, never needed to rebuild.
DERIVED_TABLES = ("analysis_arrays",)


# -- the report --------------------------------------------------------------------


@dataclass
class Finding:
    kind: str  # "file", "array cache", "labels"
    message: str
    repairable: bool
    analysis_id: Optional[int] = None
    damage: bool = True  # False: a note (e.g. labels of an older version, redone when read)

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message, "repairable": self.repairable,
                "analysis_id": self.analysis_id, "damage": self.damage}


@dataclass
class CheckReport:
    path: str
    findings: list = field(default_factory=list)
    repaired: list = field(default_factory=list)  # lines: what --repair rebuilt
    unrepaired: list = field(default_factory=list)  # lines: what it could not
    removed: list = field(default_factory=list)  # lines: what a killed repair left, removed by --repair
    checked: dict = field(default_factory=dict)  # what was looked at (counts)
    after: Optional["CheckReport"] = None  # the check of the repaired file

    @property
    def damaged(self) -> bool:
        return any(f.damage for f in self.findings)

    @property
    def ok(self) -> bool:
        """Whole now: no damage, or every damage repaired and the file checked again whole."""
        if not self.damaged:
            return True
        return self.after is not None and not self.after.damaged and not self.unrepaired

    def to_json(self) -> dict:
        return {
            "database": self.path, "ok": self.ok, "damaged": self.damaged, "checked": self.checked,
            "findings": [f.to_json() for f in self.findings], "repaired": self.repaired,
            "unrepaired": self.unrepaired, "after_repair": self.after.to_json() if self.after else None,
            "removed": self.removed,
        }

    def lines(self) -> list:
        out = list(self.removed)
        out += [f"{f.kind}: {f.message}" + ("" if f.damage else " (not damage)") for f in self.findings]
        out += [f"repaired: {line}" for line in self.repaired]
        out += [f"not repaired: {line}" for line in self.unrepaired]
        if self.after is not None:
            out += [f"after repair: {line}" for line in self.after.lines()[:-1]]
        if self.ok and not self.damaged:
            c = self.checked
            parts = ["every table read (PostgreSQL keeps its pages)" if c.get("engine") == "postgresql"
                     else "SQLite's integrity check ok"]
            if "array_caches" in c:
                parts.append(f"the array caches of {c['array_caches']} of {c['analyses']} analyses agree with "
                             "their rows")
            if c.get("labels"):
                parts.append(f"the labels of {c['labels']} of {c['decisions']} decisions agree with their positions")
            if c.get("study_actions"):
                n = c["study_actions"]
                parts.append(f"{n} study action{'s' if n != 1 else ''} read")
            if c.get("collection_positions"):
                n, k = c["collection_positions"], c.get("collections", 0)
                parts.append(f"{n} position{'s' if n != 1 else ''} in {k} collection{'s' if k != 1 else ''} read")
            if c.get("anki_notes"):
                n = c["anki_notes"]
                parts.append(f"{n} Anki note{'s' if n != 1 else ''} read")
            out.append(f"{self.path}: whole: " + "; ".join(parts))
        elif self.ok:
            out.append(f"{self.path}: repaired; checked again: whole")
        else:
            n = sum(1 for f in self.findings if f.damage)
            hint = ""
            if not self.repaired and not self.unrepaired:
                hint = ("; `gnubg-blunder check --repair` rebuilds it" if all(f.repairable for f in self.findings
                                                                             if f.damage)
                        else "; what the rows held cannot be rebuilt: restore a backup, or import the match"
                             " files again into a new database")
            out.append(f"{self.path}: damaged ({n} finding{'s' if n != 1 else ''}){hint}")
        return out


# -- checking ------------------------------------------------------------------------


def check_database(path, repair: bool = False, *, rules) -> CheckReport:
    """Check the database at ``path`` (which must exist); with ``repair``,
    rebuild what can be rebuilt from the rows and check again.  ``rules``:
    the store's derived rules (store/derived.py), by which the array cache
    and the difficulties are compared and rebuilt."""
    path = str(path)

    if is_database_url(path):
        # PostgreSQL keeps its own pages (its checksums, amcheck for the server's keeper): the rows, the
        # array cache, the labels and the study rows are checked as on SQLite (docs/postgres.md)
        report = CheckReport(shown_database(path))
        report.checked["engine"] = "postgresql"
        with open_store(path, rules=rules) as store:
            _check_rows(store, report, repair)
        return report
    report = CheckReport(path)
    if repair:
        _remove_killed_rebuilds(path, report)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        problems = integrity_check(conn)
        if problems:
            _locate(conn, problems, report)
        else:
            version = current_version(conn)
    finally:
        conn.close()
    if problems:
        forget_whole(path)  # found damaged: this process's next write checks it again
        if repair:
            _repair_file(path, report, rules)
        return report
    if version > SCHEMA_VERSION or (version < SCHEMA_VERSION and not repair):
        # check writes nothing unasked: an older schema is upgraded by the next command (or --repair)
        what = "a newer gnubg-blunder's" if version > SCHEMA_VERSION else "upgraded by the next command or --repair"
        report.findings.append(Finding(
            "schema", f"schema version {version} ({what}; this one's is {SCHEMA_VERSION}): the array cache and "
            "the labels were not compared", False, damage=False))
        return report

    with SQLiteStore(path, rules=rules) as store:
        _check_rows(store, report, repair)
    return report


def _tables(conn) -> list:
    return [n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rootpage")]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _locate(conn, problems: list, report: CheckReport) -> None:
    """Findings for a file SQLite finds damaged: its lines (with the table or
    index each damaged page belongs to), and which tables can no longer be
    read whole (a table of rows: its rows cannot be rebuilt)."""
    try:
        tables = _tables(conn)
    except sqlite3.DatabaseError as exc:
        report.findings += [Finding("file", p, False) for p in problems]
        report.findings.append(Finding("file", f"the list of tables cannot be read ({exc})", False))
        return
    if all(p.startswith("integrity_check stopped") for p in problems):
        # SQLite gave up at the first damaged page; quick_check may say which page
        problems = problems + [p for p in quick_check(conn) if not p.startswith("quick_check stopped")]
    lost = []
    for t in tables:
        try:
            cur = conn.execute(f"SELECT * FROM {_q(t)} NOT INDEXED")
            while cur.fetchmany(2000):
                pass
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            lost.append(t)
    owners = _page_owners(conn)
    rows_hit = []  # tables of rows a damaged page belongs to
    lines = []
    for p in problems:
        where = []
        for page in _pages_named(p):
            if page in owners:
                kind, name, table = owners[page]
                where.append(f"page {page}: {kind} {name}" + (f" of table {table}" if kind == "index" else ""))
                if kind == "table" and table not in DERIVED_TABLES and table not in rows_hit:
                    rows_hit.append(table)
        lines.append(p + (f" ({'; '.join(where)})" if where else ""))
    rows_lost = [t for t in lost if t not in DERIVED_TABLES] + [t for t in rows_hit if t not in lost]
    for line in lines:
        report.findings.append(Finding("file", line, not rows_lost))
    for t in lost:
        what = ("the array cache, rebuilt from the rows by --repair" if t in DERIVED_TABLES
                else "its rows cannot be rebuilt")
        report.findings.append(Finding("file", f"table {t} cannot be read whole: {what}", t in DERIVED_TABLES))
    for t in rows_hit:
        if t not in lost:
            report.findings.append(Finding("file", f"a damaged page belongs to table {t}: its rows cannot be "
                                           "trusted", False))
    report.checked["tables"] = len(tables)


def _pages_named(problem: str) -> list:
    return [int(n) for n in re.findall(r"\b(?:[Pp]age|tree page)\s+(\d+)", problem)]


def _page_owners(conn) -> dict:
    """{page number: (kind, name, table)} of what SQLite can still walk
    (``dbstat``; {} where SQLite is built without it)."""
    owners = {}
    try:
        objects = conn.execute("SELECT type, name, tbl_name FROM sqlite_master WHERE rootpage > 0").fetchall()
    except sqlite3.DatabaseError:
        return owners
    for kind, name, table in objects:
        try:
            for (page,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (name,)):
                owners[page] = (kind, name, table)
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return owners  # SQLite without dbstat
        except sqlite3.DatabaseError:
            continue
    return owners


def _odd_rows(rows, pid_at=(1, 2)) -> list:
    """``"ID (why)"`` for each row whose position ID gnubg cannot read or whose
    time is no ISO 8601 time (rows: (id, ..., position_id, ..., time, ...),
    ``pid_at`` the places of the position ID and the time)."""
    odd = []
    for row in rows:
        pid, at = row[pid_at[0]], row[pid_at[1]]
        why = []
        try:
            Board.from_position_id(pid)
        except (ValueError, TypeError):
            why.append(f"position ID {pid!r} unreadable")
        try:
            _dt.datetime.fromisoformat(str(at))
        except ValueError:
            why.append(f"time {at!r} is not ISO 8601")
        if why:
            odd.append(f"{row[0]} ({', '.join(why)})")
    return odd


def _has_table(conn, name: str) -> bool:
    if getattr(conn, "engine", "sqlite") == "postgresql":
        return bool(conn.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()[0])
    return bool(conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone())


def _note_odd(report: CheckReport, kind: str, odd: list, after: str) -> None:
    if odd:
        report.findings.append(Finding(
            kind, f"{len(odd)} row{'s' if len(odd) != 1 else ''} no gnubg-blunder writes: "
            + "; ".join(odd[:5]) + ("; …" if len(odd) > 5 else "") + f" ({after})",
            False, damage=False))


def _check_study_actions(conn, report: CheckReport) -> None:
    """The study actions (schema step 8; ``mark studied``): counted; a row
    whose position ID gnubg cannot read or whose time is no ISO 8601 time is
    said in one note (the row is the user's: kept; ``references`` passes
    over it)."""
    if not _has_table(conn, "study_actions"):
        return
    rows = conn.execute("SELECT id, position_id, at FROM study_actions ORDER BY id").fetchall()
    report.checked["study_actions"] = len(rows)
    _note_odd(report, "study actions", _odd_rows(rows),
              "kept; references passes over them; `mark remove POSITION_ID` forgets a position's marks")


def _check_collections(conn, report: CheckReport) -> None:
    """The collections and the Anki notes exported (schema step 9; the
    user's rows, like the study actions): counted; a filed position or a
    note whose position ID gnubg cannot read or whose time is no ISO 8601
    time, a collection whose creation time is none, a filed position of a
    collection that does not exist: one note each kind, not damage (kept)."""
    if _has_table(conn, "collections"):
        cols = conn.execute("SELECT id, name, created_at FROM collections ORDER BY id").fetchall()
        report.checked["collections"] = len(cols)
        filed = conn.execute(
            "SELECT p.collection_id || ':' || p.position_id, p.position_id, p.added_at, c.id IS NULL "
            "FROM collection_positions p LEFT JOIN collections c ON c.id = p.collection_id "
            "ORDER BY p.collection_id, p.position_id").fetchall()
        report.checked["collection_positions"] = len(filed)
        odd = [f"collection {cid} {name!r} (time {at!r} is not ISO 8601)" for cid, name, at in cols
               if _odd_rows([(cid, "4HPwATDgc/ABMA", at)])]
        odd += _odd_rows(filed)
        odd += [f"{r[0]} (no collection {r[0].split(':', 1)[0]})" for r in filed if r[3]]
        _note_odd(report, "collections", odd,
                  "kept; `collection remove NAME --position ID` forgets a filed position")
    if _has_table(conn, "anki_notes"):
        notes = conn.execute("SELECT guid, position_id, exported_at FROM anki_notes ORDER BY guid").fetchall()
        report.checked["anki_notes"] = len(notes)
        _note_odd(report, "anki notes", _odd_rows(notes), "kept; references passes over them")


def _check_rows(store, report: CheckReport, repair: bool) -> None:
    """The array cache and the labels of a whole file, against its rows."""
    conn = store.conn
    analyses = dict(conn.execute("SELECT id, match_id FROM analyses"))
    report.checked["analyses"] = len(analyses)
    report.checked["decisions"] = conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
    bad, orphans, bad_bundles = [], [], set()
    cached = 0
    _spec, dec_dtype, roll_dtype = store._record_dtypes()
    for key, fmt, d_blob, r_blob, manifest in conn.execute(
            "SELECT analysis_id, format, decisions, rolls, comments FROM analysis_arrays ORDER BY analysis_id"):
        if fmt != ARRAYS_FORMAT:
            continue  # another format: rebuilt when read, not damage
        try:
            parts = decode_bundle(d_blob, r_blob, manifest, dec_dtype, roll_dtype)
        except ValueError as exc:
            bad_bundles.add(key)
            report.findings.append(Finding("array cache", f"the cache bundle of analysis {key} cannot be read "
                                                          f"({exc})", True, key))
            continue
        problems = {}
        for a, dec, rol, commented in parts:
            if a not in analyses:
                orphans.append(a)
                bad_bundles.add(key)
                report.findings.append(Finding("array cache", f"a cache of analysis {a}, which does not exist",
                                               True, a))
                continue
            cached += 1
            problem = _compare_cache(store, a, dec, rol, commented)
            if problem:
                problems[a] = problem
        if not sealed(d_blob, r_blob, manifest, dec_dtype, roll_dtype):
            if not problems and [p for p in parts if p[0] in analyses]:
                problems[next(p[0] for p in parts if p[0] in analyses)] = "the cached bytes differ from the rows'"
            problems = {a: f"checksum differs; {problem}" for a, problem in problems.items()}
        for a, problem in problems.items():
            bad.append(a)
            bad_bundles.add(key)
            report.findings.append(Finding("array cache", f"analysis {a} (match {analyses[a]}): {problem}", True, a))
    report.checked["array_caches"] = cached
    _check_study_actions(conn, report)
    _check_collections(conn, report)
    labels_bad = _check_labels(store, analyses, report)
    if not repair or not (bad or orphans or labels_bad):
        return
    if labels_bad:
        n = store.relabel()  # clears the whole array cache: rebuilt below
        report.repaired.append(f"labels of {n} decisions recomputed from their positions")
        bad = sorted(analyses)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany("DELETE FROM analysis_arrays WHERE analysis_id = ?", [(k,) for k in sorted(bad_bundles)])
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    store._ensure_arrays(sorted(analyses))  # the analyses of the bundles dropped, and all after a relabel
    if orphans:
        report.repaired.append(f"array cache of {len(orphans)} analyses that do not exist deleted")
    if bad:
        report.repaired.append(f"array cache of {len(bad)} analyses rebuilt from their rows")
    report.after = CheckReport(report.path, checked={"engine": store.engine})
    _check_rows(store, report.after, repair=False)
    if store.engine == "sqlite":
        report.after.findings[:0] = [Finding("file", p, False) for p in integrity_check(conn)]


def _compare_cache(store, analysis_id: int, cached, rolls_cached, commented) -> Optional[str]:
    """What differs between the analysis' cached records (decisions, rolls,
    indices of commented decisions, from its bundle) and its rows (None:
    nothing)."""
    fresh, rolls_fresh, commented_fresh = store._pack_records(analysis_id)
    dec_dtype, roll_dtype = fresh.dtype, rolls_fresh.dtype
    if (cached.tobytes(), rolls_cached.tobytes(), list(commented)) == (
            fresh.tobytes(), rolls_fresh.tobytes(), list(commented_fresh)):
        return None
    parts = []
    if len(cached) != len(fresh):
        parts.append(f"{len(cached)} decisions cached, {len(fresh)} rows")
    if len(rolls_cached) != len(rolls_fresh):
        parts.append(f"{len(rolls_cached)} rolls cached, {len(rolls_fresh)} rows")
    e_cached, e_rows = float(np.nansum(cached["error"])), float(np.nansum(fresh["error"]))
    if e_cached != e_rows:
        parts.append(f"Σ error {e_cached:.6f} cached, {e_rows:.6f} in the rows")
    if len(cached) == len(fresh) and len(fresh):
        cols = [n for n in dec_dtype.names if cached[n].tobytes() != fresh[n].tobytes()]
        if cols:
            a = cached.view(np.uint8).reshape(len(cached), -1)
            b = fresh.view(np.uint8).reshape(len(fresh), -1)
            k = int(np.count_nonzero(np.any(a != b, axis=1)))
            parts.append(f"{k} decision{'s' if k != 1 else ''} differ in {', '.join(cols)}")
    if len(rolls_cached) == len(rolls_fresh) and rolls_cached.tobytes() != rolls_fresh.tobytes():
        cols = [n for n in roll_dtype.names if rolls_cached[n].tobytes() != rolls_fresh[n].tobytes()]
        parts.append(f"rolls differ in {', '.join(cols)}")
    if list(commented) != list(commented_fresh):
        parts.append("the list of commented decisions differs")
    return "; ".join(parts) or "the cached bytes differ from the rows'"


def _check_labels(store, analyses: dict, report: CheckReport) -> bool:
    """Stored labels against those recomputed from each decision (labels.py).
    True when some differ (damage).  Labels of an older rules version are a
    note: they are redone when the store is next read."""
    if not store.labels_current():
        report.checked["labels"] = 0
        report.findings.append(Finding(
            "labels", f"made by label rules {store.get_meta('labels_version')!s}, now {LABELS_VERSION}: "
            "recomputed when the store is next read", True, damage=False))
        return False
    differ: dict = {}
    for (rid, aid, kind, pid, err, cands, pi, nd, dt, dp, phase, plan, theme, d1, d2) in store.conn.execute(
        "SELECT d.id, d.analysis_id, d.kind, d.position_id, d.error, c.candidates, d.played_index, d.nd, d.dt, "
        "d.dp, d.phase, d.game_plan, d.theme, d.dice1, d.dice2 FROM decisions d "
        "LEFT JOIN decision_candidates c ON c.decision_id = d.id ORDER BY d.id"
    ):
        try:
            lists = decode_candidates(cands, pid, (d1, d2), notation=False)  # boards: no legal plays generated
            want = decision_labels(kind, pid, err, lists, pi, nd, dt, dp)
        except Exception as exc:  # a position or candidate list that no longer parses
            want = ("?", f"unreadable ({exc.__class__.__name__})", None)
        if tuple(want) != (phase, plan, theme):
            differ.setdefault(aid, []).append(rid)
    for aid, rids in sorted(differ.items()):
        ids = ", ".join(map(str, rids[:5])) + (", …" if len(rids) > 5 else "")
        report.findings.append(Finding(
            "labels", f"analysis {aid} (match {analyses.get(aid)}): {len(rids)} decision"
            f"{'s' if len(rids) != 1 else ''} labelled otherwise than their position gives (decision {ids})",
            True, aid))
    report.checked["labels"] = report.checked.get("decisions", 0) - sum(map(len, differ.values()))
    return bool(differ)


# -- repairing a damaged file ---------------------------------------------------------


def _repair_file(path: str, report: CheckReport, rules) -> None:
    """Rebuild a damaged file from its tables of rows, when they all read
    whole: a new file, indexes and the array cache remade, then written over
    the damaged one (SQLite's backup API, under its locks).  The damaged
    file is kept as ``PATH.damaged-<time>``."""
    if any(not f.repairable for f in report.findings if f.damage):
        report.unrepaired.append(
            "rows lost to the damage cannot be rebuilt: restore a backup, or import the match files again into "
            "a new database (the file was left as it was)")
        return

    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    # named with this process: a killed repair's file is removed by the next one (_remove_killed_rebuilds)
    tmp = owned_name(f"{path}.rebuild-{stamp}")
    kept = f"{path}.damaged-{stamp}"
    try:
        counts = _copy_rows(path, tmp)

        with SQLiteStore(tmp, rules=rules) as store:
            # another file for every process's caches of this path, though written back into the same inode
            store.set_meta(REBUILT_KEY, f"{stamp} {secrets.token_hex(8)}")
            ids = [a for (a,) in store.conn.execute("SELECT id FROM analyses")]
            store._ensure_arrays(ids)
            problems = integrity_check(store.conn)
            if problems:
                raise DamagedDatabase(f"the rebuilt file is not whole either: {problems[0]}")
            store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _keep_copy(path, kept, tmp + ".damaged")
        src = sqlite3.connect(tmp)
        dst = sqlite3.connect(path, timeout=30)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
    except (sqlite3.DatabaseError, StoreError, OSError) as exc:
        report.unrepaired.append(f"the file could not be rebuilt ({exc}); it was left as it was")
        return
    finally:
        # the new file, and a copy an upgrade of it may have made (a damaged file of an older schema)
        for leftover in [tmp + s for s in ("", "-wal", "-shm", ".damaged", ".damaged-wal")] \
                + glob.glob(glob.escape(tmp) + ".v*-backup*.db"):
            with _suppress():
                os.remove(leftover)
    rows = sum(counts.values())
    report.repaired.append(f"the file rebuilt from its {rows} rows ({len(counts)} tables); indexes and the array "
                           f"cache of {len(ids)} analyses remade; the damaged file kept as {kept}")
    report.after = check_database(path, repair=False, rules=rules)


class _suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], OSError)


def _remove_killed_rebuilds(path: str, report: CheckReport) -> None:
    """The rebuilt files (and their -wal, -shm, copies) a killed repair left
    beside the database: removed, a line each (run_files.remove_leftovers:
    only those whose process is gone)."""
    folder, name = os.path.split(os.path.abspath(path))
    report.removed += remove_leftovers(folder, name + ".rebuild-", say=lambda line: None)


def _keep_copy(path: str, kept: str, partial: str) -> None:
    """The damaged file (and its -wal) copied to ``kept``: written under
    ``partial`` (a name of this process) and renamed when whole, so a kill
    leaves no half copy under the kept name."""
    wal = os.path.exists(path + "-wal")
    shutil.copy2(path, partial)
    if wal:
        shutil.copy2(path + "-wal", partial + "-wal")
        os.replace(partial + "-wal", kept + "-wal")
    os.replace(partial, kept)


def _copy_rows(path: str, tmp: str) -> dict:
    """The damaged file's schema and every table of rows (not the caches)
    into a new file; {table: rows}."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(tmp + suffix):
            os.remove(tmp + suffix)
    src = sqlite3.connect(path, timeout=30)
    try:
        page_size = src.execute("PRAGMA page_size").fetchone()[0]
        objects = src.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY rootpage").fetchall()
        pragmas = {p: src.execute(f"PRAGMA {p}").fetchone()[0] for p in ("user_version", "application_id")}
    finally:
        src.close()
    dst = sqlite3.connect(tmp, isolation_level=None)
    counts = {}
    try:
        dst.execute(f"PRAGMA page_size = {int(page_size)}")
        dst.execute("PRAGMA journal_mode = WAL")
        for p, v in pragmas.items():
            dst.execute(f"PRAGMA {p} = {int(v)}")
        dst.execute("ATTACH DATABASE ? AS damaged", (path,))
        dst.execute("BEGIN")
        for kind, name, _tbl, sql in objects:
            if kind == "table":
                dst.execute(sql)
        for kind, name, _tbl, _sql in objects:
            if kind != "table" or name in DERIVED_TABLES:
                continue
            cols = ", ".join(_q(c[1]) for c in dst.execute(f"PRAGMA main.table_info({_q(name)})"))
            if "WITHOUT ROWID" in " ".join(_sql.upper().split()):  # the rolls (schema step 10): no rowid to keep
                dst.execute(f"INSERT INTO main.{_q(name)}({cols}) SELECT {cols} FROM damaged.{_q(name)}")
            else:
                dst.execute(f"INSERT INTO main.{_q(name)}(_rowid_, {cols}) "
                            f"SELECT _rowid_, {cols} FROM damaged.{_q(name)} NOT INDEXED")
            counts[name] = dst.execute(f"SELECT COUNT(*) FROM main.{_q(name)}").fetchone()[0]
        for kind, _name, _tbl, sql in objects:
            if kind in ("index", "trigger", "view"):
                dst.execute(sql)
        dst.execute("COMMIT")
        dst.execute("DETACH DATABASE damaged")
    except BaseException:
        if dst.in_transaction:
            dst.execute("ROLLBACK")
        raise
    finally:
        dst.close()
    return counts


def database_exists(path) -> bool:
    return Path(path).is_file()
