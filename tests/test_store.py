"""The store: schema versions, one transaction per match, identity, several
analyses of one match."""

from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import needs_gnubg, run_cli
from gnubg_blunder.filters import Filter
from gnubg_blunder.importers.sgf import read_match
from gnubg_blunder.database import SQLiteStore
from gnubg_blunder.store import ALREADY_STORED, STORED, StoreError
from gnubg_blunder.store.schema import SCHEMA_VERSION
from gnubg_blunder.codec.candidates import decode_row


@pytest.fixture()
def charlot(shared_data):
    return read_match(shared_data / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf")


def counts(path):
    c = sqlite3.connect(path)
    try:
        return [c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("matches", "games", "analyses", "decisions", "rolls")]
    finally:
        c.close()


def test_schema_version_wal_and_reopen(tmp_path, charlot):
    db = tmp_path / "s.db"
    with SQLiteStore(db) as st:
        assert st.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        st.add_match(charlot)
    with SQLiteStore(db) as st:  # reopening migrates nothing and keeps the data
        assert st.count_matches() == 1


def test_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "new.db"
    SQLiteStore(db).close()
    c = sqlite3.connect(db)
    c.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    c.commit()
    c.close()
    with pytest.raises(StoreError, match="newer"):
        SQLiteStore(db)


def test_importing_again_is_a_no_op(tmp_path, charlot):
    db = tmp_path / "s.db"
    with SQLiteStore(db) as st:
        first = st.add_match(charlot)
        before = counts(db)
        again = st.add_match(charlot)
    assert (first.status, again.status) == (STORED, ALREADY_STORED)
    assert again.match_id == first.match_id
    assert counts(db) == before


def test_identity_ignores_names(tmp_path, charlot):
    """Exports spell names differently: the dice and moves make the match."""
    import copy

    renamed = copy.deepcopy(charlot)
    renamed.players = ("Charlot One", "Charlot Two")
    with SQLiteStore(tmp_path / "s.db") as st:
        st.add_match(charlot)
        assert st.add_match(renamed).status == ALREADY_STORED


def test_a_failing_match_leaves_nothing(tmp_path, charlot, monkeypatch):
    db = tmp_path / "s.db"
    with SQLiteStore(db) as st:
        def boom(*a, **k):
            raise sqlite3.OperationalError("disk gone")
        monkeypatch.setattr(st, "_insert_decisions", boom)
        with pytest.raises(sqlite3.OperationalError):
            st.add_match(charlot)
    assert counts(db) == [0, 0, 0, 0, 0]


@needs_gnubg
def test_two_analyses_of_one_match(selfplay, tmp_path):
    """The same match analysed at 0 and 1 ply: one match, two analyses; the
    deepest is used unless the filter asks otherwise (SPEC §14)."""
    from gnubg_blunder.gnubg.process import run_commands

    src = selfplay(21, 7)
    deeper = tmp_path / "m21-7-1ply.sgf"
    run_commands(
        f'set display off\nload match "{src}"\nanalyse clear match\n'
        "set analysis chequerplay evaluation plies 1\nset analysis cubedecision evaluation plies 1\n"
        f'analyse match\nsave match "{deeper}"\n'
    )
    db = tmp_path / "two.db"
    out = run_cli("import", src, deeper, db=db).stdout
    assert "stored as match 1" in out and "analysis added as match 1" in out
    m = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
    assert len(m) == 1
    assert sorted(a["depth"] for a in m[0]["analyses"]) == ["0-ply", "1-ply"]
    assert m[0]["analysis_used"] == {"engine": "gnubg", "depth": "1-ply"}
    with SQLiteStore(db) as st:
        assert st.select(Filter(min_depth=1)).matches[0].depth_label == "1-ply"
        assert st.select(Filter(min_depth=2)).matches == []
        shallow = st.choose_analysis(st._analyses_by_match()[1], Filter())
        assert shallow["depth_label"] == "1-ply"
        assert st.add_match(read_match(deeper)).status == ALREADY_STORED
    # the figures are the 1-ply analysis', not the 0-ply one's
    only0 = tmp_path / "zero.db"
    run_cli("import", src, db=only0)
    pr0 = json.loads(run_cli("stats", "--format", "json", db=only0).stdout)["error_emg"]
    pr_both = json.loads(run_cli("stats", "--format", "json", db=db).stdout)["error_emg"]
    pr1 = json.loads(run_cli("stats", "--format", "json", "--min-depth", "1", db=db).stdout)["error_emg"]
    assert pr_both == pr1 != pr0


def test_a_version_1_database_is_migrated(tmp_path, charlot):
    """A database made by schema step 1 only gets step 2 and keeps its data."""
    from gnubg_blunder.store import schema

    db = tmp_path / "v1.db"
    conn = sqlite3.connect(db)
    for stmt in schema._statements(schema.MIGRATIONS[0][1]):
        conn.execute(stmt)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.execute("INSERT INTO matches(identity, length, player0, player1, source, imported_at) "
                 "VALUES ('x', 7, 'charlot1', 'charlot2', 'sgf', '2026-01-01')")
    conn.commit()
    conn.close()
    with SQLiteStore(db) as st:
        assert st.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert st.conn.execute("SELECT kind, player0 FROM matches").fetchall() == [("match", "charlot1")]


def test_candidate_lists_stay_with_their_decision(tmp_path, charlot):
    """Candidate lists live in their own table; each is its decision's."""
    with SQLiteStore(tmp_path / "c.db") as st:
        st.add_match(charlot)
        st.add_match(charlot)  # a no-op must not add lists either
        ids = [r[0] for r in st.conn.execute("SELECT id FROM decisions WHERE kind = 'checker'")]
        rows = st.decision_rows(ids)
        n_lists = st.conn.execute("SELECT COUNT(*) FROM decision_candidates").fetchone()[0]
    assert len(rows) == len(ids) == n_lists
    for r in rows:
        cands = decode_row(r)
        assert len(cands) == r["n_candidates"]
        assert cands[0]["move"] == r["best_move"]
        assert cands[r["played_index"]]["move"] == r["played_move"]
