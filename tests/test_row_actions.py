"""The actions of `errors`' rows (docs/commands.md, errors): ``--deck
OUT.apkg`` (anki/command.py's export over the decisions behind the rows)
and ``--quiz`` (quiz/terminal.py over the same decisions).  The shared
hand-made fixture (tests/fixture_db.py), in-process."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile

import genanki

from gnubg_blunder.anki import GUID_SALT


def _json(cli, *args, db):
    return json.loads(cli("--no-config", *args, "--format", "json", db=db).stdout)


def _listed(cli, db) -> list:
    """The decisions behind `errors`' rows, as `positions` lists them (each
    listed row's theme, errors only)."""
    obj = _json(cli, "errors", db=db)
    out = {}
    for theme in {r["theme"] for r in obj["recurring"] + obj["theme_not_determined"]}:
        for d in _json(cli, "positions", "--errors", "--theme", theme, "--limit", "0", db=db)["decisions"]:
            out[d["row_id"]] = d
    assert out
    return list(out.values())


def _keys(db, decisions) -> set:
    from gnubg_blunder.anki.notes import note_key
    from gnubg_blunder.database import open_store

    length = {d["row_id"]: d["length"] for d in decisions}
    store = open_store(str(db))
    try:
        rows = store.decision_rows(list(length))
    finally:
        store.close()
    return {k for r in rows for k in [note_key(r, length[r["id"]])] if k}


def test_errors_deck_writes_one_note_per_decision_key_of_the_rows(db_copy, cli, tmp_path):
    keys = _keys(db_copy, _listed(cli, db_copy))
    out = tmp_path / "rows.apkg"
    obj = _json(cli, "errors", "--deck", str(out), db=db_copy)
    assert obj["deck"]["notes"] == len(keys) > 0
    with zipfile.ZipFile(out) as z:
        (tmp_path / "col.anki2").write_bytes(z.read("collection.anki2"))
    con = sqlite3.connect(tmp_path / "col.anki2")
    try:
        guids = {r[0] for r in con.execute("SELECT guid FROM notes")}
    finally:
        con.close()
    assert guids == {genanki.guid_for(GUID_SALT, k) for k in keys}
    text = cli("--no-config", "errors", "--deck", str(out), db=db_copy).stdout
    assert f"Wrote {len(keys)} notes" in text and str(out) in text
    assert f"0 new, 0 updated, {len(keys)} unchanged since the last export" in text  # docs/anki.md


def test_errors_quiz_asks_a_decision_of_the_rows(db_copy, cli):
    positions = {d["position_id"] for d in _listed(cli, db_copy)}
    shown = cli("--no-config", "errors", "--quiz", db=db_copy, input="q\n").stdout
    assert "Recurring errors" in shown  # the table first
    question = shown[shown.index("Question 1/"):]
    pid = re.search(r"Position ID: (\S+)", question).group(1)
    assert pid in positions
    assert "0 graded answers" in question


def test_plan_names_a_familys_three_actions(db, cli):
    text = cli("--no-config", "plan", db=db).stdout
    assert ("Actions for a family F: `quiz --family F`, `anki export --family F --errors OUT.apkg`, "
            "`collection add NAME --from-plan F`") in text
