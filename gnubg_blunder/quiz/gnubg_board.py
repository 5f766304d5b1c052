"""The quiz position on gnubg's own board (``bdb.quiz()``, docs/quiz.md).

gnubg 1.07 takes a whole match state as a match ID (``set matchid``) and
the checkers as a position ID (``set board``), the position read from the
side of the player on roll.  The player asked is gnubg's player 1 (the
bottom, X), the opponent player 0.  A take/pass question is shown as the
doubler's position before the double: ``set matchid`` keeps no double
pending in gnubg 1.07 (as ``set xgid``, docs/board.md), and gnubg's
``double`` command would need both players set to human.

Nothing asks a question of gnubg's dialogs (docs/quiz.md, "On gnubg's
board"): ``set matchid`` replaces gnubg's match without the "discard the
current match?" question and without the "A new N points match has been
started" message that ``new match`` gives; the players' names are the
stored match's (``set player N name``).  The match gnubg held is saved to a
temporary SGF before the first question (:func:`keep`) and loaded back at
the end (:func:`give_back`), after a match ID of no game in progress, so
that ``load match`` asks nothing either.  No gnubg setting is changed but
the players' names, which the loaded match (or, without one, the names
read before) puts back.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from ..board import Board, MatchState
from ..board.ids import GameState
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


def gnubg_name(name) -> str:
    """A player's name as ``set player N name`` takes it (the rest of the
    line): one line, no control character; "—" when unknown."""
    text = " ".join("".join(c if c.isprintable() else " " for c in str(name or "")).split())
    return text or "—"


def commands(item) -> list:
    """The gnubg commands that put ``item`` on gnubg's board (none starts a
    new match: nothing for gnubg to ask)."""
    state, pid = target(item)
    # gnubg refuses a name the other player has: player 1 gets a name of its own first
    return [f"set matchid {state.match_id()}", f"set board {pid}", "set player 1 name gnubg-blunder quiz",
            f"set player 0 name {gnubg_name(item.opponent)}", f"set player 1 name {gnubg_name(item.you)}"]


# A match ID of no game in progress: gnubg's board empty, and ``load match`` then asks nothing.
NO_GAME = MatchState(game_state=GameState.NONE, match_length=1).match_id()


def _names(g):
    data = g.match(analysis=0, boards=0)
    info = (data or {}).get("match-info") or {}
    # gnubg's match dictionary calls player 0 "X" and player 1 "O"
    return ((info.get("X") or {}).get("name"), (info.get("O") or {}).get("name"))


def keep(g) -> dict:
    """What to give back after the quiz: the match gnubg holds, saved to a
    temporary SGF (its analysis with it), or the players' names when none
    is loaded."""
    kept = {"sgf": None, "folder": None, "names": (None, None)}
    if g.match(analysis=0, boards=0) is not None:
        folder = tempfile.mkdtemp(prefix="gnubg-blunder-quiz-")
        sgf = os.path.join(folder, "loaded-match.sgf")
        g.command(f'save match "{sgf}"')
        kept.update(folder=folder)
        if os.path.exists(sgf):
            kept.update(sgf=sgf)
    if kept["sgf"] is None:
        g.command(f"set matchid {NO_GAME}")
        kept["names"] = _names(g)
    return kept


def give_back(g, kept) -> str:
    """Put back what :func:`keep` kept: "" when done, else why not (one line)."""
    if not kept:
        return ""
    try:
        g.command(f"set matchid {NO_GAME}")  # no game in progress: load match asks nothing
        if kept.get("sgf"):
            g.command(f'load match "{kept["sgf"]}"')
            return "" if g.match(analysis=0, boards=0) is not None else "gnubg did not load the match back"
        names = kept.get("names") or ()
        if all(names):
            g.command("set player 1 name gnubg-blunder quiz")
            for player, name in enumerate(names):
                g.command(f"set player {player} name {gnubg_name(name)}")
        return ""
    finally:
        if kept.get("folder"):
            shutil.rmtree(kept["folder"], ignore_errors=True)


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
