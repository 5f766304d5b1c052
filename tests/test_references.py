"""Reference positions (SPEC §10): metrics/references.py, views/references.py.

Hand-made positions on a "line": the player on roll has 14 checkers on
his 1-point and a runner on point x, the opponent 14 on her 1-point and a
runner on her point y.  The like distance of two such positions is
|Δx| + |Δy| (each runner travels alone).  Errors: e in EMG with 0.1 MWC per
EMG and d = 0, so ℓ − d in % points is 10 × e: e = 0.100 gives an excess
of 1.0 % — the figures of ``metric="mwc"`` (the seed's rule), which the
rule's tests use; the default cost ``pr`` (e − d in mpt) and ``mwc7`` have
their own tests.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from conftest import random_boards, side
from gnubg_blunder.board.features import like_distance
from gnubg_blunder.board.position import Board
from gnubg_blunder.metrics import references as R
from gnubg_blunder.arrays import KIND_CODES, LABEL_CODES, DecisionArrays, MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.counting import Thresholds
from gnubg_blunder.codec.candidates import decode_row

DATA = Path(__file__).parent / "fixtures" / "real"


# -- like distance: the vectorised form against a brute-force transport -------------------------

def _hungarian(cost) -> int:
    """Minimal total cost of a perfect matching (the Hungarian algorithm,
    O(n³)): an explicit assignment of checkers, independent of the
    cumulative-difference formula."""
    n = len(cost)
    INF = float("inf")
    u, v = [0] * (n + 1), [0] * (n + 1)
    p, way = [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [INF] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], INF, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if not j0:
                break
    return sum(cost[p[j] - 1][j - 1] for j in range(1, n + 1))


def _checkers(s) -> list:
    """The 15 checkers of a side as places: off 0, points 1..24, bar 25."""
    places = [p + 1 for p in range(25) for _ in range(s[p])]
    return places + [0] * (15 - len(places))


def _transport(a: Board, b: Board) -> int:
    total = 0
    for sa, sb in ((a.on_roll, b.on_roll), (a.opponent, b.opponent)):
        x, y = _checkers(sa), _checkers(sb)
        total += _hungarian([[abs(p - q) for q in y] for p in x])
    return total


def test_like_distance_is_the_minimal_transport_on_random_pairs():
    boards = random_boards(11, 400)
    rng = random.Random(5)
    pairs = [(rng.choice(boards), rng.choice(boards)) for _ in range(150)]
    pairs += [(boards[k], boards[k + 1].swapped()) for k in range(0, 100, 2)]  # consecutive: small distances
    ids = [b.position_id() for pair in pairs for b in pair]
    cum = R.cumulative(R.position_sides(ids))
    vec = R.like_distances(cum[0::2], cum[1::2])
    for k, (a, b) in enumerate(pairs):
        brute = _transport(a, b)
        assert brute == like_distance(a, b) == vec[k], (a.position_id(), b.position_id())
    assert min(vec) <= 12 < max(vec)  # both near and far pairs were checked


def test_position_ids_decode_like_the_board_engine():
    boards = random_boards(3, 300) + [Board.initial()]
    sides = R.position_sides([b.position_id() for b in boards] + ["not an ID", "AAAAAAAAAAAAAA"])
    for b, s in zip(boards, sides):
        assert tuple(s[0]) == b.on_roll and tuple(s[1]) == b.opponent
    assert (sides[-2] == -1).all()  # unreadable: a row of -1
    assert sides[-1].sum() == 0  # no checker on the board (all borne off) is a readable ID


def test_neighbour_pairs_equal_all_pairs_compared():
    # random boards and line positions (many of them 1 or 2 pips apart)
    ids = [b.position_id() for b in random_boards(7, 500)] + [line(x, y) for x in range(2, 19) if x != 5
                                                        for y in (3, 4, 20)]
    cum = R.cumulative(R.position_sides(ids))
    boards = ids
    buckets = np.arange(len(boards)) % 3
    full = np.abs(cum[:, None, :].astype(int) - cum[None, :, :].astype(int)).sum(axis=2)
    for radius, bk in ((12, buckets), (2, None), (30, buckets)):
        i, j = R.neighbour_pairs(cum, bk, radius)
        same = np.ones_like(full, bool) if bk is None else bk[:, None] == bk[None, :]
        want = np.argwhere(np.triu((full <= radius) & same, k=1))
        assert sorted(zip(i.tolist(), j.tolist())) == sorted(map(tuple, want.tolist())), radius
        assert len(want) > 10


# -- hand-made selections ------------------------------------------------------------------------

def line(x: int, y: int = 20) -> str:
    """The line position: runner on my point x, the opponent's on her point y."""
    me = {1: 14, x: 1}  # x ≠ 25 − y: the runners never share a point
    opp = {1: 14, y: 1}
    return Board(side(me), side(opp)).position_id()


PLAN = LABEL_CODES["game_plan"]
THEME = LABEL_CODES["theme"]
F_BLOTS = ("holding game", "too many blots")
F_PASSIVE = ("holding game", "too passive")
F_MISSED = ("race", "missed double")
MWC = "mwc"  # the cost the rule's hand-made cases are written in


def _selection(errors, length: int = 7) -> Selection:
    """errors: [(position ID, (game plan, theme), e, kind="checker", score=(0, 0))], in one match of
    ``length`` points (0: a money session)."""
    positions = sorted({e[0] for e in errors})
    cols = {k: [] for k in ("match", "game", "seq", "player", "kind", "error", "mwc_per_emg", "nd", "dt", "dp",
                            "n_legal", "n_candidates", "xg_counted", "position", "game_plan", "theme", "difficulty",
                            "row_id", "score_self", "score_opp", "dice")}
    for k, err in enumerate(errors):
        pid, (plan, theme), e = err[:3]
        kind = err[3] if len(err) > 3 else "checker"
        score = err[4] if len(err) > 4 else (0, 0)
        cube = kind != "checker"
        for name, value in (("match", 0), ("game", 0), ("seq", k), ("player", 0), ("kind", KIND_CODES[kind]),
                            ("error", e), ("mwc_per_emg", 0.1),
                            # a missed double: ND 0.5, D/T 0.5 + e, D/P 1 (e = R − ND, inside the window)
                            ("nd", 0.5 if cube else np.nan), ("dt", 0.5 + e if cube else np.nan),
                            ("dp", 1.0 if cube else np.nan), ("n_legal", -1 if cube else 20),
                            ("n_candidates", 0 if cube else 5), ("xg_counted", -1 if cube else 1),
                            ("position", positions.index(pid)), ("game_plan", PLAN[plan]), ("theme", THEME[theme]),
                            ("difficulty", 0.0), ("row_id", 100 + k), ("score_self", score[0]),
                            ("score_opp", score[1]), ("dice", -1 if cube else 31)):
            cols[name].append(value)
    dec = DecisionArrays(**cols)
    match = MatchInfo(id=1, players=("Ann", "Bob"), length=length, date="2026-01-01", event=None, winner=None,
                      final_score=(0, 0), n_games=1, source="sgf", analysis_id=1, engine="gnubg", depth=2,
                      depth_label="2-ply")
    return Selection(matches=[match], decisions=dec, rolls=RollArrays(), sides=np.ones((1, 2), bool),
                     positions=positions)


def _chosen(res) -> list:
    return [(res.candidates.position_ids[c.group], round(100 * c.gain, 6)) for c in res.chosen]


def test_line_positions_are_as_far_apart_as_the_runners_travel():
    assert like_distance(Board.from_position_id(line(2)), Board.from_position_id(line(14))) == 12
    assert like_distance(Board.from_position_id(line(2, 20)), Board.from_position_id(line(10, 16))) == 12
    assert like_distance(Board.from_position_id(line(2)), Board.from_position_id(line(15))) == 13


def test_neighbours_within_12_pips_are_covered_by_the_chosen_position():
    # one family; A = line 2 (excess 1.0), B = line 14 (12 pips from A: a neighbour, 0.5),
    # C = line (14, 17) (15 pips from A: not one; 3 pips from B: a neighbour of B, 0.2)
    a, b, c = line(2), line(14), line(14, 17)
    sel = _selection([(a, F_BLOTS, 0.100), (b, F_BLOTS, 0.050), (c, F_BLOTS, 0.050)])
    sel.decisions.difficulty[2] = 0.030  # C: e 0.050, d 0.030: ℓ − d = (0.050 − 0.030) × 10 = 0.2 %
    cands = R.candidates(sel, Thresholds(), metric=MWC)
    assert {pid: round(100 * x, 9) for pid, x in zip(cands.position_ids, cands.excess)} == {a: 1.0, b: 0.5, c: 0.2}
    res = R.choose(cands, limit=0)
    # gains: A = 1.0 + 0.5 = 1.5; B = 0.5 + 1.0 + 0.2 = 1.7; C = 0.2 + 0.5 = 0.7.  B first, covering A and C:
    # nothing is left (A's marginal gain 0, C's 0)
    assert _chosen(res) == [(b, 1.7)]
    assert sorted(res.candidates.position_ids[q] for q in res.chosen[0].covers) == sorted([a, b, c])
    assert len(res.chosen[0].rows) == 3
    # B in another family: no neighbour of A or C any more (A 1.0, B 0.5, C 0.2 alone; C 15 pips from A)
    sel2 = _selection([(a, F_BLOTS, 0.100), (b, F_PASSIVE, 0.050), (c, F_BLOTS, 0.050)])
    sel2.decisions.difficulty[2] = 0.030
    assert _chosen(R.choose(R.candidates(sel2, Thresholds(), metric=MWC), limit=0)) == [(a, 1.0), (b, 0.5), (c, 0.2)]


def test_the_greedy_order_is_by_marginal_gain():
    # family F_BLOTS: P = (2, 20), Q = (10, 20), R' = (18, 20), S = (2, 8)
    #   d(P, Q) = 8, d(Q, R') = 8, d(P, R') = 16 (no), d(P, S) = 12, d(Q, S) = 20, d(R', S) = 28
    #   excess P 1.0, Q 0.4, R' 1.0, S 1.3
    #   gains: P = 1.0 + 0.4 + 1.3 = 2.7; Q = 0.4 + 1.0 + 1.0 = 2.4; R' = 1.0 + 0.4 = 1.4; S = 1.3 + 1.0 = 2.3
    # family F_PASSIVE: T = (5, 5) alone, excess 1.1
    p, q, r, s, t = line(2), line(10), line(18), line(2, 8), line(5, 5)
    sel = _selection([(p, F_BLOTS, 0.100), (q, F_BLOTS, 0.040 + 0.010), (r, F_BLOTS, 0.100),
                      (s, F_BLOTS, 0.130), (t, F_PASSIVE, 0.110)])
    sel.decisions.difficulty[1] = 0.010  # Q: e 0.050, d 0.010: ℓ − d = 0.4 %
    res = R.choose(R.candidates(sel, Thresholds(), metric=MWC), limit=0)
    # P first (2.7), covering P, Q, S.  Then Q's marginal gain is R' alone, 1.0 (from 2.4), R''s 1.0, S's 0:
    # T (1.1) comes second although Q's first gain (2.4) was larger; then R' or Q, tied at 1.0: R', whose own
    # excess is not covered yet (Q's is)
    assert _chosen(res) == [(p, 2.7), (t, 1.1), (r, 1.0)]
    # a confirming rollout breaks ties first: Q confirmed comes before R'
    cands = R.candidates(sel, Thresholds(), metric=MWC)
    confirmed = np.array([pid == q for pid in cands.position_ids])
    assert _chosen(R.choose(cands, confirmed=confirmed, limit=0)) == [(p, 2.7), (t, 1.1), (q, 1.0)]
    # --limit 1 stops after P
    assert _chosen(R.choose(cands, limit=1)) == [(p, 2.7)]
    # docs/references.md: P narrow (2.7 / 2 = 1.35 < Q's 2.4): Q first (covering P, Q, R'), S 1.3, T 1.1
    narrow = np.array([pid == p for pid in cands.position_ids])
    assert _chosen(R.choose(cands, narrow=narrow, limit=0)) == [(q, 2.4), (s, 1.3), (t, 1.1)]
    # P studied: it covers P, Q, S before the start; T 1.1, then R' 1.0
    assert _chosen(R.choose(cands, studied=[p], limit=0)) == [(t, 1.1), (r, 1.0)]


def test_a_narrow_lesson_and_an_unstable_cube_verdict_are_halved():
    # three lone positions (pairwise more than 12 pips apart), excess 1.0 each:
    # A narrow (its second choice costs 20 mpt < 25 = half the 50-mpt threshold) -> gain 0.5
    # B (cube, missed double) unstable: another analysis says "no double" -> gain 0.5
    # C both -> 0.25; D neither -> 1.0
    a, b, c, d = line(2), line(2, 2), line(18), line(18, 2)
    sel = _selection([(a, F_BLOTS, 0.100), (b, F_MISSED, 0.100, "nodouble"), (c, F_BLOTS, 0.100),
                      (d, F_BLOTS, 0.100)])
    cands = R.candidates(sel, Thresholds(), metric=MWC)
    row_of = {int(sel.decisions.row_id[r]): int(r) for r in cands.rows}
    second = np.full(len(cands.rows), np.nan)
    second[list(cands.rows).index(row_of[100])] = 0.020
    second[list(cands.rows).index(row_of[102])] = 0.024
    second[list(cands.rows).index(row_of[103])] = 0.025  # 25 mpt: not below half of 50
    narrow = R.group_flags(cands, R.narrow_rows(second, Thresholds()), "all")
    assert [cands.position_ids[g] for g in np.nonzero(narrow)[0]] == sorted([a, c])
    # the cube verdict: its own analysis (2-ply) says double (D/T 0.6 > ND 0.5); a 4-ply analysis of the
    # same decision (same position, score, cube) says no double (D/T 0.45 < ND 0.5)
    analyses = _analyses([
        dict(id=101, position_id=b, kind="nodouble", nd=0.5, dt=0.6, dp=1.0, depth="2-ply"),
        dict(id=900, position_id=b, kind="nodouble", nd=0.5, dt=0.45, dp=1.0, depth="4-ply"),
        # C: a checker play; another depth disagreeing is not instability (only a rollout is) ...
        dict(id=102, position_id=c, kind="checker", best_move="24/18", depth="2-ply"),
        dict(id=901, position_id=c, kind="checker", best_move="13/7", depth="0-ply"),
        # ... and a rollout is
        dict(id=902, position_id=c, kind="checker", best_move="8/2", depth="rollout"),
        # D: a rollout confirms its verdict (not unstable, a tie-breaker only)
        dict(id=103, position_id=d, kind="checker", best_move="24/18", depth="2-ply"),
        dict(id=903, position_id=d, kind="checker", best_move="24/18", depth="rollout"),
    ])
    unstable_ids, confirmed_ids = R.stability(analyses, [100, 101, 102, 103])
    assert unstable_ids == {101, 102} and confirmed_ids == {103}
    row_ids = sel.decisions.row_id[cands.rows]
    unstable = R.group_flags(cands, np.isin(row_ids, list(unstable_ids)))
    confirmed = R.group_flags(cands, np.isin(row_ids, list(confirmed_ids)))
    res = R.choose(cands, narrow=narrow, unstable=unstable, confirmed=confirmed, limit=0)
    assert sorted(_chosen(res), key=lambda x: x[1]) == [(c, 0.25), *sorted([(a, 0.5), (b, 0.5)]), (d, 1.0)]
    assert _chosen(res)[0] == (d, 1.0)
    flags = {res.candidates.position_ids[ch.group]: (ch.narrow, ch.unstable, ch.confirmed, ch.factor)
             for ch in res.chosen}
    assert flags == {a: (True, False, False, 0.5), b: (False, True, False, 0.5), c: (True, True, False, 0.25),
                     d: (False, False, True, 1.0)}


def _analyses(rows) -> dict:
    base = dict(dice=31, length=7, score_self=0, score_opp=0, crawford=0, cube_value=1, cube_owner=-1,
                nd=None, dt=None, dp=None, best_move=None, engine="gnubg", depth="2-ply", analysis_depth="2-ply")
    full = [dict(base, **r) for r in rows]
    for r in full:
        if r["kind"] != "checker":
            r["dice"] = -1
    return {k: [r[k] for r in full] for k in full[0]}


def test_a_studied_position_is_never_proposed_and_covers_its_neighbours():
    # A = line 2 (1.0) studied; B = line 14 (12 pips: its neighbour, 0.5) is covered by it;
    # C = line (14, 17) (0.2), a neighbour of B only (3 pips; 15 from A), stays: gain 0.2.
    # D = line 4 in another family (2 pips from A: a near duplicate, 0.9) is dropped.
    a, b, c, d = line(2), line(14), line(14, 17), line(4)
    sel = _selection([(a, F_BLOTS, 0.100), (b, F_BLOTS, 0.050), (c, F_BLOTS, 0.050), (d, F_PASSIVE, 0.090)])
    sel.decisions.difficulty[2] = 0.030
    cands = R.candidates(sel, Thresholds(), metric=MWC)
    res = R.choose(cands, studied=[a], limit=0)
    assert _chosen(res) == [(c, 0.2)]
    assert res.studied.sum() == 1 and res.dropped.sum() == 1
    # without the mark: B first (A + B + C = 1.7), then D (0.9, not a neighbour: another family)...
    # D is 2 pips from A, which B covered but did not choose: not a duplicate of a chosen position
    assert _chosen(R.choose(cands, limit=0)) == [(b, 1.7), (d, 0.9)]
    # a studied position that is no candidate of the filter still drops its near duplicates
    e = line(3)  # 1 pip from A and D
    assert a not in _chosen(R.choose(cands, studied=[e], limit=0))[0]
    assert d not in [pid for pid, _g in _chosen(R.choose(cands, studied=[e], limit=0))]


def test_near_duplicates_are_dropped_across_families():
    # A (F_BLOTS, 1.0) and A' = the same position in F_PASSIVE (0.8), A2 = line 3 in F_MISSED... (checker
    # here: F_PASSIVE at 1 pip, 0.7): after A, both are near duplicates and dropped; E far away stays
    a, a2, e = line(2), line(3), line(18)
    sel = _selection([(a, F_BLOTS, 0.100), (a, F_PASSIVE, 0.080), (a2, F_PASSIVE, 0.070), (e, F_PASSIVE, 0.060)])
    res = R.choose(R.candidates(sel, Thresholds(), metric=MWC), limit=0)
    # F_PASSIVE's A and A2 are neighbours (1 pip): each has the gain 0.8 + 0.7 = 1.5, above A's 1.0 in
    # F_BLOTS; the tie goes to the larger own excess, A (0.8).  Then A (F_BLOTS, the same ID) and A2 (1 pip,
    # covered already) are near duplicates of the chosen one: dropped; E 0.6
    assert _chosen(res) == [(a, 1.5), (e, 0.6)]
    assert res.dropped.sum() == 2


def test_cube_neighbours_need_the_same_score():
    # two missed doubles 4 pips apart: at the same score one covers the other, at another score not
    a, b = line(2, 2), line(6, 2)
    same = _selection([(a, F_MISSED, 0.100, "nodouble", (0, 0)), (b, F_MISSED, 0.060, "nodouble", (0, 0))])
    assert _chosen(R.choose(R.candidates(same, Thresholds(), metric=MWC), limit=0)) == [(a, 1.6)]  # a tie: A's own excess is larger
    other = _selection([(a, F_MISSED, 0.100, "nodouble", (0, 0)), (b, F_MISSED, 0.060, "nodouble", (2, 0))])
    assert _chosen(R.choose(R.candidates(other, Thresholds(), metric=MWC), limit=0)) == [(a, 1.0), (b, 0.6)]


def test_the_default_cost_pr_prices_e_minus_d_in_mpt_money_included():
    """SPEC §10 under the study half's default cost: excess = e − d in EMG
    (× 1000: mpt).  The neighbours' case above: A 100 mpt, B 50, C 50 − 30 =
    20; B first (50 + 100 + 20 = 170 mpt), covering all three.  A money
    session: its errors are candidates under pr, none under mwc or mwc7
    (money play has no ℓ)."""
    a, b, c = line(2), line(14), line(14, 17)
    errors = [(a, F_BLOTS, 0.100), (b, F_BLOTS, 0.050), (c, F_BLOTS, 0.050)]
    sel = _selection(errors)
    sel.decisions.difficulty[2] = 0.030
    cands = R.candidates(sel, Thresholds())
    assert {pid: round(1000 * x, 9) for pid, x in zip(cands.position_ids, cands.excess)} == {a: 100.0, b: 50.0,
                                                                                              c: 20.0}
    res = R.choose(cands, limit=0)
    assert [(cands.position_ids[ch.group], round(1000 * ch.gain, 6)) for ch in res.chosen] == [(b, 170.0)]
    money = _selection(errors, length=0)
    money.decisions.difficulty[2] = 0.030
    priced = R.candidates(money, Thresholds())
    assert {pid: round(1000 * x, 9) for pid, x in zip(priced.position_ids, priced.excess)} == {a: 100.0, b: 50.0,
                                                                                               c: 20.0}
    assert len(R.candidates(money, Thresholds(), metric="mwc")) == 0
    assert len(R.candidates(money, Thresholds(), metric="mwc7")) == 0


def test_mwc7_scales_each_excess_by_root_7_over_n():
    """mwc7: ℓ₇ − d₇ = (ℓ − d) × √(7/N).  In a 3-point match e = 0.100
    (ℓ = 0.01, d = 0) is 1.0 % under mwc and 1.0 × √(7/3) = 1.5275 % under
    mwc7; in a 7-point match both are 1.0 %."""
    three = _selection([(line(2), F_BLOTS, 0.100)], length=3)
    assert 100 * R.candidates(three, Thresholds(), metric="mwc").excess[0] == pytest.approx(1.0)
    assert 100 * R.candidates(three, Thresholds(), metric="mwc7").excess[0] == pytest.approx(math.sqrt(7 / 3))
    assert math.sqrt(7 / 3) == pytest.approx(1.5275, abs=1e-4)
    seven = _selection([(line(2), F_BLOTS, 0.100)])
    assert 100 * R.candidates(seven, Thresholds(), metric="mwc7").excess[0] == pytest.approx(1.0)


# -- the view over a fake store -----------------------------------------------------------------

class FakeStore:
    """What the view asks the store beside the selection."""

    def __init__(self, second=None, analyses=None, studied=None):
        self.second, self.analyses, self.studied = second or {}, analyses or {}, studied or {}

    def second_costs(self, ids):
        return {i: self.second[i] for i in ids if i in self.second}

    def position_analyses(self, pids, decision_ids=()):
        return self.analyses

    def studied_positions(self):
        return self.studied

    def gnubg_rows(self, ids):
        return {}


def test_the_json_object_has_the_keys_of_the_issue():
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.views import references as V

    a, b, c = line(2), line(14), line(2, 2)
    sel = _selection([(a, F_BLOTS, 0.100), (b, F_BLOTS, 0.050), (c, F_MISSED, 0.100, "nodouble")])
    store = FakeStore(second={100: 0.010},  # A narrow
                      analyses=_analyses([dict(id=102, position_id=c, kind="nodouble", nd=0.5, dt=0.6, dp=1.0),
                                          dict(id=9, position_id=c, kind="nodouble", nd=0.5, dt=0.4, dp=1.0,
                                               engine="xg", depth="XG 3-ply")]))
    obj = V.references_object(store, sel, Filter(), Thresholds(), limit=0, metric=MWC)
    assert set(obj) >= {"filter", "positions"} and (obj["metric"], obj["unit"]) == ("mwc", "% MWC")
    # A: narrow, (1.0 + 0.5) / 2 = 0.75; B: 0.5 + 1.0 = 1.5 (not narrow: no second choice known); C: 1.0 / 2
    got = [(p["position_id"], round(p["gain"], 6), p["narrow"], p["unstable"]) for p in obj["positions"]]
    assert got == [(b, 1.5, False, False), (c, 0.5, False, True)]
    first = obj["positions"][0]
    assert set(first) >= {"position_id", "family", "gain", "covers", "errors", "narrow", "unstable"}
    assert first["family"] == "holding game/checker/too many blots"
    assert first["covers"] == [b, a]
    assert [e["excess"] for e in first["errors"]] == pytest.approx([1.0, 0.5])
    assert obj["positions"][1]["score"] == {"away": [7, 7], "crawford": False}
    text = V.references_text(obj)
    assert "1. gain 1.50 % MWC — holding game/checker/too many blots" in text and "unstable ×½" in text
    html = V.references_html(obj)
    assert html.count("<svg") == 2 and "<script" not in html
    json.dumps(obj)
    # the default cost, pr: e − d in mpt (B 50 + A 100 = 150; C 100 / 2 = 50), every figure named in mpt
    obj = V.references_object(store, sel, Filter(), Thresholds(), limit=0)
    assert (obj["metric"], obj["unit"]) == ("pr", "mpt")
    got = [(p["position_id"], round(p["gain"], 6), p["narrow"], p["unstable"]) for p in obj["positions"]]
    assert got == [(b, 150.0, False, False), (c, 50.0, False, True)]
    assert [e["excess"] for e in obj["positions"][0]["errors"]] == pytest.approx([100.0, 50.0])
    text = V.references_text(obj)
    assert "1. gain 150.0 mpt — holding game/checker/too many blots" in text and "e − d 100.0 mpt" in text
    assert V.references_table(obj).rows[0][-1] == "mpt"


# -- real files ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_db(tmp_path_factory):
    from conftest import run_cli_inprocess

    db = tmp_path_factory.mktemp("references") / "real.db"
    files = sorted(str(p) for p in (DATA / "xg").glob("*.xg")) + sorted(str(p) for p in (DATA / "sgf").glob("*.sgf"))
    run_cli_inprocess("import", *files, db=db)
    return db


@pytest.mark.parametrize("metric", ["mwc", "pr"])
def test_real_files_references_agree_with_positions(real_db, cli, metric):
    refs = json.loads(cli("references", "--limit", "0", "--metric", metric, "--format", "json", db=real_db).stdout)
    assert refs["metric"] == metric
    errors = json.loads(cli("positions", "--errors", "--limit", "0", "--format", "json", db=real_db).stdout)
    listed = {(d["match_id"], d["game"], d["move"], d["kind"]): d for d in errors["decisions"]}
    assert refs["positions"], "the real files have themed errors in match play"
    seen = set()
    for p in refs["positions"]:
        assert p["gain"] == pytest.approx(p["factor"] * sum(e["excess"] for e in p["errors"] if e["excess"] > 0))
        assert p["covered_excess"] == pytest.approx(sum(max(0.0, e["excess"]) for e in p["errors"]))
        assert p["position_id"] in p["covers"] or not any(e["position_id"] == p["position_id"] for e in p["errors"])
        for e in p["errors"]:
            key = (e["match_id"], e["game"], e["move"], e["kind"])
            assert key not in seen  # an error is covered once
            seen.add(key)
            d = listed[key]  # every error covered is one `positions --errors` lists, with its figures
            assert (d["error_mpt"], d["mwc_loss"], d["difficulty_mwc"], d["position_id"]) == (
                e["error_mpt"], e["mwc_loss"], e["difficulty_mwc"], e["position_id"])
            if metric == "mwc":  # ℓ − d in % MWC
                assert e["excess"] == pytest.approx(e["mwc_loss"] - e["difficulty_mwc"])
            else:  # e − d in mpt (the list rounds e to 0.001 mpt)
                assert e["excess"] == pytest.approx(e["error_mpt"] - e["difficulty_mpt"], abs=5e-4)
            assert e["position_id"] in p["covers"]
    gains = [p["gain"] for p in refs["positions"]]
    assert gains == sorted(gains, reverse=True)  # marginal gains only fall
    assert len(seen) <= refs["candidate_errors"]
    text = cli("references", "--limit", "2", db=real_db).stdout
    assert text.count("Position ID:") == 2 and "1. gain" in text
    csv = cli("references", "--limit", "3", "--format", "csv", db=real_db).stdout.splitlines()
    assert csv[0].startswith("rank,position_id,family,gain") and len(csv) == 4


def test_the_report_has_the_section(real_db, cli, tmp_path):
    out = tmp_path / "report.html"
    cli("report", "--html", str(out), db=real_db)
    page = out.read_text()
    section = page[page.index('<section id="references">'):]
    section = section[:section.index("</section>")]
    assert section.count("<svg") == 10 and "Reference positions" in section and "could not be made" not in page


# -- the store: study actions, the lean read, second choices, other analyses (schema step 8) -----

@pytest.fixture
def real_copy(real_db, tmp_path):
    import shutil

    db = tmp_path / "real.db"
    shutil.copyfile(real_db, db)
    return db


def test_mark_studied_stores_a_study_action_and_references_stops_proposing_it(real_copy, cli):
    first = json.loads(cli("references", "--limit", "1", "--format", "json", db=real_copy).stdout)["positions"][0]
    pid = first["position_id"]
    out = cli("mark", "studied", pid, db=real_copy).stdout
    assert out.startswith(f"marked {pid} studied at ") and "(UTC)" in out
    actions = json.loads(cli("mark", "list", "--format", "json", db=real_copy).stdout)["actions"]
    assert [(a["position_id"], a["action"], a["grade"], a["decision_id"]) for a in actions] == [
        (pid, "studied", None, None)]
    assert actions[0]["at"].endswith("+00:00")
    assert pid in cli("mark", "list", db=real_copy).stdout
    after = json.loads(cli("references", "--limit", "0", "--format", "json", db=real_copy).stdout)
    assert pid not in [p["position_id"] for p in after["positions"]] and after["studied"] >= 1
    assert cli("mark", "remove", pid, db=real_copy).stdout.startswith(f"removed 1 mark of {pid}")
    res = cli("mark", "remove", pid, db=real_copy, check=False)
    assert res.returncode == 1 and "had no mark" in res.stdout
    res = cli("mark", "studied", "nonsense", db=real_copy, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "position ID" in res.stderr
    again = json.loads(cli("references", "--limit", "1", "--format", "json", db=real_copy).stdout)["positions"][0]
    assert again["position_id"] == pid


def _a_stored_position(db, k: int = 0) -> str:
    """The k-th position (by its ID) at which a decision is stored."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT DISTINCT position_id FROM decisions WHERE position_id IS NOT NULL "
                           "ORDER BY position_id LIMIT 1 OFFSET ?", (k,)).fetchone()[0]
    finally:
        con.close()


def _marks(db, cli) -> list:
    return [(a["position_id"], a["action"], a["at"])
            for a in json.loads(cli("mark", "list", "--format", "json", db=db).stdout)["actions"]]


def test_mark_studied_refuses_a_position_in_no_stored_match(real_copy, cli):
    res = cli("mark", "studied", "AAAAAAAAAAAAAA", db=real_copy, check=False)  # a readable ID: no checker at all
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == ("error: position AAAAAAAAAAAAAA is in no stored match: nothing marked "
                          "(`references` and `positions --errors` list your positions)\n")
    assert _marks(real_copy, cli) == []


def test_a_second_mark_of_the_same_utc_day_stores_nothing(real_copy, cli):
    pid = _a_stored_position(real_copy)
    first = json.loads(cli("mark", "studied", pid, "--format", "json", db=real_copy).stdout)
    assert first["stored"] is True and first["position_id"] == pid
    again = cli("mark", "studied", pid, db=real_copy)
    assert again.stdout == f"{pid} is already marked studied today (at {first['at']}): nothing stored\n"
    assert json.loads(cli("mark", "studied", pid, "--format", "json", db=real_copy).stdout) == {
        "position_id": pid, "action": "studied", "at": first["at"], "stored": False}
    assert _marks(real_copy, cli) == [(pid, "studied", first["at"])]


def test_the_day_of_a_mark_is_its_utc_day(real_copy, cli):
    """Yesterday's mark, or a quiz answer of today, holds no mark back; a
    mark written at 22:30 the day before at UTC-2 is of today (UTC)."""
    import datetime as dt

    from gnubg_blunder.database import open_store

    now = dt.datetime.now(dt.timezone.utc)
    yesterday = (now - dt.timedelta(days=1)).isoformat(timespec="seconds")
    early_today = now.replace(hour=0, minute=30, second=0, microsecond=0).astimezone(
        dt.timezone(dt.timedelta(hours=-2))).isoformat()
    assert early_today[:10] < now.date().isoformat()  # written on the day before, by its own clock
    marked_yesterday, quizzed, marked_early = (_a_stored_position(real_copy, k) for k in (1, 2, 3))
    with open_store(real_copy) as store:
        store.add_study_action(marked_yesterday, "studied", at=yesterday)
        store.add_study_action(quizzed, "quiz", grade=10, at=now.isoformat(timespec="seconds"))
        store.add_study_action(marked_early, "studied", at=early_today)
    assert cli("mark", "studied", marked_yesterday, db=real_copy).stdout.startswith(f"marked {marked_yesterday} ")
    assert cli("mark", "studied", quizzed, db=real_copy).stdout.startswith(f"marked {quizzed} ")
    assert cli("mark", "studied", marked_early, db=real_copy).stdout == (
        f"{marked_early} is already marked studied today (at {early_today}): nothing stored\n")
    marks = _marks(real_copy, cli)
    assert [m[:2] for m in marks].count((marked_yesterday, "studied")) == 2
    assert [m[:2] for m in marks].count((marked_early, "studied")) == 1


def test_mark_studied_on_postgresql(pg_url, cli):
    """The store's rule is shared: the same refusals on the server."""
    from fixture_db import P_HOLD, build_matches

    from gnubg_blunder.database import open_store

    with open_store(pg_url) as store:
        for match in build_matches():
            store.add_match(match)
    res = cli("mark", "studied", "AAAAAAAAAAAAAA", db=pg_url, check=False)
    assert res.returncode == 2 and res.stderr.startswith("error: position AAAAAAAAAAAAAA is in no stored match")
    first = json.loads(cli("mark", "studied", P_HOLD, "--format", "json", db=pg_url).stdout)
    assert first["stored"] is True
    assert cli("mark", "studied", P_HOLD, db=pg_url).stdout.startswith(f"{P_HOLD} is already marked studied today")
    assert _marks(pg_url, cli) == [(P_HOLD, "studied", first["at"])]


def test_a_comment_in_the_imported_file_makes_a_position_studied(real_db):
    from gnubg_blunder.database import open_store

    with open_store(real_db) as store:
        studied = store.studied_positions()
        commented = {pid for (pid,) in store.conn.execute(
            "SELECT position_id FROM decisions WHERE comment IS NOT NULL AND comment != ''")}
        plan = store.conn.execute("EXPLAIN QUERY PLAN SELECT DISTINCT position_id FROM decisions "
                                  "WHERE comment IS NOT NULL AND comment != '' AND position_id IS NOT NULL").fetchall()
    assert commented and {p for p, why in studied.items() if "comment" in why} == commented
    assert any("decisions_commented" in str(r) for r in plan)  # schema step 8's index: no full scan


def test_the_lean_read_holds_the_candidates_of_the_full_selection(real_db):
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import open_store

    with open_store(real_db) as store:
        full = store.select(Filter())
        lean = store.select_rows(Filter(), R.error_rows(Thresholds()))
    assert 0 < len(lean.decisions) < len(full.decisions) and len(lean.rolls) == 0
    a, b = R.candidates(full, Thresholds()), R.candidates(lean, Thresholds())
    assert a.position_ids == b.position_ids and np.allclose(a.excess, b.excess)
    assert (full.decisions.row_id[a.rows] == lean.decisions.row_id[b.rows]).all()
    keep = np.isin(full.decisions.row_id, lean.decisions.row_id)
    for name in ("error", "theme", "kind", "match", "difficulty", "score_self"):
        assert np.array_equal(getattr(full.decisions, name)[keep], getattr(lean.decisions, name), equal_nan=True)
    assert [full.positions[p] for p in full.decisions.position[keep]] == [lean.positions[p]
                                                                          for p in lean.decisions.position]
    assert list(full.decisions.comment[keep]) == list(lean.decisions.comment)


def test_second_costs_are_the_second_candidate_of_the_stored_list(real_db):
    from gnubg_blunder.database import open_store

    with open_store(real_db) as store:
        ids = [i for (i,) in store.conn.execute("SELECT decision_id FROM decision_candidates LIMIT 200")]
        got = store.second_costs(ids)
        rows = store.decision_rows(ids)
    want = {}
    for r in rows:
        c = decode_row(r)
        if len(c) >= 2 and c[0]["equity"] is not None and c[1]["equity"] is not None:
            want[r["id"]] = max(0.0, c[0]["equity"] - c[1]["equity"])
    assert got == pytest.approx(want) and len(want) > 100


def _cube_match(nd, dt, dp, engine, depth):
    """A one-game 7-point match holding one missed double (no double with D/T > ND) and one roll."""
    from gnubg_blunder.labels import cube_theme
    from gnubg_blunder.model import Analysis, Decision, Game, Match, Roll

    pid = line(2, 2)
    error = max(0.0, min(dt, dp) - nd)
    game = Game(number=0, score=(0, 0))
    game.decisions.append(Decision(kind="nodouble", player=0, game=0, seq=0, position_id=pid, cube_value=1,
                                   cube_owner=-1, score_self=0, score_opp=0, crawford=False, mwc_per_emg=0.1,
                                   nd=nd, dt=dt, dp=dp, error=error, played_move="no double", best_move="double",
                                   phase="bear-off", game_plan="bear-off",  # the labels of line(2, 2)
                                   theme=cube_theme("nodouble", nd, dt, dp, error)))
    game.rolls.append(Roll(player=0, game=0, seq=1, dice=(3, 1), position_id=pid, position_after=line(3, 2),
                           cube_value=1, luck=0.0, mwc_per_emg=0.1))
    game.winner, game.points = 0, 1
    return Match(players=("Ann", "Bob"), length=7, source="sgf", games=[game],
                 analysis=Analysis(engine=engine, depth=depth, depth_label=f"{depth:g}-ply"), date="2026-01-01")


def test_an_unstable_cube_verdict_is_read_from_the_other_analysis_and_halved(tmp_path, cli):
    from gnubg_blunder.database import open_store

    db = tmp_path / "cube.db"
    with open_store(db) as store:
        # the deepest analysis (3-ply, read by the views): ND 0.5 < D/T 0.6: a missed double of 0.1,
        # ℓ − d = 0.1 × 0.1 − d (d of two options 0.1 apart, ≈ 0.0018 EMG: ℓ − d ≈ 0.98 %)
        store.add_match(_cube_match(0.5, 0.6, 1.0, "gnubg", 3))
        obj = json.loads(cli("references", "--format", "json", db=db).stdout)
        stable = obj["positions"][0]
        assert (stable["unstable"], stable["factor"]) == (False, 1.0)
        # the same match analysed at 0-ply: D/T 0.45 < ND 0.5, "no double": another verdict
        store.add_match(_cube_match(0.5, 0.45, 1.0, "gnubg", 0))
    obj = json.loads(cli("references", "--format", "json", db=db).stdout)
    p = obj["positions"][0]
    assert p["family"] == "bear-off/cube/missed double" and (p["unstable"], p["factor"]) == (True, 0.5)
    assert p["gain"] == pytest.approx(stable["gain"] / 2)
    # a third analysis (1-ply, D/T 0.55 > ND: "double"): every stored analysis of the decision is read
    with open_store(db) as store:
        store.add_match(_cube_match(0.5, 0.55, 1.0, "gnubg", 1))
        analyses = store.position_analyses([line(2, 2)])
    assert sorted(analyses["analysis_depth"]) == ["0-ply", "1-ply", "3-ply"]


def test_check_knows_the_study_actions(real_copy, cli):
    cli("mark", "studied", _a_stored_position(real_copy), db=real_copy)
    report = json.loads(cli("check", "--format", "json", db=real_copy).stdout)
    assert report["ok"] and report["checked"]["study_actions"] == 1
    assert "1 study action" in cli("check", db=real_copy).stdout
    import sqlite3

    c = sqlite3.connect(real_copy)
    c.execute("INSERT INTO study_actions(position_id, action, at) VALUES ('not an ID', 'studied', 'yesterday')")
    c.commit()
    c.close()
    res = cli("check", "--format", "json", db=real_copy, check=False)
    found = [f for f in json.loads(res.stdout)["findings"] if f["kind"] == "study actions"]
    assert len(found) == 1 and "not an ID" in found[0]["message"] and not found[0]["damage"]


def test_schema_step_8_from_version_7(tmp_path):
    """The v7 fixture (real matches, written by the last commit at schema 7)
    upgrades to 8 with its matches whole, the study_actions table and the
    index of the commented decisions; a SIGKILL before each statement of
    step 8 loses nothing (the kill sweep of test_store_reliability)."""
    import shutil
    import sqlite3

    from gnubg_blunder.database import open_store
    from gnubg_blunder.store.schema import SCHEMA_VERSION

    src = Path(__file__).parent / "fixtures" / "schema" / "v7.db"
    db = tmp_path / "v7.db"
    shutil.copyfile(src, db)
    with open_store(db, report=lambda line: None) as store:
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION) and SCHEMA_VERSION >= 8
        assert store.study_actions() == [] and store.count_matches() == 7
        names = {n for (n,) in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"study_actions", "study_actions_by_position", "decisions_commented"} <= names
    from test_store_reliability import helper

    out = helper("kill-sweep", src, tmp_path / "sweep", 8)  # steps 9 and 10: from the v8 file (test_collections)
    assert out["broken"] == [] and sorted(out["per_step"], key=int) == ["8"]
    assert len(out["per_step"]["8"]) >= 3 + 4  # its three statements, BEGIN, the version read and written, COMMIT
    c = sqlite3.connect(f"file:{src}?mode=ro&immutable=1", uri=True)
    assert c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("7",)
    c.close()


# -- the tie-break and why a reference covers one position alone (issue 25) -------------------

def _hand_candidates(items) -> "R.Candidates":
    """Candidates made by hand, one error each: [(position ID, family index,
    excess, cube score or -1)], the excess in the cost's unit (the rule
    never reads which)."""
    n = len(items)
    family = np.array([it[1] for it in items], np.int64)
    score = np.array([it[3] if len(it) > 3 else -1 for it in items], np.int64)
    excess = np.array([it[2] for it in items], np.float64)
    return R.Candidates(rows=np.arange(n), group=np.arange(n), row_excess=excess.copy(),
                        position=np.arange(n), position_ids=[it[0] for it in items], family=family, score=score,
                        bucket=family * 1_000_000 + (score + 1), excess=excess, n_errors=np.ones(n, np.int64))


def test_a_tie_goes_to_the_larger_own_excess_before_the_id():
    """docs/references.md: gains tied to 1e-12, then a confirming rollout,
    then the larger own excess still uncovered, then the ID.  Two
    neighbours 8 pips apart (line 2, line 10), own excess 0.8 and 0.5: both
    gains 1.3, both uncovered — the position with 0.8 comes first although
    its ID is the larger (by the ID alone the other would)."""
    a, b = line(2), line(10)
    small, big = sorted([a, b])
    cands = _hand_candidates([(big, 0, 0.8), (small, 0, 0.5)])
    res = R.choose(cands, limit=0)
    assert [(cands.position_ids[c.group], round(c.gain, 9)) for c in res.chosen] == [(big, 1.3)]
    assert [cands.position_ids[q] for q in res.chosen[0].covers] == [big, small]
    # the same own excess: the ID decides
    cands = _hand_candidates([(big, 0, 0.65), (small, 0, 0.65)])
    assert [cands.position_ids[c.group] for c in R.choose(cands, limit=0).chosen] == [small]


def test_a_reference_covering_one_position_says_why():
    """The greedy example of docs/references.md (P, Q, R', S in one family,
    T alone in another): P covers P, Q, S (why: none); T has no neighbour;
    R' covers itself alone, its one neighbour Q covered by P.  With Q
    confirmed, Q comes third: its own errors and P were covered by P, it
    reaches R' alone.  A studied position covering the neighbour: said so.
    A cube candidate alone: "at this score"."""
    p, q, r, s, t = line(2), line(10), line(18), line(2, 8), line(5, 5)
    items = [(p, 0, 1.0), (q, 0, 0.4), (r, 0, 1.0), (s, 0, 1.3), (t, 1, 1.1)]
    cands = _hand_candidates(items)
    res = R.choose(cands, limit=0)
    got = [(cands.position_ids[c.group], c.neighbours, R.why_alone(cands, c)) for c in res.chosen]
    assert got == [(p, 2, None),
                   (t, 0, "no neighbour within 12 pips in its family"),
                   (r, 1, "its 1 neighbour within 12 pips in its family was covered already, by an earlier "
                          "reference")]
    confirmed = np.array([pid == q for pid in cands.position_ids])
    third = R.choose(cands, confirmed=confirmed, limit=0).chosen[2]
    assert (cands.position_ids[third.group], [cands.position_ids[x] for x in third.covers]) == (q, [r])
    assert R.why_alone(cands, third) == ("its own errors and 1 of its 2 neighbours within 12 pips in its family were "
                                  "covered already, by an earlier reference")
    # P studied: it covers Q and S before the start; R' covers itself alone, its neighbour Q covered by P
    studied = R.choose(cands, studied=[p], limit=0).chosen
    assert [(cands.position_ids[c.group], R.why_alone(cands, c)) for c in studied] == [
        (t, "no neighbour within 12 pips in its family"),
        (r, "its 1 neighbour within 12 pips in its family was covered already, by a studied position")]
    # a missed double alone at its score (7-away 7-away: (7 × 64 + 7) × 2), and its neighbour at another score
    cube = _hand_candidates([(line(2, 2), 2, 1.0, 910), (line(6, 2), 2, 0.6, 906)])
    assert [R.why_alone(cube, c) for c in R.choose(cube, limit=0).chosen] == [
        "no neighbour within 12 pips in its family at this score"] * 2


def test_the_view_gives_the_neighbours_and_why_alone(real_db, cli):
    """references --format json: every position has ``neighbours`` and
    ``why_alone`` (null exactly when it covers 2 positions or more); the
    text says it on the position's line."""
    obj = json.loads(cli("references", "--limit", "0", "--format", "json", db=real_db).stdout)
    assert obj["positions"]
    for p in obj["positions"]:
        assert (p["why_alone"] is None) == (len(p["covers"]) >= 2), p["rank"]
        if p["neighbours"] == 0:
            assert p["why_alone"].startswith("no neighbour within 12 pips in its family")
    text = cli("references", "--limit", "0", db=real_db).stdout
    for p in obj["positions"]:
        if p["why_alone"]:
            assert f"covers 1 position: {p['why_alone']}" in text
