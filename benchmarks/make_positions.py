"""Make the board benchmark's data: every decision position of N real
7-point matches played by gnubg's bots (0-ply, noisy, so positions vary).

    python benchmarks/make_positions.py [N] [OUT]

Writes lines ``POSITION_ID D1 D2`` (gnubg's position ID of the board before
each roll, the roller on roll; the dice) to OUT (default
benchmarks/.cache/positions-<N>x7.txt).  One gnubg process; about 0.5 s a
match on this machine.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.gnubg.process import run_python  # noqa: E402

SCRIPT = r"""
import gnubg
for cmd in ("set display off", "set sound enable off", "set confirm new off", "set automatic roll on",
            "set automatic move on", "set automatic game on", "set rng mersenne", "set seed %(seed)d",
            "set player 0 gnubg", "set player 1 gnubg",
            "set player 0 chequerplay evaluation plies 0", "set player 1 chequerplay evaluation plies 0",
            "set player 0 chequerplay evaluation noise 0.06", "set player 1 chequerplay evaluation noise 0.03",
            "set player 0 cubedecision evaluation plies 0", "set player 1 cubedecision evaluation plies 0",
            "set threads 1"):
    gnubg.command(cmd)
out = open(%(out)r, "w")
for i in range(%(n)d):
    gnubg.command("new match 7")
    m = gnubg.match(analysis=0, boards=1)
    for g in m["games"]:
        for rec in g["game"]:
            if rec["action"] == "move" and "board" in rec:
                out.write("%%s %%d %%d\n" %% (rec["board"], rec["dice"][0], rec["dice"][1]))
out.close()
print("DONE")
"""


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / ".cache" / f"positions-{n}x7.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    res = run_python(SCRIPT % {"seed": 20261130, "n": n, "out": str(out)}, timeout=24 * 3600)
    if "DONE" not in res.stdout:
        sys.exit(f"gnubg failed: {res.stdout[-500:]} {res.stderr[-500:]}")
    lines = sum(1 for _ in open(out))
    print(f"{out}: {lines} positions from {n} matches in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
