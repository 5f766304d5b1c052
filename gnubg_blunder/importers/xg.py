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
* a roll that was never played (the game was resigned after it) is no roll.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..board.ids import board_from_xg, play_from_xg_move
from ..model import SOURCE_XG, Match
from .build import build_match
from .records import MatchImportError, SourceCandidate, SourceCube, SourceGame, SourceMatch, SourceRecord
from .xg_format import Cube, Move, XgFormatError, read_xg

NOT_ANALYSED = -1000.0
XG_MONEY = 99999

# XG's analysis levels -> the depth labels of build.depth_rank (docs/figures.md):
# level L (0..7) is XG's (L+1)-ply, i.e. gnubg's L-ply.
XG_LEVEL_LABELS = {100: "rollout", 1000: "XGR", 1001: "XGR+", 1002: "XGR++"}


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
    src = source_from_xg(xg, str(path))
    return build_match(src, require_analysis=require_analysis)


def source_from_xg(xg, source_path: Optional[str] = None) -> SourceMatch:
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
    for game in xg.games:
        src.games.append(_game(xg, game, length))
    if not src.games:
        raise MatchImportError("the file holds no game")
    return src


def _game(xg, game, length: int) -> SourceGame:
    h, f = game.header, game.footer
    winner = points = None
    resigned = False
    if f is not None and f.Winner in (1, -1):
        winner, points = _side(f.Winner), int(f.PointsWon)
        resigned = f.Termination % 1000 >= 100  # +100 resigned, +1000 settled
    sg = SourceGame(
        score=(int(h.Score1), int(h.Score2)),
        crawford=bool(h.CrawfordApply) and length > 0,
        winner=winner,
        points=points,
        resigned=resigned,
        initial_cube=2 ** int(h.NumberOfAutoDoubles) if h.NumberOfAutoDoubles and length == 0 else 1,
    )
    pending_cube = {}  # player -> SourceCube of a no double, for that player's next roll
    for rec in game.records:
        if isinstance(rec, Cube):
            _cube_record(xg, rec, sg, pending_cube)
        elif isinstance(rec, Move):
            r = _move_record(xg, rec, pending_cube.pop(_side(rec.ActiveP), None))
            if r is not None:
                sg.records.append(r)
    return sg


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
