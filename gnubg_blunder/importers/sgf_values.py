"""The property values gnubg writes in its SGF files, parsed: small pure
parsers of one value each (analysis of a move or a cube decision, luck, match
info, result, rules, moves, game statistics, skill and luck marks).

The value layouts are described in ``docs/sgf-properties.md``; they were worked
out from real files written by gnubg 1.07.001 and 1.08.003 (see
``tests/fixtures/sgf/``).  The syntax around them (nodes, properties,
escapes) is read by :mod:`.sgf_syntax`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional, Sequence, Union

from ..errors import BlunderError
from .sgf_syntax import Node

__all__ = [
    "SgfValueError",
    "EvalContext",
    "MoveFilter",
    "RolloutContext",
    "RolloutResult",
    "MoveCandidate",
    "DoubleAnalysis",
    "GameResult",
    "Rules",
    "MoveValue",
    "parse_mi",
    "parse_analysis_move_list",
    "parse_int_value",
    "parse_move_candidate",
    "parse_double_analysis",
    "parse_luck",
    "parse_result",
    "parse_rules",
    "parse_move",
    "decode_point",
    "parse_point_list",
    "parse_marked_moves",
    "parse_cube_owner",
    "parse_game_stats",
    "checker_skill",
    "cube_skill",
    "luck_mark",
]


class SgfValueError(ValueError, BlunderError):
    """A property value does not have the layout gnubg writes."""


def _as_values(values: Union[str, Sequence[str]]) -> list:
    if values is None:
        raise SgfValueError("no value (property absent)")
    if isinstance(values, str):
        return [values]
    return list(values)


def _int(tok: str, what: str) -> int:
    try:
        return int(tok)
    except (TypeError, ValueError):
        raise SgfValueError(f"{what}: expected an integer, got {tok!r}") from None


def _float(tok: str, what: str) -> float:
    try:
        return float(tok)
    except (TypeError, ValueError):
        raise SgfValueError(f"{what}: expected a number, got {tok!r}") from None


_TOKEN = re.compile(r'"[^"]*"|\S+')


class _Tokens:
    """Whitespace-separated tokens of an analysis value ("..." is one token)."""

    def __init__(self, text: str, what: str):
        self.toks = _TOKEN.findall(text)
        self.i = 0
        self.what = what

    def more(self) -> bool:
        return self.i < len(self.toks)

    def peek(self) -> Optional[str]:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> str:
        if self.i >= len(self.toks):
            raise SgfValueError(f"{self.what}: value ends too early")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, word: str) -> None:
        tok = self.next()
        if tok != word:
            raise SgfValueError(f"{self.what}: expected {word!r}, got {tok!r}")

    def int(self) -> int:
        return _int(self.next(), self.what)

    def float(self) -> float:
        return _float(self.next(), self.what)

    def floats(self, count: int) -> tuple:
        return tuple(self.float() for _ in range(count))

    def flag(self) -> bool:
        return self.int() != 0

    def version(self) -> int:
        """``ver N`` if present, else 0 (files older than the version tag)."""
        if self.peek() == "ver":
            self.next()
            return self.int()
        return 0

    def end(self) -> None:
        if self.more():
            raise SgfValueError(f"{self.what}: unexpected {self.toks[self.i]!r} after the value")


_PLIES = re.compile(r"^(\d+)(C?)$")


@dataclass(frozen=True)
class EvalContext:
    """gnubg evaluation settings: ``<plies>[C] <deterministic> <noise> <prune>``."""

    plies: int
    cubeful: bool
    deterministic: bool
    noise: float
    prune: bool


def _plies(toks: _Tokens) -> tuple:
    tok = toks.next()
    m = _PLIES.match(tok)
    if m is None:
        raise SgfValueError(f"{toks.what}: expected plies like '2' or '2C', got {tok!r}")
    return int(m.group(1)), m.group(2) == "C"


def _eval_context_v3(toks: _Tokens) -> EvalContext:
    plies, cubeful = _plies(toks)
    deterministic = toks.flag()
    noise = toks.float()
    prune = toks.flag()
    return EvalContext(plies, cubeful, deterministic, noise, prune)


@dataclass(frozen=True)
class MoveFilter:
    """One level of a rollout move filter: ``<accept> <extra> <threshold>``."""

    accept: int
    extra: int
    threshold: float


@dataclass(frozen=True)
class RolloutContext:
    """The ``RC ...`` part of a rollout (``X ver 3``) value.

    Pairs are (player 0 = White, player 1 = Black). ``filters``/``late_filters``
    hold one MoveFilter per ply of the corresponding chequer context (empty
    when that context is 0-ply)."""

    cubeful: bool
    variance_reduction: bool
    initial: bool
    quasi_random: bool  # gnubg's "rotate" flag
    late_evals: bool
    truncate: bool
    truncate_plies: int
    truncate_bearoff2: bool
    truncate_bearoff_os: bool
    late_plies: int
    rng: str
    seed: int
    cube: tuple  # (EvalContext, EvalContext)
    chequer: tuple
    filters: tuple  # (tuple[MoveFilter, ...], tuple[MoveFilter, ...])
    late_cube: tuple
    late_chequer: tuple
    late_filters: tuple
    cube_truncation: Optional[EvalContext]
    chequer_truncation: Optional[EvalContext]


@dataclass(frozen=True)
class RolloutResult:
    """Numbers of a rollout: ``trials`` games, the 7 outputs and their standard
    errors: (win, win gammon, win backgammon, lose gammon, lose backgammon,
    cubeless equity, cubeful value). The cubeful value is MWC in match play and
    normalised equity in money play."""

    trials: int
    output: tuple
    stddev: tuple
    skip: Optional[int] = None  # "SK"
    context: Optional[RolloutContext] = None


_RC_NAMED = ("cube", "cheq", "filt", "latecube", "latecheq", "latefilt")


def _rollout_context(toks: _Tokens) -> RolloutContext:
    ints = [toks.int() for _ in range(10)]
    rng = toks.next()
    if not (len(rng) >= 2 and rng[0] == rng[-1] == '"'):
        raise SgfValueError(f"{toks.what}: expected the quoted RNG name in RC, got {rng!r}")
    seed = toks.int()
    parts: dict = {}
    while toks.more():
        key = toks.next()
        if key in ("cubetrunc", "cheqtrunc"):
            toks.expect("ver")
            ver = toks.int()
            parts[key] = _eval_context_by_version(toks, ver)
            continue
        m = re.match(r"^(cube|cheq|filt|latecube|latecheq|latefilt)([01])$", key)
        if m is None:
            raise SgfValueError(f"{toks.what}: unexpected {key!r} in the rollout context")
        kind, who = m.group(1), int(m.group(2))
        if kind in ("filt", "latefilt"):
            levels = []
            while toks.more() and re.match(r"^-?\d+$", toks.peek() or ""):
                levels.append(MoveFilter(toks.int(), toks.int(), toks.float()))
            parts[(kind, who)] = tuple(levels)
        else:
            toks.expect("ver")
            ver = toks.int()
            parts[(kind, who)] = _eval_context_by_version(toks, ver)

    def pair(kind, empty=None):
        return (parts.get((kind, 0), empty), parts.get((kind, 1), empty))

    return RolloutContext(
        cubeful=bool(ints[0]),
        variance_reduction=bool(ints[1]),
        initial=bool(ints[2]),
        quasi_random=bool(ints[3]),
        late_evals=bool(ints[4]),
        truncate=bool(ints[5]),
        truncate_plies=ints[6],
        truncate_bearoff2=bool(ints[7]),
        truncate_bearoff_os=bool(ints[8]),
        late_plies=ints[9],
        rng=rng[1:-1],
        seed=seed,
        cube=pair("cube"),
        chequer=pair("cheq"),
        filters=pair("filt", ()),
        late_cube=pair("latecube"),
        late_chequer=pair("latecheq"),
        late_filters=pair("latefilt", ()),
        cube_truncation=parts.get("cubetrunc"),
        chequer_truncation=parts.get("cheqtrunc"),
    )


def _eval_context_by_version(toks: _Tokens, ver: int) -> EvalContext:
    if ver >= 3:
        return _eval_context_v3(toks)
    # before ver 3: <plies>[C] <reduced> <deterministic> <noise>
    plies, cubeful = _plies(toks)
    toks.int()  # reduced evaluation, no longer used
    deterministic = toks.flag()
    noise = toks.float()
    return EvalContext(plies, cubeful, deterministic, noise, False)


@dataclass(frozen=True)
class MoveCandidate:
    """One candidate of an ``A[]`` list.

    ``move``: the letter pairs as written (mover's letters, see
    :func:`decode_point`). ``kind``: ``'E'`` evaluation, ``'X'`` rollout,
    ``'R'`` old-style rollout, ``None`` not evaluated.
    ``probs``: cubeless (win, win gammon, win bg, lose gammon, lose bg) for
    the mover after the move (for rollouts the first 5 outputs).
    ``score``: the equity gnubg ranks by, cubeful, normalised (EMG), mover's
    view (``E``: the written score; rollouts: the first ``Score`` number).
    ``eval_context``: the ``E`` settings; ``None`` for rollouts.
    ``score2``: rollouts only, the second ``Score`` number (gnubg's rScore2, the
    cubeless equity). ``rollout``: rollouts only, trials/outputs/std errors and
    the rollout context."""

    move: str
    kind: Optional[str]
    probs: Optional[tuple]
    score: Optional[float]
    eval_context: Optional[EvalContext] = None
    score2: Optional[float] = None
    rollout: Optional[RolloutResult] = None
    version: int = 0

    @property
    def is_rollout(self) -> bool:
        return self.kind in ("X", "R")

    @property
    def plies(self) -> Optional[int]:
        return self.eval_context.plies if self.eval_context else None

    @property
    def cubeful(self) -> Optional[bool]:
        if self.eval_context:
            return self.eval_context.cubeful
        if self.rollout and self.rollout.context:
            return self.rollout.context.cubeful
        return None

    @property
    def deterministic(self) -> Optional[bool]:
        return self.eval_context.deterministic if self.eval_context else None

    @property
    def noise(self) -> Optional[float]:
        return self.eval_context.noise if self.eval_context else None

    @property
    def prune(self) -> Optional[bool]:
        return self.eval_context.prune if self.eval_context else None

    @property
    def trials(self) -> Optional[int]:
        return self.rollout.trials if self.rollout else None


_MOVE_LETTERS = re.compile(r"^(?:[a-z]{2}){0,4}$")


def _rollout_numbers(toks: _Tokens, is_move: bool) -> tuple:
    """Parse ``[Score s s | Eq] Trials n ...`` after ``X ver N``."""
    score = score2 = None
    if is_move:
        toks.expect("Score")
        score, score2 = toks.float(), toks.float()
    else:
        toks.expect("Eq")
    toks.expect("Trials")
    trials = toks.int()
    return score, score2, trials


def _output_block(toks: _Tokens) -> tuple:
    toks.expect("Output")
    out = toks.floats(7)
    toks.expect("StdDev")
    sd = toks.floats(7)
    return out, sd


def _rollout_tail(toks: _Tokens) -> tuple:
    skip = None
    context = None
    if toks.peek() == "SK":
        toks.next()
        skip = toks.int()
    if toks.peek() == "RC":
        toks.next()
        context = _rollout_context(toks)
    toks.end()
    return skip, context


def _keyword_floats(text: str, keyword: str, count: int, what: str) -> Optional[tuple]:
    toks = _TOKEN.findall(text)
    if keyword not in toks:
        return None
    k = toks.index(keyword) + 1
    vals = toks[k:k + count]
    if len(vals) < count:
        raise SgfValueError(f"{what}: {keyword} needs {count} numbers")
    return tuple(_float(v, what) for v in vals)


def parse_move_candidate(value: str) -> MoveCandidate:
    """Parse one candidate value of ``A[]`` (everything after the played index)."""
    what = "A[] candidate"
    move, _, rest = value.partition(" ")
    if not _MOVE_LETTERS.match(move):
        raise SgfValueError(f"{what}: bad move letters {move!r}")
    toks = _Tokens(rest, what)
    if not toks.more():
        return MoveCandidate(move, None, None, None)
    kind = toks.next()
    if kind == "E":
        ver = toks.version()
        probs = toks.floats(5)
        score = toks.float()
        plies, cubeful = _plies(toks)
        toks.int()  # the former "reduced evaluation" field, written as 0
        deterministic = toks.flag()
        noise = toks.float()
        prune = toks.flag() if ver >= 2 else False
        toks.end()
        ctx = EvalContext(plies, cubeful, deterministic, noise, prune)
        return MoveCandidate(move, "E", probs, score, ctx, version=ver)
    if kind == "X":
        ver = toks.version()
        score, score2, trials = _rollout_numbers(toks, True)
        out, sd = _output_block(toks)
        skip, context = _rollout_tail(toks)
        result = RolloutResult(trials, out, sd, skip, context)
        return MoveCandidate(move, "X", out[:5], score, None, score2, result, ver)
    if kind == "R":
        # Old rollout layout (before "X"): only the keyword numbers are read.
        score_pair = _keyword_floats(rest, "Score", 2, what)
        trials_t = _keyword_floats(rest, "Trials", 1, what)
        out = _keyword_floats(rest, "Output", 7, what)
        sd = _keyword_floats(rest, "StdDev", 7, what)
        if out is None:
            raise SgfValueError(f"{what}: R rollout without Output")
        result = RolloutResult(int(trials_t[0]) if trials_t else 0, out, sd or (0.0,) * 7)
        score = score_pair[0] if score_pair else None
        score2 = score_pair[1] if score_pair else None
        return MoveCandidate(move, "R", out[:5], score, None, score2, result)
    raise SgfValueError(f"{what}: unknown analysis kind {kind!r}")


def parse_int_value(value: str, what: str) -> int:
    """An integer value such as ``A[]``'s played index."""
    return _int(value.strip(), what)


def parse_analysis_move_list(values: Sequence[str]) -> tuple:
    """Parse ``A[<played index>][<candidate>]...``.

    Returns ``(played_index, candidates)``: the 0-based index of the played
    move in the list, and a list of :class:`MoveCandidate` in file order."""
    values = _as_values(values)
    if not values:
        raise SgfValueError("A[]: no value")
    played = _int(values[0].strip(), "A[] played index")
    candidates = [parse_move_candidate(v) for v in values[1:]]
    if candidates and not 0 <= played < len(candidates):
        raise SgfValueError(f"A[]: played index {played} outside the {len(candidates)} candidates")
    return played, candidates


@dataclass(frozen=True)
class DoubleAnalysis:
    """A ``DA[]`` value: the cube decision of the player on roll, before the
    roll (on double/take/drop nodes: of the doubler).

    ``no_double`` and ``double_take`` are 7 outputs each: (win, win gammon,
    win bg, lose gammon, lose bg, cubeless equity, cubeful value); the cubeful
    value is MWC in match play and normalised equity in money play.
    Double/pass is not stored. ``kind`` is ``'E'`` (evaluation, settings in
    ``eval_context``) or ``'X'``/``'R'`` (rollout: ``trials``, std errors in
    ``*_stddev``, settings in ``rollout_context``)."""

    kind: str
    no_double: tuple
    double_take: tuple
    eval_context: Optional[EvalContext] = None
    trials: Optional[int] = None
    no_double_stddev: Optional[tuple] = None
    double_take_stddev: Optional[tuple] = None
    skip: Optional[int] = None
    rollout_context: Optional[RolloutContext] = None
    version: int = 0

    @property
    def is_rollout(self) -> bool:
        return self.kind in ("X", "R")

    @property
    def probs(self) -> tuple:
        """Cubeless probabilities before the roll (the no-double outputs)."""
        return self.no_double[:5]

    @property
    def nd_cubeful(self) -> float:
        return self.no_double[6]

    @property
    def dt_cubeful(self) -> float:
        return self.double_take[6]


def parse_double_analysis(value: Union[str, Sequence[str]]) -> DoubleAnalysis:
    """Parse a ``DA[]`` value (``E ver 3 ...`` evaluation or ``X ver 3 Eq ...``
    rollout)."""
    if not isinstance(value, str):
        vals = _as_values(value)
        if not vals:
            raise SgfValueError("DA[]: no value")
        value = vals[0]
    what = "DA[]"
    toks = _Tokens(value, what)
    kind = toks.next()
    if kind == "E":
        ver = toks.version()
        if ver < 2:
            toks.floats(4)  # four fields left over from older layouts
        plies, cubeful = _plies(toks)
        if ver < 3:
            toks.int()  # reduced evaluation, no longer used
        deterministic = toks.flag()
        noise = toks.float()
        prune = toks.flag() if ver >= 2 else False
        nd = toks.floats(7)
        dt = toks.floats(7)
        toks.end()
        return DoubleAnalysis("E", nd, dt, EvalContext(plies, cubeful, deterministic, noise, prune), version=ver)
    if kind == "X":
        ver = toks.version()
        _, _, trials = _rollout_numbers(toks, False)
        toks.expect("NoDouble")
        nd, nd_sd = _output_block(toks)
        toks.expect("DoubleTake")
        dt, dt_sd = _output_block(toks)
        skip, context = _rollout_tail(toks)
        return DoubleAnalysis("X", nd, dt, None, trials, nd_sd, dt_sd, skip, context, ver)
    if kind == "R":
        trials_t = _keyword_floats(value, "Trials", 1, what)
        parts = value.split("DoubleTake", 1)
        if len(parts) != 2 or "NoDouble" not in parts[0]:
            raise SgfValueError(f"{what}: R rollout without NoDouble/DoubleTake")
        nd_text = parts[0].split("NoDouble", 1)[1]
        nd = _keyword_floats(nd_text, "Output", 7, what)
        nd_sd = _keyword_floats(nd_text, "StdDev", 7, what)
        dt = _keyword_floats(parts[1], "Output", 7, what)
        dt_sd = _keyword_floats(parts[1], "StdDev", 7, what)
        if nd is None or dt is None:
            raise SgfValueError(f"{what}: R rollout without Output")
        return DoubleAnalysis("R", nd, dt, None, int(trials_t[0]) if trials_t else 0, nd_sd, dt_sd)
    raise SgfValueError(f"{what}: unknown analysis kind {kind!r}")


def parse_luck(value: Union[str, Sequence[str]]) -> Optional[float]:
    """``LU[]``: the luck of the roll for the mover, EMG. ``-inf`` (luck not
    computed) gives ``None``; any other number is returned as written (the
    builder refuses one no analysis writes, nan or inf, naming its game and
    move)."""
    if not isinstance(value, str):
        vals = _as_values(value)
        if not vals:
            raise SgfValueError("LU[]: no value")
        value = vals[0]
    v = _float(value.strip(), "LU[]")
    if math.isinf(v) and v < 0:
        return None
    return v


_MI_INT_KEYS = ("length", "game", "ws", "bs")


def parse_mi(values: Union[str, Sequence[str]]) -> dict:
    """``MI[length:N][game:G][ws:S0][bs:S1]`` -> ``{'length': N, 'game': G,
    'ws': S0, 'bs': S1}`` (ints; a missing one is 0 as in gnubg's reader;
    other ``key:value`` pairs are kept as strings). ``length`` 0 = money."""
    result = {k: 0 for k in _MI_INT_KEYS}
    for item in _as_values(values):
        key, sep, val = item.partition(":")
        if not sep:
            raise SgfValueError(f"MI[]: expected key:value, got {item!r}")
        key = key.strip()
        if key in _MI_INT_KEYS:
            result[key] = _int(val.strip(), f"MI[{key}]")
        else:
            result[key] = val
    return result


@dataclass(frozen=True)
class GameResult:
    """``RE[W+2]``, ``RE[B+1R]``: winner ``'W'``/``'B'`` (player 0/1), points
    won (cube and gammons included), whether the game ended by resignation."""

    winner: str
    points: int
    resigned: bool

    @property
    def winner_player(self) -> int:
        return 0 if self.winner == "W" else 1


_RE = re.compile(r"^([WBwb])\+(\d+)([Rr]?)$")


def parse_result(value: Union[str, Sequence[str]]) -> GameResult:
    """Parse ``RE[]`` as gnubg writes it: ``<W|B>+<points>[R]``."""
    if not isinstance(value, str):
        vals = _as_values(value)
        if not vals:
            raise SgfValueError("RE[]: no value")
        value = vals[0]
    m = _RE.match(value.strip())
    if m is None:
        raise SgfValueError(f"RE[]: expected W+N or B+N with optional R, got {value!r}")
    return GameResult(m.group(1).upper(), int(m.group(2)), bool(m.group(3)))


_VARIATIONS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")


@dataclass(frozen=True)
class Rules:
    """``RU[]``: colon-separated rule names (absent RU = all defaults)."""

    crawford: bool = False  # the Crawford rule is in use (match)
    crawford_game: bool = False  # this game is the Crawford game
    jacoby: bool = False
    cube_use: bool = True  # False with "NoCube"
    variation: str = "Standard"
    names: tuple = ()  # every name, in file order
    unknown: tuple = ()  # names gnubg does not know


def parse_rules(value: Union[str, Sequence[str], None]) -> Rules:
    """Parse ``RU[]``, e.g. ``Crawford:CrawfordGame`` or
    ``NoCube:Jacoby:Nackgammon``. ``None`` (no RU) gives the defaults."""
    if value is None:
        return Rules()
    if not isinstance(value, str):
        vals = _as_values(value)
        value = vals[0] if vals else ""
    names = tuple(n for n in value.split(":") if n)
    kw: dict = {"names": names}
    unknown = []
    for name in names:
        if name == "Crawford":
            kw["crawford"] = True
        elif name == "CrawfordGame":
            kw["crawford_game"] = True
        elif name == "Jacoby":
            kw["jacoby"] = True
        elif name == "NoCube":
            kw["cube_use"] = False
        elif name in _VARIATIONS:
            kw["variation"] = name
        else:
            unknown.append(name)
    kw["unknown"] = tuple(unknown)
    return Rules(**kw)


@dataclass(frozen=True)
class MoveValue:
    """The value of a ``W[]``/``B[]`` move property.

    ``kind``: ``'move'``, ``'double'``, ``'take'`` or ``'drop'``. For moves:
    ``dice`` (d1, d2) and ``steps``: (from, to) pairs in the mover's point
    numbers (1-24, 25 = bar, 0 = off); ``()`` is a dance (no legal move)."""

    player: str
    kind: str
    dice: Optional[tuple] = None
    steps: tuple = ()
    letters: str = ""

    @property
    def is_dance(self) -> bool:
        return self.kind == "move" and not self.steps


def decode_point(letter: str, player: str) -> int:
    """A move/board letter as a point number from ``player``'s side
    (``'W'``/``'B'``): 1-24, 25 = bar (``y``), 0 = off (``z``).
    White: ``a`` = 1 ... ``x`` = 24; Black: ``x`` = 1 ... ``a`` = 24."""
    if player not in ("W", "B"):
        raise SgfValueError(f"player must be 'W' or 'B', got {player!r}")
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    if len(letter) != 1 or not "a" <= letter <= "x":
        raise SgfValueError(f"not a point letter: {letter!r}")
    if player == "W":
        return ord(letter) - ord("a") + 1
    return ord("x") - ord(letter) + 1


def parse_move(value: str, player: str) -> MoveValue:
    """Parse ``W[...]``/``B[...]``: ``double``, ``take``, ``drop`` or
    ``<d1><d2><from><to>...`` (up to four letter pairs; none = dance)."""
    if player not in ("W", "B"):
        raise SgfValueError(f"player must be 'W' or 'B', got {player!r}")
    v = value.strip()
    if v in ("double", "take", "drop"):
        return MoveValue(player, v)
    if len(v) < 2 or not ("1" <= v[0] <= "6" and "1" <= v[1] <= "6"):
        raise SgfValueError(f"{player}[]: expected two dice 1-6 then the move, got {value!r}")
    letters = v[2:]
    if not _MOVE_LETTERS.match(letters):
        raise SgfValueError(f"{player}[]: bad move letters {letters!r}")
    steps = tuple(
        (decode_point(letters[k], player), decode_point(letters[k + 1], player)) for k in range(0, len(letters), 2)
    )
    return MoveValue(player, "move", (int(v[0]), int(v[1])), steps, letters)


def parse_point_list(values: Union[str, Sequence[str]]) -> list:
    """``AE``/``AW``/``AB`` values as a list of letters, one per checker (AW/AB)
    or point (AE), a compressed ``a:y`` range expanded. Decode each with
    :func:`decode_point` (AW: White's, AB: Black's point numbers)."""
    out = []
    for v in _as_values(values):
        v = v.strip()
        if len(v) == 3 and v[1] == ":":
            lo, hi = v[0], v[2]
            if not ("a" <= lo <= "y" and "a" <= hi <= "y" and lo <= hi):
                raise SgfValueError(f"bad point range {v!r}")
            out.extend(chr(c) for c in range(ord(lo), ord(hi) + 1))
        elif len(v) == 1 and "a" <= v <= "y":
            out.append(v)
        else:
            raise SgfValueError(f"bad point {v!r}")
    return out


def parse_marked_moves(value: Union[str, Sequence[str]]) -> list:
    """``MR[]``: candidates marked for rollout, as **0-based** indices into
    the ``A[]`` candidates (the file writes them 1-based: ``MR[5 7 ]``)."""
    if not isinstance(value, str):
        vals = _as_values(value)
        value = vals[0] if vals else ""
    return [_int(tok, "MR[]") - 1 for tok in value.split()]


def parse_cube_owner(value: str) -> int:
    """``CP[c|w|b]`` -> -1 centred, 0 White (player 0), 1 Black (player 1)."""
    v = value.strip()
    try:
        return {"c": -1, "w": 0, "b": 1}[v]
    except KeyError:
        raise SgfValueError(f"CP[]: expected c, w or b, got {value!r}") from None


_GS_SKILL = ("very bad", "bad", "doubtful", "unmarked")
_GS_LUCK = ("verybad", "bad", "unmarked", "good", "verygood")
_GS_CUBE_ERRORS = (
    "missed-double-below-cp",
    "missed-double-above-cp",
    "wrong-double-below-dp",
    "wrong-double-above-tg",
    "wrong-take",
    "wrong-drop",
)


def parse_game_stats(values: Union[str, Sequence[str]]) -> dict:
    """``GS[M:...][C:...][D:...]``: gnubg's statistics of one game.

    Every number comes as a (White, Black) pair. Returns a dict with the
    sections present: ``'moves'`` (``unforced-moves``, ``total-moves``,
    ``very bad``, ``bad``, ``doubtful``, ``unmarked``, ``error-skill`` (EMG),
    ``error-cost`` (MWC/points)); ``'cube'`` (``total-cube``, ``n-doubles``,
    ``n-takes``, ``n-drops``, the six error counts ``missed-double-below-cp``
    ... ``wrong-drop`` and ``err-<category>-skill``/``-cost``); ``'dice'``
    (``verybad`` ... ``verygood`` counts, ``luck`` and ``luck-cost``; ``None``
    where the file has ``-inf``)."""
    out: dict = {}
    for item in _as_values(values):
        sec, sep, body = item.partition(":")
        if not sep:
            raise SgfValueError(f"GS[]: expected M:, C: or D:, got {item[:20]!r}")
        toks = body.split()
        what = f"GS[{sec}:]"

        def ints(k, n, toks=toks, what=what):
            return [_int(t, what) for t in toks[k:k + n]]

        def floats(k, n, toks=toks, what=what):
            return [_float(t, what) for t in toks[k:k + n]]

        if sec == "M":
            if len(toks) != 16:
                raise SgfValueError(f"{what}: expected 16 numbers, got {len(toks)}")
            i = ints(0, 12)
            f = floats(12, 4)
            d = {"unforced-moves": (i[0], i[1]), "total-moves": (i[2], i[3])}
            for k, name in enumerate(_GS_SKILL):
                d[name] = (i[4 + 2 * k], i[5 + 2 * k])
            d["error-skill"] = (f[0], f[2])
            d["error-cost"] = (f[1], f[3])
            out["moves"] = d
        elif sec == "C":
            if len(toks) != 44:
                raise SgfValueError(f"{what}: expected 44 numbers, got {len(toks)}")
            i = ints(0, 20)
            f = floats(20, 24)
            d = {
                "total-cube": (i[0], i[1]),
                "n-doubles": (i[2], i[3]),
                "n-takes": (i[4], i[5]),
                "n-drops": (i[6], i[7]),
            }
            for k, name in enumerate(_GS_CUBE_ERRORS):
                d[name] = (i[8 + 2 * k], i[9 + 2 * k])
            for k, name in enumerate(_GS_CUBE_ERRORS):
                d[f"err-{name}-skill"] = (f[2 * k], f[12 + 2 * k])
                d[f"err-{name}-cost"] = (f[2 * k + 1], f[12 + 2 * k + 1])
            out["cube"] = d
        elif sec == "D":
            if len(toks) != 14:
                raise SgfValueError(f"{what}: expected 14 numbers, got {len(toks)}")
            i = ints(0, 10)
            f = [None if (math.isinf(x) and x < 0) else x for x in floats(10, 4)]
            d = {name: (i[2 * k], i[2 * k + 1]) for k, name in enumerate(_GS_LUCK)}
            d["luck"] = (f[0], f[2])
            d["luck-cost"] = (f[1], f[3])
            out["dice"] = d
        # other sections: ignored, as gnubg does
    return out


def _mark(node: Node, severe: str, mild: str) -> Optional[str]:
    if severe in node:
        return "very bad" if (node.get(severe) or "").strip() == "2" else "bad"
    if mild in node:
        return "doubtful"
    return None


def checker_skill(node: Node) -> Optional[str]:
    """Skill mark from ``BM[1|2]``/``DO[]``: ``'very bad'``, ``'bad'``,
    ``'doubtful'`` or ``None``. On a move node it judges the chequer play; on a
    ``double``/``take``/``drop`` node gnubg writes that cube decision's mark
    here (BM/DO), not in BC/DC."""
    return _mark(node, "BM", "DO")


def cube_skill(node: Node) -> Optional[str]:
    """Cube mark of a move node from ``BC[1|2]``/``DC[]`` (the mover's cube
    decision before the roll, i.e. a missed double)."""
    return _mark(node, "BC", "DC")


def luck_mark(node: Node, player: str) -> Optional[str]:
    """Luck mark of the roll for ``player`` (the mover, ``'W'``/``'B'``):
    ``'verygood'``, ``'good'``, ``'bad'``, ``'verybad'`` or ``None``.
    The file says who the roll was good for: ``GW[n]`` good for White,
    ``GB[n]`` good for Black, ``n`` = 2 very."""
    if player not in ("W", "B"):
        raise SgfValueError(f"player must be 'W' or 'B', got {player!r}")
    for prop, good_for in (("GW", "W"), ("GB", "B")):
        if prop in node:
            very = (node.get(prop) or "").strip() == "2"
            if good_for == player:
                return "verygood" if very else "good"
            return "verybad" if very else "bad"
    return None
