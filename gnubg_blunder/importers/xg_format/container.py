"""eXtreme Gammon files (``.xg`` matches, ``.xgp`` positions) read into plain
Python data.

Written from the layout facts in ``../shared/docs/xg-format.md`` and
``../shared/docs/xg-offsets.txt`` (checked byte by byte on real files of file
versions 30 and 32); no other reader's code was used. What this module reads,
what it checks and what it infers is described in ``docs/xg-reader.md``.

The container (little-endian)::

    RichGameHeader   8232 bytes, magic "RGMH"
    thumbnail        a JPEG, skipped
    archive data     the members, each zlib-compressed
    registry         zlib-compressed, one 532-byte file record per member
    trailer          36 bytes: crc32 of [archive start, end - 36), filecount,
                     version, registrysize, archivesize, compressedregistry

Members: ``temp.xg`` (2560-byte records: HeaderMatch, HeaderGame, Cube, Move,
FooterGame, FooterMatch), ``temp.xgr`` (2184-byte rollout records, kept raw),
``temp.xgc`` (RTF comments, one per line), ``temp.xgi`` (ignored, CRC checked).

Record field names are the names of the facts (``ActiveP``, ``ErrMove``, ...),
so that a field can be looked up in the facts table by name. A field that the
file version does not have is ``None``.

Every problem with the input raises :class:`XgFormatError` (a ``ValueError``),
whose message is one line ``"<source>: <problem>"``. Every count, size and
offset read from the file is checked against the data before it is used, so no
loop runs longer than the data allows.

``build_xg_bytes`` writes the container around given members; the reader does
not use it. It exists for the tests (fixtures and fuzzing), which build files
of versions and kinds that no sample covers.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import struct
import uuid
import zlib
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

__all__ = [
    "XgFormatError",
    "read_xg",
    "parse_xg_bytes",
    "build_xg_bytes",
    "rtf_to_text",
    "move_pairs",
    "tdatetime_to_iso",
    "XgFile",
    "XgGame",
    "XgComment",
    "RichGameHeader",
    "ArchiveMember",
    "HeaderMatch",
    "TimeSetting",
    "HeaderGame",
    "Cube",
    "EngineStructDoubleAction",
    "Move",
    "EngineStructBestMove",
    "FooterGame",
    "FooterMatch",
    "Record",
    "RECORD_SIZE",
    "ROLLOUT_RECORD_SIZE",
    "FILE_RECORD_SIZE",
    "HEADER_SIZE",
    "TRAILER_SIZE",
    "MIN_VERSION",
    "MAX_VERSION",
    "MONEY_MATCH_LENGTH",
    "NOT_ANALYSED",
]

# ---------------------------------------------------------------------------
# Constants (from the facts)
# ---------------------------------------------------------------------------

HEADER_MAGIC = b"RGMH"
HEADER_SIZE = 8232  # sizeof(RichGameHeader)
TRAILER_SIZE = 36  # ZLB ArchiveRecord, at the end of the file
FILE_RECORD_SIZE = 532  # ZLB FileRecord, in the registry
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

MEMBER_MATCH = "temp.xg"
MEMBER_INDEX = "temp.xgi"
MEMBER_ROLLOUTS = "temp.xgr"
MEMBER_COMMENTS = "temp.xgc"

# Bounds against hostile input (not from the facts): far above any real file.
# A temp.xg of 64 MiB is 26,000 records (the samples: 400-700); the comments,
# turned into text character by character, are held to 8 MiB (about 2 s).
MAX_FILE_SIZE = 256 * 1024 * 1024
MAX_MEMBER_SIZE = 64 * 1024 * 1024
MAX_COMMENTS_SIZE = 8 * 1024 * 1024
MAX_MEMBERS = 1024

ENTRY_TYPES = {
    0: "HeaderMatch",
    1: "HeaderGame",
    2: "Cube",
    3: "Move",
    4: "FooterGame",
    5: "FooterMatch",
}

_TDATETIME_EPOCH = _dt.datetime(1899, 12, 30)
# datetime covers years 1..9999: days since 1899-12-30 in that range.
_TDATETIME_MIN = -693593.0
_TDATETIME_MAX = 2958465.0


# ---------------------------------------------------------------------------
# Error
# ---------------------------------------------------------------------------


class XgFormatError(ValueError):
    """The data is not a readable XG file.

    ``str(err)`` is one line ``"<source>: <problem>"``; ``source`` and
    ``problem`` are also attributes.
    """

    def __init__(self, source: str, problem: str):
        self.source = _one_line(str(source))
        self.problem = _one_line(str(problem))
        super().__init__(f"{self.source}: {self.problem}")

    def __reduce__(self):  # picklable (e.g. across worker processes)
        return (type(self), (self.source, self.problem))


def _one_line(s: str) -> str:
    return " ".join(s.split()) if ("\n" in s or "\r" in s) else s


# ---------------------------------------------------------------------------
# Low-level readers (every offset used is inside a fixed-size buffer)
# ---------------------------------------------------------------------------

_I8 = struct.Struct("<b").unpack_from
_U8 = struct.Struct("<B").unpack_from
_I16 = struct.Struct("<h").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_I64 = struct.Struct("<q").unpack_from
_F32 = struct.Struct("<f").unpack_from
_F64 = struct.Struct("<d").unpack_from
_POS = struct.Struct("<26b").unpack_from
_TRAILER = struct.Struct("<iiiiii")
_FILEREC_NUMS = struct.Struct("<iiiIBB")


def _i8(b: bytes, o: int) -> int:
    return _I8(b, o)[0]


def _u8(b: bytes, o: int) -> int:
    return _U8(b, o)[0]


def _bool(b: bytes, o: int) -> bool:
    return b[o] != 0


def _i16(b: bytes, o: int) -> int:
    return _I16(b, o)[0]


def _i32(b: bytes, o: int) -> int:
    return _I32(b, o)[0]


def _u32(b: bytes, o: int) -> int:
    return _U32(b, o)[0]


def _f32(b: bytes, o: int) -> float:
    return _F32(b, o)[0]


def _f64(b: bytes, o: int) -> float:
    return _F64(b, o)[0]


def _pos(b: bytes, o: int) -> Tuple[int, ...]:
    return _POS(b, o)


def _ints(b: bytes, o: int, n: int) -> Tuple[int, ...]:
    return struct.unpack_from(f"<{n}i", b, o)


def _f32s(b: bytes, o: int, n: int) -> Tuple[float, ...]:
    return struct.unpack_from(f"<{n}f", b, o)


def _f64s(b: bytes, o: int, n: int) -> Tuple[float, ...]:
    return struct.unpack_from(f"<{n}d", b, o)


def _ansi(b: bytes, o: int, n: int) -> str:
    """Delphi ``string[n]``: a length byte, then up to n bytes of ANSI text
    (Windows code page 1252). A length above n is clamped to n."""
    ln = min(b[o], n)
    return b[o + 1 : o + 1 + ln].decode("cp1252", "replace")


def _wide(b: bytes, o: int, nchars: int) -> str:
    """NUL-terminated UTF-16 text of at most ``nchars`` WideChars."""
    raw = b[o : o + 2 * nchars]
    for i in range(0, len(raw) - 1, 2):
        if raw[i] == 0 and raw[i + 1] == 0:
            raw = raw[:i]
            break
    return raw.decode("utf-16-le", "replace")


def tdatetime_to_iso(value: float, with_time: bool = False) -> Optional[str]:
    """A Delphi ``TDateTime`` (days since 1899-12-30) as an ISO date
    (``YYYY-MM-DD``), or date and time to the second with ``with_time``.
    ``None`` for 0 (XG's "no date") and for values no calendar date has."""
    if not isinstance(value, float) or not math.isfinite(value) or value == 0.0:
        return None
    if not (_TDATETIME_MIN <= value <= _TDATETIME_MAX):
        return None
    try:
        when = _TDATETIME_EPOCH + _dt.timedelta(seconds=round(value * 86400.0))
    except (OverflowError, ValueError):
        return None
    return when.isoformat() if with_time else when.date().isoformat()


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


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


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


def _parse_header_match(r: bytes, index: int) -> HeaderMatch:
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


_RECORD_PARSERS = {
    1: _parse_header_game,
    2: _parse_cube,
    3: _parse_move,
    4: _parse_footer_game,
    5: _parse_footer_match,
}


# ---------------------------------------------------------------------------
# Container
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RichGameHeader:
    """The first 8232 bytes of the file."""

    Magic: bytes
    HeaderVersion: int
    HeaderSize: int
    ThumbnailOffset: int
    ThumbnailSize: int
    GUID: str
    GameName: str
    SaveName: str
    LevelName: str
    Comments: str


@dataclass(frozen=True)
class ArchiveMember:
    """One registry file record (532 bytes). ``start`` is relative to the
    archive start; ``compressed`` is ``flag == 0``."""

    name: str
    path: str
    osize: int
    csize: int
    start: int
    crc: int
    compressed: bool
    compression_level: int


@dataclass(frozen=True)
class XgComment:
    """One comment of ``temp.xgc``: its index (what the records' Comment*
    fields hold), the RTF with CRLF restored, and the plain text."""

    index: int
    rtf: str
    text: str


@dataclass(frozen=True)
class XgGame:
    """A HeaderGame, the Cube and Move records that follow it in file order,
    and its FooterGame (``None`` when the game has none: unfinished game,
    position file)."""

    header: HeaderGame
    records: Tuple[Union[Cube, Move], ...]
    footer: Optional[FooterGame]

    @property
    def moves(self) -> Tuple[Move, ...]:
        return tuple(r for r in self.records if isinstance(r, Move))

    @property
    def cubes(self) -> Tuple[Cube, ...]:
        return tuple(r for r in self.records if isinstance(r, Cube))


@dataclass(frozen=True)
class XgFile:
    """A whole ``.xg`` or ``.xgp`` file.

    ``records`` are all temp.xg records in file order; ``match``, ``games``
    and ``footer`` are the same records grouped. ``rollouts`` are the raw
    2184-byte temp.xgr records (their layout is not in the facts)."""

    source: str
    kind: str  # "match" or "position"
    header: RichGameHeader
    archive_version: int
    members: Tuple[ArchiveMember, ...]
    records: Tuple[Record, ...]
    match: HeaderMatch
    games: Tuple[XgGame, ...]
    footer: Optional[FooterMatch]
    comments: Tuple[XgComment, ...]
    rollouts: Tuple[bytes, ...]

    @property
    def version(self) -> int:
        return self.match.Version

    @property
    def moves(self) -> Tuple[Move, ...]:
        return tuple(r for r in self.records if isinstance(r, Move))

    @property
    def cubes(self) -> Tuple[Cube, ...]:
        return tuple(r for r in self.records if isinstance(r, Cube))

    def comment(self, index: int) -> Optional[XgComment]:
        """The comment a record's Comment* field points to; ``None`` for -1
        or an index past the comments the file holds."""
        if isinstance(index, int) and 0 <= index < len(self.comments):
            return self.comments[index]
        return None


class _Reader:
    def __init__(self, data: bytes, source: str):
        self.data = data
        self.source = source

    def fail(self, problem: str) -> XgFormatError:
        return XgFormatError(self.source, problem)

    # -- header --------------------------------------------------------------

    def header(self) -> RichGameHeader:
        d = self.data
        if len(d) >= 4 and d[:4] != HEADER_MAGIC:
            raise self.fail(f"wrong magic {bytes(d[:4])!r} (expected b'RGMH'): not an XG file")
        if len(d) < HEADER_SIZE:
            raise self.fail(f"truncated header: {len(d)} bytes, the RichGameHeader needs {HEADER_SIZE}")
        hsize = _i32(d, 8)
        if hsize != HEADER_SIZE:
            raise self.fail(f"header size {hsize} does not match the RichGameHeader ({HEADER_SIZE})")
        toff = _I64(d, 12)[0]
        tsize = _i32(d, 20)
        if tsize < 0:
            raise self.fail(f"sizes do not add up: thumbnail size {tsize}")
        return RichGameHeader(
            Magic=bytes(d[:4]),
            HeaderVersion=_i32(d, 4),
            HeaderSize=hsize,
            ThumbnailOffset=toff,
            ThumbnailSize=tsize,
            GUID=str(uuid.UUID(bytes_le=bytes(d[24:40]))),
            GameName=_wide(d, 40, 1024),
            SaveName=_wide(d, 2088, 1024),
            LevelName=_wide(d, 4136, 1024),
            Comments=_wide(d, 6184, 1024),
        )

    # -- archive -------------------------------------------------------------

    def archive(self, hdr: RichGameHeader):
        d = self.data
        n = len(d)
        # XG's recipe: the content starts at sizeof(RichGameHeader) +
        # ThumbnailSize (ThumbnailOffset is 0 in every sample and not used).
        # The archive is read from its end and may start no earlier.
        thumb_end = HEADER_SIZE + hdr.ThumbnailSize
        if n < HEADER_SIZE + TRAILER_SIZE:
            raise self.fail(f"truncated archive: {n - HEADER_SIZE} bytes after the header, no room for the trailer")
        crc, count, version, regsize, archsize, compreg = _TRAILER.unpack_from(d, n - TRAILER_SIZE)
        trailer_at = n - TRAILER_SIZE
        if regsize <= 0 or archsize < 0:
            raise self.fail(f"sizes do not add up: trailer gives registry size {regsize}, archive size {archsize}")
        if count <= 0 or count > MAX_MEMBERS:
            raise self.fail(f"sizes do not add up: trailer gives {count} archive members")
        reg_at = trailer_at - regsize
        arch_at = reg_at - archsize
        if arch_at < thumb_end:
            raise self.fail(
                f"truncated archive: the trailer declares {archsize} bytes of members and {regsize} of registry, "
                f"but only {max(0, trailer_at - thumb_end)} bytes lie between the thumbnail and the trailer"
            )
        got = zlib.crc32(d[arch_at:trailer_at]) & 0xFFFFFFFF
        if got != (crc & 0xFFFFFFFF):
            raise self.fail(f"bad archive CRC: stored {crc & 0xFFFFFFFF:08x}, computed {got:08x}")
        regraw = d[reg_at:trailer_at]
        want = count * FILE_RECORD_SIZE
        if compreg:
            registry = self._inflate(regraw, want, "the registry")
        else:
            registry = bytes(regraw)
        if len(registry) != want:
            raise self.fail(
                f"sizes do not add up: registry holds {len(registry)} bytes, {count} file records need {want}"
            )
        members: List[ArchiveMember] = []
        contents: Dict[str, bytes] = {}
        for k in range(count):
            rec = registry[k * FILE_RECORD_SIZE : (k + 1) * FILE_RECORD_SIZE]
            name = rec[1 : 1 + min(rec[0], 255)].decode("latin-1")
            path = rec[257 : 257 + min(rec[256], 255)].decode("latin-1")
            osize, csize, start, mcrc, flag, level = _FILEREC_NUMS.unpack_from(rec, 512)
            m = ArchiveMember(name, path, osize, csize, start, mcrc, flag == 0, level)
            members.append(m)
            label = f"member {k} ({name!r})"
            key = name.lower()
            if key in contents:
                raise self.fail(f"{label} appears twice in the registry")
            if osize < 0 or csize < 0 or start < 0:
                raise self.fail(f"sizes do not add up: {label} has size {osize}, packed size {csize}, start {start}")
            limit = MAX_COMMENTS_SIZE if key == MEMBER_COMMENTS else MAX_MEMBER_SIZE
            if osize > limit:
                raise self.fail(f"sizes do not add up: {label} claims {osize} bytes (limit {limit})")
            if start + csize > archsize:
                raise self.fail(
                    f"truncated member: {label} spans bytes {start}..{start + csize} of an archive of {archsize}"
                )
            raw = d[arch_at + start : arch_at + start + csize]
            if m.compressed:
                body = self._inflate(raw, osize, label)
            else:
                body = bytes(raw)
            if len(body) != osize:
                raise self.fail(f"sizes do not add up: {label} unpacks to {len(body)} bytes, registry says {osize}")
            got = zlib.crc32(body) & 0xFFFFFFFF
            if got != mcrc:
                raise self.fail(f"bad CRC of {label}: stored {mcrc:08x}, computed {got:08x}")
            contents[key] = body
        return version, tuple(members), contents

    def _inflate(self, raw: bytes, expected: int, label: str) -> bytes:
        """zlib-decompress ``raw``, producing at most ``expected`` + 1 bytes."""
        dec = zlib.decompressobj()
        try:
            out = dec.decompress(raw, expected + 1)
        except zlib.error as e:
            raise self.fail(f"cannot decompress {label}: {e}") from e
        if len(out) > expected:
            raise self.fail(f"sizes do not add up: {label} unpacks to more than {expected} bytes")
        if not dec.eof:
            raise self.fail(f"truncated {label}: its compressed stream ends early")
        return out

    # -- records -------------------------------------------------------------

    def records(self, body: bytes) -> Tuple[Record, ...]:
        n = len(body)
        if n == 0:
            raise self.fail("temp.xg holds no record")
        if n % RECORD_SIZE:
            k = n // RECORD_SIZE
            raise self.fail(
                f"truncated record: temp.xg is {n} bytes, record {k} has {n - k * RECORD_SIZE} of {RECORD_SIZE}"
            )
        first = body[:RECORD_SIZE]
        if first[8] != 0:
            what = ENTRY_TYPES.get(first[8], "unknown")
            raise self.fail(f"record 0 is EntryType {first[8]} ({what}), expected 0 (HeaderMatch)")
        magic = _u32(first, 556)
        if magic != DMLI_MAGIC:
            raise self.fail(f"bad HeaderMatch magic 0x{magic:08x} (expected 0x{DMLI_MAGIC:08x}, 'DMLI')")
        version = _i32(first, 552)
        if not (MIN_VERSION <= version <= MAX_VERSION):
            raise self.fail(f"file version {version} outside the known range {MIN_VERSION}..{MAX_VERSION}")
        out: List[Record] = [_parse_header_match(first, 0)]
        for k in range(1, n // RECORD_SIZE):
            r = body[k * RECORD_SIZE : (k + 1) * RECORD_SIZE]
            t = r[8]
            if t == 0:
                raise self.fail(f"record {k}: a second HeaderMatch")
            parse = _RECORD_PARSERS.get(t)
            if parse is None:
                raise self.fail(f"record {k}: unknown record type (EntryType {t}, expected 0-5)")
            out.append(parse(r, k, version))
        return tuple(out)

    def group(self, records: Sequence[Record], kind: str):
        match = records[0]
        games: List[XgGame] = []
        header: Optional[HeaderGame] = None
        body: List[Union[Cube, Move]] = []
        footer: Optional[FooterMatch] = None

        def close(game_footer: Optional[FooterGame]) -> None:
            games.append(XgGame(header, tuple(body), game_footer))

        for r in records[1:]:
            name = type(r).__name__
            if footer is not None:
                raise self.fail(f"record {r.index}: {name} after the FooterMatch")
            if isinstance(r, HeaderGame):
                if header is not None:
                    close(None)
                header, body = r, []
            elif isinstance(r, (Cube, Move)):
                if header is None:
                    raise self.fail(f"record {r.index}: {name} outside a game (no HeaderGame before it)")
                body.append(r)
            elif isinstance(r, FooterGame):
                if header is None:
                    raise self.fail(f"record {r.index}: FooterGame outside a game (no HeaderGame before it)")
                close(r)
                header, body = None, []
            elif isinstance(r, FooterMatch):
                if header is not None:
                    close(None)
                    header, body = None, []
                footer = r
        if header is not None:
            close(None)
        if kind == "position":
            types = [type(r).__name__ for r in records]
            if (
                len(records) != 3
                or not isinstance(records[1], HeaderGame)
                or not isinstance(records[2], (Cube, Move))
            ):
                raise self.fail(
                    "a position file holds HeaderMatch, HeaderGame and one Cube or Move record; found "
                    + ", ".join(types)
                )
        return match, tuple(games), footer

    # -- comments and rollouts -----------------------------------------------

    def comments(self, body: Optional[bytes]) -> Tuple[XgComment, ...]:
        if not body:
            return ()
        lines = body.split(b"\r\n")
        if lines and lines[-1] == b"":
            lines.pop()
        out = []
        for k, line in enumerate(lines):
            rtf = line.replace(b"\x01\x02", b"\r\n").decode("cp1252", "replace")
            out.append(XgComment(k, rtf, rtf_to_text(rtf)))
        return tuple(out)

    def rollouts(self, body: Optional[bytes]) -> Tuple[bytes, ...]:
        if not body:
            return ()
        if len(body) % ROLLOUT_RECORD_SIZE:
            raise self.fail(
                f"sizes do not add up: temp.xgr is {len(body)} bytes, not a whole number of "
                f"{ROLLOUT_RECORD_SIZE}-byte rollout records"
            )
        return tuple(body[k : k + ROLLOUT_RECORD_SIZE] for k in range(0, len(body), ROLLOUT_RECORD_SIZE))


def _kind_from(source: str, kind: Optional[str], records: Sequence[Record]) -> str:
    if kind is not None:
        return kind
    low = source.lower()
    if low.endswith(".xgp"):
        return "position"
    if low.endswith(".xg"):
        return "match"
    # No telling suffix: a position file is the three records without footers.
    if (
        len(records) == 3
        and isinstance(records[1], HeaderGame)
        and isinstance(records[2], (Cube, Move))
    ):
        return "position"
    return "match"


def _parse(data: bytes, source: str, kind: Optional[str]) -> XgFile:
    rd = _Reader(data, source)
    if len(data) > MAX_FILE_SIZE:
        raise rd.fail(f"file of {len(data)} bytes is larger than any XG file ({MAX_FILE_SIZE})")
    hdr = rd.header()
    archive_version, members, contents = rd.archive(hdr)
    body = contents.get(MEMBER_MATCH)
    if body is None:
        raise rd.fail(f"member {MEMBER_MATCH} missing from the archive")
    records = rd.records(body)
    k = _kind_from(source, kind, records)
    match, games, footer = rd.group(records, k)
    return XgFile(
        source=source,
        kind=k,
        header=hdr,
        archive_version=archive_version,
        members=members,
        records=records,
        match=match,
        games=games,
        footer=footer,
        comments=rd.comments(contents.get(MEMBER_COMMENTS)),
        rollouts=rd.rollouts(contents.get(MEMBER_ROLLOUTS)),
    )


def parse_xg_bytes(data: bytes, source: str = "<bytes>", kind: Optional[str] = None) -> XgFile:
    """Read an XG file from memory.

    ``source`` names the data in error messages (a path, an upload name).
    ``kind`` is ``"match"`` or ``"position"``; when ``None`` it comes from
    the suffix of ``source`` (``.xgp`` → position, ``.xg`` → match), and
    without one from the records (HeaderMatch, HeaderGame and one Cube or Move
    → position). A position file must hold exactly those three records.

    Raises :class:`XgFormatError` and nothing else for any ``data``.
    """
    source = str(source)
    if kind not in (None, "match", "position"):
        raise XgFormatError(source, f"kind must be 'match' or 'position', not {kind!r}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise XgFormatError(source, f"data is not bytes ({type(data).__name__})")
    data = bytes(data)
    try:
        return _parse(data, source, kind)
    except XgFormatError:
        raise
    except Exception as e:  # a safety net: every check above should come first
        raise XgFormatError(source, f"unexpected malformed data ({type(e).__name__}: {e})") from e


def read_xg(path: Union[str, "os.PathLike[str]"], kind: Optional[str] = None) -> XgFile:
    """Read an ``.xg`` or ``.xgp`` file. An unreadable file raises
    :class:`XgFormatError` too (the ``OSError`` is its ``__cause__``)."""
    try:
        source = os.fspath(path)
    except TypeError as e:
        raise XgFormatError(repr(path), f"not a file path ({type(path).__name__})") from e
    source = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    try:
        with open(path, "rb") as fh:
            chunks = []
            total = 0
            while total <= MAX_FILE_SIZE:  # read() of a huge size would allocate it
                chunk = fh.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            data = b"".join(chunks)
    except OSError as e:
        raise XgFormatError(source, f"cannot read the file: {e.strerror or e}") from e
    return parse_xg_bytes(data, source, kind)


# ---------------------------------------------------------------------------
# RTF to plain text
# ---------------------------------------------------------------------------

# Groups whose text is not part of the document.
_RTF_DESTINATIONS = frozenset(
    "fonttbl colortbl stylesheet info pict object header footer headerl headerr headerf "
    "footerl footerr footerf footnote listtable listoverridetable revtbl rsidtbl generator "
    "xmlnstbl themedata colorschememapping latentstyles datastore fldinst filetbl".split()
)
_RTF_SYMBOLS = {
    "par": "\n",
    "line": "\n",
    "sect": "\n",
    "page": "\n",
    "row": "\n",
    "tab": "\t",
    "cell": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
}
_HEX = "0123456789abcdefABCDEF"


def rtf_to_text(rtf: str) -> str:
    """Plain text of one RTF comment: control words dropped, ``\\par`` and
    ``\\line`` as newlines, ``\\'hh`` in the document's ANSI code page,
    ``\\uN`` as Unicode, font/colour tables and ``{\\*...}`` groups skipped.
    Trailing whitespace is removed. One linear pass; never raises."""
    out: List[str] = []
    codepage = "cp1252"
    n = len(rtf)
    i = 0
    skip = False  # inside a group whose text is dropped
    uc = 1  # characters that follow \uN as its ANSI fallback
    pending = 0  # fallback characters still to drop
    stack: List[Tuple[bool, int]] = []

    def emit(s: str) -> None:
        nonlocal pending
        if skip:
            return
        if pending:
            pending -= 1
            return
        out.append(s)

    while i < n:
        c = rtf[i]
        if c == "{":
            if len(stack) < 1000:
                stack.append((skip, uc))
            pending = 0
            i += 1
            continue
        if c == "}":
            if stack:
                skip, uc = stack.pop()
            pending = 0
            i += 1
            continue
        if c in "\r\n":
            i += 1
            continue
        if c != "\\":
            emit(c)
            i += 1
            continue
        # a control word or symbol
        if i + 1 >= n:
            break
        d = rtf[i + 1]
        if d in "\\{}":
            emit(d)
            i += 2
        elif d == "'":
            h = rtf[i + 2 : i + 4]
            if len(h) == 2 and h[0] in _HEX and h[1] in _HEX:
                try:
                    ch = bytes([int(h, 16)]).decode(codepage, "replace")
                except LookupError:
                    ch = bytes([int(h, 16)]).decode("latin-1")
                emit(ch)
                i += 4
            else:
                i += 2
        elif d == "*":
            skip = True  # an ignorable destination: drop the group
            i += 2
        elif d in "\r\n":
            emit("\n")
            i += 2
        elif d == "~":
            emit("\u00a0")
            i += 2
        elif d == "_":
            emit("\u2011")
            i += 2
        elif d.isascii() and d.isalpha():
            j = i + 1
            while j < n and j - i <= 32 and rtf[j].isascii() and rtf[j].isalpha():
                j += 1
            word = rtf[i + 1 : j]
            k = j
            if k < n and rtf[k] == "-":
                k += 1
            while k < n and k - j <= 11 and rtf[k].isascii() and rtf[k].isdigit():
                k += 1
            param: Optional[int] = None
            if k > j and rtf[j:k] != "-":
                param = int(rtf[j:k])
            else:
                k = j
            if k < n and rtf[k] == " ":
                k += 1
            i = k
            if word in _RTF_DESTINATIONS:
                skip = True
            elif word in _RTF_SYMBOLS:
                emit(_RTF_SYMBOLS[word])
            elif word == "u" and param is not None:
                cp = param + 65536 if param < 0 else param
                if 0 <= cp <= 0xFFFF:
                    emit(chr(cp))
                if not skip:
                    pending = max(0, uc)
            elif word == "uc" and param is not None:
                uc = max(0, min(param, 16))
            elif word == "ansicpg" and param is not None:
                codepage = f"cp{param}"
        else:
            i += 2  # another control symbol: nothing to show
    text = "".join(out)
    # \uN pairs may spell surrogate pairs; lone surrogates become U+FFFD.
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.rstrip()


# ---------------------------------------------------------------------------
# Writer of the container (for tests and fixtures only)
# ---------------------------------------------------------------------------


def build_xg_bytes(
    members: Union[Dict[str, bytes], Iterable[Tuple[str, bytes]]],
    *,
    thumbnail: bytes = b"",
    game_name: str = "",
    save_name: str = "",
    level_name: str = "",
    comments: str = "",
    guid: str = "2f5af5e1-e021-4832-a423-ef480ec58a0b",
    compression_level: int = 6,
) -> bytes:
    """An XG container around ``members`` (name → unpacked bytes), laid out as
    the facts describe: RichGameHeader, thumbnail, the members compressed one
    after the other, the compressed registry and the trailer, with every CRC
    correct. The reader does not use this; the tests build files with it
    (e.g. ``temp.xg`` records of versions no sample has)."""
    items = list(members.items()) if isinstance(members, dict) else list(members)
    hdr = bytearray(HEADER_SIZE)
    hdr[0:4] = HEADER_MAGIC
    struct.pack_into("<iiqi", hdr, 4, 1, HEADER_SIZE, 0, len(thumbnail))
    hdr[24:40] = uuid.UUID(guid).bytes_le
    for off, text in ((40, game_name), (2088, save_name), (4136, level_name), (6184, comments)):
        enc = text.encode("utf-16-le")[: 2 * 1023]
        hdr[off : off + len(enc)] = enc
    blobs = []
    registry = bytearray()
    pos = 0
    for name, body in items:
        packed = zlib.compress(body, compression_level)
        rec = bytearray(FILE_RECORD_SIZE)
        nb = name.encode("latin-1")[:255]
        rec[0] = len(nb)
        rec[1 : 1 + len(nb)] = nb
        struct.pack_into(
            "<iiiIBB", rec, 512, len(body), len(packed), pos, zlib.crc32(body) & 0xFFFFFFFF, 0, 2
        )
        registry += rec
        blobs.append(packed)
        pos += len(packed)
    archive = b"".join(blobs)
    creg = zlib.compress(bytes(registry), compression_level)
    crc = zlib.crc32(archive + creg) & 0xFFFFFFFF
    trailer = struct.pack("<IiiiiI", crc, len(items), 1, len(creg), len(archive), 1) + bytes(12)
    return bytes(hdr) + bytes(thumbnail) + archive + creg + trailer
