"""One match, one set of stored numbers (issue 29): a match stored from
gnubg's live ``gnubg.match()`` and the same match imported from its SGF
file, each into a fresh database, have every decision, roll and
candidate-list column equal — ids, source paths and import times excluded.
The live path rounds gnubg's values as gnubg's own SGF writer prints them
(importers/gnubg_match.py).  The dict is the real gnubg's reading of the
repository's files (conftest.gnubg_match_dump)."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from conftest import FIXTURES, gnubg_match_dump, needs_gnubg
from gnubg_blunder.importers.gnubg_match import match_from_dict
from gnubg_blunder.importers.sgf import read_match
from gnubg_blunder.database import SQLiteStore

# what differs by nature between two stores of one match: row ids, the file's path, when it was stored
EXCLUDED = {"id", "analysis_id", "decision_id", "source", "source_path", "imported_at"}


def stored_columns(db) -> dict:
    """{table: its rows in order, without the EXCLUDED columns} for the
    decision, roll and candidate-list tables (and the match's and games')."""
    con = sqlite3.connect(db)
    try:
        out = {}
        for table, order in (("matches", "id"), ("games", "game"), ("decisions", "game, seq"),
                             ("rolls", "game, seq"), ("decision_candidates", "decision_id")):
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})") if r[1] not in EXCLUDED]
            out[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {order}").fetchall()
            out[table + " columns"] = cols
        return out
    finally:
        con.close()


@needs_gnubg
@pytest.mark.parametrize("name", ["analysed_eval", "money_session", "rollout"])
def test_a_match_stored_live_equals_its_sgf_import(name, tmp_path):
    sgf = tmp_path / f"{name}.sgf"
    shutil.copy(FIXTURES / "sgf" / f"{name}.sgf", sgf)
    live_db, sgf_db = tmp_path / "live.db", tmp_path / "sgf.db"
    with SQLiteStore(live_db) as store:
        store.add_match(match_from_dict(gnubg_match_dump(sgf), source_path=None))
    with SQLiteStore(sgf_db) as store:
        store.add_match(read_match(sgf))
    live, imported = stored_columns(live_db), stored_columns(sgf_db)
    assert live["decisions"], name
    for table in ("matches", "games", "decisions", "rolls", "decision_candidates"):
        cols = live[table + " columns"]
        assert len(live[table]) == len(imported[table]), (name, table)
        for a, b in zip(live[table], imported[table]):
            differ = [(c, x, y) for c, x, y in zip(cols, a, b) if x != y]
            assert not differ, (name, table, differ[:5])
