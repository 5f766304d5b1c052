"""Difficulty d (SPEC §6) at scale: time of schema step 7 (d of every
counted decision from the stored candidate lists) and of the figures made
of it, on the synthetic database of 10,000 matches (run on demand).

    python benchmarks/make_synthetic_db.py 10000     # once
    python benchmarks/difficulty_speed.py [DB]

Step 7 runs on a copy of the database with the two columns dropped (what
an upgrade from schema 6 does); `stats --format json` then runs as the user
runs it (a fresh process, the array cache built first).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.store.schema import _difficulty  # noqa: E402


def main():
    db = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / ".cache" / "synthetic-10000.db"
    if not db.exists():
        sys.exit(f"{db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
    with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
        copy = Path(tmp) / "copy.db"
        shutil.copyfile(db, copy)
        conn = sqlite3.connect(copy, isolation_level=None)
        n, n_d = conn.execute("SELECT COUNT(*), COUNT(difficulty) FROM decisions").fetchone()
        query = "SELECT id, difficulty, difficulty_truncated FROM decisions WHERE difficulty IS NOT NULL"
        before = {i: (d, t) for i, d, t in conn.execute(query)}
        conn.execute("ALTER TABLE decisions DROP COLUMN difficulty")
        conn.execute("ALTER TABLE decisions DROP COLUMN difficulty_truncated")
        start = time.monotonic()
        conn.execute("BEGIN IMMEDIATE")
        _difficulty(conn)
        conn.execute("COMMIT")
        step = time.monotonic() - start
        after = {i: (d, t) for i, d, t in conn.execute(query)}
        conn.close()
        same = after.keys() == before.keys() and all(abs(after[k][0] - before[k][0]) < 1e-12 for k in before)
        same_t = after.keys() == before.keys() and all(after[k][1] == before[k][1] for k in before)
        print(f"{db.name}: {n} decisions, {n_d} with d; schema step 7 (d from the stored lists): {step:.1f} s; "
              f"same d as stored at import (to 1e-12): {same}; same truncation flags: {same_t}")
        env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull,
                   PYTHONPATH=str(HERE.parent))
        cli = [sys.executable, "-m", "gnubg_blunder", "--db", str(copy)]
        subprocess.run(cli + ["stats"], env=env, capture_output=True)  # builds the array cache
        start = time.monotonic()
        subprocess.run(cli + ["stats", "--format", "json"], env=env, capture_output=True, check=True)
        print(f"stats --format json (with the difficulty figures): {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
