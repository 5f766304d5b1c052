"""The 24-match gnubg self-play corpus the study half is measured on (and the
depth check and tilt after it): seeds 1-24 of ``tests/tools/gnubg-selfplay``,
1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15, 17, 19, 21, 25 and 31
points and 3 money sessions (issue 13's archive), made by gnubg once and kept
in ``benchmarks/.cache/p<P>/``.

    python benchmarks/selfplay_corpus.py [--plies P] [--db DB]

prints the files' paths, one a line; with ``--db`` also imports them into DB
(a new database; an existing one is left as it is).  About 2 minutes of gnubg
the first time at 0 plies.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SELFPLAY_TOOL = ROOT / "tests" / "tools" / "gnubg-selfplay"
CACHE = HERE / ".cache"
GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")

# seeds 1-24: 21 matches of 1 to 31 points and 3 money sessions
CORPUS_LENGTHS = (1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15, 17, 19, 21, 25, 31, 0, 0, 0)


def make_matches(n: int, length, plies: int, first_seed: int) -> list:
    """N analysed matches, seeds first_seed.., made by gnubg once and kept;
    ``length`` one length, or one a match."""
    out_dir = CACHE / f"p{plies}"
    files = []
    lengths = list(length) if isinstance(length, (list, tuple)) else [length] * n
    for seed, length in zip(range(first_seed, first_seed + n), lengths):
        sgf = out_dir / f"m{seed}-{length}.sgf"
        if not (sgf.exists() and sgf.stat().st_size > 0):
            print(f"making {sgf.relative_to(ROOT)} with gnubg (seed {seed}, {length} points, "
                  f"{plies}-ply analysis) ...", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            r = subprocess.run(
                ["bash", str(SELFPLAY_TOOL), str(out_dir), str(seed), str(length), str(plies)],
                capture_output=True, text=True, timeout=1800, env=dict(os.environ, GNUBG=GNUBG),
            )
            if r.returncode != 0 or not sgf.exists():
                sys.exit(f"error: gnubg-selfplay failed for seed {seed}:\n{r.stdout}{r.stderr}")
            print(f"  done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        files.append(sgf)
    return files


def corpus_files(plies: int = 0) -> list:
    """The corpus' 24 SGF files (made first where missing)."""
    return make_matches(len(CORPUS_LENGTHS), CORPUS_LENGTHS, plies, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plies", type=int, default=0, help="the analysis depth (default 0)")
    ap.add_argument("--db", help="import the corpus into this database (when it does not exist yet)")
    args = ap.parse_args(argv)
    files = corpus_files(args.plies)
    for f in files:
        print(f)
    if args.db and not Path(args.db).exists():
        r = subprocess.run([sys.executable, "-m", "gnubg_blunder", "--no-config", "--db", args.db, "import",
                            *map(str, files)], capture_output=True, text=True,
                           env=dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1"))
        print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr, file=sys.stderr)
        return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
