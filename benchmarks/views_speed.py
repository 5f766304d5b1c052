"""Views at scale: time and peak memory of `stats`, `summary`, `players`
and the HTML report over 10,000 matches, beside an earlier commit's code on
the same data (run on demand; issue 13 compares with commit 7d10bce).

    python benchmarks/make_synthetic_db.py 10000     # once (about 3 minutes)
    python benchmarks/views_speed.py [DB] [--baseline REV] [--repeat R]
    python benchmarks/views_speed.py [DB] --postgres postgresql://USER@HOST/DBNAME

With ``--postgres URL`` the same commands run on DB and on the PostgreSQL
database URL side by side, with the ratio PostgreSQL / SQLite (issue 14:
at most 2); an empty PostgreSQL database is filled first with
``gnubg-blunder copy --from DB --to URL`` (timed, printed).

With ``--baseline REV`` the data is the database REV's own
``make_synthetic_db.py`` makes (built once into benchmarks/.cache/, from the
same positions file): REV's code reads it as it is, this code reads a copy
upgraded by this code's schema steps (the upgrade, the cache build and a
VACUUM are done first and not timed).  Each command runs as the user runs it
(a fresh process of ``python -m gnubg_blunder``); wall time and peak resident
memory come from GNU time, best of R runs (default 3).  The file sizes and
what the tables hold are printed last.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COMMANDS = [
    ("stats", ["stats"]),
    ("summary", ["summary"]),
    ("players", ["players"]),
    ("summary, one player", ["summary", "--player", "Player 07"]),
    ("report", ["report", "--html", "{tmp}/report.html"]),
]
GOALS = {"stats": 1.0, "summary": 1.0, "players": 1.0, "summary, one player": 1.0, "report": 5.0}
PEAK_GOAL_MB = 300


def timed(code_root: Path, db: Path, args: list, repeat: int, tmp: str) -> tuple:
    """(best seconds, peak MB of that run) of ``args`` run by the code at ``code_root``
    (its bytecode compiled first, as an installed package has it: with
    PYTHONDONTWRITEBYTECODE set, every run would compile what changed)."""
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull,
               PYTHONPATH=str(code_root))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code_root / "gnubg_blunder")],
                   stdout=subprocess.DEVNULL, check=False)
    best = None
    for _ in range(repeat):
        res = subprocess.run(["/usr/bin/time", "-f", "%e %M", sys.executable, "-m", "gnubg_blunder", "--db", str(db)]
                             + [a.format(tmp=tmp) for a in args], env=env, capture_output=True, text=True,
                             cwd=tmp)
        if res.returncode != 0:
            return None, (res.stderr.strip().splitlines() or ["failed"])[-1]
        secs, kb = res.stderr.strip().splitlines()[-1].split()
        if best is None or float(secs) < best[0]:
            best = (float(secs), int(kb) / 1024)
    return best


def used_mb(db: Path) -> list:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT name, SUM(pgsize) / 1e6 FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    finally:
        con.close()


def baseline_db(rev: str, positions: Path) -> tuple:
    """(worktree of REV, the database REV's generator makes), both kept in benchmarks/.cache/."""
    tree = HERE / ".cache" / f"worktree-{rev}"
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(tree), rev], check=True,
                       capture_output=True)
    db = tree / "benchmarks" / ".cache" / "synthetic-10000.db"
    if not db.exists():
        (tree / "benchmarks" / ".cache").mkdir(parents=True, exist_ok=True)
        shutil.copy(positions, tree / "benchmarks" / ".cache" / positions.name)
        env = dict(os.environ, PYTHONPATH=str(tree))
        subprocess.run([sys.executable, "benchmarks/make_synthetic_db.py", "10000"], cwd=tree, env=env, check=True)
    return tree, db


def fill_postgres(db: Path, url: str, tmp: str) -> None:
    """Copy the SQLite database into the PostgreSQL one when it holds no match (timed)."""
    import time

    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=os.devnull, PYTHONPATH=str(ROOT))
    count = subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", url, "matches", "--format", "json"],
                           env=env, capture_output=True, text=True, cwd=tmp)
    if count.returncode == 0 and '"id"' in count.stdout:
        return
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "gnubg_blunder", "copy", "--from", str(db), "--to", url], env=env,
                         capture_output=True, text=True, cwd=tmp)
    if res.returncode != 0:
        sys.exit(f"copy into PostgreSQL failed: {res.stderr.strip().splitlines()[-1:]}")
    print(f"copied {db.name} into PostgreSQL in {time.monotonic() - start:.0f} s: "
          + (res.stdout.strip().splitlines() or [""])[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", nargs="?", type=Path, default=HERE / ".cache" / "synthetic-10000.db")
    ap.add_argument("--baseline", metavar="REV", help="the commit to compare with, on the same data (e.g. 7d10bce)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--postgres", metavar="URL", help="a PostgreSQL database to time beside DB (filled from DB by "
                                                      "`copy` when empty)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="views-speed-"))
    try:
        sides = []
        if args.baseline:
            positions = max((HERE / ".cache").glob("positions-*x7.txt"), key=lambda p: p.stat().st_size)
            tree, data = baseline_db(args.baseline, positions)
            ours = work / "upgraded.db"
            shutil.copy(data, ours)
            print(f"data: {data.name} made by {args.baseline}'s generator ({data.stat().st_size / 1e6:.0f} MB)")
            print("upgrading a copy with this code (schema steps, array cache), then VACUUM: not timed ...")
            timed(ROOT, ours, ["stats"], 1, str(work))
            con = sqlite3.connect(ours)
            con.execute("VACUUM")
            con.close()
            sides = [(args.baseline, tree, data), ("now", ROOT, ours)]
        else:
            if not args.db.exists():
                sys.exit(f"{args.db}: not found (make it with benchmarks/make_synthetic_db.py 10000)")
            timed(ROOT, args.db, ["stats"], 1, str(work))  # a first read builds the array cache if there is none
            sides = [("now", ROOT, args.db)]
            if args.postgres:
                fill_postgres(args.db, args.postgres, str(work))
                timed(ROOT, args.postgres, ["stats"], 1, str(work))
                sides = [("sqlite", ROOT, args.db), ("postgres", ROOT, args.postgres)]
        head = f"{'command':<22}" + "".join(f" {label + ' s':>12} {label + ' MB':>12}" for label, _, _ in sides)
        print(head + (f" {'pg/sqlite':>10} {'goal':>5}" if args.postgres else f" {'goal s':>8}"))
        for name, cmd in COMMANDS:
            line = f"{name:<22}"
            times = []
            for _label, code, db in sides:
                secs, mb = timed(code, db, cmd, args.repeat, str(work))
                times.append(secs)
                line += f" {secs:>12.2f} {mb:>12.0f}" if secs is not None else f" {'failed: ' + str(mb)[:60]:>25}"
            if args.postgres:
                ratio = times[1] / times[0] if None not in times and times[0] else float("nan")
                print(line + f" {ratio:>10.2f} {2.0:>5.1f}", flush=True)
            else:
                print(line + f" {GOALS[name]:>8.1f}", flush=True)
        if not args.postgres:
            print(f"peak memory goal: {PEAK_GOAL_MB} MB")
        for label, _code, db in sides:
            if isinstance(db, str):  # a PostgreSQL database: its size on the server
                import psycopg

                with psycopg.connect(db) as con:
                    size = con.execute("SELECT pg_database_size(current_database())").fetchone()[0]
                print(f"\n{label}: {size / 1e6:.0f} MB on the server")
                continue
            size = db.stat().st_size / 1e6
            print(f"\n{label}: {db.name} {size:.0f} MB on disk; by table and index (MB):")
            for table, mb in used_mb(db)[:10]:
                print(f"  {table:<32} {mb:8.1f}")
        if len(sides) == 2 and not args.postgres:
            before, after = sides[0][2].stat().st_size, sides[1][2].stat().st_size
            print(f"\nfile: {after / 1e6:.0f} MB now / {before / 1e6:.0f} MB at {args.baseline} = {after / before:.2f}"
                  " (goal: at most 0.5)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
