"""The one decision model every source is mapped to (match, game, decision, roll).

An importer (gnubg's live match, an SGF file, an XG file) produces a
:class:`Match`; the store keeps it; metrics read it back as arrays.  Every
field that a source does not have is ``None`` (unknown), never 0.

Conventions (all sources):

* Players are 0 and 1.  Player 0 is gnubg's X, SGF's White (``PW``), XG's
  first player.
* Equities are EMG (normalised to the cube), from the decider's side.
* Cube equities ``nd``/``dt``/``dp`` are the player on roll's (the doubler's)
  cubeful equities normalised to the cube *before* the double (SPEC §1);
  ``dp`` is +1 by definition.
* A position is gnubg's position ID of the board *before* the decision, with
  the decider on roll (as in ``gnubg.match()`` records).
* ``mwc_per_emg`` = (MWC after winning v points − MWC after losing v points)/2
  at the decision's score and cube v (for take/pass: the cube before the
  double).  An error of e EMG costs ``e * mwc_per_emg`` of MWC.  ``None`` for
  money play, which has no MWC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Optional
from .lazy import lazy

_hashlib = lazy("hashlib")

# Decision kinds (SPEC §1: "a checker play, a cube decision of the player on
# roll (no double / double), or a response (take / pass)").
CHECKER = "checker"
NO_DOUBLE = "nodouble"
DOUBLE = "double"
TAKE = "take"
PASS = "pass"
DECISION_KINDS = (CHECKER, NO_DOUBLE, DOUBLE, TAKE, PASS)
CUBE_KINDS = (NO_DOUBLE, DOUBLE, TAKE, PASS)

# ``Decision.beaver_take``: a take's part in a beaver chain (money; SPEC §2,
# docs/figures.md "Beavers").  The builder sets it, metrics/counting.py reads it.
BEAVER_NONE = 0
# The doubler's answer to a beaver (the take that closes the chain): not a
# decision of ours; gnubg's statistics file it as that player's take.
BEAVER_CLOSE = 1
# The beaver itself: the responder's take decision (ours); gnubg's statistics
# have no decision there.
BEAVER = 2

# Where a match came from.
SOURCE_SGF = "sgf"
SOURCE_XG = "xg"
SOURCE_GNUBG = "gnubg"  # the live match inside gnubg



def is_money(length) -> bool:
    """The money rule: a session of length 0 is money play; it has no MWC,
    no L₇, no Elo (SPEC §1, §5).  Decided by the match, never by whether a
    decision carries an MWC factor."""
    return length == 0  # an int, or an array of lengths


def is_redouble(kind: str, cube_owner: int, player: int) -> bool:
    """A cube decision whose double is a redouble: the doubler owns the cube
    already.  The doubler is the decider at a double / no double and the
    decider's opponent at a take / pass (``cube_owner`` -1 centred, 0, 1;
    docs/quiz.md, docs/anki.md)."""
    if kind in (NO_DOUBLE, DOUBLE):
        return cube_owner == player
    if kind in (TAKE, PASS):
        return cube_owner in (0, 1) and cube_owner != player
    return False


def cube_ask(kind: str, redouble: bool) -> str:
    """The cube question, lower case: "double or no double", "redouble or
    no redouble", "take or pass"."""
    if kind in (TAKE, PASS):
        return "take or pass"
    return "redouble or no redouble" if redouble else "double or no double"

@dataclass
class Candidate:
    """One play of an analysis' candidate list."""

    move: str  # standard notation, e.g. "24/23 13/9"
    equity: Optional[float]  # cubeful EMG for the mover after the play
    position_id: Optional[str] = None  # resulting position, mover still on roll
    probs: Optional[tuple] = None  # cubeless (win, win g, win bg, lose g, lose bg)
    depth: Optional[str] = None  # "0-ply", "2-ply", "rollout", ...


class LazyCandidates(Sequence):
    """A candidate list as an importer read it: each play kept as its steps
    (letters, ``codec/candidates.py``) with its numbers, its notation and
    resulting board worked out when a :class:`Candidate` is asked for
    (``resolve(letters) -> (notation, position ID)``).  The importer resolves
    the played and the first play; the store keeps the rest as read."""

    __slots__ = ("letters", "_equities", "probs", "depths", "resolve", "known")

    def __init__(self, letters: list, equities: list, probs: list, depths: list, resolve, known=None):
        self.letters = letters
        self._equities = equities
        self.probs = probs
        self.depths = depths
        self.resolve = resolve
        self.known = dict(known or {})  # index -> (notation, position ID)

    def __len__(self) -> int:
        return len(self.letters)

    def equities(self) -> list:
        return self._equities

    def resolved(self, k: int) -> tuple:
        got = self.known.get(k)
        if got is None:
            got = self.known[k] = self.resolve(self.letters[k])
        return got

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self.letters):
            raise IndexError(k)
        move, pid = self.resolved(k)
        return Candidate(move=move, equity=self._equities[k], position_id=pid, probs=self.probs[k],
                         depth=self.depths[k])

    def __eq__(self, other):
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"LazyCandidates({len(self)} plays)"


@dataclass
class Decision:
    """One choice by one player."""

    kind: str  # one of DECISION_KINDS
    player: int  # the decider: 0 or 1
    game: int  # game number in the match, from 0
    seq: int  # order of the source record within its game, from 0
    position_id: Optional[str]  # board before the decision, decider on roll
    cube_value: int  # before the decision (before the double for take/pass)
    cube_owner: int  # -1 centred, 0 or 1
    score_self: int  # points already won by the decider at the start of the game
    score_opp: int
    crawford: bool  # this game is the Crawford game
    dice: Optional[tuple] = None  # checker plays: (d1, d2)
    played_move: Optional[str] = None  # checker plays: notation of the move made
    best_move: Optional[str] = None  # checker: first candidate; cube: best action
    error: Optional[float] = None  # e of SPEC §1 (EMG, >= 0); None = unknown
    mwc_per_emg: Optional[float] = None  # None for money
    nd: Optional[float] = None  # cube decisions: cubeful equities of the doubler
    # cube decisions: the doubler's cubeless chances before the double (win, win g, win bg, lose g, lose bg)
    cube_probs: Optional[tuple] = None
    dt: Optional[float] = None
    dp: Optional[float] = None
    n_legal: Optional[int] = None  # legal plays counted by the move generator
    candidates: list = field(default_factory=list)  # list[Candidate]
    played_index: Optional[int] = None  # index of the played move in candidates
    xg_counted: Optional[bool] = None  # XG's own verdict for checker plays
    depth: Optional[str] = None  # depth of this decision's analysis
    beaver_take: int = BEAVER_NONE  # BEAVER_CLOSE / BEAVER: a take's part in a beaver chain (above)
    gnubg_dead_cube: bool = False  # gnubg's statistics see no cube access here (after beavers)
    comment: Optional[str] = None
    duration: Optional[float] = None  # seconds, where a source has them
    # derived labels (labels.py): recomputed, never edited
    phase: Optional[str] = None
    game_plan: Optional[str] = None
    theme: Optional[str] = None

    @property
    def n_candidates(self) -> int:
        return len(self.candidates)

    @property
    def equities(self) -> list:
        """The candidates' equities in list order (None unknown), no play
        resolved (:class:`LazyCandidates`)."""
        c = self.candidates
        return c.equities() if isinstance(c, LazyCandidates) else [x.equity for x in c]

    @property
    def equity_spread(self) -> Optional[float]:
        """Best minus worst candidate equity (the forced rule of SPEC §2)."""
        all_eqs = self.equities
        eqs = [e for e in all_eqs if e is not None]
        if len(eqs) != len(all_eqs) or not eqs:
            return None
        return max(eqs) - min(eqs)


@dataclass
class Roll:
    """One roll of the dice (a move record, dances and forced plays included).

    Luck belongs to rolls, not decisions (SPEC §4); gnubg's "total moves"
    (the Snowie denominator, SPEC §3) counts rolls."""

    player: int
    game: int
    seq: int
    dice: tuple
    position_id: Optional[str]  # before the roll's play, roller on roll
    position_after: Optional[str]  # after the play, roller still on roll
    cube_value: int
    luck: Optional[float] = None  # EMG, None = unknown
    mwc_per_emg: Optional[float] = None  # None for money


@dataclass
class Game:
    number: int  # from 0
    score: tuple  # (player 0, player 1) points before the game
    crawford: bool = False  # this is the Crawford game
    winner: Optional[int] = None  # None = unfinished
    points: Optional[int] = None  # points won by the winner
    resigned: bool = False
    decisions: list = field(default_factory=list)  # list[Decision]
    rolls: list = field(default_factory=list)  # list[Roll]


@dataclass
class Analysis:
    """Who analysed the match and how (SPEC §14 'engine and minimum depth')."""

    engine: str  # "gnubg" or "xg"
    engine_version: Optional[str] = None
    depth: Optional[float] = None  # in gnubg plies (rollouts rank above any ply)
    depth_label: Optional[str] = None  # "0-ply", "2-ply", "rollout", "mixed"
    met: Optional[str] = None  # match equity table the conversions used
    met_assumed: bool = False  # the source does not say which MET it used


@dataclass
class Match:
    players: tuple  # (name of player 0, name of player 1)
    length: int  # 0 = money session
    source: str  # SOURCE_*
    games: list = field(default_factory=list)  # list[Game]
    analysis: Optional[Analysis] = None
    date: Optional[str] = None  # ISO date
    event: Optional[str] = None
    round: Optional[str] = None
    place: Optional[str] = None
    annotator: Optional[str] = None
    comment: Optional[str] = None
    crawford_rule: bool = False
    jacoby: bool = False
    variation: str = "Standard"
    source_path: Optional[str] = None
    ratings: tuple = (None, None)
    kind: str = "match"  # "match", or "position" for a one-position file (.xgp)
    warnings: list = field(default_factory=list)  # lines for the user: what the import changed (an impossible date)

    @property
    def is_money(self) -> bool:
        return is_money(self.length)

    def decisions(self):
        for g in self.games:
            yield from g.decisions

    def rolls(self):
        for g in self.games:
            yield from g.rolls

    def final_score(self) -> tuple:
        """Points of each player at the end: the first game's starting score
        plus every game's points (SPEC §4: results from points)."""
        if not self.games:
            return (0, 0)
        s = list(self.games[0].score)
        for g in self.games:
            if g.winner is not None and g.points:
                s[g.winner] += g.points
        return tuple(s)

    def winner(self) -> Optional[int]:
        """SPEC §4: whoever reaches the length; money: more points; else None."""
        a, b = self.final_score()
        if self.length:
            if a >= self.length:
                return 0
            if b >= self.length:
                return 1
            return None
        if a > b:
            return 0
        if b > a:
            return 1
        return None


def match_identity(match: "Match") -> str:
    """A match's identity: its length, dice and moves (SPEC: names are spelled
    differently across exports, so they are not part of it).  Moves are taken
    as the positions they leave, so "8/5 6/5" and "8/5(2)"-style spellings and
    dice order do not matter."""
    h = _hashlib.sha256()
    h.update(f"length={match.length}".encode())
    if match.kind != "match":
        # a position file: its position, score, cube and roll are the identity
        h.update(f"|kind={match.kind}".encode())
        for d in match.decisions():
            h.update(f"|{d.kind}:{d.position_id}:{d.dice}:{d.score_self}-{d.score_opp}:{d.cube_value}".encode())
    for g in match.games:
        h.update(f"|game={g.number}".encode())
        for r in g.rolls:
            d = sorted(r.dice)
            h.update(f";{d[0]}{d[1]}:{r.position_after}".encode())
    return h.hexdigest()


# How many of a match's first moves (its first game's marker included) its
# opening key is made of: enough that matches sharing an opening key are
# nearly always saves of one match (docs/storage.md "A match saved twice").
OPENING_MOVES = 12


def match_moves(match: "Match") -> list:
    """The match's moves as match identity reads them: a marker for each
    game, then each roll's dice (in order) and the position it left.  A later
    save of a match (docs/storage.md "A match saved twice") is a file whose
    moves begin with the stored match's."""
    out = []
    for g in match.games:
        out.append(f"game={g.number}")
        out += [move_token(r.dice, r.position_after) for r in g.rolls]
    return out


def move_token(dice, position_after) -> str:
    d = sorted(dice)
    return f"{d[0]}{d[1]}:{position_after}"


def opening_key(length: int, start_score, moves: list) -> str:
    """The key of a match's length, starting score and first
    ``OPENING_MOVES`` moves (``matches.opening``, indexed): the saves of one
    match share the key of the shorter one's first moves."""
    h = _hashlib.sha256(f"length={length}|score={start_score[0]}-{start_score[1]}".encode())
    for token in moves[:OPENING_MOVES]:
        h.update(f";{token}".encode())
    return h.hexdigest()[:32]


def opening_keys(match: "Match") -> tuple:
    """(the match's own opening key, the keys a stored earlier save of it may
    have: those of its first 1..OPENING_MOVES moves); ((None, ()) for a
    position file or a match without games."""
    if match.kind != "match" or not match.games:
        return None, ()
    moves = match_moves(match)
    score = match.games[0].score
    own = opening_key(match.length, score, moves)
    return own, tuple(opening_key(match.length, score, moves[:n]) for n in range(1, min(len(moves), OPENING_MOVES) + 1))
