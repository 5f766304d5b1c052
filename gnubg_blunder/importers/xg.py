"""eXtreme Gammon ``.xg`` matches and ``.xgp`` positions -> decision model.

The bytes are read by :mod:`.xg_format` (docs/xg-reader.md); this module
maps XG's records to the same source records as the gnubg importers, so one
builder (:mod:`.build`) makes the decisions.  XG specifics (SPEC §2,
../shared/docs/xg-format.md):

* players: XG's player 1 is our player 0; ``ActiveP`` 1 / −1;
* a Cube record is the cube decision of ``ActiveP`` before rolling: no
  double (``Double`` 0; it joins that player's next Move record, as in
  gnubg), double (1, then the opponent's take, pass or beaver), or none
  available (−2) / placeholder (−1);
* cube equities ``equB``/``equDouble``/``equDrop`` are already EMG, from the
  doubler's side, normalised to the cube before the double;
* checker plays count by XG's own verdict: ``BestMove.Unused == 0`` and
  ``InvalidM == 0``;
* −1000 in an error field means "not analysed"; luck is ``ErrLuck``;
* a roll that was never played (the game was resigned after it) is no roll;
* durations (seconds) come from the clock time left on each turn's Cube
  record (v28+ ``TimeBot``/``TimeTop``) in clocked matches only
  (:func:`turn_durations`; the rule and its assumptions: docs/xg-reader.md,
  "Durations from the clock").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from ..board.ids import board_from_xg, play_from_xg_move
from ..errors import BlunderError
from ..model import SOURCE_XG, Match
from .build import build_match
from .records import MatchImportError, SourceCandidate, SourceCube, SourceGame, SourceMatch, SourceRecord
from .xg_format import Cube, Move, XgFormatError, read_xg

NOT_ANALYSED = -1000.0
XG_MONEY = 99999

# XG's analysis levels -> the depth labels of build.depth_rank (docs/figures.md):
# level L (0..7) is XG's (L+1)-ply, i.e. gnubg's L-ply.
XG_LEVEL_LABELS = {100: "rollout", 1000: "XGR", 1001: "XGR+", 1002: "XGR++"}


# Automatic doubles at the start of a money game: gnubg's cube goes to 4096
# (2 ** 12) at most.
MAX_AUTO_DOUBLES = 12


def xg_depth_label(level: int) -> Optional[str]:
    if level in XG_LEVEL_LABELS:
        return XG_LEVEL_LABELS[level]
    if 0 <= level <= 7:
        return f"XG {level + 1}-ply"
    return None


def _side(active: int) -> int:
    return 0 if active == 1 else 1


def _analysed(x: float) -> bool:
    return x is not None and x > NOT_ANALYSED + 0.5


def _probs(ev) -> tuple:
    """XG's [LoseBG, LoseG, Lose, Win, WinG, WinBG, Equity] -> gnubg's
    (win, win gammon, win bg, lose gammon, lose bg)."""
    return (ev[3], ev[4], ev[5], ev[1], ev[0])


def _comment(xg, index) -> Optional[str]:
    c = xg.comment(index)
    return (c.text.strip() or None) if c is not None else None


def read_match(path, xg=None, require_analysis: bool = True) -> Match:
    """Read an XG file (match or position) into the decision model."""
    path = Path(path)
    if xg is None:
        try:
            xg = read_xg(path)
        except XgFormatError as exc:
            raise MatchImportError(exc.problem) from None
    try:
        src, roles = _source(xg, str(path))
    except XgFormatError as exc:  # a record holding an impossible value behind valid checksums
        raise MatchImportError(exc.problem) from None
    match = build_match(src, require_analysis=require_analysis)
    _set_durations(match, roles, turn_durations(xg))
    return match


def source_from_xg(xg, source_path: Optional[str] = None) -> SourceMatch:
    return _source(xg, source_path)[0]


def _source(xg, source_path: Optional[str]):
    """The source records, and per game, per source record, whose clock its
    decisions read: ``(turn, "mover" | "responder")`` or ``None``."""
    m = xg.match
    if m.Variation not in (0, None):
        raise MatchImportError(f"XG variation {m.Variation} is not standard backgammon")
    length = 0 if m.MatchLength == XG_MONEY else int(m.MatchLength)
    if length < 0:
        raise MatchImportError(f"odd match length {m.MatchLength}")
    src = SourceMatch(
        players=(m.player1_name or "Player 1", m.player2_name or "Player 2"),
        length=length,
        source=SOURCE_XG,
        engine="xg",
        engine_version=f"XG file version {m.Version}",
        date=m.Date,
        event=m.event_name or None,
        round=m.round_name or None,
        place=m.location_name or None,
        annotator=m.Transcriber or None,
        comment=_comment(xg, m.CommentHeaderMatch),
        crawford_rule=bool(m.Crawford) and length > 0,
        jacoby=bool(m.Jacoby),
        source_path=source_path,
        kind=xg.kind,
    )
    roles = []
    for number, game in enumerate(xg.games, 1):
        sg, game_roles = _game(xg, game, length, number, source_path)
        src.games.append(sg)
        roles.append(game_roles)
    if not src.games:
        raise MatchImportError("the file holds no game")
    return src, roles


def _game(xg, game, length: int, number: int = 1, source_path: Optional[str] = None) -> SourceGame:
    h, f = game.header, game.footer
    winner = points = None
    resigned = False
    if f is not None and f.Winner in (1, -1):
        winner, points = _side(f.Winner), int(f.PointsWon)
        resigned = f.Termination % 1000 >= 100  # +100 resigned, +1000 settled
    auto_doubles = int(h.NumberOfAutoDoubles) if length == 0 else 0  # a money session's only
    if not 0 <= auto_doubles <= MAX_AUTO_DOUBLES:  # 2 ** 2e9 took seconds, 2 ** -5 a cube of 1/32
        raise XgFormatError(source_path or "XG file", f"game {number}: {auto_doubles} automatic doubles "
                            f"impossible (0 to {MAX_AUTO_DOUBLES}: a cube of {2 ** MAX_AUTO_DOUBLES} at most)")
    sg = SourceGame(
        score=(int(h.Score1), int(h.Score2)),
        crawford=bool(h.CrawfordApply) and length > 0,
        winner=winner,
        points=points,
        resigned=resigned,
        initial_cube=2 ** auto_doubles,
    )
    pending_cube = {}  # player -> SourceCube of a no double, for that player's next roll
    roles = []  # per source record: (turn, role) or None (see _source)
    turn = -1  # index of the game's last Cube record: the turn under way
    for rec in game.records:
        try:
            turn = _record(xg, rec, sg, pending_cube, roles, turn)
        except ValueError as exc:
            # the board code refusing a value no XG writes (a point 64, 41 checkers, a die 32773), the
            # record's checksums valid all the same: the file's one line names the record
            raise XgFormatError(source_path or "XG file", f"record {rec.index} (game {number}, "
                                f"{type(rec).__name__}): {exc}") from None
    return sg, roles


def _record(xg, rec, sg: SourceGame, pending_cube: dict, roles: list, turn: int) -> int:
    """One Cube or Move record into ``sg``'s records (and ``roles``); the
    turn under way after it.  A value no board can hold raises ValueError."""
    if isinstance(rec, Cube):
        turn += 1
        n = len(sg.records)
        _cube_record(xg, rec, sg, pending_cube)
        new = len(sg.records) - n
        if rec.Double == 1 and rec.Take in (0, 1) and new == 2:
            roles += [(turn, "mover"), (turn, "responder")]
        else:  # a beaver chain (or a position file's cube): no duration
            roles += [None] * new
    elif isinstance(rec, Move):
        r = _move_record(xg, rec, pending_cube.pop(_side(rec.ActiveP), None))
        if r is not None:
            sg.records.append(r)
            roles.append((turn, "mover") if turn >= 0 else None)
    return turn


def _source_cube(rec: Cube) -> Optional[SourceCube]:
    d = rec.Doubled
    if not _analysed(rec.ErrCube):
        return None
    return SourceCube(nd=d.equB, dt=d.equDouble, in_mwc=False, depth=xg_depth_label(d.Level),
                      probs=_probs(d.Eval))


def _cube_board(rec: Cube) -> str:
    """The position of a cube decision, the decider on roll (``Position`` is
    in player 1's orientation)."""
    return board_from_xg(rec.Position, rec.ActiveP).position_id()


def _cube_record(xg, rec: Cube, sg: SourceGame, pending_cube: dict) -> None:
    player = _side(rec.ActiveP)
    if rec.Double == -1 and xg.kind == "position":
        # A position file's cube decision: analysed, nobody has acted.
        cube = _source_cube(rec)
        if cube is not None:
            sg.records.append(SourceRecord(action="cube position", player=player, cube=cube,
                                           comment=_comment(xg, rec.CommentCube), board=_cube_board(rec)))
        return
    if rec.Double == 0:
        cube = _source_cube(rec)
        if cube is not None:
            pending_cube[player] = cube
        return
    if rec.Double != 1:
        return  # no cube decision available (−2) or a placeholder (−1)
    comment = _comment(xg, rec.CommentCube)
    sg.records.append(SourceRecord(action="double", player=player, cube=_source_cube(rec), comment=comment,
                                   board=_cube_board(rec)))
    opp = 1 - player
    if rec.Take == 1:
        sg.records.append(SourceRecord(action="take", player=opp))
    elif rec.Take == 0:
        sg.records.append(SourceRecord(action="drop", player=opp))
    elif rec.Take == 2:  # a beaver: the opponent redoubles at once and keeps the cube
        sg.records.append(SourceRecord(action="double", player=opp))
        sg.records.append(SourceRecord(action="take", player=player))


def _move_record(xg, rec: Move, cube: Optional[SourceCube]) -> Optional[SourceRecord]:
    if not rec.Played:
        return None  # a roll the game was resigned after: never played
    player = _side(rec.ActiveP)
    board = board_from_xg(rec.PositionI, rec.ActiveP)
    d1, d2 = rec.Dice
    play = play_from_xg_move(board, d1, d2, rec.Moves)
    after = board_from_xg(rec.PositionEnd)
    dm = rec.DataMoves
    analysed = _analysed(rec.ErrMove) and dm.n_candidates > 0
    candidates = None
    if analysed:
        candidates = []
        for i in range(dm.n_candidates):
            cp = play_from_xg_move(board, d1, d2, dm.Moves[i])
            if cp is None or not cp.steps:
                # the dance placeholder, or the illegal move a user entered
                # (XG lists it, marks the record invalid and does not count it)
                continue
            candidates.append(SourceCandidate(steps=cp.steps, equity=dm.Eval[i][6], probs=_probs(dm.Eval[i]),
                                              depth=xg_depth_label(dm.EvalLevel[i][0])))
        candidates = candidates or None
    return SourceRecord(
        action="move",
        player=player,
        dice=(d1, d2),
        steps=play.steps if play is not None else None,
        candidates=candidates,
        cube=cube,
        # -1000 is "not analysed"; any other value (nan too) goes to the builder's checks
        luck=None if rec.ErrLuck is None or rec.ErrLuck <= NOT_ANALYSED + 0.5 else rec.ErrLuck,
        comment=_comment(xg, rec.CommentMove),
        board=board.position_id(),
        result_board=after.position_id(),
        xg_counted=analysed and dm.Unused == 0 and rec.InvalidM == 0,
    )


# ---------------------------------------------------------------------------
# Durations from the clock (docs/xg-reader.md, "Durations from the clock")
# ---------------------------------------------------------------------------

# HeaderMatch.TimeSetting.ClockType: undocumented by XG.  Assumed: 0 no clock,
# 1 a delay clock (Bronstein or simple delay: the same charge), 2 an increment
# (Fischer) clock, Time2 the delay or increment, in the clock's unit (seconds).
CLOCK_NONE, CLOCK_DELAY, CLOCK_INCREMENT = 0, 1, 2
CLOCK_TYPES = {CLOCK_DELAY: "delay", CLOCK_INCREMENT: "increment"}
CLOCK_VERSION = 28  # TimeBot / TimeTop on the Cube records


@dataclass(frozen=True)
class Clock:
    kind: str  # "delay" or "increment"
    extra: int  # Time2: the delay or the increment, seconds


def match_clock(xg) -> Tuple[Optional[Clock], str]:
    """The match's clock, or ``None`` and why there are no durations."""
    m = xg.match
    ts = m.TimeSetting
    if xg.kind != "match" or m.Version is None or m.Version < CLOCK_VERSION or ts is None:
        return None, f"file version {m.Version} has no clock time left (version {CLOCK_VERSION} and later)"
    if ts.ClockType == CLOCK_NONE or not ts.Time1:
        return None, "no clock"
    if ts.ClockType not in CLOCK_TYPES:
        return None, f"unknown clock type {ts.ClockType}"
    if ts.Penalty:
        return None, "a penalty clock (what a time-out does to the clock is not documented)"
    if ts.Time1 < 0 or ts.Time2 is None or ts.Time2 < 0:
        return None, "a clock setting below zero"
    if all(c.TimeBot == 0 and c.TimeTop == 0 for c in xg.cubes):
        return None, "the clock time left is zero everywhere (no clock ran)"
    return Clock(CLOCK_TYPES[ts.ClockType], int(ts.Time2)), ""


def _left(c: Cube, player: int) -> int:
    """Clock time left of ``player`` (0 = XG's player 1, the bottom player)."""
    return c.TimeBot if player == 0 else c.TimeTop


class _Contradiction(BlunderError):
    """A turn the rule cannot explain: the file's clock is not what the rule
    assumes (another clock type, TimeBot/TimeTop the other way round)."""


def _used(clock: Clock, drop: int, mover: bool) -> float:
    """Seconds a clock's owner used from its drop over one turn.  A delay
    clock within the delay (drop 0) gives the delay: the time is at most
    that."""
    if clock.kind == "increment":
        used = drop + (clock.extra if mover else 0)
        if used < 0:
            raise _Contradiction("the clock went up by more than the increment")
        return float(used)
    if drop < 0:
        raise _Contradiction("a delay clock went up")
    return float(drop + clock.extra) if drop > 0 else float(clock.extra)


def turn_durations(xg) -> List[List[Tuple[Optional[float], Optional[float]]]]:
    """Per game, per Cube record (each turn starts with one): the seconds of
    (the mover's turn, the responder's answer to a double), ``None`` where
    not known.  Every entry is ``(None, None)`` without a usable clock
    (:func:`match_clock`), and when one turn contradicts the rule."""
    clock, _ = match_clock(xg)
    cube_at = [[i for i, r in enumerate(game.records) if isinstance(r, Cube)] for game in xg.games]
    none = [[(None, None)] * len(at) for at in cube_at]
    if clock is None:
        return none
    out = []
    try:
        for game, at in zip(xg.games, cube_at):
            turns = []
            for k, i in enumerate(at):
                j = at[k + 1] if k + 1 < len(at) else None
                moves = [r for r in game.records[i + 1 : j] if isinstance(r, Move)] if j is not None else []
                turns.append(_turn(clock, game.records[i], game.records[j] if j is not None else None, moves))
            out.append(turns)
    except _Contradiction:
        return none
    return out


def _turn(clock: Clock, start: Cube, end: Optional[Cube], moves: list) -> Tuple[Optional[float], Optional[float]]:
    """(mover, responder) seconds of the turn that ``start`` opens and
    ``end`` (the game's next Cube record) closes."""
    if end is None or start.ActiveP not in (1, -1):
        return None, None  # the game's last turn: no later snapshot to measure against
    if len(moves) > 1 or any(mv.ActiveP != start.ActiveP for mv in moves):
        return None, None  # not one turn of one player
    if start.Double == 1 and start.Take not in (0, 1):
        return None, None  # a beaver: whose clock ran when is not known
    p = _side(start.ActiveP)
    values = (_left(start, p), _left(start, 1 - p), _left(end, p), _left(end, 1 - p))
    if any(v is None or v < 0 for v in values):
        return None, None  # negative time left: a time-out, nothing to measure
    drop_m, drop_r = values[0] - values[2], values[1] - values[3]
    answered = start.Double == 1
    if not answered and drop_r != 0:
        raise _Contradiction("the opponent's clock moved without a double to answer")
    mover = _used(clock, drop_m, True)
    responder = _used(clock, drop_r, False) if answered else None
    if values[2] == 0 or (answered and start.Take == 0 and clock.kind == "increment"):
        # 0 left: the clock ran out, the rest is not measured; a pass ends
        # the game before the doubler's move earns an increment (or not)
        mover = None
    if values[3] == 0:
        responder = None
    return mover, responder


def _set_durations(match: Match, roles: list, durations: list) -> None:
    """Give each decision the duration of its source record's role."""
    for game, game_roles, turns in zip(match.games, roles, durations):
        for d in game.decisions:
            role = game_roles[d.seq] if 0 <= d.seq < len(game_roles) else None
            if role is None:
                continue
            turn, who = role
            if 0 <= turn < len(turns):
                d.duration = turns[turn][0 if who == "mover" else 1]
