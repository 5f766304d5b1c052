"""The quiz position on gnubg's own board (``bdb.quiz()``, docs/quiz.md).

gnubg 1.07 takes a whole match state as a match ID (``set matchid``) and
the checkers as a position ID (``set board``), the position read from the
side of the player on roll.  The player asked is gnubg's player 1 (the
bottom, X), the opponent player 0.  A take/pass question is shown as the
doubler's position before the double: ``set matchid`` keeps no double
pending in gnubg 1.07 (as ``set xgid``, docs/board.md), and gnubg's
``double`` command would need both players set to human.
"""

from __future__ import annotations

from ..board import Board, MatchState
from ..model import is_money


def target(item) -> tuple:
    """(MatchState, position ID) gnubg must hold for ``item``."""
    owner = {"centred": -1, "you": 1, "opponent": 0}[item.cube_owner]
    length = 0 if is_money(item.length) else int(item.length)
    score = (0, 0) if not length else (item.score_opp, item.score_self)
    if item.responds:
        state = MatchState(cube=item.cube_value, cube_owner=owner, on_roll=0, match_length=length, score=score,
                           crawford=bool(item.crawford))
        return state, Board.from_position_id(item.position_id).swapped().position_id()
    dice = tuple(sorted(item.dice, reverse=True)) if item.dice else (0, 0)
    state = MatchState(cube=item.cube_value, cube_owner=owner, on_roll=1, dice=dice, match_length=length,
                       score=score, crawford=bool(item.crawford))
    return state, item.position_id


def commands(item) -> list:
    """The gnubg commands that put ``item`` on gnubg's board."""
    state, pid = target(item)
    new = "new session" if not state.match_length else f"new match {state.match_length}"
    return [new, f"set matchid {state.match_id()}", f"set board {pid}"]


def put_on_board(g, item) -> str:
    """Run the commands in gnubg (module ``g``) and read its state back:
    "" when gnubg's position ID, match ID and dice are ours, else what
    differs (one line)."""
    state, pid = target(item)
    for cmd in commands(item):
        g.command(cmd)
    got_pid, got_mid = g.positionid(), g.matchid()
    dice = tuple(g.posinfo().get("dice") or (0, 0))
    dice = tuple(sorted(dice, reverse=True))
    wrong = []
    if got_pid != pid:
        wrong.append(f"position ID {got_pid} (not {pid})")
    if got_mid != state.match_id():
        wrong.append(f"match ID {got_mid} (not {state.match_id()})")
    if dice != tuple(state.dice):
        wrong.append(f"dice {dice} (not {state.dice})")
    return "; ".join(wrong)


def analysis_stored(store, match) -> bool:
    """Is this analysis of ``match`` (its engine and depth) in the store?"""
    return store.analysis_stored(match)
