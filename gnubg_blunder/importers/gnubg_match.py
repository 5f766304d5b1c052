"""The live match inside gnubg: ``gnubg.match()`` -> decision model.

The dict's schema is in ``../shared/docs/gnubg-python.md``.  This module
only reads the dict (it never imports ``gnubg``), so the same code runs on a
JSON dump of ``gnubg.match()`` outside gnubg, which the tests use.
"""

from __future__ import annotations

import math
from typing import Optional

from ..model import SOURCE_GNUBG, Match
from ..codec.candidates import steps_text
from .build import build_match
from .records import (
    MatchImportError,
    SourceCandidate,
    SourceCandidates,
    SourceCube,
    SourceGame,
    SourceMatch,
    SourceRecord,
)

_SIDE = {"X": 0, "O": 1}


# One match, one set of stored numbers: gnubg's values as gnubg's own SGF writer
# prints them (sgf.c: evaluations "%.6f", rollouts "%.10g", luck "%.5f"), so that
# a match stored live and the same match imported from its SGF file store equal
# columns (issue 29; tests/test_live_equals_sgf.py).  gnubg's floats are C floats:
# their digits past the 6th decimal are noise the SGF file never carries.
_EVALUATION, _ROLLOUT, _LUCK = "%.6f", "%.10g", "%.5f"


def _number(x, written: str = _EVALUATION) -> Optional[float]:
    """An equity or probability as gnubg's SGF writer prints it (None:
    absent).  A value no analysis writes (nan, inf) is kept: the builder
    refuses the match, naming it."""
    if x is None:
        return None
    x = float(x)
    return float(written % x) if math.isfinite(x) else x


def _numbers(xs, written: str = _EVALUATION) -> Optional[tuple]:
    return tuple(_number(x, written) for x in xs) if xs else None


def _luck(x) -> Optional[float]:
    """``luck-value``: -inf (luck never computed) is unknown (None), as in
    SGF files; any other value goes to the builder's checks."""
    x = _number(x, _LUCK)
    return None if x is not None and math.isinf(x) and x < 0 else x


def _plies_label(ctx: dict, default: dict) -> str:
    plies = ctx.get("plies", default.get("plies"))
    return None if plies is None else f"{plies}-ply"


def _steps(move) -> tuple:
    return tuple((int(a), int(b)) for a, b in (move or ()))


def _candidates(analysis: dict, default_ctx: dict, match_play: bool):
    moves = analysis.get("moves")
    if not moves:
        return None
    if not (match_play and any(c.get("type") == "rollout" for c in moves)):
        try:
            return _candidate_columns(moves, default_ctx)
        except (IndexError, TypeError, ValueError):
            pass  # a step no board has: the list below, which the builder refuses naming the play
    out = []
    for c in moves:
        if c.get("type") == "rollout":
            out.append(
                SourceCandidate(
                    steps=_steps(c.get("move")),
                    equity=None if match_play else _number(c.get("cubeful-eq"), _ROLLOUT),
                    # the MWC as gnubg holds it: the SGF file writes the equity gnubg makes of it, rounded
                    mwc=_number(c.get("cubeful-eq"), "%r") if match_play else None,
                    probs=_numbers(c.get("probs"), _ROLLOUT),
                    depth="rollout",
                    written=_ROLLOUT,
                )
            )
        else:
            out.append(
                SourceCandidate(
                    steps=_steps(c.get("move")),
                    equity=_number(c.get("score")),
                    probs=_numbers(c.get("probs")),
                    depth=_plies_label(c.get("evalcontext") or {}, default_ctx),
                )
            )
    return out


def _candidate_columns(moves: list, default_ctx: dict) -> SourceCandidates:
    """The list as the builder keeps it (letters and numbers, no play
    resolved): every equity is EMG (no match-play rollout to convert)."""
    letters, eqs, probs, depths = [], [], [], []
    labels: dict = {}
    default_plies = default_ctx.get("plies")
    for c in moves:
        get = c.get
        letters.append(steps_text(get("move") or ()))  # gnubg's ints as they are (others: the list below)
        if get("type") == "rollout":
            probs.append(_numbers(get("probs"), _ROLLOUT))
            eqs.append(_number(get("cubeful-eq"), _ROLLOUT))
            depths.append("rollout")
        else:
            probs.append(_numbers(get("probs")))
            eqs.append(_number(get("score")))
            ctx = get("evalcontext")
            plies = ctx.get("plies", default_plies) if ctx else default_plies
            depth = labels.get(plies)
            if depth is None and plies is not None:
                depth = labels[plies] = f"{plies}-ply"
            depths.append(depth)
    return SourceCandidates(letters, eqs, probs, depths)


def _cube(analysis: dict, default_ctx: dict, match_play: bool) -> Optional[SourceCube]:
    if not analysis or "nd-cubeful-eq" not in analysis or "dt-cubeful-eq" not in analysis:
        return None
    written = _ROLLOUT if analysis.get("type") == "rollout" else _EVALUATION
    nd, dt = _number(analysis["nd-cubeful-eq"], written), _number(analysis["dt-cubeful-eq"], written)
    if nd is None or dt is None:
        return None
    depth = "rollout" if analysis.get("type") == "rollout" else _plies_label(
        analysis.get("eval-context") or {}, default_ctx
    )
    # a rollout gives the no-double position's chances as nd-probs (no probs key), as its SGF's DA does
    probs = analysis.get("probs") if "probs" in analysis else analysis.get("nd-probs")
    return SourceCube(nd=nd, dt=dt, in_mwc=match_play, depth=depth, probs=_numbers(probs, written))


def source_from_dict(d: dict, source_path: Optional[str] = None) -> SourceMatch:
    if not isinstance(d, dict) or "match-info" not in d or "games" not in d:
        raise MatchImportError("not a gnubg match (no match-info or games)")
    info = d["match-info"]
    length = int(info.get("match-length", 0))
    match_play = length > 0
    default_ctx = info.get("default-eval-context") or {}
    date = info.get("date")
    iso = None
    if date:
        day, month, year = date
        iso = f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
    rules = info.get("rules") or ()
    src = SourceMatch(
        players=(info["X"]["name"], info["O"]["name"]),
        length=length,
        source=SOURCE_GNUBG,
        engine="gnubg",
        date=iso,
        event=info.get("event"),
        round=info.get("round"),
        place=info.get("place"),
        annotator=info.get("annotator"),
        comment=info.get("comment"),
        crawford_rule="Crawford" in rules,
        jacoby="Jacoby" in rules,
        variation=info.get("variation", "Standard"),
        ratings=(info["X"].get("rating"), info["O"].get("rating")),
        source_path=source_path,
    )
    for g in d["games"]:
        gi = g.get("info") or {}
        winner = gi.get("winner")
        sg = SourceGame(
            score=(int(gi.get("score-X", 0)), int(gi.get("score-O", 0))),
            crawford=bool(gi.get("crawford", False)),
            winner=None if winner is None else _SIDE[winner],
            points=gi.get("points-won"),
            resigned=bool(gi.get("resigned", False)),
            initial_cube=int(gi.get("initial-cube", 1) or 1),
        )
        for rec in g.get("game") or ():
            sg.records.append(_record(rec, default_ctx, match_play))
        src.games.append(sg)
    return src


def _record(rec: dict, default_ctx: dict, match_play: bool) -> SourceRecord:
    action = rec.get("action")
    player = _SIDE.get(rec.get("player")) if rec.get("player") else None
    analysis = rec.get("analysis") or {}
    comment = rec.get("comment")
    if action == "move":
        return SourceRecord(
            action="move",
            player=player,
            dice=tuple(int(x) for x in rec["dice"]),
            steps=_steps(rec.get("move")),
            candidates=_candidates(analysis, default_ctx, match_play),
            played_index=analysis.get("imove"),
            cube=_cube(analysis, default_ctx, match_play),
            luck=_luck(analysis.get("luck-value")),
            comment=comment,
            board=rec.get("board"),
        )
    if action == "double":
        return SourceRecord(action="double", player=player, cube=_cube(analysis, default_ctx, match_play),
                            comment=comment, board=rec.get("board"))
    if action in ("take", "drop", "resign"):
        return SourceRecord(action=action, player=player, comment=comment)
    if action == "set":
        owner = rec.get("cube-owner")
        return SourceRecord(
            action="set",
            player=player,
            board=rec.get("board"),
            dice=tuple(rec["dice"]) if rec.get("dice") else None,
            set_cube_value=rec.get("cube"),
            set_cube_owner=None if owner is None else {"centered": -1, "X": 0, "O": 1}.get(owner),
        )
    raise MatchImportError(f"unknown gnubg record action {action!r}")


def match_from_dict(d: dict, source_path: Optional[str] = None, require_analysis: bool = True) -> Match:
    """``gnubg.match()`` (or its JSON dump) -> :class:`Match`; without
    ``require_analysis``, a match gnubg loaded and did not analyse (its
    identity: ``analyse`` asks the store before gnubg analyses)."""
    return build_match(source_from_dict(d, source_path), require_analysis=require_analysis)
