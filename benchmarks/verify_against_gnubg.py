"""Our stored depth check beside gnubg's own ``hint`` (SPEC §16, docs/verify.md).

    python benchmarks/verify_against_gnubg.py DB [--count N] [--player NAME]

For the N (default 5) costliest verified decisions of DB: the position,
our stored numbers at that depth, and what ``gnubg -t`` itself prints for
the same position at the same settings (its hint with its own move filter;
for a played move that filter prunes, the hint with every play kept).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gnubg_blunder.gnubg.process import run_commands  # noqa: E402
from gnubg_blunder.gnubg.verify import hint_commands, parse_hint, task_of  # noqa: E402
from gnubg_blunder.codec import candidates  # noqa: E402
from gnubg_blunder.store.verifications import targets  # noqa: E402


class _Conn:
    def __init__(self, path):
        self.conn = sqlite3.connect(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--count", type=int, default=5)
    args = ap.parse_args()
    store = _Conn(args.db)
    rows = store.conn.execute("SELECT v.decision_id, v.plies, v.error, v.best_move, v.nd, v.dt, v.dp, v.candidates, "
                              "v.played_index, d.error FROM verifications v JOIN decisions d ON d.id = v.decision_id "
                              "ORDER BY d.error DESC").fetchall()
    shown = 0
    for did, plies, error, best, nd, dt, dp, blob, played_index, first in rows:
        if shown >= args.count:
            break
        row = targets(store, [did])[0]
        task = task_of(row, plies)
        print(f"== decision {did}: match {row['match_id']} game {row['game'] + 1}, {row['kind']}, "
              f"position {task['position_id']}, first e {1000 * first:.1f} mpt, {plies}-ply e {1000 * error:.1f} mpt")
        if row["kind"] == "checker":
            ours = list(candidates.decode(blob, row["position_id"], (row["dice1"], row["dice2"])))
            print(f"   ours: played {row['played_move']} (index {played_index})")
            for c in ours[:6]:
                print(f"      {c['move']:<24} {c.get('depth') or '':>6}  {c['equity']:+.6f}")
            print(f"      played {ours[played_index]['move']:<17} {ours[played_index]['depth']:>6}  "
                  f"{ours[played_index]['equity']:+.6f}")
            for wide in (False, True):
                got = parse_hint(run_commands(hint_commands(task, wide)).stdout)
                print(f"   gnubg's own hint{' (every play kept)' if wide else ''}:")
                for move, p, eq in got["plays"][:6]:
                    print(f"      {move:<24} {p}-ply  {eq:+.3f}")
                mine = [x for x in got["plays"] if x[0] == ours[played_index]["move"]]
                if mine:
                    print(f"      played {mine[0][0]:<17} {mine[0][1]}-ply  {mine[0][2]:+.3f}")
        else:
            print(f"   ours: ND {nd:+.6f}  DT {dt:+.6f}  DP {dp:+.6f}; best {best}")
            got = parse_hint(run_commands(hint_commands(task)).stdout)
            print("   gnubg's own hint: " + "  ".join(f"{k} {v:+.3f}" for k, v in got["cube"].items()))
        shown += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
