"""The mechanical checker themes (gnubg_blunder/board/themes.py, rules in
docs/themes.md and docs/positions.md): each theme's feature F on hand-made
positions and plays, its edges (F equal, F differing but recovering less
than half the error, exactly half), the order when several qualify, and that
the seed's four themes still name an error first.

Equities are set by hand (EMG, the best first): what is tested is the rule
that reads them, not gnubg's numbers."""

from __future__ import annotations

import pytest

from conftest import side
from gnubg_blunder.board import themes as T
from gnubg_blunder.board.features import THEME_BLOTS, THEME_NONE, THEME_PASSIVE, THEME_POINT
from gnubg_blunder.board.moves import apply_steps, find_play
from gnubg_blunder.board.position import Board
from gnubg_blunder.labels import CHECKER_THEMES, THEMES, decision_labels
from gnubg_blunder.codec import candidates as candidate_lists


def B(me: dict, opp: dict) -> Board:
    """Board from {point: checkers} of each side in its own numbering (25 = bar)."""
    return Board(side(me), side(opp))


START_OPP = {24: 2, 13: 5, 8: 3, 6: 5}  # the opponent on its starting points (my 1, 12, 17, 19)
MIDDLE = B({13: 4, 9: 2, 8: 3, 6: 4, 24: 2}, START_OPP)


def play(board: Board, d1: int, d2: int, *steps) -> Board:
    found = find_play(board, d1, d2, list(steps))
    assert found is not None, steps
    return found.result


class Example:
    """A position, its roll, the played and the best play's boards, and
    the one theme whose feature tells them apart."""

    def __init__(self, theme, board, dice, played, best, position_id):
        self.theme, self.board, self.dice, self.position_id = theme, board, dice, position_id
        self.played = play(board, *dice, *played)
        self.best = play(board, *dice, *best)


# One example a theme (docs/themes.md lists the same IDs and plays).
EXAMPLES = [
    # 13/5 / 13/10*/5: the same checkers moved, only the hit differs
    Example(T.THEME_HIT, B({13: 4, 8: 3, 6: 4, 5: 2, 24: 2}, {24: 2, 15: 1, 13: 4, 8: 3, 6: 5}), (5, 3),
            [(13, 8), (8, 5)], [(13, 10), (10, 5)], "4HPwBDCw5+ABMA"),
    # 13/9 / 8/5 6/5
    Example(T.THEME_MAKE_POINT, MIDDLE, (3, 1), [(13, 10), (10, 9)], [(8, 5), (6, 5)], "4HPwATDgueEBMA"),
    # 9/8 9/6 / 13/9
    Example(T.THEME_GIVE_UP_POINT, MIDDLE, (3, 1), [(9, 6), (9, 8)], [(13, 10), (10, 9)], "4HPwATDgueEBMA"),
    # 13/5 / 24/16: one of three back checkers runs to my 16-point
    Example(T.THEME_ESCAPE, B({24: 3, 16: 2, 13: 3, 8: 2, 6: 3, 5: 2}, START_OPP), (6, 2),
            [(13, 7), (7, 5)], [(24, 18), (18, 16)], "4HPwATCwMzgGOA"),
    # 6/5 6/4 / 24/21: one of three back checkers moves up alone (a blot each way, on my 4 or his 4)
    Example(T.THEME_SPLIT, B({24: 3, 13: 4, 8: 2, 6: 4, 5: 2}, START_OPP), (2, 1),
            [(6, 5), (6, 4)], [(24, 22), (22, 21)], "4HPwATCwZ/AAOA"),
    # 6/5 6/3 / 7/3: bearing in against his anchor on my 1-point, the 7-point blot stays
    Example(T.THEME_UNSAFE_BEAR_IN, B({7: 1, 6: 5, 5: 3, 4: 3, 3: 3}, {24: 2, 6: 5, 5: 4, 4: 4}), (3, 1),
            [(6, 3), (6, 5)], [(7, 4), (4, 3)], "eO8DADDc3RcAAA"),
    # 13/10 8/6 / 13/8: one more blot, 9 pips from his nearest checker (the seed's rule needs 2 or a direct one)
    Example(T.THEME_MORE_BLOTS, MIDDLE, (3, 2), [(13, 10), (8, 6)], [(13, 10), (10, 8)], "4HPwATDgueEBMA"),
    # the same two plays the other way round
    Example(T.THEME_TOO_SAFE, MIDDLE, (3, 2), [(13, 10), (10, 8)], [(13, 10), (8, 6)], "4HPwATDgueEBMA"),
    # 6/2 / 13/9: a third checker on my 2-point
    Example(T.THEME_BURIED, B({13: 4, 9: 2, 8: 2, 6: 3, 2: 2, 24: 2}, START_OPP), (3, 1),
            [(6, 3), (3, 2)], [(13, 10), (10, 9)], "4HPwATCGs+EBMA"),
    # a race: 6/4 3/2 / 8/5, the 8-point checker stays out
    Example(T.THEME_WASTED_PIPS, B({8: 1, 6: 3, 5: 3, 4: 3, 3: 3, 2: 2}, {6: 5, 5: 5, 4: 5}), (2, 1),
            [(6, 4), (3, 2)], [(8, 6), (6, 5)], "+L4PAAB2dycAAA"),
]


BY_THEME = {ex.theme: ex for ex in EXAMPLES}


def themes_of(board, candidates, played_index=1):
    """mechanical_themes of [(board left, equity), ...], the best first."""
    return T.mechanical_themes(board, [eq for _, eq in candidates], lambda k: candidates[k][0], played_index)


def test_the_example_ids_are_the_boards():
    for ex in EXAMPLES:
        assert ex.board.position_id() == ex.position_id
        assert Board.from_position_id(ex.position_id) == ex.board


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.theme)
def test_each_example_is_its_theme_alone(ex):
    # the played play is the only candidate with its F: it recovers all of e (0.040 EMG = 40 000 µ)
    assert themes_of(ex.board, [(ex.best, 0.100), (ex.played, 0.060)]) == ((ex.theme, 40_000),)
    assert T.mechanical_theme(ex.board, [0.100, 0.060], [ex.best, ex.played].__getitem__, 1) == ex.theme


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.theme)
def test_each_theme_needs_half_the_error(ex):
    # a third candidate keeps the played play's F: it is the best with it
    same_f = ex.played  # the played board again under another index: F equal to the played play's
    at_half = [(ex.best, 0.100), (ex.played, 0.060), (same_f, 0.080)]
    assert themes_of(ex.board, at_half) == ((ex.theme, 20_000),)  # recovers exactly e/2: named
    above_half = [(ex.best, 0.100), (ex.played, 0.060), (same_f, 0.080001)]
    assert themes_of(ex.board, above_half) == ()  # 1 µEMG less than half: no theme
    worse = [(ex.best, 0.100), (ex.played, 0.060), (same_f, 0.050)]
    assert themes_of(ex.board, worse) == ((ex.theme, 40_000),)  # a worse one never matters


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.theme)
def test_no_theme_when_the_feature_is_equal(ex):
    # best and played leave boards with the same F: the best play against itself
    other = [(ex.best, 0.100), (ex.best, 0.060)]
    assert themes_of(ex.board, other) == ()


def test_another_point_made_is_no_theme():
    # 1-1 from the start: 6/5(4) makes the 5-point, 8/7(2) 6/5(2) the 5- and the bar point; every
    # feature is equal (a point made by both, one blot each, nothing given up): which point is no theme
    start = Board.initial()
    played = play(start, 1, 1, (6, 5), (6, 5), (6, 5), (6, 5))
    best = play(start, 1, 1, (8, 7), (8, 7), (6, 5), (6, 5))
    assert T.makes_a_point(start, played) and T.makes_a_point(start, best)
    assert themes_of(start, [(best, 0.100), (played, 0.050)]) == ()
    assert T.decision_checker_theme(start, [0.1, 0.05], [best, played].__getitem__, 1, 0.050) == THEME_NONE


def test_directions():
    ex = BY_THEME
    more, buried, wasted = ex[T.THEME_MORE_BLOTS], ex[T.THEME_BURIED], ex[T.THEME_WASTED_PIPS]
    # fewer blots than the best is "too safe", never "more blots"
    assert themes_of(MIDDLE, [(more.played, 0.100), (more.best, 0.060)]) == ((T.THEME_TOO_SAFE, 40_000),)
    # fewer checkers buried than the best: no theme
    assert themes_of(buried.board, [(buried.played, 0.100), (buried.best, 0.060)]) == ()
    # in a race, more progress than the best (8/5 played, 6/4 3/2 best) is no waste
    assert themes_of(wasted.board, [(wasted.played, 0.100), (wasted.best, 0.060)]) == ()


def test_wasted_pips_counts_checkers_off():
    board = B({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}, {6: 5, 5: 5, 4: 5})  # all home, no contact
    best = play(board, 6, 1, (6, 0), (1, 0))  # two off
    played = play(board, 6, 1, (6, 0), (6, 5))  # one off, one moved inside
    assert T.race_progress(board, best) == (0, 2) and T.race_progress(board, played) == (0, 1)
    assert themes_of(board, [(best, 0.100), (played, 0.060)]) == ((T.THEME_WASTED_PIPS, 40_000),)


def test_where_each_theme_applies():
    ex = BY_THEME
    # the bear-in's extra blot is "unsafe bear-in or bear-off", never "more blots"
    bear = ex[T.THEME_UNSAFE_BEAR_IN]
    assert T.bearing_in_against_contact(bear.board) and not T.bearing_in_against_contact(MIDDLE)
    assert [t for t, _ in themes_of(bear.board, [(bear.best, 0.1), (bear.played, 0.06)])] == [T.THEME_UNSAFE_BEAR_IN]
    # buried checkers only with contact: in a race the deep checker is the race's business
    race = B({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}, {6: 5, 5: 5, 4: 5})
    deep = play(race, 2, 1, (5, 3), (3, 2))  # a third checker on my 2-point
    level = play(race, 2, 1, (5, 3), (4, 3))
    assert T.buried_checkers(race, deep) > T.buried_checkers(race, level)
    assert themes_of(race, [(level, 0.100), (deep, 0.060)]) == ()
    # wasted pips only in a race: the buried example has contact, its race progress is not read
    buried = ex[T.THEME_BURIED]
    assert [t for t, _ in themes_of(buried.board, [(buried.best, 0.1), (buried.played, 0.06)])] == [T.THEME_BURIED]


BACK3 = B({24: 3, 13: 4, 8: 2, 6: 4, 5: 2}, START_OPP)  # 4HPwATCwZ/AAOA, 2-1 to play (the split example's)


def test_the_largest_recovery_names_the_error():
    best = play(BACK3, 2, 1, (24, 23), (13, 11))  # splits (24, 23), blots on 23 and 11
    played = play(BACK3, 2, 1, (13, 11), (11, 10))  # 13/10: no split, one blot
    split_one_blot = play(BACK3, 2, 1, (24, 22), (6, 5))  # splits, one blot: the played play's blots
    two_blots = play(BACK3, 2, 1, (5, 4), (5, 3))  # no split, two blots: the played play's split
    assert [T.back_points(BACK3, b) for b in (best, played, split_one_blot, two_blots)] == [2, 1, 2, 1]
    assert [T.exposed(BACK3, b) for b in (best, played, split_one_blot, two_blots)] == [2, 1, 1, 2]
    # e = 0.100; keeping no split costs at least 0.070, keeping one blot at least 0.060: both qualify,
    # the split recovers more and names the error
    cands = [(best, 0.100), (played, 0.000), (split_one_blot, 0.040), (two_blots, 0.030)]
    assert themes_of(BACK3, cands) == ((T.THEME_SPLIT, 70_000), (T.THEME_TOO_SAFE, 60_000))
    # the other way round: "too safe" first although the split comes first in the themes' order
    cands = [(best, 0.100), (played, 0.000), (split_one_blot, 0.030), (two_blots, 0.040)]
    assert themes_of(BACK3, cands) == ((T.THEME_TOO_SAFE, 70_000), (T.THEME_SPLIT, 60_000))
    # equal recoveries: the themes' order
    cands = [(best, 0.100), (played, 0.000), (split_one_blot, 0.040), (two_blots, 0.040)]
    assert themes_of(BACK3, cands) == ((T.THEME_SPLIT, 60_000), (T.THEME_TOO_SAFE, 60_000))
    # a play that splits with one blot at 0.095: the blots carry only 0.005, the split alone names it
    cands = [(best, 0.100), (played, 0.000), (split_one_blot, 0.095), (two_blots, 0.030)]
    assert themes_of(BACK3, cands) == ((T.THEME_SPLIT, 70_000),)


def test_ties_go_by_the_themes_order():
    # 9/8 9/6 gives up the 9-point, 8/5 6/5 makes the 5-point: the two plays alone,
    # both features recover all of e: "make a point or not" comes before "give up a point or not"
    gives_up = play(MIDDLE, 3, 1, (9, 6), (9, 8))
    makes = play(MIDDLE, 3, 1, (8, 5), (6, 5))
    got = themes_of(MIDDLE, [(makes, 0.100), (gives_up, 0.060)])
    assert got == ((T.THEME_MAKE_POINT, 40_000), (T.THEME_GIVE_UP_POINT, 40_000))
    # a third play that keeps the 9-point without making one: the give-up alone then recovers all
    quiet = play(MIDDLE, 3, 1, (13, 10), (10, 9))
    got = themes_of(MIDDLE, [(makes, 0.100), (gives_up, 0.060), (quiet, 0.090)])
    assert got == ((T.THEME_GIVE_UP_POINT, 40_000),)  # "make a point" recovers 0.010 only


def test_an_unknown_board_counts_as_the_played_feature():
    ex = BY_THEME[T.THEME_HIT]
    boards = [ex.best, ex.played, None]
    assert T.mechanical_themes(ex.board, [0.100, 0.060, 0.085], boards.__getitem__, 1) == ()
    assert T.mechanical_themes(ex.board, [0.100, 0.060, 0.075], boards.__getitem__, 1) == ((ex.theme, 25_000),)
    # an unknown equity is no candidate
    assert T.mechanical_themes(ex.board, [0.100, 0.060, None], boards.__getitem__, 1) == ((ex.theme, 40_000),)


def test_no_error_no_theme_and_no_floor():
    ex = BY_THEME[T.THEME_MAKE_POINT]
    same = [ex.best, ex.played].__getitem__
    assert T.mechanical_themes(ex.board, [0.1, 0.1], same, 1) == ()  # e = 0
    assert T.mechanical_themes(ex.board, [0.1, 0.2], same, 1) == ()  # the played is better
    assert T.mechanical_themes(ex.board, [0.1, 0.06], same, 0) == ()  # the best was played
    assert T.mechanical_themes(ex.board, [None, 0.06], same, 1) == ()
    # the smallest error, 1 µEMG: a mechanical theme has no floor of its own
    assert T.mechanical_themes(ex.board, [0.100001, 0.1], same, 1) == ((ex.theme, 1),)


def test_the_seed_four_come_first():
    point = BY_THEME[T.THEME_MAKE_POINT]  # 13/9 / 8/5 6/5: the seed's "point not made" (the 5-point) from 60 mpt
    boards = [point.best, point.played].__getitem__
    assert T.decision_checker_theme(point.board, [0.100, 0.040], boards, 1, 0.060) == THEME_POINT
    assert T.decision_checker_theme(point.board, [0.100, 0.0405], boards, 1, 0.0595) == THEME_POINT  # 60 mpt rounded
    assert T.decision_checker_theme(point.board, [0.100, 0.041], boards, 1, 0.059) == T.THEME_MAKE_POINT
    # a seed rule that fires wins over the mechanical themes: 9/4 leaves a direct shot, 13/9 makes my 9-point
    b = B({13: 4, 9: 1, 8: 3, 6: 5, 24: 2}, START_OPP)  # tests/test_board_features.py's direct shot
    shot, safe = apply_steps(b, [(9, 4)]), apply_steps(b, [(13, 9)])
    assert T.mechanical_themes(b, [0.1, 0.02], [safe, shot].__getitem__, 1) == (
        (T.THEME_MAKE_POINT, 80_000), (T.THEME_MORE_BLOTS, 80_000))
    assert T.decision_checker_theme(b, [0.1, 0.02], [safe, shot].__getitem__, 1, 0.080) == THEME_BLOTS
    # the hit example: the seed's "too passive" from 60 mpt, "hit or not" under it
    hit = BY_THEME[T.THEME_HIT]
    boards = [hit.best, hit.played].__getitem__
    assert T.decision_checker_theme(hit.board, [0.1, 0.0], boards, 1, 0.100) == THEME_PASSIVE
    assert T.decision_checker_theme(hit.board, [0.1, 0.05], boards, 1, 0.050) == T.THEME_HIT
    # where the seed is silent from 60 mpt, the mechanical theme names it: one indirect blot more
    more = BY_THEME[T.THEME_MORE_BLOTS]
    boards = [more.best, more.played].__getitem__
    assert T.decision_checker_theme(more.board, [0.1, -0.1], boards, 1, 0.200) == T.THEME_MORE_BLOTS
    # nothing differs: "theme not determined"
    assert T.decision_checker_theme(more.board, [0.1, -0.1], [more.best, more.best].__getitem__, 1, 0.2) == THEME_NONE


def test_decision_labels_reads_the_stored_candidates():
    ex = BY_THEME[T.THEME_ESCAPE]  # escape: 13/5 played, 24/16 best; nothing else differs between them
    keeps_three_back = play(ex.board, 6, 2, (8, 2), (6, 4))
    assert T.back_checkers(ex.board, keeps_three_back) == T.back_checkers(ex.board, ex.played) == 3
    cands = [
        {"move": "24/16", "equity": 0.100, "position_id": ex.best.position_id(), "probs": None},
        {"move": "8/2 6/4", "equity": 0.090, "position_id": keeps_three_back.position_id(), "probs": None},
        {"move": "13/5", "equity": 0.050, "position_id": ex.played.position_id(), "probs": None},
    ]
    # 8/2 6/4 keeps the three back checkers 0.010 below the best: escaping recovers 0.010 of 0.050
    assert decision_labels("checker", ex.position_id, 0.050, cands, 2)[2] == THEME_NONE
    cands[1]["equity"] = 0.075  # now exactly half of 0.050
    assert decision_labels("checker", ex.position_id, 0.050, cands, 2)[2] == T.THEME_ESCAPE
    # the store's list (format 1, boards as IDs) read back gives the same label
    stored = candidate_lists.decode(candidate_lists.encode_dicts(cands), ex.position_id, (6, 2), notation=False)
    assert decision_labels("checker", ex.position_id, 0.050, stored, 2)[2] == T.THEME_ESCAPE
    # no error, no theme
    assert decision_labels("checker", ex.position_id, 0.0, cands, 2)[2] is None


def test_every_theme_is_a_label_and_a_family():
    from gnubg_blunder.metrics.plan import FAMILY_NAMES, parse_family

    assert CHECKER_THEMES[:4] == (THEME_BLOTS, THEME_POINT, THEME_PASSIVE, "gammon underestimated")
    assert CHECKER_THEMES[4:] == T.MECHANICAL_THEMES and len(T.MECHANICAL_THEMES) == 10
    assert [ex.theme for ex in EXAMPLES] == list(T.MECHANICAL_THEMES)  # one example a theme
    for theme in T.MECHANICAL_THEMES:
        assert theme in THEMES and "/" not in theme
        name = f"holding game/checker/{theme}"
        assert name in FAMILY_NAMES and parse_family(name.upper()) == ("holding game", "checker", theme)
