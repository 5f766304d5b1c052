#!/usr/bin/env python3
"""How fast ``gnubg-blunder import`` is, beside gnubg loading the same files.

    python benchmarks/import_speed.py [N] [--plies P] [--length L] [--repeat R]
    python benchmarks/import_speed.py --issue13 [--repeat R]

Makes (or reuses) N real gnubg-analysed matches with
``tests/tools/gnubg-selfplay`` in ``benchmarks/.cache/p<P>/`` (``--issue13``:
the 24 matches of issue 13, 1 to 31 points and 3 money sessions, seeds 1-24)
and prints, first, the whole command beside gnubg:

* our whole command, ``python -m gnubg_blunder --db NEW import FILES...``
  (a fresh process and database: start-up included), best of R;
* gnubg's load + ``relational add match`` of each file (SQLite relational
  database, game statistics stored), one ``gnubg -t -q -r`` process, minus
  the same process with the relational set-up alone (gnubg's start-up
  removed from gnubg's side only), best of R; and gnubg's bare ``load
  match`` of the files, minus an empty start;
* the ratios: our command / gnubg's load + relational add (goal: at most
  1.0), and / gnubg's bare load;

then, per file and in total:

* our import time per match: parse + build + store into a fresh temporary
  database, in-process through the CLI's own code path
  (:func:`gnubg_blunder.pipeline.import_paths` with a
  :class:`gnubg_blunder.commands.Context`), best of R runs, with its split into
  parse + build (the importer's ``read``) and store (``store_match``, measured
  in a separate run);
* decisions per second of that import;
* the time gnubg itself takes to load the same files: one gnubg process
  running ``load match`` on all N files, minus an empty gnubg start (best of
  R each).

It is not a test: run it on demand.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SELFPLAY_TOOL = ROOT / "tests" / "tools" / "gnubg-selfplay"
CACHE = HERE / ".cache"
GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")


# issue 13's archive: the study half's self-play corpus (selfplay_corpus.py)
sys.path.insert(0, str(HERE))
from selfplay_corpus import CORPUS_LENGTHS as ISSUE13_LENGTHS, make_matches  # noqa: E402


# -- our import --------------------------------------------------------------

def _context(db_path):
    from gnubg_blunder.commands import Context

    ctx = Context(db_path=str(db_path), out=io.StringIO(), err=io.StringIO(), use_config=False)
    ctx.store()  # create the schema before the clock starts
    return ctx


def time_import_paths(files: list, tmp: Path, run: int) -> list:
    """Seconds per file of import_paths(ctx, [file]) into a fresh database."""
    from gnubg_blunder.pipeline import import_paths

    ctx = _context(tmp / f"import-{run}.db")
    times = []
    try:
        for f in files:
            t0 = time.perf_counter()
            status = import_paths(ctx, [f])
            times.append(time.perf_counter() - t0)
            first = ctx.out.getvalue().splitlines()[-2] if ctx.out.getvalue() else ""
            if status != 0 or "stored as match" not in first:
                sys.exit(f"error: import of {f} did not store it:\n{ctx.out.getvalue()}{ctx.err.getvalue()}")
    finally:
        ctx.close()
    return times


def time_split(files: list, tmp: Path, run: int) -> tuple:
    """(read seconds, store seconds, decisions) per file, in another fresh database."""
    from gnubg_blunder.pipeline import store_match
    from gnubg_blunder.plugins import importers

    table = importers()
    ctx = _context(tmp / f"split-{run}.db")
    reads, stores, decisions = [], [], []
    try:
        for f in files:
            t0 = time.perf_counter()
            matches = table[f.suffix.lower()].read(f)
            t1 = time.perf_counter()
            for m in matches:
                store_match(ctx, m)
            t2 = time.perf_counter()
            reads.append(t1 - t0)
            stores.append(t2 - t1)
            decisions.append(sum(sum(1 for _ in m.decisions()) for m in matches))
    finally:
        ctx.close()
    return reads, stores, decisions


# -- gnubg -------------------------------------------------------------------

def run_gnubg(commands: str) -> tuple:
    t0 = time.perf_counter()
    r = subprocess.run([GNUBG, "-t", "-q", "-r"], input=commands, capture_output=True, text=True, timeout=600)
    return time.perf_counter() - t0, r


def time_command(files: list, tmp: Path, repeat: int) -> float:
    """Best wall time of the whole ``gnubg-blunder import FILES`` command
    (a new process, a new database each run; the package's bytecode
    compiled first, as an installed package has it)."""
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS=os.environ.get("GNUBG_BLUNDER_NO_PLUGINS", "1"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "gnubg_blunder")],
                   stdout=subprocess.DEVNULL, check=False)
    best = None
    for r in range(repeat + 1):  # the first run warms the disk cache and is not counted
        db = tmp / f"command-{r}.db"
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "gnubg_blunder", "--no-config", "--db", str(db), "import",
                              *map(str, files)], capture_output=True, text=True, env=env, cwd=str(ROOT))
        t = time.perf_counter() - t0
        if res.returncode != 0 or f"{len(files)} stored" not in res.stdout:
            sys.exit(f"error: gnubg-blunder import failed:\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
        if r:
            best = t if best is None else min(best, t)
    return best


def run_gnubg_home(commands: str, home: Path) -> tuple:
    """gnubg with its own HOME (its relational database, ~/.gnubg/gnubg.db, fresh)."""
    import shutil

    shutil.rmtree(home, ignore_errors=True)
    (home / ".gnubg").mkdir(parents=True)
    t0 = time.perf_counter()
    r = subprocess.run([GNUBG, "-t", "-q", "-r"], input=commands, capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, HOME=str(home)))
    return time.perf_counter() - t0, r


RELATIONAL_SETUP = ("set display off\nrelational setup dbtype=SQLite\nrelational setup storegamestats=yes\n"
                    "relational test\n")


def time_gnubg_relational(files: list, tmp: Path, repeat: int) -> tuple:
    """(best start with the relational set-up alone, best start + load and
    ``relational add match`` of every file) in seconds."""
    import sqlite3

    add_cmds = RELATIONAL_SETUP + "".join(f'load match "{f}"\nrelational add match\n' for f in files)
    starts, adds = [], []
    run_gnubg_home(add_cmds, tmp / "gnubg-home")  # warm-up
    for _ in range(repeat):
        t, _r = run_gnubg_home(RELATIONAL_SETUP, tmp / "gnubg-home")
        starts.append(t)
        t, r = run_gnubg_home(add_cmds, tmp / "gnubg-home")
        adds.append(t)
        db = tmp / "gnubg-home" / ".gnubg" / "gnubg.db"
        n = sqlite3.connect(db).execute("SELECT COUNT(*) FROM session").fetchone()[0] if db.exists() else 0
        if n != len(files):
            sys.exit(f"error: gnubg's relational database holds {n} of {len(files)} matches:\n{r.stdout[-2000:]}"
                     f"{r.stderr[-2000:]}")
    return min(starts), min(adds)


def time_gnubg(files: list, repeat: int) -> tuple:
    """(best empty start, best start + load of all files) in seconds."""
    empty_cmds = "set display off\n"
    load_cmds = empty_cmds + "".join(f'load match "{f}"\n' for f in files)
    empties, loads = [], []
    run_gnubg(load_cmds)  # warm the disk cache and gnubg's own files
    for _ in range(repeat):
        t, _r = run_gnubg(empty_cmds)
        empties.append(t)
        t, r = run_gnubg(load_cmds)
        loads.append(t)
        shown = r.stdout.count("Position ID")
        if shown != len(files) or "No such file" in r.stdout + r.stderr:
            sys.exit(f"error: gnubg did not load every file ({shown} of {len(files)}):\n{r.stdout[-2000:]}"
                     f"{r.stderr[-2000:]}")
    return min(empties), min(loads)


# -- report ------------------------------------------------------------------

def table(rows: list, header: list, align: str) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def fmt(r):
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align))

    out = [fmt(cells[0]), "  ".join("-" * w for w in widths)]
    out += [fmt(r) for r in cells[1:-1]]
    out += ["  ".join("-" * w for w in widths), fmt(cells[-1])]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=5, help="number of matches (default 5)")
    ap.add_argument("--plies", type=int, default=0, help="gnubg analysis depth of the matches (default 0)")
    ap.add_argument("--length", type=int, default=7, help="match length (default 7; 0 = money session)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each measurement; the best is shown (default 5)")
    ap.add_argument("--first-seed", type=int, default=1, help="seed of the first match (default 1)")
    ap.add_argument("--issue13", action="store_true",
                    help="issue 13's 24 matches (1 to 31 points and money, seeds 1-24, 0-ply) instead of N")
    ap.add_argument("--whole-only", action="store_true", help="the whole-command comparison only (no per-file table)")
    ap.add_argument("--with-plugins", action="store_true",
                    help="load installed plugins too (default: built-in plugins only, as the test suite)")
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                    help="where both sides' databases are written (default /dev/shm, memory: the disk's "
                         "flushes, which a busy machine makes slow for whichever side commits more often, stay "
                         "out of both figures)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        ap.error("N and --repeat must be at least 1")
    if not args.with_plugins:
        os.environ["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    if not Path(GNUBG).exists():
        sys.exit(f"error: {GNUBG} not found (set GNUBG)")
    sys.path.insert(0, str(ROOT))

    if args.issue13:
        files = make_matches(len(ISSUE13_LENGTHS), ISSUE13_LENGTHS, args.plies, 1)
    else:
        files = make_matches(args.n, args.length, args.plies, args.first_seed)

    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-bench-", dir=args.tmp) as td:
        tmp = Path(td)
        ours = time_command(files, tmp, args.repeat)
        r_start, r_add = time_gnubg_relational(files, tmp, args.repeat)
    g_empty, g_load = time_gnubg(files, args.repeat)
    rel = max(r_add - r_start, 1e-9)
    bare = max(g_load - g_empty, 1e-9)
    size = sum(f.stat().st_size for f in files) / 1e6
    print(f"{len(files)} gnubg-analysed matches ({size:.1f} MB of SGF), best of {args.repeat}:")
    print(f"  our whole command (gnubg-blunder import, start-up included): {ours:.2f} s")
    print(f"  gnubg load + relational add match: {rel:.2f} s (start + set-up {r_start:.2f} s removed)")
    print(f"  gnubg bare load: {bare:.2f} s (empty start {g_empty:.2f} s removed)")
    print(f"  ratio to gnubg's load + relational add: {ours / rel:.2f} (goal: at most 1.0)")
    print(f"  ratio to gnubg's bare load: {ours / bare:.2f}\n")
    if args.whole_only:
        return 0

    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-bench-") as td:
        tmp = Path(td)
        time_import_paths(files, tmp, -1)  # warm-up: lazy imports, disk cache
        runs = [time_import_paths(files, tmp, r) for r in range(args.repeat)]
        splits = [time_split(files, tmp, r) for r in range(args.repeat)]
    best = [min(r[i] for r in runs) for i in range(len(files))]
    med = [statistics.median(r[i] for r in runs) for i in range(len(files))]
    reads = [min(s[0][i] for s in splits) for i in range(len(files))]
    stores = [min(s[1][i] for s in splits) for i in range(len(files))]
    decisions = splits[0][2]
    g_empty, g_load = time_gnubg(files, args.repeat)
    g_total = max(g_load - g_empty, 0.0)

    import gnubg_blunder.plugins as plugins

    n_plugins = len(plugins.get_plugin_manager().get_plugins())
    rows = []
    for f, b, m, rd, st, d in zip(files, best, med, reads, stores, decisions):
        rows.append([f.name, f"{f.stat().st_size / 1024:.0f}", d, f"{rd * 1e3:.1f}", f"{st * 1e3:.1f}",
                     f"{b * 1e3:.1f}", f"{m * 1e3:.1f}", f"{d / b:,.0f}", ""])
    tot_b, tot_d = sum(best), sum(decisions)
    rows.append([f"total ({len(files)} matches)", f"{sum(f.stat().st_size for f in files) / 1024:.0f}", tot_d,
                 f"{sum(reads) * 1e3:.1f}", f"{sum(stores) * 1e3:.1f}", f"{tot_b * 1e3:.1f}",
                 f"{sum(med) * 1e3:.1f}", f"{tot_d / tot_b:,.0f}", f"{g_total * 1e3:.1f}"])
    length_text = "1 to 31 points and money" if args.issue13 else f"{args.length}-point"
    print(f"gnubg-blunder import speed: {len(files)} gnubg self-play matches, {length_text}, "
          f"{args.plies}-ply analysis (files in {CACHE.relative_to(ROOT)}/p{args.plies}/)")
    print(f"Python {sys.version.split()[0]}, {n_plugins} plugins loaded, best of {args.repeat} runs"
          f" (median column: median of {args.repeat})\n")
    print(table(rows, ["file", "KiB", "decisions", "parse+build ms", "store ms", "import ms",
                       "median ms", "decisions/s", "gnubg load ms"], "lrrrrrrrr"))
    print()
    print(f"our import: {tot_b / len(files) * 1e3:.1f} ms per match, {tot_d / tot_b:,.0f} decisions/s "
          f"(import ms = import_paths per file, parse+build and store measured in a separate run)")
    print(f"gnubg: empty start {g_empty * 1e3:.0f} ms, start + load {len(files)} files {g_load * 1e3:.0f} ms, "
          f"loading alone {g_total * 1e3:.1f} ms = {g_total / len(files) * 1e3:.1f} ms per match")
    if g_total > 0:
        print(f"ratio: our import takes {tot_b / g_total:.1f}x gnubg's load time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
