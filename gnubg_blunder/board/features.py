"""Position features, phase, game plan, checker-play themes, like distance.

Pure functions of a :class:`~gnubg_blunder.board.position.Board` (the player
on roll first).  Every rule and threshold is written down in
``docs/positions.md``; the constants below carry the same names.

Coordinates: a side is a 25-tuple counted from that side's own home (index
0..23 = its points 1..24, index 24 = its bar).  "Point p" in this module is
always 1-based from the side it belongs to.  An opponent's checker on *its*
point q stands on the mover's point 25 - q; an opponent's checker on the bar
enters on the mover's points 1..6 (it stands "before" the mover's point 1).

Speed: the per-side statistics are a handful of C-level byte operations
(``bytes.translate``, ``count``, ``rstrip``), cached per side tuple, and the
result is a ``NamedTuple`` (cheap to build, immutable).  See docs/positions.md
for the measured figures.
"""

from __future__ import annotations

from itertools import accumulate
from operator import mul, sub
from typing import NamedTuple, Optional, Sequence, Tuple

from .position import Board

# ---------------------------------------------------------------------------
# Closed label lists
# ---------------------------------------------------------------------------

PHASE_OPENING = "opening"
PHASE_MIDDLE = "middle game"
PHASE_RACE = "race"
PHASE_BEAROFF = "bear-off"
PHASES = (PHASE_OPENING, PHASE_MIDDLE, PHASE_RACE, PHASE_BEAROFF)

PLAN_RACE = "race"
PLAN_BEAROFF = "bear-off"
PLAN_BEAROFF_CONTACT = "bear-off against contact"
PLAN_ACE_POINT = "ace-point game"
PLAN_OPENING = "opening"
PLAN_BLITZ = "blitz"
PLAN_BLITZ_DEFENCE = "blitz defence"
PLAN_BACK_GAME = "back game"
PLAN_AGAINST_BACK_GAME = "playing against a back game"
PLAN_PRIME_VS_PRIME = "prime vs prime"
PLAN_PRIMING = "priming game"
PLAN_PRIME_DEFENCE = "prime defence"
PLAN_MUTUAL_HOLDING = "mutual holding"
PLAN_HOLDING = "holding game"
PLAN_AGAINST_ANCHOR = "playing against an anchor"
PLAN_CONTAINMENT = "containment"
PLAN_CONTAINMENT_DEFENCE = "containment defence"
# What is left when no structure rule fires (Robertie's "middle game": not
# settled into a type); kept small on purpose (docs/positions.md).
PLAN_RESIDUAL = "loose middle game"
# In precedence order of each plan's first rule (the first rule that matches
# names the plan; the ace-point game has a second, later rule).
GAME_PLANS = (
    PLAN_RACE,
    PLAN_BEAROFF,
    PLAN_BEAROFF_CONTACT,
    PLAN_ACE_POINT,
    PLAN_OPENING,
    PLAN_BLITZ,
    PLAN_BLITZ_DEFENCE,
    PLAN_BACK_GAME,
    PLAN_AGAINST_BACK_GAME,
    PLAN_PRIME_VS_PRIME,
    PLAN_PRIMING,
    PLAN_PRIME_DEFENCE,
    PLAN_MUTUAL_HOLDING,
    PLAN_HOLDING,
    PLAN_AGAINST_ANCHOR,
    PLAN_CONTAINMENT,
    PLAN_CONTAINMENT_DEFENCE,
    PLAN_RESIDUAL,
)

THEME_GAMMON = "gammon underestimated"
THEME_BLOTS = "too many blots"
THEME_POINT = "point not made"
THEME_PASSIVE = "too passive"
THEME_NONE = "theme not determined"
# In precedence order (the first that fires names the error).
CHECKER_THEMES = (THEME_BLOTS, THEME_POINT, THEME_PASSIVE, THEME_GAMMON)

# ---------------------------------------------------------------------------
# Thresholds (docs/positions.md explains each)
# ---------------------------------------------------------------------------

CHECKERS = 15

# Phase: opening
OPENING_MAX_DISTANCE = 24  # each side within 24 pips (like distance) of its start
OPENING_MAX_MOVE = 6  # or, when the move number is given: plays 1..6 of the game

# Game plans
BEAROFF_MAX_OUTSIDE = 2  # bearing in/off: at most 2 checkers outside the home board, none back
ACE_POINT_MIN_BACK = 2  # against a bear-in/off: at least 2 checkers back (bar included)
ACE_POINT_MIN_DEFICIT = 20  # in the middle game: an anchor on his 1- or 2-point only, 20+ pips behind
PRIME_MIN = 4  # a "prime": at least 4 consecutive made points
BLITZ_MIN_BACK = 2  # the defender: >= 2 checkers back (bar included), >= 1 of them on the bar
BLITZ_MIN_HOME_POINTS = 3  # the attacker's home-board points ...
BLITZ_MIN_HOME_POINTS_TWO_ON_BAR = 2  # ... or 2 points with >= 2 checkers on the bar
BACK_GAME_MIN_ANCHORS = 2  # anchors in the opponent's home board
BACK_GAME_MIN_DEFICIT = 50  # pips behind in the race
HOLDING_POINTS = (18, 19, 20, 21, 22)  # opponent's bar, 6, 5, 4, 3 points (mover's numbering)
HOLDING_MAX_LEAD = 15  # a holding game: not more than 15 pips ahead in the race

# Checker themes
THEME_MIN_MPT = 60  # a theme is named only from 60 mpt (0.060 EMG), rounded to the millipoint
BLOTS_MIN_EXTRA = 2  # too many blots: >= 2 more exposed blots than the best play
DIRECT_RANGE = 6  # a blot is "in direct range" of an opposing checker 1..6 pips behind it
KEY_POINTS = (1, 2, 3, 4, 5, 6, 7)  # point not made: home-board points and the bar point
ADVANCED_ANCHORS = HOLDING_POINTS  # too passive: a new anchor on the opponent's 3..7 point
GAMMON_MIN_SWING = 0.05  # gammon underestimated: >= 5 points of net gammons ...
GAMMON_WIN_RATIO = 4.0  # ... and the win-chance difference at most a quarter of it

# ---------------------------------------------------------------------------
# Per-side statistics
# ---------------------------------------------------------------------------


class SideFeatures(NamedTuple):
    """Statistics of one side, in that side's own numbering (points 1..24,
    25 = bar).  ``0`` stands for "none" in the point fields."""

    pips: int  # pip count, a checker on the bar counts 25
    off: int  # checkers borne off
    bar: int  # checkers on the bar
    blots: int  # points 1..24 holding exactly one checker (bar excluded)
    points: int  # made points (2+ checkers) on 1..24
    home_points: int  # made points on 1..6
    outfield_points: int  # made points on 7..18 (both outer boards)
    anchors: int  # made points on 19..24 (the opponent's home board)
    advanced_anchor: int  # the most advanced made point among 18..22, else 0
    back: int  # checkers on 19..24 or on the bar
    outside: int  # checkers not in the home board (7..24 and the bar)
    rear: int  # the highest point holding a checker (25 = bar), 0 when all off
    prime: int  # length of the longest run of consecutive made points (0 if none)
    prime_low: int  # its lowest point (ties, only below 4 points: the run nearest home), else 0
    prime_high: int  # its highest point, else 0


class PositionFeatures(NamedTuple):
    """Everything :func:`features` computes for one board.

    ``me`` is the player on roll, ``opp`` the opponent (each in its own
    numbering).  ``me_trapped`` / ``opp_trapped``: that side's checkers
    behind the other side's prime when the prime is at least
    ``PRIME_MIN`` points long (else 0)."""

    me: SideFeatures
    opp: SideFeatures
    contact: bool
    me_trapped: int
    opp_trapped: int
    phase: str
    game_plan: str

    @property
    def race_lead(self) -> int:
        """Pips the player on roll is ahead (negative: behind)."""
        return self.opp.pips - self.me.pips


_MADE = bytes(1 if n >= 2 else 0 for n in range(256))
_ONES = tuple(b"\x01" * n for n in range(26))
_PIP_WEIGHTS = tuple(range(1, 26))

# made mask (24 bytes 0/1) -> (points, home, outfield, anchors, advanced anchor,
#                             prime, prime_low, prime_high)
_MADE_CACHE: dict = {}
_SIDE_CACHE: dict = {}
CACHE_LIMIT = 1 << 15  # entries per cache; a full cache is emptied


def _made_stats(made: bytes) -> tuple:
    points = made.count(1)
    if not points:
        return (0, 0, 0, 0, 0, 0, 0, 0)
    longest = max(map(len, made.split(b"\x00")))
    start = made.find(_ONES[longest])
    adv = made.find(1, 17, 22)  # points 18..22 -> indices 17..21
    return (
        points,
        made.count(1, 0, 6),
        made.count(1, 6, 18),
        made.count(1, 18, 24),
        adv + 1 if adv >= 0 else 0,
        longest,
        start + 1,
        start + longest,
    )


def side_features(side: Sequence[int]) -> SideFeatures:
    """Statistics of one 25-tuple side (see :class:`SideFeatures`)."""
    cacheable = type(side) is tuple
    if cacheable:
        cached = _SIDE_CACHE.get(side)
        if cached is not None:
            return cached
    raw = bytes(side)
    board = raw[:24]
    made = board.translate(_MADE)
    ms = _MADE_CACHE.get(made)
    if ms is None:
        if len(_MADE_CACHE) >= CACHE_LIMIT:
            _MADE_CACHE.clear()
        ms = _MADE_CACHE[made] = _made_stats(made)
    on_board = sum(raw)
    home = sum(raw[:6])
    back = sum(raw[18:])
    f = SideFeatures(
        sum(map(mul, side, _PIP_WEIGHTS)),
        CHECKERS - on_board,
        raw[24],
        board.count(1),
        ms[0],
        ms[1],
        ms[2],
        ms[3],
        ms[4],
        back,
        on_board - home,
        len(raw.rstrip(b"\x00")),
        ms[5],
        ms[6],
        ms[7],
    )
    if cacheable:
        if len(_SIDE_CACHE) >= CACHE_LIMIT:
            _SIDE_CACHE.clear()
        _SIDE_CACHE[side] = f
    return f


def clear_caches() -> None:
    """Forget the per-side caches (tests, memory)."""
    _MADE_CACHE.clear()
    _SIDE_CACHE.clear()


def _behind(side: Sequence[int], prime_low: int) -> int:
    """Checkers of ``side`` that still have to pass the other side's prime
    whose lowest point (other side's numbering) is ``prime_low``: they stand
    on ``side``'s points above 25 - prime_low, or on the bar."""
    return sum(side[25 - prime_low:])


def has_contact(board: Board) -> bool:
    """Some checker of one side still has to pass a checker of the other."""
    me, opp = board.on_roll, board.opponent
    return _rear(me) + _rear(opp) > 25


def _rear(side: Sequence[int]) -> int:
    return len(bytes(side).rstrip(b"\x00"))


# ---------------------------------------------------------------------------
# Phase and game plan
# ---------------------------------------------------------------------------

_INITIAL = Board.initial().on_roll
_INITIAL_PIPS = 167


def _in_opening(board: Board, me: SideFeatures, opp: SideFeatures, move_number: Optional[int]) -> bool:
    """A contact position still in the opening window: nothing borne off and
    each side within ``OPENING_MAX_DISTANCE`` pips (like distance) of its
    start, or play ``OPENING_MAX_MOVE`` or earlier when the play's number is
    given.  The one test behind the opening phase and the opening plan."""
    if me.off or opp.off:
        return False
    if move_number is not None:
        return move_number <= OPENING_MAX_MOVE
    # The like distance is at least the pip difference: a cheap filter first.
    return (
        abs(me.pips - _INITIAL_PIPS) <= OPENING_MAX_DISTANCE
        and abs(opp.pips - _INITIAL_PIPS) <= OPENING_MAX_DISTANCE
        and side_distance(board.on_roll, _INITIAL) <= OPENING_MAX_DISTANCE
        and side_distance(board.opponent, _INITIAL) <= OPENING_MAX_DISTANCE
    )


def _phase(me: SideFeatures, contact: bool, plan: str) -> str:
    """The mover's stage, one reading with the plan: bear-off = all his
    checkers home (contact or not), race = the race plan, opening = the
    opening plan, every other contact position the middle game."""
    if not me.outside:
        return PHASE_BEAROFF
    if not contact:
        return PHASE_RACE
    return PHASE_OPENING if plan == PLAN_OPENING else PHASE_MIDDLE


def _blitzing(att: SideFeatures, dfd: SideFeatures) -> bool:
    """``att`` attacks ``dfd``: the defender has no anchor in the attacker's
    home board, 2+ checkers back with at least one on the bar, against a
    board of 3+ points (2+ points with 2+ checkers on the bar)."""
    if dfd.anchors or not dfd.bar or dfd.back < BLITZ_MIN_BACK:
        return False
    return att.home_points >= BLITZ_MIN_HOME_POINTS or (
        dfd.bar >= 2 and att.home_points >= BLITZ_MIN_HOME_POINTS_TWO_ON_BAR
    )


def _back_game(bg: SideFeatures, other: SideFeatures) -> bool:
    """``bg`` plays a back game: 2+ anchors in the other's home board, far behind."""
    return bg.anchors >= BACK_GAME_MIN_ANCHORS and bg.pips - other.pips >= BACK_GAME_MIN_DEFICIT


def _holding(holder: SideFeatures, other: SideFeatures) -> bool:
    """``holder`` plays a holding game: an advanced anchor the other lacks,
    and not more than ``HOLDING_MAX_LEAD`` pips ahead (a holder far ahead
    runs rather than waits)."""
    return bool(holder.advanced_anchor) and not other.advanced_anchor and \
        other.pips - holder.pips <= HOLDING_MAX_LEAD


def _deep_anchor(holder: SideFeatures, other: SideFeatures) -> bool:
    """``holder`` plays an ace-point game in the middle game: his only
    anchors are on the other's 1- or 2-point (no advanced anchor) and he is
    ``ACE_POINT_MIN_DEFICIT`` pips or more behind, so he waits for a shot."""
    return bool(holder.anchors) and not holder.advanced_anchor and \
        holder.pips - other.pips >= ACE_POINT_MIN_DEFICIT


def _contained(back: SideFeatures, other: SideFeatures) -> bool:
    """``back`` has checkers back, none of them made into an anchor, and the
    other has none back: the other contains them (or they escape)."""
    return bool(back.back) and not back.anchors and not other.back


def _plan(
    me: SideFeatures, opp: SideFeatures, contact: bool, opening: bool, me_trapped: int, opp_trapped: int,
    opponent: Sequence[int],
) -> str:
    if not contact:
        return PLAN_RACE if me.outside else PLAN_BEAROFF
    if me.outside <= BEAROFF_MAX_OUTSIDE and not me.back:
        return PLAN_BEAROFF_CONTACT
    if opp.outside <= BEAROFF_MAX_OUTSIDE and not opp.back:
        # He bears in or off against my contact; his bear-off decides the plan:
        # holding while my advanced anchor still has one of his checkers to pass,
        # ace-point game with 2+ checkers back, else his bear-off against contact
        # (a lone straggler, or an anchor he has already passed).
        if me.advanced_anchor and _behind(opponent, me.advanced_anchor):
            return PLAN_HOLDING
        if me.back >= ACE_POINT_MIN_BACK:
            return PLAN_ACE_POINT
        return PLAN_BEAROFF_CONTACT
    if opening:
        return PLAN_OPENING
    if _blitzing(me, opp):
        return PLAN_BLITZ
    if _blitzing(opp, me):
        return PLAN_BLITZ_DEFENCE
    if _back_game(me, opp):
        return PLAN_BACK_GAME
    if _back_game(opp, me):
        return PLAN_AGAINST_BACK_GAME
    if opp_trapped and me_trapped:
        return PLAN_PRIME_VS_PRIME
    if opp_trapped:
        return PLAN_PRIMING
    if me_trapped:
        return PLAN_PRIME_DEFENCE
    if me.advanced_anchor and opp.advanced_anchor:
        return PLAN_MUTUAL_HOLDING
    if _holding(me, opp):
        return PLAN_HOLDING
    if _deep_anchor(me, opp):
        return PLAN_ACE_POINT
    if _holding(opp, me) or _deep_anchor(opp, me):
        return PLAN_AGAINST_ANCHOR
    if _contained(opp, me):
        return PLAN_CONTAINMENT
    if _contained(me, opp):
        return PLAN_CONTAINMENT_DEFENCE
    return PLAN_RESIDUAL


def features(board: Board, move_number: Optional[int] = None) -> PositionFeatures:
    """Basic features of both sides, contact, phase and game plan of the
    player on roll.

    ``move_number`` (optional): the play's number in the game, 1 = the
    opening roll's play, counting both players' plays.  When given it
    replaces the board rule of the opening (plays 1..6 are the opening, phase
    and plan alike); stored labels use the board alone, so that one position
    always gets one phase and one plan."""
    on_roll, opponent = board.on_roll, board.opponent
    me = side_features(on_roll)
    opp = side_features(opponent)
    contact = me.rear + opp.rear > 25
    if contact:
        me_trapped = _behind(on_roll, opp.prime_low) if opp.prime >= PRIME_MIN else 0
        opp_trapped = _behind(opponent, me.prime_low) if me.prime >= PRIME_MIN else 0
    else:
        me_trapped = opp_trapped = 0
    opening = contact and _in_opening(board, me, opp, move_number)
    plan = _plan(me, opp, contact, opening, me_trapped, opp_trapped, opponent)
    return PositionFeatures(me, opp, contact, me_trapped, opp_trapped, _phase(me, contact, plan), plan)


def classify(board: Board, move_number: Optional[int] = None) -> Tuple[str, str]:
    """``(phase, game_plan)`` of the player on roll."""
    f = features(board, move_number)
    return f.phase, f.game_plan


def phase(board: Board, move_number: Optional[int] = None) -> str:
    return features(board, move_number).phase


def game_plan(board: Board, move_number: Optional[int] = None) -> str:
    return features(board, move_number).game_plan


# ---------------------------------------------------------------------------
# Like distance (SPEC §10)
# ---------------------------------------------------------------------------


def side_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Minimal total pips to turn side ``a`` into side ``b`` (same owner):
    the 1-D earth mover's distance over off (0), points 1..24 and the bar
    (25), as the sum over the 25 gaps of the absolute difference of the
    checkers at or above each point."""
    return sum(map(abs, accumulate(map(sub, reversed(a), reversed(b)))))


def like_distance(a: Board, b: Board) -> int:
    """SPEC §10 like distance: :func:`side_distance` of the players on roll
    plus that of the opponents."""
    return side_distance(a.on_roll, b.on_roll) + side_distance(a.opponent, b.opponent)


# ---------------------------------------------------------------------------
# Blots, hits, points after a play
# ---------------------------------------------------------------------------


def _result(x) -> Board:
    """A Board, or the ``result`` of a Play."""
    return x.result if hasattr(x, "result") else x


def blots(side: Sequence[int]) -> int:
    """Single checkers on points 1..24 (bar excluded)."""
    return bytes(side[:24]).count(1)


def _opp_mask(board: Board) -> int:
    """Bit p (0..24) set when an opponent checker stands on the mover's
    point p (p = 0: the opponent's bar)."""
    opp = board.opponent
    mask = 1 if opp[24] else 0
    for j in range(24):
        if opp[j]:
            mask |= 1 << (24 - j)
    return mask


def _blot_mask(side: Sequence[int]) -> int:
    mask = 0
    for i in range(24):
        if side[i] == 1:
            mask |= 1 << (i + 1)
    return mask


def exposed_blots(board: Board) -> Tuple[int, int]:
    """``(exposed, direct)`` blots of the player on roll: single checkers
    on points 1..24 with an opposing checker (or the bar) behind them, and
    among those, the ones 1..6 pips in front of an opposing checker."""
    opp = _opp_mask(board)
    blot = _blot_mask(board.on_roll)
    if not opp or not blot:
        return 0, 0
    lowest = opp & -opp  # the opposing checker furthest behind (mover's numbering)
    behind_any = ~((lowest << 1) - 1)  # points above it
    reach = 0
    for k in range(1, DIRECT_RANGE + 1):
        reach |= opp << k
    return bin(blot & behind_any).count("1"), bin(blot & reach).count("1")


def _made_points(side: Sequence[int], points: Sequence[int]) -> frozenset:
    return frozenset(p for p in points if side[p - 1] >= 2)


def _hits(board: Board, result: Board) -> int:
    """Opposing checkers sent to the bar by the play."""
    return result.opponent[24] - board.opponent[24]


# ---------------------------------------------------------------------------
# Checker-play themes (SPEC §9)
# ---------------------------------------------------------------------------


def error_mpt(error: float) -> int:
    """e in millipoints, rounded half-up through integer micro-EMG (SPEC §3)."""
    micro = int(round(error * 1_000_000))
    return (micro + 500) // 1000


def _net_gammons(probs: Sequence[float]) -> float:
    # gnubg's cubeless (win, win g, win bg, lose g, lose bg); equity
    # = 2 win - 1 + win g - lose g + win bg - lose bg.
    return probs[1] + probs[2] - probs[3] - probs[4]


def theme_rules(board: Board, played_result, best_result, played_probs=None, best_probs=None) -> Tuple[str, ...]:
    """Every theme whose rule fires, in precedence order, ignoring the error
    size (for tests and explanations; :func:`checker_theme` applies the 60
    mpt floor and keeps the first)."""
    played = _result(played_result)
    best = _result(best_result)
    if played == best:
        return ()
    fired = []
    # 1. Too many blots
    p_exp, p_direct = exposed_blots(played)
    b_exp, b_direct = exposed_blots(best)
    if p_exp - b_exp >= BLOTS_MIN_EXTRA or (p_direct >= 1 and b_direct == 0 and p_exp >= b_exp):
        fired.append(THEME_BLOTS)
    # 2. Point not made
    before_key = _made_points(board.on_roll, KEY_POINTS)
    best_new = _made_points(best.on_roll, KEY_POINTS) - before_key
    played_new = _made_points(played.on_roll, KEY_POINTS) - before_key
    if best_new and not played_new:
        fired.append(THEME_POINT)
    # 3. Too passive
    hits_best, hits_played = _hits(board, best), _hits(board, played)
    before_anchor = _made_points(board.on_roll, ADVANCED_ANCHORS)
    best_anchor = _made_points(best.on_roll, ADVANCED_ANCHORS) - before_anchor
    played_anchor = _made_points(played.on_roll, ADVANCED_ANCHORS) - before_anchor
    if hits_played == 0 and (
        hits_best >= 1
        or (best_anchor and not played_anchor)
        or (b_exp - p_exp >= BLOTS_MIN_EXTRA)
    ):
        fired.append(THEME_PASSIVE)
    # 4. Gammon underestimated
    if played_probs is not None and best_probs is not None:
        swing = _net_gammons(best_probs) - _net_gammons(played_probs)
        win_gap = best_probs[0] - played_probs[0]
        if swing >= GAMMON_MIN_SWING and GAMMON_WIN_RATIO * win_gap <= swing:
            fired.append(THEME_GAMMON)
    return tuple(fired)


def checker_theme(
    board: Board,
    played_result,
    best_result,
    error: Optional[float],
    played_probs: Optional[Sequence[float]] = None,
    best_probs: Optional[Sequence[float]] = None,
) -> str:
    """The theme of a checker-play error (SPEC §9), or ``THEME_NONE``.

    ``board``: the position before the play (mover on roll);
    ``played_result`` / ``best_result``: the boards after the played and the
    best play (``Play.result``, mover still on roll; a ``Play`` is accepted);
    ``error``: e in EMG; ``*_probs``: the cubeless (win, win gammon, win bg,
    lose gammon, lose bg) of each play after the move, when the analysis
    gives them.  A theme is named only from 60 mpt and when its rule is
    clear-cut (docs/positions.md)."""
    if error is None or error_mpt(error) < THEME_MIN_MPT:
        return THEME_NONE
    fired = theme_rules(board, played_result, best_result, played_probs, best_probs)
    return fired[0] if fired else THEME_NONE


# ---------------------------------------------------------------------------
# Blot bias (SPEC §12)
# ---------------------------------------------------------------------------


def blot_sign(board: Board, played_result, best_result) -> Optional[int]:
    """sign(blots after the played play - blots after the best play) for a
    checker play with contact (in ``board``, before the play); ``None``
    without contact.  Blots = the mover's single checkers on points 1..24."""
    if not has_contact(board):
        return None
    d = blots(_result(played_result).on_roll) - blots(_result(best_result).on_roll)
    return (d > 0) - (d < 0)


__all__ = [
    "PHASES",
    "GAME_PLANS",
    "CHECKER_THEMES",
    "THEME_NONE",
    "SideFeatures",
    "PositionFeatures",
    "features",
    "classify",
    "phase",
    "game_plan",
    "side_features",
    "has_contact",
    "side_distance",
    "like_distance",
    "exposed_blots",
    "blots",
    "error_mpt",
    "theme_rules",
    "checker_theme",
    "blot_sign",
]
