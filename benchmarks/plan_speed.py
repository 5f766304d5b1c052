"""The study plan at scale: time and peak memory of `plan` on the synthetic
database of 10,000 matches (run on demand).

    python benchmarks/make_synthetic_db.py 10000     # once
    python benchmarks/plan_speed.py [DB] [--repeat R]

Two measures:

1. the command as the user runs it (a fresh process, `python -m
   gnubg_blunder plan`), wall time and peak resident memory from GNU time —
   reading the selection from the array cache included;
2. in this process, the parts: `store.select(filter)` (the arrays), then
   `metrics.plan.study_plan` over them (best of R), its peak of Python
   allocations (tracemalloc) and the drill-down lists of the report
   (`member_lists`, 20 a family).

Measured on 2026-12-01 (the shared 2-core machine, other jobs running) on a
copy of the 10,000-match synthetic database (1,604,244 decisions; 72
families, all in the plan, 84,382 members; outside: 30,779 without a theme,
15,715 money members): `plan` 4.2 s and 761 MB peak as a command — as
`stats` (4.5 s, 779 MB) and `summary` (5.9 s): reading the selection's
arrays is 2.9 s of it and most of the memory; `study_plan` itself 0.36 s
and 85 MB of allocations, the report's lists 0.45 s; `plan --player`
(one player's matches) 0.9 s, 92 MB.

The database is only read (the array cache is built by a first `stats` if
missing: give a copy when the database is someone else's).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
CLI = [sys.executable, "-m", "gnubg_blunder"]
COMMANDS = [
    ("plan", ["plan", "--format", "json"]),
    ("plan, text", ["plan"]),
    ("plan, one player", ["plan", "--player", "Player 07"]),
    ("plan, checker", ["plan", "--decision-type", "checker"]),
]


def _cli(db: Path, env: dict):
    print(f"{'command':<22} {'seconds':>8} {'peak MB':>8}")
    for label, args in COMMANDS:
        res = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + CLI + ["--db", str(db), "--no-config"] + args,
                             env=env, capture_output=True, text=True)
        if res.returncode != 0:
            print(f"{label:<22} failed: {res.stderr.strip().splitlines()[-1] if res.stderr else ''}")
            continue
        secs, kb = res.stderr.strip().splitlines()[-1].split()
        print(f"{label:<22} {float(secs):>8.2f} {int(kb) / 1024:>8.0f}")


def _parts(db: Path, repeat: int):
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.plan import member_lists, plan_mask, study_plan
    from gnubg_blunder.database import open_store

    store = open_store(str(db))
    thresholds = thresholds_for(store)
    t = time.perf_counter()
    sel = store.select(Filter())
    t_select = time.perf_counter() - t
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        obj = study_plan(sel, plan_mask(sel), thresholds)
        best = min(best, time.perf_counter() - t)
    tracemalloc.start()
    study_plan(sel, plan_mask(sel), thresholds)
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    t = time.perf_counter()
    member_lists(sel, plan_mask(sel), thresholds, [f["family"] for f in obj["families"]], 20)
    t_lists = time.perf_counter() - t
    members = sum(f["members"] for f in obj["families"])
    in_plan = sum(f["status"] == "plan" for f in obj["families"])
    print(f"{len(sel.decisions):,} decisions of {sel.n_matches:,} matches; {len(obj['families'])} families "
          f"({in_plan} in the plan), {members:,} members; outside {obj['outside']}")
    print(f"select (arrays)         {t_select:8.2f} s")
    print(f"study_plan (best of {repeat})  {best:8.3f} s, peak {peak / 1e6:.0f} MB of Python allocations")
    print(f"member_lists (report)   {t_lists:8.3f} s")
    store.close()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    args = [a for a in args if a != str(repeat)] if "--repeat" in sys.argv else args
    db = Path(args[0]) if args else HERE / ".cache" / "synthetic-10000.db"
    if not db.exists():
        sys.exit(f"{db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull)
    env["PYTHONPATH"] = str(HERE.parent)
    # a first read builds the per-analysis array cache if the database has none
    subprocess.run(CLI + ["--db", str(db), "--no-config", "stats"], env=env, capture_output=True)
    print(f"{db.name} ({db.stat().st_size / 1e6:.0f} MB)")
    _cli(db, env)
    _parts(db, repeat)


if __name__ == "__main__":
    main()
