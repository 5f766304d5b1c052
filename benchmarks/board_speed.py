"""Board engine speed: legal moves and position features for every decision
position of real matches (run on demand; not a test).

    python benchmarks/board_speed.py [POSITIONS_FILE]

POSITIONS_FILE holds lines ``POSITION_ID D1 D2`` (default
benchmarks/.cache/positions-1000x7.txt, made by make_positions.py: every
roll of 1,000 seven-point matches played by gnubg's bots).  Prints the time
of each stage and the total, one process, cold caches.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.board import moves  # noqa: E402
from gnubg_blunder.board.position import Board  # noqa: E402


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / ".cache" / "positions-1000x7.txt"
    if not path.exists():
        sys.exit(f"{path}: not found (make it with benchmarks/make_positions.py)")
    start = time.perf_counter()
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    gc.disable()
    t0 = time.perf_counter()
    boards = {}
    data = []
    for pid, d1, d2 in rows:
        b = boards.get(pid)
        if b is None:
            b = boards[pid] = Board.from_position_id(pid)
        data.append((b, int(d1), int(d2)))
    t1 = time.perf_counter()
    plays = 0
    for b, d1, d2 in data:
        plays += moves.count_legal_plays(b, d1, d2)
    t2 = time.perf_counter()
    try:
        from gnubg_blunder.board.features import features
    except ImportError:
        features = None
    if features is not None:
        done = {}
        for b, _d1, _d2 in data:
            if b not in done:
                done[b] = features(b)
    t3 = time.perf_counter()
    gc.enable()
    n, unique = len(data), len({(b, min(d1, d2), max(d1, d2)) for b, d1, d2 in data})
    print(f"{path.name}: {n} positions, {len(boards)} distinct boards, {unique} distinct (board, roll)")
    print(f"  decode position IDs  {t1 - t0:7.2f} s")
    print(f"  legal moves          {t2 - t1:7.2f} s  ({plays} plays; {1e6 * (t2 - t1) / n:.1f} us a position)")
    if features is not None:
        print(f"  features             {t3 - t2:7.2f} s  ({1e6 * (t3 - t2) / max(1, len(done)):.1f} us a distinct board)")
    else:
        print("  features             (board.features not available)")
    print(f"  total                {t3 - t0:7.2f} s  (reading the file: {t0 - start:.2f} s)")


if __name__ == "__main__":
    main()
