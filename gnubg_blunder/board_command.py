"""``gnubg-blunder board ...``: the board engine from the command line.

``board moves``: legal plays of a position and roll (one, or a batch read
from standard input); ``board show``: the position as text or SVG;
``board classify``: its features, phase and game plan.
"""

from __future__ import annotations

import gc
import json
import sys

from .commands import Command, UserError
from .hookspecs import hookimpl
from .formatting import table, to_json
from .lazy import lazy

_board_features = lazy("gnubg_blunder.board.features")
_board_moves = lazy("gnubg_blunder.board.moves")
_board_position = lazy("gnubg_blunder.board.position")
_board_svg = lazy("gnubg_blunder.board.svg")


def _board(pid: str):
    try:
        return _board_position.Board.from_position_id(pid)
    except ValueError as exc:
        raise UserError(f"position ID {pid!r}: {exc}") from None


def _dice(values) -> tuple:
    try:
        d1, d2 = (int(v) for v in values)
    except (TypeError, ValueError):
        raise UserError(f"dice must be two numbers 1-6, got {' '.join(map(str, values))!r}") from None
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise UserError(f"dice must be two numbers 1-6, got {d1} {d2}")
    return d1, d2


def moves_object(pid: str, board, d1: int, d2: int) -> dict:
    """The JSON of one (position, roll): every legal play, its move and the
    position it leaves as gnubg's next record shows it (opponent on roll)."""
    plays = _board_moves.legal_plays(board, d1, d2)
    return {
        "position_id": pid,
        "dice": [d1, d2],
        "count": len(plays),
        "plays": [{"move": p.notation, "position_id": p.result.swapped().position_id()} for p in plays],
    }


def _moves_batch(ctx, stdin) -> int:
    """One JSON object per input line ``POSITION_ID D1 D2``; a bad line gets
    ``{"line", "error"}`` and the exit status 1, the others go on."""
    failed = 0
    out = ctx.out
    gc.disable()  # a batch allocates many small objects and frees none of them in cycles
    try:
        for n, line in enumerate(stdin, 1):
            parts = line.split()
            if not parts:
                continue
            try:
                if len(parts) != 3:
                    raise ValueError("expected POSITION_ID D1 D2")
                d1, d2 = int(parts[1]), int(parts[2])
                if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                    raise ValueError("dice must be 1-6")
                obj = moves_object(parts[0], _board_position.Board.from_position_id(parts[0]), d1, d2)
            except ValueError as exc:
                failed += 1
                obj = {"line": n, "input": line.strip(), "error": str(exc)}
            out.write(json.dumps(obj, separators=(",", ":")) + "\n")
    finally:
        gc.enable()
    return 1 if failed else 0


def _board_configure(p):
    sub = p.add_subparsers(dest="board_command", metavar="SUBCOMMAND")
    m = sub.add_parser("moves", help="legal plays of a position and roll (or a batch from standard input)",
                       description="Legal plays, one per distinct resulting position, each with its move "
                                   "and the position it leaves as gnubg's next record shows it (the opponent "
                                   "on roll). Without --position-id, reads lines 'POSITION_ID D1 D2' from "
                                   "standard input and writes one JSON object per line.")
    m.add_argument("--position-id", metavar="ID", help="gnubg position ID, the player to move on roll")
    m.add_argument("--dice", nargs=2, metavar=("D1", "D2"))
    m.add_argument("--format", choices=("text", "json"), default="text")
    s = sub.add_parser("show", help="the position as a text diagram (or SVG)")
    s.add_argument("position_id", metavar="ID")
    s.add_argument("--svg", metavar="FILE", help="write an SVG diagram to FILE")
    s.add_argument("--dark", action="store_true", help="the dark palette for --svg")
    c = sub.add_parser("classify", help="features, phase and game plan of a position")
    c.add_argument("position_id", metavar="ID")
    c.add_argument("--format", choices=("text", "json"), default="text")


def _board_run(args, ctx):
    cmd = getattr(args, "board_command", None)
    if cmd == "moves":
        if args.position_id is None:
            if args.dice:
                raise UserError("--dice goes with --position-id; a batch reads 'POSITION_ID D1 D2' lines")
            return _moves_batch(ctx, sys.stdin)
        if not args.dice:
            raise UserError("board moves --position-id ID needs --dice D1 D2")
        d1, d2 = _dice(args.dice)
        obj = moves_object(args.position_id, _board(args.position_id), d1, d2)
        if args.format == "json":
            ctx.print(to_json(obj))
        else:
            ctx.print(f"{obj['count']} legal play{'s' if obj['count'] != 1 else ''} for {d1}{d2}"
                      + (" (no legal play)" if not obj["count"] else ":"))
            for p in obj["plays"]:
                ctx.print(f"  {p['move']:<24} {p['position_id']}")
        return 0
    if cmd == "show":
        board = _board(args.position_id)
        ctx.print(_board_svg.position_text(board))
        if args.svg:
            with open(args.svg, "w", encoding="utf-8") as fh:
                fh.write(_board_svg.board_svg(board, palette="dark" if args.dark else "light"))
            ctx.print(f"SVG written to {args.svg}")
        return 0
    if cmd == "classify":
        f = _board_features.features(_board(args.position_id))
        sides = {"on_roll": f.me._asdict(), "opponent": f.opp._asdict()}
        obj = {"position_id": args.position_id, "phase": f.phase, "game_plan": f.game_plan,
               "contact": f.contact, "race_lead": f.race_lead, **sides}
        if args.format == "json":
            ctx.print(to_json(obj))
        else:
            ctx.print(f"phase: {f.phase}   game plan: {f.game_plan}   contact: {'yes' if f.contact else 'no'}"
                      f"   race lead: {f.race_lead:+d} pips")
            keys = list(sides["on_roll"])
            ctx.print(table([[k, sides["on_roll"][k], sides["opponent"][k]] for k in keys],
                            ["", "on roll", "opponent"], "lrr"))
        return 0
    raise UserError("board needs a subcommand: moves, show or classify")


@hookimpl
def register_commands(registry):
    registry.add(Command("board", "the board engine: legal moves, diagrams, classification",
                         _board_run, _board_configure))
