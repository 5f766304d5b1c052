"""Position features, phase, game plan, checker themes, like distance and the
blot-bias sign (gnubg_blunder/board/features.py, rules in docs/positions.md)."""

from __future__ import annotations

import random

import pytest

from conftest import side
from gnubg_blunder.board import features as F
from gnubg_blunder.board.features import (
    GAME_PLANS,
    PHASES,
    THEME_BLOTS,
    THEME_GAMMON,
    THEME_NONE,
    THEME_PASSIVE,
    THEME_POINT,
    blot_sign,
    checker_theme,
    classify,
    error_mpt,
    exposed_blots,
    features,
    has_contact,
    like_distance,
    side_distance,
    side_features,
    theme_rules,
)
from gnubg_blunder.board.moves import apply_steps, find_play, legal_plays
from gnubg_blunder.board.position import Board


def B(me: dict, opp: dict) -> Board:
    """Board from {point: checkers} of each side in its own numbering (25 = bar)."""
    return Board(side(me), side(opp))


INITIAL = Board.initial()


# ---------------------------------------------------------------------------
# Reference implementations (slow, obvious) and a pool of real-play boards
# ---------------------------------------------------------------------------


def naive_side(s):
    made = [s[i] >= 2 for i in range(24)]
    best = (0, 0, 0)
    run = 0
    for i in range(24):
        run = run + 1 if made[i] else 0
        if run > best[0]:  # strictly longer: ties keep the run nearest home
            best = (run, i + 2 - run, i + 1)
    return F.SideFeatures(
        pips=sum((i + 1) * s[i] for i in range(25)),
        off=15 - sum(s),
        bar=s[24],
        blots=sum(1 for i in range(24) if s[i] == 1),
        points=sum(made),
        home_points=sum(made[0:6]),
        outfield_points=sum(made[6:18]),
        anchors=sum(made[18:24]),
        advanced_anchor=next((p for p in range(18, 23) if made[p - 1]), 0),
        back=sum(s[18:25]),
        outside=sum(s[6:25]),
        rear=max((i + 1 for i in range(25) if s[i]), default=0),
        prime=best[0],
        prime_low=best[1],
        prime_high=best[2],
    )


def naive_contact(b: Board) -> bool:
    # my checker on my point p must pass an opposing checker on its point q
    # (my point 25 - q) when 25 - q < p, i.e. p + q > 25 (bars = 25).
    return any(
        b.on_roll[p - 1] and b.opponent[q - 1] and p + q > 25 for p in range(1, 26) for q in range(1, 26)
    )


def naive_trapped(mine, other_prime_low):
    # my checker on my point p stands on the other side's point 25 - p (the
    # bar: 0); it is behind the prime when 25 - p < the prime's lowest point.
    return sum(mine[p - 1] for p in range(1, 26) if 25 - p < other_prime_low)


def naive_emd(a, b) -> int:
    def spots(s):
        out = [0] * (15 - sum(s))  # off = 0
        for i, n in enumerate(s):
            out += [i + 1] * n  # points 1..24, bar = 25
        return sorted(out)

    return sum(abs(x - y) for x, y in zip(spots(a), spots(b)))


def random_boards(n_games: int = 30, seed: int = 7):
    """Boards met in random games (hits, bar, bear-off, races), mover on roll."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_games):
        b = INITIAL
        for _ in range(400):
            out.append(b)
            plays = legal_plays(b, rng.randint(1, 6), rng.randint(1, 6))
            if plays:
                b = rng.choice(plays).result
                if sum(b.on_roll) == 0:
                    break
            b = b.swapped()
    return out


@pytest.fixture(scope="module")
def pool():
    return random_boards()


# ---------------------------------------------------------------------------
# Basic features
# ---------------------------------------------------------------------------


def test_initial_position_features():
    f = features(INITIAL)
    for s in (f.me, f.opp):
        assert s.pips == 167 and s.off == 0 and s.bar == 0 and s.blots == 0
        assert s.points == 4 and s.home_points == 1 and s.outfield_points == 2 and s.anchors == 1
        assert s.advanced_anchor == 0  # the 24-point (opponent's ace point) is not advanced
        assert s.back == 2 and s.outside == 10 and s.rear == 24
        assert (s.prime, s.prime_low, s.prime_high) == (1, 6, 6)
    assert f.contact and f.me_trapped == 0 and f.opp_trapped == 0 and f.race_lead == 0
    assert (f.phase, f.game_plan) == ("opening", "opening")
    assert classify(INITIAL) == ("opening", "opening")


def test_side_features_match_reference(pool):
    F.clear_caches()
    for b in pool:
        for s in (b.on_roll, b.opponent):
            assert side_features(s) == naive_side(s), s
            assert side_features(list(s)) == naive_side(s)  # lists work too (not cached)


def test_contact_and_trapped_match_reference(pool):
    seen_trapped = seen_race = 0
    for b in pool:
        f = features(b)
        assert f.contact == naive_contact(b) == has_contact(b)
        if f.contact:
            mt = naive_trapped(b.on_roll, f.opp.prime_low) if f.opp.prime >= 4 else 0
            ot = naive_trapped(b.opponent, f.me.prime_low) if f.me.prime >= 4 else 0
            assert (f.me_trapped, f.opp_trapped) == (mt, ot)
            seen_trapped += bool(mt or ot)
        else:
            seen_race += 1
            assert f.me_trapped == f.opp_trapped == 0
        assert f.phase in PHASES and f.game_plan in GAME_PLANS
    assert seen_trapped and seen_race  # the pool covers both


def test_prime_and_zones_by_hand():
    b = B({8: 2, 7: 2, 6: 3, 5: 2, 4: 2, 13: 2, 24: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    me = features(b).me
    assert (me.prime, me.prime_low, me.prime_high) == (5, 4, 8)
    assert (me.home_points, me.outfield_points, me.anchors, me.points) == (3, 3, 1, 7)
    # ties below 4 points: the run nearest home
    s = side_features(side({2: 2, 3: 2, 9: 2, 10: 2, 24: 2}))
    assert (s.prime, s.prime_low, s.prime_high) == (2, 2, 3)
    # bar and borne-off checkers
    s = side_features(side({25: 2, 1: 3}))
    assert (s.bar, s.back, s.off, s.rear, s.pips, s.outside, s.blots) == (2, 2, 10, 25, 53, 2, 0)


# ---------------------------------------------------------------------------
# Phase
# ---------------------------------------------------------------------------


def test_phase_opening_by_distance_from_start():
    # 24/15 (9) + 13/7(2) (12) + 8/5 (3) = 24 pips from the start: opening
    near = B({24: 1, 15: 1, 13: 3, 8: 2, 7: 2, 6: 5, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert side_distance(near.on_roll, INITIAL.on_roll) == 24
    assert classify(near)[0] == "opening"
    assert classify(near.swapped())[0] == "opening"
    # 8/4 instead of 8/5: 25 pips, middle game
    far = B({24: 1, 15: 1, 13: 3, 8: 2, 7: 2, 6: 5, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert side_distance(far.on_roll, INITIAL.on_roll) == 25
    assert classify(far)[0] == "middle game"
    assert classify(far.swapped())[0] == "middle game"  # either side too far


def test_phase_opening_after_real_opening_moves():
    b = INITIAL
    for dice, steps in (((6, 2), [(24, 18), (13, 11)]), ((5, 5), [(13, 8), (13, 8), (6, 1), (6, 1)])):
        b = find_play(b, *dice, steps).result.swapped()
        assert classify(b)[0] == "opening"


def test_phase_move_number_and_checkers_off():
    # the play's number, when given, decides the opening, phase and plan alike
    assert classify(INITIAL, move_number=6) == ("opening", "opening")
    assert classify(INITIAL, move_number=7) == ("middle game", "loose middle game")
    far = B({24: 1, 15: 1, 13: 3, 8: 2, 7: 2, 6: 5, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert classify(far, move_number=3) == ("opening", "opening")
    # a checker borne off: never the opening
    off = B({24: 2, 6: 5, 5: 4, 4: 3}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert classify(off)[0] == "middle game"


def test_phase_race_and_bearoff():
    race = B({10: 2, 8: 2, 6: 3, 5: 3, 4: 3, 3: 2}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3})
    assert classify(race) == ("race", "race")
    bearoff = B({6: 4, 5: 3, 4: 3, 3: 2, 2: 3}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3})
    assert classify(bearoff) == ("bear-off", "bear-off")  # the mover's checkers all home
    assert classify(bearoff.swapped()) == ("race", "race")  # the other still has to come home
    # contact boundary: rears 13 + 11 = 24 -> passed; 13 + 13 = 26 -> contact
    # (25 would put both on one point)
    passed = B({13: 1, 6: 14}, {11: 1, 6: 14})
    touching = B({13: 1, 6: 14}, {13: 1, 6: 14})
    assert not features(passed).contact and classify(passed)[0] == "race"
    assert features(touching).contact and classify(touching)[0] == "middle game"


def test_phase_bear_off_against_contact():
    # all my checkers home, two off, his anchor on my ace point: the bear-off
    # phase (it used to be the middle game), the plan says "against contact"
    opp = {24: 2, 13: 4, 8: 3, 6: 4, 5: 2}
    off = B({6: 4, 5: 4, 4: 3, 3: 2}, opp)
    assert off.position_id() == "sOfgATDs3gMAAA"
    assert features(off).contact and features(off).me.off == 2
    assert classify(off) == ("bear-off", "bear-off against contact")
    home = B({6: 5, 5: 4, 4: 3, 3: 3}, opp)  # all home, none off yet
    assert classify(home) == ("bear-off", "bear-off against contact")
    # one checker still on my 7-point: bearing in, the middle game
    bearing_in = B({7: 1, 6: 4, 5: 4, 4: 3, 3: 2}, opp)
    assert classify(bearing_in) == ("middle game", "bear-off against contact")
    # his side of it: he has a checker back, not home: the middle game
    assert classify(off.swapped())[0] == "middle game"


def test_phase_and_plan_are_one_reading(pool):
    """race <=> race, opening <=> opening, bear-off <=> all my checkers home."""
    seen = set()
    for b in pool:
        f = features(b)
        assert (f.phase == "race") == (f.game_plan == "race"), b
        assert (f.phase == "opening") == (f.game_plan == "opening"), b
        assert (f.phase == "bear-off") == (f.me.outside == 0), b
        if f.phase == "bear-off":
            assert f.game_plan == ("bear-off against contact" if f.contact else "bear-off"), b
        assert (f.game_plan in ("race", "bear-off")) == (not f.contact), b
        seen.add((f.phase, f.game_plan, f.contact))
    assert {("bear-off", "bear-off", False), ("bear-off", "bear-off against contact", True),
            ("race", "race", False), ("opening", "opening", True)} <= seen


# ---------------------------------------------------------------------------
# Game plans: one documented example per label (docs/positions.md)
# ---------------------------------------------------------------------------

PLAN_EXAMPLES = {
    # label: (position ID, me, opp)
    "race": ("uPeYAQDs7swAAA", {10: 2, 8: 2, 6: 3, 5: 3, 4: 3, 3: 2}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3}),
    "bear-off": ("uPeYAQBudw8AAA", {6: 4, 5: 3, 4: 3, 3: 2, 2: 3}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3}),
    "bear-off against contact": (
        "3N0DADBudw8AAA",
        {6: 4, 5: 3, 4: 3, 3: 2, 2: 3},
        {24: 2, 6: 4, 5: 3, 4: 3, 3: 3},
    ),
    "ace-point game": (
        "2r0HAADszuAAGA",
        {24: 2, 13: 3, 8: 2, 6: 3, 5: 3, 4: 2},
        {6: 4, 5: 4, 4: 3, 3: 2, 2: 1},
    ),
    "opening": ("4HPwATDgc/ABMA", {24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}),
    "blitz": ("4HPwAVBsOwcHAA", {13: 3, 8: 3, 6: 3, 5: 2, 4: 2, 3: 2}, {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}),
    "blitz defence": ("bDsHBwDgc/ABUA", {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {13: 3, 8: 3, 6: 3, 5: 2, 4: 2, 3: 2}),
    "back game": (
        "uPuYAQDYzmAAMw",
        {24: 2, 22: 2, 13: 2, 8: 2, 6: 3, 5: 2, 4: 2},
        {11: 2, 9: 2, 6: 5, 5: 3, 4: 3},
    ),
    "playing against a back game": (
        "2M5gADO4+5gBAA",
        {11: 2, 9: 2, 6: 5, 5: 3, 4: 3},
        {24: 2, 22: 2, 13: 2, 8: 2, 6: 3, 5: 2, 4: 2},
    ),
    "prime vs prime": (
        "bLuBATDYboMBMA",
        {24: 2, 13: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2},
        {24: 2, 13: 2, 7: 2, 6: 3, 5: 2, 4: 2, 3: 2},
    ),
    "priming game": (
        "4HPwATDYboMBMA",
        {24: 2, 13: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2},
        {24: 2, 13: 5, 8: 3, 6: 5},
    ),
    "prime defence": (
        "2G6DATDgc/ABMA",
        {24: 2, 13: 5, 8: 3, 6: 5},
        {24: 2, 13: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2},
    ),
    "mutual holding": (
        "jOfgAQNsnoMBAw",
        {20: 2, 13: 2, 8: 3, 6: 4, 4: 2, 3: 2},
        {20: 2, 13: 4, 8: 3, 6: 4, 3: 2},
    ),
    "holding game": ("OJ8NBwCY5+ABAw", {20: 2, 13: 4, 8: 3, 6: 4, 4: 2}, {13: 3, 9: 2, 8: 2, 6: 5, 4: 3}),
    "playing against an anchor": (
        "mOfgAQM4nw0HAA",
        {13: 3, 9: 2, 8: 2, 6: 5, 4: 3},
        {20: 2, 13: 4, 8: 3, 6: 4, 4: 2},
    ),
    "containment": ("sOfBAyDYnhsGAA", {13: 2, 9: 2, 8: 3, 6: 4, 5: 2, 4: 2}, {24: 1, 13: 4, 8: 4, 6: 4, 5: 2}),
    "containment defence": (
        "2J4bBgCw58EDIA",
        {24: 1, 13: 4, 8: 4, 6: 4, 5: 2},
        {13: 2, 9: 2, 8: 3, 6: 4, 5: 2, 4: 2},
    ),
    "loose middle game": (
        "cM9mACJkz8EBJA",
        {24: 1, 22: 1, 13: 3, 8: 3, 6: 4, 5: 2, 3: 1},
        {24: 1, 21: 1, 11: 2, 9: 2, 8: 2, 6: 4, 5: 3},
    ),
}

# Each example decoded by gnubg 1.07 (``gnubg.positionfromid``: the opponent's 25
# counts, then the mover's; points 1..24, then the bar), for the IDs added with
# labels version 3.
GNUBG_DECODED = {
    "uPeYAQBudw8AAA": ({4: 3, 5: 4, 6: 4, 9: 2, 11: 2}, {2: 3, 3: 2, 4: 3, 5: 3, 6: 4}),
    "2M5gADO4+5gBAA": ({4: 2, 5: 2, 6: 3, 8: 2, 13: 2, 22: 2, 24: 2}, {4: 3, 5: 3, 6: 5, 9: 2, 11: 2}),
    "jOfgAQNsnoMBAw": ({3: 2, 6: 4, 8: 3, 13: 4, 20: 2}, {3: 2, 4: 2, 6: 4, 8: 3, 13: 2, 20: 2}),
    "mOfgAQM4nw0HAA": ({4: 2, 6: 4, 8: 3, 13: 4, 20: 2}, {4: 3, 6: 5, 8: 2, 9: 2, 13: 3}),
    "sOfBAyDYnhsGAA": ({5: 2, 6: 4, 8: 4, 13: 4, 24: 1}, {4: 2, 5: 2, 6: 4, 8: 3, 9: 2, 13: 2}),
    "2J4bBgCw58EDIA": ({4: 2, 5: 2, 6: 4, 8: 3, 9: 2, 13: 2}, {5: 2, 6: 4, 8: 4, 13: 4, 24: 1}),
    "cM9mACJkz8EBJA": ({5: 3, 6: 4, 8: 2, 9: 2, 11: 2, 21: 1, 24: 1}, {3: 1, 5: 2, 6: 4, 8: 3, 13: 3, 22: 1, 24: 1}),
    # the middle-game ace-point game and the bear-off phase against contact (docs/positions.md)
    "sKfMBwCw5+ABMA": ({5: 2, 6: 4, 8: 1, 9: 1, 11: 2, 13: 5}, {5: 2, 6: 4, 8: 3, 13: 4, 24: 2}),
    "sOfgATDs3gMAAA": ({5: 2, 6: 4, 8: 3, 13: 4, 24: 2}, {3: 2, 4: 3, 5: 4, 6: 4}),
}


def test_new_examples_as_gnubg_decodes_them():
    for pid, (opp, me) in GNUBG_DECODED.items():
        assert Board.from_position_id(pid) == B(me, opp), pid


def test_every_plan_has_an_example():
    assert set(PLAN_EXAMPLES) == set(GAME_PLANS)


@pytest.mark.parametrize("label", sorted(PLAN_EXAMPLES))
def test_plan_example(label):
    pid, me, opp = PLAN_EXAMPLES[label]
    b = B(me, opp)
    assert b.position_id() == pid
    assert Board.from_position_id(pid) == b
    assert features(Board.from_position_id(pid)).game_plan == label


# Edges where two plans compete -------------------------------------------------

BACK = {24: 2, 22: 2, 13: 2, 8: 2, 6: 3, 5: 2, 4: 2}  # 170 pips, anchors on the 24 and 22 points


def test_back_game_needs_50_pips_deficit_else_holding():
    at50 = B(BACK, {13: 2, 11: 2, 10: 1, 9: 2, 7: 1, 6: 4, 5: 1, 4: 2})  # 120 pips
    at49 = B(BACK, {13: 2, 11: 2, 10: 1, 9: 2, 8: 1, 6: 4, 5: 1, 4: 2})  # 121 pips
    assert features(at50).me.pips - features(at50).opp.pips == 50
    assert classify(at50)[1] == "back game"
    # 49 behind: the 22-point (opponent's 3-point) is a holding point
    assert classify(at49)[1] == "holding game"


def test_back_game_needs_two_anchors():
    # one anchor (his ace point) far behind: no back game, the middle-game ace-point game
    one = B({24: 2, 23: 1, 22: 1, 13: 2, 8: 2, 6: 3, 5: 2, 4: 2}, {11: 2, 9: 2, 6: 5, 5: 3, 4: 3})
    f = features(one)
    assert f.me.anchors == 1 and f.me.pips - f.opp.pips >= 50
    assert f.game_plan == "ace-point game"


def test_holding_lead_limit_both_sides():
    me = {20: 2, 13: 2, 8: 3, 6: 4, 4: 2, 3: 2}  # 128 pips, his 5-point anchored
    lead15 = B(me, {24: 2, 13: 3, 8: 3, 6: 4, 3: 2, 2: 1})  # 143
    lead16 = B(me, {24: 2, 13: 3, 8: 3, 6: 4, 3: 3})  # 144
    assert features(lead15).race_lead == 15 and classify(lead15) == ("middle game", "holding game")
    assert classify(lead15.swapped())[1] == "playing against an anchor"  # the holding game's other side
    # 16 ahead: no holding game, and so nobody plays against it; his ace-point anchor
    # is only 16 behind (no ace-point game): both sides have checkers back, nothing settled
    assert features(lead16).race_lead == 16 and classify(lead16)[1] == "loose middle game"
    assert classify(lead16.swapped())[1] == "loose middle game"


# The opening plan, the middle-game ace-point game and its other side ----------


def test_opening_plan_is_the_opening_window():
    near = B({24: 1, 15: 1, 13: 3, 8: 2, 7: 2, 6: 5, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})  # 24 pips away
    far = B({24: 1, 15: 1, 13: 3, 8: 2, 7: 2, 6: 5, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5})  # 25 pips away
    assert classify(near) == ("opening", "opening")
    assert classify(far) == ("middle game", "playing against an anchor")  # he is 25 behind on my ace point
    # in the window the opening beats every structure: two advanced anchors after
    # a few rolls are still the opening; the same anchors later are mutual holding
    early = B({20: 2, 13: 4, 8: 3, 6: 4, 4: 2}, {20: 2, 13: 4, 8: 3, 6: 4, 3: 2})  # 19 and 21 pips away
    later = B({20: 2, 13: 2, 8: 3, 6: 4, 4: 2, 3: 2}, {20: 2, 13: 4, 8: 3, 6: 4, 3: 2})  # 39 and 21
    assert classify(early) == ("opening", "opening")
    assert classify(later) == ("middle game", "mutual holding")


ACE_ME = {24: 2, 13: 4, 8: 3, 6: 4, 5: 2}  # 158 pips, my only anchor on his ace point
NONE_BACK_138 = {13: 5, 11: 2, 9: 1, 8: 1, 6: 4, 5: 2}  # 138 pips, nothing back
NONE_BACK_139 = {13: 5, 11: 2, 10: 1, 8: 1, 6: 4, 5: 2}  # 139 pips


def test_middle_game_ace_point_game_needs_20_pips_deficit():
    at20, at19 = B(ACE_ME, NONE_BACK_138), B(ACE_ME, NONE_BACK_139)
    assert at20.position_id() == "sKfMBwCw5+ABMA"
    assert features(at20).race_lead == -20 and features(at19).race_lead == -19
    assert classify(at20) == ("middle game", "ace-point game")
    assert classify(at20.swapped())[1] == "playing against an anchor"
    # 19 behind the ace-point anchor waits for nothing yet: not settled (he has none back
    # to contain, and my checkers back are an anchor)
    assert classify(at19)[1] == "loose middle game"
    assert classify(at19.swapped())[1] == "loose middle game"


def test_middle_game_ace_point_game_anchors():
    # his deuce point counts as well (156 pips against 136)
    deuce = B({23: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {13: 5, 10: 2, 9: 1, 8: 1, 6: 4, 5: 2})
    assert features(deuce).race_lead == -20 and classify(deuce)[1] == "ace-point game"
    # his 3-point is an advanced anchor: a holding game however far behind
    three = B({22: 2, 13: 4, 8: 3, 6: 4, 5: 2}, NONE_BACK_138)
    assert features(three).race_lead == -16 and classify(three)[1] == "holding game"
    far_three = B({22: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {13: 3, 11: 2, 9: 1, 8: 3, 6: 4, 5: 2})
    assert features(far_three).race_lead <= -20 and classify(far_three)[1] == "holding game"
    # his ace and deuce points, 45 behind: under the back game's 50, an ace-point game
    two = B({24: 2, 23: 2, 13: 3, 8: 2, 6: 4, 5: 2}, NONE_BACK_138)
    assert features(two).me.anchors == 2 and features(two).race_lead == -45
    assert classify(two)[1] == "ace-point game"


def test_playing_against_a_back_game_beats_priming():
    # his two anchors (my 1- and 2-points) behind my 5-point prime (my 4..8)
    me = {13: 2, 8: 2, 7: 2, 6: 3, 5: 3, 4: 3}  # 101 pips
    at50 = B(me, {24: 2, 23: 2, 6: 5, 5: 3, 4: 3})  # 151
    at49 = B(me, {24: 2, 23: 2, 6: 5, 5: 3, 4: 2, 3: 1})  # 150
    assert features(at50).opp_trapped == 4 and features(at50).race_lead == 50
    assert classify(at50)[1] == "playing against a back game"
    assert classify(at50.swapped())[1] == "back game"
    assert classify(at49)[1] == "priming game"
    assert classify(at49.swapped())[1] == "prime defence"


# Containment --------------------------------------------------------------------

CONTAINER = {13: 2, 9: 2, 8: 3, 6: 4, 5: 2, 4: 2}  # nothing back, home points 4, 5, 6


def test_containment_edges():
    straggler = B(CONTAINER, {24: 1, 13: 4, 8: 4, 6: 4, 5: 2})
    assert classify(straggler)[1] == "containment"
    assert classify(straggler.swapped())[1] == "containment defence"
    # his lone checker on the bar: below the blitz's two checkers back, containment
    on_bar = B(CONTAINER, {25: 1, 13: 4, 8: 4, 6: 4, 5: 2})
    assert classify(on_bar)[1] == "containment"
    assert classify(on_bar.swapped())[1] == "containment defence"
    # two back, one of them on the bar, against my three home points: a blitz
    assert classify(B(CONTAINER, {25: 1, 24: 1, 13: 3, 8: 4, 6: 4, 5: 2}))[1] == "blitz"
    # his checkers back made into an anchor: no longer contained; here his ace-point
    # game (48 behind), so I play against an anchor
    anchored = B(CONTAINER, {24: 2, 13: 4, 8: 3, 6: 4, 5: 2})
    assert classify(anchored)[1] == "playing against an anchor"
    # one of my checkers back too: both sides back, a loose middle game
    mine_back = B({24: 1, 13: 2, 9: 1, 8: 3, 6: 4, 5: 2, 4: 2}, {24: 1, 13: 4, 8: 4, 6: 4, 5: 2})
    assert classify(mine_back)[1] == "loose middle game"


MIRRORS = {
    "blitz": "blitz defence",
    "back game": "playing against a back game",
    "priming game": "prime defence",
    "holding game": "playing against an anchor",
    "ace-point game": "playing against an anchor",
    "containment": "containment defence",
}


def test_mirrors_on_real_play_boards(pool):
    """Away from a bear-in, each structure's other side gets its partner plan."""
    seen = set()
    for b in pool:
        f = features(b)
        if f.game_plan not in MIRRORS or f.opp.outside <= 2 or f.me.outside <= 2:
            continue  # a bear-in decides the plan of both sides (test_bearing_in_sides)
        if f.game_plan == "blitz" and features(b.swapped()).game_plan == "blitz":
            continue  # both attack a checker on the bar
        assert classify(b.swapped())[1] == MIRRORS[f.game_plan], b
        seen.add(f.game_plan)
    assert {"containment", "holding game", "priming game"} <= seen


def test_blitz_beats_back_game_and_needs_no_defender_anchor():
    # the back-gamer hit a shot: two anchors, far behind, but attacking a checker on the bar
    b = B({24: 2, 23: 2, 13: 4, 6: 3, 5: 2, 4: 2}, {25: 1, 24: 1, 6: 5, 5: 4, 4: 4})
    f = features(b)
    assert f.me.anchors == 2 and f.me.pips - f.opp.pips >= 50
    assert f.game_plan == "blitz"
    # the defender anchored (24-point) behind the blitzer's 4-prime: priming, not blitz
    anchored = B({13: 3, 8: 3, 6: 3, 5: 2, 4: 2, 3: 2}, {25: 1, 24: 2, 13: 4, 8: 3, 6: 5})
    assert classify(anchored)[1] == "priming game"
    # a single checker back (on the bar) is not a blitz either
    one_back = B({13: 3, 8: 3, 6: 3, 5: 2, 4: 2, 3: 2}, {25: 1, 13: 6, 8: 3, 6: 5})
    assert classify(one_back)[1] == "priming game"  # the bar checker is still behind the prime
    # two on the bar against only 2 home points is a blitz
    two_bar = B({13: 5, 8: 4, 6: 3, 5: 3}, {25: 2, 13: 5, 8: 3, 6: 5})
    assert classify(two_bar)[1] == "blitz"


def test_prime_vs_prime_needs_both_primes():
    me = {24: 2, 13: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2}
    four = B(me, {24: 2, 13: 3, 7: 2, 6: 4, 5: 2, 4: 2})  # opponent's 4-7 prime traps my 24s
    three = B(me, {24: 2, 13: 3, 8: 2, 6: 4, 5: 2, 4: 2})  # 4-6 only
    assert classify(four)[1] == "prime vs prime"
    assert classify(three)[1] == "priming game"


def test_bearing_in_sides():
    # both sides bearing in with one checker outside: the mover's plan comes first
    both = B({10: 1, 5: 3, 3: 2, 2: 2}, {1: 8, 2: 5, 3: 1, 18: 1})
    assert classify(both)[1] == "bear-off against contact"
    assert classify(both.swapped())[1] == "bear-off against contact"
    # three checkers outside is not a bear-in yet
    three_out = B({6: 4, 5: 3, 4: 3, 3: 2, 9: 1, 10: 1, 11: 1}, {24: 2, 6: 4, 5: 3, 4: 3, 3: 3})
    assert classify(three_out)[1] != "bear-off against contact"
    # against a bear-in: two checkers back make an ace-point game, a lone straggler does not
    two_back = B({24: 2, 13: 4, 8: 3, 6: 6}, {6: 5, 5: 4, 3: 3, 2: 2, 9: 1})
    one_back = B({24: 1, 13: 5, 8: 3, 6: 6}, {6: 5, 5: 4, 3: 3, 2: 2, 9: 1})
    assert classify(two_back)[1] == "ace-point game"
    assert classify(one_back)[1] == "bear-off against contact"  # his bear-in is the position's plan
    # the opponent bearing in past my advanced anchor: holding game, not ace-point
    adv = B({21: 2, 13: 3, 8: 2, 6: 3, 5: 3, 3: 2}, {6: 4, 5: 4, 3: 3, 2: 2, 8: 1})
    assert classify(adv)[1] == "holding game"


def test_against_a_bear_off_a_passed_anchor_is_no_holding_game():
    # the opponent has 14 off and his last checker on his 2-point; my four checkers on
    # his bar point (my 18) have nothing left to hold, one checker is back: his bear-off
    # against my contact, not a holding game (`board classify AgAADH0D4IEAAA`)
    b = B({24: 1, 18: 4, 7: 2, 6: 5, 5: 1, 1: 2}, {2: 1})
    assert b.position_id() == "AgAADH0D4IEAAA"
    f = features(b)
    assert f.contact and f.opp.off == 14 and f.me.advanced_anchor == 18 and f.me.back == 1
    assert f.game_plan == "bear-off against contact"
    assert classify(b.swapped())[1] == "bear-off against contact"  # his side of it
    # two checkers back beside an anchor he has passed: an ace-point game, not a holding game
    me = {24: 1, 21: 2, 13: 4, 8: 3, 6: 5}
    passed = B(me, {3: 5, 2: 5})  # 5 off, everything of his below my anchor on his 4-point
    assert features(passed).contact and classify(passed)[1] == "ace-point game"
    # the same anchor while one of his checkers still has to pass it: a holding game
    held = B(me, {8: 1, 3: 5, 2: 4})
    assert classify(held)[1] == "holding game"
    # the mirror is exact: whoever bears in or off, the other side plays an ace-point,
    # holding or bear-off against contact game
    for other in (passed, held):
        assert classify(other.swapped())[1] == "bear-off against contact"


# ---------------------------------------------------------------------------
# Checker themes
# ---------------------------------------------------------------------------

START_OPP = {24: 2, 13: 5, 8: 3, 6: 5}  # opponent on its starting points (mine: 1, 12, 17, 19)


def res(board: Board, *steps) -> Board:
    return apply_steps(board, steps)


def test_error_rounding():
    assert error_mpt(0.059) == 59
    assert error_mpt(0.0594) == 59
    assert error_mpt(0.0595) == 60  # half-up
    assert error_mpt(0.060) == 60
    assert error_mpt(0.0495) == 50


def test_too_many_blots_two_more():
    # 6-6 from the start: 24/18 13/7(3) leaves blots on 24 and 18; 24/18(2) 13/7(2) none
    played = find_play(INITIAL, 6, 6, [(24, 18), (13, 7), (13, 7), (13, 7)]).result
    best = find_play(INITIAL, 6, 6, [(24, 18), (24, 18), (13, 7), (13, 7)]).result
    assert exposed_blots(played) == (2, 2) and exposed_blots(best) == (0, 0)
    # the best also makes the opponent's bar point: too passive fires too, blots come first
    assert theme_rules(INITIAL, played, best) == (THEME_BLOTS, THEME_PASSIVE)
    assert checker_theme(INITIAL, played, best, 0.270) == THEME_BLOTS


def test_too_many_blots_direct_shot():
    b = B({13: 4, 9: 1, 8: 3, 6: 5, 24: 2}, START_OPP)
    played = res(b, (9, 4))  # a blot 3 pips in front of the opponent's 24-point checkers
    best = res(b, (13, 9))  # covers the 9-point, no blot
    assert exposed_blots(played) == (1, 1) and exposed_blots(best) == (0, 0)
    assert checker_theme(b, played, best, 0.080) == THEME_BLOTS


def test_blots_out_of_reach_do_not_count():
    # a race: nothing can hit, so leaving blots is no theme
    b = B({10: 2, 8: 2, 6: 3, 5: 3, 4: 3, 3: 2}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3})
    played = res(b, (10, 7), (8, 7), (8, 2))
    best = res(b, (10, 8), (10, 8))
    assert exposed_blots(played) == (0, 0)
    assert checker_theme(b, played, best, 0.100) == THEME_NONE


def test_point_not_made():
    b = B({13: 4, 9: 2, 8: 3, 6: 4, 24: 2}, START_OPP)
    best = res(b, (8, 5), (6, 5))  # makes the 5-point
    played = res(b, (13, 10), (10, 9))  # safe, no new point
    assert exposed_blots(played) == exposed_blots(best) == (0, 0)
    assert theme_rules(b, played, best) == (THEME_POINT,)
    assert checker_theme(b, played, best, 0.075) == THEME_POINT


def test_point_made_elsewhere_is_not_point_not_made():
    b = B({13: 4, 9: 2, 8: 3, 6: 4, 24: 2}, START_OPP)
    best = res(b, (8, 5), (6, 5))
    played = res(b, (8, 4), (6, 4))  # makes the 4-point instead
    assert THEME_POINT not in theme_rules(b, played, best)


def test_too_passive_no_hit():
    b = B({13: 5, 8: 3, 6: 5, 24: 2}, {24: 2, 14: 1, 13: 4, 8: 3, 6: 5})  # a blot on my 11-point
    best = res(b, (13, 11), (13, 11))  # hits and points
    played = res(b, (6, 4), (6, 4))  # makes the 4-point, hits nothing
    assert best.opponent[24] == 1 and played.opponent[24] == 0
    assert theme_rules(b, played, best) == (THEME_PASSIVE,)
    assert checker_theme(b, played, best, 0.120) == THEME_PASSIVE


def test_too_passive_advanced_anchor():
    b = B({24: 2, 13: 5, 8: 3, 6: 5}, START_OPP)
    best = res(b, (24, 20), (24, 20))  # the opponent's 5-point
    played = res(b, (13, 9), (13, 9))
    assert theme_rules(b, played, best) == (THEME_PASSIVE,)
    assert checker_theme(b, played, best, 0.090) == THEME_PASSIVE


def test_too_passive_safe_instead_of_bold():
    # 2-1 from the start (a real gnubg error, e = 0.138): 6/3 instead of 24/23 13/11
    played = find_play(INITIAL, 2, 1, [(6, 4), (4, 3)]).result
    best = find_play(INITIAL, 2, 1, [(24, 23), (13, 11)]).result
    assert exposed_blots(played)[0] + 2 <= exposed_blots(best)[0]
    assert theme_rules(INITIAL, played, best) == (THEME_PASSIVE,)
    assert checker_theme(INITIAL, played, best, 0.138) == THEME_PASSIVE


def test_point_on_blot_is_point_not_made_first():
    b = B({13: 5, 8: 3, 6: 5, 24: 2}, {24: 2, 21: 1, 13: 5, 8: 3, 6: 4})  # a blot on my 4-point
    best = res(b, (8, 4), (6, 4))  # hits and makes the 4-point
    played = res(b, (13, 9), (13, 9))
    assert theme_rules(b, played, best) == (THEME_POINT, THEME_PASSIVE)
    assert checker_theme(b, played, best, 0.150) == THEME_POINT


RACE = B({10: 1, 9: 1, 6: 4, 5: 4, 4: 3, 3: 2}, {24: 1, 6: 4, 5: 4, 4: 3})  # one opposing checker back


def test_gammon_underestimated():
    played = res(RACE, (10, 4), (9, 8))
    best = res(RACE, (10, 8), (9, 8))
    assert theme_rules(RACE, played, best) == ()  # nothing structural
    p_probs = (0.41, 0.00, 0.00, 0.15, 0.00)
    b_probs = (0.40, 0.00, 0.00, 0.05, 0.00)  # saves 10 points of gammons, wins as often
    assert checker_theme(RACE, played, best, 0.080, p_probs, b_probs) == THEME_GAMMON
    # without probabilities no theme
    assert checker_theme(RACE, played, best, 0.080) == THEME_NONE
    # winning gammons count as well (win gammon + win backgammon)
    assert checker_theme(RACE, played, best, 0.080, (0.60, 0.10, 0.0, 0.0, 0.0), (0.60, 0.14, 0.02, 0.0, 0.0)) == THEME_GAMMON


def test_gammon_rule_needs_a_clear_margin():
    played = res(RACE, (10, 4), (9, 8))
    best = res(RACE, (10, 8), (9, 8))
    # 4 points of gammons: under the 5-point margin
    assert checker_theme(RACE, played, best, 0.080, (0.40, 0, 0, 0.09, 0), (0.40, 0, 0, 0.05, 0)) == THEME_NONE
    # 10 points of gammons but 3 points of wins too: wins explain too much (4 x 0.03 > 0.10)
    assert checker_theme(RACE, played, best, 0.080, (0.40, 0, 0, 0.15, 0), (0.43, 0, 0, 0.05, 0)) == THEME_NONE
    # 2 points of wins with 10 of gammons: still a gammon error
    assert checker_theme(RACE, played, best, 0.080, (0.40, 0, 0, 0.15, 0), (0.42, 0, 0, 0.05, 0)) == THEME_GAMMON


def test_no_theme_under_60_mpt():
    played = find_play(INITIAL, 6, 6, [(24, 18), (13, 7), (13, 7), (13, 7)]).result
    best = find_play(INITIAL, 6, 6, [(24, 18), (24, 18), (13, 7), (13, 7)]).result
    for e in (0.059, 0.0594, 0.0, None):
        assert checker_theme(INITIAL, played, best, e) == THEME_NONE
    assert checker_theme(INITIAL, played, best, 0.0595) == THEME_BLOTS  # rounds to 60 mpt
    p_probs, b_probs = (0.41, 0.0, 0.0, 0.15, 0.0), (0.40, 0.0, 0.0, 0.05, 0.0)
    for e in (0.059, 0.0594):
        assert checker_theme(RACE, res(RACE, (10, 4), (9, 8)), res(RACE, (10, 8), (9, 8)), e, p_probs, b_probs) == THEME_NONE


def test_theme_same_play_and_play_objects():
    play = find_play(INITIAL, 3, 1, [(8, 5), (6, 5)])
    assert checker_theme(INITIAL, play, play, 0.5) == THEME_NONE
    other = find_play(INITIAL, 3, 1, [(24, 21), (24, 23)])
    assert checker_theme(INITIAL, other, play, 0.150) == checker_theme(INITIAL, other.result, play.result, 0.150)


def test_theme_ignored_without_clear_rule():
    # a real small difference: two quiet plays, same blots, no point, no hit
    b = B({13: 4, 9: 2, 8: 3, 6: 4, 24: 2}, START_OPP)
    assert checker_theme(b, res(b, (13, 10), (10, 9)), res(b, (13, 9), (9, 8)), 0.200) == THEME_NONE


# ---------------------------------------------------------------------------
# Like distance
# ---------------------------------------------------------------------------


def test_like_distance_basics():
    assert like_distance(INITIAL, INITIAL) == 0
    for k, to in ((2, 11), (4, 9), (6, 7)):
        assert like_distance(INITIAL, res(INITIAL, (13, to))) == k
    # both sides add up
    b = res(INITIAL, (13, 9)).swapped()
    b = res(b, (24, 20)).swapped()
    assert like_distance(INITIAL, b) == 4 + 4
    # bar: the opponent's blot hit on its 24-point travels 1 pip to the bar,
    # one on its 23-point 2 pips; the hitter's checker 5 and 6 pips
    before = B({24: 2, 13: 5, 8: 3, 6: 5}, {24: 1, 23: 1, 13: 5, 8: 3, 6: 5})
    hit = res(before, (6, 1))
    assert hit.opponent[24] == 1
    assert side_distance(hit.opponent, before.opponent) == 1
    assert like_distance(before, hit) == 5 + 1
    assert like_distance(before, res(before, (8, 2))) == 6 + 2
    assert side_distance(side({1: 1}), side({25: 1})) == 24
    # off: bearing a checker off the 3-point travels 3 pips
    assert side_distance(side({3: 2, 2: 3}), side({3: 1, 2: 3})) == 3
    assert side_distance(side({25: 1}), side({})) == 25


def test_like_distance_reference_symmetry_triangle(pool):
    rng = random.Random(3)
    boards = rng.sample(pool, 150)
    for a in boards[:60]:
        for b in boards[60:90]:
            d = like_distance(a, b)
            assert d == like_distance(b, a)
            assert d == naive_emd(a.on_roll, b.on_roll) + naive_emd(a.opponent, b.opponent)
            assert (d == 0) == (a == b)
            for c in boards[90:95]:
                assert d <= like_distance(a, c) + like_distance(c, b)


# ---------------------------------------------------------------------------
# Blot bias sign
# ---------------------------------------------------------------------------


def test_blot_sign():
    played = find_play(INITIAL, 6, 6, [(24, 18), (13, 7), (13, 7), (13, 7)]).result
    best = find_play(INITIAL, 6, 6, [(24, 18), (24, 18), (13, 7), (13, 7)]).result
    assert blot_sign(INITIAL, played, best) == 1
    assert blot_sign(INITIAL, best, played) == -1
    assert blot_sign(INITIAL, best, best) == 0
    # blots = single checkers on 1..24 of the mover, however exposed
    race = B({10: 2, 8: 2, 6: 3, 5: 3, 4: 3, 3: 2}, {11: 2, 9: 2, 6: 4, 5: 4, 4: 3})
    assert blot_sign(race, res(race, (10, 7), (8, 7), (8, 2)), res(race, (10, 8), (10, 8))) is None
    # contact is judged before the play: the last contact broken still counts
    last = B({13: 1, 6: 14}, {13: 1, 6: 14})
    assert blot_sign(last, res(last, (13, 7)), res(last, (13, 8))) == 0
    # a Play is accepted too
    assert blot_sign(INITIAL, find_play(INITIAL, 3, 1, [(24, 21), (24, 23)]), find_play(INITIAL, 3, 1, [(8, 5), (6, 5)])) == 1
