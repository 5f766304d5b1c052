"""board_svg / position_text: a self-contained SVG board and a text board."""

from __future__ import annotations

import re

import pytest
from lxml import etree

from conftest import needs_gnubg, side
from gnubg_blunder.board import Board, board_svg, parse_move_notation, position_text

SVG_NS = "http://www.w3.org/2000/svg"
NS = {"s": SVG_NS}

INITIAL = Board.initial()
# Bear-off: the player on roll has 4 checkers off, the opponent 7.
BEAROFF = Board(side({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}), side({1: 2, 2: 2, 3: 2, 4: 1, 6: 1}))
# Checkers on both bars, a 10-checker stack on the 6 point.
BARS = Board(side({6: 10, 8: 2, 25: 2}), side({6: 5, 13: 3, 1: 1, 25: 3}))
# 15 on one point, the opponent with one checker left.
STACK15 = Board(side({13: 15}), side({1: 1}))

BOARDS = {"initial": INITIAL, "bearoff": BEAROFF, "bars": BARS, "stack15": STACK15}


def parse(svg: str):
    return etree.fromstring(svg.encode("utf-8"))


def checkers(root, player: int) -> list:
    """Checker shapes of a player on the board (points and bar, not the trays)."""
    return root.xpath(f"//s:circle[contains(concat(' ', @class, ' '), ' bgb-c{player} ')]", namespaces=NS)


def count_attr_values(root, name: str) -> list:
    return [v for el in root.iter() for k, v in el.attrib.items() if k == name]


@pytest.mark.parametrize("name", sorted(BOARDS))
@pytest.mark.parametrize("palette", ["light", "dark"])
def test_self_contained(name, palette):
    board = BOARDS[name]
    svg = board_svg(board, palette=palette, dice=(3, 1), title="A title")
    root = parse(svg)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert root.get("role") == "img"
    label = root.get("aria-label")
    pips = board.pip_counts()
    assert f"{pips[0]} pips" in label and f"{pips[1]} pips" in label and "on roll" in label
    title = root.find("s:title", NS)
    assert title is not None and "on roll" in title.text
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        assert etree.QName(el).localname not in ("script", "image", "foreignObject", "style", "a")
        for key, value in el.attrib.items():
            local = etree.QName(key).localname
            assert not local.lower().startswith("on"), (key, value)
            if local == "href":
                assert value.startswith("#"), value
            assert "url(" not in value or "url(#" in value
            assert "javascript:" not in value.lower()


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_checker_counts(name):
    board = BOARDS[name]
    root = parse(board_svg(board))
    off = board.checkers_off()
    assert len(checkers(root, 0)) == 15 - off[0]
    assert len(checkers(root, 1)) == 15 - off[1]
    # The borne-off checkers are drawn in the trays.
    assert len(root.xpath("//s:rect[@class='bgb-off0']", namespaces=NS)) == off[0]
    assert len(root.xpath("//s:rect[@class='bgb-off1']", namespaces=NS)) == off[1]
    # Checkers on the bar.
    bar = root.xpath("//s:circle[contains(@class, 'bgb-bar')]", namespaces=NS)
    assert len(bar) == board.on_roll[24] + board.opponent[24]


def test_orientation():
    """The player on roll at the bottom, home board (points 1..6) on the
    bottom right; their 24 point top right, their 13 point top left."""
    root = parse(board_svg(INITIAL))
    numbers = {
        int(t.text): (float(t.get("x")), float(t.get("y")))
        for t in root.iter(f"{{{SVG_NS}}}text")
        if t.text and t.text.isdigit() and t.getparent().get("font-size") == "10"
    }
    assert sorted(numbers) == list(range(1, 25))
    x = {p: numbers[p][0] for p in numbers}
    y = {p: numbers[p][1] for p in numbers}
    assert all(y[p] > y[13] for p in range(1, 13))  # 1..12 below
    assert x[1] > x[6] > x[7] > x[12]  # 1 at the right, 12 at the left
    assert x[13] < x[18] < x[19] < x[24]  # 13 at the left, 24 at the right
    assert x[1] == x[24] and x[12] == x[13]
    # The player on roll's 5 checkers on their 6 point are at the bottom right.
    mine = [(float(c.get("cx")), float(c.get("cy"))) for c in checkers(root, 0)]
    assert sum(1 for cx, cy in mine if cx == x[6] and cy > y[13] + 100) == 5


def test_stack_count_written():
    root = parse(board_svg(BARS))
    texts = [t.text for t in root.iter(f"{{{SVG_NS}}}text")]
    assert "10" in texts  # the 10-checker stack
    assert "3" in texts  # the opponent's 3 checkers on the bar
    root = parse(board_svg(INITIAL))
    bold = root.xpath("//s:g[@font-weight='bold']/s:text", namespaces=NS)
    assert bold == []  # no stack taller than 5, nothing on the bar or off


def cube(root):
    g = root.xpath("//s:g[@class='bgb-cube']", namespaces=NS)
    assert len(g) == 1
    rect = g[0].find("s:rect", NS)
    text = g[0].find("s:text", NS)
    return float(rect.get("y")) + float(rect.get("height")) / 2, text.text, g[0].get("data-owner")


def test_cube():
    root = parse(board_svg(INITIAL))
    height = float(root.get("viewBox").split()[3])
    y_centre, text, owner = cube(root)
    assert text == "64" and owner == "centred"
    y_mine, text, owner = cube(parse(board_svg(INITIAL, cube_value=4, cube_owner=0)))
    assert text == "4" and owner == "on roll"
    y_theirs, text, owner = cube(parse(board_svg(INITIAL, cube_value=16, cube_owner=1)))
    assert text == "16" and owner == "opponent"
    # The player on roll is at the bottom: their cube below the middle.
    assert y_theirs < height / 2 - 60 < y_centre < height / 2 + 60 < y_mine
    assert "Cube 4 owned by Player" in parse(board_svg(INITIAL, cube_value=4, cube_owner=0)).get("aria-label")
    with pytest.raises(ValueError):
        board_svg(INITIAL, cube_owner=2)


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_pip_counts(name):
    board = BOARDS[name]
    root = parse(board_svg(board))
    for player in (0, 1):
        (span,) = root.xpath(f"//s:tspan[@class='bgb-pips{player}']", namespaces=NS)
        assert int(span.text) == board.pip_counts()[player]


def test_on_roll_and_dice():
    root = parse(board_svg(INITIAL, dice=(6, 4), player_names=("charlot1", "charlot2")))
    text = "".join(root.itertext())
    assert "charlot1" in text and "charlot2" in text and "on roll, rolled 6-4" in text
    dice = root.xpath("//s:g[@class='bgb-dice']", namespaces=NS)
    assert len(dice) == 1
    assert len(dice[0].findall("s:rect", NS)) == 2
    assert len(dice[0].findall("s:circle", NS)) == 10  # 6 + 4 pips
    assert "charlot1 (on roll, rolled 6-4)" in root.get("aria-label")
    assert not parse(board_svg(INITIAL)).xpath("//s:g[@class='bgb-dice']", namespaces=NS)
    with pytest.raises(ValueError):
        board_svg(INITIAL, dice=(7, 1))


@pytest.mark.parametrize(
    "board, dice, notation, n",
    [
        (INITIAL, (6, 4), "24/18 13/9", 2),
        (INITIAL, (6, 6), "24/18(2) 13/7(2)", 4),
        (BEAROFF, (6, 2), "6/off 2/off", 2),
        (BARS, (5, 5), "bar/20(2) 6/1(2)", 4),
        (INITIAL, (3, 1), "8/5 6/5", 2),
    ],
)
def test_arrows(board, dice, notation, n):
    play = parse_move_notation(board, *dice, notation)
    assert play is not None and len(play.steps) == n
    for move in (play, play.steps):
        root = parse(board_svg(board, dice=dice, move_steps=move))
        arrows = root.xpath("//s:g[@class='bgb-arrow']", namespaces=NS)
        assert len(arrows) == n
        for arrow in arrows:
            assert arrow.find("s:polygon", NS) is not None  # the head
        assert f"Move shown: {play.notation}." in root.get("aria-label")
    root = parse(board_svg(board))
    assert not root.xpath("//s:g[@class='bgb-arrow']", namespaces=NS)


def test_arrow_ends_bar_and_off():
    """bar/20 starts on the bar (middle column), 6/off ends in the tray (right)."""
    root = parse(board_svg(BARS, move_steps=[(25, 20)]))
    (path,) = root.xpath("//s:g[@class='bgb-arrow']/s:path[1]", namespaces=NS)
    (bar,) = root.xpath("//s:circle[contains(@class, 'bgb-c0 bgb-bar')][2]", namespaces=NS)
    start = re.match(r"M([\d.]+) ([\d.]+)", path.get("d"))
    assert (float(start.group(1)), float(start.group(2))) == (float(bar.get("cx")), float(bar.get("cy")))
    root = parse(board_svg(BEAROFF, move_steps=[(6, 0)]))
    (head,) = root.xpath("//s:g[@class='bgb-arrow']/s:polygon", namespaces=NS)
    tip_x = float(head.get("points").split()[0].split(",")[0])
    tray = min(float(r.get("x")) for r in root.xpath("//s:rect[@class='bgb-off0']", namespaces=NS))
    assert tip_x > tray


def test_no_duplicate_ids_in_one_document():
    a = board_svg(INITIAL, dice=(6, 4), move_steps=[(24, 18), (13, 9)])
    b = board_svg(BARS, palette="dark", move_steps=[(25, 20), (6, 1)])
    doc = etree.fromstring(f"<html><body>{a}{b}{a}</body></html>".encode("utf-8"))
    ids = count_attr_values(doc, "id")
    assert len(ids) == len(set(ids))


def test_size():
    assert len(board_svg(INITIAL).encode("utf-8")) < 12_000
    busy = board_svg(BARS, dice=(5, 5), move_steps=[(25, 20), (25, 20), (6, 1), (6, 1)],
                     cube_value=8, cube_owner=1, player_names=("A" * 40, "B" * 40), title="T" * 80)
    assert len(busy.encode("utf-8")) < 12_000


def test_text_is_escaped():
    svg = board_svg(INITIAL, title="<script>&", player_names=("<b>\"x\"</b>", "O&O"))
    root = parse(svg)
    assert not root.xpath("//s:script", namespaces=NS)
    assert "<script>" not in svg
    text = "".join(root.itertext())
    assert "<script>&" in text and '<b>"x"</b>' in text and "O&O" in text
    assert "<script>&" in root.get("aria-label")


def test_width_and_palette():
    root = parse(board_svg(INITIAL, width=800))
    assert float(root.get("width")) == 800
    vb = [float(v) for v in root.get("viewBox").split()]
    assert abs(float(root.get("height")) - 800 * vb[3] / vb[2]) < 0.1
    assert board_svg(INITIAL, palette="dark") != board_svg(INITIAL)
    with pytest.raises(ValueError):
        board_svg(INITIAL, palette="blue")


def test_position_text_initial():
    text = position_text(INITIAL)
    lines = text.splitlines()
    assert lines[0].startswith(" +13-14-15-16-17-18-+")
    assert any(line.startswith(" +12-11-10--9--8--7-+") for line in lines)
    assert text.count("X") - text.count("X on roll") == 15
    assert text.count("O") - text.count("O:") == 15
    assert "167 pips" in text and "4HPwATDgc/ABMA" in text
    # Point 13 column (second character of "13") holds the player on roll's 5.
    col = lines[0].index("13") + 1
    assert [line[col] for line in lines[1:6]] == ["X"] * 5
    # Point 1 at the bottom right: the opponent's 2 checkers.
    col = lines[12].index("-1-") + 1
    assert [line[col] for line in lines[10:12]] == ["O", "O"]


def test_position_text_tall_stack_and_bar():
    text = position_text(BARS)
    assert "10" in text and "126 pips, 1 off" in text and "145 pips, 3 off" in text
    assert len(position_text(STACK15).splitlines()) == 14
    assert "15" in position_text(STACK15)


def _bar_column(board_lines):
    """The bar column of a text board's 11 rows (5, the BAR line, 5): the
    three characters between the second and third ``|`` of each row."""
    return [line.split("|")[2] for line in board_lines]


@needs_gnubg
@pytest.mark.parametrize("board", [
    BARS,
    # 7 of X's and 6 of O's on the bar: the counts where gnubg writes them.
    Board(side({6: 5, 13: 3, 25: 7}), side({6: 5, 8: 3, 13: 1, 25: 6})),
    # X alone on the bar, O alone on the bar.
    Board(side({6: 5, 8: 3, 13: 5, 24: 1, 25: 1}), side({6: 5, 8: 3, 13: 5, 24: 2})),
    Board(side({6: 5, 8: 3, 13: 5, 24: 2}), side({6: 5, 8: 3, 13: 5, 24: 1, 25: 1})),
])
def test_position_text_bar_as_gnubg_text_board(board):
    """Each side's bar checkers sit where gnubg's own text board (``gnubg -t``,
    ``show board``) puts them: X's (on roll, at the bottom) in the lower half,
    O's in the upper half; compared row by row with the real gnubg's output."""
    from gnubg_blunder.gnubg.process import run_commands

    pid = board.position_id()
    res = run_commands(f"new game\nset board {pid}\nshow board\n", timeout=60)
    out = res.stdout.splitlines()
    # The last board gnubg drew is the one of `show board`, X (on roll) at the bottom.
    assert any(pid in line for line in out), res.stdout[-2000:]
    top = max(i for i, line in enumerate(out) if line.startswith(" +13-14-15-16-17-18"))
    gnubg_rows = out[top + 1: top + 12]
    assert out[top + 12].startswith(" +12-11-10"), res.stdout[-2000:]
    assert "BAR" in gnubg_rows[5]
    ours = position_text(board).splitlines()
    assert ours[0].startswith(" +13-14-15-16-17-18") and ours[12].startswith(" +12-11-10")
    assert _bar_column(ours[1:12]) == _bar_column(gnubg_rows)
    # The points agree too where no stack is taller than 9 (gnubg writes 10
    # as "A"; ours writes the count).
    if max(max(board.on_roll), max(board.opponent)) <= 9:
        assert [line[2:43] for line in ours[1:12]] == [line[2:43] for line in gnubg_rows]
