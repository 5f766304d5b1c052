"""The decision model -> a Jellyfish ``.mat`` text in gnubg's own layout.

The layout is the one gnubg 1.07 writes with ``export match mat`` (checked
line by line on the charlot match, a money session, beavers and raccoons;
docs/convert.md):

* header tags ``; [Site ..]`` ``; [Event ..]`` ``; [Round ..]``
  ``; [EventDate "YYYY.MM.DD"]`` ``; [Transcriber ..]``, a blank line, the
  match comment as ``; `` lines, then `` N point match`` (``0`` for money);
* per game `` Game N``, the names and scores (``" %-31s%s : %d"``), then
  numbered lines ``"%3d) %-27s "`` + the second player's entry: the first
  player's column, then the second's;
* a move is ``41: 13/9 24/23 `` (one step per die, 25 = bar, 0 = off, ``*``
  on the step that hits, a space after each of the first three steps), a
  dance ``62: ``; cube actions `` Doubles => 2``, `` Takes``, `` Drops``;
  a beaver is `` Beavers => 4`` and the take that closes it is not written;
* ``Wins N point(s)`` closes a game: under the winner's column.
"""

from __future__ import annotations

from ..model import Match
from .records import ExportError, check_exportable, game_records

LEFT_WIDTH = 27  # "%3d) %-27s "
RIGHT_COLUMN = 34  # where the second player's entry starts


def _ljust_bytes(text: str, width: int) -> str:
    """``%-*s`` of C: padding counted in UTF-8 bytes, as gnubg counts them."""
    n = len(text.encode("utf-8"))
    return text + " " * max(0, width - n)


def format_steps(rec) -> str:
    """gnubg's ``FormatMovePlain``: ``from/to`` per step, ``*`` on the first
    step that lands where the opponent had a checker before the move."""
    opp = rec.board.opponent
    parts = []
    for i, (frm, to) in enumerate(rec.steps):
        s = f"{frm}/{to}"
        if to and opp[24 - to] and all(prev_to != to for _, prev_to in rec.steps[:i]):
            s += "*"
        parts.append(s + (" " if i < 3 else ""))
    return "".join(parts)


def _entry(rec) -> str:
    if rec.kind == "move":
        d1, d2 = rec.dice
        return f"{d1}{d2}: " + format_steps(rec)
    if rec.kind == "double":
        return f" {'Beavers' if rec.beaver else 'Doubles'} => {rec.cube}"
    if rec.kind == "take":
        return " Takes"
    if rec.kind == "drop":
        return " Drops"
    raise ExportError(f"a {rec.kind} record cannot be written in .mat")


def _points(n: int) -> str:
    return f"Wins {n} point{'' if n == 1 else 's'}"


def _header(match: Match) -> list:
    lines = []
    for tag, value in (("Site", match.place), ("Event", match.event), ("Round", match.round)):
        if value:
            lines.append(f'; [{tag} "{_one_line(value)}"]')
    if match.date and len(match.date) >= 10:
        lines.append(f'; [EventDate "{match.date[:10].replace("-", ".")}"]')
    if match.annotator:
        lines.append(f'; [Transcriber "{_one_line(match.annotator)}"]')
    text = "\n".join(lines) + ("\n" if lines else "")
    if match.comment:
        text += "\n; " + match.comment.rstrip("\n").replace("\n", "\n; ")
    text += "\n"
    return [text + f" {int(match.length)} point match\n\n"]


def _one_line(value) -> str:
    return " ".join(str(value).split()).replace('"', "'")


def _game(match: Match, game) -> str:
    out = [f" Game {game.number + 1}\n"]
    left = f"{match.players[0]} : {int(game.score[0])}"
    out.append(" " + _ljust_bytes(left, 31) + f"{match.players[1]} : {int(game.score[1])}\n")
    records = [r for r in game_records(match, game) if not r.closes_beaver or r.kind != "take"]
    i = 0  # gnubg's counter: even = the first player's column
    for rec in records:
        if rec.kind == "set":
            raise ExportError(f"game {game.number + 1}: the position was edited; .mat cannot say so (use .sgf)")
        if rec.player != i % 2:
            # the column this player writes in is the other one: leave a cell empty
            if i % 2 == 0:
                out.append(f"{(i >> 1) + 1:3d}) " + " " * (LEFT_WIDTH + 1))
            else:
                out.append("  \n")  # what gnubg 1.07 writes for an empty second cell
            i += 1
        text = _entry(rec)
        if i % 2:
            out.append(text + "\n")
        else:
            out.append(f"{(i >> 1) + 1:3d}) " + _ljust_bytes(text, LEFT_WIDTH) + " ")
        i += 1
    out.append(_ending(game, records[-1] if records else None, i))
    return "".join(out)


def _ending(game, last, i: int) -> str:
    """The ``Wins`` line, where gnubg writes it; an unfinished game ends its line."""
    if game.winner is None or not game.points:
        return "\n" if i % 2 else ""
    wins = _points(int(game.points))
    # the "Wins" cell goes in the winner's column; i is the column of the next entry
    if game.winner == 0:
        return ("\n" if i % 2 else "") + "      " + wins + "\n\n"
    if i % 2:
        # after a cell in the first column; gnubg ends a drop's line with a space
        return " " + wins + (" " if last is not None and last.kind == "drop" else "") + "\n\n"
    return " " * RIGHT_COLUMN + wins + "\n\n"


def mat_text(match: Match) -> str:
    check_exportable(match)
    parts = _header(match)
    for game in match.games:
        parts.append(_game(match, game))
    return "".join(parts)
