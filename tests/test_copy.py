"""``gnubg-blunder copy --from SRC --to DST`` (issue 14; gnubg_blunder/copying.py,
docs/copy.md): real files, a real PostgreSQL server (tests/pg_cluster.py).

The source: tests/fixture_db.py's hand-computed matches, the real charlot1 –
charlot2 match (its gnubg and its XG analysis) and the real Squire/Jørgensen
– Harmand/Unger match, with study data on them: study marks, quiz answers
(study actions naming a decision), two collections, an alias, Anki notes
exported, the goal, the thresholds and the main player."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from conftest import DATA, FIXTURES, _db_digest, run_cli_inprocess
from fixture_db import P_HOLD, P_PRIME, P_RACE, build_fixture_db
from test_postgres_parity import _registry_views

REAL_FILES = (DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf",
              DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg",
              DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg")

# commands that are no views but show the study data and the settings
STUDY_COMMANDS = (("mark", "list", "--format", "json"), ("collection", "list"),
                  ("collection", "show", "Errors", "--format", "json"), ("collection", "show", "Holding"),
                  ("alias", "list"), ("goal", "show"), ("thresholds",), ("main-player",))


def _add_study_data(path: Path, cli) -> None:
    """Marks, collections, an alias, the settings (through the commands),
    quiz answers naming their decisions, Anki notes (as the quiz and
    ``anki export`` store them)."""
    from gnubg_blunder.database import open_store
    from gnubg_blunder.store.anki_notes import record_notes

    cli("alias", "add", "charlot1", "Charlot One", db=path)
    cli("goal", "set", "PR < 5", "--weeks", "12", db=path)
    cli("thresholds", "0.04", "0.09", db=path)
    cli("main-player", "charlot1", db=path)
    cli("collection", "add", "Holding", "--position", P_HOLD, db=path)
    cli("collection", "add", "holding", "--position", P_PRIME, db=path)
    cli("mark", "studied", P_RACE, db=path)
    with open_store(str(path)) as store:
        # a decision of each analysis
        firsts = store.conn.execute("SELECT MIN(id) FROM decisions WHERE position_id IS NOT NULL "
                                    "GROUP BY analysis_id ORDER BY analysis_id").fetchall()
        picked = [store.conn.execute("SELECT id, position_id FROM decisions WHERE id = ?", r).fetchone()
                  for r in firsts]
        assert len(picked) == 8
        for k, (did, pid) in enumerate(picked):
            store.add_study_action(pid, "quiz", grade=k % 3, decision_id=did, at=f"2026-01-0{k + 1}T10:00:00+00:00")
        store.add_to_collection("Errors", [(pid, did) for did, pid in picked])
        record_notes(store, [{"guid": f"g{did}", "note_key": f"k{did}", "position_id": pid, "decision_id": did}
                             for did, pid in picked[-2:]], "gnubg-blunder", "2026-01-09T10:00:00+00:00")


def _source(path: Path, cli) -> Path:
    build_fixture_db(path)
    cli("import", *REAL_FILES, db=path)
    _add_study_data(path, cli)
    return path


def _copy(cli, src, dst, check=True):
    return cli("copy", "--from", src, "--to", dst, check=check)


def _counts(out: str) -> dict:
    m = re.search(r"matches: (\d+) copied, (\d+) analys[ie]s added to matches already there, (\d+) already there",
                  out)
    assert m, out
    return {"copied": int(m[1]), "added": int(m[2]), "there": int(m[3])}


def _pg_rows(url) -> dict:
    """Every table's rows of a PostgreSQL database (its content, for idempotence)."""
    import psycopg

    from gnubg_blunder.store.pg_schema import TABLES

    with psycopg.connect(url) as conn:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}").fetchall())) for t in TABLES}


@pytest.fixture(scope="module")
def round_trip(pg_server, tmp_path_factory):
    """SRC (SQLite) → PostgreSQL → SQLite, each copy run twice (the second
    copies nothing): (SRC, URL, back, the outputs of the four copies)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    cli = run_cli_inprocess
    try:
        folder = tmp_path_factory.mktemp("copy")
        src = _source(folder / "src.db", cli)
        url = pg_server.admin_url(pg_server.create_database())
        back = folder / "back.db"
        runs = {"to_pg": _copy(cli, src, url)}
        pg_before = _pg_rows(url)
        runs["to_pg_again"] = _copy(cli, src, url)
        runs["pg_unchanged"] = _pg_rows(url) == pg_before
        runs["back"] = _copy(cli, url, back)
        digest = _db_digest(back)
        runs["back_again"] = _copy(cli, url, back)
        runs["back_unchanged"] = _db_digest(back) == digest
    finally:
        mp.undo()
    return src, url, back, runs


def test_round_trip_copies_everything_and_checks_it(round_trip):
    src, url, back, runs = round_trip
    with sqlite3.connect(src) as con:
        n_matches = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        n_analyses = con.execute("SELECT COUNT(*) FROM analyses").fetchone()[0]
        n_decisions = con.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
        n_rolls = con.execute("SELECT COUNT(*) FROM rolls").fetchone()[0]
        n_filed = con.execute("SELECT COUNT(*) FROM collection_positions").fetchone()[0]
    assert n_filed >= 5
    study = f"1 alias, 9 study actions, 2 collections, {n_filed} filed positions, 2 Anki notes, 3 settings"
    assert n_matches == 7 and n_analyses == 8  # the charlot1 – charlot2 match has two analyses
    for run in (runs["to_pg"], runs["back"]):
        out = run.stdout
        assert _counts(out) == {"copied": n_matches, "added": 0, "there": 0}, out
        assert f"{n_analyses} analyses" in out and f"{n_decisions} decisions" in out and f"{n_rolls} rolls" in out
        assert f"study data: {study} copied; already there: 0 aliases, 0 study actions" in out
        assert f"built for {n_analyses} analyses" in out
        assert out.splitlines()[-1].startswith(f"checked: the {n_matches} matches of ")
    # every id kept: the same ids everywhere
    with sqlite3.connect(src) as a, sqlite3.connect(back) as b:
        for sql in ("SELECT id, identity, imported_at, kind FROM matches ORDER BY id",
                    "SELECT id, match_id, engine, depth_label, imported_at FROM analyses ORDER BY id",
                    "SELECT MIN(id), MAX(id), COUNT(*), SUM(analysis_id) FROM decisions",
                    "SELECT * FROM study_actions ORDER BY id", "SELECT * FROM collections ORDER BY id",
                    "SELECT *, rowid FROM collection_positions ORDER BY rowid", "SELECT * FROM anki_notes",
                    "SELECT * FROM aliases", "SELECT * FROM meta ORDER BY key"):
            assert a.execute(sql).fetchall() == b.execute(sql).fetchall(), sql


def test_second_copy_copies_nothing(round_trip):
    src, url, back, runs = round_trip
    with sqlite3.connect(src) as con:
        n_filed = con.execute("SELECT COUNT(*) FROM collection_positions").fetchone()[0]
    for name in ("to_pg_again", "back_again"):
        out = runs[name].stdout
        assert _counts(out) == {"copied": 0, "added": 0, "there": 7}, out
        assert "0 analyses, 0 games, 0 decisions" in out
        assert (f"already there: 1 alias, 9 study actions, 2 collections, {n_filed} filed positions, 2 Anki notes, "
                "3 settings") in out
        assert "nothing to copy:" in out and "array cache" not in out
        assert out.splitlines()[-1].startswith("checked: the 7 matches of ")
    assert runs["pg_unchanged"] and runs["back_unchanged"]  # not a row written


@pytest.mark.parametrize("view", sorted(_registry_views()))
def test_every_view_is_the_same_after_the_round_trip(view, round_trip, cli):
    """Each view's JSON on the source, on the PostgreSQL copy and on the
    SQLite copy of that (after the second copies too)."""
    src, url, back, _runs = round_trip
    args = _registry_views()[view]
    a = cli(view, *args, "--format", "json", db=src, check=False)
    assert a.returncode == 0 and len(a.stdout) > 200, a.stderr
    for db in (url, back):
        b = cli(view, *args, "--format", "json", db=db, check=False)
        assert (b.returncode, b.stdout) == (a.returncode, a.stdout), (view, db)


def test_study_data_and_settings_are_the_same_after_the_round_trip(round_trip, cli):
    src, url, back, _runs = round_trip
    for args in STUDY_COMMANDS:
        a = cli(*args, db=src).stdout
        assert a.strip()
        assert cli(*args, db=url).stdout == a, args
        assert cli(*args, db=back).stdout == a, args


def _decision(con, did):
    return con.execute("SELECT d.position_id, d.game, d.seq, d.kind, d.error, m.identity, a.engine "
                       "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id "
                       "WHERE d.id = ?", (did,)).fetchone()


def test_copy_into_a_database_holding_other_matches(tmp_path, cli):
    """SQLite → SQLite into a database whose ids are taken: the copied
    matches, analyses and decisions get new ids, the study data follows
    them, each match's figures are the same; the XG analysis both hold is
    not copied again (a quiz answer on it points at DST's own decision), the
    gnubg analysis is added to DST's match; DST's own settings stay; a later
    import works."""
    src = _source(tmp_path / "src.db", cli)
    dst = tmp_path / "dst.db"
    others = sorted((FIXTURES / "xg").glob("*.xg")) + sorted((FIXTURES / "xg").glob("*.xgp"))
    cli("import", *others, REAL_FILES[1], db=dst)  # and the charlot1 – charlot2 match, XG's analysis
    cli("goal", "set", "PR < 8", "--weeks", "4", db=dst)
    with sqlite3.connect(dst) as con:
        dst_matches = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        taken = {r[0] for r in con.execute("SELECT id FROM matches")}
        before = {r[0] for r in con.execute("SELECT identity FROM matches")}
    assert dst_matches == 6

    out = _copy(cli, src, dst).stdout
    assert _counts(out) == {"copied": 6, "added": 1, "there": 0}, out
    assert "given a new id" in out
    assert re.search(r"note: .*dst\.db keeps its own goal \(PR < 8 by .*\); .*src\.db's \(PR < 5 by .*\) was not "
                     r"copied", out), out
    assert out.splitlines()[-1].startswith("checked: the 7 matches of ")

    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        ids = dict(b.execute("SELECT identity, id FROM matches").fetchall())
        src_ids = dict(a.execute("SELECT id, identity FROM matches").fetchall())
        moved = {sid: ids[ident] for sid, ident in src_ids.items()}
        assert any(sid != did for sid, did in moved.items())
        assert all(did not in taken for sid, did in moved.items() if sid in taken and sid != did)
        # the study data follows the decisions
        for sql in ("SELECT decision_id FROM study_actions WHERE decision_id IS NOT NULL ORDER BY at, id",
                    "SELECT decision_id FROM collection_positions WHERE decision_id IS NOT NULL "
                    "ORDER BY added_at, rowid", "SELECT decision_id FROM anki_notes ORDER BY guid"):
            src_refs = [r[0] for r in a.execute(sql)]
            dst_refs = [r[0] for r in b.execute(sql)]
            assert len(src_refs) == len(dst_refs) > 0, sql
            assert [_decision(a, i) for i in src_refs] == [_decision(b, i) for i in dst_refs], sql
            assert all(_decision(b, i) is not None for i in dst_refs)
        assert b.execute("SELECT value FROM meta WHERE key = 'goal'").fetchone()[0].find('"target": 8.0') > 0
        assert b.execute("SELECT value FROM meta WHERE key = 'main_player'").fetchone() == ("charlot1",)
    finally:
        a.close()
        b.close()

    # each copied match's figures are the same: its row of `matches`, under its new id
    rows_src, rows_dst = ({r["id"]: r for r in json.loads(cli("--no-config", "matches", "--format", "json",
                                                              db=db).stdout)["matches"]} for db in (src, dst))
    assert len(rows_src) == 7
    for sid, row in rows_src.items():
        if src_ids[sid] in before:
            continue  # the match DST held before: its import time and first analysis are DST's
        assert dict(rows_dst[moved[sid]], id=sid) == row, sid
    # and the players' figures, over all their matches
    for player in ("charlot2", "Squire/Jørgensen"):
        for engine in ("gnubg", "xg"):
            args = ("--no-config", "stats", "--player", player, "--engine", engine, "--format", "json")
            assert cli(*args, db=src).stdout == cli(*args, db=dst).stdout, (player, engine)

    again = _copy(cli, src, dst).stdout
    assert _counts(again) == {"copied": 0, "added": 0, "there": 7}, again
    res = cli("import", FIXTURES / "sgf" / "set_board.sgf", db=dst)
    assert "stored as match" in res.stdout
    cli("mark", "studied", P_HOLD, db=dst)
    cli("collection", "add", "After the copy", "--position", P_PRIME, db=dst)


def test_postgres_ids_go_on_after_a_copy(tmp_path, pg_url, cli):
    """Rows given explicit ids in PostgreSQL: its sequences are moved past
    them, so an import, a mark and a collection made afterwards work."""
    src = build_fixture_db(tmp_path / "src.db")
    cli("mark", "studied", P_RACE, db=src)
    cli("collection", "add", "Holding", "--position", P_HOLD, db=src)
    _copy(cli, src, pg_url)
    res = cli("import", REAL_FILES[0], db=pg_url)
    assert "stored as match 6 " in res.stdout
    cli("mark", "studied", P_HOLD, db=pg_url)
    cli("collection", "add", "Priming", "--position", P_PRIME, db=pg_url)
    marks = json.loads(cli("mark", "list", "--format", "json", db=pg_url).stdout)["actions"]
    assert len(marks) == 2
    assert "Priming" in cli("collection", "list", db=pg_url).stdout


def test_bad_input_is_refused_in_one_line(tmp_path, pg_server, pg_url, cli):
    missing = tmp_path / "nowhere.db"
    dst = tmp_path / "dst.db"
    res = _copy(cli, missing, dst, check=False)
    assert res.returncode != 0 and res.stderr.count("\n") == 1 and str(missing) in res.stderr, res.stderr
    assert not dst.exists() and not missing.exists()

    src = build_fixture_db(tmp_path / "src.db")
    for other in (src, tmp_path / "." / "src.db"):
        res = _copy(cli, src, other, check=False)
        assert res.returncode != 0 and "same database" in res.stderr and res.stderr.count("\n") == 1

    # a URL's password is never printed: not in a copy's lines, not in its errors
    password = pg_server.admin_password
    assert password in pg_url
    outs = [_copy(cli, src, pg_url), _copy(cli, pg_url, tmp_path / "back.db"),
            _copy(cli, pg_url, pg_url, check=False),
            _copy(cli, pg_url.rsplit("/", 1)[0] + "/no_such_database", tmp_path / "x.db", check=False)]
    assert outs[2].returncode != 0 and "same database" in outs[2].stderr
    assert outs[3].returncode == 1 and "no_such_database" in outs[3].stderr and outs[3].stderr.count("\n") == 1
    assert not (tmp_path / "x.db").exists()
    for res in outs:
        assert password not in res.stdout + res.stderr
    assert "***" in outs[0].stdout


def test_a_copy_that_stops_leaves_whole_matches_and_goes_on(tmp_path, cli, monkeypatch):
    """An error in the middle of a transaction (here: writing the rolls of the
    second batch) rolls back that batch: DST holds the first batch's
    matches whole and nothing of the second; the same copy run again
    copies the rest."""
    from gnubg_blunder.store import copy as copying  # the row-for-row copy (store/copy.py)

    src = build_fixture_db(tmp_path / "src.db")
    cli("import", REAL_FILES[2], db=src)
    dst = tmp_path / "dst.db"
    monkeypatch.setattr(copying, "BATCH_MATCHES", 2)
    write, calls = copying._write, []

    def failing(store, table, columns, rows):
        calls.append(table)
        if calls.count("rolls") == 2:
            raise sqlite3.OperationalError("disk I/O error (simulated)")
        return write(store, table, columns, rows)

    monkeypatch.setattr(copying, "_write", failing)
    res = _copy(cli, src, dst, check=False)
    assert res.returncode == 1 and "stopped: disk I/O error (simulated)" in res.stderr, res.stderr
    assert "2 matches and 0 analyses were copied whole" in res.stderr
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        first = a.execute("SELECT COUNT(*) FROM decisions d JOIN analyses x ON x.id = d.analysis_id "
                          "WHERE x.match_id IN (1, 2)").fetchone()
        assert b.execute("SELECT COUNT(*) FROM decisions").fetchone() == first
        assert b.execute("SELECT match_id FROM analyses ORDER BY match_id").fetchall() == [(1,), (2,)]
        assert b.execute("SELECT DISTINCT match_id FROM games ORDER BY match_id").fetchall() == [(1,), (2,)]
    monkeypatch.setattr(copying, "_write", write)
    out = _copy(cli, src, dst).stdout
    assert _counts(out) == {"copied": 4, "added": 0, "there": 2}, out
    assert out.splitlines()[-1].startswith("checked: the 6 matches of ")


def test_a_path_kept_as_bytes_by_an_older_file_arrives_in_the_text_form(tmp_path, pg_url, cli):
    """A SQLite file written before the text form kept a path that is not
    UTF-8 as its bytes (a BLOB): copied, it arrives in the form both engines
    hold (docs/postgres.md "Text"), and back in SQLite it stays that text."""
    import os

    from gnubg_blunder.database import open_store
    from gnubg_blunder.codec.text import decode_text

    src = tmp_path / "src.db"
    cli("import", REAL_FILES[0], db=src)
    raw = b"/home/partie \xe0 7.sgf"
    con = sqlite3.connect(src)
    con.execute("UPDATE analyses SET source_path = ?", (raw,))
    con.commit()
    con.close()
    _copy(cli, src, pg_url)
    with open_store(pg_url) as store:
        stored = store.conn.execute("SELECT source_path FROM analyses").fetchone()[0]
    assert stored == "\uffff/home/partie %E0 7.sgf"
    assert os.fsencode(decode_text(stored)) == raw
    back = tmp_path / "back.db"
    _copy(cli, pg_url, back)
    con = sqlite3.connect(back)
    assert con.execute("SELECT source_path FROM analyses").fetchone()[0] == stored
    con.close()
