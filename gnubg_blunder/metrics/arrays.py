"""The arrays every metric reads: the contract between the store and metrics.

The store fills a :class:`Selection` (matches kept by a filter, all their
decisions and rolls from one analysis each); metrics are pure functions over
it.  Unknown values are NaN (floats) or -1 (small integers), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..model import CHECKER, DOUBLE, NO_DOUBLE, PASS, TAKE

KIND_CODES = {CHECKER: 0, NO_DOUBLE: 1, DOUBLE: 2, TAKE: 3, PASS: 4}
KIND_NAMES = {v: k for k, v in KIND_CODES.items()}

DECISION_COLUMNS = {
    # name: (dtype, missing value)
    "match": (np.int32, -1),  # index into Selection.matches
    "game": (np.int32, -1),
    "seq": (np.int32, -1),
    "player": (np.int8, -1),  # 0 or 1 within the match
    "kind": (np.int8, -1),  # KIND_CODES
    "error": (np.float64, np.nan),
    "mwc_per_emg": (np.float64, np.nan),
    "nd": (np.float64, np.nan),
    "dt": (np.float64, np.nan),
    "dp": (np.float64, np.nan),
    "n_legal": (np.int16, -1),
    "n_candidates": (np.int16, 0),
    "equity_spread": (np.float64, np.nan),
    "xg_counted": (np.int8, -1),
    "beaver_take": (np.int8, 0),  # the take closing a beaver chain (gnubg counts it; we do not)
    "gnubg_dead_cube": (np.int8, 0),  # gnubg's statistics see no cube access (after beavers)
    "row_id": (np.int64, -1),  # the store's decision id, for drill-down
}

ROLL_COLUMNS = {
    "match": (np.int32, -1),
    "game": (np.int32, -1),
    "player": (np.int8, -1),
    "luck": (np.float64, np.nan),
    "mwc_per_emg": (np.float64, np.nan),
}


class Columns:
    """A set of equal-length numpy columns, built from row tuples."""

    SPEC: dict = {}

    def __init__(self, **cols):
        n = None
        for name, (dtype, _missing) in self.SPEC.items():
            col = np.asarray(cols.get(name, []), dtype=dtype)
            if n is None:
                n = len(col)
            elif len(col) != n:
                raise ValueError(f"column {name} has {len(col)} rows, expected {n}")
            setattr(self, name, col)
        self.n = n or 0

    @classmethod
    def from_rows(cls, rows, names):
        """rows: iterable of tuples in ``names`` order; None becomes the missing value."""
        rows = list(rows)
        cols = {}
        for i, name in enumerate(names):
            dtype, missing = cls.SPEC[name]
            cols[name] = np.array(
                [missing if r[i] is None else r[i] for r in rows], dtype=dtype
            ) if rows else np.zeros(0, dtype=dtype)
        for name, (dtype, missing) in cls.SPEC.items():
            if name not in cols:
                cols[name] = np.full(len(rows), missing, dtype=dtype)
        return cls(**cols)

    def __len__(self):
        return self.n

    def take(self, mask):
        return type(self)(**{name: getattr(self, name)[mask] for name in self.SPEC})


class DecisionArrays(Columns):
    SPEC = DECISION_COLUMNS


class RollArrays(Columns):
    SPEC = ROLL_COLUMNS


@dataclass
class MatchInfo:
    """What metrics need to know of a match beside its decisions."""

    id: int
    players: tuple
    length: int
    date: Optional[str]
    event: Optional[str]
    winner: Optional[int]
    final_score: tuple
    n_games: int
    source: str
    analysis_id: int
    engine: str
    depth: Optional[float]
    depth_label: Optional[str]
    analyses: list = field(default_factory=list)  # [{"engine", "depth"}...]
    game_scores: list = field(default_factory=list)  # [(s0, s1, crawford)] per game
    round: Optional[str] = None

    @property
    def is_money(self) -> bool:
        return self.length == 0


@dataclass
class Selection:
    """Matches kept by a filter, with the decisions and rolls of one analysis
    each.  ``sides[m, p]`` is True where side p of match m belongs to the
    filter's player (both sides when there is no player filter)."""

    matches: list  # list[MatchInfo]
    decisions: DecisionArrays
    rolls: RollArrays
    sides: np.ndarray  # bool, shape (n_matches, 2)
    player_filter: Optional[str] = None

    @property
    def n_matches(self) -> int:
        return len(self.matches)

    def decision_side_mask(self) -> np.ndarray:
        if not len(self.decisions):
            return np.zeros(0, dtype=bool)
        return self.sides[self.decisions.match, self.decisions.player]

    def roll_side_mask(self) -> np.ndarray:
        if not len(self.rolls):
            return np.zeros(0, dtype=bool)
        return self.sides[self.rolls.match, self.rolls.player]
