"""Real processes against one SQLite database, for tests/test_store_reliability.py.

Run as a script in its own interpreter (``python tests/store_processes.py
COMMAND ...``); it forks a child process per trial, so hundreds of trials
take seconds (no interpreter start-up each), and prints one JSON object.

- ``kill-sweep SOURCE WORKDIR [UNTIL]``: for k = 0, 1, 2, ... a copy of SOURCE (a
  database file, or ``new`` for none) is opened by a child that is killed by
  SIGKILL just before the k-th SQL statement its connection runs (a trace
  callback sees each statement as it starts).  The next process opens the
  copy and must find the schema complete, every match and its decision count
  (compared with a clean open of SOURCE).  The sweep ends at the first k the
  open finishes before, or (UNTIL, a schema step) at the first kill inside a
  later step: the later steps are swept from the fixture their previous
  version's code wrote.  A run of one statement repeated (executemany's
  rows) is killed at its first, second and last and where a doubling and
  bisecting search for its end probes, not at each row.  Killed copies of each schema step are kept under
  WORKDIR/keep for the command line to check.  A kill that leaves files
  the same to SQLite as an earlier kill of the same step (``_disk_state``:
  inside one transaction nothing reaches the disk) is not opened again:
  the next process would meet the same files; the first and the last kill
  of each such class are opened, so two different copies of each state.
- ``random-kills N WORKDIR``: N new databases, each opened by a child killed
  at a random moment of the creation.
- ``concurrent N ROUNDS WORKDIR [ARGS...]``: ROUNDS times, N children wait on
  one pipe, then all run ``gnubg-blunder --db NEW.db ARGS`` (the command
  line's code, ``commands.run``) at once on one new database.

The database code is whatever ``gnubg_blunder`` this interpreter imports
(PYTHONPATH selects another tree, e.g. an older commit, to compare).
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sqlite3
import sys
import time
import traceback

os.environ.setdefault("GNUBG_BLUNDER_NO_PLUGINS", "1")


def _copy_db(src: str, dst: str) -> None:
    """A fresh copy of SOURCE at ``dst`` (nothing for ``new``), with no
    journal and no backup of an earlier trial beside it."""
    import glob

    stem = os.path.splitext(dst)[0]
    for old in [dst + "-wal", dst + "-shm", dst] + glob.glob(glob.escape(stem) + ".v*-backup*"):
        if os.path.exists(old):
            os.remove(old)
    if src != "new":
        shutil.copyfile(src, dst)


def _copy_with_journal(src: str, dst: str) -> None:
    """A killed database as it is on disk: the file and its -wal."""
    for suffix in ("", "-wal"):
        if os.path.exists(src + suffix):
            shutil.copyfile(src + suffix, dst + suffix)


def _wal_state(path: str) -> tuple:
    """A WAL file as SQLite's recovery reads it: its header's format,
    page size and checkpoint count, the frames up to its last commit frame
    (page number, database size, a digest of the page) whose salts match
    the header's and whose checksums chain, and the file's size.  The salts
    (random at each restart of the WAL) and checksums are left out: two
    files that differ only in them hold the same database for SQLite."""
    import hashlib
    import struct

    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 32:
        return ("short", data)
    magic, version, page_size, checkpoints, salt1, salt2, ck1, ck2 = struct.unpack(">8I", data[:32])
    order = ">" if magic & 1 else "<"

    def checksum(block: bytes, a: int, b: int) -> tuple:
        words = struct.unpack(f"{order}{len(block) // 4}I", block)
        for i in range(0, len(words), 2):
            a = (a + words[i] + b) & 0xFFFFFFFF
            b = (b + words[i + 1] + a) & 0xFFFFFFFF
        return a, b

    a, b = checksum(data[:24], 0, 0)
    if magic not in (0x377F0682, 0x377F0683) or (a, b) != (ck1, ck2):
        return ("no valid header", hashlib.sha256(data).hexdigest())
    frames, committed, offset = [], [], 32
    while offset + 24 + page_size <= len(data):
        page, size, fs1, fs2, fc1, fc2 = struct.unpack(">6I", data[offset:offset + 24])
        if (fs1, fs2) != (salt1, salt2):
            break
        a, b = checksum(data[offset:offset + 8], a, b)
        a, b = checksum(data[offset + 24:offset + 24 + page_size], a, b)
        if (a, b) != (fc1, fc2):
            break
        frames.append((page, size, hashlib.sha256(data[offset + 24:offset + 24 + page_size]).hexdigest()))
        if size:
            committed = list(frames)
        offset += 24 + page_size
    return (version, page_size, checkpoints, tuple(committed), len(data))


def _disk_state(db: str) -> str:
    """What the next process that opens ``db`` meets, as a digest: every
    file beside it of its name (the database, its journal, a backup and
    its parts) byte for byte, a WAL as its recovery reads it
    (``_wal_state``); a -shm file is left out (the first connection after
    a kill, holding its lock alone, truncates and rebuilds it)."""
    import glob
    import hashlib

    stem = os.path.splitext(db)[0]
    digest = hashlib.sha256()
    for path in sorted(glob.glob(glob.escape(stem) + ".*")):
        if path.endswith("-shm") or os.sep + "keep" + os.sep in path:
            continue
        digest.update(os.path.basename(path).encode() + b"\0")
        if path.endswith("-wal"):
            digest.update(repr(_wal_state(path)).encode())
        else:
            with open(path, "rb") as fh:
                digest.update(hashlib.sha256(fh.read()).digest())
    return digest.hexdigest()


def _kill_before_statement(k: int, fd: int) -> None:
    """Make every connection this process opens kill it (SIGKILL) just
    before its k-th statement (counted over the process), after writing the
    statement's text to ``fd``."""
    real_connect = sqlite3.connect
    seen = [0]

    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)

        def trace(sql):
            if seen[0] == k:
                os.write(fd, sql.encode("utf-8", "replace")[:500])
                os.kill(os.getpid(), signal.SIGKILL)
            seen[0] += 1

        conn.set_trace_callback(trace)
        return conn

    sqlite3.connect = connect


def _fork(child) -> tuple:
    """Run ``child()`` in a new process; returns (how it ended, what it
    wrote): ("exit", code) or ("signal", number)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(r)
        code = 0
        try:
            out = child(w)
            if out is not None:
                os.write(w, json.dumps(out).encode())
        except BaseException:
            os.write(w, json.dumps({"exception": traceback.format_exc(limit=3)}).encode())
            code = 3
        os._exit(code)
    os.close(w)
    chunks = []
    while True:
        data = os.read(r, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    end = ("signal", os.WTERMSIG(status)) if os.WIFSIGNALED(status) else ("exit", os.WEXITSTATUS(status))
    return end, b"".join(chunks).decode("utf-8", "replace")


NOTES = []


def open_store(path):
    """SQLiteStore(path), its notes (a backup written) kept in NOTES."""
    from gnubg_blunder.database import SQLiteStore

    try:
        return SQLiteStore(path, report=NOTES.append)
    except TypeError:  # the code before stores took report=
        return SQLiteStore(path)


def signature(path: str) -> dict:
    """What a command finds in the database: its schema (tables and
    columns), its version, PRAGMA quick_check, and every match with its
    decisions (rows per analysis, and the decisions of the selection the
    views read)."""
    from gnubg_blunder.store.schema import current_version

    st = open_store(path)
    try:
        c = st.conn
        tables = {}
        for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') "
                                 "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
            tables[name] = [r[1] for r in c.execute(f"PRAGMA table_info({name})")]
        matches = []
        for mid, p0, p1, length, kind in c.execute(
                "SELECT id, player0, player1, length, kind FROM matches ORDER BY id").fetchall():
            analyses = [list(r) for r in c.execute(
                "SELECT a.engine, a.depth_label, (SELECT COUNT(*) FROM decisions d WHERE d.analysis_id = a.id), "
                "(SELECT COUNT(*) FROM rolls r WHERE r.analysis_id = a.id) FROM analyses a WHERE a.match_id = ? "
                "ORDER BY a.id", (mid,))]
            matches.append([mid, p0, p1, length, kind, analyses])
        sel = st.select(None)
        counted = [int((sel.decisions.match == i).sum()) for i in range(len(sel.matches))]
        return {
            "version": current_version(c),
            "quick_check": [r[0] for r in c.execute("PRAGMA quick_check")],
            "tables": tables,
            "matches": matches,
            "selection": [[m.id, n] for m, n in zip(sel.matches, counted)],
        }
    finally:
        st.close()


def _version_on_disk(path: str):
    """The schema version a killed database holds (read-only)."""
    try:
        c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if not c.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
                return 0
            row = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            return int(row[0]) if row else 0
        finally:
            c.close()
    except sqlite3.Error as exc:
        return f"unreadable: {exc}"


def kill_sweep(source: str, workdir: str, until=None, limit: int = 400) -> dict:
    os.makedirs(os.path.join(workdir, "keep"), exist_ok=True)
    clean = os.path.join(workdir, "clean.db")
    _copy_db(source, clean)
    end, out = _fork(lambda fd: signature(clean))
    if end != ("exit", 0):
        return {"error": f"a clean open failed: {end} {out}"}
    expected = json.loads(out)
    trials, broken, per_step = [], [], {}
    db = os.path.join(workdir, "k.db")
    tried: dict = {}
    # the kills of each step by the files they left (_disk_state): the
    # first and the last of each class are opened and checked
    classes: dict = {}
    opened = []

    def attempt(k: int) -> tuple:
        """Kill the open before its k-th statement and check the copy (once
        per k): ("done" | "beyond" | "killed", the statement's text)."""
        if k in tried:
            return tried[k]
        _copy_db(source, db)

        def killed(fd, k=k):
            _kill_before_statement(k, fd)
            open_store(db).close()

        end, statement = _fork(killed)
        statement = " ".join((statement or "").split())
        shape = statement.split(" VALUES")[0][:80]  # the statement without its values (traced expanded)
        if end == ("exit", 0):
            tried[k] = ("done", "")  # the open ran fewer than k statements
            return tried[k]
        if end != ("signal", signal.SIGKILL):
            broken.append({"k": k, "statement": statement, "error": f"the killed open ended {end}: {statement}"})
            tried[k] = ("killed", shape)
            return tried[k]
        at = _version_on_disk(db)
        step = at + 1 if isinstance(at, int) else at
        if until is not None and isinstance(step, int) and step > until:
            tried[k] = ("beyond", "")  # the steps after UNTIL: swept from their own fixtures
            return tried[k]
        per_step.setdefault(str(step), []).append(k)
        keep = os.path.join(workdir, "keep", f"step{step}-k{k}.db")
        _copy_with_journal(db, keep)
        state = (str(step), _disk_state(db))
        if state in classes:  # the same files as an earlier kill of this step: opened at the class's last
            classes[state]["kills"].append(k)
            classes[state]["last"] = (k, statement, _saved_state(db, workdir, classes[state]["n"]))
        else:
            classes[state] = {"kills": [k], "last": None, "n": len(classes)}
            check(k, step, statement)
        trials.append(k)
        tried[k] = ("killed", shape)
        return tried[k]

    def check(k: int, step, statement: str) -> None:
        """The next process opens the killed copy ``db``: the same
        signature as a clean open of SOURCE."""
        end, out = _fork(lambda fd: signature(db))
        got = json.loads(out) if out else {}
        opened.append(k)
        if end != ("exit", 0) or got != expected:
            why = got.get("exception") if isinstance(got, dict) and "exception" in got else \
                f"differs: {json.dumps(_diff(expected, got))[:600]}"
            broken.append({"k": k, "step": step, "statement": statement[:120], "error": why})

    # Every statement is killed before; a run of one statement repeated
    # (executemany's rows, one trace each) is killed before its first, its
    # second and its last, and at the points a doubling and bisecting
    # search for its end tries: the same statement, inside the same step's
    # transaction, hundreds of times over.
    k, previous = 0, None
    while k < limit:
        kind, statement = attempt(k)
        if kind != "killed":
            break
        if statement == previous:  # inside a run: find its last k
            lo, stride = k, 1
            while True:
                kind, text = attempt(lo + stride)
                if kind != "killed" or text != statement:
                    hi = lo + stride
                    break
                lo, stride = lo + stride, stride * 2
            while hi - lo > 1:
                mid = (lo + hi) // 2
                kind, text = attempt(mid)
                if kind == "killed" and text == statement:
                    lo = mid
                else:
                    hi = mid
            k = hi
            continue
        previous = statement
        k += 1
    # the last kill of each class, opened from the files it left
    for (step, _), cls in classes.items():
        if cls["last"] is not None:
            last_k, statement, saved = cls["last"]
            _restore_state(saved, db)
            check(last_k, int(step), statement)
    for step_kills in per_step.values():
        step_kills.sort()
    return {"source": source, "kills": len(trials), "statements": k, "broken": broken, "per_step": per_step,
            "opened": sorted(opened), "classes": sorted(sorted(c["kills"]) for c in classes.values()),
            "expected": {"version": expected["version"], "matches": expected["matches"],
                         "selection": expected["selection"]}}


def _saved_state(db: str, workdir: str, n: int) -> str:
    """The files a kill left beside ``db`` (of its name, its -shm too),
    copied to WORKDIR/last/N (the class's last kill, opened at the end)."""
    import glob

    saved = os.path.join(workdir, "last", str(n))
    shutil.rmtree(saved, ignore_errors=True)
    os.makedirs(saved)
    stem = os.path.splitext(db)[0]
    for path in glob.glob(glob.escape(stem) + ".*"):
        if os.path.isfile(path):
            shutil.copyfile(path, os.path.join(saved, os.path.basename(path)))
    return saved


def _restore_state(saved: str, db: str) -> None:
    """``db`` and the files beside it as _saved_state kept them."""
    _copy_db("new", db)
    import glob

    stem = os.path.splitext(db)[0]
    for path in glob.glob(glob.escape(stem) + ".*"):
        if os.path.isfile(path):
            os.remove(path)
    for name in os.listdir(saved):
        shutil.copyfile(os.path.join(saved, name), os.path.join(os.path.dirname(db), name))


def _diff(a: dict, b: dict) -> dict:
    return {key: [a.get(key), b.get(key)] for key in set(a) | set(b) if a.get(key) != b.get(key)}


def random_kills(n: int, workdir: str, seed: int = 8) -> dict:
    """New databases, each killed at a random moment of its creation, until
    N kills have landed inside a creation (at most 4 N tries: a child that
    finished before its kill is a try, not a kill)."""
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(seed)
    db = os.path.join(workdir, "r.db")

    def create(fd):
        os.write(fd, b"r")  # ready: the parent starts the clock
        open_store(db).close()

    # how long a creation takes, unkilled
    durations = []
    for _ in range(5):
        _copy_db("new", db)
        t0 = time.perf_counter()
        end, _ = _fork(create)
        durations.append(time.perf_counter() - t0)
        if end != ("exit", 0):
            return {"error": f"a clean creation failed: {end}"}
    reference = json.loads(_fork(lambda fd: signature(db))[1])
    window = sorted(durations)[len(durations) // 2]
    killed, finished, broken = 0, 0, []
    trial = -1
    while killed < n and trial + 1 < 4 * n:
        trial += 1
        _copy_db("new", db)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                create(w)
            finally:
                os._exit(0)
        os.close(w)
        os.read(r, 1)
        delay = rng.uniform(0, window)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            killed += 1
        else:
            finished += 1
        end, out = _fork(lambda fd: signature(db))
        got = json.loads(out) if out else {}
        if end != ("exit", 0) or got != reference:
            broken.append({"trial": trial, "delay_ms": round(delay * 1000, 2),
                           "error": got.get("exception", "") if isinstance(got, dict) else out})
    return {"trials": trial + 1, "killed": killed, "finished_first": finished, "window_ms": round(window * 1000, 2),
            "broken": broken}


def concurrent(n: int, rounds: int, workdir: str, args: list, source: str = "new") -> dict:
    """ROUNDS times: N processes run one command at once on a new database
    (or a copy of SOURCE)."""
    from gnubg_blunder.commands import Context, run

    os.makedirs(workdir, exist_ok=True)
    failures, runs, backups, outputs = [], 0, [], []
    for rnd in range(rounds):
        db = os.path.join(workdir, f"c{rnd}.db")
        _copy_db(source, db)
        go_r, go_w = os.pipe()
        children = []
        for _ in range(n):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                os.close(go_w)
                os.read(go_r, 1)  # returns for every child when the parent closes the pipe
                out, err = io.StringIO(), io.StringIO()
                try:
                    code = run(["--db", db] + list(args), Context(out=out, err=err))
                except BaseException:
                    code, err = 99, io.StringIO(traceback.format_exc(limit=3))
                os.write(w, json.dumps({"code": code, "err": err.getvalue(), "out": out.getvalue()}).encode())
                os._exit(0)
            os.close(w)
            children.append((pid, r))
        os.close(go_r)
        time.sleep(0.05)  # every child is waiting
        os.close(go_w)  # go
        for pid, r in children:
            data = b""
            while True:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                data += chunk
            os.close(r)
            os.waitpid(pid, 0)
            runs += 1
            res = json.loads(data) if data else {"code": "no answer", "err": ""}
            if res["code"] != 0:
                failures.append({"round": rnd, **res})
            else:
                outputs.append(res)
        backups.append(sorted(os.path.basename(f) for f in os.listdir(workdir)
                              if f.startswith(f"c{rnd}.") and "-backup" in f))
    return {"runs": runs, "rounds": rounds, "failures": failures, "backups": backups,
            "outputs": outputs[:n]}


def main(argv: list) -> int:
    # imported once here, not in each child
    import gnubg_blunder.commands  # noqa: F401
    import gnubg_blunder.plugins
    import gnubg_blunder.store  # noqa: F401
    import gnubg_blunder.store.schema  # noqa: F401

    gnubg_blunder.plugins.get_plugin_manager()
    command = argv[0]
    if command == "kill-sweep":
        result = kill_sweep(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else None)
    elif command == "random-kills":
        result = random_kills(int(argv[1]), argv[2])
    elif command == "concurrent":  # N ROUNDS WORKDIR [--from SOURCE] ARGS...
        rest = argv[4:]
        source = "new"
        if rest[:1] == ["--from"]:
            source, rest = rest[1], rest[2:]
        result = concurrent(int(argv[1]), int(argv[2]), argv[3], rest, source)
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
