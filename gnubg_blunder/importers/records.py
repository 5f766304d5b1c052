"""What a gnubg source says about a match, before it becomes decisions.

Both gnubg sources (the live ``gnubg.match()`` dict and an SGF file) are read
into these records first; :mod:`gnubg_blunder.importers.build` then turns
them into the decision model in one place, so the same match through either
source gives the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..errors import BlunderError


class MatchImportError(BlunderError):
    """A file or match that cannot be imported; the message is one line for the user."""


class NoAnalysis(MatchImportError):
    """A match stored nowhere because it holds no analysis: ``watch`` says
    how to analyse it (the message stays import's)."""


@dataclass
class SourceCandidate:
    steps: tuple  # single-checker (from, to) steps, gnubg convention (25 bar, 0 off)
    equity: Optional[float]  # cubeful EMG for the mover (None: needs ``mwc``)
    mwc: Optional[float] = None  # cubeful MWC (rollouts in match play), converted by the builder
    probs: Optional[tuple] = None
    depth: Optional[str] = None  # "2-ply", "rollout"
    # how the source's file writes the equity made from ``mwc`` ("%.10g": gnubg's SGF writer for rollouts);
    # None: kept as converted
    written: Optional[str] = None


@dataclass
class SourceCandidates:
    """A candidate list kept as read (SGF): each play as its letters, the
    mover's two a step (``codec/candidates.py``), with its numbers; no play
    is resolved until the builder needs it (the played and the first)."""

    letters: list  # str per candidate
    equities: list  # EMG or None
    probs: list  # 5-tuple or None
    depths: list  # str or None

    def __len__(self) -> int:
        return len(self.letters)


@dataclass
class SourceCube:
    """The player on roll's cube analysis, as the source stores it."""

    nd: float  # no double: MWC in match play, normalised equity for money
    dt: float  # double/take: same units
    in_mwc: bool  # True when nd/dt are MWC and must be normalised with the MET
    depth: Optional[str] = None
    probs: Optional[tuple] = None


@dataclass
class SourceRecord:
    action: str  # "move", "double", "take", "drop", "resign", "set"
    player: Optional[int] = None
    dice: Optional[tuple] = None
    steps: Optional[tuple] = None  # the played move; () = no legal play (dance)
    candidates: Optional[list] = None  # list[SourceCandidate] or SourceCandidates; None = not analysed
    played_index: Optional[int] = None  # the source's own index of the played move
    cube: Optional[SourceCube] = None
    luck: Optional[float] = None  # EMG; None = unknown
    comment: Optional[str] = None
    board: Optional[str] = None  # position ID the source gives (live match; set board)
    set_cube_value: Optional[int] = None
    set_cube_owner: Optional[int] = None  # -1 centred
    set_turn: Optional[int] = None  # set-board records: the player on roll
    result_board: Optional[str] = None  # the position the move left (mover on roll), where the source says
    xg_counted: Optional[bool] = None  # XG's own verdict: does this checker play count?


@dataclass
class SourceGame:
    score: tuple  # points of (player 0, player 1) before the game
    crawford: bool = False
    winner: Optional[int] = None
    points: Optional[int] = None
    resigned: bool = False
    initial_cube: int = 1
    records: list = field(default_factory=list)


@dataclass
class SourceMatch:
    players: tuple
    length: int
    source: str
    games: list = field(default_factory=list)
    engine: str = "gnubg"
    engine_version: Optional[str] = None
    date: Optional[str] = None
    event: Optional[str] = None
    round: Optional[str] = None
    place: Optional[str] = None
    annotator: Optional[str] = None
    comment: Optional[str] = None
    crawford_rule: bool = False
    jacoby: bool = False
    variation: str = "Standard"
    ratings: tuple = (None, None)
    source_path: Optional[str] = None
    kind: str = "match"  # "match", or "position" for a one-position file (.xgp)
