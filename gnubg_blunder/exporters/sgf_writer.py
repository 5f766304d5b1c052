"""The decision model -> a gnubg SGF file (``GM[6]``, docs/sgf-properties.md).

One game tree per game, root first, then one node per record, each on its
own line as gnubg writes them.  Analysis is not written.
"""

from __future__ import annotations

from .. import __version__
from ..model import Match
from .records import ExportError, check_exportable, game_records, initial_cube

_COLOUR = ("W", "B")


def escape(text: str) -> str:
    """SGF text as gnubg writes it: ``\\`` -> ``\\\\``, ``]`` -> ``\\]``."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def point_letter(point: int, player: int) -> str:
    """A point of ``player``'s numbering (1-24, 25 bar, 0 off) as its SGF letter."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    if not 1 <= point <= 24:
        raise ExportError(f"no SGF letter for point {point}")
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - point + 1)


def move_letters(steps, player: int) -> str:
    return "".join(point_letter(a, player) + point_letter(b, player) for a, b in steps)


def _rules(match: Match, game) -> str:
    names = []
    if match.length and match.crawford_rule:
        names.append("Crawford")
        if game.crawford:
            names.append("CrawfordGame")
    if not match.length and match.jacoby:
        names.append("Jacoby")
    return ":".join(names)


def _result(game) -> str:
    if game.winner is None or not game.points:
        return ""
    return f"RE[{_COLOUR[game.winner]}+{int(game.points)}{'R' if game.resigned else ''}]"


def _root(match: Match, game) -> str:
    s0, s1 = game.score
    parts = [
        f"FF[4]GM[6]CA[UTF-8]AP[gnubg-blunder:{__version__}]",
        f"MI[length:{int(match.length)}][game:{game.number}][ws:{int(s0)}][bs:{int(s1)}]",
        f"PW[{escape(str(match.players[0]))}]PB[{escape(str(match.players[1]))}]",
    ]
    if game.number == 0:  # gnubg writes the match information on the first game
        ratings = tuple(match.ratings or (None, None))
        for prop, value in (("WR", ratings[0]), ("BR", ratings[1] if len(ratings) > 1 else None),
                            ("DT", (match.date or "")[:10] or None), ("EV", match.event), ("RO", match.round),
                            ("PC", match.place), ("AN", match.annotator), ("GC", match.comment)):
            if value:
                parts.append(f"{prop}[{escape(str(value))}]")
    rules = _rules(match, game)
    if rules:
        parts.append(f"RU[{rules}]")
    cube = initial_cube(game)
    if cube > 1 and not match.length:
        parts.append(f"CV[{cube}]")
    parts.append(_result(game))
    return "".join(parts)


def _set_board(rec) -> str:
    """A set-board node (``PL AE AW AB``): ``rec.board`` with ``rec.player`` on roll."""
    sides = (rec.board.on_roll, rec.board.opponent) if rec.player == 0 else (rec.board.opponent, rec.board.on_roll)
    out = [f"PL[{_COLOUR[rec.player]}]AE[a:y]"]
    for player, prop in ((0, "AW"), (1, "AB")):
        letters = []
        for i, n in enumerate(sides[player]):
            letters += [point_letter(i + 1, player)] * n
        if letters:
            out.append(prop + "".join(f"[{c}]" for c in letters))
    return "".join(out)


def _node(rec) -> str:
    c = _COLOUR[rec.player]
    if rec.kind == "move":
        d1, d2 = rec.dice
        body = f"{c}[{d1}{d2}{move_letters(rec.steps, rec.player)}]"
    elif rec.kind == "set":
        body = _set_board(rec)
    elif rec.kind in ("double", "take", "drop"):
        body = f"{c}[{rec.kind}]"
    else:
        raise ExportError(f"unknown record {rec.kind!r}")
    if rec.comment:
        body += f"C[{escape(rec.comment)}]"
    return ";" + body


def sgf_text(match: Match) -> str:
    check_exportable(match)
    trees = []
    for game in match.games:
        nodes = [";" + _root(match, game)]
        nodes += [_node(rec) for rec in game_records(match, game)]
        trees.append("(" + "\n".join(nodes) + ")\n")
    return "".join(trees)
