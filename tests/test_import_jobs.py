"""``import --jobs N``: files read by several processes at once, stored in
their order by the importing one (pipeline._reads).  Everything an import
stores and says is the same as one process reading alone: each file's
line and its place, the errors of the files that cannot be imported, the
summary, and every stored row (the import times aside)."""

from __future__ import annotations

import sqlite3

from conftest import FIXTURES, needs_gnubg, run_cli

from gnubg_blunder.pipeline import PARALLEL_MIN_FILES

# real matches and fixtures, with files that fail among them (a Latin-1
# SGF, rules variants, one-position XG files, an empty file)
FILES = sorted((FIXTURES / "real" / "sgf").glob("*.sgf")) + sorted((FIXTURES / "sgf").glob("*.sgf")) \
    + sorted((FIXTURES / "real" / "xg").glob("*.xg")) + sorted((FIXTURES / "xg").glob("*.x*"))

TABLES = {
    "matches": "SELECT * FROM matches ORDER BY id",
    "games": "SELECT * FROM games ORDER BY match_id, game",
    "analyses": "SELECT id, match_id, source, source_path, engine, depth, depth_label, met FROM analyses ORDER BY id",
    "decisions": "SELECT * FROM decisions ORDER BY id",
    "decision_candidates": "SELECT * FROM decision_candidates ORDER BY decision_id",
    "rolls": "SELECT * FROM rolls ORDER BY analysis_id, game, seq",
}


def _rows(db) -> dict:
    con = sqlite3.connect(db)
    try:
        out = {}
        for name, sql in TABLES.items():
            cur = con.execute(sql)
            cols = [c[0] for c in cur.description]
            out[name] = [tuple(v for c, v in zip(cols, r) if c != "imported_at") for r in cur]
        return out
    finally:
        con.close()


def test_reading_in_several_processes_stores_and_says_the_same(tmp_path):
    empty = tmp_path / "empty.sgf"
    empty.write_bytes(b"")
    files = FILES[:6] + [empty] + FILES[6:]
    assert len(files) >= PARALLEL_MIN_FILES + 4
    one = run_cli("import", "--jobs", "1", *files, db=tmp_path / "one.db", check=False)
    many = run_cli("import", "--jobs", "3", *files, db=tmp_path / "many.db", check=False)
    assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout, one.stderr)
    assert one.returncode == 1 and "failed" in one.stdout.splitlines()[-1]
    assert one.stderr.count("error:") >= 3  # the files that fail fail the same way, in their place
    got, want = _rows(tmp_path / "many.db"), _rows(tmp_path / "one.db")
    assert len(want["matches"]) >= 10 and len(want["decisions"]) > 1000
    assert got == want
    # again: every file already stored, said in the same way
    again = run_cli("import", "--jobs", "3", *files, db=tmp_path / "many.db", check=False)
    assert "0 stored" in again.stdout.splitlines()[-1]


def test_jobs_must_be_a_number_of_processes(tmp_path):
    res = run_cli("import", "--jobs", "0", FILES[0], db=tmp_path / "t.db", check=False)
    assert res.returncode == 2 and res.stderr.strip() == "error: --jobs takes a number of processes, 1 or more"


@needs_gnubg
def test_inside_gnubg_a_folder_is_read_alone(tmp_path):
    """Inside gnubg, ``sys.executable`` is gnubg itself: ``>bdb("import
    FOLDER")`` of enough files to read in several processes reads them in
    gnubg's own Python, storing and saying what the command line does."""
    import os
    import shutil
    import subprocess

    folder = tmp_path / "matches"
    folder.mkdir()
    for f in FILES:
        shutil.copy(f, folder / f.name)
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_DB=str(tmp_path / "in.db"))
    run_cli("install-gnubg", env=env)
    out = subprocess.run(["/usr/games/gnubg", "-t", "-q"], input=f'>bdb("import {folder}")\n', capture_output=True,
                         text=True, env=env, timeout=300).stdout
    alone = run_cli("import", "--jobs", "1", folder, db=tmp_path / "cli.db", check=False)
    said = alone.stdout.splitlines()
    assert said[-1] in out and all(line in out for line in said)  # every stored line and the summary
    assert _rows(tmp_path / "in.db") == _rows(tmp_path / "cli.db")
