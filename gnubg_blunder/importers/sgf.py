"""gnubg ``.sgf`` files (GM[6]) with their analysis -> decision model.

The syntax is read by :mod:`.sgf_syntax` (a real tokenizer), the values by
:mod:`.sgf_values` (one parser per value syntax, see
docs/sgf-properties.md); this module maps the nodes to the
same source records as the live ``gnubg.match()`` importer, so both go
through :func:`.build.build_match` and give the same decisions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from ..board.position import Board
from ..model import SOURCE_SGF, Match
from .build import build_match
from ..codec.candidates import SGF_BLACK_TO_MOVER
from .records import MatchImportError, SourceCandidates, SourceCube, SourceGame, SourceMatch, SourceRecord
from .sgf_syntax import SgfSyntaxError, read_sgf
from .sgf_values import (
    SgfValueError,
    decode_point,
    parse_cube_owner,
    parse_double_analysis,
    parse_luck,
    parse_mi,
    parse_int_value,
    parse_move,
    parse_move_candidate,
    parse_point_list,
    parse_result,
    parse_rules,
)

_COLOUR = {"W": 0, "B": 1}


def read_match(path, require_analysis: bool = True) -> Match:
    """Read one gnubg SGF file (one match or money session)."""
    path = Path(path)
    try:
        trees = read_sgf(path, source=path.name)
    except SgfSyntaxError as exc:
        where = f" at line {exc.line}:{exc.column}" if exc.line is not None else ""
        raise MatchImportError(f"not a readable SGF file: {exc.problem}{where}") from None
    try:
        src = source_from_trees(trees, str(path))
    except (SgfValueError, ValueError) as exc:
        if isinstance(exc, MatchImportError):
            raise
        raise MatchImportError(f"bad SGF value: {exc}") from None
    return build_match(src, require_analysis=require_analysis)


def _text(node, name) -> Optional[str]:
    v = node.get(name)
    return v if v not in (None, "") else None


def _depth_of(candidate) -> Optional[str]:
    if candidate.is_rollout:
        return "rollout"
    return None if candidate.plies is None else f"{candidate.plies}-ply"


def _steps_of(letters: str, colour: str) -> tuple:
    return tuple(
        (decode_point(letters[k], colour), decode_point(letters[k + 1], colour)) for k in range(0, len(letters), 2)
    )


# A candidate evaluated as gnubg writes it (``E ver 2`` and later):
# move, E, ver, 5 probabilities, the score, plies[C], 0, deterministic,
# noise, prune.  Any other value goes through ``parse_move_candidate``.
_E_CANDIDATE = re.compile(r"((?:[a-z]{2}){0,4}) E ver ([2-9]|[1-9]\d+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) "
                          r"(\d+)C? -?\d+ -?\d+ (\S+) -?\d+\Z")
_PLY_LABELS: dict = {}


def _candidates(node, colour: str) -> tuple:
    """(played index, candidates) of ``A[]``; (None, None) when not analysed.
    The candidates stay as read (letters and numbers, :class:`SourceCandidates`):
    the builder resolves only the plays it needs."""
    values = node.values("A")
    if not values:
        return None, None
    played = parse_int_value(values[0], "A[] played index")
    letters, equities, probs, depths = [], [], [], []
    fast = _E_CANDIDATE.match
    for v in values[1:]:
        m = fast(v)
        try:
            if m is None:
                raise ValueError
            p = (float(m[3]), float(m[4]), float(m[5]), float(m[6]), float(m[7]))
            eq = float(m[8])
            float(m[10])  # the noise: a number, as parse_move_candidate checks
            letters.append(m[1])
            equities.append(eq)
            probs.append(p)
            plies = m[9]
            depth = _PLY_LABELS.get(plies)
            if depth is None:
                depth = _PLY_LABELS[plies] = f"{int(plies)}-ply"
            depths.append(depth)
        except ValueError:
            c = parse_move_candidate(v)
            letters.append(c.move)
            equities.append(c.score)
            probs.append(c.probs)
            depths.append(_depth_of(c))
    if letters and not 0 <= played < len(letters):
        raise SgfValueError(f"A[]: played index {played} outside the {len(letters)} candidates")
    if colour == "B":
        letters = [x.translate(SGF_BLACK_TO_MOVER) for x in letters]
    return played, SourceCandidates(letters, equities, probs, depths)


def _cube(node, match_play: bool) -> Optional[SourceCube]:
    value = node.get("DA")
    if not value:
        return None
    da = parse_double_analysis(value)
    if da.is_rollout:
        depth = "rollout"
    else:
        depth = None if da.eval_context is None or da.eval_context.plies is None else f"{da.eval_context.plies}-ply"
    return SourceCube(nd=da.nd_cubeful, dt=da.dt_cubeful, in_mwc=match_play, depth=depth, probs=tuple(da.probs))


def _comment(node) -> Optional[str]:
    cs = [c for c in node.values("C") if c]
    return "\n\n".join(cs) if cs else None


def _set_board(node) -> tuple:
    """``PL AE AW AB`` -> (position ID with the player on roll, that player)."""
    turn = _COLOUR.get((node.get("PL") or "W").upper(), 0)
    sides = [[0] * 25, [0] * 25]
    for prop, colour in (("AW", "W"), ("AB", "B")):
        for letter in parse_point_list(node.values(prop)):
            point = decode_point(letter, colour)
            if point == 0:
                continue  # borne off
            sides[_COLOUR[colour]][point - 1] += 1
    board = Board(on_roll=sides[turn], opponent=sides[1 - turn])
    return board.position_id(), turn


def source_from_trees(trees: list, source_path: Optional[str] = None) -> SourceMatch:
    if not trees:
        raise MatchImportError("no game in the file")
    root0 = trees[0].root
    gm = root0.get("GM")
    if gm != "6":
        raise MatchImportError(f"not a backgammon SGF (GM[{gm or ''}], backgammon is GM[6])")
    mi0 = parse_mi(root0.values("MI")) if "MI" in root0 else {"length": 0}
    rules0 = parse_rules(root0.get("RU"))
    app = root0.get("AP") or ""
    version = app.split(":", 1)[1] if app.startswith("GNU Backgammon:") else None
    length = int(mi0.get("length", 0))
    date = _text(root0, "DT")
    src = SourceMatch(
        players=(root0.get("PW") or "White", root0.get("PB") or "Black"),
        length=length,
        source=SOURCE_SGF,
        engine="gnubg",
        engine_version=version,
        date=date[:10] if date else None,
        event=_text(root0, "EV"),
        round=_text(root0, "RO"),
        place=_text(root0, "PC"),
        annotator=_text(root0, "AN"),
        comment=_text(root0, "GC"),
        crawford_rule=rules0.crawford,
        jacoby=rules0.jacoby,
        variation=rules0.variation,
        ratings=(_text(root0, "WR"), _text(root0, "BR")),
        source_path=source_path,
    )
    for tree in trees:
        root = tree.root
        if root.get("GM") not in (None, "6"):
            raise MatchImportError(f"a game of another kind (GM[{root.get('GM')}]) in the file")
        mi = parse_mi(root.values("MI")) if "MI" in root else {"ws": 0, "bs": 0}
        rules = parse_rules(root.get("RU"))
        result = parse_result(root.get("RE")) if root.get("RE") else None
        auto = root.get("CV")
        game = SourceGame(
            score=(int(mi.get("ws", 0)), int(mi.get("bs", 0))),
            crawford=rules.crawford_game,
            winner=result.winner_player if result else None,
            points=result.points if result else None,
            resigned=result.resigned if result else False,
            initial_cube=int(auto) if auto and auto.isdigit() else 1,
        )
        nodes = tree.nodes[1:]
        for node in nodes:
            rec = _record(node, length > 0)
            if rec is None:
                continue
            game.records.append(rec)
        if result and result.resigned:
            game.records.append(SourceRecord(action="resign", player=1 - result.winner_player))
        src.games.append(game)
    return src


def _record(node, match_play: bool) -> Optional[SourceRecord]:
    for colour in ("W", "B"):
        value = node.get(colour)
        if value is None:
            continue
        mv = parse_move(value, colour)
        player = _COLOUR[colour]
        if mv.kind == "move":
            played_index, cands = _candidates(node, colour)
            return SourceRecord(
                action="move",
                player=player,
                dice=mv.dice,
                steps=mv.steps,
                candidates=cands,
                played_index=played_index,
                cube=_cube(node, match_play),
                luck=parse_luck(node.get("LU")) if node.get("LU") is not None else None,
                comment=_comment(node),
            )
        if mv.kind == "double":
            return SourceRecord(action="double", player=player, cube=_cube(node, match_play), comment=_comment(node))
        # take/drop nodes repeat the double's DA: the builder uses the double's
        return SourceRecord(action=mv.kind, player=player, comment=_comment(node))
    if "AE" in node or "AW" in node or "AB" in node:
        pid, turn = _set_board(node)
        return SourceRecord(action="set", board=pid, set_turn=turn, player=turn)
    if "CV" in node or "CP" in node:
        cv = node.get("CV")
        return SourceRecord(
            action="set",
            set_cube_value=int(cv) if cv and cv.isdigit() else None,
            set_cube_owner=parse_cube_owner(node.get("CP")) if node.get("CP") else None,
        )
    return None  # set dice (DI), comments on the root, ...
