"""Checker moves: single steps, legal plays, notation, SGF move values.

Conventions (gnubg's): a *step* is one checker moved by one die, written
``(from, to)`` in 1-based points counted from the mover's home, 25 = bar,
0 = off.  A *play* is the whole move for one roll (up to four steps).  The
mover is always ``board.on_roll``; results are not swapped (the same player
is still on roll in ``Play.result``; call ``.swapped()`` to pass the turn).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..errors import BlunderError
from .position import Board

Step = Tuple[int, int]

BAR_POINT = 25
OFF_POINT = 0

# Legal plays are cached by (position, dice): an importer asks about the same
# position a few times in a row (count, find the played move, parse a
# candidate).  An entry takes about 10 kB on average (some doubles have
# hundreds of plays), so the cache stays small.
CACHE_SIZE = 1024


class IllegalMove(ValueError, BlunderError):
    """A step or play that cannot be made on the given board."""


# ---------------------------------------------------------------------------
# Single steps
# ---------------------------------------------------------------------------

def _step_in_place(me: List[int], opp: List[int], frm: int, to: int) -> None:
    """Move one checker ``frm`` -> ``to`` on mutable sides, with every check
    that does not need to know the dice."""
    if not (isinstance(frm, int) and isinstance(to, int)):
        raise IllegalMove(f"step {frm}/{to}: points must be ints")
    if not 1 <= frm <= BAR_POINT or not 0 <= to <= 24:
        raise IllegalMove(f"step {frm}/{to}: from must be 1..25 (25 = bar), to 0..24 (0 = off)")
    if not 0 < frm - to <= 6 and to != OFF_POINT:
        raise IllegalMove(f"step {_fmt(frm)}/{_fmt(to)}: a step moves one checker 1..6 pips forward")
    if to == OFF_POINT and frm > 6:
        raise IllegalMove(f"step {_fmt(frm)}/off: only checkers in the home board can bear off")
    if not me[frm - 1]:
        raise IllegalMove(f"step {_fmt(frm)}/{_fmt(to)}: no checker of the mover on {_fmt(frm)}")
    if frm != BAR_POINT and me[24]:
        raise IllegalMove(f"step {_fmt(frm)}/{_fmt(to)}: a checker on the bar must enter first")
    if to == OFF_POINT:
        if any(me[6:25]):
            raise IllegalMove(f"step {_fmt(frm)}/off: not all checkers are in the home board")
        me[frm - 1] -= 1
        return
    o = 24 - to  # the opponent's index of the mover's point `to`
    if opp[o] >= 2:
        raise IllegalMove(f"step {_fmt(frm)}/{to}: point {to} is blocked")
    me[frm - 1] -= 1
    me[to - 1] += 1
    if opp[o] == 1:  # hit
        opp[o] = 0
        opp[24] += 1


def apply_step(board: Board, frm: int, to: int) -> Board:
    """Move one checker of ``board.on_roll`` from ``frm`` to ``to`` (25 = bar,
    0 = off), sending a hit blot to the opponent's bar.  Raises
    ``IllegalMove`` when no checker is there, the point is blocked, a
    checker on the bar has not entered, or bearing off is not allowed."""
    return apply_steps(board, ((frm, to),))


def apply_steps(board: Board, steps: Iterable[Sequence[int]]) -> Board:
    """Apply single-checker steps in order (see ``apply_step``)."""
    me = list(board.on_roll)
    opp = list(board.opponent)
    for step in steps:
        if len(step) != 2:
            raise IllegalMove(f"a step is a (from, to) pair, got {step!r}")
        _step_in_place(me, opp, step[0], step[1])
    return Board._trusted(tuple(me), tuple(opp))


# ---------------------------------------------------------------------------
# Plays
# ---------------------------------------------------------------------------

class Play:
    """One legal play: ``steps`` (gnubg's (from, to) single-checker steps),
    ``result`` (the Board after the play, same player on roll),
    ``board`` (the Board before) and ``notation`` (gnubg's move text).

    Plays compare equal when they start from the same board and reach the
    same position: "8/6 6/3" and "8/3" are the same play.
    """

    __slots__ = ("board", "steps", "result", "_notation")

    def __init__(self, board: Board, steps: Tuple[Step, ...], result: Board):
        self.board = board
        self.steps = steps
        self.result = result
        self._notation: Optional[str] = None

    @property
    def notation(self) -> str:
        if self._notation is None:
            self._notation = format_move(self.board, self.steps)
        return self._notation

    @property
    def hits(self) -> Tuple[int, ...]:
        """Points (mover's numbering) where an opposing blot was hit."""
        before, after = self.board.opponent, self.result.opponent
        return tuple(p for p in range(24, 0, -1) if before[24 - p] and not after[24 - p])

    def __eq__(self, other) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self.result == other.result and self.board == other.board

    def __hash__(self) -> int:
        return hash((self.board, self.result))

    def __repr__(self) -> str:
        return f"Play({self.notation!r}, steps={self.steps!r})"


def _check_dice(d1: int, d2: int) -> Tuple[int, int]:
    for d in (d1, d2):
        if not isinstance(d, int) or not 1 <= d <= 6:
            raise ValueError(f"dice must be ints 1..6, got {d1!r}, {d2!r}")
    return (d1, d2) if d1 >= d2 else (d2, d1)


# A resulting position is keyed by one int while the search runs: the
# mover's 25 counts in 4-bit digits (at most 15 checkers a point), shifted
# left 24 bits, or-ed with the set of opponent points hit (the opponent's
# side after a play is the one before, minus the blots hit, which went to
# its bar).  No tuple is built per leaf; boards are made only when asked.
_DIGIT = tuple(1 << (4 * i) for i in range(25))
_HIT_BITS = 24


def _me_code(me: Sequence[int]) -> int:
    code = 0
    for i, n in enumerate(me):
        code |= n << (4 * i)
    return code


def _search(me, opp, outside, dice, canonical, depth, max_src, code, hits, steps, found, best):
    """Depth-first search over the steps of one dice order.

    ``me``/``opp`` are the two sides as mutable lists (restored on return),
    ``outside`` the mover's checkers outside the home board (points 7..25),
    ``code``/``hits`` the key of the position reached (see above).
    ``found`` maps the key of each position of the deepest plays seen so far
    to its steps; ``best[0]`` is that depth.  For doubles (``canonical``)
    sources never increase along a play: any play of equal dice can be
    reordered that way, so none is lost and each is walked once.
    """
    d = dice[depth]
    last = depth + 1 == len(dice)
    moved = False
    if me[24]:
        sources: Iterable[int] = (BAR_POINT,) if max_src == BAR_POINT else ()
    else:
        sources = range(min(max_src, 24), 0, -1)
    for src in sources:
        if not me[src - 1]:
            continue
        dst = src - d
        hit = 0
        if dst >= 1:
            o = 24 - dst
            hit = opp[o]
            if hit >= 2:
                continue  # blocked
            new_code = code - _DIGIT[src - 1] + _DIGIT[dst - 1]
        elif outside or (dst < 0 and any(me[src:6])):
            # Bearing off needs every checker home, and a die larger than
            # the point only bears off from the highest occupied point.
            continue
        else:
            dst = OFF_POINT
            new_code = code - _DIGIT[src - 1]
        new_hits = hits | (1 << o) if hit else hits
        moved = True
        steps.append((src, dst))
        if last:
            if best[0] != len(dice):
                best[0] = len(dice)
                found.clear()
            key = (new_code << _HIT_BITS) | new_hits
            if key not in found:
                found[key] = tuple(steps)
        else:
            me[src - 1] -= 1
            if dst:
                me[dst - 1] += 1
                if hit:
                    opp[o] = 0
            _search(me, opp, outside - (src > 6 >= dst), dice, canonical, depth + 1,
                    src if canonical else BAR_POINT, new_code, new_hits, steps, found, best)
            if dst:
                if hit:
                    opp[o] = 1
                me[dst - 1] -= 1
            me[src - 1] += 1
        steps.pop()
    if not moved:
        if depth > best[0]:
            best[0] = depth
            found.clear()
        if depth == best[0]:
            key = (code << _HIT_BITS) | hits
            if key not in found:
                found[key] = tuple(steps)


def _generate(board: Board, hi: int, lo: int) -> Dict[int, Tuple[Step, ...]]:
    me = list(board.on_roll)
    opp = list(board.opponent)
    outside = sum(me[6:25])
    code = _me_code(me)
    if hi == lo:
        found: Dict = {}
        best = [0]
        _search(me, opp, outside, (hi,) * 4, True, 0, BAR_POINT, code, 0, [], found, best)
        return found if best[0] else {}
    found_hi: Dict = {}
    best_hi = [0]
    _search(me, opp, outside, (hi, lo), False, 0, BAR_POINT, code, 0, [], found_hi, best_hi)
    found_lo: Dict = {}
    best_lo = [0]
    _search(me, opp, outside, (lo, hi), False, 0, BAR_POINT, code, 0, [], found_lo, best_lo)
    depth = max(best_hi[0], best_lo[0])
    if depth == 0:
        return {}
    if depth == 1:
        # Only one die can be played: the larger one if it can be.
        return found_hi if best_hi[0] == 1 else found_lo
    merged = found_hi if best_hi[0] == 2 else {}
    if best_lo[0] == 2:
        for key, steps in found_lo.items():
            if key not in merged:
                merged[key] = steps
    return merged


def _result_key(board: Board, result: Board) -> int:
    """The search key of ``result`` reached from ``board``."""
    before, after = board.opponent, result.opponent
    hits = 0
    for o in range(24):
        if before[o] == 1 and after[o] == 0:
            hits |= 1 << o
    return (_me_code(result.on_roll) << _HIT_BITS) | hits


def _result_board(board: Board, key: int) -> Board:
    code, hits = key >> _HIT_BITS, key & ((1 << _HIT_BITS) - 1)
    me = tuple((code >> (4 * i)) & 15 for i in range(25))
    if not hits:
        return Board._trusted(me, board.opponent)  # most plays hit nothing: share the tuple
    opp = list(board.opponent)
    for o in range(24):
        if hits >> o & 1:
            opp[o] = 0
            opp[24] += 1
    return Board._trusted(me, tuple(opp))


class _Legal:
    """The legal plays of one (position, roll) as cached: what the search
    found (key -> steps) at once, Play objects when first needed (counting
    and finding one play need none)."""

    __slots__ = ("board", "found", "_plays")

    def __init__(self, board: Board, found: Dict[int, Tuple[Step, ...]]):
        self.board = board
        self.found = found
        self._plays: Optional[Tuple[Play, ...]] = None

    def plays(self) -> Tuple[Play, ...]:
        if self._plays is None:
            board = self.board
            self._plays = tuple(Play(board, steps, _result_board(board, key)) for key, steps in self.found.items())
        return self._plays

    def play_with_result(self, result: Board) -> Optional[Play]:
        steps = self.found.get(_result_key(self.board, result))
        return None if steps is None else Play(self.board, steps, result)


@lru_cache(maxsize=CACHE_SIZE)
def _legal(board: Board, hi: int, lo: int) -> _Legal:
    return _Legal(board, _generate(board, hi, lo))


def legal_plays(board: Board, d1: int, d2: int) -> List[Play]:
    """Every legal play of ``board.on_roll`` for the roll ``d1``-``d2``, one
    per distinct resulting position (gnubg's candidate list, in another
    order).  Empty when the player cannot move."""
    return list(_legal(board, *_check_dice(d1, d2)).plays())


def count_legal_plays(board: Board, d1: int, d2: int) -> int:
    """Number of distinct legal plays; 0 for a dance, 1 for a forced play."""
    return len(_legal(board, *_check_dice(d1, d2)).found)


def _apply_any_order(board: Board, steps: Sequence[Sequence[int]]) -> Optional[Board]:
    """The result of ``steps`` as given, or else sorted by decreasing source
    (always a workable order for a legal play); None if neither applies."""
    steps = [tuple(s) for s in steps]
    try:
        return apply_steps(board, steps)
    except IllegalMove:
        pass
    try:
        return apply_steps(board, sorted(steps, reverse=True))
    except (IllegalMove, TypeError):
        return None


def find_play(board: Board, d1: int, d2: int, steps: Sequence[Sequence[int]]) -> Optional[Play]:
    """The legal play reaching the position that ``steps`` reach, or None if
    the steps are impossible or not a legal play for this roll."""
    legal = _legal(board, *_check_dice(d1, d2))
    result = _apply_any_order(board, steps)
    return None if result is None else legal.play_with_result(result)


def clear_cache() -> None:
    """Forget the cached legal plays."""
    _legal.cache_clear()


# ---------------------------------------------------------------------------
# Notation (gnubg's FormatMove)
# ---------------------------------------------------------------------------

def _fmt(point: int) -> str:
    return "off" if point == OFF_POINT else "bar" if point == BAR_POINT else str(point)


def format_move(board: Board, steps: Iterable[Sequence[int]]) -> str:
    """Standard notation for ``steps`` played on ``board``, as gnubg writes it
    (``gnubg.movetupletostring``): steps sorted by decreasing source, the
    steps of one checker joined ("8/3", or "6/4*/1*" when it hits on the
    way), identical moves counted ("8/5(2)"), hits marked with ``*``."""
    opp = board.opponent

    def blot_at(p: int) -> bool:
        return 1 <= p <= 24 and opp[24 - p] > 0

    rows = sorted(((int(a), int(b)) for a, b in steps), reverse=True)
    paths: List[Optional[List[int]]] = [[a, b] for a, b in rows]
    # Join the steps of one checker: a later (lower) step starting where
    # this one ends.  The intermediate point is kept only if it was a hit.
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            pi, pj = paths[i], paths[j]
            if pi is not None and pj is not None and pi[-1] == pj[0]:
                if blot_at(pi[-1]):
                    pi.append(pj[1])
                else:
                    pi[-1] = pj[1]
                paths[j] = None
    joined = [p for p in paths if p is not None]
    # Count identical checker moves.
    counted: List[List] = []
    for path in joined:
        for entry in counted:
            if entry[0] == path:
                entry[1] += 1
                break
        else:
            counted.append([path, 1])
    parts = []
    starred = set()
    for path, count in counted:
        text = _fmt(path[0])
        for p in path[1:-1]:
            text += f"/{_fmt(p)}*"
            starred.add(p)
        dest = path[-1]
        text += "/" + _fmt(dest)
        if blot_at(dest) and dest not in starred:
            text += "*"
            starred.add(dest)
        if count > 1:
            text += f"({count})"
        parts.append(text)
    return " ".join(parts)


_TOKEN_RE = re.compile(r"^(?P<path>[^()]+?)(?P<tail>\*?(?:\((?P<count>[1-4])\))?\*?)$")
_POINT_RE = re.compile(r"^(?:bar|off|\d{1,2})$")


def _parse_notation(text: str) -> Tuple[List[Tuple[List[int], int]], set]:
    """``[(path points, count), ...]`` and the set of starred points."""
    moves = []
    starred = set()
    for token in re.split(r"[\s,]+", text.strip().lower()):
        if not token:
            continue
        m = _TOKEN_RE.match(token)
        raw_points = m.group("path").split("/") if m else []
        if len(raw_points) < 2:
            raise ValueError(f"cannot read move {token!r} in {text!r}: expected from/to[(n)]")
        points = []
        for raw in raw_points:
            star = raw.endswith("*")
            raw = raw[:-1] if star else raw
            if not _POINT_RE.match(raw):
                raise ValueError(f"cannot read point {raw!r} in {text!r}")
            p = BAR_POINT if raw == "bar" else OFF_POINT if raw == "off" else int(raw)
            if p > BAR_POINT:
                raise ValueError(f"point {p} out of range in {text!r}")
            points.append(p)
            if star:
                starred.add(p)
        if "*" in m.group("tail"):
            starred.add(points[-1])
        moves.append((points, int(m.group("count") or 1)))
    return moves, starred


def parse_move_notation(board: Board, d1: int, d2: int, text: str) -> Optional[Play]:
    """The legal play written as ``text`` ("13/7(2)", "8/5*/4", "24/18 13/11",
    "bar/20", "6/off"; "25" = bar, "0" = off also read), or None when the
    text is well formed but names no legal play for this roll.

    A checker's path may skip its intermediate points ("24/18" for 5-1).
    The play is chosen by the mover's resulting checkers; when plays differ
    only in what they hit, the starred points decide (otherwise stars are
    not checked).  Raises ``ValueError`` when the text cannot be read."""
    moves, starred = _parse_notation(text)
    plays = _legal(board, *_check_dice(d1, d2)).plays()
    if not moves:
        return None
    target = list(board.on_roll)
    for points, count in moves:
        src, dst = points[0], points[-1]
        if any(a <= b for a, b in zip(points, points[1:])):
            return None  # not moving forward
        target[src - 1] -= count
        if dst != OFF_POINT:
            target[dst - 1] += count
    if min(target) < 0:
        return None
    target_t = tuple(target)
    candidates = [p for p in plays if p.result.on_roll == target_t]
    if len(candidates) == 1:
        return candidates[0]
    for play in candidates:
        if set(play.hits) == starred:
            return play
    return None
