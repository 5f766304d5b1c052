"""`references --limit 20` at scale: time and peak memory on the synthetic
database of 10,000 matches (run on demand).

    python benchmarks/make_synthetic_db.py 10000          # once (about 3 minutes)
    python benchmarks/references_speed.py [DB] [--repeat R]

The database is copied to /tmp/bench/references-10000.db (default; the
benchmark's copy is upgraded to this gnubg-blunder's schema and caches by
a first, untimed run, so the one in benchmarks/.cache stays as made).  Each
command runs as the user runs it: a fresh process, plugins off, wall time
and peak resident memory from GNU time; the best of R runs (default 3).
The issue's budget: under 5 s and 300 MB.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "gnubg_blunder"]
SOURCE = HERE / ".cache" / "synthetic-10000.db"
COPY = Path("/tmp/bench/references-10000.db")
BUDGET_S, BUDGET_MB = 5.0, 300.0
COMMANDS = [
    ("references --limit 20 (json)", ["references", "--limit", "20", "--format", "json"]),
    ("references --limit 20 (text)", ["references", "--limit", "20"]),
    ("references, one player", ["references", "--limit", "20", "--player", "Player 07", "--format", "json"]),
]


def timed(db: Path, args: list, env: dict) -> tuple:
    res = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + CLI + ["--db", str(db)] + args, env=env,
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {res.stderr.strip()[-500:]}")
    secs, kb = res.stderr.strip().splitlines()[-1].split()
    return float(secs), int(kb) / 1024, res.stdout


def main():
    argv = sys.argv[1:]
    repeat = 3
    if "--repeat" in argv:
        k = argv.index("--repeat")
        repeat = int(argv[k + 1])
        del argv[k:k + 2]
    db = Path(argv[0]) if argv else COPY
    if not db.exists():
        if not SOURCE.exists():
            sys.exit(f"{SOURCE}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
        db.parent.mkdir(parents=True, exist_ok=True)
        print(f"copying {SOURCE} to {db} ...", flush=True)
        shutil.copyfile(SOURCE, db)
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull)
    env["PYTHONPATH"] = str(HERE.parent)
    # untimed: the schema upgrade (and its backup), the labels, the array cache
    first = subprocess.run(CLI + ["--db", str(db), "references", "--limit", "1", "--format", "json"], env=env,
                           capture_output=True, text=True)
    if first.returncode != 0:
        sys.exit(f"first run failed: {first.stderr.strip()[-500:]}")
    for backup in db.parent.glob(db.stem + ".v*-backup*.db"):
        backup.unlink()  # the upgrade's backup copy: 1 GB of /tmp
    print(f"{db} ({db.stat().st_size / 1e6:.0f} MB)")
    print(f"{'command':<32} {'seconds':>8} {'peak MB':>8}  budget {BUDGET_S:.0f} s, {BUDGET_MB:.0f} MB")
    ok = True
    for label, args in COMMANDS:
        runs = [timed(db, args, env) for _ in range(repeat)]
        secs = min(r[0] for r in runs)
        mb = max(r[1] for r in runs)
        within = secs < BUDGET_S and mb < BUDGET_MB
        ok &= within
        print(f"{label:<32} {secs:>8.2f} {mb:>8.0f}  {'within' if within else 'ABOVE'} "
              f"(runs: {', '.join(f'{r[0]:.2f}' for r in runs)})")
        if args[-1] == "json" and "--player" not in args:
            obj = json.loads(runs[0][2])
            print(f"  {obj['candidates']} candidates from {obj['candidate_errors']} errors, "
                  f"{len(obj['positions'])} positions covering {sum(len(p['errors']) for p in obj['positions'])} "
                  f"errors, Σ gain {sum(p['gain'] for p in obj['positions']):.2f} % of "
                  f"{obj['candidate_excess']:.2f} % excess")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
