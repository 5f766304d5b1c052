"""The views' compute at scale, in-process: time of each view's ``compute``
over a selection already read (the reading is timed apart), on a synthetic
database of 10,000 matches (run on demand).

    python benchmarks/make_synthetic_db.py 10000     # once (about 2 minutes)
    python benchmarks/compute_speed.py [DB] [--player NAME] [VIEW...]

Each view starts cold: what the metrics keep per selection
(the stashes, ``stash.py``) is forgotten before it runs, as in a fresh process.
A selection other than the scope's that a view reads (another filter's) is
timed as reading, not computing; the CPU time (which includes such reading)
says what a machine shared with other jobs hides in the wall time.  ``report`` is the HTML report's sections
over one shared selection, as ``report --html`` makes them (the writing of
the file aside).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

VIEWS = ("stats", "summary", "players", "matches", "breakdowns", "errors", "plan", "biases", "progression",
         "progress-study", "tournament", "references", "report")


def main():
    os.environ.setdefault("GNUBG_BLUNDER_NO_PLUGINS", "1")
    os.environ.setdefault("GNUBG_BLUNDER_CONFIG", os.devnull)
    ap = argparse.ArgumentParser()
    ap.add_argument("db", nargs="?", default=str(HERE / ".cache" / "synthetic-10000.db"))
    ap.add_argument("--player")
    ap.add_argument("views", nargs="*")
    args = ap.parse_args()
    if not Path(args.db).exists():
        sys.exit(f"{args.db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")

    from gnubg_blunder.commands import Scope, get_registry
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import open_store
    from gnubg_blunder.views import report

    def forget():
        """What the metrics keep of the selection (its arrays' stashes) dropped."""
        for owner in (getattr(sel, "decisions", None), getattr(sel, "rolls", None)):
            if owner is not None:
                vars(owner).pop("stash", None)
    store = open_store(args.db)
    flt = Filter(player=args.player)
    thresholds = thresholds_for(store)
    reading = [0.0]
    select = store.select

    def timed_select(*a, **kw):
        t = time.perf_counter()
        try:
            return select(*a, **kw)
        finally:
            reading[0] += time.perf_counter() - t

    store.select = timed_select
    t = time.perf_counter()
    sel = store.select(flt)
    read = time.perf_counter() - t
    print(f"{Path(args.db).name}: {sel.n_matches} matches, {len(sel.decisions)} decisions; "
          f"select {read:.2f} s (not counted below)")
    registry = get_registry()
    print(f"{'view':<16} {'compute s':>10} {'(CPU s)':>8} {'other reads s':>14}")
    for name in args.views or VIEWS:
        forget()
        for key in set(vars(sel)) - {f.name for f in dataclasses.fields(sel)}:  # the views' own and the selection's stash
            del vars(sel)[key]
        reading[0] = 0.0
        t, cpu = time.perf_counter(), time.process_time()
        if name == "report":
            ctx = report.ReportContext(store=store, filter=flt, selection=sel, thresholds=thresholds)
            report.build_report(ctx)
        else:
            view = registry.commands[name].view
            scope = Scope.over(report._view_args(view, {}), store, flt, sel, thresholds)
            view.compute(scope)
        total, cpu = time.perf_counter() - t, time.process_time() - cpu
        print(f"{name:<16} {total - reading[0]:>10.2f} {cpu:>8.2f} {reading[0]:>14.2f}")
    store.close()


if __name__ == "__main__":
    main()
