"""``gnubg-blunder import``: the real charlot SGF, re-imports, folders, and
every kind of bad input (one line on stderr each, nothing stored for it).

The command runs in this process (``conftest.run_cli_inprocess``: the same
parser and commands) with installed plugins switched off; the tests marked
``e2e`` run it as a user does, in a separate process (``python -m
gnubg_blunder`` and the ``gnubg-blunder`` console script).  The transaction
test runs :func:`gnubg_blunder.commands.run` itself to make the store fail
midway.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import gnubg_available, needs_gnubg, run_cli_inprocess, without_progress
from transcript_files import backgammon_studio_txt

CHARLOT = "charlot1-charlot2_7p_2025-11-08-2305"
TABLES = ("matches", "games", "analyses", "decisions", "rolls")


# -- helpers -------------------------------------------------------------------

def cli(db, *args):
    """``gnubg-blunder --db DB ARGS`` in this process."""
    return run_cli_inprocess(*args, db=db, env={"GNUBG_BLUNDER_DB": None}, check=False)


def cli_process(db, *args, command=None, timeout=120):
    """The same in a separate process: ``python -m gnubg_blunder``, or
    ``command`` (the console script)."""
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
    env.pop("GNUBG_BLUNDER_DB", None)
    return subprocess.run(
        [*(command or [sys.executable, "-m", "gnubg_blunder"]), "--db", str(db), *map(str, args)],
        capture_output=True, text=True, env=env, timeout=timeout,
    )


def lines(text: str) -> list:
    return [ln for ln in text.splitlines() if ln.strip()]


def row_counts(db) -> dict:
    """Rows per table; all 0 when the database was never created."""
    db = Path(db)
    if not db.exists():
        return {t: 0 for t in TABLES}
    con = sqlite3.connect(str(db))
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()


def matches_json(db) -> list:
    r = cli(db, "matches", "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["matches"]


def winner_from_results(sgf_text: str, players) -> str:
    """Add the RE[] points of each game: the player who reaches 7 won."""
    points = {"W": 0, "B": 0}
    for colour, pts in re.findall(r"RE\[([WB])\+(\d+)", sgf_text):
        points[colour] += int(pts)
    assert max(points.values()) >= 7 and min(points.values()) < 7, points
    return players[0] if points["W"] >= 7 else players[1]


def assert_one_error_line(r, path: Path, *problem_words):
    """Non-zero exit, one stderr line naming the file and the problem, no traceback."""
    assert r.returncode != 0, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1, r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    assert path.name in err[0], err[0]
    low = err[0].lower()
    assert any(w.lower() in low for w in problem_words), err[0]
    # the stdout summary counts the failure
    assert "1 failed" in r.stdout, r.stdout
    return err[0]


@pytest.fixture(scope="module")
def charlot(shared_data) -> Path:
    return shared_data / "sgf" / f"{CHARLOT}.sgf"


# -- the real charlot match ----------------------------------------------------

@pytest.mark.e2e
def test_import_charlot(charlot, empty_db):
    """End to end: the import in a separate process."""
    r = cli_process(empty_db, "import", charlot)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    out = lines(r.stdout)
    assert len(out) == 2, r.stdout
    assert str(charlot) in out[0] and "stored" in out[0] and "already" not in out[0]
    assert re.match(r"1 file\b", out[1]) and "1 stored" in out[1] and "0 failed" in out[1], out[1]

    ms = matches_json(empty_db)
    assert len(ms) == 1
    m = ms[0]
    assert m["players"] == ["charlot1", "charlot2"]
    assert m["length"] == 7
    assert m["date"] == "2025-11-08"
    assert m["source"] == "sgf"
    assert m["winner"] == winner_from_results(charlot.read_text(encoding="utf-8"), m["players"]) == "charlot1"
    sides = m["sides"]
    assert [s["player"] for s in sides] == ["charlot1", "charlot2"]
    # gnubg's own `show statistics match` counts for this file
    assert [s["gnubg"]["unforced"] for s in sides] == [86, 66]
    assert [s["gnubg"]["close_cube"] for s in sides] == [5, 13]
    for s in sides:
        assert s["luck_emg"] is None  # the file's LU[] are all -inf: no luck data
        assert s["luck_rolls"] == 0
        assert s["mwc_loss"] is not None  # a 7-point match has MWC figures
    assert [s["won"] for s in sides] == [True, False]


@pytest.mark.e2e
def test_console_script(charlot, empty_db, tmp_path):
    """End to end: the ``gnubg-blunder`` console script as installed
    (pyproject.toml [project.scripts]): an import, a view in JSON, and the
    exit statuses of the process (0, 1 for a failed file, 2 for bad usage)."""
    script = Path(sys.executable).parent / "gnubg-blunder"
    assert script.exists(), f"{script}: the package is not installed in this environment (pip install -e .)"
    r = cli_process(empty_db, "import", charlot, command=[str(script)])
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "1 stored" in lines(r.stdout)[-1]
    r = cli_process(empty_db, "matches", "--format", "json", command=[str(script)])
    assert r.returncode == 0 and [m["players"] for m in json.loads(r.stdout)["matches"]] == [["charlot1", "charlot2"]]
    missing = tmp_path / "missing.sgf"
    r = cli_process(empty_db, "import", missing, command=[str(script)])
    assert r.returncode == 1 and len(lines(r.stderr)) == 1 and missing.name in r.stderr
    r = cli_process(empty_db, "matches", "--format", "yaml", command=[str(script)])
    assert r.returncode == 2 and len(lines(r.stderr)) == 1 and "Traceback" not in r.stderr
    r = cli_process(empty_db, command=[str(script)])
    assert r.returncode == 2 and "usage:" in r.stdout


def test_import_twice_is_already_stored(charlot, empty_db):
    first = cli(empty_db, "import", charlot)
    assert first.returncode == 0, first.stderr
    before = row_counts(empty_db)
    assert before["matches"] == 1 and before["decisions"] > 0 and before["rolls"] > 0

    again = cli(empty_db, "import", charlot)
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    out = lines(again.stdout)
    assert len(out) == 2
    assert str(charlot) in out[0] and "already stored" in out[0]
    assert "1 already stored" in out[1] and "0 stored" in out[1]
    assert row_counts(empty_db) == before


def test_import_folder(charlot, empty_db, tmp_path, selfplay):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(charlot, folder / charlot.name)
    shutil.copy(selfplay(1, 7), folder / "bot1.sgf")
    shutil.copy(selfplay(2, 7), folder / "sub" / "BOT2.SGF")  # sub-folder, upper-case suffix
    # not importable: ignored in a folder (not errors)
    shutil.copy(charlot.with_suffix(".mat"), folder / "charlot.mat")
    (folder / "notes.txt").write_text("not a match\n")

    r = cli(empty_db, "import", folder)
    assert r.returncode == 0, r.stderr
    assert without_progress(r.stderr) == ""
    out = lines(r.stdout)
    assert len(out) == 4, r.stdout
    named = out[:3]
    for name in (charlot.name, "bot1.sgf", "BOT2.SGF"):
        assert sum(name in ln for ln in named) == 1, (name, r.stdout)
    assert all("stored as match" in ln for ln in named), r.stdout
    assert re.match(r"3 files\b", out[3]) and "3 stored" in out[3] and "0 failed" in out[3]
    assert row_counts(empty_db)["matches"] == 3
    assert sorted(tuple(m["players"]) for m in matches_json(empty_db)) == sorted(
        [("charlot1", "charlot2"), ("Weakbot", "Strongbot"), ("Weakbot", "Strongbot")]
    )


# -- bad input -----------------------------------------------------------------

def _truncation_offsets():
    # inside the first game tree, in the middle of later ones, just before
    # the closing ')' (cuts exactly between two game trees would leave a
    # valid, unfinished match, so none is on such a boundary), and empty.
    return ["0", "1", "10", "100", "1000", "50000", "half", "-100", "-2"]


@pytest.mark.parametrize("cut", _truncation_offsets())
def test_truncated(charlot, empty_db, tmp_path, cut):
    data = charlot.read_bytes()
    n = {"half": len(data) // 2}.get(cut) or (len(data) + int(cut) if cut.startswith("-") else int(cut))
    bad = tmp_path / f"truncated-{cut}.sgf"
    bad.write_bytes(data[:n])
    r = cli(empty_db, "import", bad)
    msg = assert_one_error_line(r, bad, "not a readable SGF", "unterminated", "truncated", "empty")
    assert "None" not in msg, f"the message shows an unknown position: {msg}"
    assert row_counts(empty_db)["matches"] == 0


def _garble(data: bytes, seed: int, printable: bool) -> bytes:
    rng = random.Random(seed)
    b = bytearray(data)
    lo, hi = len(b) // 4, 3 * len(b) // 4
    if printable:  # a 64-byte run of plausible SGF characters (valid UTF-8)
        alphabet = (string.ascii_letters + string.digits + " .-+[]();").encode()
        i = rng.randrange(lo, hi - 64)
        for j in range(i, i + 64):
            b[j] = rng.choice(alphabet)
    else:  # 200 random bytes scattered over the middle half
        for _ in range(200):
            b[rng.randrange(lo, hi)] = rng.randrange(256)
    assert bytes(b) != data
    return bytes(b)


@pytest.mark.parametrize("printable", [False, True], ids=["bytes", "printable"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_garbled(charlot, empty_db, tmp_path, seed, printable):
    bad = tmp_path / f"garbled-{seed}.sgf"
    bad.write_bytes(_garble(charlot.read_bytes(), seed, printable))
    r = cli(empty_db, "import", bad)
    assert_one_error_line(r, bad, "not a readable SGF", "bad SGF value", "not legal", "error:")
    assert row_counts(empty_db)["matches"] == 0


def test_other_game(empty_db, tmp_path):
    go = tmp_path / "go-game.sgf"
    go.write_text("(;FF[4]GM[1]SZ[9]PB[Black]PW[White];B[ee];W[cc];B[gg])\n")
    r = cli(empty_db, "import", go)
    assert_one_error_line(r, go, "GM[1]", "not a backgammon")
    assert row_counts(empty_db)["matches"] == 0


@pytest.fixture(scope="module")
def unanalysed_sgf(shared_data, tmp_path_factory) -> Path:
    """The charlot .mat imported by the real gnubg and saved as SGF, unanalysed."""
    if not gnubg_available():
        pytest.skip("needs /usr/games/gnubg")
    mat = shared_data / "sgf" / f"{CHARLOT}.mat"
    d = tmp_path_factory.mktemp("unanalysed")
    out = d / "charlot-unanalysed.sgf"
    cmds = f'set confirm save off\nimport mat "{mat}"\nsave match "{out}"\n'
    gnubg = os.environ.get("GNUBG", "/usr/games/gnubg")
    subprocess.run([gnubg, "-t", "-q", "-r"], input=cmds, capture_output=True, text=True,
                   timeout=120, cwd=str(d))
    if not out.exists() or out.stat().st_size == 0:
        pytest.fail("gnubg did not save the match")
    text = out.read_text(encoding="utf-8")
    assert "GM[6]" in text and "PW[charlot1]" in text
    assert not re.search(r"(?<![A-Z])(A|DA)\[", text), "gnubg saved analysis: the file is not unanalysed"
    return out


@needs_gnubg
def test_no_analysis(unanalysed_sgf, empty_db):
    r = cli(empty_db, "import", unanalysed_sgf)
    assert_one_error_line(r, unanalysed_sgf, "no analysis")
    assert row_counts(empty_db)["matches"] == 0


def test_missing_file(empty_db, tmp_path):
    missing = tmp_path / "does-not-exist.sgf"
    r = cli(empty_db, "import", missing)
    assert_one_error_line(r, missing, "no such file", "not found", "does not exist")
    assert row_counts(empty_db)["matches"] == 0


def test_unknown_suffix(charlot, empty_db, tmp_path):
    txt = tmp_path / "charlot.txt"
    shutil.copy(charlot, txt)  # a valid match, but a suffix no importer claims
    r = cli(empty_db, "import", txt)
    assert_one_error_line(r, txt, "unknown file type", ".txt")
    assert row_counts(empty_db)["matches"] == 0


@pytest.mark.parametrize("bad_first", [True, False], ids=["bad-then-good", "good-then-bad"])
def test_bad_and_good_together(charlot, empty_db, tmp_path, bad_first):
    bad = tmp_path / "truncated.sgf"
    bad.write_bytes(charlot.read_bytes()[:5000])
    args = [bad, charlot] if bad_first else [charlot, bad]
    r = cli(empty_db, "import", *args)
    assert r.returncode == 1, (r.stdout, r.stderr)
    err = lines(r.stderr)
    assert len(err) == 1 and bad.name in err[0] and "Traceback" not in r.stderr, r.stderr
    out = lines(r.stdout)
    assert any(str(charlot) in ln and "stored as match" in ln for ln in out), r.stdout
    assert "1 stored" in out[-1] and "1 failed" in out[-1], out[-1]
    counts = row_counts(empty_db)
    assert counts["matches"] == 1
    assert [m["players"] for m in matches_json(empty_db)] == [["charlot1", "charlot2"]]


# -- one transaction per match -------------------------------------------------

def test_failure_midway_leaves_nothing(charlot, empty_db, tmp_path, monkeypatch):
    """The store fails after the match, games, analysis and decision rows are
    written: the whole match is rolled back, and a later import stores it."""
    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    from gnubg_blunder import plugins
    from gnubg_blunder.commands import Context, run
    from gnubg_blunder.store import SQLiteStore  # the class open_store makes: patched, not constructed

    plugins.reset_plugin_manager()  # built again without installed plugins

    original = SQLiteStore._insert_decisions
    calls = []

    def failing(self, analysis_id, match):
        original(self, analysis_id, match)  # decisions and rolls written ...
        n = self.conn.execute("SELECT COUNT(*) FROM decisions WHERE analysis_id=?", (analysis_id,)).fetchone()[0]
        calls.append(n)
        raise sqlite3.OperationalError("database or disk is full")  # ... then the disk fills up

    monkeypatch.setattr(SQLiteStore, "_insert_decisions", failing)
    import io

    out, err = io.StringIO(), io.StringIO()
    try:
        status = run(["--db", str(empty_db), "import", str(charlot)], Context(out=out, err=err))
    except sqlite3.Error:
        status = None  # a store error propagates (not a user error); what matters is what is left
    assert calls and calls[0] > 0, "the patched store step did not run midway"
    assert status != 0
    assert row_counts(empty_db) == {t: 0 for t in TABLES}

    monkeypatch.setattr(SQLiteStore, "_insert_decisions", original)
    out = io.StringIO()
    assert run(["--db", str(empty_db), "import", str(charlot)], Context(out=out, err=io.StringIO())) == 0
    assert "stored as match" in out.getvalue().splitlines()[0], out.getvalue()
    counts = row_counts(empty_db)
    assert counts["matches"] == 1 and counts["decisions"] == calls[0]
    plugins.reset_plugin_manager()


# -- help and messages: what the user is told ----------------------------------

def _run_here(*argv):
    """``gnubg-blunder ARGV`` in this process with the built-in plugins only:
    (status, stdout, stderr); argparse's --help goes to sys.stdout, caught too."""
    import contextlib
    import io

    from gnubg_blunder.commands import Context, run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = run([str(a) for a in argv], Context(out=out, err=err))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def builtin_plugins(monkeypatch):
    from gnubg_blunder import plugins

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    plugins.reset_plugin_manager()
    yield plugins.get_plugin_manager()
    plugins.reset_plugin_manager()


def test_import_help_lists_the_importers_suffixes(builtin_plugins):
    from gnubg_blunder.hookspecs import hookimpl

    status, out, _ = _run_here("import", "--help")
    assert status == 0
    flat = " ".join(out.split())
    for suffix in (".sgf", ".xg", ".xgp"):
        assert re.search(re.escape(suffix) + r"\b", flat), flat
    assert "gnubg-blunder analyse" in flat  # where a .mat goes

    class FooImporter:  # a plugin's importer: read from the registry, not a list in the code
        name = "foo-reader"
        extensions = (".foo",)

        def read(self, path, require_analysis=True):
            raise AssertionError("not called")

    class FooPlugin:
        @hookimpl
        def register_importers(self, register):
            register(FooImporter())

    builtin_plugins.register(FooPlugin(), name="foo-plugin")
    status, out, _ = _run_here("import", "--help")
    flat = " ".join(out.split())
    assert status == 0 and ".foo" in flat and "foo-reader" in flat, flat


def test_import_mat_says_use_analyse(charlot, tmp_path, builtin_plugins):
    mat = charlot.with_suffix(".mat")  # the bundled .mat of the same match
    assert mat.exists()
    db = tmp_path / "t.db"
    status, out, err = _run_here("--db", db, "import", mat)
    assert status == 1
    assert lines(err) == [f"{mat}: error: a match transcript (.mat) holds no analysis: use "
                          f"`gnubg-blunder --db {db} analyse {mat}` (gnubg analyses it, then it is stored)"], err
    assert "1 failed" in out
    assert row_counts(db)["matches"] == 0
    # a folder holding only .mat files says the same, once
    folder = tmp_path / "mats"
    folder.mkdir()
    shutil.copy(mat, folder / mat.name)
    status, out, err = _run_here("--db", db, "import", folder)
    assert status == 1
    assert lines(err) == [f"no importable files found in: {folder} (1 .mat file: match transcripts (.mat) hold no "
                          f"analysis: use `gnubg-blunder --db {db} analyse {folder}` (gnubg analyses them, then "
                          "stores them))"], err


def test_the_hint_of_a_transcript_carries_the_db_given_quoted(charlot, tmp_path, builtin_plugins):
    """Following the hint stores into the database the import was given
    (none given: none said, the default one); paths quoted for a shell.
    A .txt is a transcript by its first lines."""
    folder = tmp_path / "my matches"
    folder.mkdir()
    mat = Path(shutil.copy(charlot.with_suffix(".mat"), folder / "a.mat"))
    txt = backgammon_studio_txt(mat, folder / "b.txt")
    notes = folder / "notes.txt"
    notes.write_text("not a match\n", encoding="utf-8")
    db = tmp_path / "a db" / "t.db"
    db.parent.mkdir()
    status, out, err = _run_here("--db", db, "import", mat, txt, notes)
    assert status == 1
    assert lines(err) == [
        f"{mat}: error: a match transcript (.mat) holds no analysis: use "
        f"`gnubg-blunder --db '{db}' analyse '{mat}'` (gnubg analyses it, then it is stored)",
        f"{txt}: error: a match transcript (.txt) holds no analysis: use "
        f"`gnubg-blunder --db '{db}' analyse '{txt}'` (gnubg analyses it, then it is stored)",
        f"{notes}: error: unknown file type .txt (known: .sgf, .xg, .xgp)",
    ], err
    # no --db: the hint names none
    status, out, err = _run_here("import", mat)
    assert lines(err) == [f"{mat}: error: a match transcript (.mat) holds no analysis: use "
                          f"`gnubg-blunder analyse '{mat}'` (gnubg analyses it, then it is stored)"], err
    # a folder: its two transcripts said once, notes.txt is not a match file
    status, out, err = _run_here("--db", db, "import", folder)
    assert lines(err) == [f"no importable files found in: {folder} (2 .mat/.txt files: match transcripts "
                          f"(.mat/.txt) hold no analysis: use `gnubg-blunder --db '{db}' analyse '{folder}'` "
                          "(gnubg analyses them, then stores them))"], err
    # beside a match imported: the summary's note carries the --db too
    shutil.copy(charlot, folder / charlot.name)
    status, out, err = _run_here("--db", db, "import", folder)
    assert status == 0, err
    assert lines(out)[-1] == ("1 file: 1 stored, 0 analyses added, 0 already stored, 0 failed; 2 .mat/.txt files not "
                              f"imported (no analysis: use `gnubg-blunder --db '{db}' analyse FILE`)"), out


def test_already_stored_names_the_stored_players(tmp_path, builtin_plugins):
    # v24.xg and v08.xg hold the same match; v24 spells the players in Unicode,
    # v08 (ANSI names) otherwise: the second import names them as stored
    xg = Path(__file__).resolve().parent / "fixtures" / "xg"
    db = tmp_path / "t.db"
    status, out, err = _run_here("--db", db, "import", xg / "v24.xg")
    assert status == 0, err
    assert "Ünïcode Øne vs Jørgensen Ωmega" in out, out
    status, out, err = _run_here("--db", db, "import", xg / "v08.xg")
    assert status == 0, err
    first = lines(out)[0]
    assert "already stored" in first, first
    assert "Ünïcode Øne vs Jørgensen Ωmega" in first and "Ansi" not in first, first
