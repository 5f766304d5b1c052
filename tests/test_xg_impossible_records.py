"""XG records holding impossible values behind valid checksums (issue 24,
item 1): a point 64, 41 checkers, a die 32773, a move that goes nowhere.

The reader's checks pass (every CRC right: the files come from
``tests/fixtures/xg/xg_build.py: impossible_value_xg``) and the board code
refuses the value. Such a file is one line naming the file and the record,
the other files of the run are tried, the summary is printed, exit 1: in
``import``, ``convert`` and inside gnubg (``>bdb("import BAD GOOD")``).
Before, each ended the run with a ``ValueError`` traceback and stored nothing
of the files after it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import DATA, FIXTURES, needs_gnubg, run_cli, run_cli_inprocess, stored_matches

sys.path.insert(0, str(FIXTURES / "xg"))
import xg_build  # noqa: E402

GOOD = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"  # analysed by gnubg

# what the board code says of each value; the line adds the record: Move record 3 of game 1
CAUSES = {
    "from 64": "XG move (5, 4, 5, 2, 64, 0, 0, 0): 'from' 64 is not a point (0..23) or the bar (24)",
    "41 checkers": "more than 15 checkers for the player on roll (41)",
    "die 32773": "dice must be ints 1..6, got 6, 32773",
    "no forward move": "XG move (6, 5, 6, 1, 0, 0, 0, 0): (0, 0) does not move forward",
}


def _bad(tmp_path, case):
    bad = tmp_path / "bad.xg"
    bad.write_bytes(xg_build.impossible_value_xg(case))
    return bad



def test_the_cases_pass_the_readers_checks():
    from gnubg_blunder.importers.xg_format import parse_xg_bytes

    for case in CAUSES:
        xg = parse_xg_bytes(xg_build.impossible_value_xg(case), "bad.xg")  # no XgFormatError: the CRCs are right
        assert len(xg.games) == 1


@pytest.mark.parametrize("case", sorted(CAUSES))
def test_import_says_one_line_and_stores_the_next_file(case, tmp_path):
    bad, db = _bad(tmp_path, case), tmp_path / "t.db"
    res = run_cli_inprocess("import", bad, GOOD, db=db, check=False)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr + res.stdout
    err = res.stderr.splitlines()
    assert err == [f"{bad}: error: record 3 (game 1, Move): {CAUSES[case]}"], res.stderr
    out = res.stdout.splitlines()
    assert len(out) == 2 and out[0].startswith(f"{GOOD}: stored as match 1 (charlot1 vs charlot2"), res.stdout
    assert out[1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1


@pytest.mark.parametrize("case", sorted(CAUSES))
def test_convert_says_one_line(case, tmp_path):
    bad, out = _bad(tmp_path, case), tmp_path / "out.sgf"
    res = run_cli_inprocess("convert", bad, out, check=False)
    assert res.returncode == 1
    assert res.stderr.splitlines() == [f"error: {bad}: record 3 (game 1, Move): {CAUSES[case]}"], res.stderr
    assert res.stdout == "" and not out.exists()


def test_an_importers_bug_is_the_files_line_and_the_run_goes_on(tmp_path, monkeypatch):
    """No exception type from reading a file ends the run: an importer
    raising something no rule names (here a KeyError) is its file's line."""
    import gnubg_blunder.importers.xg as xg

    def broken(*args, **kwargs):
        raise KeyError("no such field")

    monkeypatch.setattr(xg, "build_match", broken)
    bad, db = tmp_path / "bad.xg", tmp_path / "t.db"
    bad.write_bytes((FIXTURES / "xg" / "v28.xg").read_bytes())
    res = run_cli_inprocess("import", bad, GOOD, db=db, check=False)
    assert res.returncode == 1
    assert res.stderr.splitlines() == [f"{bad}: error: cannot read the file (KeyError: 'no such field')"]
    assert res.stdout.splitlines()[-1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1


@needs_gnubg
def test_inside_gnubg_the_good_file_is_stored(tmp_path):
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = {"HOME": str(home), "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    import os

    env = dict(os.environ, **env)
    env.pop("XDG_DATA_HOME", None)
    db = tmp_path / "t.db"
    env["GNUBG_BLUNDER_DB"] = str(db)
    run_cli("install-gnubg", env=env)
    bad = _bad(tmp_path, "from 64")
    session = "\n".join([f'>bdb("import {bad} {GOOD}")', '>print("@@ end")', ""])
    res = subprocess.run(["/usr/games/gnubg", "-t"], input=session, capture_output=True, text=True, env=env,
                         timeout=300)
    out = res.stdout + res.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    assert f"{bad}: error: record 3 (game 1, Move): {CAUSES['from 64']}" in out, out
    assert f"{GOOD}: stored as match 1" in out, out
    assert "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed" in out, out
    assert "@@ end" in out
    assert stored_matches(db) == 1
