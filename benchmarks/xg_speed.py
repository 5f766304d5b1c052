"""XG import speed: parse, build and store time per .xg match (on demand).

    python benchmarks/xg_speed.py [FILE.xg ...]   (default: tests/fixtures/real/xg/*.xg)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.importers.build import build_match  # noqa: E402
from gnubg_blunder.importers.xg import source_from_xg  # noqa: E402
from gnubg_blunder.importers.xg_format import read_xg  # noqa: E402
from gnubg_blunder.database import SQLiteStore  # noqa: E402

REPEAT = 5


def main():
    files = [Path(a) for a in sys.argv[1:]] or sorted((HERE.parent / "tests" / "fixtures" / "real" / "xg").glob("*.xg"))
    print(f"{'file':<48} {'decisions':>9} {'parse ms':>9} {'build ms':>9} {'store ms':>9} {'total ms':>9}")
    totals = []
    for f in files:
        runs = []
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            xg = read_xg(f)
            t1 = time.perf_counter()
            match = build_match(source_from_xg(xg, str(f)))
            t2 = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp, SQLiteStore(Path(tmp) / "b.db") as st:
                t3 = time.perf_counter()
                st.add_match(match)
                t4 = time.perf_counter()
            runs.append((t1 - t0, t2 - t1, t4 - t3))
        parse, build, store = (statistics.median(r[i] for r in runs) for i in range(3))
        n = sum(1 for _ in match.decisions())
        totals.append(parse + build + store)
        print(f"{f.name[:48]:<48} {n:>9} {1e3 * parse:>9.1f} {1e3 * build:>9.1f} {1e3 * store:>9.1f} "
              f"{1e3 * (parse + build + store):>9.1f}")
    print(f"mean per .xg match: {1e3 * statistics.mean(totals):.1f} ms (median of {REPEAT} runs each)")


if __name__ == "__main__":
    main()
