"""SGF import on real gnubg files: the property fixtures, partial analyses,
the 1.08 charlot file, and the live importer on the same files."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES, gnubg_match_dump, needs_gnubg, run_cli
from gnubg_blunder.importers.gnubg_match import match_from_dict
from gnubg_blunder.importers.records import MatchImportError
from gnubg_blunder.importers.sgf import read_match

FIELDS = ("kind", "player", "game", "position_id", "dice", "played_move", "best_move", "n_legal", "cube_value",
          "cube_owner", "score_self", "score_opp", "crawford", "played_index", "beaver_take", "gnubg_dead_cube",
          "depth", "comment")


def assert_same_decisions(a, b, where=""):
    da, db = list(a.decisions()), list(b.decisions())
    assert len(da) == len(db), where
    for x, y in zip(da, db):
        w = (where, x.game, x.seq, x.kind)
        assert tuple(getattr(x, f) for f in FIELDS) == tuple(getattr(y, f) for f in FIELDS), w
        for f in ("error", "nd", "dt", "mwc_per_emg"):
            u, v = getattr(x, f), getattr(y, f)
            assert (u is None) == (v is None), (w, f)
            if u is not None:
                assert u == pytest.approx(v, abs=2e-6), (w, f)
        assert [c.equity for c in x.candidates] == pytest.approx([c.equity for c in y.candidates], abs=2e-6), w
    assert [(r.dice, r.position_id, r.position_after) for r in a.rolls()] == \
           [(r.dice, r.position_id, r.position_after) for r in b.rolls()], where
    for r, s in zip(a.rolls(), b.rolls()):
        assert (r.luck is None) == (s.luck is None) and (r.luck is None or abs(r.luck - s.luck) < 2e-5), where


@needs_gnubg
@pytest.mark.parametrize("name", ["analysed_eval", "money_session", "rollout", "set_board"])
def test_fixture_through_sgf_and_live_match(name, tmp_path):
    """gnubg-made fixtures (evaluations, money, rollouts, set-up nodes and a
    pending roll): the SGF and gnubg's own reading of it agree."""
    sgf = tmp_path / f"{name}.sgf"
    shutil.copy(FIXTURES / "sgf" / f"{name}.sgf", sgf)
    assert_same_decisions(read_match(sgf), match_from_dict(gnubg_match_dump(sgf)), name)


def test_rollout_candidates_keep_gnubgs_order_and_equity():
    m = read_match(FIXTURES / "sgf" / "rollout.sgf")
    rolled = [d for d in m.decisions() if any(c.depth == "rollout" for c in d.candidates)]
    assert rolled, "the fixture has rolled-out candidates"
    for d in rolled:
        assert d.best_move == d.candidates[0].move  # the first candidate is gnubg's best
        assert all(c.equity is not None for c in d.candidates)


def test_set_board_and_cube_nodes():
    m = read_match(FIXTURES / "sgf" / "set_board.sgf")
    first = next(m.decisions())
    # ;PL[W]AE[a:y]AW[b][d][f]AB[x][x][x]: White on its 2, 4 and 6 points
    from gnubg_blunder.board.position import Board

    b = Board.from_position_id(first.position_id)
    assert b.on_roll[:6] == (0, 1, 0, 1, 0, 1) and sum(b.on_roll) == 3
    assert b.opponent[0] == 3 and sum(b.opponent) == 3
    g1 = m.games[1].decisions[0]  # after ;CV[2] ;CP[w]
    assert (g1.cube_value, g1.cube_owner) == (2, 0)
    assert len(m.games[2].rolls) == 0  # the pending roll of the unfinished game is no roll


@needs_gnubg
def test_match_info_and_comments_survive_analysis(tmp_path):
    """The fixture with every match-info property and escaped comments,
    analysed by gnubg (0-ply) and saved again: the comments are on their
    decisions, the match info on the match."""
    from gnubg_blunder.gnubg.process import run_commands

    analysed = tmp_path / "analysed.sgf"
    run_commands(
        f'set display off\nload match "{FIXTURES / "sgf" / "match_info_cube_resign.sgf"}"\n'
        "set analysis chequerplay evaluation plies 0\nset analysis cubedecision evaluation plies 0\n"
        f'analyse match\nsave match "{analysed}"\n'
    )
    m = read_match(analysed)
    assert (m.event, m.round, m.place, m.annotator, m.comment) == (
        "Test event: cube [1]", "Round 2", "Online", "gnubg", "Made with gnubg 1.07 for tests")
    assert m.ratings == ("1500", "1612.5 (42 exp)") and m.date == "2025-11-08"
    by_kind = {(d.game, d.kind, d.player): d for d in m.decisions()}
    first = by_kind[(0, "checker", 1)]
    assert first.comment.startswith("Point made ] with \\ backslash, café ♠")
    assert by_kind[(0, "double", 0)].comment == "early double"
    assert m.games[1].resigned and m.games[1].winner is not None


def test_other_variations_are_refused():
    with pytest.raises(MatchImportError, match="Nackgammon"):
        read_match(FIXTURES / "sgf" / "rules_variant.sgf")


def test_charlot_108_file(shared_data):
    """gnubg 1.08's SGF: LU[-inf] everywhere (luck unknown), its counts."""
    m = read_match(shared_data / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf")
    assert m.players == ("charlot1", "charlot2") and m.length == 7 and m.date == "2025-11-08"
    assert m.analysis.engine_version == "1.08.003"
    rolls = list(m.rolls())
    assert [sum(r.player == p for r in rolls) for p in (0, 1)] == [94, 95]  # gnubg's "total moves"
    assert all(r.luck is None for r in rolls)
    assert sum(d.n_legal == 0 for d in m.decisions()) == 0
    assert m.winner() == 0 and m.final_score()[0] >= 7


@needs_gnubg
def test_partially_analysed_file_is_stored_with_nulls(selfplay, tmp_path):
    """Only game 1 analysed (made by gnubg: analyse clear match, analyse
    game, save): the rest is stored with NULL analysis and counts nothing;
    the cross-check still equals gnubg's statistics of the same file."""
    from gnubg_blunder.gnubg.process import run_commands

    src = selfplay(21, 7)
    partial = tmp_path / "partial.sgf"
    run_commands(
        f'set display off\nload match "{src}"\nanalyse clear match\nfirst game\n'
        "set analysis chequerplay evaluation plies 0\nset analysis cubedecision evaluation plies 0\n"
        f'analyse game\nsave match "{partial}"\n'
    )
    m = read_match(partial)
    assert len(m.games) > 1
    assert any(d.error is not None for d in m.games[0].decisions)
    for g in m.games[1:]:
        assert all(d.error is None for d in g.decisions)
        assert all(r.luck is None for r in g.rolls)
    db = tmp_path / "p.db"
    run_cli("import", partial, db=db)
    ours = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"][0]
    dump = gnubg_match_dump(partial)
    for p, side in enumerate("XO"):
        s, st = ours["sides"][p], dump["stats"][side]
        assert s["gnubg"]["unforced"] == st["moves"]["unforced-moves"]
        assert s["gnubg"]["close_cube"] == st["cube"]["close-cube"]
        assert s["luck_rolls"] == sum(r.player == p for r in m.games[0].rolls)
        assert s["luck_emg"] == pytest.approx(st["dice"]["luck"], abs=0.0015)
    # counted decisions of an independent computation inside gnubg (only game 1 has any)
    import os

    from gnubg_blunder.gnubg.process import run_python

    out = tmp_path / "oracle.json"
    script = open(os.path.join(os.path.dirname(__file__), "gnubg_scripts", "xg_rules_oracle.py")).read()
    run_python(script, env=dict(os.environ, ORACLE_SGF=str(partial), ORACLE_OUT=str(out)))
    oracle = json.loads(out.read_text())
    for p in (0, 1):
        assert ours["sides"][p]["decisions"] == oracle[p]["decisions"] > 0
        assert ours["sides"][p]["error_emg"] == pytest.approx(oracle[p]["error"], abs=1e-5)
