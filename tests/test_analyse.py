"""``gnubg-blunder analyse FILE...`` with the real gnubg (issue 23): a match
whose analysis at the same depth is stored is said so before gnubg
analyses it; match transcripts are told by their first lines, so the
``.txt`` that Backgammon Studio, GridGammon and Galaxy write is analysed
like a ``.mat``.  Analyses at 0 or 1 ply: a second or two each."""

from __future__ import annotations

import json
import sqlite3

from conftest import DATA, needs_gnubg, run_cli_inprocess, without_progress
from transcript_files import backgammon_studio_txt

CHARLOT_MAT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"
CHARLOT = "charlot1 vs charlot2, 7-point match, 4 games"


def analyse(db, *args, env=None, check=True):
    return run_cli_inprocess("analyse", *args, db=db, env=env, check=check)


def analyses(db) -> list:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT match_id, engine, depth_label FROM analyses ORDER BY id").fetchall()
    finally:
        con.close()


@needs_gnubg
def test_a_stored_analysis_is_said_before_gnubg_analyses(tmp_path):
    db = tmp_path / "t.db"
    first = analyse(db, "--plies", "0", CHARLOT_MAT)
    assert first.stdout.splitlines()[0].startswith(f"[1/1] {CHARLOT_MAT}: analysed (0-ply) in "), first.stdout
    again = analyse(db, "--plies", "0", CHARLOT_MAT)
    # gnubg only loaded the file (its identity): no analysis ran, no row added
    assert again.stdout.splitlines() == [
        f"[1/1] {CHARLOT_MAT}: already stored (match 1: {CHARLOT}) with a gnubg 0-ply analysis: not analysed again",
        "1 file: 0 stored, 0 analyses added, 1 already stored, 0 failed"], again.stdout
    assert analyses(db) == [(1, "gnubg", "0-ply")]
    # another depth is analysed and added, as before
    deeper = analyse(db, "--plies", "1", CHARLOT_MAT)
    assert deeper.stdout.splitlines()[0].startswith(f"[1/1] {CHARLOT_MAT}: analysed (1-ply) in "), deeper.stdout
    assert f"analysis added as match 1 ({CHARLOT}; analysis gnubg 1-ply)" in deeper.stdout
    assert analyses(db) == [(1, "gnubg", "0-ply"), (1, "gnubg", "1-ply")]


@needs_gnubg
def test_an_imported_sgf_is_not_analysed_again_at_its_depth(tmp_path, selfplay):
    """The identity gnubg's load gives is the one the SGF importer stored."""
    sgf = selfplay(23, 3)  # analysed by gnubg at 0 plies
    db = tmp_path / "t.db"
    run_cli_inprocess("import", sgf, db=db)
    assert analyses(db) == [(1, "gnubg", "0-ply")]
    r = analyse(db, "--plies", "0", sgf)
    line = r.stdout.splitlines()[0]
    assert line.startswith(f"[1/1] {sgf}: already stored (match 1: ") and line.endswith(
        ") with a gnubg 0-ply analysis: not analysed again"), r.stdout
    assert analyses(db) == [(1, "gnubg", "0-ply")]


@needs_gnubg
def test_the_users_analysis_settings_say_the_depth(tmp_path):
    """Without --plies, gnubg's own settings (the user's gnubgrc) give the
    depth looked for: here 1 ply."""
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    (home / ".gnubg" / "gnubgrc").write_text("set analysis chequerplay evaluation plies 1\n"
                                             "set analysis cubedecision evaluation plies 1\n")
    db = tmp_path / "t.db"
    first = analyse(db, CHARLOT_MAT, env={"HOME": home})
    assert f"stored as match 1 ({CHARLOT}; analysis gnubg 1-ply)" in first.stdout, first.stdout
    again = analyse(db, CHARLOT_MAT, env={"HOME": home})
    assert again.stdout.splitlines()[0] == (f"[1/1] {CHARLOT_MAT}: already stored (match 1: {CHARLOT}) with a gnubg "
                                            "1-ply analysis: not analysed again"), again.stdout
    assert analyses(db) == [(1, "gnubg", "1-ply")]


@needs_gnubg
def test_a_txt_transcript_is_analysed_and_stored(tmp_path):
    txt = backgammon_studio_txt(CHARLOT_MAT, tmp_path / "bgstudio export.txt")
    db = tmp_path / "t.db"
    r = analyse(db, "--plies", "0", txt)
    assert r.stdout.splitlines()[0].startswith(f"[1/1] {txt}: analysed (0-ply) in "), r.stdout
    assert f"stored as match 1 ({CHARLOT}; analysis gnubg 0-ply)" in r.stdout
    (match,) = json.loads(run_cli_inprocess("matches", "--format", "json", db=db).stdout)["matches"]
    assert (match["players"], match["length"], match["games"]) == (["charlot1", "charlot2"], 7, 4)
    # the same match as its .mat: one match, one analysis
    r = analyse(db, "--plies", "0", CHARLOT_MAT)
    assert "already stored (match 1: " in r.stdout, r.stdout
    assert analyses(db) == [(1, "gnubg", "0-ply")]


@needs_gnubg
def test_a_txt_that_is_no_transcript_is_refused_in_one_line(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("Notes of the evening\n 7 point match against Bob\n", encoding="utf-8")
    db = tmp_path / "t.db"
    r = analyse(db, "--plies", "0", notes, check=False)
    assert r.returncode == 1
    assert without_progress(r.stderr).splitlines() == [
        f"[1/1] {notes}: error: not a match transcript: its first lines are not `; ` comments, then "
        "`N point match`, then `Game 1` (a .txt file is analysed when it holds a transcript; gnubg analyse takes "
        ".sgf files and match transcripts)"], r.stderr
    assert r.stdout.splitlines() == ["1 file: 0 stored, 0 analyses added, 0 already stored, 1 failed"]
    # in a folder, a .txt that holds no transcript is not a match file: the transcript beside it is analysed
    backgammon_studio_txt(CHARLOT_MAT, tmp_path / "match.txt")
    r = analyse(db, "--plies", "0", tmp_path)
    assert r.stdout.splitlines()[-1] == "1 file: 1 stored, 0 analyses added, 0 already stored, 0 failed", r.stdout


def test_a_transcript_is_told_by_its_first_lines():
    from gnubg_blunder.importers.transcript import transcript_text

    studio = ('; [Site "Backgammon Studio"]\n; [Match ID "4242424242"]\n\n 13 point match\n\n Game 1\n'
              ' Alice : 0                   Bob : 0\n  1) 31: 8/5 6/5\n')
    assert transcript_text(studio)
    assert transcript_text(studio.replace("\n", "\r\n"))  # written on Windows
    assert transcript_text("\ufeff" + studio)  # a byte-order mark first
    assert transcript_text(" 0 point match\n\n Game 1\n")  # a money session, no header
    assert not transcript_text("Notes of the evening\n 7 point match against Bob\n")
    assert not transcript_text("; a comment\n 7 point match\n\n some other line\n")  # no Game 1 after it
    assert not transcript_text("; a comment\n; another\n")
    assert not transcript_text("(;FF[4]GM[6]\n")  # an SGF
