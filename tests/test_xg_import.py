"""eXtreme Gammon matches: figures equal to XG's own statistics window,
the same match from gnubg and XG, bad files refused without a trace."""

from __future__ import annotations

import hashlib
import json

import pytest

from conftest import run_cli_inprocess as run_cli
from gnubg_blunder.importers.build import depth_rank
from gnubg_blunder.importers.xg import read_match, xg_depth_label

REFERENCES = [
    ("Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg", "aachen-squire-7pt.xg-reference.json"),
    ("charlot1-charlot2_7p_2025-11-08-2305.xg", "charlot1-charlot2.xg-reference.json"),
]


@pytest.mark.parametrize("xg_name, ref_name", REFERENCES)
def test_figures_equal_xgs_statistics_window(shared_data, tmp_path, xg_name, ref_name):
    """SPEC §2 counting on XG's own flags; take/pass MWC at the pre-double
    cube. Counts exact, PR ±0.02, EMG ±0.004, MWC ±0.06 pp, every part."""
    ref = json.loads((shared_data / "xg" / ref_name).read_text())["xg"]
    db = tmp_path / "x.db"
    run_cli("import", shared_data / "xg" / xg_name, db=db)
    (m,) = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
    assert m["source"] == "xg" and m["analysis_used"]["engine"] == "xg"
    for side, key in zip(m["sides"], ("player1", "player2")):
        r = ref[key]
        where = side["player"]
        assert side["decisions"] == r["total_decisions"], where
        assert side["checker_decisions"] == r["checker_unforced"], where
        assert side["double_decisions"] == r["double_decisions"], where
        assert side["take_decisions"] == r["take_decisions"] + r["pass_decisions"], where
        assert side["pr"] == pytest.approx(r["pr"], abs=0.02), where
        assert side["error_emg"] == pytest.approx(r["total_equity_error_emg"], abs=0.004), where
        assert side["checker_error_emg"] == pytest.approx(r["checker_equity_error_emg"], abs=0.004), where
        assert side["double_error_emg"] == pytest.approx(r["double_equity_error_emg"], abs=0.004), where
        assert side["take_error_emg"] == pytest.approx(r["take_equity_error_emg"], abs=0.004), where
        assert side["mwc_loss"] == pytest.approx(r["total_mwc_loss_pct"], abs=0.06), where
        assert side["checker_mwc_loss"] == pytest.approx(r["checker_mwc_loss_pct"], abs=0.06), where
        assert side["double_mwc_loss"] == pytest.approx(r["double_mwc_loss_pct"], abs=0.06), where
        assert side["take_mwc_loss"] == pytest.approx(r["take_mwc_loss_pct"], abs=0.06), where
        assert side["gnubg"] is None  # no gnubg analysis: no gnubg cross-check


def test_names_match_info_and_comments(shared_data):
    m = read_match(shared_data / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg")
    assert m.players == ("Squire/Jørgensen", "Harmand/Unger")
    assert m.length == 7 and len(m.games) == 8 and m.date == "2024-08-18"
    assert m.final_score() == (7, 6) and m.winner() == 0
    assert m.analysis.engine == "xg" and m.analysis.depth_label.startswith("XG ")
    c = read_match(shared_data / "xg" / "match_with_comment.xg")
    comments = [d.comment for d in c.decisions() if d.comment]
    assert len(comments) == 2 and all(isinstance(t, str) and t for t in comments)


def test_luck_comes_from_xg(shared_data):
    m = read_match(shared_data / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg")
    rolls = list(m.rolls())
    assert sum(r.luck is not None for r in rolls) == len(rolls) > 150
    assert any(r.luck != 0 for r in rolls)


def test_the_same_match_from_gnubg_and_xg_is_one_match(shared_data, tmp_path):
    db = tmp_path / "both.db"
    first = run_cli("import", shared_data / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", db=db).stdout
    second = run_cli("import", shared_data / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf", db=db).stdout
    assert "stored as match 1" in first and "analysis added as match 1" in second
    (m,) = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
    assert sorted(a["engine"] for a in m["analyses"]) == ["gnubg", "xg"]
    assert m["analysis_used"]["engine"] == "xg"  # XG 4-ply is deeper than gnubg 2-ply
    (g,) = json.loads(run_cli("matches", "--format", "json", "--engine", "gnubg", db=db).stdout)["matches"]
    assert g["analysis_used"]["engine"] == "gnubg"
    assert [s["gnubg"]["unforced"] for s in g["sides"]] == [86, 66]  # gnubg's own counts
    again = run_cli("import", shared_data / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", db=db).stdout
    assert "already stored" in again


def test_a_truncated_file_is_refused_and_nothing_changes(shared_data, tmp_path):
    db = tmp_path / "t.db"
    run_cli("import", shared_data / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", db=db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    src = shared_data / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
    bad = tmp_path / "Squire-truncated.xg"
    data = src.read_bytes()
    bad.write_bytes(data[: len(data) * 2 // 3])
    res = run_cli("import", bad, db=db, check=False)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in res.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("level, label, rank", [
    (0, "XG 1-ply", 0), (1, "XG 2-ply", 1), (3, "XG 4-ply", 3), (100, "rollout", 100),
    (1000, "XGR", 50), (1001, "XGR+", 51), (1002, "XGR++", 52),
])
def test_xg_levels_on_gnubgs_depth_scale(level, label, rank):
    """XG's n-ply is gnubg's (n−1)-ply; XG Roller and rollouts above any ply."""
    assert xg_depth_label(level) == label
    assert depth_rank(label) == rank
    assert depth_rank("2-ply") == 2 and depth_rank("XG 3-ply") == depth_rank("2-ply")


@pytest.mark.parametrize("name", ["position_move.xgp", "position_cube.xgp"])
def test_a_position_file_is_stored_apart(tmp_path, name):
    """An .xgp holds one position (built from the documented layout, see
    tests/fixtures/xg/README.md): stored as kind "position", never listed
    or counted as a match; importing it again is a no-op."""
    import sqlite3

    from conftest import FIXTURES

    xgp = FIXTURES / "xg" / name
    db = tmp_path / "p.db"
    res = run_cli("import", xgp, db=db)
    assert "stored as match 1" in res.stdout
    assert json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"] == []
    assert sqlite3.connect(db).execute("SELECT kind FROM matches").fetchall() == [("position",)]
    assert "already stored" in run_cli("import", xgp, db=db).stdout
