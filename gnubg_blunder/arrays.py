"""The arrays every metric reads: the contract between the store and metrics.

The store fills a :class:`Selection` (matches kept by a filter, all their
decisions and rolls from one analysis each); metrics are pure functions over
it.  Unknown values are NaN (floats) or -1 (small integers), never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

import numpy as np

from .labels import ALL_GAME_PLANS, ALL_PHASES, THEMES
from .model import CHECKER, DOUBLE, NO_DOUBLE, PASS, TAKE, is_money
from .stash import Stash

KIND_CODES = {CHECKER: 0, NO_DOUBLE: 1, DOUBLE: 2, TAKE: 3, PASS: 4}
KIND_NAMES = {v: k for k, v in KIND_CODES.items()}

# The derived labels as small integer codes (index in each tuple; -1 = none).
LABELS = {"phase": tuple(ALL_PHASES), "game_plan": tuple(ALL_GAME_PLANS), "theme": tuple(THEMES)}
LABEL_CODES = {k: {name: i for i, name in enumerate(v)} for k, v in LABELS.items()}

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
    "score_self": (np.int16, -1),  # points won by the decider before the game
    "score_opp": (np.int16, -1),
    "crawford": (np.int8, 0),  # the Crawford game
    "cube_value": (np.int32, 1),
    "dice": (np.int16, -1),  # the roll of a checker play, larger die first: 31 = 3-1 (-1: none or unknown)
    "position": (np.int32, -1),  # index into Selection.positions (distinct positions)
    # the position ID itself (ASCII bytes; b"": none or not read), for the few rows a list shows: reading it
    # costs no sort of the selection's distinct positions (:func:`position_ids_at`)
    "position_id": ("S16", b""),
    "phase": (np.int8, -1),  # index into LABELS["phase"]
    "game_plan": (np.int8, -1),  # index into LABELS["game_plan"]
    "theme": (np.int8, -1),  # index into LABELS["theme"]
    "beaver_take": (np.int8, 0),  # model.BEAVER_CLOSE (1) / BEAVER (2): a take's part in a beaver chain
    "gnubg_dead_cube": (np.int8, 0),  # gnubg's statistics see no cube access (after beavers)
    "difficulty": (np.float64, np.nan),  # d of SPEC §6 (EMG), counted decisions only (metrics/difficulty.py)
    "difficulty_truncated": (np.int8, -1),  # 1: d stands on a truncated candidate list (a lower bound)
    "duration": (np.float64, np.nan),  # seconds the decision took, where the source has them
    # blots of the player on roll on the board a wrong checker play (e > 0) left (-1: that board is not
    # among the candidates', or unknown) and on the board of the analysis' first candidate (-1: unknown);
    # -1 for every other decision (metrics/biases.py; the array cache keeps them, store/boards.py reads them)
    "blots_played": (np.int8, -1),
    "blots_best": (np.int8, -1),
    # SPEC §2's counted flag (1 counted, 0 not) as the array cache keeps it, computed when the cache is built
    # (store/sqlite.py: _pack_records); -1: not carried, computed from the other columns (counting.counted)
    "counted": (np.int8, -1),
    "row_id": (np.int64, -1),  # the store's decision id, for drill-down
    "comment": (object, None),  # the decision's comment (for #tags), mostly None
}

# the columns the array cache keeps beside those the store reads from SQL (store/sqlite.py)
BLOT_COLUMNS = ("blots_played", "blots_best")

ROLL_COLUMNS = {
    "match": (np.int32, -1),
    "game": (np.int32, -1),
    "seq": (np.int32, -1),  # the roll's record in its game, the decisions' seq (a move's checker play shares it)
    "player": (np.int8, -1),
    "luck": (np.float64, np.nan),
    "mwc_per_emg": (np.float64, np.nan),
}


class Columns:
    """A set of equal-length numpy columns, built from row tuples, or read
    lazily (:meth:`lazy`): a column the metrics never touch is never read.
    Over 10,000 matches the store's cache holds about thirty columns of
    1.6 M decisions; a view reads a handful (issue 13: time is reading)."""

    SPEC: dict = {}

    def __init__(self, **cols):
        unknown = set(cols) - set(self.SPEC)
        if unknown:
            raise ValueError(f"unknown columns {sorted(unknown)}")
        n = len(next(iter(cols.values()))) if cols else 0
        for name, (dtype, missing) in self.SPEC.items():
            if name in cols:
                if dtype is object:
                    col = np.empty(len(cols[name]), dtype=object)
                    col[:] = list(cols[name])
                else:
                    col = np.asarray(cols[name], dtype=dtype)
            else:
                col = np.empty(n, dtype=object) if dtype is object else np.full(n, missing, dtype=dtype)
            if len(col) != n:
                raise ValueError(f"column {name} has {len(col)} rows, expected {n}")
            setattr(self, name, col)
        self.n = n

    @classmethod
    def lazy(cls, n: int, load, index=None, loaded=None, load_at=None):
        """Columns of ``n`` rows whose values ``load(name)`` reads on first
        use (an array over the source's rows; ``index``: which of those
        rows, in order).  ``loaded``: columns already read (of these rows).
        ``load_at(name, rows)``: the values of the source's ``rows`` alone
        (what :meth:`values_at` reads when given; else the whole column)."""
        self = cls.__new__(cls)
        self.n = int(n)
        self._load, self._index, self._load_at = load, index, load_at
        for name, col in (loaded or {}).items():
            setattr(self, name, col)
        return self

    def __getattr__(self, name):
        # called only for a column not read yet (a read column is a plain attribute)
        load = self.__dict__.get("_load")
        if load is None or name not in self.SPEC:
            raise AttributeError(name)
        col = load(name)
        index = self.__dict__["_index"]
        if index is not None:
            col = col[index]
        setattr(self, name, col)
        return col

    def values_at(self, name: str, rows) -> np.ndarray:
        """Column ``name`` at ``rows``.  A lazy column not read yet is read,
        indexed and let go, not kept: a list of a few decisions does not
        hold 1.6 M row ids or position IDs for the rest of the command."""
        if name in self.__dict__ or self.__dict__.get("_load") is None:
            return getattr(self, name)[rows]
        if name not in self.SPEC:
            raise AttributeError(name)
        index = self.__dict__["_index"]
        load_at = self.__dict__.get("_load_at")
        if load_at is not None:
            return load_at(name, index[rows] if index is not None else np.asarray(rows))
        col = self._load(name)
        return col[index[rows]] if index is not None else col[rows]

    def release(self, keep=()) -> None:
        """Let go of the lazy columns read so far (read again when next
        named) but those named in ``keep``: between the report's sections,
        so that each section's columns are not all held to the end.
        Columns that are not lazy stay."""
        if self.__dict__.get("_load") is None:
            return
        for name in self.SPEC:
            if name not in keep:
                self.__dict__.pop(name, None)

    def _read(self) -> dict:
        """The columns already read, by name."""
        return {name: self.__dict__[name] for name in self.SPEC if name in self.__dict__}

    @classmethod
    def from_rows(cls, rows, names):
        """rows: iterable of tuples in ``names`` order; None becomes the missing value."""
        rows = list(rows)
        cols = {}
        for i, name in enumerate(names):
            dtype, missing = cls.SPEC[name]
            values = [r[i] for r in rows]
            if dtype is not object:
                values = [missing if v is None else v for v in values]
            cols[name] = values
        if not rows:
            cols = {name: [] for name in names}
        return cls(**cols)

    def __len__(self):
        return self.n

    @cached_property
    def stash(self) -> Stash:
        """What the metrics worked out of these columns (``stash.py``),
        kept as long as they are."""
        return Stash()

    def take(self, mask):
        """The rows ``mask`` keeps (a bool mask or indices, in order); a
        lazy set stays lazy: only its columns already read are copied."""
        if self.__dict__.get("_load") is None:
            return type(self)(**{name: getattr(self, name)[mask] for name in self.SPEC})
        mask = np.asarray(mask)
        # indices are the rows themselves (no 8-byte range of every row made to index it)
        rows = mask.astype(np.int64, copy=False) if mask.dtype.kind in "iu" else np.arange(self.n)[mask]
        index = self._index[rows] if self._index is not None else rows
        return type(self).lazy(len(rows), self._load, index, {k: v[mask] for k, v in self._read().items()},
                               self.__dict__.get("_load_at"))


class DecisionArrays(Columns):
    SPEC = DECISION_COLUMNS


class RollArrays(Columns):
    SPEC = ROLL_COLUMNS


def release_columns(selection, keep_decisions=()) -> None:
    """Let go of the decision and roll columns read so far (read again by
    whoever names them next; what the metrics derived from them stays
    memoized) but the decision columns ``keep_decisions``: between the
    report's sections and the summary's cards, so that the peak memory is
    one part's columns, not every column any part read."""
    for part, keep in ((getattr(selection, "decisions", None), keep_decisions),
                       (getattr(selection, "rolls", None), ())):
        release = getattr(part, "release", None)
        if release is not None:
            release(keep)


def position_ids_at(sel, idx) -> np.ndarray:
    """The position IDs of decisions ``idx`` of ``sel`` (an object array;
    None: none): the stored IDs where the selection carries them (each
    distinct one decoded once), else through the distinct positions of the
    whole selection (a sort of every decision's ID, which a few rows need
    not pay)."""
    idx = np.asarray(idx, dtype=np.int64)
    out = np.empty(len(idx), dtype=object)
    if not len(idx):
        return out
    raw = sel.decisions.values_at("position_id", idx)
    carried = raw != b""
    if carried.any():
        uniq, inverse = np.unique(raw[carried], return_inverse=True)
        names = np.array([u.decode() for u in uniq], dtype=object)
        out[carried] = names[inverse.reshape(-1)]
    if not carried.all():
        pos = sel.decisions.position[idx[~carried]]
        n = len(sel.positions)
        out[~carried] = [sel.positions[int(p)] if 0 <= p < n else None for p in pos]
    return out


class LazyPositions(Sequence):
    """The position IDs of a selection, read on first use: the store's
    distinct positions of 1.6 M decisions take a sort, which only the views
    that name positions pay (``DecisionArrays.position`` indexes them)."""

    def __init__(self, load):
        self._load, self._items = load, None

    def _list(self) -> list:
        if self._items is None:
            self._items = list(self._load())
            self._load = None
        return self._items

    def __getitem__(self, k):
        return self._list()[k]

    def __len__(self):
        return len(self._list())

    def __iter__(self):
        return iter(self._list())

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self):
        return repr(self._list())


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
    start_score: Optional[tuple] = None  # (s0, s1, crawford) of the first game; None: no game
    round: Optional[str] = None
    names: tuple = ()  # the players as the filter knows them (aliases merged)
    imported_at: Optional[str] = None
    analysis_source: Optional[str] = None  # the chosen analysis' source ("sgf", "gnubg", "xg" ...)

    @property
    def is_money(self) -> bool:
        return is_money(self.length)


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
    positions: list = field(default_factory=list)  # position IDs by DecisionArrays.position
    # every decision and roll of each match's analysis (not narrowed by --family, --collection or a
    # select_rows): what gnubg's game-record rows can be read from (game_record.selection_gnubg_rows)
    whole_analyses: bool = False
    # the depth check's evaluations a study selection stands on ({decision row id: evaluation},
    # metrics/verify.py; SPEC §16), None for any other; not an argument: a selection made from
    # another (dataclasses.replace) has none
    verified: Optional[dict] = field(default=None, init=False, repr=False, compare=False)

    @cached_property
    def stash(self) -> Stash:
        """What the metrics and views worked out of this selection
        (``stash.py``), kept as long as it is; not a field: a
        selection made from another (``dataclasses.replace``) starts empty."""
        return Stash()

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
