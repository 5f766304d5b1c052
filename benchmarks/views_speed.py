"""Views at scale: time and peak memory of `summary`, `players` and the HTML
report on a synthetic database of 10,000 matches (run on demand).

    python benchmarks/make_synthetic_db.py 10000     # once (about 2 minutes)
    python benchmarks/views_speed.py [DB]

Each command runs as the user runs it (a fresh process, the `gnubg-blunder`
of this environment); wall time and peak resident memory come from GNU time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "gnubg_blunder"]
COMMANDS = [
    ("stats", ["stats"]),
    ("summary", ["summary"]),
    ("players", ["players"]),
    ("summary, one player", ["summary", "--player", "Player 07"]),
    ("report", ["report", "--html", "{tmp}/report.html"]),
]


def main():
    db = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / ".cache" / "synthetic-10000.db"
    if not db.exists():
        sys.exit(f"{db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull)
    env["PYTHONPATH"] = str(HERE.parent)
    # a first read builds the per-analysis array cache if the database has none
    subprocess.run(CLI + ["--db", str(db), "stats"], env=env, capture_output=True)
    print(f"{db.name} ({db.stat().st_size / 1e6:.0f} MB)")
    print(f"{'command':<22} {'seconds':>8} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, args in COMMANDS:
            args = [a.format(tmp=tmp) for a in args]
            res = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + CLI + ["--db", str(db)] + args,
                                 env=env, capture_output=True, text=True)
            if res.returncode != 0:
                print(f"{label:<22} failed: {res.stderr.strip().splitlines()[-1] if res.stderr else ''}")
                continue
            secs, kb = res.stderr.strip().splitlines()[-1].split()
            print(f"{label:<22} {float(secs):>8.1f} {int(kb) / 1024:>8.0f}")
        size = Path(tmp, "report.html").stat().st_size if Path(tmp, "report.html").exists() else 0
        print(f"report size: {size / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
