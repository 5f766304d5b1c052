"""How long ``gnubg-blunder --help`` and a command's ``--help`` take, and
whether they import numpy (issue 13: at most 0.15 s, no numpy).

    .venv/bin/python benchmarks/help_speed.py [--runs 7] [COMMAND ...]

Each case runs the installed console script (``.venv/bin/gnubg-blunder``,
the one a user types) ``--runs`` times in a fresh process; prints the
fastest and the median wall time, the CPU time of the fastest run, and
whether numpy was imported (asked of ``python -c`` calling the CLI's
``main``, the same code).  Wall time on a shared machine varies: the
fastest run is the figure to compare.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CWD = tempfile.gettempdir()  # not the repository: ``python -c`` would import the package from the current folder
SCRIPT = Path(sys.executable).parent / "gnubg-blunder"

PROBE = ("import sys\n"
         "from gnubg_blunder.cli import main\n"
         "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
         "heavy = sorted(m for m in ('numpy', 'lxml', 'yaml', 'genanki', 'gnubg_blunder.store') if m in sys.modules)\n"
         "print('IMPORTED', ' '.join(heavy) or '-', file=sys.stderr)\n")


def once(argv: list) -> tuple:
    """(wall s, cpu s) of one run of the console script."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([str(SCRIPT), *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=CWD)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def imported(argv: list) -> str:
    r = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False, cwd=CWD)
    return next((line.split(" ", 1)[1] for line in r.stderr.splitlines() if line.startswith("IMPORTED ")), "?")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("commands", nargs="*", default=["stats", "import", "analyse", "quiz", "report"])
    a = ap.parse_args()
    if not SCRIPT.exists():
        sys.exit(f"no console script at {SCRIPT}: run with the environment's python (.venv/bin/python)")
    env_note = "PYTHONDONTWRITEBYTECODE is set: every run compiles what changed" if os.environ.get(
        "PYTHONDONTWRITEBYTECODE") else ""
    cases = [["--help"]] + [[c, "--help"] for c in a.commands]
    once(["--help"])  # byte-code written, caches warm
    print(f"{'command':<22} {'fastest':>8} {'median':>8} {'cpu':>6}  heavy modules imported")
    for argv in cases:
        runs = [once(argv) for _ in range(a.runs)]
        walls = [w for w, _ in runs]
        best = min(runs)
        print(f"{' '.join(argv):<22} {best[0]:>7.3f}s {statistics.median(walls):>7.3f}s {best[1]:>5.2f}s  "
              f"{imported(argv)}")
    if env_note:
        print(env_note)


if __name__ == "__main__":
    main()
