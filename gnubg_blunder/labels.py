"""Derived labels of a decision: phase, game plan, theme (SPEC §9, §14).

Labels are recomputed from the position and the analysis, never edited by a
user.  They are computed when a match is built and kept in the store as a
cache (``LABELS_VERSION`` says which rules made them; a store made by other
rules is relabelled when opened).
"""

from __future__ import annotations

from typing import Optional

from .board.features import (
    GAME_PLANS,
    PHASES,
    THEME_NONE,
    classify,
)
from .board.position import Board
from .board.themes import CHECKER_THEMES, decision_checker_theme

# Bump when a rule of board/features.py, board/themes.py or of this module changes.
LABELS_VERSION = "3"  # 2: the opponent's bear-in/off decides the plan (docs/positions.md);
# 3: the mechanical checker themes (board/themes.py, docs/themes.md); game plans without a catch-all
#    "other" (opening, playing against an anchor / a back game, the middle-game ace-point game,
#    containment, loose middle game; bear-off apart from race) and one reading of phase and plan
#    (race = race, opening = opening, bear-off = all the mover's checkers home; docs/positions.md)

# Cube themes are the direction of the error (SPEC §9, seed 002).
THEME_MISSED_DOUBLE = "missed double"
THEME_PREMATURE_DOUBLE = "premature double"
THEME_WRONG_PASS = "wrong pass"
THEME_WRONG_TAKE = "wrong take"
CUBE_THEMES = (THEME_MISSED_DOUBLE, THEME_PREMATURE_DOUBLE, THEME_WRONG_PASS, THEME_WRONG_TAKE)

THEMES = CHECKER_THEMES + CUBE_THEMES + (THEME_NONE,)
ALL_PHASES = PHASES
ALL_GAME_PLANS = GAME_PLANS


def cube_theme(kind: str, nd, dt, dp, error) -> Optional[str]:
    """The direction of a cube error; None when there is no error (e = 0 or
    unknown).  Offer: missed / premature double; response: wrong pass /
    wrong take."""
    if error is None or error <= 0 or nd is None or dt is None:
        return None
    if kind == "nodouble":
        return THEME_MISSED_DOUBLE
    if kind == "double":
        return THEME_PREMATURE_DOUBLE
    if kind == "pass":
        return THEME_WRONG_PASS
    if kind == "take":
        return THEME_WRONG_TAKE
    return None


def decision_labels(kind: str, position_id: Optional[str], error, candidates, played_index,
                    nd=None, dt=None, dp=None) -> tuple:
    """(phase, game plan, theme) of one decision.  ``candidates``: the
    analysis' list (each with ``position_id`` of the result, mover on roll,
    and ``probs``); a checker theme needs the played and the best play."""
    if not position_id:
        return None, None, None
    board = Board.from_position_id(position_id)
    phase, plan = classify(board)
    theme = None
    if kind == "checker":
        if error is not None and played_index is not None and candidates and error > 0:
            theme = decision_checker_theme(
                board,
                _equities(candidates),
                _ResultBoards(candidates),
                played_index,
                error,
                played_probs=_probs(candidates[played_index]),
                best_probs=_probs(candidates[0]),
            )
    else:
        theme = cube_theme(kind, nd, dt, dp, error)
    return phase, plan, theme


def _pid(c):
    return c["position_id"] if isinstance(c, dict) else c.position_id


def _equities(candidates) -> list:
    """The candidates' equities without resolving their plays, where the list can."""
    if hasattr(candidates, "equities"):
        return list(candidates.equities())
    return [c["equity"] if isinstance(c, dict) else c.equity for c in candidates]


class _ResultBoards:
    """Candidate k's resulting board (None unknown), each read once: the
    mechanical themes read only the candidates they need."""

    def __init__(self, candidates):
        self.candidates, self.boards = candidates, {}

    def __call__(self, k: int):
        if k not in self.boards:
            pid = _pid(self.candidates[k])
            self.boards[k] = Board.from_position_id(pid) if pid else None
        return self.boards[k]


def _probs(c):
    p = c.get("probs") if isinstance(c, dict) else c.probs
    return tuple(p) if p else None


def label_match(match) -> None:
    """Set ``phase``, ``game_plan`` and ``theme`` on every decision."""
    for d in match.decisions():
        d.phase, d.game_plan, d.theme = decision_labels(
            d.kind, d.position_id, d.error, d.candidates, d.played_index, d.nd, d.dt, d.dp
        )
