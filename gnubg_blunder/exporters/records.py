"""A game of the decision model as the records gnubg's files write
(:func:`game_records`): what both writers (``sgf_writer.py``,
``mat_writer.py``) take, and the refusals they share.  docs/convert.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..board.moves import IllegalMove, legal_plays
from ..board.position import Board
from ..errors import BlunderError
from ..model import BEAVER, BEAVER_CLOSE, CHECKER, DOUBLE, PASS, TAKE, Game, Match


class ExportError(BlunderError):
    """A match that cannot be written in the asked format: one line for the user."""


@dataclass
class Record:
    """One record of a game, as gnubg's files write it."""

    kind: str  # "move", "double", "take", "drop", "set" (the board is not where the last move left it)
    player: int
    dice: Optional[tuple] = None  # moves
    steps: Optional[tuple] = None  # moves: single-checker (from, to) steps, 25 bar, 0 off; () = dance
    board: Optional[Board] = None  # moves and "set": the board before, ``player`` on roll
    after: Optional[Board] = None  # moves: the board after, ``player`` still on roll
    legal: bool = True  # moves: the steps are a legal play for the dice
    cube: int = 1  # doubles: the cube value the double offers
    beaver: bool = False  # doubles: a beaver (or raccoon) of the double before it
    closes_beaver: bool = False  # takes: the take that closes a beaver chain
    comment: Optional[str] = None


def _lenient_apply(board: Board, steps) -> Board:
    """Move checkers as written, hitting a blot where one lands, without the
    rules of the dice (an invalid move XG kept, gnubg's ``ApplyMove``)."""
    me, opp = list(board.on_roll), list(board.opponent)
    for frm, to in steps:
        if not me[frm - 1]:
            raise IllegalMove(f"no checker on {frm}")
        me[frm - 1] -= 1
        if to:
            if opp[24 - to] >= 2:
                raise IllegalMove(f"point {to} is held")
            if opp[24 - to] == 1:
                opp[24 - to] = 0
                opp[24] += 1
            me[to - 1] += 1
    return Board(me, opp)


def _steps_between(before: Board, after: Board) -> Optional[tuple]:
    """Steps that turn ``before`` into ``after`` when no legal play does (a
    move XG marks invalid): the checkers that left points, highest first,
    paired with the points that gained checkers, highest first."""
    src, dst = [], []
    for i in range(25):
        d = after.on_roll[i] - before.on_roll[i]
        if d < 0:
            src += [i + 1] * -d
        elif d > 0:
            dst += [i + 1] * d
    off = sum(before.on_roll) - sum(after.on_roll)
    if off < 0:
        return None
    dst += [0] * off
    src.sort(reverse=True)
    dst.sort(reverse=True)
    if len(src) != len(dst) or not src or any(s <= d for s, d in zip(src, dst)):
        return None
    steps = tuple(zip(src, dst))
    try:
        if _lenient_apply(before, steps) == after:
            return steps
    except (IllegalMove, ValueError):
        pass
    return None


def _move_steps(match: Match, game: Game, roll) -> tuple:
    """(steps, legal, board before, board after) of one roll."""
    where = f"game {game.number + 1}, record {roll.seq + 1}"
    if not roll.position_id:
        raise ExportError(f"{where}: the position before the roll is unknown")
    try:
        before = Board.from_position_id(roll.position_id)
        after = Board.from_position_id(roll.position_after) if roll.position_after else None
    except ValueError as exc:
        raise ExportError(f"{where}: bad position ID ({exc})") from None
    d1, d2 = roll.dice
    plays = legal_plays(before, d1, d2)
    if not plays:
        if after is not None and after != before:
            raise ExportError(f"{where}: a move with {d1}{d2} where no play is legal")
        return (), True, before, before
    if after is None:
        raise ExportError(f"{where}: the position the move left is unknown")
    for p in plays:
        if p.result == after:
            return tuple(p.steps), True, before, after
    steps = _steps_between(before, after)
    if steps is None:
        raise ExportError(f"{where}: no move with {d1}{d2} leads from {roll.position_id} to {roll.position_after}")
    return steps, False, before, after


def check_exportable(match: Match) -> None:
    """What both writers refuse: a position file, another variation, no game."""
    if match.kind != "match":
        raise ExportError("a position file, not a match: there is no game to write")
    if match.variation not in (None, "Standard"):
        raise ExportError(f"variation {match.variation!r} is not written")
    if not match.games:
        raise ExportError("the match has no game")


def game_records(match: Match, game: Game) -> list:
    """The game's records in the order the source recorded them.

    Moves come from ``game.rolls``; doubles, takes and drops from the
    decisions of those kinds (their ``seq`` gives the order).  A take or
    drop flagged ``BEAVER_CLOSE`` is preceded by the beaver double(s)
    (their number is read off the cube); the beaver's own take decision
    (``BEAVER``) gives the first of them its comment.
    A ``set`` record is put before a roll whose position is not where the
    previous move left it."""
    items = [(r.seq, 0, r) for r in game.rolls]
    comments = {}
    for d in game.decisions:
        if d.kind in (DOUBLE, TAKE, PASS):
            items.append((d.seq, 1, d))
        elif d.kind == CHECKER and d.comment:
            comments[d.seq] = d.comment
    items.sort(key=lambda t: (t[0], t[1]))
    out = []
    board = None  # where the last move left the board (its mover on roll), and who moved
    mover = None
    open_double = None
    beaver_comment = None
    for seq, is_decision, obj in items:
        if not is_decision:
            steps, legal, before, after = _move_steps(match, game, obj)
            expected = Board.initial() if board is None else (board if mover == obj.player else board.swapped())
            if before != expected:
                out.append(Record("set", obj.player, board=before))
            out.append(Record("move", obj.player, dice=tuple(obj.dice), steps=steps, board=before, after=after,
                              legal=legal, comment=comments.get(seq)))
            board, mover = after, obj.player
            open_double = None
            continue
        d = obj
        if d.kind == DOUBLE:
            rec = Record("double", d.player, cube=2 * d.cube_value, comment=d.comment)
            out.append(rec)
            open_double = rec
            beaver_comment = None
            continue
        if d.beaver_take == BEAVER:
            beaver_comment = d.comment
            continue
        kind = "take" if d.kind == TAKE else "drop"
        if d.beaver_take == BEAVER_CLOSE:
            if open_double is None:
                raise ExportError(f"game {game.number + 1}, record {seq + 1}: a beaver without a double")
            cube, last, beavers = open_double.cube, open_double.player, 0
            while cube < d.cube_value * 2:  # the take's cube is the one the beavers reached, halved
                cube *= 2
                last = 1 - last
                beavers += 1
                out.append(Record("double", last, cube=cube, beaver=True,
                                  comment=beaver_comment if beavers == 1 else None))
            if not beavers or d.player == last:
                raise ExportError(f"game {game.number + 1}, record {seq + 1}: the beavers do not add up")
        out.append(Record(kind, d.player, comment=d.comment, closes_beaver=d.beaver_take == BEAVER_CLOSE))
        open_double = None
    return out


def initial_cube(game: Game) -> int:
    """The cube at the start of the game (automatic doubles in money play)."""
    firsts = [(r.seq, r.cube_value) for r in game.rolls[:1]]
    firsts += [(d.seq, d.cube_value) for d in game.decisions if d.kind in (DOUBLE, TAKE, PASS)][:1]
    if not firsts:
        return 1
    return min(firsts)[1] or 1
