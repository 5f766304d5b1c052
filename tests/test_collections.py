"""Collections (docs/collections.md): schema step 9, ``collection
add|list|show|remove|export``, the ``--collection NAME`` filter,
``errors --to-collection NAME``, and filed positions (and Anki notes) as
"already studied" for ``references`` (SPEC §10; no study action, SPEC §11).

Stores: the shared hand-made fixture (``db`` read-only, ``db_copy`` to
write; tests/fixture_db.py: players charlot1, charlot2, Squire/Jørgensen)
and one real XG file (Squire/Jørgensen v Harmand/Unger), whose themed
match-play errors give ``references`` candidates.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from fixture_db import P_HOLD, P_OPEN, P_PRIME

FIXTURES = Path(__file__).parent / "fixtures"
REAL_XG = FIXTURES / "real" / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
BLOTS = "holding game/checker/too many blots"  # a family of the hand-made fixture (2 members)


def _json(cli, *args, db):
    return json.loads(cli("--no-config", *args, "--format", "json", db=db).stdout)


def _filed(db, name: str) -> list:
    """(position ID, decision id, added_at) of a collection, read from the file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT p.position_id, p.decision_id, p.added_at FROM collection_positions p "
                           "JOIN collections c ON c.id = p.collection_id WHERE c.name = ? "
                           "ORDER BY p.added_at, p.rowid", (name,)).fetchall()
    finally:
        con.close()


def _pids(db, name: str) -> set:
    return {r[0] for r in _filed(db, name)}


@pytest.fixture(scope="module")
def real_db(tmp_path_factory):
    from conftest import run_cli_inprocess

    db = tmp_path_factory.mktemp("collections") / "real.db"
    run_cli_inprocess("import", str(REAL_XG), db=db)
    return db


@pytest.fixture
def real_copy(real_db, tmp_path):
    return Path(shutil.copyfile(real_db, tmp_path / "real.db"))


# -- schema step 9 -------------------------------------------------------------------------------

def test_schema_step_9_from_version_8(tmp_path):
    """The v8 fixture (real matches, written by the last commit at schema 8)
    upgrades with its matches whole and the three tables; a SIGKILL before
    each statement of step 9 loses nothing (test_store_reliability's sweep)."""
    from gnubg_blunder.database import open_store
    from gnubg_blunder.store.schema import SCHEMA_VERSION
    from test_store_reliability import helper

    src = FIXTURES / "schema" / "v8.db"
    db = tmp_path / "v8.db"
    shutil.copyfile(src, db)
    with open_store(db, report=lambda line: None) as store:
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION) and SCHEMA_VERSION >= 9
        assert store.count_matches() == 7 and store.collections() == []
        names = {n for (n,) in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"collections", "collection_positions", "anki_notes", "collection_positions_by_position",
            "anki_notes_by_position"} <= names
    out = helper("kill-sweep", src, tmp_path / "sweep")
    assert out["broken"] == [] and sorted(out["per_step"], key=int)[0] == "9"
    assert len(out["per_step"]["9"]) >= 5 + 4  # its five statements, BEGIN, the version read and written, COMMIT


def test_check_counts_the_rows_and_notes_odd_ones(real_copy, cli):
    db_copy = real_copy  # (the hand-made fixture's labels are hand-set: check finds them otherwise)
    cli("collection", "add", "c1", "--position", P_HOLD, db=db_copy)
    res = json.loads(cli("check", "--format", "json", db=db_copy).stdout)
    assert res["ok"] and res["checked"]["collections"] == 1 and res["checked"]["collection_positions"] == 1
    assert res["checked"]["anki_notes"] == 0
    con = sqlite3.connect(db_copy)
    con.execute("INSERT INTO collection_positions VALUES (99, 'not an ID', NULL, 'yesterday')")
    con.commit()
    con.close()
    res = json.loads(cli("check", "--format", "json", db=db_copy, check=False).stdout)
    found = [f for f in res["findings"] if f["kind"] == "collections"]
    assert len(found) == 1 and not found[0]["damage"] and "no collection 99" in found[0]["message"]


# -- add, list, show, remove, export ------------------------------------------------------------

def test_round_trip(db_copy, cli, tmp_path):
    out = cli("collection", "add", "Holding", "--position", P_HOLD, db=db_copy).stdout
    assert out.startswith("made collection Holding: 1 position added")
    cli("collection", "add", "holding", "--position", P_PRIME, db=db_copy)  # the same collection, without case
    cli("collection", "add", "Opening", "--position", P_OPEN, db=db_copy)
    listed = _json(cli, "collection", "list", db=db_copy)["collections"]
    assert [(c["name"], c["positions"]) for c in listed] == [("Holding", 2), ("Opening", 1)]
    assert all(c["created_at"].endswith("+00:00") for c in listed)

    shown = _json(cli, "collection", "show", "HOLDING", db=db_copy)
    assert shown["collection"] == "Holding"
    assert [p["position_id"] for p in shown["positions"]] == [P_HOLD, P_PRIME]  # in the order filed
    con = sqlite3.connect(f"file:{db_copy}?mode=ro", uri=True)
    stored = {pid: n for pid, n in con.execute(
        "SELECT position_id, COUNT(*) FROM decisions WHERE position_id IN (?, ?) GROUP BY position_id",
        (P_HOLD, P_PRIME))}
    con.close()
    for p in shown["positions"]:
        assert len(p["decisions"]) == stored[p["position_id"]] > 0  # every stored decision at the position
        assert p["decision_id"] is None and p["gnubg_id"].startswith(p["position_id"] + ":")
    text = cli("collection", "show", "Holding", db=db_copy).stdout
    assert text.count("Position ID:") == 2 and "X charlot1" in text and f"1. position {P_HOLD}" in text
    csv = cli("collection", "show", "Holding", "--format", "csv", db=db_copy).stdout.splitlines()
    assert csv[0].startswith("position_id,added_at,gnubg_id") and len(csv) == 1 + sum(stored.values())

    # export: the text file (gnubg IDs, one a line) and JSON, read back
    cli("collection", "export", "Holding", str(tmp_path / "h.txt"), db=db_copy)
    lines = [x for x in (tmp_path / "h.txt").read_text().splitlines() if not x.startswith("#")]
    assert lines == [p["gnubg_id"] for p in shown["positions"]]
    from gnubg_blunder.board.ids import MatchState
    from gnubg_blunder.board.position import Board

    for line in lines:
        pos, mid = line.split(":")
        Board.from_position_id(pos)
        MatchState.from_match_id(mid)  # what gnubg's `set gnubgid` reads
    cli("collection", "export", "Holding", str(tmp_path / "h.json"), db=db_copy)
    assert json.loads((tmp_path / "h.json").read_text()) == shown

    # remove one position, then a whole collection
    assert cli("collection", "remove", "Holding", "--position", P_PRIME, db=db_copy).stdout.startswith(
        f"removed {P_PRIME} from Holding")
    res = cli("collection", "remove", "Holding", "--position", P_PRIME, db=db_copy, check=False)
    assert res.returncode == 1 and "is not in Holding" in res.stdout
    assert _pids(db_copy, "Holding") == {P_HOLD}
    cli("collection", "remove", "Opening", db=db_copy)
    assert [c["name"] for c in _json(cli, "collection", "list", db=db_copy)["collections"]] == ["Holding"]
    res = cli("collection", "show", "Holdin", db=db_copy, check=False)
    assert res.returncode == 2 and res.stderr.strip().splitlines() == [
        "error: no collection 'Holdin' (closest names: Holding)"]
    res = cli("collection", "add", "x", "--position", "nonsense", db=db_copy, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    res = cli("collection", "add", "x", db=db_copy, check=False)
    assert res.returncode == 2 and "give one source" in res.stderr


def test_re_adding_is_a_no_op(db_copy, cli):
    first = _json(cli, "collection", "add", "B", "--from-plan", BLOTS, db=db_copy)
    before = _filed(db_copy, "B")
    again = _json(cli, "collection", "add", "b", "--from-plan", BLOTS, db=db_copy)
    assert first["created"] and not again["created"]
    assert again["added"] == 0 and again["already"] == first["added"] == len(before) > 0
    assert _filed(db_copy, "B") == before  # its first decision and time kept


# -- sources ------------------------------------------------------------------------------------

def test_from_plan_files_the_family_members(real_copy, cli):
    """--from-plan FAMILY: the member positions of the family, as the plan's
    own drill-down lists them (`positions --family F --errors --limit 0`) and
    as metrics/plan.py's family_members gives them."""
    plan = _json(cli, "plan", db=real_copy)
    families = [f["family"] for f in plan["families"]]
    assert families
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.metrics.plan import family_members, plan_mask
    from gnubg_blunder.database import open_store

    for k, family in enumerate(families[:3]):
        name = f"plan {k}"
        cli("--no-config", "collection", "add", name, "--from-plan", family, db=real_copy)
        listed = _json(cli, "positions", "--family", family, "--errors", "--limit", "0", db=real_copy)
        assert _pids(real_copy, name) == {d["position_id"] for d in listed["decisions"]}
        with open_store(real_copy) as store:
            sel = store.select(Filter())
            idx = family_members(sel, plan_mask(sel), Thresholds(), family)
            by_hand = {sel.positions[int(sel.decisions.position[i])] for i in idx}
        assert _pids(real_copy, name) == by_hand
    # the filed decision is the member's
    rows = _filed(real_copy, "plan 0")
    assert all(d is not None for _p, d, _t in rows)
    res = cli("collection", "add", "x", "--from-plan", "holding game/checker/too many blot", db=real_copy,
              check=False)
    assert res.returncode == 2 and "too many blots" in res.stderr  # the closest family named


@pytest.mark.parametrize("flags", [
    ("--player", "Harmand/Unger", "--errors"),
    ("--errors", "--limit", "0"),
    ("--blunders",),
    ("--family", "prime defence/checker/too passive", "--errors", "--limit", "0"),
    ("--from", "2024-01-01", "--kind", "checker", "--errors", "--limit", "5"),
])
def test_from_positions_files_what_positions_lists(real_copy, cli, flags):
    name = "from " + " ".join(flags)
    listed = _json(cli, "positions", *flags, db=real_copy)
    res = _json(cli, "collection", "add", name, "--from", "positions", *flags, db=real_copy)
    want = [d["position_id"] for d in listed["decisions"] if d["position_id"]]
    assert _pids(real_copy, name) == set(want) and res["added"] == len(set(want)) > 0
    assert res["source"]["listed"] == listed["shown"] and res["filter"] == listed["filter"]
    assert [r[0] for r in _filed(real_copy, name)] == list(dict.fromkeys(want))  # in the list's order
    assert {r[1] for r in _filed(real_copy, name)} <= {d["row_id"] for d in listed["decisions"]}


def test_the_date_from_flag_still_works_on_collection_add(real_copy, cli):
    res = _json(cli, "collection", "add", "late", "--from", "positions", "--from", "2030-01-01", "--errors",
                db=real_copy)
    assert res["filter"]["date_from"] == "2030-01-01" and res["added"] == 0


# -- the filter ----------------------------------------------------------------------------------

def test_collection_filter_keeps_the_decisions_at_its_positions(db_copy, cli):
    cli("collection", "add", "two", "--position", P_HOLD, db=db_copy)
    cli("collection", "add", "two", "--position", P_PRIME, db=db_copy)
    every = _json(cli, "positions", "--limit", "0", db=db_copy)["decisions"]
    by_hand = [d for d in every if d["position_id"] in (P_HOLD, P_PRIME)]
    got = _json(cli, "positions", "--collection", "two", "--limit", "0", db=db_copy)
    assert got["total"] == len(by_hand) > 0 and got["filter"]["collection"] == "two"
    assert sorted(d["row_id"] for d in got["decisions"]) == sorted(d["row_id"] for d in by_hand)
    stats = _json(cli, "stats", "--collection", "TWO", "--player", "charlot1", db=db_copy)
    assert stats["decisions"] == sum(d["player"] == "charlot1" for d in by_hand)
    assert "collection two" in cli("--no-config", "stats", "--collection", "two", db=db_copy).stdout.splitlines()[0]
    res = cli("--no-config", "stats", "--collection", "tow", db=db_copy, check=False)
    assert res.returncode == 2 and res.stderr.strip().splitlines() == [
        "error: no collection 'tow' (closest names: two)"]
    # the saved filter keeps it, like every filter key
    cli("filter", "set", "--collection", "two", db=db_copy)
    try:
        assert json.loads(cli("positions", "--limit", "0", "--format", "json", db=db_copy).stdout)["total"] == len(
            by_hand)
    finally:
        cli("filter", "reset", db=db_copy)


def test_errors_to_collection_files_the_listed_rows_positions(db_copy, cli):
    obj = _json(cli, "errors", "--to-collection", "E", db=db_copy)
    rows = obj["recurring"] + obj["theme_not_determined"]
    assert obj["filed"]["errors"] == sum(r["errors"] for r in rows) > 0
    by_hand = set()
    for theme in {r["theme"] for r in rows}:  # the errors of each listed row, as `positions` lists them
        listed = _json(cli, "positions", "--errors", "--theme", theme, "--limit", "0", db=db_copy)
        by_hand |= {d["position_id"] for d in listed["decisions"]}
    assert _pids(db_copy, "E") == by_hand and obj["filed"]["positions"] == len(by_hand)
    text = cli("--no-config", "errors", "--to-collection", "E", db=db_copy).stdout
    assert f"Filed into collection E: the {len(by_hand)} positions" in text and "0 added" in text


# -- already studied -------------------------------------------------------------------------------

def test_a_filed_position_is_already_studied_for_references(real_copy, cli):
    from gnubg_blunder.database import open_store

    before = _json(cli, "references", "--limit", "0", db=real_copy)
    first = before["positions"][0]["position_id"]
    cli("collection", "add", "refs", "--position", first, db=real_copy)
    after = _json(cli, "references", "--limit", "0", db=real_copy)
    assert first not in [p["position_id"] for p in after["positions"]]
    assert after["studied"] == before["studied"] + 1  # counted chosen
    assert after["studied_positions"] == before["studied_positions"] + 1
    with open_store(real_copy) as store:
        assert store.studied_positions()[first] == ["collection refs"]
        assert store.study_actions() == []  # filing is no study action (SPEC §11)
        # an exported Anki note is the same question ("anki card")
        second = after["positions"][0]["position_id"]
        store.conn.execute("INSERT INTO anki_notes(guid, note_key, position_id, decision_id, deck, exported_at) "
                           "VALUES ('g1', 'k1', ?, NULL, 'deck', '2026-12-01T12:00:00+00:00')",
                           (second,))
        assert store.studied_positions()[second] == ["anki card"]
    last = _json(cli, "references", "--limit", "0", db=real_copy)
    assert second not in [p["position_id"] for p in last["positions"]] and last["studied"] == after["studied"] + 1


def test_the_gnubg_id_of_a_take_is_the_double_offered(real_db):
    """A take's stored position is the responder's; gnubg writes the state
    after a double from the doubler's side (checked on gnubg 1.08: ``double``
    keeps gnubg.positionid(), the match ID gets doubled and the turn)."""
    from gnubg_blunder.board.ids import MatchState
    from gnubg_blunder.board.position import Board
    from gnubg_blunder.database import open_store
    from gnubg_blunder.views.collections import _gnubg_id

    with open_store(real_db) as store:
        pid = store.conn.execute("SELECT position_id FROM decisions WHERE kind = 'take' LIMIT 1").fetchone()[0]
        checker = store.conn.execute("SELECT position_id FROM decisions WHERE kind = 'checker' LIMIT 1").fetchone()[0]
        at = store.decisions_at([pid, checker])
    take = [d for d in at[pid] if d["kind"] == "take"][0]
    pos, mid = _gnubg_id(pid, take).split(":")
    ms = MatchState.from_match_id(mid)
    assert pos == Board.from_position_id(pid).swapped().position_id()
    assert ms.doubled and ms.turn == take["side"] and ms.on_roll == 1 - take["side"] and ms.match_length == 7
    assert ms.score[take["side"]] == take["score"][0] and ms.cube == take["cube_value"]
    play = [d for d in at[checker] if d["kind"] == "checker"][0]
    pos, mid = _gnubg_id(checker, play).split(":")
    ms = MatchState.from_match_id(mid)
    assert pos == checker and ms.on_roll == ms.turn == play["side"] and not ms.doubled
    assert sorted(ms.dice) == sorted(play["dice"])
