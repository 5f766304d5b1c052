"""A match saved twice is stored once (issue 24 item 5, docs/storage.md "A
match saved twice"): a file whose moves begin with a stored match's is a
later save of it and extends it (its id kept, its study data kept on the
unchanged decisions); an earlier save is already stored.  The saves are cuts
of a real gnubg-analysed match between games, as gnubg writes a match saved
part-way: ``import``, ``watch``, ``analyse``'s question before analysing, and
PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from conftest import FIXTURES, needs_gnubg

FINAL = FIXTURES / "selfplay" / "m26-11.sgf"  # gnubg 1.07, 0-ply: an 11-point match of 4 games


def _saves(folder: Path) -> list:
    """The match saved after game 1, after game 2, and whole: [path, ...]."""
    data = FINAL.read_bytes()
    starts, i = [], data.find(b"(;FF[4]", 1)
    while i > 0:
        starts.append(i)
        i = data.find(b"(;FF[4]", i + 1)
    assert len(starts) == 3  # four games
    out = []
    for name, cut in (("after-game-1.sgf", starts[0]), ("after-game-2.sgf", starts[1]), ("final.sgf", len(data))):
        (folder / name).write_bytes(data[:cut])
        out.append(folder / name)
    return out


def _figures(cli, target) -> tuple:
    """(the stored matches, the figures) as JSON."""
    matches = json.loads(cli("matches", "--format", "json", db=target).stdout)["matches"]
    stats = json.loads(cli("stats", "--format", "json", db=target).stdout)
    return matches, stats


def _import_the_saves(cli, target, saves) -> list:
    """Each save imported in turn, then the first again: the lines said."""
    lines = []
    for f in [*saves, saves[0]]:
        lines.append(cli("import", f, db=target).stdout.splitlines()[0])
    return lines


def _check_saves_lines(lines, saves) -> None:
    assert lines[0].startswith(f"{saves[0]}: stored as match 1 (Weakbot vs Strongbot, 11-point match, 1 game;")
    assert lines[1].startswith(f"{saves[1]}: match 1 extended: 1 → 2 games (Weakbot vs Strongbot, 11-point match, "
                               "2 games; analysis gnubg 0-ply)"), lines
    assert lines[2].startswith(f"{saves[2]}: match 1 extended: 2 → 4 games ("), lines
    assert lines[3] == f"{saves[0]}: already stored (match 1: Weakbot vs Strongbot, 11-point match, 1 game)", lines


def test_import_of_the_early_saves_then_the_final_file_stores_one_match(tmp_path, cli):
    saves = _saves(tmp_path)
    db = tmp_path / "saves.db"
    lines = _import_the_saves(cli, db, saves)
    _check_saves_lines(lines, saves)
    summary = cli("import", saves[2], db=db).stdout.splitlines()
    assert summary[-1] == "1 file: 0 stored, 0 analyses added, 1 already stored, 0 failed"
    out = cli("import", saves[1], db=tmp_path / "other.db").stdout.splitlines()[-1]
    assert out == "1 file: 1 stored, 0 analyses added, 0 already stored, 0 failed"
    out = cli("import", saves[2], db=tmp_path / "other.db").stdout.splitlines()[-1]
    assert out == "1 file: 0 stored, 1 extended, 0 analyses added, 0 already stored, 0 failed"

    alone = tmp_path / "alone.db"
    cli("import", saves[2], db=alone)
    matches, stats = _figures(cli, db)
    assert len(matches) == 1 and matches[0]["games"] == 4 and matches[0]["id"] == 1
    assert (matches, stats) == _figures(cli, alone)
    assert "whole" in cli("check", db=db).stdout


def test_a_later_save_keeps_the_study_data_and_the_other_analyses_on_their_decisions(tmp_path):
    """Study data naming decisions of the early save follow them to the
    longer file's rows of the same decisions; another analysis (another
    depth) of the early save stays as it was, its decision ids unchanged."""
    from gnubg_blunder.pipeline import read_match_file
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.store import ALREADY_STORED, ANALYSIS_ADDED, EXTENDED, STORED

    early, _, final = _saves(tmp_path)
    first = read_match_file(early)[0]
    deeper = dataclasses.replace(first, analysis=dataclasses.replace(first.analysis, depth_label="2-ply",
                                                                     depth=2.0))
    with SQLiteStore(tmp_path / "study.db") as st:
        assert st.add_match(first).status == STORED
        assert st.add_match(deeper).status == ANALYSIS_ADDED
        c = st.conn
        rows = c.execute("SELECT d.id, d.game, d.seq, d.kind, d.position_id, a.depth_label FROM decisions d "
                         "JOIN analyses a ON a.id = d.analysis_id WHERE d.error > 0.02 ORDER BY d.id").fetchall()
        shallow = [r for r in rows if r[5] == "0-ply"][:3]
        other = [r for r in rows if r[5] == "2-ply"][:1]
        assert len(shallow) == 3 and other
        (a, b, d), o = shallow, other[0]
        st.add_study_action(a[4], "quiz", grade=1, decision_id=a[0])
        st.add_to_collection("Errors", [(b[4], b[0]), (o[4], o[0])])
        with c:
            c.execute("BEGIN")
            c.execute("INSERT INTO anki_notes(guid, note_key, position_id, decision_id, deck, exported_at) "
                      "VALUES ('g1', 'k1', ?, ?, 'deck', '2026-12-01T12:00:00+00:00')",
                      (d[4], d[0]))
            c.execute("INSERT INTO verifications(decision_id, plies, engine, verified_at) "
                      "VALUES (?, 3, 'gnubg', '2026-12-01T12:00:00+00:00')", (a[0],))
            c.execute("COMMIT")
        other_ids = [r[0] for r in c.execute("SELECT d.id FROM decisions d JOIN analyses a ON a.id = d.analysis_id "
                                             "WHERE a.depth_label = '2-ply' ORDER BY d.id")]

        result = st.add_match(read_match_file(final)[0])
        assert (result.status, result.match_id, result.games_before) == (EXTENDED, 1, 1)
        assert st.add_match(first).status == ALREADY_STORED

        def now(old):  # the 0-ply decision of the same game, move, kind and position, in the longer analysis
            return c.execute("SELECT d.id FROM decisions d JOIN analyses a ON a.id = d.analysis_id "
                             "WHERE a.depth_label = '0-ply' AND d.game = ? AND d.seq = ? AND d.kind = ? "
                             "AND d.position_id = ?", old[1:5]).fetchone()[0]

        assert c.execute("SELECT decision_id FROM study_actions").fetchall() == [(now(a),)]
        assert sorted(c.execute("SELECT decision_id FROM collection_positions")) == sorted([(now(b),), (o[0],)])
        assert c.execute("SELECT decision_id FROM anki_notes").fetchall() == [(now(d),)]
        assert c.execute("SELECT decision_id FROM verifications").fetchall() == [(now(a),)]
        assert [r[0] for r in c.execute("SELECT d.id FROM decisions d JOIN analyses a ON a.id = d.analysis_id "
                                        "WHERE a.depth_label = '2-ply' ORDER BY d.id")] == other_ids
        games = dict(c.execute("SELECT depth_label, (SELECT MAX(game) + 1 FROM decisions WHERE analysis_id = a.id) "
                               "FROM analyses a"))
        assert games == {"0-ply": 4, "2-ply": 1}
        assert c.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 1


def test_the_lookup_of_an_earlier_save_is_indexed(tmp_path, cli):
    """issue 29: the lookup each store makes reads the index, not every match."""
    saves = _saves(tmp_path)
    db = tmp_path / "index.db"
    cli("import", saves[0], db=db)
    con = sqlite3.connect(db)
    plan = " ".join(str(r) for r in con.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM matches WHERE opening IN (?, ?) AND kind = 'match' AND length = ?",
        ("a", "b", 11)))
    assert "USING INDEX matches_by_opening" in plan, plan
    assert con.execute("SELECT opening IS NOT NULL FROM matches").fetchone() == (1,)
    con.close()


def test_an_older_database_gets_the_opening_keys_of_its_matches(tmp_path):
    """Step 12 fills ``matches.opening`` of the matches stored before: the key
    the match's own file gives (tests/fixtures/schema: written from m23-3)."""
    from gnubg_blunder.model import match_identity, opening_keys
    from gnubg_blunder.pipeline import read_match_file
    from gnubg_blunder.database import SQLiteStore

    db = Path(shutil.copy(FIXTURES / "schema" / "v8.db", tmp_path / "v8.db"))
    m23 = read_match_file(FIXTURES / "selfplay" / "m23-3.sgf")[0]
    with SQLiteStore(db, report=lambda line: None) as st:
        keys = dict(st.conn.execute("SELECT identity, opening FROM matches WHERE kind = 'match'").fetchall())
    assert len(keys) > 1 and None not in keys.values()
    assert keys[match_identity(m23)] == opening_keys(m23)[0]


def test_watch_of_a_match_saved_after_game_1_game_2_and_the_end_stores_one_match(tmp_path, cli):
    from test_watch import SETTLE, Watch

    saves = _saves(tmp_path)
    db, folder = tmp_path / "watch.db", tmp_path / "folder"
    folder.mkdir()
    w = Watch(db, folder)
    w.wait_for(lambda w: any(line.startswith("start-up: 0 match files") for line in w.out), "start-up line")
    target = folder / "match.sgf"
    said = ["stored as match 1 (", "match 1 extended: 1 → 2 games", "match 1 extended: 2 → 4 games"]
    for save, words in zip(saves, said):
        shutil.copy(save, target.with_suffix(".part"))
        target.with_suffix(".part").rename(target)  # saved whole, as gnubg writes it
        w.wait_for(lambda w: any(words in line for line in w.mentions("match.sgf")), words, timeout=30 + SETTLE)
    assert w.stop(signal.SIGINT) == 0, w.lines()
    assert w.out[-1] == "watch stopped: 1 stored, 2 extended, 0 analyses added, 0 already stored, 0 refused"
    alone = tmp_path / "alone.db"
    cli("import", saves[2], db=alone)
    matches, stats = _figures(cli, db)
    assert len(matches) == 1 and matches[0]["games"] == 4
    assert (matches, stats) == _figures(cli, alone)


def test_postgresql_stores_a_match_saved_twice_once(tmp_path, cli, pg_url):
    saves = _saves(tmp_path)
    lines = _import_the_saves(cli, pg_url, saves)
    _check_saves_lines(lines, saves)
    alone = tmp_path / "alone.db"
    cli("import", saves[2], db=alone)
    matches, stats = _figures(cli, pg_url)
    assert len(matches) == 1 and matches[0]["games"] == 4
    assert (matches, stats) == _figures(cli, alone)
    cli("check", db=pg_url)  # exit 0: the array cache agrees with the rows


@pytest.mark.parametrize("which", [0, 1])
def test_analyse_asks_before_analysing_an_earlier_save_of_a_stored_match(tmp_path, which):
    """``analyse`` does not analyse again a file the store holds a longer save
    of: the store's answer to its question (stored_analysis) is "already
    stored", as for the file itself."""
    from gnubg_blunder.pipeline import read_match_file
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.store import ALREADY_STORED

    saves = _saves(tmp_path)
    with SQLiteStore(tmp_path / "analyse.db") as st:
        st.add_match(read_match_file(saves[2])[0])
        asked = read_match_file(saves[which])[0]
        result = st.stored_analysis(asked)
        assert (result.status, result.match_id) == (ALREADY_STORED, 1)
        other = dataclasses.replace(asked, analysis=dataclasses.replace(asked.analysis, depth_label="2-ply"))
        assert st.stored_analysis(other).status == ALREADY_STORED  # an earlier save: whatever analysed it


@needs_gnubg
def test_analyse_of_the_saves_extends_the_match_and_does_not_analyse_an_earlier_save(tmp_path, cli):
    saves = _saves(tmp_path)
    db, alone = tmp_path / "analysed.db", tmp_path / "alone.db"
    out = cli("analyse", "--plies", "0", saves[0], saves[2], saves[1], db=db).stdout.splitlines()
    assert "; stored as match 1 (" in out[0], out
    assert f"[2/3] {saves[2]}: analysed (0-ply) in " in out[1] and "; match 1 extended: 1 → 4 games (" in out[1], out
    assert out[2].startswith(f"[3/3] {saves[1]}: already stored (match 1: Weakbot vs Strongbot, 11-point match, "
                             "2 games) with a gnubg 0-ply analysis: not analysed again"), out
    assert out[-1] == "3 files: 1 stored, 1 extended, 0 analyses added, 1 already stored, 0 failed"
    cli("analyse", "--plies", "0", saves[2], db=alone)
    matches, stats = _figures(cli, db)
    assert len(matches) == 1 and matches[0]["games"] == 4
    assert (matches, stats) == _figures(cli, alone)


@needs_gnubg
def test_bdb_store_in_gnubg_extends_the_match_saved_before(tmp_path):
    """Inside gnubg: the match loaded after game 1 and stored, then the whole
    file loaded and stored: one match, the second ``>bdb.store()`` says it
    extended it; figures equal to storing the final file alone in gnubg."""
    import os
    import subprocess

    from conftest import run_cli
    from gnubg_blunder.gnubg.process import find_gnubg

    saves = _saves(tmp_path)
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    db = tmp_path / "live.db"
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_DB=str(db))
    env.pop("XDG_DATA_HOME", None)
    run_cli("install-gnubg", env=env)
    session = "\n".join([f'load match "{saves[0]}"', ">bdb.store()", f'load match "{saves[2]}"', ">bdb.store()",
                         f'load match "{saves[1]}"', ">bdb.store()", ""])
    out = subprocess.run([find_gnubg(), "-t", "-q"], input=session, capture_output=True, text=True, env=env,
                         timeout=300).stdout
    assert "match 1 extended: 1 → 4 games" in out, out[-2000:]
    assert "already stored (match 1" in out and "Traceback" not in out
    alone = tmp_path / "alone.db"  # the final file alone, stored the same way (the live path's own numbers)
    subprocess.run([find_gnubg(), "-t", "-q"], input=f'load match "{saves[2]}"\n>bdb.store()\n', capture_output=True,
                   text=True, env=dict(env, GNUBG_BLUNDER_DB=str(alone)), timeout=300, check=True)
    for c in ("stats", "players"):
        assert (run_cli(c, "--format", "json", db=db).stdout.replace(str(db), "DB")
                == run_cli(c, "--format", "json", db=alone).stdout.replace(str(alone), "DB")), c
