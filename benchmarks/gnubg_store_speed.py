#!/usr/bin/env python3
"""``>bdb.store()`` beside gnubg's own ``relational add match``, in one gnubg.

    python benchmarks/gnubg_store_speed.py [--repeat R] [--selfplay N] [FILES...]

One ``gnubg -t -q`` process loads each match (the bundled 7-point match of
examples/ and N of the gnubg self-play matches of ``benchmarks/.cache/p0/``
that ``import_speed.py`` makes) and times, side by side, on the same loaded
match: gnubg's ``relational add match`` into a fresh SQLite relational
database (``relational setup dbtype=SQLite``, game statistics stored), and
``bdb.store()`` into a fresh gnubg-blunder database (its schema made before
the clock starts; its printed summary and review included, sent to
/dev/null).  Best of R each (default 3); the ratio store / relational add is
printed per match and for the total, and beside them the time of the call
``bdb.store()`` makes first, ``gnubg.match()`` (gnubg's C building the
match's Python dict), alone.

It is not a test: run it on demand.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
BUNDLED = ROOT / "examples" / "matches" / "charlot1-charlot2_7p_2025-11-08-2305.mat"

# Run inside gnubg's Python: gnubg's own commands through gnubg.command().
SCRIPT = r'''
import contextlib, io, json, os, sqlite3, sys, time
sys.path[:0] = %(paths)r
import gnubg
from gnubg_blunder.gnubg.console import Bdb
from gnubg_blunder.store import SQLiteStore

files, repeat, tmp, out = %(files)r, %(repeat)d, %(tmp)r, %(out)r
gnubg.command("set display off")
gnubg.command("relational setup dbtype=SQLite")
gnubg.command("relational setup storegamestats=yes")
rel_db = os.path.join(os.environ["HOME"], ".gnubg", "gnubg.db")
results = []
for k, f in enumerate(files):
    cmd = "import mat" if f.endswith(".mat") else "load match"
    gnubg.command('%%s "%%s"' %% (cmd, f))
    if f.endswith(".mat"):
        gnubg.command("analyse match")  # the bundled match is a .mat: gnubg's own analysis first
    rel, ours, dump = [], [], []
    for r in range(repeat):
        t0 = time.perf_counter()
        gnubg.match()  # what bdb.store() reads first (its defaults: analysis and boards)
        dump.append(time.perf_counter() - t0)
        if os.path.exists(rel_db):
            os.remove(rel_db)
        with contextlib.redirect_stdout(io.StringIO()):
            gnubg.command("relational test")  # makes the empty relational database (not timed)
        t0 = time.perf_counter()
        gnubg.command("relational add match")
        rel.append(time.perf_counter() - t0)
        n = sqlite3.connect(rel_db).execute("SELECT COUNT(*) FROM session").fetchone()[0]
        assert n == 1, "relational add match stored %%d sessions" %% n
        db = os.path.join(tmp, "bdb-%%d-%%d.db" %% (k, r))
        SQLiteStore(db).close()  # the schema made before the clock starts
        bdb = Bdb(db_path=db)
        with contextlib.redirect_stdout(io.StringIO()) as said:
            t0 = time.perf_counter()
            mid = bdb.store()
            ours.append(time.perf_counter() - t0)
        assert mid is not None, said.getvalue()[-500:]
    results.append({"file": f, "relational": rel, "store": ours, "match_dict": dump})
with open(out, "w") as fh:
    json.dump(results, fh)
'''


def site_packages() -> list:
    """This environment's package paths (gnubg's Python is the same version: tests/run makes it so)."""
    import site

    return [str(ROOT)] + [p for p in site.getsitepackages() if os.path.isdir(p)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="gnubg-analysed .sgf files (default: the bundled match and the cache)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best is shown (default 3)")
    ap.add_argument("--selfplay", type=int, default=24,
                    help="self-play matches of benchmarks/.cache/p0 to add (default 24; import_speed.py makes them)")
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                    help="where both sides' databases are written (default /dev/shm, memory: the disk's "
                         "flushes, which a busy machine makes slow for whichever side commits more often, stay "
                         "out of both figures)")
    args = ap.parse_args(argv)
    if not Path(GNUBG).exists():
        sys.exit(f"error: {GNUBG} not found (set GNUBG)")
    files = [str(Path(f).resolve()) for f in args.files]
    if not files:
        files = [str(BUNDLED)] + [str(p) for p in sorted((HERE / ".cache" / "p0").glob("m*-*.sgf"),
                                                       key=lambda p: int(p.stem[1:].split("-")[0]))][:args.selfplay]
    with tempfile.TemporaryDirectory(prefix="gnubg-store-bench-", dir=args.tmp) as td:
        home = Path(td) / "home"
        (home / ".gnubg").mkdir(parents=True)
        out = Path(td) / "out.json"
        script = Path(td) / "bench.py"
        script.write_text(SCRIPT % {"paths": site_packages(), "files": files, "repeat": args.repeat,
                                    "tmp": td, "out": str(out)}, encoding="utf-8")
        env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
        r = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                           env=env, timeout=3600, stdin=subprocess.DEVNULL)
        if not out.exists():
            sys.exit(f"error: gnubg did not finish:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        results = json.loads(out.read_text())
    print(f">bdb.store() beside gnubg's relational add match (SQLite), one gnubg process, best of {args.repeat}\n")
    print(f"{'match':<48} {'KiB':>6} {'relational ms':>14} {'store ms':>9} {'ratio':>6} {'gnubg.match() ms':>17}")
    tot_rel = tot_store = tot_dump = 0.0
    for res in results:
        rel, ours, dump = min(res["relational"]), min(res["store"]), min(res["match_dict"])
        tot_rel += rel
        tot_store += ours
        tot_dump += dump
        name = Path(res["file"]).name
        print(f"{name[:48]:<48} {Path(res['file']).stat().st_size / 1024:6.0f} {rel * 1e3:14.1f} "
              f"{ours * 1e3:9.1f} {ours / rel:6.2f} {dump * 1e3:17.1f}")
    print(f"{'total (' + str(len(results)) + ' matches)':<48} {'':>6} {tot_rel * 1e3:14.1f} {tot_store * 1e3:9.1f} "
          f"{tot_store / tot_rel:6.2f} {tot_dump * 1e3:17.1f}")
    print(f"\nratio >bdb.store() / relational add match: {tot_store / tot_rel:.2f} (goal: at most 1.0)")
    print(f"gnubg.match() alone (gnubg's C making the dict bdb.store() reads) / relational add match: "
          f"{tot_dump / tot_rel:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
