#!/usr/bin/env python3
"""``>bdb.store()`` into an empty and into a 10,000-match database, beside
gnubg's own ``relational add match``, in one gnubg.

    python benchmarks/gnubg_store_speed.py [--repeat R] [--big DB] [--selfplay N]
        [--postgres URL [--pg-big NAME] [--pg-empty NAME]] [FILES...]

One ``gnubg -t -q`` process loads each match (default: the bundled 7-point
match of examples/, imported and analysed by gnubg, and the 31-point match
and the money session of the self-play matches of ``benchmarks/.cache/p0/``
that ``import_speed.py`` makes; ``--selfplay N``: N of those instead) and
times, R times each (default 10), on the same loaded match: gnubg's
``relational add match`` into a fresh SQLite relational database,
``gnubg.match()`` alone (the call ``bdb.store()`` makes first), and
``bdb.store()`` into a fresh empty gnubg-blunder database (its schema made
before the clock) and into a fresh copy of the 10,000-match synthetic
database (``make_synthetic_db.py 10000``, cached in benchmarks/.cache).  The
legal-play cache is cleared before each timed store (board/moves.py
``clear_cache``): every store is a cold one, as a player's first store of a
match is.  The printed summary and review are included (sent nowhere).

Each store is one later in a gnubg session: the file's integrity check,
which runs once per file and process (docs/reliability.md), is made before
the clock and timed apart ("check").  Printed per match: the median and the
slowest of the R stores into each database, the ratio of the medians
(goal: at most 1.3), the medians of relational add and gnubg.match(); then
the phases of one more store of the 31-point match (or the longest) into
the big database.

With ``--postgres URL`` (a database of a server on which this user may
create databases), the same rounds also store into PostgreSQL: into a fresh
copy of an empty database and of the one holding the big database's copy
(``--pg-big``, default ``big10k``, filled by ``gnubg-blunder copy --from BIG
--to …/big10k``), each copy made by the server (``CREATE DATABASE … TEMPLATE
… STRATEGY FILE_COPY``, before the clock), and the phases of one more store
into the big one.  The big database (SQLite and PostgreSQL) is brought to
this code's schema once, before any copy.

It is not a test: run it on demand, ``nice``.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
BUNDLED = ROOT / "examples" / "matches" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.mat"

# Run inside gnubg's Python: gnubg's own commands through gnubg.command().
SCRIPT = r'''
import contextlib, gc, io, json, os, shutil, sqlite3, statistics, sys, time
sys.path[:0] = %(paths)r
import gnubg
from gnubg_blunder.board.moves import clear_cache
from gnubg_blunder.gnubg.console import Bdb
from gnubg_blunder.importers.gnubg_match import match_from_dict
from gnubg_blunder.database import SQLiteStore

files, repeat, tmp, out, big, pg = %(files)r, %(repeat)d, %(tmp)r, %(out)r, %(big)r, %(pg)r
kinds = ("empty", "big") + (("pg_empty", "pg_big") if pg else ())
gnubg.command("set display off")
gnubg.command("relational setup dbtype=SQLite")
gnubg.command("relational setup storegamestats=yes")
rel_db = os.path.join(os.environ["HOME"], ".gnubg", "gnubg.db")


def fresh(kind, name):
    if kind.startswith("pg_"):
        # a fresh copy of the template database, made by the server (its files copied): CREATE DATABASE ... TEMPLATE
        import psycopg
        with psycopg.connect(pg["admin"], autocommit=True) as admin:
            admin.execute("CREATE DATABASE %%s TEMPLATE %%s STRATEGY FILE_COPY" %% (name, pg[kind]))
        return pg["url"] %% name
    db = os.path.join(tmp, name)
    if kind == "empty":
        SQLiteStore(db).close()  # the schema made before the clock starts
    else:
        shutil.copyfile(big, db)
    return db


def checked_before(db, match):
    # the once-a-process integrity check (store/check.py), made before the clock: timed apart
    # (PostgreSQL: no check; the first connection and the schema's look-up, timed apart the same way)
    from gnubg_blunder.database import open_store
    t0 = time.perf_counter()
    with open_store(db) as st:
        st.analysis_stored(match)
    return time.perf_counter() - t0


def drop(db):
    if db.startswith("postgresql:"):
        import psycopg
        with psycopg.connect(pg["admin"], autocommit=True) as admin:
            admin.execute("DROP DATABASE %%s WITH (FORCE)" %% db.rsplit("/", 1)[1])
        return
    for s in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.remove(db + s)


results = []
for k, f in enumerate(files):
    cmd = "import mat" if f.endswith(".mat") else "load match"
    gnubg.command('%%s "%%s"' %% (cmd, f))
    if f.endswith(".mat"):
        gnubg.command("analyse match")  # the bundled match is a .mat: gnubg's own analysis first
    probe = match_from_dict(gnubg.match(), source_path=None)
    res = {"file": f, "relational": [], "match_dict": []}
    for kind in kinds:
        res[kind], res["check_" + kind] = [], []
    for r in range(repeat):
        clear_cache()
        t0 = time.perf_counter()
        gnubg.match()
        res["match_dict"].append(time.perf_counter() - t0)
        if os.path.exists(rel_db):
            os.remove(rel_db)
        with contextlib.redirect_stdout(io.StringIO()):
            gnubg.command("relational test")  # makes the empty relational database (not timed)
        t0 = time.perf_counter()
        gnubg.command("relational add match")
        res["relational"].append(time.perf_counter() - t0)
        n = sqlite3.connect(rel_db).execute("SELECT COUNT(*) FROM session").fetchone()[0]
        assert n == 1, "relational add match stored %%d sessions" %% n
        for kind in kinds:
            db = fresh(kind, ("bdb-%%d-%%d-%%s.db" if kind in ("empty", "big") else "bdb_%%d_%%d_%%s") %% (k, r, kind))
            res["check_" + kind].append(checked_before(db, probe))
            bdb = Bdb(db_path=db)
            clear_cache()
            gc.collect()
            with contextlib.redirect_stdout(io.StringIO()) as said:
                t0 = time.perf_counter()
                mid = bdb.store()
                res[kind].append(time.perf_counter() - t0)
            assert mid is not None, said.getvalue()[-500:]
            drop(db)
    results.append(res)

# the phases of one more store of the longest match into the big database (what bdb.store() does, in order)
f = max(files, key=lambda f: os.path.getsize(f) if not f.endswith(".mat") else 0)
gnubg.command('load match "%%s"' %% f)
from gnubg_blunder.pipeline import describe, store_match
from gnubg_blunder.views.review import match_review_text

names = ["gnubg.match()", "match_from_dict (build)", "open the store", "add_match", "summary (post_analysis hooks)",
         "describe + review"]


def phases_of(kind):
    db = fresh(kind, "phases.db" if kind == "big" else "bdb_phases")
    checked_before(db, match_from_dict(gnubg.match(), source_path=None))
    bdb = Bdb(db_path=db)
    ctx = bdb._ctx(summary=True)
    clear_cache()
    gc.collect()
    with contextlib.redirect_stdout(io.StringIO()):
        t = [time.perf_counter()]
        data = gnubg.match()
        t.append(time.perf_counter())
        match = match_from_dict(data, source_path=None)
        t.append(time.perf_counter())
        store = ctx.store()
        t.append(time.perf_counter())
        result = store.add_match(match)
        t.append(time.perf_counter())
        from gnubg_blunder.plugins import get_plugin_manager
        get_plugin_manager().hook.post_analysis(store=store, match=match, result=result, context=ctx)
        t.append(time.perf_counter())
        print(describe(match, result, store))
        print(match_review_text(store, result.match_id))
        t.append(time.perf_counter())
    ctx.close()
    drop(db)
    return [(n, b - a) for n, a, b in zip(names, t, t[1:])]


phases = {"file": f, "phases": phases_of("big")}
if pg:
    phases["pg_phases"] = phases_of("pg_big")
with open(out, "w") as fh:
    json.dump({"results": results, "phases": phases}, fh)
'''


def site_packages() -> list:
    """This environment's package paths (gnubg's Python is the same version: tests/run makes it so)."""
    import site

    return [str(ROOT)] + [p for p in site.getsitepackages() if os.path.isdir(p)]


def _ms(xs) -> str:
    return f"{statistics.median(xs) * 1e3:8.1f} {max(xs) * 1e3:8.1f}"


def postgres_templates(args) -> dict:
    """The server's URLs for the script: the admin one, a database's (``%s``: its name), the templates' names;
    the empty template made (the schema) when missing, the big one's matches counted."""
    import psycopg

    from gnubg_blunder.database import open_store

    base = args.postgres.rsplit("/", 1)[0]
    with psycopg.connect(args.postgres, autocommit=True) as admin:
        names = {n for (n,) in admin.execute("SELECT datname FROM pg_database")}
        for name in sorted(n for n in names if n.startswith("bdb_")):  # the copies a stopped run left
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        if args.pg_big not in names:
            sys.exit(f"error: no database {args.pg_big} on {base}: "
                     f"gnubg-blunder copy --from BIG --to {base}/{args.pg_big}")
        if args.pg_empty not in names:
            admin.execute(f"CREATE DATABASE {args.pg_empty}")
            open_store(f"{base}/{args.pg_empty}").close()
    for name in (args.pg_empty, args.pg_big):
        open_store(f"{base}/{name}").close()  # at this code's schema
    with psycopg.connect(f"{base}/{args.pg_big}") as conn:
        n = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        conn.execute("CHECKPOINT")  # the copy's pages on disk: CREATE DATABASE ... FILE_COPY copies files
    return {"admin": args.postgres, "url": base + "/%s", "pg_empty": args.pg_empty, "pg_big": args.pg_big,
            "big_matches": n}


def default_files(selfplay: int) -> list:
    """The bundled 7-point match, then the 31-point match and the money session of the self-play cache
    (or ``selfplay`` of its matches)."""
    cache = sorted((HERE / ".cache" / "p0").glob("m*-*.sgf"), key=lambda p: int(p.stem[1:].split("-")[0]))
    if selfplay:
        picked = cache[:selfplay]
    else:
        longest = [p for p in cache if p.stem.endswith("-31")][:1]
        money = [p for p in cache if p.stem.endswith("-0")][:1]
        picked = longest + money
    return [str(BUNDLED)] + [str(p) for p in picked]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="gnubg-analysed .sgf files (default: the bundled match, the 31-point "
                    "match and a money session of the cache)")
    ap.add_argument("--repeat", type=int, default=10, help="stores of each match into each database (default 10)")
    ap.add_argument("--selfplay", type=int, default=0,
                    help="N self-play matches of benchmarks/.cache/p0 instead of its 31-point and money ones")
    ap.add_argument("--big", default=str(HERE / ".cache" / "synthetic-10000.db"),
                    help="the big database copied before each store (default benchmarks/.cache/synthetic-10000.db, "
                         "made by make_synthetic_db.py 10000)")
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                    help="where the databases are written (default /dev/shm, memory: the disk's flushes stay out "
                         "of the figures)")
    ap.add_argument("--postgres", metavar="URL",
                    help="also store into PostgreSQL: URL of a database on a server this user may create databases "
                         "on (e.g. postgresql://bench@127.0.0.1:55432/postgres); --pg-big names the database holding "
                         "the big one's copy (gnubg-blunder copy --from BIG --to ...); each store goes into a fresh "
                         "copy made by the server (CREATE DATABASE ... TEMPLATE)")
    ap.add_argument("--pg-big", default="big10k", help="the PostgreSQL database holding the big one (default big10k)")
    ap.add_argument("--pg-empty", default="empty10k",
                    help="the PostgreSQL database copied for the empty stores, made with the schema if missing")
    args = ap.parse_args(argv)
    if not Path(GNUBG).exists():
        sys.exit(f"error: {GNUBG} not found (set GNUBG)")
    big = Path(args.big)
    if not big.exists():
        sys.exit(f"error: {big} not found: make it with benchmarks/make_synthetic_db.py 10000 (a while)")
    from gnubg_blunder.database import open_store

    open_store(str(big)).close()  # at this code's schema once, not an upgrade of every copy (before the clock)
    with sqlite3.connect(big) as con:  # one file to copy: its WAL written into it
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        n_big = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    files = [str(Path(f).resolve()) for f in args.files] or default_files(args.selfplay)
    pg = postgres_templates(args) if args.postgres else None
    with tempfile.TemporaryDirectory(prefix="gnubg-store-bench-", dir=args.tmp) as td:
        home = Path(td) / "home"
        (home / ".gnubg").mkdir(parents=True)
        out = Path(td) / "out.json"
        script = Path(td) / "bench.py"
        script.write_text(SCRIPT % {"paths": site_packages(), "files": files, "repeat": args.repeat,
                                    "tmp": td, "out": str(out), "big": str(big.resolve()), "pg": pg},
                          encoding="utf-8")
        env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
        r = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                           env=env, timeout=7200, stdin=subprocess.DEVNULL)
        if not out.exists():
            sys.exit(f"error: gnubg did not finish:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        got = json.loads(out.read_text())
    results, phases = got["results"], got["phases"]
    print(f">bdb.store() into an empty and into a {n_big:,}-match database ({big.stat().st_size / 2**20:,.0f} MiB), "
          f"beside gnubg's relational add match (SQLite); one gnubg process, {args.repeat} stores of each match "
          f"into each (each into a fresh copy, the legal-play cache cleared); median and slowest, ms\n")
    print(f"{'match':<34} {'KiB':>5} {'empty med':>9} {'slowest':>8} {'big med':>8} {'slowest':>8} {'big/empty':>9} "
          f"{'relational':>10} {'gnubg.match()':>13} {'check empty':>11} {'check big':>9}")
    for res in results:
        med = {k: statistics.median(res[k]) for k in ("empty", "big", "relational", "match_dict", "check_empty",
                                                      "check_big")}
        name = Path(res["file"]).name
        print(f"{name[:34]:<34} {Path(res['file']).stat().st_size / 1024:5.0f} {_ms(res['empty'])} {_ms(res['big'])} "
              f"{med['big'] / med['empty']:9.2f} {med['relational'] * 1e3:10.1f} {med['match_dict'] * 1e3:13.1f} "
              f"{med['check_empty'] * 1e3:11.1f} {med['check_big'] * 1e3:9.1f}")
    print("\n(check: the integrity check a file gets once per process, before its first store; not in the stores)")
    if pg:
        print(f"\nPostgreSQL ({args.postgres.rsplit('/', 1)[0]}): the same stores into a fresh copy of an empty "
              f"database and of one holding {pg['big_matches']:,} matches (CREATE DATABASE ... TEMPLATE); median "
              "and slowest, ms\n")
        print(f"{'match':<34} {'empty med':>9} {'slowest':>8} {'big med':>8} {'slowest':>8} {'big/empty':>9} "
              f"{'open empty':>10} {'open big':>8}")
        for res in results:
            med = {k: statistics.median(res[k]) for k in ("pg_empty", "pg_big", "check_pg_empty", "check_pg_big")}
            print(f"{Path(res['file']).name[:34]:<34} {_ms(res['pg_empty'])} {_ms(res['pg_big'])} "
                  f"{med['pg_big'] / med['pg_empty']:9.2f} {med['check_pg_empty'] * 1e3:10.1f} "
                  f"{med['check_pg_big'] * 1e3:8.1f}")
        print("\n(open: a first store opened and asked whether the match is stored, before the clock)")
    for key, where in (("phases", "the big database"), ("pg_phases", "the big PostgreSQL database")):
        if key not in phases:
            continue
        print(f"\nphases of one more >bdb.store() of {Path(phases['file']).name} into {where}, ms:")
        total = 0.0
        for name, secs in phases[key]:
            total += secs
            print(f"  {name:<34} {secs * 1e3:9.1f}")
        print(f"  {'total':<34} {total * 1e3:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
