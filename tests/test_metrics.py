"""Hand-computed cases for the rules of SPEC §2, §3, §5 and §7."""

import math

import numpy as np
import pytest

from gnubg_blunder.arrays import KIND_CODES, DecisionArrays, MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.counting import Thresholds, counted, is_forced, millipoints
from gnubg_blunder.metrics.elo import elo
from gnubg_blunder.metrics.kernel import l7_of
from gnubg_blunder.metrics.figures import aggregate, per_side
from gnubg_blunder.metrics.intervals import ratio_interval, sum_interval


def decisions(*rows):
    """rows: dicts with DecisionArrays column names; kind given by name."""
    cols = {name: [] for name in DecisionArrays.SPEC}
    for r in rows:
        for name, (_dtype, missing) in DecisionArrays.SPEC.items():
            v = r.get(name, 0 if name in ("game", "seq", "match", "player") else missing)
            if name == "kind":
                v = KIND_CODES[r["kind"]]
            cols[name].append(missing if v is None else v)
    return DecisionArrays(**cols)


def match_info(i, length=7, games=1, winner=None, players=("A", "B")):
    return MatchInfo(id=i + 1, players=players, length=length, date=None, event=None, winner=winner,
                     final_score=(0, 0), n_games=games, source="sgf", analysis_id=i + 1, engine="gnubg",
                     depth=0, depth_label="0-ply")


def selection(dec, matches, sides=None, rolls=None):
    sides = np.ones((len(matches), 2), dtype=bool) if sides is None else np.array(sides, dtype=bool)
    return Selection(matches=matches, decisions=dec, rolls=rolls or RollArrays(), sides=sides)


# -- SPEC §2 counting edges ---------------------------------------------------

def test_no_double_window_edges():
    dec = decisions(
        dict(kind="nodouble", nd=0.5, dt=0.301, dp=1.0, error=0.0),   # ND − min = 0.199: counted
        dict(kind="nodouble", nd=0.5, dt=0.300, dp=1.0, error=0.0),   # 0.200: not counted
        dict(kind="nodouble", nd=0.0, dt=-0.5, dp=1.0, error=0.0),    # ND ≤ 0: not counted
        dict(kind="nodouble", nd=-0.2, dt=-0.3, dp=1.0, error=0.0),
        dict(kind="nodouble", nd=0.9, dt=1.3, dp=1.0, error=0.1),     # missed double: counted
        dict(kind="nodouble", error=0.0),                             # no cube analysis: never
    )
    assert counted(dec).tolist() == [True, False, False, False, True, False]


def test_cube_actions_always_counted_when_analysed():
    dec = decisions(
        dict(kind="double", nd=0.1, dt=0.05, dp=1.0, error=0.05),
        dict(kind="take", nd=0.5, dt=0.6, dp=1.0, error=0.0),
        dict(kind="pass", nd=0.5, dt=0.6, dp=1.0, error=0.4),
        dict(kind="take"),  # not analysed
        dict(kind="take", nd=0.8, dt=1.2, dp=1.0, error=0.2, beaver_take=1),  # beaver: not a decision
    )
    assert counted(dec).tolist() == [True, True, True, False, False]


def test_forced_plays():
    dec = decisions(
        dict(kind="checker", n_legal=1, n_candidates=1, equity_spread=0.0, error=0.0),
        dict(kind="checker", n_legal=3, n_candidates=3, equity_spread=0.000499, error=0.0),  # same to the mpt
        dict(kind="checker", n_legal=3, n_candidates=3, equity_spread=0.0005, error=0.0),    # not forced
        dict(kind="checker", n_legal=5, n_candidates=3, equity_spread=0.0, error=0.0),       # not all listed
        dict(kind="checker", n_legal=-1, n_candidates=1, equity_spread=0.0, error=0.0),      # uncountable: 1 candidate
        dict(kind="checker", n_legal=-1, n_candidates=2, equity_spread=0.0, error=0.0),
    )
    assert is_forced(dec).tolist() == [True, True, False, False, True, False]
    assert counted(dec).tolist() == [False, False, True, True, False, True]


def test_xg_verdict_wins_over_the_forced_rule():
    dec = decisions(
        dict(kind="checker", n_legal=4, n_candidates=4, equity_spread=0.0, error=0.0, xg_counted=1),
        dict(kind="checker", n_legal=4, n_candidates=4, equity_spread=0.3, error=0.1, xg_counted=0),
    )
    assert counted(dec).tolist() == [True, False]


def test_played_move_missing_from_candidates_leaves_every_count():
    dec = decisions(
        dict(match=0, player=0, kind="checker", n_legal=9, n_candidates=5, equity_spread=0.2, error=0.02),
        dict(match=0, player=0, kind="checker", n_legal=9, n_candidates=5, equity_spread=0.2, error=None),
    )
    rolls = RollArrays(match=[0, 0, 0, 0], game=[0] * 4, player=[0, 1, 0, 1], luck=[np.nan] * 4,
                       mwc_per_emg=[0.3] * 4)
    s = per_side(selection(dec, [match_info(0)], rolls=rolls))[0]
    assert s["decisions"] == 1 and s["checker_decisions"] == 1
    assert s["error_emg"] == pytest.approx(0.02)
    assert s["snowie_er"] == pytest.approx(500 * 0.02 / 4)
    assert s["luck_emg"] is None and s["luck_rolls"] == 0


# -- SPEC §3 thresholds and rates ---------------------------------------------

def test_threshold_rounding_in_micro_emg():
    assert millipoints(np.array([0.0495, 0.049499, 0.0494999, 0.1, 0.0995])).tolist() == [50, 49, 50, 100, 100]
    err, blunder = Thresholds(0.050, 0.100).classify(np.array([0.0495, 0.049, 0.0995, np.nan]))
    assert err.tolist() == [True, False, True, False]
    assert blunder.tolist() == [False, False, True, False]


def test_sum_over_sum_aggregation_example():
    """SPEC §3: A 10 decisions 0.100 → 5.0; B 90 decisions 0.540 → 3.0; together 3.2."""
    rows = [dict(match=0, player=0, kind="double", nd=0.1, dt=0.5, dp=1.0, error=0.01)] * 10
    rows += [dict(match=1, player=0, kind="double", nd=0.1, dt=0.5, dp=1.0, error=0.006)] * 90
    sel = selection(decisions(*rows), [match_info(0), match_info(1)], sides=[[True, False], [True, False]])
    sides = per_side(sel)
    assert sides[0]["pr"] == pytest.approx(5.0)
    assert sides[2]["pr"] == pytest.approx(3.0)
    assert aggregate(sel)["pr"] == pytest.approx(3.2)


# -- SPEC §5 L7 and Elo ---------------------------------------------------------

def test_l7_and_elo_formulas():
    # one match side: L × √(7/N), the kernel's √7 L / √N
    assert l7_of(0.05, math.sqrt(7)) == pytest.approx(0.05)
    assert l7_of(0.05, math.sqrt(28)) == pytest.approx(0.025)  # × √(7/28) = ½
    assert l7_of(0.05, 0.0) is None  # money: √N weight 0, no L7
    d, bound = elo(0.05)  # q = 0.45: 755.9289 × log10(0.45/0.55) = −65.879
    assert d == pytest.approx(-65.879, abs=1e-3) and not bound
    d, bound = elo(0.49)  # q = 0.01 exactly: not yet a bound
    assert d == pytest.approx(-1508.56, abs=0.01) and not bound
    d, bound = elo(0.60)  # clamped at q = 0.01: "≤ −1509"
    assert d == pytest.approx(-1508.56, abs=0.01) and bound
    assert elo(None) == (None, False)
    # aggregate: √7 ΣL / Σ√N; money sides weigh 0 (and carry no L)
    assert l7_of(0.05 + 0.10, math.sqrt(7) + math.sqrt(28) + 0) == pytest.approx(
        math.sqrt(7) * 0.15 / (math.sqrt(7) + math.sqrt(28)))


def test_linearised_elo_near_zero():
    """SPEC §5: D ≈ −3474 × L/√N for small losses."""
    L, n = 0.002, 7
    d, _ = elo(l7_of(L, math.sqrt(n)))
    assert d == pytest.approx(-3474 * L / math.sqrt(n), rel=2e-3)


# -- SPEC §7 intervals -----------------------------------------------------------

def test_ratio_interval_by_hand():
    # R = 6/30 = 0.2; residuals −1, 0, 1; Var = 3/2 · 2 / 30² = 1/300
    low, high = ratio_interval([1, 2, 3], [10, 10, 10], 500)
    half = 1.96 * math.sqrt(1 / 300)
    assert low == pytest.approx((0.2 - half) * 500)
    assert high == pytest.approx((0.2 + half) * 500)
    assert low == pytest.approx(43.42, abs=0.01) and high == pytest.approx(156.58, abs=0.01)


def test_interval_needs_three_units_and_spread():
    assert ratio_interval([1, 2], [10, 10]) is None
    assert ratio_interval([1, 1, 1], [10, 10, 10]) is None  # no spread
    low, _ = ratio_interval([0, 0, 5], [10, 10, 10])
    assert low == 0.0  # floored at 0


def test_sum_interval_of_one_match():
    low, high = sum_interval([0.01, 0.03, 0.05], 1.0)
    var = 3 / 2 * ((0.01 - 0.03) ** 2 + 0 + (0.05 - 0.03) ** 2)
    assert low == pytest.approx(max(0, 0.09 - 1.96 * math.sqrt(var)))
    assert high == pytest.approx(0.09 + 1.96 * math.sqrt(var))


def test_match_units_without_player_filter_join_both_sides():
    """Without a player filter both sides of a match are one unit (SPEC §7)."""
    rows = []
    for m, (e0, e1) in enumerate([(0.01, 0.03), (0.02, 0.02), (0.05, 0.01)]):
        rows += [dict(match=m, player=0, kind="double", nd=0.1, dt=0.5, dp=1.0, error=e0)]
        rows += [dict(match=m, player=1, kind="double", nd=0.1, dt=0.5, dp=1.0, error=e1)]
    sel = selection(decisions(*rows), [match_info(i) for i in range(3)])
    agg = aggregate(sel)
    assert agg["pr_ci"] == pytest.approx(list(ratio_interval([0.04, 0.04, 0.06], [2, 2, 2], 500)))
    sel_a = selection(decisions(*rows), [match_info(i) for i in range(3)], sides=[[True, False]] * 3)
    assert aggregate(sel_a)["pr_ci"] == pytest.approx(list(ratio_interval([0.01, 0.02, 0.05], [1, 1, 1], 500)))
