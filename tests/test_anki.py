"""`anki export` and `anki sync` (docs/anki.md) against Anki's own backend
(the `anki` package on PyPI: the code Anki's desktop runs): our .apkg
imported into a new collection, a second export imported as updates, cards
answered through Anki's scheduler and their reviews read back.

The database holds the two real XG matches of tests/fixtures/real/xg
(Squire/Jørgensen v Harmand/Unger, Nicolas HARMAND v Kévin UNGER): they
have errors to export."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import sqlite3
import time
from pathlib import Path

import genanki
import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from gnubg_blunder.anki import DECK_NAME, GUID_SALT, MODEL_ID

REAL_XG = Path(__file__).resolve().parent / "fixtures" / "real" / "xg"
FILES = ("Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg", "match_with_comment.xg")


@pytest.fixture
def store_db(tmp_path, cli):
    path = tmp_path / "anki.db"
    cli("import", *(str(REAL_XG / f) for f in FILES), db=path)
    return path


def _import(col_path: Path, apkg: Path):
    col = Collection(str(col_path))
    try:
        log = col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(apkg), options=ImportAnkiPackageOptions(with_scheduling=False)))
        return log.log
    finally:
        col.close()


def _notes(col_path: Path) -> dict:
    """{guid: mid, fields, cards, and the first card's question and answer as Anki renders them}."""
    col = Collection(str(col_path))
    try:
        out = {}
        for nid in col.find_notes(""):
            n = col.get_note(nid)
            card = n.cards()[0]
            out[n.guid] = {"mid": n.mid, "fields": dict(n.items()), "cards": len(n.card_ids()),
                           "question": card.question(), "answer": card.answer()}
        return out
    finally:
        col.close()


def _export(cli, db, out, *flags):
    return json.loads(cli("--no-config", "anki", "export", *flags, "--format", "json", str(out), db=db).stdout)


def test_export_imports_into_anki_and_a_second_export_updates(store_db, cli, tmp_path, monkeypatch):
    first = _export(cli, store_db, tmp_path / "a.apkg", "--errors")
    notes = first["notes"]
    errors = json.loads(cli("--no-config", "positions", "--errors", "--limit", "0", "--format", "json",
                            db=store_db).stdout)
    assert 0 < len(notes) <= errors["total"]
    keys = [n["key"] for n in notes]
    assert len(set(keys)) == len(keys)  # one note per decision key
    assert {n["position_id"] for n in notes} <= {d["position_id"] for d in errors["decisions"]}
    for n in notes:  # GUID from the key alone
        assert n["guid"] == genanki.guid_for(GUID_SALT, n["key"])
    con = sqlite3.connect(store_db)
    stored = {r[0]: r[1:] for r in con.execute("SELECT guid, note_key, position_id, decision_id, deck FROM anki_notes")}
    best = dict(con.execute("SELECT id, best_move FROM decisions"))
    con.close()
    assert stored == {n["guid"]: (n["key"], n["position_id"], n["decision_id"], DECK_NAME) for n in notes}

    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    log = _import(col_path, tmp_path / "a.apkg")
    assert len(log.new) == len(notes) and not log.updated
    got = _notes(col_path)
    assert set(got) == {n["guid"] for n in notes}
    for n in notes:
        g = got[n["guid"]]
        assert g["mid"] == MODEL_ID and g["cards"] == 1
        f = g["fields"]
        assert f["Board"].startswith("<svg") and f["Board"].endswith("</svg>")
        assert f["Best"] == best[n["decision_id"]].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert f["PositionID"] == n["position_id"] and f["DecisionID"] == str(n["decision_id"])
        assert f["Key"] == n["key"]
        # the card as Anki draws it: the board, the question and "your move?" in front; the answer behind
        assert f["Board"] in g["question"]
        if "|double|" not in n["key"] and "|take|" not in n["key"]:  # the cube's ask names both answers
            assert f["Best"] not in g["question"]
        assert re.search(r"(Your move|Take or pass|Double or no double|Redouble or no redouble)\?</span>", f["Question"])
        # a redouble (the cube the decider's own) asks it as a redouble (docs/anki.md)
        assert ("Redouble or no redouble?" in f["Question"]) == ("|double|" in n["key"] and " own|" in n["key"])
        assert f"Best: <b>{f['Best']}</b>" in g["answer"] and f["Cost"] in g["answer"]
    checker = next(n for n in notes if notes and "|double|" not in n["key"] and "|take|" not in n["key"])
    after = got[checker["guid"]]["fields"]["BoardAfter"]
    assert after.startswith("<svg")  # the board after the best play
    # ... where the mover has played and the opponent rolls next: the mover is not "on roll" (docs/diagrams.md)
    assert "has played" in after and "on roll" not in after
    cube = [n for n in notes if "|double|" in n["key"]]
    if cube:
        f = got[cube[0]["guid"]]["fields"]
        assert "no double" in f["Candidates"] and "double/take" in f["Candidates"] and f["BoardAfter"] == ""

    # A re-analysis changed a best move; a later export of the same positions updates, never duplicates.
    changed = notes[0]
    con = sqlite3.connect(store_db)
    with con:
        con.execute("UPDATE decisions SET best_move = best_move || ' (re-analysed)' WHERE id = ?",
                    (changed["decision_id"],))
    con.close()
    later = time.time() + 120  # Anki updates a note from a package whose note is newer
    monkeypatch.setattr("gnubg_blunder.anki.apkg.time.time", lambda: later)
    second = _export(cli, store_db, tmp_path / "b.apkg", "--errors")
    assert [n["guid"] for n in second["notes"]] == [n["guid"] for n in notes]
    log = _import(col_path, tmp_path / "b.apkg")
    assert not log.new and len(log.updated) >= 1
    again = _notes(col_path)
    assert set(again) == set(got)  # note count unchanged
    assert again[changed["guid"]]["fields"]["Best"].endswith("(re-analysed)")
    assert all(again[g]["cards"] == 1 for g in again)


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).isoformat(timespec="milliseconds")


def test_sync_reads_the_reviews_once_and_never_writes_the_collection(store_db, cli, tmp_path):
    notes = _export(cli, store_db, tmp_path / "a.apkg", "--errors", "--limit", "6")["notes"]
    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    _import(col_path, tmp_path / "a.apkg")
    col = Collection(str(col_path))
    try:
        col.decks.select(col.decks.id_for_name(DECK_NAME))
        for ease in (1, 2, 3, 4):  # Again, Hard, Good, Easy
            card = col.sched.getCard()
            col.sched.answerCard(card, ease)
        revlog = col.db.all("SELECT r.id, r.ease, r.type, n.guid FROM revlog r JOIN cards c ON c.id = r.cid "
                            "JOIN notes n ON n.id = c.nid ORDER BY r.id")
    finally:
        col.close()
    assert [r[1] for r in revlog] == [1, 2, 3, 4]
    digest = hashlib.sha256(col_path.read_bytes()).hexdigest()

    res = json.loads(cli("anki", "sync", str(col_path), "--format", "json", db=store_db).stdout)
    assert (res["reviews"], res["added"], res["already_stored"]) == (4, 4, 0)
    assert res["grades"] == {"again": 1, "hard": 1, "good": 1, "easy": 1}
    by_guid = {n["guid"]: n for n in notes}
    con = sqlite3.connect(store_db)
    rows = con.execute("SELECT position_id, action, grade, decision_id, at FROM study_actions ORDER BY at").fetchall()
    con.close()
    names = {0: "anki learn", 1: "anki review", 2: "anki relearn", 3: "anki cram"}
    assert rows == [(by_guid[g]["position_id"], names[t], ease, by_guid[g]["decision_id"], _utc(rid))
                    for rid, ease, t, g in revlog]
    assert hashlib.sha256(col_path.read_bytes()).hexdigest() == digest  # Anki's file untouched

    res = json.loads(cli("anki", "sync", str(col_path), "--format", "json", db=store_db).stdout)
    assert (res["reviews"], res["added"], res["already_stored"]) == (4, 0, 4)  # a second sync adds nothing
    con = sqlite3.connect(store_db)
    assert con.execute("SELECT COUNT(*) FROM study_actions").fetchone()[0] == 4
    con.close()

    # Anki still open: the review it keeps in the -wal is read from the copied -wal, and it is said
    col = Collection(str(col_path))
    try:
        col.decks.select(col.decks.id_for_name(DECK_NAME))
        col.sched.answerCard(col.sched.getCard(), 3)
        assert Path(str(col_path) + "-wal").exists()
        res = json.loads(cli("anki", "sync", str(col_path), "--format", "json", db=store_db).stdout)
        text = cli("anki", "sync", str(col_path), db=store_db).stdout
    finally:
        col.close()
    assert (res["reviews"], res["added"], res["already_stored"], res["anki_open"]) == (5, 1, 4, True)
    assert "Anki seems to be open" in text and "0 new, 5 already stored" in text


def test_sync_refuses_what_is_no_collection(store_db, cli, tmp_path):
    res = cli("anki", "sync", str(tmp_path / "missing.anki2"), db=store_db, check=False)
    assert res.returncode == 2 and "no such file" in res.stderr
    bad = tmp_path / "bad.anki2"
    bad.write_bytes(b"not a database at all" * 100)
    res = cli("anki", "sync", str(bad), db=store_db, check=False)
    assert res.returncode == 2 and "close Anki" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_export_needs_an_apkg_name_and_decisions(store_db, cli, tmp_path):
    res = cli("anki", "export", str(tmp_path / "x.txt"), db=store_db, check=False)
    assert res.returncode == 2 and ".apkg" in res.stderr
    res = cli("--no-config", "anki", "export", "--player", "Nicolas HARMAND", "--from", "2030-01-01",
              str(tmp_path / "none.apkg"), db=store_db, check=False)
    assert res.returncode == 1 and "no file written" in res.stdout and not (tmp_path / "none.apkg").exists()


def test_a_note_shows_the_most_recent_play_at_its_key(db_copy, cli, tmp_path):
    """tests/fixture_db.py: at w+bBAyDgOTiCFQ, 3-1, cube centred, 0-0 in a
    7-point match, charlot1 played twice in match 1 (2025-01-10: decisions 2,
    e = 20 mpt, and 3, e = 80 mpt, an error) and charlot2 once in match 3
    (2025-03-20: decision 23, no error).  The error picks the key; the note
    shows the filter's most recent play there: charlot2's of March for both
    sides, charlot1's error for charlot1."""
    key = "w+bBAyDgOTiCFQ|3-1|cube 1 centred|0-0 of 7"
    both = {n["key"]: n for n in _export(cli, db_copy, tmp_path / "both.apkg", "--errors")["notes"]}
    assert both[key]["decision_id"] == 23
    mine = {n["key"]: n for n in _export(cli, db_copy, tmp_path / "mine.apkg", "--errors", "--player",
                                         "charlot1")["notes"]}
    assert mine[key]["decision_id"] == 3
    con = sqlite3.connect(db_copy)
    assert con.execute("SELECT decision_id FROM anki_notes WHERE note_key = ?", (key,)).fetchone() == (3,)
    con.close()


def test_retention_counts_the_reviews_of_learned_cards_answered_in_anki(store_db, cli, tmp_path):
    """Four cards learned in Anki (answered Easy: a "learn" review each,
    then made due today: a "manual" entry each, no answer), then reviewed Again, Hard, Good, Easy ("review"
    entries of learned cards): after `anki sync`, the training view's
    retention of this week is the share graded Hard or better, by hand
    3 / 4 = 0.75 over 4 reviews; the four learn reviews are not counted."""
    _export(cli, store_db, tmp_path / "r.apkg", "--errors", "--limit", "4")
    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    _import(col_path, tmp_path / "r.apkg")
    col = Collection(str(col_path))
    try:
        col.decks.select(col.decks.id_for_name(DECK_NAME))
        for _ in range(4):
            col.sched.answerCard(col.sched.getCard(), 4)  # Easy: graduated
        col.sched.set_due_date(list(col.find_cards("deck:current")), "0")
        for ease in (1, 2, 3, 4):
            col.sched.answerCard(col.sched.getCard(), ease)
        types = col.db.list("SELECT type FROM revlog ORDER BY id")
    finally:
        col.close()
    assert types == [0] * 4 + [4] * 4 + [1] * 4  # learn ×4, the due dates set (manual: no answer), review ×4
    cli("anki", "sync", str(col_path), db=store_db)
    windows = json.loads(cli("--no-config", "training", "--format", "json", db=store_db).stdout)["windows"]
    (week,) = [w for w in windows if w["anki_reviews"]]
    assert (week["anki_learned_reviews"], week["anki_retention"]) == (4, pytest.approx(0.75))
    assert week["anki_reviews"] == 8  # the reviews read: the four learn steps too


def test_a_take_card_draws_the_doubler_on_roll_and_asks_take_or_pass(store_db, cli, tmp_path):
    """Issue 26: a take/pass card drew the taker as on roll and ended with
    "Your move?".  The doubler is on roll (the board from the doubler's
    side, the doubler at the bottom); the card asks "Take or pass?", a
    double card "Double or no double?", a checker card "Your move?"."""
    from gnubg_blunder.board.position import BAR, Board

    res = _export(cli, store_db, tmp_path / "t.apkg", "--kind", "take")
    res_pass = _export(cli, store_db, tmp_path / "p.apkg", "--kind", "pass")
    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    _import(col_path, tmp_path / "t.apkg")
    _import(col_path, tmp_path / "p.apkg")
    got = _notes(col_path)
    notes = res["notes"] + res_pass["notes"]
    assert notes
    con = sqlite3.connect(store_db)
    players = {}
    for n in notes:
        players[n["guid"]] = con.execute(
            "SELECT m.player0, m.player1, d.player FROM decisions d JOIN analyses a ON a.id = d.analysis_id "
            "JOIN matches m ON m.id = a.match_id WHERE d.id = ?", (n["decision_id"],)).fetchone()
    con.close()
    on_bar = 0
    for n in notes:
        g = got[n["guid"]]
        f = g["fields"]
        p0, p1, taker = players[n["guid"]]
        taker_name, doubler_name = (p0, p1) if taker == 0 else (p1, p0)
        # the doubler named on roll under the board, the taker above without it
        assert re.search(rf"{re.escape(doubler_name)}</tspan> \u2014 on roll", f["Board"]), f["Board"][-800:]
        assert f"{taker_name}</tspan> \u2014 on roll" not in f["Board"]
        # the board drawn is the position seen from the doubler (the taker's position swapped)
        drawn = re.search(r"Position ID (\S+)\.", f["Board"]).group(1)
        assert drawn == Board.from_position_id(n["position_id"]).swapped().position_id()
        on_bar += Board.from_position_id(n["position_id"]).on_roll[BAR] > 0
        assert f["Question"].endswith('<span class="bgb-ask">Take or pass?</span>')
        assert "Your move?" not in g["question"] and "Take or pass?" in g["question"]
    doubles = _export(cli, store_db, tmp_path / "d.apkg", "--kind", "double")["notes"]
    checker = _export(cli, store_db, tmp_path / "c.apkg", "--kind", "checker", "--limit", "1")["notes"]
    _import(col_path, tmp_path / "d.apkg")
    _import(col_path, tmp_path / "c.apkg")
    got = _notes(col_path)
    for n in doubles:
        ask = "Redouble or no redouble?" if " own|" in n["key"] else "Double or no double?"
        assert ask in got[n["guid"]]["question"]
        assert "Your move?" not in got[n["guid"]]["question"]
    assert checker and "Your move?" in got[checker[0]["guid"]]["question"]
