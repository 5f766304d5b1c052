#!/usr/bin/env python3
"""What each integrity check SQLite offers costs on a database, and what a
one-file ``import`` costs with and without the store's once-a-process check.

    python benchmarks/check_speed.py [--repeat R] [--match FILE] DB [DB...]

For each database (best and slowest of R, default 3, the file in the page
cache after a first read):

- ``PRAGMA quick_check``, the check ``import``/``bdb.store()`` run once per
  file and process (store/check.py), and ``quick_check(5)`` (its limited
  form: 5 is the number of errors reported, not of pages read);
- ``PRAGMA integrity_check`` (what ``gnubg-blunder check`` runs);
- ``PRAGMA quick_check(TABLE)`` of each table a store writes, one at a
  time (SQLite restricts the check to that table and its indexes): their
  sum is the check of "only the tables a store touches";
- the header and freelist check: page 1's header against the file's size
  (page count, freelist trunk page and count in range), constant work;
- a one-file ``import`` of FILE (default the bundled 7-point match's SGF of
  tests/fixtures) into a fresh copy of the database, in a new process each
  time, with the check and without it (``quick_check`` made to find
  nothing, in that process only: the cost of the rest of the import), and
  without it but with ``PRAGMA cell_size_check = ON`` (SQLite checks each
  page a write reads more closely: the check of "only the pages a store
  touches").

It is not a test: run it on demand, ``nice``.  See benchmarks/README.md and
docs/reliability.md ("The check before writing").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_MATCH = ROOT / "tests" / "fixtures" / "real" / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
STORE_TABLES = ("matches", "games", "analyses", "decisions", "rolls", "decision_candidates", "analysis_arrays")

# A one-file import in a new process; argv: DB FILE CHECK (1: the store's check as it is, 0: made to find
# nothing, 2: made to find nothing and SQLite's cell_size_check on, the pages a write reads checked more)
IMPORT = r'''
import sys, time
t0 = time.perf_counter()
db, match, check = sys.argv[1], sys.argv[2], sys.argv[3]
if check != "1":
    import gnubg_blunder.store.check as c
    c.quick_check = lambda conn, limit=20: []
if check == "2":
    from gnubg_blunder.store.sqlite import SQLiteStore  # the class open_store makes
    connect = SQLiteStore._connect
    def checking(self, *a, **k):
        conn = connect(self, *a, **k)
        conn.execute("PRAGMA cell_size_check = ON")
        return conn
    SQLiteStore._connect = checking
from gnubg_blunder.cli import main
try:
    main(["--db", db, "import", match])
except SystemExit:
    pass
print(time.perf_counter() - t0)
'''


def timed(fn, repeat: int) -> list:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def header_check(path: str) -> list:
    """Page 1's header against the file: the constant-cost check (what it can see: a truncated or grown file, a
    freelist pointing outside it, a header overwritten)."""
    with open(path, "rb") as fh:
        head = fh.read(100)
    problems = []
    if head[:16] != b"SQLite format 3\x00":
        return ["not an SQLite file"]
    page_size = int.from_bytes(head[16:18], "big") or 65536
    if page_size == 1:
        page_size = 65536
    pages = int.from_bytes(head[28:32], "big")
    trunk, free = int.from_bytes(head[32:36], "big"), int.from_bytes(head[36:40], "big")
    size = os.path.getsize(path)
    if pages * page_size != size and not os.path.exists(path + "-wal"):
        problems.append(f"header says {pages} pages, the file holds {size // page_size}")
    if trunk > pages or free > pages:
        problems.append("freelist outside the file")
    return problems


def pragma(conn, text):
    return lambda: conn.execute(text).fetchall()


def ms(xs) -> str:
    return f"{min(xs) * 1e3:9.1f} {max(xs) * 1e3:9.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbs", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--match", default=str(DEFAULT_MATCH))
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    args = ap.parse_args(argv)
    print(f"best and slowest of {args.repeat}, ms; load {os.getloadavg()[0]:.2f}")
    for db in args.dbs:
        size = os.path.getsize(db) / 2**20
        with tempfile.TemporaryDirectory(dir=args.tmp) as td:
            copy = os.path.join(td, "copy.db")
            shutil.copyfile(db, copy)
            conn = sqlite3.connect(copy)
            n = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            print(f"\n{db}: {n:,} matches, {size:,.1f} MiB")
            rows = [("quick_check", pragma(conn, "PRAGMA quick_check")),
                    ("quick_check(5)", pragma(conn, "PRAGMA quick_check(5)")),
                    ("integrity_check", pragma(conn, "PRAGMA integrity_check"))]
            rows += [(f"quick_check({t})", pragma(conn, f"PRAGMA quick_check({t})")) for t in STORE_TABLES]
            rows.append(("header and freelist", lambda: header_check(copy)))
            conn.execute("PRAGMA quick_check").fetchall()  # the file read once: in the page cache
            tables_sum = []
            for name, fn in rows:
                xs = timed(fn, args.repeat)
                if name.startswith("quick_check(") and name != "quick_check(5)":
                    tables_sum.append(min(xs))
                print(f"  {name:<34} {ms(xs)}")
            print(f"  {'Σ quick_check(TABLE) of the store':<34} {sum(tables_sum) * 1e3:9.1f}")
            conn.close()
            env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
            for check in ("1", "0", "2"):
                xs = []
                for r in range(args.repeat):
                    target = os.path.join(td, f"import-{check}-{r}.db")
                    shutil.copyfile(copy, target)
                    t0 = time.perf_counter()
                    res = subprocess.run([sys.executable, "-c", IMPORT, target, args.match, check], cwd=ROOT,
                                         capture_output=True, text=True, env=env)
                    xs.append(time.perf_counter() - t0)
                    if "stored as match" not in res.stdout:
                        sys.exit(f"error: the import did not store: {res.stdout}{res.stderr}")
                    for s in ("", "-wal", "-shm"):
                        if os.path.exists(target + s):
                            os.remove(target + s)
                what = {"1": "with the check", "0": "without it", "2": "without, cell_size_check on"}[check]
                print(f"  {'import of one file, ' + what:<34} {ms(xs)}   (a new process each, start-up included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
