"""Inside the real gnubg, as a new user meets it.

A temporary HOME (never the real ~/.gnubg): ``gnubg-blunder install-gnubg``,
start ``gnubg -t``, import a .mat, type ``>bdb.analyse()`` (0-ply, pinned);
the summary appears in gnubg's console and ``gnubg-blunder matches`` on the
default database shows the match with gnubg's own ``show statistics match``
figures of the same session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, needs_gnubg, run_cli
from gnubg_screen import parse_statistics as parse_gnubg_statistics

pytestmark = needs_gnubg

MAT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


@pytest.fixture()
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".gnubg").mkdir(parents=True)
    (h / ".gnubg" / "gnubgrc").write_text("set sound enable off\n")  # a line of the user's, kept
    return h


def user_env(home):
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    env.pop("GNUBG_BLUNDER_DB", None)
    env.pop("XDG_DATA_HOME", None)
    return env


def test_install_gnubg_then_analyse_in_gnubg(home):
    env = user_env(home)
    res = run_cli("install-gnubg", env=env)
    assert "gnubg loads gnubg-blunder at start-up" in res.stdout
    rc = (home / ".gnubg" / "gnubgrc").read_text().splitlines()
    assert rc[0] == "set sound enable off"
    assert sum("gnubg_blunder_start.py" in line for line in rc) == 1
    run_cli("install-gnubg", env=env)  # twice: the line is added once
    assert sum("gnubg_blunder_start.py" in line for line in (home / ".gnubg" / "gnubgrc").read_text().splitlines()) == 1

    session = "\n".join([
        "set analysis chequerplay evaluation plies 0",
        "set analysis cubedecision evaluation plies 0",
        f'import mat "{MAT}"',
        ">bdb.analyse()",
        '>bdb("stats --player charlot1")',
        '>bdb("summary --help")',
        '>bdb("progression --help")',
        '>bdb("summary --player charlot1 --metric mwc7")',
        '>print("@@ store again")',
        ">bdb.store()",
        '>print("@@ review")',
        ">bdb.review()",
        '>print("@@ report")',
        ">print(bdb.report())",  # the match just stored: ~/gnubg-blunder-match-1.html
        '>print(bdb.report(match="all"))',  # the collection: ~/gnubg-blunder-report.html
        '>print("@@ end")',
        "show statistics match",
        "",
    ])
    out = subprocess.run(["/usr/games/gnubg", "-t"], input=session, capture_output=True, text=True,
                         env=env, timeout=600).stdout
    assert "gnubg-blunder loaded" in out
    assert "stored as match 1" in out
    assert "PR [95%]" in out and "charlot1" in out and "charlot2" in out  # the summary
    assert "Scope: player charlot1" in out  # bdb("stats ...")
    # the --metric help (its "%" once crashed argparse, inside gnubg too), and a view with it
    assert "usage: gnubg-blunder summary" in out and "usage: gnubg-blunder progression" in out
    assert "Traceback" not in out and "ValueError" not in out
    assert "Summary — scope: player charlot1" in out and "MWC-7 (L7)" in out
    screen = parse_gnubg_statistics(out[out.index("Player "):])
    # the match review after the figures (>bdb.analyse()), after >bdb.store() and from >bdb.review(),
    # its luck-adjusted result that of gnubg's screen
    first = out[:out.index("@@ store again")]
    assert first.index("PR [95%]") < first.index("Match review — match 1: charlot1 vs charlot2")
    assert first.count("Decision") and "Position ID:" in first and "Hasty vs considered: no durations" in first
    again = out[out.index("@@ store again"):out.index("@@ review")]
    assert "already stored" in again and "Match review — match 1" in again
    # once a session, after the first store: what our counts are beside gnubg's window, and how to set a
    # main player (none set) with the match's two names
    note = "decisions and PR are counted by XG's rules, not as gnubg's Match statistics window counts"
    howto = ('gnubg-blunder: no main player is set, so views without --player pool both sides; say whose '
             'database it is: >bdb("main-player charlot1") or >bdb("main-player charlot2")')
    assert out.count(note) == 1 and note in first and "docs/figures.md" in first
    assert out.count(howto) == 1 and howto in first
    figures = (Path(__file__).resolve().parent.parent / "docs" / "figures.md").read_text(encoding="utf-8")
    assert "## Our counts and gnubg's statistics window" in figures
    review = out[out.index("@@ review"):out.index("@@ report")]
    assert "Match review — match 1" in review
    for part in (first, again, review):
        for name in ("charlot1", "charlot2"):
            ref = screen[name]["overall:Luck adjusted result"]
            assert f"{name}\n  Luck-adjusted result {ref:+.2f} % MWC" in part, (name, ref)

    # the default database, the one the plugin wrote
    db = home / ".local" / "share" / "gnubg-blunder" / "gnubg-blunder.db"
    assert db.exists()
    matches = json.loads(run_cli("matches", "--format", "json", env=env).stdout)["matches"]
    assert len(matches) == 1 and matches[0]["source"] == "gnubg"
    for side in matches[0]["sides"]:
        ref, g = screen[side["player"]], side["gnubg"]
        assert g["unforced"] == ref["chequerplay:Unforced moves"]
        assert g["close_cube"] == ref["cube:Close or actual cube decisions"]
        assert g["error_emg"] == pytest.approx(-ref["overall:Error total EMG (MWC)"], abs=0.0015)
        assert g["mwc_loss"] == pytest.approx(-ref["overall:Error total EMG (MWC) paren"], abs=0.006)
        assert g["error_rate_memg"] == pytest.approx(-ref["overall:Error rate mEMG (MWC)"], abs=0.06)
        assert g["snowie_er"] == pytest.approx(-ref["overall:Snowie error rate"], abs=0.06)
        assert side["luck_emg"] == pytest.approx(ref["luck:Luck total EMG (MWC)"], abs=0.0015)
        assert side["luck_mwc"] == pytest.approx(ref["luck:Luck total EMG (MWC) paren"], abs=0.006)

    # >bdb.report() right after the store: that match's page, whose curve ends at each side's MWC lost;
    # match="all": the collection report
    said = out[out.index("@@ report"):out.index("@@ end")]
    page_path, collection_path = home / "gnubg-blunder-match-1.html", home / "gnubg-blunder-report.html"
    assert f"report of match 1 written to {page_path}" in said and f"report written to {collection_path}" in said
    page = page_path.read_text(encoding="utf-8")
    assert "<title>Match 1: charlot1 vs charlot2</title>" in page and "Match review — match 1" in page
    for side in matches[0]["sides"]:
        assert f'{side["player"]}: {side["mwc_loss"]:.2f} at the end</title>' in page
    transcript = page[page.index('<section id="transcript">'):]
    assert f"<h2>Transcript: {transcript.count('<tr') - 1} decisions</h2>" in transcript
    assert "<b>Scope:</b> every stored match" in collection_path.read_text(encoding="utf-8")


def test_store_refuses_an_unanalysed_match(home):
    env = user_env(home)
    run_cli("install-gnubg", env=env)
    session = f'import mat "{MAT}"\n>bdb.store()\n'
    out = subprocess.run(["/usr/games/gnubg", "-t"], input=session, capture_output=True, text=True,
                         env=env, timeout=300).stdout
    assert "has no analysis yet" in out
    assert not (home / ".local" / "share" / "gnubg-blunder" / "gnubg-blunder.db").exists() or \
        json.loads(run_cli("matches", "--format", "json", env=env).stdout)["matches"] == []


def test_analyse_command_runs_gnubg_headless(tmp_path):
    """``gnubg-blunder analyse`` = gnubg's import + analysis + our store; the
    figures equal gnubg's own screen after the same 0-ply analysis."""
    db = tmp_path / "a.db"
    res = run_cli("analyse", "--plies", "0", MAT, db=db, env={"HOME": str(tmp_path)})
    assert "[1/1]" in res.stdout and "analysed (0-ply)" in res.stdout and "stored as match 1" in res.stdout
    res2 = run_cli("analyse", "--plies", "0", MAT, db=db, env={"HOME": str(tmp_path)})
    assert "already stored" in res2.stdout
    from gnubg_blunder.gnubg.process import run_commands

    screen_text = run_commands(
        "set analysis chequerplay evaluation plies 0\nset analysis cubedecision evaluation plies 0\n"
        f'import mat "{MAT}"\nanalyse match\nshow statistics match\n'
    ).stdout
    screen = parse_gnubg_statistics(screen_text[screen_text.index("Player "):])
    m = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"][0]
    for side in m["sides"]:
        ref = screen[side["player"]]
        assert side["gnubg"]["unforced"] == ref["chequerplay:Unforced moves"]
        assert side["gnubg"]["error_emg"] == pytest.approx(-ref["overall:Error total EMG (MWC)"], abs=0.0015)


def test_analyse_reports_a_file_gnubg_cannot_load(tmp_path):
    bad = tmp_path / "broken.mat"
    bad.write_text("this is not a match file\n")
    res = run_cli("analyse", "--plies", "0", bad, db=tmp_path / "b.db", env={"HOME": str(tmp_path)}, check=False)
    assert res.returncode == 1
    assert str(bad) in res.stderr and "Traceback" not in res.stderr


# -- every bdb entry point: one line for any error, never a traceback ----------------

_LOCK_HOLDER = r"""
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode = EXCLUSIVE")  # readers are shut out too
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO meta(key, value) VALUES ('held', 'yes') ON CONFLICT(key) DO UPDATE SET value = 'yes'")
print("held", flush=True)
sys.stdin.readline()
"""


def _bad_databases(tmp_path) -> dict:
    import sqlite3

    dbs = {k: tmp_path / f"{k}.db" for k in ("damaged", "newer", "locked")}
    dbs["damaged"].write_bytes(bytes(range(256)) * 400)  # not a database
    con = sqlite3.connect(dbs["newer"])
    con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '999')")
    con.commit()
    con.close()
    run_cli("import", DATA / "xg" / "match_with_comment.xg", db=dbs["locked"])
    return dbs


def test_bdb_says_one_line_for_a_database_it_cannot_use(home, tmp_path):
    """Inside the real gnubg: a damaged database, one of a newer schema and
    one another process has locked: ``>bdb.store()``, ``>bdb.analyse()`` and
    ``>bdb("stats")`` each print one line, no traceback, and gnubg goes on
    (the same session then stores the match into a good database)."""
    env = user_env(home)
    run_cli("install-gnubg", env=env)
    dbs = _bad_databases(tmp_path)
    good = tmp_path / "good.db"
    sgf = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"  # analysed by gnubg
    lines = [
        "set analysis chequerplay evaluation plies 0",
        "set analysis cubedecision evaluation plies 0",
        f'load match "{sgf}"',
        '>import os; os.environ["GNUBG_BLUNDER_BUSY_TIMEOUT"] = "1"',
    ]
    calls = {"store": ">bdb.store()", "analyse": ">bdb.analyse()", "stats": '>bdb("stats")'}
    for kind, db in dbs.items():
        lines.append(f'>os.environ["GNUBG_BLUNDER_DB"] = {str(db)!r}')
        for name, call in calls.items():
            lines += [f'>print("@@ {kind} {name}")', call]
    lines += [f'>os.environ["GNUBG_BLUNDER_DB"] = {str(good)!r}', '>print("@@ good store")', ">bdb.store()",
              '>print("@@ end")', ""]
    holder = subprocess.Popen([sys.executable, "-c", _LOCK_HOLDER, str(dbs["locked"])],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        res = subprocess.run(["/usr/games/gnubg", "-t"], input="\n".join(lines), capture_output=True, text=True,
                             env=env, timeout=300)
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    said = {}
    for block in out.split("@@ ")[1:]:
        head, *rest = block.splitlines()
        said[head.strip()] = [ln for ln in rest if ln.strip() and not ln.startswith("(gnubg)")]
    words = {"damaged": "file is not a database", "newer": "newer than this gnubg-blunder",
             "locked": "database is locked"}
    for kind in dbs:
        for name in calls:
            got = said.get(f"{kind} {name}")
            assert got is not None and len(got) == 1, (kind, name, got, out)
            assert words[kind] in got[0] and str(dbs[kind]) in got[0], (kind, name, got)
    assert "more than 1 s" in said["locked store"][0] and "gnubg" in said["locked store"][0]
    assert any("stored as match 1" in ln for ln in said["good store"]), said["good store"]
    assert "end" in said


def test_bdb_watch_runs_beside_gnubg_and_its_lines_are_said(home, tmp_path):
    """``>bdb.watch(FOLDER)``: the watch runs beside gnubg (a process of its
    own: gnubg's Python runs no thread of ours while gnubg waits), a match
    saved into the folder is stored with its line, ``stop=True`` ends it
    with its counts; the match is in the default database."""
    from conftest import FIXTURES

    env = user_env(home)
    run_cli("install-gnubg", env=env)
    folder = tmp_path / "watched"
    folder.mkdir()
    sgf = FIXTURES / "selfplay" / "m1-7.sgf"
    db = home / ".local" / "share" / "gnubg-blunder" / "gnubg-blunder.db"
    # gnubg's Python waits (polling) for the watcher's database, then for the stored match
    wait = ("import os, sqlite3, time\ndef wait(ready, end):\n    while time.time() < end and not ready():\n"
            "        time.sleep(0.2)\ndef stored():\n    try:\n        return sqlite3.connect({db!r}).execute("
            "'select count(*) from matches').fetchone()[0] > 0\n    except sqlite3.Error:\n        return False\n")
    script = tmp_path / "wait.py"
    script.write_text(wait.format(db=str(db)))
    session = "\n".join([
        f">exec(open({str(script)!r}).read())",
        f">bdb.watch({str(folder)!r}, settle=0.3)",
        f">wait(lambda: os.path.exists({str(db)!r}), time.time() + 20); time.sleep(1)",
        f">import shutil; shutil.copy({str(sgf)!r}, {str(folder / 'm1-7.sgf')!r}); "
        "wait(stored, time.time() + 30); time.sleep(1)",
        ">bdb.watch(stop=True)",
        ">bdb.watch(stop=True)",
        "",
    ])
    out = subprocess.run(["/usr/games/gnubg", "-t"], input=session, capture_output=True, text=True,
                         env=env, timeout=120).stdout
    assert f"watching {folder} beside gnubg (process " in out
    assert "m1-7.sgf: stored as match 1" in out, out[-2000:]
    assert "watch stopped: 1 stored" in out
    assert "gnubg-blunder: the watch is stopped" in out and "gnubg-blunder: no watch is running" in out
    matches = json.loads(run_cli("matches", "--format", "json", env=env).stdout)["matches"]
    assert [sorted(s["player"] for s in m["sides"]) for m in matches] == [["Strongbot", "Weakbot"]]
    assert "start-up: 0 match files already in the folder" in out  # the match came while the watch ran
