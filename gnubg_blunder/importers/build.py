"""Source records -> the decision model (SPEC §1).

The one place where a gnubg match (live or SGF) becomes decisions: the board
is replayed move by move (so every decision has its position ID, and legal
plays are counted by our own move generator, SPEC §2), the cube is tracked,
match-play cube figures are normalised with the MET, and each decision's
error e and MWC factor are set.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Optional

from ..board.moves import IllegalMove, apply_steps, count_legal_plays, find_play
from ..board.position import Board
from ..labels import label_match
from ..met import default_met
from ..model import (
    BEAVER,
    BEAVER_CLOSE,
    CHECKER,
    DOUBLE,
    NO_DOUBLE,
    PASS,
    TAKE,
    Analysis,
    Decision,
    Game,
    LazyCandidates,
    Match,
    Roll,
)
from ..codec.candidates import steps_text, text_steps
from .records import MatchImportError, NoAnalysis, SourceCandidates, SourceCube, SourceMatch

# Depth ranks: gnubg plies; a rollout ranks above any ply (SPEC §14).
ROLLOUT_DEPTH = 100.0


# XG's levels on gnubg's depth scale (SPEC §14; docs/figures.md): XG's n-ply
# is gnubg's (n−1)-ply; XG Roller levels and rollouts rank above any ply.
XG_ROLLER_RANKS = {"XGR": 50.0, "XGR+": 51.0, "XGR++": 52.0}


def depth_rank(label: Optional[str]) -> Optional[float]:
    """A depth label on one scale, in gnubg plies: "2-ply" (gnubg) = 2,
    "XG 3-ply" = 2, XGR/XGR+/XGR++ = 50/51/52, "rollout" = 100."""
    if not label:
        return None
    if label.startswith("rollout"):
        return ROLLOUT_DEPTH
    if label in XG_ROLLER_RANKS:
        return XG_ROLLER_RANKS[label]
    xg = label.startswith("XG ")
    core = label[3:] if xg else label
    if core.endswith("-ply"):
        try:
            n = float(core[:-4])
        except ValueError:
            return None
        return n - 1 if xg else n
    return None


def analysis_depth(depths: list) -> tuple:
    """(rank, label) of a match's analysis: the most common depth of its
    decisions (gnubg leaves clear-cut plays at 0-ply whatever the setting),
    "+" when some decisions were looked at deeper (e.g. a rollout)."""
    ranks = [r for r in (depth_rank(d) for d in depths) if r is not None]
    if not ranks:
        return None, None
    mode = max(set(ranks), key=lambda r: (ranks.count(r), r))
    label = next(d for d in depths if depth_rank(d) == mode)
    if max(ranks) > mode:
        label += "+"
    return mode, label


# -- values no analysis writes (docs/reliability.md, "Hostile text and impossible values") -----
#
# An analysis' match winning chances lie in [0, 1]; a money equity, normalised
# to the cube before any double, is at most a backgammon (3) at a beavered
# cube (x4): 12.  Beyond these bounds, with a margin for rollout noise, or
# not a finite number at all (nan, inf), a value is no analysis': the file is
# refused with a line naming the game and move, and nothing of it is stored.
# A money session's score (points won before the game) is stored in 16 bits
# (the array cache, arrays.py); no real session comes near it.
MAX_MONEY_SCORE = 32767
MWC_MARGIN = 0.5  # MWC accepted in [-0.5, 1.5]; match-play EMG: what those give at the decision's score and cube
MONEY_EQUITY_BOUND = 16.0  # money EMG accepted in [-16, 16] (12 possible at most, + 4 for rollout noise)
LUCK_MWC_BOUND = 1.0 + 2 * MWC_MARGIN  # a roll's luck in match play: at most a whole match (+ the margins) in MWC


def _where(game_no: int, seq: int) -> str:
    return f"game {game_no + 1}, move {seq + 1}"


def _impossible(where: str, what: str, value: float, problem: str) -> MatchImportError:
    return MatchImportError(f"{where}: {what} is {value!r}, {problem}; no analysis writes it "
                            "(the file is refused, nothing stored)")


def check_mwc(value: float, what: str, where: str) -> None:
    """Refuse an MWC an analysis cannot give (not finite, or outside [0, 1]
    by more than ``MWC_MARGIN``)."""
    if not math.isfinite(value):
        raise _impossible(where, what, value, "not a number")
    if not -MWC_MARGIN <= value <= 1 + MWC_MARGIN:
        raise _impossible(where, what, value, f"outside {-MWC_MARGIN:g} to {1 + MWC_MARGIN:g} (match winning chances)")


def equity_bounds(met, length: int, score_self: int, score_opp: int, cube: int, crawford: bool,
                  player: int) -> tuple:
    """(low, high) EMG an analysis can write for ``player`` at this score and
    cube: money +-``MONEY_EQUITY_BOUND``; match play, the EMG of MWC
    -``MWC_MARGIN`` and 1 + ``MWC_MARGIN``."""
    if not length:
        return -MONEY_EQUITY_BOUND, MONEY_EQUITY_BOUND
    lo, hi = (met.mwc2eq(m, length, score_self, score_opp, cube, crawford, player=player)
              for m in (-MWC_MARGIN, 1 + MWC_MARGIN))
    return min(lo, hi), max(lo, hi)


def check_equity(value: float, what: str, where: str, bounds: tuple) -> None:
    """Refuse an equity (EMG) an analysis cannot give: not finite, or outside ``bounds``."""
    if not math.isfinite(value):
        raise _impossible(where, what, value, "not a number")
    lo, hi = bounds
    if not lo <= value <= hi:
        raise _impossible(where, what, value, f"outside {lo:.2f} to {hi:.2f} EMG at this score and cube")


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def calendar_date(text: Optional[str]) -> tuple:
    """(the date, warnings): an ISO date (YYYY-MM-DD) that is a day of the
    calendar is kept; any other (2026-13-45, 2025-11) is dropped with a
    warning: the match is valid, it is stored undated."""
    if text is None:
        return None, []
    if _ISO_DATE.fullmatch(text):
        try:
            _dt.date.fromisoformat(text)
            return text, []
        except ValueError:
            pass
    return None, [f"date {ascii(text[:40])} is not a calendar date: the match is stored undated"]


def cube_action(nd: float, dt: float, dp: float) -> str:
    """The analysis' best cube action (SPEC §14: NoDouble, DoubleTake,
    DoublePass, TooGood), from the doubler's cubeful equities."""
    response = min(dt, dp)
    if response >= nd:
        return "double/take" if dt <= dp else "double/pass"
    return "too good" if dt > dp else "no double"


def cube_errors(nd: float, dt: float, dp: float) -> dict:
    """e of SPEC §1 for each cube choice, in the pre-double cube."""
    r = min(dt, dp)
    b = max(nd, r)
    return {
        NO_DOUBLE: b - nd,
        DOUBLE: b - r,
        TAKE: dt - r,
        PASS: dp - r,
    }


def _format_steps(steps) -> str:
    def p(n):
        return "bar" if n == 25 else "off" if n == 0 else str(n)

    return " ".join(f"{p(a)}/{p(b)}" for a, b in steps)


class _Replay:
    """Board, cube and score of one game while its records are read."""

    def __init__(self, match: SourceMatch, game_no: int, sgame):
        self.match = match
        self.game_no = game_no
        self.sgame = sgame
        self.board: Optional[Board] = None
        self.board_player: Optional[int] = None
        self.cube = sgame.initial_cube or 1
        self.owner = -1
        self.gnubg_owner = -1  # the owner as gnubg's statistics replay sees it
        self.met = default_met()
        self._memo: dict = {}  # (what, player, cube) -> MWC factor or bounds: the score is the game's
        self._pids: dict = {}  # Board -> its position ID

    # -- board -----------------------------------------------------------
    def pid(self, board: Board) -> str:
        """``board.position_id()``, computed once a board of this game."""
        got = self._pids.get(board)
        if got is None:
            if len(self._pids) > 4096:
                self._pids.clear()
            got = self._pids[board] = board.position_id()
        return got

    def board_for(self, player: int, given: Optional[str]) -> Board:
        if given:
            if self.board is not None:  # the replay's board, when it is the one given (the live match gives each)
                mine = self.board if self.board_player == player else self.board.swapped()
                if self.pid(mine) == given:
                    self.board, self.board_player = mine, player
                    return mine
            b = Board.from_position_id(given)
            self.board, self.board_player = b, player
            return b
        if self.board is None:
            self.board, self.board_player = Board.initial(), player
        elif self.board_player != player:
            self.board, self.board_player = self.board.swapped(), player
        return self.board

    # -- score helpers -----------------------------------------------------
    def scores(self, player: int):
        s = self.sgame.score
        return s[player], s[1 - player]

    def mwc_per_emg(self, player: int, cube: int) -> Optional[float]:
        if not self.match.length:
            return None
        key = ("mpe", player, cube)
        got = self._memo.get(key)
        if got is None:
            me, opp = self.scores(player)
            got = self._memo[key] = self.met.mwc_per_emg(self.match.length, me, opp, cube, self.sgame.crawford,
                                                         player=player)
        return got

    def to_emg(self, value: float, in_mwc: bool, player: int, cube: int) -> float:
        if not in_mwc:
            return value
        me, opp = self.scores(player)
        return self.met.mwc2eq(value, self.match.length, me, opp, cube, self.sgame.crawford, player=player)

    def bounds(self, player: int, cube: int) -> tuple:
        """The EMG an analysis can write for ``player`` at this score and cube."""
        key = ("bounds", player, cube)
        got = self._memo.get(key)
        if got is None:
            me, opp = self.scores(player)
            got = self._memo[key] = equity_bounds(self.met, self.match.length, me, opp, cube,
                                                  bool(self.sgame.crawford), player)
        return got

    def check(self, value: float, in_mwc: bool, what: str, seq: int, player: int, cube: int) -> None:
        """Refuse a value no analysis writes (:func:`check_mwc`, :func:`check_equity`)."""
        where = _where(self.game_no, seq)
        if in_mwc:
            check_mwc(value, what, where)
        else:
            check_equity(value, what, where, self.bounds(player, cube))

    def normalise_cube(self, cube: Optional[SourceCube], player: int, seq: int):
        if cube is None:
            return None
        self.check(cube.nd, cube.in_mwc, "the no-double figure of the cube analysis", seq, player, self.cube)
        self.check(cube.dt, cube.in_mwc, "the double/take figure of the cube analysis", seq, player, self.cube)
        nd = self.to_emg(cube.nd, cube.in_mwc, player, self.cube)
        dt = self.to_emg(cube.dt, cube.in_mwc, player, self.cube)
        return nd, dt, 1.0

    def decision(self, kind: str, player: int, seq: int, position_id, **kw) -> Decision:
        me, opp = self.scores(player)
        return Decision(
            kind=kind,
            player=player,
            game=self.game_no,
            seq=seq,
            position_id=position_id,
            cube_value=self.cube,
            cube_owner=self.owner,
            score_self=me,
            score_opp=opp,
            crawford=bool(self.sgame.crawford),
            mwc_per_emg=self.mwc_per_emg(player, self.cube),
            **kw,
        )


def build_match(src: SourceMatch, require_analysis: bool = True) -> Match:
    """Turn a source's records into the decision model.  The store wants an
    analysis (``require_analysis``); a conversion to SGF or .mat does not."""
    if src.length < 0:
        raise MatchImportError(f"match length {src.length} is not a valid length")
    if src.variation not in (None, "Standard"):
        raise MatchImportError(f"variation {src.variation!r} is not standard backgammon")
    if require_analysis and not _has_analysis(src):
        raise NoAnalysis("it has no analysis (gnubg files: analyse them in gnubg first, "
                         "or use `gnubg-blunder analyse`)")
    date, warnings = calendar_date(src.date)
    games = []
    depths = []
    for gno, sgame in enumerate(src.games):
        games.append(_build_game(src, gno, sgame, depths))
    low, label = analysis_depth(depths)
    analysis = Analysis(
        engine=src.engine,
        engine_version=src.engine_version,
        depth=low,
        depth_label=label,
        met="Kazaross-XG2" if src.length else None,
        met_assumed=bool(src.length),
    )
    match = Match(
        players=tuple(src.players),
        length=src.length,
        source=src.source,
        games=games,
        analysis=analysis,
        date=date,
        event=src.event,
        round=src.round,
        place=src.place,
        annotator=src.annotator,
        comment=src.comment,
        crawford_rule=src.crawford_rule,
        jacoby=src.jacoby,
        variation=src.variation or "Standard",
        source_path=src.source_path,
        ratings=src.ratings,
        kind=src.kind,
        warnings=warnings,
    )
    label_match(match)
    return match


def _has_analysis(src: SourceMatch) -> bool:
    return any(
        r.candidates is not None or r.cube is not None or r.luck is not None
        for g in src.games for r in g.records
    )


def _build_game(src: SourceMatch, gno: int, sgame, depths: list) -> Game:
    if src.length == 0:  # a match's score is checked against its length (met.py)
        for s in sgame.score:
            if not 0 <= s <= MAX_MONEY_SCORE:
                raise MatchImportError(f"game {gno + 1}: score {s} impossible in a money session "
                                       f"(0 to {MAX_MONEY_SCORE} points)")
    rp = _Replay(src, gno, sgame)
    game = Game(
        number=gno,
        score=tuple(sgame.score),
        crawford=bool(sgame.crawford),
        winner=sgame.winner,
        points=sgame.points,
        resigned=sgame.resigned,
    )
    double = None  # the open double: _OpenDouble
    for seq, rec in enumerate(sgame.records):
        try:
            if rec.action == "set":
                if rec.set_cube_value:
                    rp.cube = rec.set_cube_value
                if rec.set_cube_owner is not None:
                    rp.owner = rp.gnubg_owner = rec.set_cube_owner
                if rec.board:
                    turn = rec.set_turn if rec.set_turn is not None else rec.player
                    if turn is not None:
                        rp.board_for(turn, rec.board)
            elif rec.action == "move":
                if _pending_roll(rp, sgame, seq, rec):
                    continue
                _move_record(rp, game, seq, rec, depths)
                double = None
            elif rec.action == "double":
                if double is not None and double.last != rec.player:
                    _beaver(rp, game, seq, rec, double)
                    continue
                board = rp.board_for(rec.player, rec.board)
                cube = rp.normalise_cube(rec.cube, rec.player, seq)
                d = rp.decision(DOUBLE, rec.player, seq, board.position_id(), played_move="double",
                                comment=rec.comment)
                if cube is not None:
                    _set_cube(d, cube, DOUBLE, rec.cube, depths)
                game.decisions.append(d)
                double = _OpenDouble(rec.player, cube, board.position_id(), rec.cube)
            elif rec.action in ("take", "drop"):
                if double is None:
                    raise MatchImportError(f"game {gno + 1}: a {rec.action} without a double")
                _response(rp, game, seq, rec, double, depths)
                double = None
            elif rec.action == "cube position":
                # a cube decision to be made (a position file): the analysis
                # without a played action, so without an error
                board = rp.board_for(rec.player, rec.board)
                cube = rp.normalise_cube(rec.cube, rec.player, seq)
                d = rp.decision(NO_DOUBLE, rec.player, seq, board.position_id(), comment=rec.comment)
                _set_cube(d, cube, NO_DOUBLE, rec.cube, depths)
                d.error = None
                game.decisions.append(d)
            elif rec.action != "resign":
                raise MatchImportError(f"game {gno + 1}: unknown record {rec.action!r}")
        except IllegalMove as exc:
            raise MatchImportError(f"game {gno + 1}, record {seq + 1}: illegal move ({exc})") from None
        except ValueError as exc:  # an impossible score or cube for the MET
            raise MatchImportError(f"game {gno + 1}, record {seq + 1}: {exc}") from None
    return game


def _pending_roll(rp: _Replay, sgame, seq: int, rec) -> bool:
    """gnubg ends an unfinished game with the roll still to be played: a
    move record without a move or analysis that looks like a dance but is
    not one (legal plays exist).  It is no decision and no roll."""
    if rec.steps or rec.candidates is not None or rec.luck is not None:
        return False
    if sgame.winner is not None or seq != len(sgame.records) - 1:
        return False
    board = rp.board_for(rec.player, rec.board)
    return bool(count_legal_plays(board, *rec.dice))


class _OpenDouble:
    """A double waiting for its answer, and the beavers that followed it."""

    def __init__(self, doubler, cube, position_id, source_cube):
        self.doubler = doubler
        self.last = doubler  # who made the last double record (beavers alternate)
        self.cube = cube  # (nd, dt, dp) normalised, or None
        self.position_id = position_id
        self.source_cube = source_cube
        self.beavers = 0


def _responder_position(double: _OpenDouble) -> Optional[str]:
    """The double's position seen by the responder (on roll)."""
    pos = double.position_id
    return Board.from_position_id(pos).swapped().position_id() if pos else None


def _beaver(rp: _Replay, game: Game, seq: int, rec, double: _OpenDouble) -> None:
    """A double record answering an open double: a beaver, or a raccoon (money).

    SPEC §2: the beaver (the first such record, by the responder) answers the
    double and is the responder's take decision, judged take vs pass on the
    double's analysis (e = DT − R, i.e. DT − DP when DT > DP, else 0) in the
    cube before the double; the choice of beaver over a plain take is not
    analysed.  Raccoons (every later record of the chain) are not decisions.
    gnubg's statistics see no decision here (``BEAVER``: counting.py keeps it
    out of the gnubg cross-check)."""
    if not double.beavers:
        d = rp.decision(TAKE, rec.player, seq, _responder_position(double), played_move="beaver",
                        comment=rec.comment, beaver_take=BEAVER)
        if double.cube is not None:
            # not among the match's depths: its label does not change with the beavers
            _set_cube(d, double.cube, TAKE, double.source_cube, [])
        game.decisions.append(d)
    double.beavers += 1
    double.last = rec.player


def _response(rp: _Replay, game: Game, seq: int, rec, double: _OpenDouble, depths: list) -> None:
    kind = TAKE if rec.action == "take" else PASS
    responder = rec.player if rec.player is not None else 1 - double.last
    if double.beavers:
        # The answer to the last beaver or raccoon, by the player who did not
        # make it (the original doubler after one beaver).  SPEC §2: not a
        # decision (nothing analyses it; the beaver was the take).  gnubg's
        # statistics file it as that player's take judged on the original
        # double's analysis, at the cube the beavers reached: kept, flagged
        # ``BEAVER_CLOSE``, for the gnubg cross-check only (counting.py).
        d = rp.decision(kind, responder, seq, double.position_id, played_move=kind, comment=rec.comment,
                        beaver_take=BEAVER_CLOSE)
        d.cube_value = rp.cube * 2 ** double.beavers
    else:
        d = rp.decision(kind, responder, seq, _responder_position(double), played_move=kind, comment=rec.comment)
    if double.cube is not None:
        _set_cube(d, double.cube, kind, double.source_cube, depths)
    game.decisions.append(d)
    if kind == TAKE:
        rp.cube *= 2 ** (1 + double.beavers)
        # The taker owns the cube; after beavers the last beaverer keeps it.
        rp.owner = (1 - double.doubler) if not double.beavers else double.last
        # gnubg's own replay gives the cube to the opponent of whoever made
        # the last double record; it differs from the rules after beavers.
        rp.gnubg_owner = 1 - double.last


def _set_cube(d: Decision, cube: tuple, kind: str, scube: SourceCube, depths: list) -> None:
    nd, dt, dp = cube
    d.nd, d.dt, d.dp = nd, dt, dp
    d.error = cube_errors(nd, dt, dp)[kind]
    action = cube_action(nd, dt, dp)
    if kind in (TAKE, PASS):
        d.best_move = "take" if dt <= dp else "pass"
    else:
        d.best_move = action
    d.depth = scube.depth if scube else None
    probs = scube.probs if scube else None
    d.cube_probs = tuple(float(p) for p in probs) if probs and len(probs) == 5 and None not in probs else None
    if d.depth:
        depths.append(d.depth)


def _move_record(rp: _Replay, game: Game, seq: int, rec, depths: list) -> None:
    p = rec.player
    board = rp.board_for(p, rec.board)
    pos = rp.pid(board)
    # The player's cube decision before rolling (a no double: they rolled).
    cube = rp.normalise_cube(rec.cube, p, seq)
    _check_luck(rp, seq, rec.luck, p)
    if cube is not None:
        d = rp.decision(NO_DOUBLE, p, seq, pos, played_move="no double",
                        gnubg_dead_cube=rp.gnubg_owner not in (-1, p))
        _set_cube(d, cube, NO_DOUBLE, rec.cube, depths)
        game.decisions.append(d)
    d1, d2 = rec.dice
    plays = count_legal_plays(board, d1, d2)
    steps = tuple(rec.steps or ())
    played = find_play(board, d1, d2, steps) if plays and rec.steps is not None else None
    if played is not None:
        after = played.result
    elif not plays and not steps and rec.steps is not None:
        after = board  # a dance
    else:
        # A move that is no legal play for the roll: gnubg loads such moves
        # and XG marks them invalid.  The roll and its luck stand; there is
        # no decision to judge.
        after = _illegal_result(board, steps, rec.result_board)
        if after is None:
            raise MatchImportError(
                f"game {rp.game_no + 1}, record {seq + 1}: move {_format_steps(steps) or '(none)'} "
                f"cannot be played with {d1}{d2}"
            )
        game.rolls.append(Roll(player=p, game=rp.game_no, seq=seq, dice=(d1, d2), position_id=pos,
                               position_after=rp.pid(after), cube_value=rp.cube, luck=rec.luck,
                               mwc_per_emg=rp.mwc_per_emg(p, rp.cube)))
        rp.board = after
        return
    mpe = rp.mwc_per_emg(p, rp.cube)
    game.rolls.append(
        Roll(
            player=p,
            game=rp.game_no,
            seq=seq,
            dice=(d1, d2),
            position_id=pos,
            position_after=rp.pid(after),
            cube_value=rp.cube,
            luck=rec.luck,
            mwc_per_emg=mpe,
        )
    )
    if played is not None:
        cands, played_index = _candidates(rp, board, d1, d2, rec, after, seq)
        d = rp.decision(
            CHECKER,
            p,
            seq,
            pos,
            dice=(d1, d2),
            played_move=played.notation,
            n_legal=plays,
            candidates=cands,
            played_index=played_index,
            comment=rec.comment,
            xg_counted=rec.xg_counted,
        )
        if cands:
            d.best_move = cands.resolved(0)[0]
            d.depth = cands.depths[0]
            if d.depth and len(cands) > 1:  # gnubg does not evaluate a forced play at depth
                depths.append(d.depth)
            eqs = cands.equities()
            if played_index is not None and eqs[0] is not None and eqs[played_index] is not None:
                d.error = max(0.0, eqs[0] - eqs[played_index])
        game.decisions.append(d)
    rp.board = after  # a comment on a dance has no decision to attach to: it is not kept


def _check_luck(rp: _Replay, seq: int, luck: Optional[float], player: int) -> None:
    """Refuse a luck no analysis writes: not finite (unknown luck, gnubg's
    -inf, is None by now), or larger than the equities allow: money
    ``MONEY_EQUITY_BOUND``, match play ``LUCK_MWC_BOUND`` in MWC."""
    if luck is None:
        return
    where = _where(rp.game_no, seq)
    if not math.isfinite(luck):
        raise _impossible(where, "the luck of the roll", luck, "not a number")
    mpe = rp.mwc_per_emg(player, rp.cube)
    if mpe is None:
        if abs(luck) > MONEY_EQUITY_BOUND:
            raise _impossible(where, "the luck of the roll", luck,
                              f"outside {-MONEY_EQUITY_BOUND:g} to {MONEY_EQUITY_BOUND:g} EMG")
    elif abs(luck) * mpe > LUCK_MWC_BOUND:
        bound = LUCK_MWC_BOUND / mpe
        raise _impossible(where, "the luck of the roll", luck, f"outside {-bound:.2f} to {bound:.2f} EMG at this score "
                          "and cube")


def _illegal_result(board: Board, steps: tuple, result_board: Optional[str]) -> Optional[Board]:
    """Where an illegal move leaves the checkers: as the source says, or by
    applying its steps (None when even that is impossible)."""
    if result_board:
        return Board.from_position_id(result_board)
    if not steps:
        return None
    try:
        return apply_steps(board, steps)
    except IllegalMove:
        try:
            return apply_steps(board, sorted(steps, reverse=True))
        except IllegalMove:
            return None


def _source_list(rp: _Replay, board: Board, d1: int, d2: int, rec, seq: int) -> SourceCandidates:
    """A list of :class:`SourceCandidate` (XG, the live match) in the form
    the SGF reader gives: letters and numbers; an MWC (rollouts in match
    play) checked and converted to EMG here."""
    letters, eqs, probs, depths = [], [], [], []
    for i, sc in enumerate(rec.candidates):
        try:
            letters.append(steps_text(sc.steps))
        except (IndexError, TypeError, ValueError):
            raise MatchImportError(
                f"game {rp.game_no + 1}: candidate {_format_steps(sc.steps)} is not a legal play with {d1}{d2}"
            ) from None
        eq = sc.equity
        if eq is None and sc.mwc is not None:
            what = f"the equity of candidate {i + 1} ({_notation(board, d1, d2, letters[-1])})"
            rp.check(sc.mwc, bool(rp.match.length), what, seq, rec.player, rp.cube)
            eq = rp.to_emg(sc.mwc, bool(rp.match.length), rec.player, rp.cube)
            if sc.written is not None and eq == eq and abs(eq) != float("inf"):
                eq = float(sc.written % eq)  # the live match: as gnubg's SGF file writes it (gnubg_match.py)
        eqs.append(eq)
        probs.append(sc.probs)
        depths.append(sc.depth)
    return SourceCandidates(letters, eqs, probs, depths)


def _notation(board: Board, d1: int, d2: int, letters: str) -> str:
    play = find_play(board, d1, d2, text_steps(letters))
    if play is None:
        raise MatchImportError(f"candidate {_format_steps(text_steps(letters))} is not a legal play with {d1}{d2}")
    return play.notation


class _Resolver:
    """A candidate's notation and resulting position ID from its steps
    (``LazyCandidates.resolve``): an object, not a closure, so that a match
    read by another process comes back whole (``import --jobs``); the
    position IDs of the game's boards are shared while the game is built."""

    __slots__ = ("board", "d1", "d2", "where", "pid")

    def __init__(self, board: Board, d1: int, d2: int, where: str, pid=None):
        self.board, self.d1, self.d2, self.where, self.pid = board, d1, d2, where, pid

    def __call__(self, letters):
        play = find_play(self.board, self.d1, self.d2, text_steps(letters))
        if play is None:
            raise MatchImportError(f"{self.where}: candidate {_format_steps(text_steps(letters))} is not a legal "
                                   f"play with {self.d1}{self.d2}")
        return play.notation, (self.pid(play.result) if self.pid is not None else play.result.position_id())

    def __getstate__(self):  # the game's cache of IDs stays behind
        return (self.board, self.d1, self.d2, self.where)

    def __setstate__(self, state):
        self.board, self.d1, self.d2, self.where = state
        self.pid = None


def _candidates(rp: _Replay, board: Board, d1: int, d2: int, rec, after: Board, seq: int):
    """(the decision's candidates, index of the played one).  Only the
    played and the first play are resolved (their notation and board): the
    others are kept as read, with their numbers checked (SPEC: the figures
    need the played, the best, every equity and the count of legal plays)."""
    if not rec.candidates:
        return [], None
    src = rec.candidates
    if not isinstance(src, SourceCandidates):
        src = _source_list(rp, board, d1, d2, rec, seq)
    target = rp.pid(after)
    where = f"game {rp.game_no + 1}"

    resolve = _Resolver(board, d1, d2, where, rp.pid)

    lo, hi = rp.bounds(rec.player, rp.cube)
    for i, eq in enumerate(src.equities):
        if eq is not None and not lo <= eq <= hi:  # nan fails too
            rp.check(eq, False, f"the equity of candidate {i + 1} ({resolve(src.letters[i])[0]})", seq,
                     rec.player, rp.cube)
    cands = LazyCandidates(src.letters, src.equities, src.probs, src.depths, resolve)
    n = len(cands)
    played_index = None
    k = rec.played_index
    if k is not None and 0 <= k < n and cands.resolved(k)[1] == target:
        played_index = k  # the source's own index (gnubg's), checked against the board the move left
    else:
        for i in range(n):
            if cands.resolved(i)[1] == target:
                played_index = i
                break
    cands.resolved(0)
    return cands, played_index
