"""Mechanical checker themes (SPEC §9): a difference between the board the
played play left and the one the best play would have left that causes most
of the error, verified against the analysis' candidates.

Each theme reads one feature F of the board after a play (and the board
before it).  It is named only when F(played) differs from F(best) (in the
theme's direction, for the directed ones) **and** carries at least half the
error e: the best stored candidate with the played play's value of F (the
played play itself among them) is at least e/2 below the best play,

    eq(best) − max{eq(c) : F(c) = F(played)} ≥ e / 2.

So keeping the played play's choice on F costs at least half the error
whatever else is played: F is the cause of most of it.  The seed's four
themes (:func:`..features.checker_theme`, from 60 mpt) are tried first;
these have no floor of their own (any e > 0, like the cube themes): their
test is checked against the candidates, not guessed, and which errors count
is the error threshold's business (a family's members have e ≥ it).
Several qualifying: the one that recovers the most (the largest
eq(best) − max{…}) names the error, ties in the order of
``MECHANICAL_THEMES``.  Rules, examples and the measured counts:
docs/themes.md, docs/positions.md.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Tuple

from .features import (
    BEAROFF_MAX_OUTSIDE,
    CHECKER_THEMES as SEED_CHECKER_THEMES,
    THEME_NONE,
    checker_theme,
    exposed_blots,
    has_contact,
    side_features,
)
from .position import Board

THEME_HIT = "hit or not"
THEME_MAKE_POINT = "make a point or not"
THEME_GIVE_UP_POINT = "give up a point or not"
THEME_ESCAPE = "escape back checkers or not"
THEME_SPLIT = "split back checkers or not"
THEME_UNSAFE_BEAR_IN = "unsafe bear-in or bear-off"
THEME_MORE_BLOTS = "more blots"
THEME_TOO_SAFE = "too safe"
THEME_BURIED = "buried checkers"
THEME_WASTED_PIPS = "wasted pips"
# The order that breaks a tie of recovered equity: events on the board
# first (a hit, a point made or broken), then the back checkers, then
# safety, then the home board's and the race's economy.
MECHANICAL_THEMES = (
    THEME_HIT,
    THEME_MAKE_POINT,
    THEME_GIVE_UP_POINT,
    THEME_ESCAPE,
    THEME_SPLIT,
    THEME_UNSAFE_BEAR_IN,
    THEME_MORE_BLOTS,
    THEME_TOO_SAFE,
    THEME_BURIED,
    THEME_WASTED_PIPS,
)
# Every checker theme: the seed's four (tried first, in their order), then these.
CHECKER_THEMES = tuple(SEED_CHECKER_THEMES) + MECHANICAL_THEMES

BURIED_POINTS = 2  # buried checkers: those on the mover's 1- and 2-points (gnubg's crashed rule)


# ---------------------------------------------------------------------------
# The features F(board before, board after); the mover is on roll in both
# ---------------------------------------------------------------------------


def checkers_hit(before: Board, after: Board) -> int:
    """The opponent's checkers the play sent to the bar."""
    return after.opponent[24] - before.opponent[24]


def makes_a_point(before: Board, after: Board) -> bool:
    """The play makes a point (2+ checkers after, fewer before) on 1..24."""
    return any(a >= 2 > b for a, b in zip(after.on_roll[:24], before.on_roll[:24]))


def gives_up_a_point(before: Board, after: Board) -> bool:
    """The play leaves a point it held (2+ checkers before, fewer after)."""
    return any(b >= 2 > a for a, b in zip(after.on_roll[:24], before.on_roll[:24]))


def back_checkers(before: Board, after: Board) -> int:
    """The mover's checkers in the opponent's home board (19..24) or on the bar."""
    return sum(after.on_roll[18:])


def back_points(before: Board, after: Board) -> int:
    """The points (19..24, the bar one more) the back checkers stand on."""
    return sum(1 for n in after.on_roll[18:] if n)


def exposed(before: Board, after: Board) -> int:
    """Exposed blots (an opposing checker behind them), as the seed's rule counts them."""
    return exposed_blots(after)[0]


def buried_checkers(before: Board, after: Board) -> int:
    """Checkers on the mover's 1- and 2-points: out of play with contact."""
    return sum(after.on_roll[:BURIED_POINTS])


def race_progress(before: Board, after: Board) -> Tuple[int, int]:
    """(checkers still outside the home board, checkers off)."""
    s = side_features(after.on_roll)
    return s.outside, s.off


# ---------------------------------------------------------------------------
# Where each theme applies (the board before) and its direction
# ---------------------------------------------------------------------------


def bearing_in_against_contact(before: Board) -> bool:
    """The mover bears in or off against contact (the plan's rule: at most
    ``BEAROFF_MAX_OUTSIDE`` checkers outside, none back)."""
    me = side_features(before.on_roll)
    return has_contact(before) and me.outside <= BEAROFF_MAX_OUTSIDE and not me.back


def _anywhere(before: Board) -> bool:
    return True


def _not_bearing_in(before: Board) -> bool:
    return not bearing_in_against_contact(before)


def _contact(before: Board) -> bool:
    return has_contact(before)


def _race(before: Board) -> bool:
    return not has_contact(before)


def _any_difference(played, best) -> bool:
    return True


def _played_more(played, best) -> bool:
    return played > best


def _played_fewer(played, best) -> bool:
    return played < best


def _less_progress(played, best) -> bool:
    """Fewer or as many checkers off and more or as many still outside."""
    return played[1] <= best[1] and played[0] >= best[0]


class Rule:
    """One mechanical theme: its feature, where it applies, its direction."""

    __slots__ = ("theme", "feature", "applies", "direction")

    def __init__(self, theme: str, feature, applies, direction):
        self.theme, self.feature, self.applies, self.direction = theme, feature, applies, direction


RULES = (
    Rule(THEME_HIT, checkers_hit, _anywhere, _any_difference),
    Rule(THEME_MAKE_POINT, makes_a_point, _anywhere, _any_difference),
    Rule(THEME_GIVE_UP_POINT, gives_up_a_point, _anywhere, _any_difference),
    Rule(THEME_ESCAPE, back_checkers, _anywhere, _any_difference),
    Rule(THEME_SPLIT, back_points, _anywhere, _any_difference),
    Rule(THEME_UNSAFE_BEAR_IN, exposed, bearing_in_against_contact, _played_more),
    Rule(THEME_MORE_BLOTS, exposed, _not_bearing_in, _played_more),
    Rule(THEME_TOO_SAFE, exposed, _anywhere, _played_fewer),
    Rule(THEME_BURIED, buried_checkers, _contact, _played_more),
    Rule(THEME_WASTED_PIPS, race_progress, _race, _less_progress),
)
assert tuple(r.theme for r in RULES) == MECHANICAL_THEMES


# ---------------------------------------------------------------------------
# The test against the candidates
# ---------------------------------------------------------------------------


def _micro(equity) -> Optional[int]:
    return None if equity is None else int(round(equity * 1_000_000))


def mechanical_themes(
    board: Board,
    equities: Sequence[Optional[float]],
    result_at: Callable[[int], Optional[Board]],
    played_index: int,
) -> Tuple[Tuple[str, int], ...]:
    """Every mechanical theme that qualifies, as (theme, equity recovered in
    micro-EMG: eq(best) − max{eq(c) : F(c) = F(played)}), the one naming the
    error first.

    ``board``: before the play, mover on roll; ``equities``: the candidates'
    (cubeful EMG, the best first); ``result_at(k)``: the board candidate k
    leaves (mover still on roll), None when unknown.  A candidate whose
    board is unknown is taken to share the played play's F (the test then
    errs towards no theme).  Only candidates better than the played play are
    read: a worse one cannot be the best with the played play's F."""
    eqs = [_micro(x) for x in equities]
    best_eq, played_eq = eqs[0], eqs[played_index]
    if played_index == 0 or best_eq is None or played_eq is None or best_eq - played_eq <= 0:
        return ()
    error = best_eq - played_eq
    played, best = result_at(played_index), result_at(0)
    if played is None or best is None or played == best:
        return ()
    boards: dict = {}
    found = []
    for order, rule in enumerate(RULES):
        if not rule.applies(board):
            continue
        f_played, f_best = rule.feature(board, played), rule.feature(board, best)
        if f_played == f_best or not rule.direction(f_played, f_best):
            continue
        kept = played_eq  # the best equity among the candidates with F = F(played)
        for k, eq in enumerate(eqs):
            if eq is None or eq <= kept or k == played_index:
                continue
            if k not in boards:
                boards[k] = result_at(k)
            if boards[k] is None or rule.feature(board, boards[k]) == f_played:
                kept = eq
        recovered = best_eq - kept
        if 2 * recovered >= error:
            found.append((-recovered, order, rule.theme))
    return tuple((theme, -minus) for minus, _, theme in sorted(found))


def mechanical_theme(board, equities, result_at, played_index) -> Optional[str]:
    """The mechanical theme naming the error (:func:`mechanical_themes`), None."""
    found = mechanical_themes(board, equities, result_at, played_index)
    return found[0][0] if found else None


def decision_checker_theme(
    board: Board,
    equities: Sequence[Optional[float]],
    result_at: Callable[[int], Optional[Board]],
    played_index: int,
    error: Optional[float],
    played_probs: Optional[Sequence[float]] = None,
    best_probs: Optional[Sequence[float]] = None,
) -> str:
    """The theme of a checker error: the seed's four first (their rules and
    60 mpt floor, :func:`..features.checker_theme`), else the mechanical
    theme, else ``THEME_NONE``."""
    if error is None or error <= 0 or played_index is None:
        return THEME_NONE
    played, best = result_at(played_index), result_at(0)
    if played is None or best is None:
        return THEME_NONE
    theme = checker_theme(board, played, best, error, played_probs=played_probs, best_probs=best_probs)
    if theme != THEME_NONE:
        return theme
    return mechanical_theme(board, equities, result_at, played_index) or THEME_NONE


__all__ = [
    "MECHANICAL_THEMES",
    "CHECKER_THEMES",
    "RULES",
    "mechanical_themes",
    "mechanical_theme",
    "decision_checker_theme",
]
