"""Backgammon diagrams: a self-contained SVG board and a text board.

``board_svg(board, ...)`` draws ``board`` from the side of the player on
roll, in gnubg's and XG's usual orientation: the player on roll at the
bottom moving anticlockwise, their home board (points 1..6) on the bottom
right, the opponent's home board (the player on roll's points 19..24) on the
top right, the bar in the middle and the borne-off trays on the right.  The
result is ONE ``<svg>`` element: no external images, fonts, styles or
scripts, presentation attributes only, and no ``id`` at all (arrowheads are
drawn as polygons, not markers), so any number of diagrams can share one
HTML page.  See docs/diagrams.md.

``position_text(board)`` is a compact text board for the console, in the
spirit of gnubg's ASCII board (X = player on roll, at the bottom).
"""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .moves import format_move
from .position import BAR, CHECKERS, Board

__all__ = ["board_svg", "position_text", "PALETTES"]

# ---------------------------------------------------------------------------
# Palettes: every colour the drawing uses.  Meaning never rests on colour
# alone: the player on roll is always at the bottom, named "on roll", and the
# two checker colours differ in lightness (light vs dark, with outlines), so
# a greyscale print reads the same.
# ---------------------------------------------------------------------------

PALETTES: Dict[str, Dict[str, str]] = {
    "light": {
        "bg": "#ffffff",
        "frame": "#e4dccd",
        "frame_line": "#000000",
        "surface": "#fffdf8",
        "point_a": "#cdb48f",  # lighter points
        "point_b": "#8c6a48",  # darker points
        "point_line": "#5a4632",
        "text": "#000000",
        "muted": "#333333",
        "c0": "#ffffff",  # player on roll: light checkers
        "c0_line": "#000000",
        "c0_text": "#000000",
        "c1": "#1c1c1c",  # opponent: dark checkers
        "c1_line": "#000000",
        "c1_text": "#ffffff",
        "cube": "#ffffff",
        "cube_line": "#000000",
        "cube_text": "#000000",
        "die": "#ffffff",
        "die_line": "#000000",
        "pip": "#000000",
        "arrow": "#c4161c",
        "halo": "#ffffff",
    },
    "dark": {
        "bg": "#17181b",
        "frame": "#2f3237",
        "frame_line": "#9aa0a8",
        "surface": "#222428",
        "point_a": "#4b515a",
        "point_b": "#6f7783",
        "point_line": "#8a919b",
        "text": "#ececec",
        "muted": "#c8c8c8",
        "c0": "#ededed",
        "c0_line": "#000000",
        "c0_text": "#000000",
        "c1": "#0a0a0a",
        "c1_line": "#d0d0d0",
        "c1_text": "#ffffff",
        "cube": "#ededed",
        "cube_line": "#000000",
        "cube_text": "#000000",
        "die": "#ededed",
        "die_line": "#000000",
        "pip": "#000000",
        "arrow": "#ffb02e",
        "halo": "#000000",
    },
}

# ---------------------------------------------------------------------------
# Geometry (viewBox units).
# ---------------------------------------------------------------------------

R = 11.0  # checker radius
D = 22.0  # checker spacing in an uncompressed stack
PW = 24.0  # point width
STACK = 5  # checkers drawn at full spacing; taller stacks are compressed
COL_H = STACK * D  # height of a point's checker column
TRI_H = COL_H - 4  # triangle height
GAP = 38.0  # between the two rows (room for the dice)
CUBE_COL = 40.0  # cube column on the left
FRAME = 8.0
HALF = 6 * PW
BAR_W = 30.0
TRAY_W = 36.0

X_LEFT = CUBE_COL + FRAME  # left half, inner edge
X_BAR = X_LEFT + HALF  # bar
X_RIGHT = X_BAR + BAR_W  # right half
X_TRAY = X_RIGHT + HALF + FRAME  # borne-off trays
X_END = X_TRAY + TRAY_W + FRAME  # outer right edge of the frame
VIEW_W = X_END + 6

BOARD_H = 2 * COL_H + GAP
TOP_BAND = 38.0  # info line + point numbers above the frame
TITLE_H = 22.0
BAR_STACK_H = COL_H + GAP / 2 - 4  # room for checkers in one half of the bar
TRAY_STEP = 7.0  # borne-off checkers drawn edge-on

StepLike = Sequence[int]


def _n(x: float) -> str:
    """A compact number: at most one decimal, no trailing zero."""
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities (what xml.sax.saxutils.escape
    does, without importing it: it loads urllib and http, 26 ms of every
    command that draws or only imports the board)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(text: str) -> str:
    return escape(text).replace('"', "&quot;")


class _Layout:
    def __init__(self, top: float):
        self.top = top  # y of the frame's outer top edge
        self.in_top = top + FRAME
        self.in_bot = self.in_top + BOARD_H
        self.mid = self.in_top + BOARD_H / 2
        self.bottom = self.in_bot + FRAME

    # Points in the numbering of the player on roll: 1..12 bottom (1 at the
    # right), 13..24 top (13 at the left).
    @staticmethod
    def point_x(p: int) -> float:
        if p <= 6:
            return X_RIGHT + (6 - p) * PW + PW / 2
        if p <= 12:
            return X_LEFT + (12 - p) * PW + PW / 2
        if p <= 18:
            return X_LEFT + (p - 13) * PW + PW / 2
        return X_RIGHT + (p - 19) * PW + PW / 2

    def slot(self, p: int, k: int, n: int) -> Tuple[float, float]:
        """Centre of checker ``k`` (0 = at the edge) of a stack of ``n`` on
        point ``p``."""
        step = D if n <= STACK else (COL_H - D) / (n - 1)
        off = R + k * step
        x = self.point_x(p)
        return (x, self.in_bot - off) if p <= 12 else (x, self.in_top + off)

    def bar_slot(self, player: int, k: int, n: int) -> Tuple[float, float]:
        """The player on roll's bar checkers sit in the upper half of the bar
        (next to the board they enter), the opponent's in the lower half,
        both stacked outward from the middle."""
        step = D if n * D <= BAR_STACK_H else (BAR_STACK_H - D) / (n - 1)
        off = 2 + R + k * step
        x = X_BAR + BAR_W / 2
        return (x, self.mid - off) if player == 0 else (x, self.mid + off)

    def tray_slot(self, player: int, k: int) -> Tuple[float, float]:
        """Top-left corner of borne-off checker ``k``: the player on roll's
        tray at the bottom right, the opponent's at the top right."""
        x = X_TRAY + 4
        if player == 0:
            return x, self.in_bot - 3 - (k + 1) * TRAY_STEP
        return x, self.in_top + 3 + k * TRAY_STEP


def _steps_of(move_steps) -> List[Tuple[int, int]]:
    steps = getattr(move_steps, "steps", move_steps)  # a Play is accepted too
    out = []
    for s in steps:
        a, b = s
        out.append((int(a), int(b)))
    return out


def _dice_pips(v: int) -> List[Tuple[float, float]]:
    c, lo, hi = 0.5, 0.25, 0.75
    return {
        1: [(c, c)],
        2: [(lo, lo), (hi, hi)],
        3: [(lo, lo), (c, c), (hi, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (c, c), (lo, hi), (hi, hi)],
        6: [(lo, lo), (hi, lo), (lo, c), (hi, c), (lo, hi), (hi, hi)],
    }[v]


def _short(name: str, limit: int = 28) -> str:
    name = " ".join(str(name).split())
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def _cube_text(value: int, owner: int) -> str:
    return "64" if owner == -1 and value == 1 else str(value)


def _summary(board: Board, names: Tuple[str, str], cube_value: int, cube_owner: int,
             dice, steps, title: Optional[str], moved: bool = False) -> str:
    pips = board.pip_counts()
    off = board.checkers_off()
    parts = []
    if title:
        parts.append(f"{' '.join(str(title).split())}.")
    who = ("light checkers, bottom", "dark checkers, top")
    for i, side in enumerate((board.on_roll, board.opponent)):
        extra = f", {side[BAR]} on the bar" if side[BAR] else ""
        role = ""
        if i == 0 and moved:
            role = " (has played; the opponent rolls next)"
        elif i == 0:
            role = f" (on roll, rolled {dice[0]}-{dice[1]})" if dice else " (on roll)"
        parts.append(f"{names[i]}{role}, {who[i]}: {pips[i]} pips, {off[i]} borne off{extra}.")
    if cube_owner == -1:
        parts.append(f"Cube centred at {cube_value}.")
    else:
        parts.append(f"Cube {cube_value} owned by {names[cube_owner]}.")
    if steps:
        try:
            text = format_move(board, steps)
        except (ValueError, TypeError, IndexError):
            text = " ".join(f"{a}/{b}" for a, b in steps)
        parts.append(f"Move shown: {text}.")
    parts.append(f"Position ID {board.position_id()}.")
    return "Backgammon position. " + " ".join(parts)


def board_svg(
    board: Board,
    *,
    cube_value: int = 1,
    cube_owner: int = -1,
    dice: Optional[Sequence[int]] = None,
    move_steps: Union[None, Iterable[StepLike], object] = None,
    player_names: Optional[Sequence[str]] = None,
    palette: str = "light",
    width: Union[int, float] = 480,
    title: Optional[str] = None,
    moved: bool = False,
) -> str:
    """One self-contained ``<svg>`` element showing ``board`` from the side of
    the player on roll (at the bottom, home board bottom right).

    ``cube_owner``: -1 centred (value 1 is drawn as 64, as gnubg does), 0 the
    player on roll, 1 the opponent.  ``dice``: ``(d1, d2)`` rolled by the
    player on roll.  ``move_steps``: the steps ``(from, to)`` of a move of the
    player on roll (25 = bar, 0 = off) or a ``Play``; one arrow per step.
    ``player_names``: ``(on roll, opponent)``.  ``palette``: "light" (print)
    or "dark".  ``width``: rendered width in pixels (the height follows).
    ``title``: a line above the board, also in the accessible name.
    ``moved``: the board after the bottom player's play (``move_steps``
    that play): the bottom player is named as having played, not as on
    roll (the opponent rolls next; docs/diagrams.md).
    """
    if palette not in PALETTES:
        raise ValueError(f"palette must be one of {sorted(PALETTES)}, got {palette!r}")
    if cube_owner not in (-1, 0, 1):
        raise ValueError(f"cube_owner must be -1 (centred), 0 (on roll) or 1 (opponent), got {cube_owner!r}")
    if not isinstance(cube_value, int) or cube_value < 1:
        raise ValueError(f"cube_value must be a positive int, got {cube_value!r}")
    if dice is not None:
        dice = tuple(int(d) for d in dice)
        if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
            raise ValueError(f"dice must be two ints 1..6, got {dice!r}")
    names = ("Player", "Opponent") if player_names is None else tuple(str(n) for n in player_names)
    if len(names) != 2:
        raise ValueError("player_names must be (on roll, opponent)")
    steps = _steps_of(move_steps) if move_steps is not None else []
    for a, b in steps:
        if not (1 <= a <= 25 and 0 <= b <= 24):
            raise ValueError(f"step {a}/{b}: from must be 1..25 (25 = bar), to 0..24 (0 = off)")
    pal = PALETTES[palette]
    top = TOP_BAND + (TITLE_H if title else 0)
    L = _Layout(top)
    view_h = L.bottom + 38
    out: List[str] = []
    add = out.append
    label = _summary(board, names, cube_value, cube_owner, dice, steps, title, moved)

    height = float(width) * view_h / VIEW_W
    add(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(VIEW_W)} {_n(view_h)}" '
        f'width="{_n(float(width))}" height="{_n(height)}" role="img" aria-label="{_attr(label)}" '
        f'font-family="DejaVu Sans,Verdana,Arial,sans-serif" font-size="11" class="bgb-board">'
    )
    add(f"<title>{escape(label)}</title>")
    add(f'<rect width="100%" height="100%" fill="{pal["bg"]}"/>')

    # Frame, the two halves, the trays.
    fx, fw = CUBE_COL, X_END - CUBE_COL
    add(
        f'<rect x="{_n(fx)}" y="{_n(L.top)}" width="{_n(fw)}" height="{_n(BOARD_H + 2 * FRAME)}" '
        f'fill="{pal["frame"]}" stroke="{pal["frame_line"]}" stroke-width="1.5"/>'
    )
    add(f'<g fill="{pal["surface"]}" stroke="{pal["frame_line"]}">')
    for x, w in ((X_LEFT, HALF), (X_RIGHT, HALF)):
        add(f'<rect x="{_n(x)}" y="{_n(L.in_top)}" width="{_n(w)}" height="{_n(BOARD_H)}"/>')
    for y in (L.in_top, L.mid + 2):
        add(f'<rect x="{_n(X_TRAY)}" y="{_n(y)}" width="{_n(TRAY_W)}" height="{_n(BOARD_H / 2 - 2)}"/>')
    add("</g>")

    # Points: alternate two shades, outlined (readable in greyscale).
    shades: Dict[str, List[str]] = {"a": [], "b": []}
    for p in range(1, 25):
        x0 = L.point_x(p) - PW / 2
        if p <= 12:
            base, tip = L.in_bot, L.in_bot - TRI_H
        else:
            base, tip = L.in_top, L.in_top + TRI_H
        shades["a" if p % 2 else "b"].append(
            f'<path d="M{_n(x0)} {_n(base)}h{_n(PW)}L{_n(x0 + PW / 2)} {_n(tip)}z"/>'
        )
    for key in ("a", "b"):
        add(f'<g fill="{pal["point_" + key]}" stroke="{pal["point_line"]}" stroke-width=".6">')
        out.extend(shades[key])
        add("</g>")

    # Point numbers, from the player on roll's side.
    add(f'<g fill="{pal["text"]}" text-anchor="middle" font-size="10">')
    for p in range(1, 25):
        y = L.top - 4 if p > 12 else L.bottom + 12
        add(f'<text x="{_n(L.point_x(p))}" y="{_n(y)}">{p}</text>')
    add("</g>")

    # Checkers.
    labels: List[str] = []  # counts written on tall stacks, drawn last
    for player, side in ((0, board.on_roll), (1, board.opponent)):
        c = f"c{player}"
        add(f'<g fill="{pal[c]}" stroke="{pal[c + "_line"]}" stroke-width="1.3">')
        for i in range(24):
            n = side[i]
            if not n:
                continue
            p = i + 1 if player == 0 else 24 - i
            for k in range(n):
                x, y = L.slot(p, k, n)
                add(f'<circle class="bgb-{c}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(R)}"/>')
            if n > STACK:
                x, y = L.slot(p, n - 1, n)
                labels.append(
                    f'<text x="{_n(x)}" y="{_n(y + 4)}" fill="{pal[c + "_text"]}">{n}</text>'
                )
        n = side[BAR]
        for k in range(n):
            x, y = L.bar_slot(player, k, n)
            add(f'<circle class="bgb-{c} bgb-bar" cx="{_n(x)}" cy="{_n(y)}" r="{_n(R)}"/>')
        if n > 1:
            x, y = L.bar_slot(player, n - 1, n)
            labels.append(f'<text x="{_n(x)}" y="{_n(y + 4)}" fill="{pal[c + "_text"]}">{n}</text>')
        add("</g>")
    off = board.checkers_off()
    for player in (0, 1):
        c = f"c{player}"
        if not off[player]:
            continue
        add(f'<g fill="{pal[c]}" stroke="{pal[c + "_line"]}" stroke-width="1">')
        for k in range(off[player]):
            x, y = L.tray_slot(player, k)
            add(f'<rect class="bgb-off{player}" x="{_n(x)}" y="{_n(y)}" width="{_n(TRAY_W - 8)}" height="6" rx="1.5"/>')
        add("</g>")
        # The count at the tray's inner end, clear of arrows landing on the stack.
        ty = L.mid + 16 if player == 0 else L.mid - 8
        labels.append(f'<text x="{_n(X_TRAY + TRAY_W / 2)}" y="{_n(ty)}" fill="{pal["text"]}">{off[player]}</text>')

    # The cube: left column, at the owner's side or centred.
    cs = 28.0
    cx = (CUBE_COL - cs) / 2
    if cube_owner == -1:
        cy = L.mid - cs / 2
    elif cube_owner == 0:
        cy = L.in_bot - cs - 2
    else:
        cy = L.in_top + 2
    owner_word = {-1: "centred", 0: "on roll", 1: "opponent"}[cube_owner]
    add(
        f'<g class="bgb-cube" data-owner="{owner_word}"><rect x="{_n(cx)}" y="{_n(cy)}" width="{_n(cs)}" '
        f'height="{_n(cs)}" rx="4" fill="{pal["cube"]}" stroke="{pal["cube_line"]}" stroke-width="1.5"/>'
        f'<text x="{_n(cx + cs / 2)}" y="{_n(cy + cs / 2 + 5)}" text-anchor="middle" font-size="14" '
        f'font-weight="bold" fill="{pal["cube_text"]}">{_cube_text(cube_value, cube_owner)}</text></g>'
    )

    # Dice of the player on roll: in their half (the right half), between the rows.
    if dice:
        ds = 24.0
        x0 = X_RIGHT + HALF / 2 - ds - 4
        y0 = L.mid - ds / 2
        add(f'<g class="bgb-dice" fill="{pal["pip"]}">')
        for j, v in enumerate(dice):
            x = x0 + j * (ds + 8)
            add(
                f'<rect x="{_n(x)}" y="{_n(y0)}" width="{_n(ds)}" height="{_n(ds)}" rx="4" '
                f'fill="{pal["die"]}" stroke="{pal["die_line"]}" stroke-width="1.3"/>'
            )
            for px, py in _dice_pips(v):
                add(f'<circle cx="{_n(x + px * ds)}" cy="{_n(y0 + py * ds)}" r="2.4"/>')
        add("</g>")

    # Arrows: one per step, in order, from the checker that moves to where
    # it lands (bar and off included).
    if steps:
        add(
            f'<g fill="none" stroke-linecap="round" stroke-linejoin="round">'
        )
        me = list(board.on_roll)
        opp = list(board.opponent)
        for a, b in steps:
            if a == 25:
                start = L.bar_slot(0, max(me[BAR] - 1, 0), max(me[BAR], 1))
            else:
                n = me[a - 1]
                start = L.slot(a, max(n - 1, 0), max(n, 1))
            if me[a - 1] > 0:
                me[a - 1] -= 1
            if b == 0:
                k = CHECKERS - sum(me) - 1
                tx, ty = L.tray_slot(0, max(k, 0))
                end = (tx + (TRAY_W - 8) / 2, ty + 3)
            else:
                if opp[24 - b] == 1:  # a hit: the blot goes to the bar
                    opp[24 - b] = 0
                me[b - 1] += 1
                n = me[b - 1]
                end = L.slot(b, n - 1, n)
            add(_arrow(start, end, (X_BAR + BAR_W / 2, L.mid), pal))
        add("</g>")

    # Counts on tall stacks, on the bar and in the trays, over the arrows.
    if labels:
        add('<g text-anchor="middle" font-weight="bold">')
        out.extend(labels)
        add("</g>")

    # Info lines: opponent above the board, player on roll below.
    pips = board.pip_counts()
    line_y = (L.bottom + 30, L.top - 22)  # on roll below, opponent above
    for player in (1, 0):
        y = line_y[player]
        c = f"c{player}"
        name = escape(_short(names[player]))
        add(
            f'<circle cx="{_n(X_LEFT + 2)}" cy="{_n(y - 4)}" r="6" fill="{pal[c]}" '
            f'stroke="{pal[c + "_line"]}" stroke-width="1.2"/>'
        )
        if player == 0 and moved:
            who = f'<tspan font-weight="bold">{name}</tspan> \u2014 has played'
        elif player == 0:
            roll = f", rolled {dice[0]}-{dice[1]}" if dice else ""
            who = f'<tspan font-weight="bold">{name}</tspan> \u2014 on roll{roll}'
        else:
            who = name
        add(f'<text x="{_n(X_LEFT + 12)}" y="{_n(y)}" fill="{pal["text"]}" font-size="12">{who}</text>')
        add(
            f'<text x="{_n(X_END)}" y="{_n(y)}" text-anchor="end" fill="{pal["text"]}" font-size="12">'
            f'pips <tspan class="bgb-pips{player}" font-weight="bold">{pips[player]}</tspan>'
            f' \u00b7 off {off[player]}</text>'
        )
    if title:
        add(
            f'<text x="{_n(VIEW_W / 2)}" y="16" text-anchor="middle" font-size="13" font-weight="bold" '
            f'fill="{pal["text"]}">{escape(_short(title, 70))}</text>'
        )
    add("</svg>")
    return "".join(out)


def _arrow(start: Tuple[float, float], end: Tuple[float, float], centre: Tuple[float, float],
           pal: Dict[str, str]) -> str:
    """A curved arrow (bulging towards the board's centre) with a haloed
    line and a polygon head, so it needs no marker id."""
    (x1, y1), (x2, y2) = start, end
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    # Perpendicular offset towards the centre of the board.
    nx, ny = -dy / length, dx / length
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    if (centre[0] - mx) * nx + (centre[1] - my) * ny < 0:
        nx, ny = -nx, -ny
    bend = min(0.2 * length, 28.0)
    qx, qy = mx + nx * bend, my + ny * bend
    # Head: along the tangent at the end (end - control point).
    tx, ty = x2 - qx, y2 - qy
    tl = math.hypot(tx, ty) or 1.0
    ux, uy = tx / tl, ty / tl
    head, half = 10.0, 5.0
    bx, by = x2 - ux * head, y2 - uy * head
    pts = (
        f"{_n(x2)},{_n(y2)} {_n(bx - uy * half)},{_n(by + ux * half)} "
        f"{_n(bx + uy * half)},{_n(by - ux * half)}"
    )
    # The line stops inside the head so its round cap does not poke out.
    ex, ey = x2 - ux * head * 0.6, y2 - uy * head * 0.6
    d = f"M{_n(x1)} {_n(y1)}Q{_n(qx)} {_n(qy)} {_n(ex)} {_n(ey)}"
    return (
        f'<g class="bgb-arrow"><path d="{d}" stroke="{pal["halo"]}" stroke-width="5"/>'
        f'<path d="{d}" stroke="{pal["arrow"]}" stroke-width="2.4"/>'
        f'<circle cx="{_n(x1)}" cy="{_n(y1)}" r="3" fill="{pal["arrow"]}" stroke="{pal["halo"]}"/>'
        f'<polygon points="{pts}" fill="{pal["arrow"]}" stroke="{pal["halo"]}"/></g>'
    )


# ---------------------------------------------------------------------------
# Text board
# ---------------------------------------------------------------------------

def listed_position_lines(position_id: str, player_names: Optional[Sequence[str]] = None,
                          indent: str = "   ") -> List[str]:
    """The text board of ``position_id`` (:func:`position_text`) as lines
    indented under an item of a view's list (a decision, a reference
    position); ``(position ID)`` when the ID cannot be drawn."""
    try:
        board = Board.from_position_id(position_id)
    except ValueError:
        return [f"{indent}(position {position_id})"]
    return [indent + line for line in position_text(board, player_names).splitlines()]


def position_text(board: Board, player_names: Optional[Sequence[str]] = None,
                  roles: Optional[Sequence[Optional[str]]] = None) -> str:
    """A compact text board (like gnubg's ASCII board): X = the player on
    roll, at the bottom, home board bottom right; O = the opponent.
    ``roles``: the words in brackets after X's and O's names (default
    ``("on roll", None)``; a take/pass question draws the taker as X and
    gives "on roll" to the doubler, O).  Stacks
    taller than five show their count in the fifth row; the bar column shows
    each side's bar checkers where gnubg's own text board (``show board``)
    does: O's in the upper half, X's in the lower half, each stacked from the
    board's edge like a point (a count in the row nearest the middle)."""
    if player_names is None and roles is None:
        names = ("X on roll", "O")
    else:
        who = ("", "") if player_names is None else (f" {player_names[0]}", f" {player_names[1]}")
        roles = ("on roll", None) if roles is None else tuple(roles)
        names = tuple(f"{ch}{w}" + (f" ({r})" if r else "") for ch, w, r in zip("XO", who, roles))
    me, opp = board.on_roll, board.opponent

    def owner(p: int) -> Tuple[str, int]:
        if me[p - 1]:
            return "X", me[p - 1]
        if opp[24 - p]:
            return "O", opp[24 - p]
        return "", 0

    def cell(ch: str, n: int, row: int) -> str:
        if n > row:
            if row == STACK - 1 and n > STACK:
                return f"{n:>2} "
            return f" {ch} "
        return "   "

    def header(points: Iterable[int]) -> str:
        return "".join(f"{p:>2}-".replace(" ", "-") for p in points)

    pips = board.pip_counts()
    offs = board.checkers_off()
    side_info = [
        f"{names[1]}: {pips[1]} pips, {offs[1]} off",
        f"{names[0]}: {pips[0]} pips, {offs[0]} off",
    ]
    top_pts, bot_pts = (range(13, 19), range(19, 25)), (range(12, 6, -1), range(6, 0, -1))
    lines = [f" +{header(top_pts[0])}+---+{header(top_pts[1])}+   {side_info[0]}"]
    for row in range(STACK):
        left = "".join(cell(*owner(p), row) for p in top_pts[0])
        right = "".join(cell(*owner(p), row) for p in top_pts[1])
        # O's bar checkers in the upper half, from the top edge (as gnubg).
        bar = cell("O", opp[BAR], row)
        lines.append(f" |{left}|{bar}|{right}|")
    lines.append(f" |{' ' * 18}|BAR|{' ' * 18}|")
    for row in range(STACK - 1, -1, -1):
        left = "".join(cell(*owner(p), row) for p in bot_pts[0])
        right = "".join(cell(*owner(p), row) for p in bot_pts[1])
        # X's bar checkers in the lower half, from the bottom edge (as gnubg).
        bar = cell("X", me[BAR], row)
        lines.append(f" |{left}|{bar}|{right}|")
    lines.append(f" +{header(bot_pts[0])}+---+{header(bot_pts[1])}+   {side_info[1]}")
    lines.append(f" Position ID: {board.position_id()}")
    return "\n".join(line.rstrip() for line in lines)
