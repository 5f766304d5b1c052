"""The records of ``temp.xg`` (2560 bytes each, ``TSaveRec``): HeaderMatch,
HeaderGame, Cube, Move, FooterGame, FooterMatch, read field by field at the
offsets of the layout facts.

Field names are the names of the facts (``ActiveP``, ``ErrMove``, ...), so
that a field can be looked up in the facts table by name. A field that the
file version does not have is ``None``. The parsers read a buffer of
``RECORD_SIZE`` bytes and never raise on its content; the container
(:mod:`.container`) checks sizes, types and the version first.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

from .binary import (
    _ansi,
    _bool,
    _f32,
    _f32s,
    _f64,
    _f64s,
    _i8,
    _i16,
    _i32,
    _ints,
    _pos,
    _u32,
    _wide,
    tdatetime_to_iso,
)

RECORD_SIZE = 2560  # one temp.xg record (TSaveRec)
ROLLOUT_RECORD_SIZE = 2184  # one temp.xgr record (TRolloutContext)
DMLI_MAGIC = 0x494C4D44  # HeaderMatch.Magic, "DMLI" little-endian
# The facts give 40 as the highest file version. They give no lowest one but
# mark fields as introduced at v8, so versions below 8 exist; 1 is taken as the
# lowest (an inference, see docs/xg-reader.md).
MIN_VERSION = 1
MAX_VERSION = 40
MONEY_MATCH_LENGTH = 99999
NOT_ANALYSED = -1000.0  # value of an error field that was not analysed

ENTRY_TYPES = {
    0: "HeaderMatch",
    1: "HeaderGame",
    2: "Cube",
    3: "Move",
    4: "FooterGame",
    5: "FooterMatch",
}


def move_pairs(moves: Sequence[int]) -> Tuple[Tuple[int, int], ...]:
    """(from, to) pairs of an XG move list (``Move.Moves`` or one row of
    ``EngineStructBestMove.Moves``), up to the first ``from == -1`` (the
    facts' end mark) or the first ``from == to`` (not a move: the candidate
    row of a dance is all 0 in files of version 30 and 32)."""
    out = []
    for k in range(0, len(moves) - 1, 2):
        if moves[k] == -1 or moves[k] == moves[k + 1]:
            break
        out.append((moves[k], moves[k + 1]))
    return tuple(out)


@dataclass(frozen=True)
class TimeSetting:
    """HeaderMatch @1912, file version 25 and later (32 bytes)."""

    ClockType: int
    PerGame: bool
    Time1: int
    Time2: int
    Penalty: int
    TimeLeft1: int
    TimeLeft2: int
    PenaltyMoney: int


@dataclass(frozen=True)
class HeaderMatch:
    """EntryType 0. ``Version`` is the file version; fields introduced at a
    later version than the file's are ``None``."""

    index: int
    SPlayer1: str
    SPlayer2: str
    MatchLength: int
    Variation: int
    Crawford: bool
    Jacoby: bool
    Beaver: bool
    AutoDouble: bool
    Elo1: float
    Elo2: float
    Exp1: int
    Exp2: int
    Date: Optional[str]  # ISO date, None for 0
    DateTime: Optional[str]  # ISO date and time (to the second)
    DateRaw: float  # the TDateTime as stored
    SEvent: str
    GameId: int
    CompLevel1: int
    CompLevel2: int
    CountForElo: bool
    AddtoProfile1: bool
    AddtoProfile2: bool
    SLocation: str
    GameMode: int
    Imported: bool
    SRound: str
    Invert: int
    Version: int
    Magic: int
    MoneyInitG: int
    MoneyInitScore: Tuple[int, int]
    Entered: bool
    Counted: bool
    UnratedImp: bool
    CommentHeaderMatch: int
    CommentFooterMatch: int
    isMoneyMatch: bool
    WinMoney: float
    LoseMoney: float
    Currency: int
    FeeMoney: float
    TableStake: int
    SiteId: int
    # v8
    CubeLimit: Optional[int]
    AutoDoubleMax: Optional[int]
    # v24
    Transcribed: Optional[bool]
    Event: Optional[str]
    Player1: Optional[str]
    Player2: Optional[str]
    Location: Optional[str]
    Round: Optional[str]
    # v25
    TimeSetting: Optional[TimeSetting]
    # v26 (rollout-queue counters, not time)
    TotTimeDelayMove: Optional[int]
    TotTimeDelayCube: Optional[int]
    TotTimeDelayMoveDone: Optional[int]
    TotTimeDelayCubeDone: Optional[int]
    # v30
    Transcriber: Optional[str]

    @property
    def player1_name(self) -> str:
        """The v24 Unicode name when there is one, else the ANSI string[40]."""
        return self.Player1 if self.Player1 else self.SPlayer1

    @property
    def player2_name(self) -> str:
        return self.Player2 if self.Player2 else self.SPlayer2

    @property
    def event_name(self) -> str:
        return self.Event if self.Event else self.SEvent

    @property
    def location_name(self) -> str:
        return self.Location if self.Location else self.SLocation

    @property
    def round_name(self) -> str:
        return self.Round if self.Round else self.SRound

    @property
    def is_money(self) -> bool:
        """MatchLength 99999 means money play."""
        return self.MatchLength == MONEY_MATCH_LENGTH


@dataclass(frozen=True)
class HeaderGame:
    """EntryType 1: the start of a game."""

    index: int
    Score1: int
    Score2: int
    CrawfordApply: bool
    PosInit: Tuple[int, ...]
    GameNumber: int
    InProgress: bool
    CommentHeaderGame: int
    CommentFooterGame: int
    NumberOfAutoDoubles: int


@dataclass(frozen=True)
class EngineStructDoubleAction:
    """The cube analysis inside a Cube record (record offsets 64-195).
    ``Score`` is points away; equB/equDouble/equDrop are cubeful EMG
    equities (ND, D/T, D/P) from the doubler's view, normalised to the cube."""

    Pos: Tuple[int, ...]
    Level: int
    Score: Tuple[int, int]
    Cube: int
    CubePos: int
    Jacoby: int
    Crawford: int
    met: int
    FlagDouble: int
    isBeaver: int
    Eval: Tuple[float, ...]  # ND: LoseBG, LoseG, Lose, Win, WinG, WinBG, Equity
    equB: float
    equDouble: float
    equDrop: float
    LevelRequest: int
    DoubleChoice3: int
    EvalDouble: Tuple[float, ...]  # D/T, same order


@dataclass(frozen=True)
class Cube:
    """EntryType 2: a cube decision (or the placeholder of one)."""

    index: int
    ActiveP: int
    Double: int
    Take: int
    BeaverR: int
    RaccoonR: int
    CubeB: int
    Position: Tuple[int, ...]
    Doubled: EngineStructDoubleAction
    ErrCube: float
    DiceRolled: str
    ErrTake: float
    RolloutIndexD: int
    CompChoiceD: int
    AnalyzeC: int
    ErrBeaver: float
    ErrRaccoon: float
    AnalyzeCR: int
    isValid: int
    TutorCube: int
    TutorTake: int
    ErrTutorCube: float
    ErrTutorTake: float
    FlaggedDouble: bool
    CommentCube: int
    # v24
    Edited: Optional[bool]
    # v26
    TimeDelayCube: Optional[bool]
    TimeDelayCubeDone: Optional[bool]
    # v27
    NumberOfAutoDouble: Optional[int]
    # v28
    TimeBot: Optional[int]
    TimeTop: Optional[int]


@dataclass(frozen=True)
class EngineStructBestMove:
    """The checker-play analysis inside a Move record (record offsets
    124-2307). Candidates are sorted best first; only the first ``NMoves``
    rows of the arrays are meaningful."""

    Pos: Tuple[int, ...]
    Dice: Tuple[int, int]
    Level: int
    Score: Tuple[int, int]
    Cube: int
    CubePos: int
    Crawford: int
    Jacoby: int
    NMoves: int
    PosPlayed: Tuple[Tuple[int, ...], ...]  # [32][26]
    Moves: Tuple[Tuple[int, ...], ...]  # [32][8]
    EvalLevel: Tuple[Tuple[int, bool], ...]  # [32] (Level, isDouble)
    Eval: Tuple[Tuple[float, ...], ...]  # [32][7]
    Unused: int
    met: int
    Choice0: int
    Choice3: int

    @property
    def n_candidates(self) -> int:
        """NMoves clamped to the 0..32 rows the record holds."""
        return max(0, min(self.NMoves, 32))


@dataclass(frozen=True)
class Move:
    """EntryType 3: a checker play."""

    index: int
    PositionI: Tuple[int, ...]
    PositionEnd: Tuple[int, ...]
    ActiveP: int
    Moves: Tuple[int, ...]
    Dice: Tuple[int, int]
    CubeA: int
    ErrorM: float
    NMoveEval: int
    DataMoves: EngineStructBestMove
    Played: bool
    ErrMove: float
    ErrLuck: float
    CompChoice: int
    InitEq: float
    RolloutIndexM: Tuple[int, ...]
    AnalyzeM: int
    AnalyzeL: int
    InvalidM: int
    PositionTutor: Tuple[int, ...]
    Tutor: int
    ErrTutorMove: float
    Flagged: bool
    CommentMove: int
    # v24
    Edited: Optional[bool]
    # v26
    TimeDelayMove: Optional[int]
    TimeDelayMoveDone: Optional[int]
    # v27
    NumberOfAutoDouble: Optional[int]

    @property
    def moves(self) -> Tuple[Tuple[int, int], ...]:
        """The played move as (from, to) pairs (mover's view, 0-based).
        Empty when ``Played`` is false: on the samples that is the roll
        before a resignation, whose ``Moves`` are all 0 (not -1-terminated),
        ``PositionEnd`` all 0 and ``ErrMove`` -1000."""
        if not self.Played:
            return ()
        return move_pairs(self.Moves)

    @property
    def played_index(self) -> Optional[int]:
        """Index of the candidate whose ``PosPlayed`` equals ``PositionEnd``
        (the facts' rule for the played move), or ``None``."""
        dm = self.DataMoves
        for k in range(dm.n_candidates):
            if dm.PosPlayed[k] == self.PositionEnd:
                return k
        return None


@dataclass(frozen=True)
class FooterGame:
    """EntryType 4: the end of a game."""

    index: int
    Score1g: int
    Score2g: int
    CrawfordApplyg: bool
    Winner: int
    PointsWon: int
    Termination: int
    ErrResign: float
    ErrTakeResign: float
    Eval: Tuple[float, ...]  # 7 doubles
    EvalLevel: int


@dataclass(frozen=True)
class FooterMatch:
    """EntryType 5: the end of the match."""

    index: int
    Score1m: int
    Score2m: int
    WinnerM: int
    Elo1m: float
    Elo2m: float
    Exp1m: int
    Exp2m: int
    Datem: Optional[str]  # ISO date, None for 0
    DatemRaw: float


Record = Union[HeaderMatch, HeaderGame, Cube, Move, FooterGame, FooterMatch]


def parse_header_match(r: bytes, index: int) -> HeaderMatch:
    version = _i32(r, 552)
    date_raw = _f64(r, 128)
    v8 = version >= 8
    v24 = version >= 24
    v25 = version >= 25
    v26 = version >= 26
    v30 = version >= 30
    ts = None
    if v25:
        ts = TimeSetting(
            ClockType=_i32(r, 1912),
            PerGame=_bool(r, 1916),
            Time1=_i32(r, 1920),
            Time2=_i32(r, 1924),
            Penalty=_i32(r, 1928),
            TimeLeft1=_i32(r, 1932),
            TimeLeft2=_i32(r, 1936),
            PenaltyMoney=_i32(r, 1940),
        )
    return HeaderMatch(
        index=index,
        SPlayer1=_ansi(r, 9, 40),
        SPlayer2=_ansi(r, 50, 40),
        MatchLength=_i32(r, 92),
        Variation=_i32(r, 96),
        Crawford=_bool(r, 100),
        Jacoby=_bool(r, 101),
        Beaver=_bool(r, 102),
        AutoDouble=_bool(r, 103),
        Elo1=_f64(r, 104),
        Elo2=_f64(r, 112),
        Exp1=_i32(r, 120),
        Exp2=_i32(r, 124),
        Date=tdatetime_to_iso(date_raw),
        DateTime=tdatetime_to_iso(date_raw, with_time=True),
        DateRaw=date_raw,
        SEvent=_ansi(r, 136, 128),
        GameId=_i32(r, 268),
        CompLevel1=_i32(r, 272),
        CompLevel2=_i32(r, 276),
        CountForElo=_bool(r, 280),
        AddtoProfile1=_bool(r, 281),
        AddtoProfile2=_bool(r, 282),
        SLocation=_ansi(r, 283, 128),
        GameMode=_i32(r, 412),
        Imported=_bool(r, 416),
        SRound=_ansi(r, 417, 128),
        Invert=_i32(r, 548),
        Version=version,
        Magic=_u32(r, 556),
        MoneyInitG=_i32(r, 560),
        MoneyInitScore=(_i32(r, 564), _i32(r, 568)),
        Entered=_bool(r, 572),
        Counted=_bool(r, 573),
        UnratedImp=_bool(r, 574),
        CommentHeaderMatch=_i32(r, 576),
        CommentFooterMatch=_i32(r, 580),
        isMoneyMatch=_bool(r, 584),
        WinMoney=_f32(r, 588),
        LoseMoney=_f32(r, 592),
        Currency=_i32(r, 596),
        FeeMoney=_f32(r, 600),
        TableStake=_i32(r, 604),
        SiteId=_i32(r, 608),
        CubeLimit=_i32(r, 612) if v8 else None,
        AutoDoubleMax=_i32(r, 616) if v8 else None,
        Transcribed=_bool(r, 620) if v24 else None,
        Event=_wide(r, 622, 129) if v24 else None,
        Player1=_wide(r, 880, 129) if v24 else None,
        Player2=_wide(r, 1138, 129) if v24 else None,
        Location=_wide(r, 1396, 129) if v24 else None,
        Round=_wide(r, 1654, 129) if v24 else None,
        TimeSetting=ts,
        TotTimeDelayMove=_i32(r, 1944) if v26 else None,
        TotTimeDelayCube=_i32(r, 1948) if v26 else None,
        TotTimeDelayMoveDone=_i32(r, 1952) if v26 else None,
        TotTimeDelayCubeDone=_i32(r, 1956) if v26 else None,
        Transcriber=_wide(r, 1960, 129) if v30 else None,
    )


def _parse_header_game(r: bytes, index: int, version: int) -> HeaderGame:
    return HeaderGame(
        index=index,
        Score1=_i32(r, 12),
        Score2=_i32(r, 16),
        CrawfordApply=_bool(r, 20),
        PosInit=_pos(r, 21),
        GameNumber=_i32(r, 48),
        InProgress=_bool(r, 52),
        CommentHeaderGame=_i32(r, 56),
        CommentFooterGame=_i32(r, 60),
        NumberOfAutoDoubles=_i32(r, 64),
    )


def _parse_cube(r: bytes, index: int, version: int) -> Cube:
    doubled = EngineStructDoubleAction(
        Pos=_pos(r, 64),
        Level=_i32(r, 92),
        Score=(_i32(r, 96), _i32(r, 100)),
        Cube=_i32(r, 104),
        CubePos=_i32(r, 108),
        Jacoby=_i32(r, 112),
        Crawford=_i16(r, 116),
        met=_i16(r, 118),
        FlagDouble=_i16(r, 120),
        isBeaver=_i16(r, 122),
        Eval=_f32s(r, 124, 7),
        equB=_f32(r, 152),
        equDouble=_f32(r, 156),
        equDrop=_f32(r, 160),
        LevelRequest=_i16(r, 164),
        DoubleChoice3=_i16(r, 166),
        EvalDouble=_f32s(r, 168, 7),
    )
    v24 = version >= 24
    v26 = version >= 26
    v27 = version >= 27
    v28 = version >= 28
    return Cube(
        index=index,
        ActiveP=_i32(r, 12),
        Double=_i32(r, 16),
        Take=_i32(r, 20),
        BeaverR=_i32(r, 24),
        RaccoonR=_i32(r, 28),
        CubeB=_i32(r, 32),
        Position=_pos(r, 36),
        Doubled=doubled,
        ErrCube=_f64(r, 200),
        DiceRolled=_ansi(r, 208, 2),
        ErrTake=_f64(r, 216),
        RolloutIndexD=_i32(r, 224),
        CompChoiceD=_i32(r, 228),
        AnalyzeC=_i32(r, 232),
        ErrBeaver=_f64(r, 240),
        ErrRaccoon=_f64(r, 248),
        AnalyzeCR=_i32(r, 256),
        isValid=_i32(r, 260),
        TutorCube=_i8(r, 264),
        TutorTake=_i8(r, 265),
        ErrTutorCube=_f64(r, 272),
        ErrTutorTake=_f64(r, 280),
        FlaggedDouble=_bool(r, 288),
        CommentCube=_i32(r, 292),
        Edited=_bool(r, 296) if v24 else None,
        TimeDelayCube=_bool(r, 297) if v26 else None,
        TimeDelayCubeDone=_bool(r, 298) if v26 else None,
        NumberOfAutoDouble=_i32(r, 300) if v27 else None,
        TimeBot=_i32(r, 304) if v28 else None,
        TimeTop=_i32(r, 308) if v28 else None,
    )


_POSPLAYED = struct.Struct("<832b")  # [32][26] int8 @192
_CANDMOVES = struct.Struct("<256b")  # [32][8] int8 @1024
_EVALLEVEL = struct.Struct("<" + "hBx" * 32)  # [32] (int16, bool, pad) @1280
_EVALS = struct.Struct("<224f")  # [32][7] float32 @1408


_ZERO_ROWS = {w: (0,) * w for w in (26, 8)}
_ZERO_ROWS[7] = (0.0,) * 7


def _rows(flat: Tuple, width: int) -> Tuple[Tuple, ...]:
    """A flat tuple cut into rows of ``width``. All-zero rows (the unused
    candidates, most of the 32) share one tuple: a Move takes a quarter of
    the memory."""
    zero = _ZERO_ROWS[width]
    return tuple([zero if r == zero else r for r in zip(*[iter(flat)] * width)])


def _parse_move(r: bytes, index: int, version: int) -> Move:
    pp = _POSPLAYED.unpack_from(r, 192)
    cm = _CANDMOVES.unpack_from(r, 1024)
    el = _EVALLEVEL.unpack_from(r, 1280)
    ev = _EVALS.unpack_from(r, 1408)
    best = EngineStructBestMove(
        Pos=_pos(r, 124),
        Dice=(_i32(r, 152), _i32(r, 156)),
        Level=_i32(r, 160),
        Score=(_i32(r, 164), _i32(r, 168)),
        Cube=_i32(r, 172),
        CubePos=_i32(r, 176),
        Crawford=_i32(r, 180),
        Jacoby=_i32(r, 184),
        NMoves=_i32(r, 188),
        PosPlayed=_rows(pp, 26),
        Moves=_rows(cm, 8),
        EvalLevel=tuple(zip(el[0::2], map(bool, el[1::2]))),
        Eval=_rows(ev, 7),
        Unused=_i8(r, 2304),
        met=_i8(r, 2305),
        Choice0=_i8(r, 2306),
        Choice3=_i8(r, 2307),
    )
    v24 = version >= 24
    v26 = version >= 26
    v27 = version >= 27
    return Move(
        index=index,
        PositionI=_pos(r, 9),
        PositionEnd=_pos(r, 35),
        ActiveP=_i32(r, 64),
        Moves=_ints(r, 68, 8),
        Dice=(_i32(r, 100), _i32(r, 104)),
        CubeA=_i32(r, 108),
        ErrorM=_f64(r, 112),
        NMoveEval=_i32(r, 120),
        DataMoves=best,
        Played=_bool(r, 2308),
        ErrMove=_f64(r, 2312),
        ErrLuck=_f64(r, 2320),
        CompChoice=_i32(r, 2328),
        InitEq=_f64(r, 2336),
        RolloutIndexM=_ints(r, 2344, 32),
        AnalyzeM=_i32(r, 2472),
        AnalyzeL=_i32(r, 2476),
        InvalidM=_i32(r, 2480),
        PositionTutor=_pos(r, 2484),
        Tutor=_i8(r, 2510),
        ErrTutorMove=_f64(r, 2512),
        Flagged=_bool(r, 2520),
        CommentMove=_i32(r, 2524),
        Edited=_bool(r, 2528) if v24 else None,
        TimeDelayMove=_u32(r, 2532) if v26 else None,
        TimeDelayMoveDone=_u32(r, 2536) if v26 else None,
        NumberOfAutoDouble=_i32(r, 2540) if v27 else None,
    )


def _parse_footer_game(r: bytes, index: int, version: int) -> FooterGame:
    return FooterGame(
        index=index,
        Score1g=_i32(r, 12),
        Score2g=_i32(r, 16),
        CrawfordApplyg=_bool(r, 20),
        Winner=_i32(r, 24),
        PointsWon=_i32(r, 28),
        Termination=_i32(r, 32),
        ErrResign=_f64(r, 40),
        ErrTakeResign=_f64(r, 48),
        Eval=_f64s(r, 56, 7),
        EvalLevel=_i32(r, 112),
    )


def _parse_footer_match(r: bytes, index: int, version: int) -> FooterMatch:
    datem = _f64(r, 48)
    return FooterMatch(
        index=index,
        Score1m=_i32(r, 12),
        Score2m=_i32(r, 16),
        WinnerM=_i32(r, 20),
        Elo1m=_f64(r, 24),
        Elo2m=_f64(r, 32),
        Exp1m=_i32(r, 40),
        Exp2m=_i32(r, 44),
        Datem=tdatetime_to_iso(datem),
        DatemRaw=datem,
    )


# EntryType -> parser of the records after the HeaderMatch
RECORD_PARSERS = {
    1: _parse_header_game,
    2: _parse_cube,
    3: _parse_move,
    4: _parse_footer_game,
    5: _parse_footer_match,
}
