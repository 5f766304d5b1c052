"""Practice rough edges (issue 26, item 4): why no reference position is
proposed once every candidate is studied (text and HTML), and `anki sync`
given the package instead of the collection."""

from __future__ import annotations


def test_references_say_why_none_is_proposed_after_exporting_every_error(cli, db_copy, tmp_path):
    before = cli("--no-config", "references", db=db_copy).stdout
    assert "No position to propose" not in before
    cli("--no-config", "anki", "export", tmp_path / "deck.apkg", db=db_copy)
    text = cli("--no-config", "references", db=db_copy).stdout
    head = [line for line in text.splitlines() if line.startswith("Reference positions")][0]
    n = int(head.split("—", 1)[1].split()[0])
    assert (f"No position to propose: all {n} candidate positions are already studied" in text
            and "exporting every error to Anki studies them all" in text)
    page = tmp_path / "r.html"
    cli("--no-config", "report", "--html", page, db=db_copy)
    html = page.read_text(encoding="utf-8")
    refs = html[html.index('<section id="references">'):]
    assert f"No position to propose: all {n} candidate positions are already studied" in refs.split("</section>")[0]


def test_anki_sync_of_a_package_asks_for_the_collection(cli, db_copy, tmp_path):
    deck = tmp_path / "deck.apkg"
    cli("--no-config", "anki", "export", deck, db=db_copy)
    res = cli("--no-config", "anki", "sync", deck, db=db_copy, check=False)
    assert res.returncode == 2 and "close Anki" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        f"error: {deck}: an Anki package, not a collection: `anki sync` reads your reviews from Anki's collection "
        "file, collection.anki2 in your Anki profile's folder (e.g. ~/.local/share/Anki2/User 1/collection.anki2)"]


# -- chances and depth, training after a first sync, redoubles, beavers, unchanged notes ----------------------

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import DATA, committed_selfplay_file, run_cli_inprocess

XG_FILES = [DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg",
            DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg"]


@pytest.fixture(scope="module")
def practice_db(tmp_path_factory) -> Path:
    """The two bundled XG matches (7 points), the committed self-play m23-3
    (3 points: Strongbot doubles, Weakbot takes) and m3-0 (money: Weakbot
    redoubles to 32, Strongbot passes a redouble)."""
    path = tmp_path_factory.mktemp("practice") / "practice.db"
    run_cli_inprocess("--no-config", "import", *XG_FILES, committed_selfplay_file(23, 3),
                      committed_selfplay_file(3, 0), db=path)
    return path


@pytest.fixture
def practice_copy(practice_db, tmp_path) -> Path:
    return Path(shutil.copy(practice_db, tmp_path / "practice.db"))


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _stored_candidates(db, decision_id):
    from gnubg_blunder.codec.candidates import decode_row

    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    row = dict(con.execute("SELECT d.*, c.candidates FROM decisions d JOIN decision_candidates c "
                           "ON c.decision_id = d.id WHERE d.id = ?", (decision_id,)).fetchone())
    con.close()
    return row, list(decode_row(row))


def _items(db, player, decision_type="all"):
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.quiz.core import choose
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(db, upgrade=False) as st:
        return choose(st, Filter(player=player, decision_type=decision_type), thresholds_for(st), count=0, seed=1,
                      errors_only=False)


def test_a_quiz_answer_shows_the_chances_and_depth_of_the_best_and_the_answer(practice_db):
    """Decision 78 (Squire/Jørgensen, 5-5, 13/8(3) 10/5 played, best 7/2(2)
    6/1*(2), XG's XGR++): the answer's feedback gives both plays' cubeless
    chances and their depth as stored; the % MWC beside the 55 mpt is
    100 × 0.055 × mwc_per_emg (it printed 0.01 %, a share read as %)."""
    from gnubg_blunder.quiz.core import feedback_text, grade

    item = next(i for i in _items(practice_db, "Squire/Jørgensen") if i.decision_id == 78)
    row, cands = _stored_candidates(practice_db, 78)
    best, mine = cands[0], cands[row["played_index"]]
    text = feedback_text(item, grade(item, "13/8(3) 10/5"))
    for label, c in (("best ", best), ("yours", mine)):
        w, wg, wbg, lg, lbg = c["probs"]
        assert (f"  {label} {c['move']}, {c['depth']}: win {_pct(w)} (gammon {_pct(wg)}, backgammon {_pct(wbg)}), "
                f"lose {_pct(1 - w)} (gammon {_pct(lg)}, backgammon {_pct(lbg)})") in text.splitlines()
    assert best["depth"] == "XGR++" and mine["move"] == "13/8(3) 10/5"
    assert f"error 55 mpt, {100 * 0.055 * row['mwc_per_emg']:.2f} % MWC" in text
    # the best answered: one line, "best = yours"
    text = feedback_text(item, grade(item, best["move"]))
    assert f"Chances (cubeless) and depth: {best['move']} (best = yours), XGR++: win {_pct(best['probs'][0])}" in text
    # a take: the position's chances before the double from the taker's side (the doubler's stored, mirrored)
    # and the depth of the cube evaluation
    cube = next(i for i in _items(practice_db, "Weakbot", "cube") if i.kind == "take" and i.length == 3)
    text = feedback_text(cube, grade(cube, "take"))
    w, wg, wbg, lg, lbg = _doubler_chances(practice_db, cube.decision_id)
    assert (f"Chances (cubeless) and depth: the position (no double), 0-ply, Weakbot's chances: win {_pct(1 - w)} "
            f"(gammon {_pct(lg)}, "
            f"backgammon {_pct(lbg)}), lose {_pct(w)} (gammon {_pct(wg)}, backgammon {_pct(wbg)})") in text


def _doubler_chances(db, decision_id):
    con = sqlite3.connect(db)
    (text,) = con.execute("SELECT cube_probs FROM decisions WHERE id = ?", (decision_id,)).fetchone()
    con.close()
    return json.loads(text)


def _import_into_anki(col_path: Path, apkg: Path):
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    col = Collection(str(col_path))
    try:
        log = col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(apkg), options=ImportAnkiPackageOptions(with_scheduling=False))).log
        cards = {}
        for nid in col.find_notes(""):
            note = col.get_note(nid)
            card = note.cards()[0]
            cards[int(note["DecisionID"])] = {"fields": dict(note.items()), "question": card.question(),
                                              "answer": card.answer()}
        return log, cards
    finally:
        col.close()


def _chance_rows(html: str) -> dict:
    """{first cell: [cells]} of a card's chances table."""
    table = html[html.index('<table class="bgb-chances">'):]
    table = table[:table.index("</table>")]
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table)]
    return {r[0]: r[1:] for r in rows if r}


def test_a_card_shows_the_chances_and_depth_of_the_best_and_the_played_move(practice_copy, tmp_path):
    """Cards exported and imported by Anki's own backend: the back of a
    checker card shows the best play's and the played play's depth and
    six cubeless chances as stored; a cube card the depth of its cube
    evaluation and the chances before the double, from the decider's side."""
    apkg = tmp_path / "c.apkg"
    run_cli_inprocess("--no-config", "anki", "export", "--errors", apkg, db=practice_copy)
    _log, cards = _import_into_anki(tmp_path / "col.anki2", apkg)
    card = cards[78]
    row, cands = _stored_candidates(practice_copy, 78)
    rows = _chance_rows(card["fields"]["Candidates"])
    for label, c in (("best: ", cands[0]), ("yours: ", cands[row["played_index"]])):
        w, wg, wbg, lg, lbg = c["probs"]
        assert rows[label + c["move"]] == [c["depth"]] + [f"{100 * x:.1f}" for x in (w, wg, wbg, 1 - w, lg, lbg)]
    assert '<table class="bgb-chances">' in card["answer"] and '<table class="bgb-chances">' not in card["question"]
    cube_apkg = tmp_path / "cube.apkg"
    run_cli_inprocess("--no-config", "anki", "export", "--decision-type", "cube", cube_apkg, db=practice_copy)
    _log, cards = _import_into_anki(tmp_path / "cube.anki2", cube_apkg)
    con = sqlite3.connect(practice_copy)
    cube = {i: (kind, d) for i, kind, d in con.execute("SELECT id, kind, depth FROM decisions WHERE kind != 'checker'")}
    con.close()
    shown = [k for k in cards if k in cube]
    assert {cube[k][0] for k in shown} >= {"nodouble", "take"}
    for k in shown:
        w, wg, wbg, lg, lbg = _doubler_chances(practice_copy, k)
        mine = (w, wg, wbg, 1 - w, lg, lbg) if cube[k][0] in ("nodouble", "double") else (1 - w, lg, lbg, w, wg, wbg)
        assert _chance_rows(cards[k]["fields"]["Candidates"]) == {
            "position (no double)": [cube[k][1]] + [f"{100 * x:.1f}" for x in mine]}


def test_training_counts_the_reviews_of_a_first_sync_in_learning(practice_copy, tmp_path):
    """A first `anki sync` after three cards answered once (all still in
    learning: Anki's "learn" entries): `training` shows 3 reviews read and
    no retention yet, said as such — not "— / 0" as if nothing was read."""
    from anki.collection import Collection

    from gnubg_blunder.anki import DECK_NAME

    apkg = tmp_path / "l.apkg"
    run_cli_inprocess("--no-config", "anki", "export", "--errors", "--limit", "3", apkg, db=practice_copy)
    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    _import_into_anki(col_path, apkg)
    col = Collection(str(col_path))
    try:
        col.decks.select(col.decks.id_for_name(DECK_NAME))
        for ease in (1, 3, 3):  # Again, Good, Good: learning steps, no card graduates
            col.sched.answerCard(col.sched.getCard(), ease)
        types = col.db.list("SELECT type FROM revlog")
    finally:
        col.close()
    assert types == [0, 0, 0]
    run_cli_inprocess("--no-config", "anki", "sync", col_path, db=practice_copy)
    windows = json.loads(run_cli_inprocess("--no-config", "training", "--format", "json",
                                           db=practice_copy).stdout)["windows"]
    (week,) = [w for w in windows if w["anki_reviews"]]
    assert (week["anki_reviews"], week["anki_learned_reviews"], week["anki_retention"]) == (3, 0, None)
    text = run_cli_inprocess("--no-config", "training", db=practice_copy).stdout
    line = next(x for x in text.splitlines() if x.startswith(week["from"]))
    assert re.search(r"— \(no review graduated yet\)\s+0\s+3$", line), line


def test_a_redouble_is_asked_as_a_redouble(practice_copy, tmp_path):
    """m3-0 (money): Weakbot owns the cube at 16 and is on roll — the quiz
    and the card ask "redouble or no redouble?"; Strongbot answering a
    redouble is told who redoubles.  A centred cube still asks "double or
    no double?"."""
    from gnubg_blunder.quiz.core import grade, question_text

    items = _items(practice_copy, "Weakbot", "cube")
    redouble = next(i for i in items if i.kind in ("nodouble", "double") and i.cube_owner == "you")
    assert question_text(redouble).splitlines()[-1] == "Weakbot (X) on roll, before rolling: redouble or no redouble?"
    assert grade(redouble, "").message == "type redouble or no redouble, or q to quit"
    g = grade(redouble, "no redouble")
    assert g.graded and g.answer == "no redouble"
    assert g.best in ("redouble (redouble/take)", "redouble (redouble/pass)", "no redouble (no redouble)",
                      "no redouble (too good)")
    centred = next(i for i in _items(practice_copy, None, "cube")
                   if i.kind in ("nodouble", "double") and i.cube_owner == "centred")
    assert question_text(centred).splitlines()[-1].endswith("before rolling: double or no double?")
    answer = next(i for i in _items(practice_copy, "Strongbot", "cube") if i.responds and i.cube_owner == "opponent")
    assert question_text(answer).splitlines()[-1] == (
        f"Weakbot redoubles to {2 * answer.cube_value} — Strongbot (X) to take or pass?")
    # the card: exported, imported by Anki, rendered
    apkg = tmp_path / "r.apkg"
    run_cli_inprocess("--no-config", "anki", "export", "--decision-type", "cube", apkg, db=practice_copy)
    _log, cards = _import_into_anki(tmp_path / "col.anki2", apkg)
    asks = {k: re.search(r'class="bgb-ask">(.*?)</span>', c["fields"]["Question"]).group(1) for k, c in cards.items()}
    assert asks[redouble.decision_id] == "Redouble or no redouble?"
    assert "Double or no double?" in asks.values()  # a centred cube's card


def test_beaver_is_refused_in_match_play_and_a_take_for_money(practice_copy):
    """m23-3 (3 points): `beaver` gets one line and a new try; m3-0 (money):
    `beaver` is graded as a take."""
    from gnubg_blunder.quiz.core import grade

    match_take = next(i for i in _items(practice_copy, "Weakbot", "cube") if i.responds and i.length == 3)
    g = grade(match_take, "beaver")
    assert g.retry and g.message == ("no beaver in match play (beavers exist only in money play): "
                                     "answer take or pass")
    assert grade(match_take, "take").graded
    money_take = next(i for i in _items(practice_copy, "Weakbot", "cube") if i.responds and i.length == 0)
    b, t = grade(money_take, "beaver"), grade(money_take, "take")
    assert b.graded and (b.answer, b.error) == ("take", t.error)


def test_an_unchanged_export_updates_no_note(practice_copy, tmp_path):
    """A second export of an unchanged database: "0 new, 0 updated, N
    unchanged", and Anki's importer updates none (it reported every note
    updated: each package note was newer); a note whose content changed
    is the one updated."""
    def export(name):
        out = run_cli_inprocess("--no-config", "anki", "export", "--errors", tmp_path / name, db=practice_copy).stdout
        return out, json.loads(run_cli_inprocess("--no-config", "anki", "export", "--errors", "--format", "json",
                                                 tmp_path / f"j-{name}", db=practice_copy).stdout)

    col = tmp_path / "col.anki2"
    first, _ = export("a.apkg")
    log, _ = _import_into_anki(col, tmp_path / "a.apkg")
    n = len(log.new)
    assert n and f"{n} new, 0 updated, 0 unchanged since the last export" in first
    again, obj = export("b.apkg")
    assert f"wrote {n} notes" in again and f"0 new, 0 updated, {n} unchanged since the last export" in again
    assert (obj["new"], obj["updated"], obj["unchanged"]) == (0, 0, n)
    log, _ = _import_into_anki(col, tmp_path / "b.apkg")
    assert (len(log.new), len(log.updated), len(log.duplicate)) == (0, 0, n)
    changed = obj["notes"][0]
    con = sqlite3.connect(practice_copy)
    with con:
        con.execute("UPDATE decisions SET best_move = best_move || ' (re-analysed)' WHERE id = ?",
                    (changed["decision_id"],))
    con.close()
    later, obj = export("c.apkg")
    assert f"0 new, 1 updated, {n - 1} unchanged since the last export" in later
    log, cards = _import_into_anki(col, tmp_path / "c.apkg")
    assert (len(log.new), len(log.updated)) == (0, 1)
    assert cards[changed["decision_id"]]["fields"]["Best"].endswith("(re-analysed)")
