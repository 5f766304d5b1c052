"""Signed biases (SPEC §12) at scale: time of `gnubg-blunder biases` on the
synthetic database of 10,000 matches, apart from reading the selection (run
on demand).

    python benchmarks/make_synthetic_db.py 10000     # once
    python benchmarks/biases_speed.py [DB] [--repeat R]

In-process, through the view's own code (``views/biases.compute``) on one
selection of the whole database (``store.select()``, the array cache built
first, not counted):

* **select**: reading the selection (the array cache's blobs);
* **biases, cached blots**: the view as it runs, the blots of the wrong
  checker plays' boards from the array cache (ARRAYS_FORMAT 5);
* **biases, boards read**: the same figures with those boards read row by
  row (``store/boards.checker_results``), as before the cache kept them:
  they must be the same.

Then ``biases --format json`` as the user runs it (a fresh process). Each
in-process figure is the best of R runs (default 3).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.filters import Filter  # noqa: E402
from gnubg_blunder.metrics.biases import biases, blot_rows  # noqa: E402
from gnubg_blunder.database import open_store  # noqa: E402
from gnubg_blunder.store.boards import checker_results  # noqa: E402
from gnubg_blunder.views.biases import compute  # noqa: E402


def best(f, repeat):
    times, out = [], None
    for _ in range(repeat):
        start = time.monotonic()
        out = f()
        times.append(time.monotonic() - start)
    return min(times), out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("db", nargs="?", type=Path, default=HERE / ".cache" / "synthetic-10000.db")
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    db, repeat = opts.db, opts.repeat
    if not db.exists():
        sys.exit(f"{db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
    with open_store(db) as store:
        store.select()  # builds the array cache if the database has none of this format
        t_sel, sel = best(lambda: store.select(), repeat)
        scope = SimpleNamespace(selection=sel, store=store, filter=Filter(), filter_json={})

        def cached():
            sel.__dict__.pop("_biases", None)
            return compute(scope)

        def read():
            return biases(sel, checker_results(store, blot_rows(sel)))

        t_cached, obj = best(cached, repeat)
        t_read, obj_read = best(read, repeat)
        rows = len(blot_rows(sel))
        obj.pop("filter")
        print(f"{db.name}: {len(sel.decisions)} decisions, {rows} wrong checker plays with contact; "
              f"blots cached: {bool((sel.decisions.blots_best >= 0).any())}")
        print(f"select (read the selection): {t_sel:.2f} s")
        print(f"biases, cached blots:        {t_cached:.2f} s beyond the selection")
        print(f"biases, boards read by row:  {t_read:.2f} s beyond the selection; same figures: {obj == obj_read}")
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull,
               PYTHONPATH=str(HERE.parent))
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", str(db), "biases", "--format", "json"],
                   env=env, capture_output=True, check=True)
    print(f"biases --format json (fresh process): {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
