"""After a kill (issue 24, docs/reliability.md "After a kill"): `import
--jobs 2`, `check --repair` and `anki sync` killed with SIGKILL at random
moments of their work, each kill followed by the next run of the command.
Run on demand (not in the suite):

    .venv/bin/python benchmarks/kill_leftovers.py [--kills 20] [--seed 24]

For each command: an unkilled run is timed; then each trial starts the
command and kills it after a random delay within that time — counted from
its start, and again counted from the moment its temporary files appear
(the kills that leave something) — until the wanted number of kills landed
while it was running (at most four times as many tries, the window
narrowed after a miss).  Counted: the kills whose
processes (the command, its fork server, its reading workers, anything
carrying the trial's mark in its environment) were not all gone 1 s after
the kill; the kills that left files (in the trial's TMPDIR, or a rebuilt
file beside the database); the next runs that said they removed them; and
the files still there after the next run.  Each command runs with TMPDIR in
a folder of the benchmark's own (tests/tools/killed_runs.py)."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(HERE), str(HERE / "tools")]

from killed_runs import entries, kill_all, kill_when, padded_collection, processes_left, run  # noqa: E402

FIXTURES = HERE / "fixtures"
DATA = FIXTURES / "real"
ROOT = f"gnubg-blunder-{os.getuid()}"
REMOVED = "removed what a killed gnubg-blunder (process "


def _match_folder(work: Path) -> Path:
    folder = work / "matches"
    folder.mkdir()
    files = sorted((DATA / "sgf").glob("*.sgf")) + sorted((DATA / "xg").glob("*.xg")) \
        + sorted((FIXTURES / "sgf").glob("*.sgf")) + sorted((FIXTURES / "xg").glob("*.x*"))
    for copy in (1, 2, 3):
        for f in files:
            shutil.copy(f, folder / f"{copy}-{f.name}")
    return folder


def _damaged_db(work: Path) -> Path:
    from test_check import leaf_page, overwrite_page

    path = work / "damaged-original.db"
    res = run(("import", DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf",
               DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg",
               DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", DATA / "xg" / "match_with_comment.xg"),
              path, work)
    assert res.returncode == 0, res.stderr
    overwrite_page(path, leaf_page(path, "decisions_by_position"))
    return path


def _collection(work: Path) -> tuple:
    """(database, collection): our notes imported by Anki's backend, the
    collection made large (40 MB beside Anki's tables)."""
    import json

    from test_anki import FILES, REAL_XG

    db = work / "anki.db"
    assert run(("import", *(REAL_XG / f for f in FILES)), db, work).returncode == 0
    res = run(("--no-config", "anki", "export", "--errors", "--limit", "6", "--format", "json", work / "a.apkg"),
              db, work)
    assert json.loads(res.stdout)["notes"], res.stderr
    return db, padded_collection(work / "profile" / "collection.anki2", work / "a.apkg")


def _trials(name, kills, rng, prepare, leftovers, work, inside: bool):
    """Kill the command until ``kills`` kills landed while it ran (``inside``:
    while its temporary files existed, the delay counted from their
    appearing; else from the start); the counts."""
    tmpdir = work / f"tmp-{name}-{inside}"
    tmpdir.mkdir()
    db, args = prepare(0)
    t0 = time.monotonic()
    res = run(args, db, tmpdir)
    window = whole = time.monotonic() - t0
    assert entries(tmpdir) in ([], [ROOT]), entries(tmpdir)
    counts = {"command": name, "moments": "in the work" if inside else "from the start",
              "unkilled run (s)": round(window, 2), "tries": 0, "kills landed": 0,
              "processes left after 1 s": 0, "kills that left files": 0, "next run said removed": 0,
              "files left after the next run": 0, "next run failed": 0}
    trial = 0
    while counts["kills landed"] < kills and counts["tries"] < 4 * kills:
        trial += 1
        counts["tries"] += 1
        db, args = prepare(trial)
        ready = (lambda p: bool(leftovers(db, tmpdir))) if inside else (lambda p: True)
        got = kill_when(args, db, tmpdir, ready, delay=rng.uniform(0.0, window))
        left = processes_left(got["mark"], within=1.0)
        if left:
            counts["processes left after 1 s"] += 1
            kill_all(processes_left(got["mark"], within=10))
        if not got["landed"]:
            window *= 0.6  # ended before the kill: a narrower window
            continue
        window = min(window * 1.1, whole)  # landed: a wider one again, up to the whole run
        counts["kills landed"] += 1
        if leftovers(db, tmpdir):
            counts["kills that left files"] += 1
        again = run(args, db, tmpdir)
        said = again.stdout + again.stderr
        if REMOVED in said:
            counts["next run said removed"] += 1
        if again.returncode not in (0, 1) or "Traceback" in said:
            counts["next run failed"] += 1
        counts["files left after the next run"] += len(leftovers(db, tmpdir))
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20, help="kills landed inside the work, per command")
    ap.add_argument("--seed", type=int, default=24)
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    work = Path(tempfile.mkdtemp(prefix="kill-leftovers-"))
    try:
        def in_tmp(db, tmpdir):
            return [e for e in entries(tmpdir) if e != ROOT]

        folder = _match_folder(work)

        def import_run(i):
            db = work / "import" / f"{i}.db"
            db.parent.mkdir(exist_ok=True)
            return db, ("import", "--jobs", "2", folder)

        original = _damaged_db(work)

        def repair_run(i):
            db = work / "repair" / f"{i}" / "damaged.db"
            db.parent.mkdir(parents=True, exist_ok=True)
            if not db.exists():
                shutil.copy(original, db)
            return db, ("check", "--repair")

        def beside_db(db, tmpdir):
            return [n for n in os.listdir(db.parent) if ".rebuild-" in n] + in_tmp(db, tmpdir)

        anki_db, col = _collection(work)

        def sync_run(i):
            return anki_db, ("anki", "sync", col)

        rows = [_trials(name, opts.kills, rng, prepare, leftovers, work, inside)
                for name, prepare, leftovers in (("import --jobs 2", import_run, in_tmp),
                                                 ("check --repair", repair_run, beside_db),
                                                 ("anki sync", sync_run, in_tmp))
                for inside in (False, True)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    keys = list(rows[0])
    width = max(map(len, keys))
    for k in keys[:2]:
        print(f"{'' if k == 'command' else '':{width}}  " + "  ".join(f"{r[k]:>16}" for r in rows))
    for k in keys[2:]:
        print(f"{k:{width}}  " + "  ".join(f"{r[k]!s:>16}" for r in rows))
    bad = sum(r["processes left after 1 s"] + r["files left after the next run"] + r["next run failed"] for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
