"""The compute of issue 13 ("speed at the scale of a serious player's
archive") gives the same figures to the bit: the intervals of many groups at
once are each group's own interval, the per-player aggregates at once are
each player's own selection's, micro-EMG rounding in place is the rounding,
and what a selection keeps (stash.py) is read-only and forgotten with
it (tests/test_stash.py)."""

from __future__ import annotations

import math

import numpy as np

from gnubg_blunder.metrics import intervals, kernel
from gnubg_blunder.metrics.counting import Thresholds
from gnubg_blunder.units import micro


# -- the formulas of SPEC §7 and §3, one group at a time (the reference) ------------

def _ratio_reference(e, n, scale=1.0):
    e, n = np.asarray(e, dtype=np.float64), np.asarray(n, dtype=np.float64)
    g, total_n = len(e), n.sum()
    if g < 3 or total_n <= 0:
        return None
    r = e.sum() / total_n
    var = g / (g - 1) * np.sum((e - r * n) ** 2) / total_n**2
    if not var > 0:
        return None
    half = 1.96 * math.sqrt(var)
    return (float(max(0.0, r - half) * scale), float((r + half) * scale))


def _sum_reference(v, scale=1.0):
    v = np.asarray(v, dtype=np.float64)
    g = len(v)
    if g < 3:
        return None
    var = g / (g - 1) * np.sum((v - v.mean()) ** 2)
    if not var > 0:
        return None
    total, half = v.sum(), 1.96 * math.sqrt(var)
    return (float(max(0.0, total - half) * scale), float((total + half) * scale))


def _micro_reference(x):
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isnan(x), 0, np.sign(x) * np.floor(np.abs(x) * 1e6 + 0.5)).astype(np.int64)


def test_many_ratio_intervals_are_each_groups_own():
    rng = np.random.default_rng(13)
    lengths = rng.integers(0, 300, 400)  # 0, 1, 2 units: none; up to 300 (numpy's pairwise sums past 128)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    e = rng.exponential(0.02, lengths.sum()) * rng.integers(0, 2, lengths.sum())
    n = rng.integers(0, 40, lengths.sum()).astype(np.float64)
    root = np.sqrt(rng.integers(1, 26, lengths.sum()))
    for values, weights, scale in ((e, n, 500), (e, root, math.sqrt(7))):
        many = intervals.ratio_intervals(values, weights, starts, lengths, scale)
        one = [_ratio_reference(values[s:s + k], weights[s:s + k], scale) for s, k in zip(starts, lengths)]
        assert many == one
        assert [intervals.ratio_interval(values[s:s + k], weights[s:s + k], scale)
                for s, k in zip(starts, lengths)] == one
    assert sum(x is None for x in one) > 0 and sum(x is not None for x in one) > 300


def test_many_sum_intervals_are_each_groups_own_with_their_zero_games():
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 30, 500)
    widths = lengths + rng.integers(0, 6, 500)  # games without a decision add 0
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    v = rng.exponential(0.01, lengths.sum())
    scale = math.sqrt(7) / np.sqrt(rng.integers(1, 26, 500).astype(np.float64))
    many = intervals.sum_intervals(v, starts, lengths, widths, scale)
    one = []
    for s, k, w, sc in zip(starts, lengths, widths, scale):
        padded = np.zeros(w)
        padded[:k] = v[s:s + k]
        one.append(_sum_reference(padded, float(sc)))
    assert many == one


def test_micro_rounds_half_away_from_zero_as_before():
    rng = np.random.default_rng(3)
    halves = np.round(rng.standard_normal(50_000) * 1000) / 1e6
    x = np.concatenate([rng.standard_normal(200_000) * 0.1, halves + 5e-7, halves - 5e-7,
                        [0.0, -0.0, np.nan, 0.0495, -0.0495, 5e-7, -5e-7, 1e-7]])
    assert np.array_equal(micro(x), _micro_reference(x))
    for v in (0.0495, -5e-7, np.nan, [np.nan, 1.0], 3, [[0.1, 0.2]]):
        got, want = micro(v), _micro_reference(v)
        assert np.array_equal(got, want) and np.shape(got) == np.shape(want) and got.dtype == want.dtype


def test_figures_of_many_groups_are_figures_of_each():
    """figures_of (every group at once) and figures (one group) agree, for
    game units (match sides) and match units."""
    from gnubg_blunder.arrays import DecisionArrays, MatchInfo, RollArrays, Selection

    rng = np.random.default_rng(1)
    nm, n = 40, 4000
    match = np.sort(rng.integers(0, nm, n))
    dec = DecisionArrays(match=match, game=rng.integers(0, 6, n), player=rng.integers(0, 2, n), kind=np.zeros(n),
                         error=rng.exponential(0.02, n) * rng.integers(0, 2, n), mwc_per_emg=np.full(n, 0.6),
                         xg_counted=np.ones(n), n_legal=np.full(n, 5), n_candidates=np.full(n, 5),
                         equity_spread=np.full(n, 0.3), difficulty=rng.exponential(0.01, n))
    matches = [MatchInfo(id=i + 1, players=("a", "b"), length=[0, 5, 7][i % 3], date=None, event=None, winner=0,
                         final_score=(0, 0), n_games=6, source="sgf", analysis_id=i + 1, engine="gnubg", depth=2.0,
                         depth_label="2-ply") for i in range(nm)]
    sel = Selection(matches=matches, decisions=dec, rolls=RollArrays(), sides=np.ones((nm, 2), dtype=bool))
    cnt = np.ones(n, dtype=bool)
    key = match.astype(np.int64) * 2 + dec.player
    by_side = kernel.sums(sel, cnt, key, 2 * nm, side_groups=np.arange(2 * nm).reshape(nm, 2), unit="game",
                          thresholds=Thresholds())
    by_kind = kernel.sums(sel, cnt, (match % 3).astype(np.int64), 3, side_groups=np.tile([[0, 1]], (nm, 1)) % 3,
                          thresholds=Thresholds())
    for s in (by_side, by_kind):
        assert kernel.figures_of(s) == [kernel.figures(s, k) for k in range(s.n_groups)]
    assert any(f["pr_ci"] for f in kernel.figures_of(by_side)) and any(f["l7_ci"] for f in kernel.figures_of(by_kind))


def test_players_at_once_are_each_players_own_selection(db):
    """figures.aggregates (every player in one pass) gives each player what
    aggregate over that player's own sub-selection gives, to the bit."""
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.figures import aggregate, aggregates
    from gnubg_blunder.metrics.players import Subsets, players_of
    from gnubg_blunder.database import open_store

    with open_store(db) as store:
        sel = store.select(Filter())
        players = players_of(sel)
        subsets = Subsets(sel)
        for part in ("all", "checker", "cube"):
            at_once = aggregates(sel, players.owner, len(players.names), Thresholds(), part)
            assert at_once is not None
            one_by_one = [aggregate(subsets.of_player(players, g), Thresholds(), part)
                          for g in range(len(players.names))]
            assert at_once == one_by_one


def test_zero_nan_is_nan_to_num():
    rng = np.random.default_rng(0)
    for x in (rng.standard_normal(10_000), np.array([np.nan, -0.0, 0.0, 1.5, np.nan]),
              np.array([np.inf, np.nan, -np.inf, 2.0]), np.array([1, 2, 3]), np.float32([np.nan, 1.0]),
              np.asarray(np.nan), np.zeros(0)):
        want, got = np.nan_to_num(x, nan=0.0), kernel.zero_nan(x)
        assert type(got) is type(want) and got.dtype == want.dtype
        assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
