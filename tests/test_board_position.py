"""Board: gnubg's anBoard layout and position IDs, checked against the real gnubg."""

from __future__ import annotations

import json
import pickle

import pytest


from conftest import needs_gnubg, random_boards, side
from gnubg_blunder.board import Board
from gnubg_blunder.gnubg.process import run_python

INITIAL_ID = "4HPwATDgc/ABMA"


def test_initial():
    b = Board.initial()
    assert b.position_id() == INITIAL_ID
    assert Board.from_position_id(INITIAL_ID) == b
    assert b.pip_counts() == (167, 167)
    assert b.checkers_off() == (0, 0)
    assert b.on_roll[5] == 5 and b.on_roll[7] == 3 and b.on_roll[12] == 5 and b.on_roll[23] == 2


def test_gnubg_order_and_id_halves():
    # gnubg.board() after X played 24/23 13/11 with O on roll (read from gnubg):
    # (anBoard[0] = X = not on roll, anBoard[1] = O = on roll).
    x = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0)
    o = side({6: 5, 8: 3, 13: 5, 24: 2})
    b = Board.from_gnubg((x, o))
    assert b.on_roll == o and b.opponent == x
    assert b.to_gnubg() == (x, o)
    assert b.position_id() == "4HPkASjgc/ABMA"  # gnubg printed this ID for that board
    # The ID starts with the player NOT on roll: gnubg.positionid() of
    # ((1, 0, ..., 0), initial) is "AQAAgM/BB8AAAA" (bit 0 = its 1-point).
    lone = Board(on_roll=side({6: 5, 8: 3, 13: 5, 23: 2}), opponent=side({1: 1}))
    assert lone.position_id().startswith("AQAAgM")
    assert lone.swapped().position_id().startswith("4HPw")


def test_swapped_counts_and_roundtrip():
    b = Board(on_roll=side({25: 1, 1: 2, 6: 4}), opponent=side({20: 3, 13: 2}))
    s = b.swapped()
    assert s.on_roll == b.opponent and s.opponent == b.on_roll
    assert s.swapped() == b and s != b
    assert b.pip_counts() == (25 + 2 + 24, 60 + 26)
    assert b.checkers_off() == (8, 10)
    assert s.pip_counts() == (86, 51) and s.checkers_off() == (10, 8)
    for board in (b, s, *random_boards(1, 300)):
        assert Board.from_position_id(board.position_id()) == board
        assert Board.from_gnubg(board.to_gnubg()) == board


def test_immutable_and_hashable():
    b = Board.initial()
    with pytest.raises(AttributeError):
        b.on_roll = b.opponent
    with pytest.raises(AttributeError):
        del b.opponent
    c = Board.from_position_id(INITIAL_ID)
    assert b == c and hash(b) == hash(c) and len({b, c}) == 1
    assert pickle.loads(pickle.dumps(b)) == b
    assert repr(b) == f"Board.from_position_id({INITIAL_ID!r})"
    assert b != b.on_roll  # not equal to plain tuples


@pytest.mark.parametrize(
    "pid, message",
    [
        ("4HPwATDgc/ABM", "expected 14 characters"),
        ("4HPwATDgc/ABMAA", "expected 14 characters"),
        ("4HPwATDgc/AB!A", "outside base64"),
        ("4HPwATDgc-ABMA", "outside base64"),
        ("//8AAAAAAAAAAA", "more than 15 checkers"),  # 16 checkers on one point
        ("//////////////", "more than 15 checkers"),
        (12345, "must be a string"),
    ],
)
def test_malformed_position_ids(pid, message):
    with pytest.raises(ValueError, match=message):
        Board.from_position_id(pid)


def _encode(opponent, on_roll) -> str:
    """Independent encoder (no validation) for building bad IDs."""
    import base64

    bits = "".join("1" * n + "0" for n in (*opponent, *on_roll)).ljust(80, "0")
    data = bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, 80, 8))
    return base64.b64encode(data).decode()[:14]


def test_invalid_positions():
    initial = side({6: 5, 8: 3, 13: 5, 24: 2})
    assert _encode(initial, initial) == INITIAL_ID
    # 16 checkers spread over points: the per-side total is checked too.
    with pytest.raises(ValueError, match=r"more than 15 checkers for the \w[\w ]* \(16\)"):
        Board.from_position_id(_encode(side({1: 8, 2: 8}), side({6: 5})))
    # Both sides on one point (the on-roll side's 24-point is the opponent's 1-point).
    with pytest.raises(ValueError, match="same point"):
        Board.from_position_id(_encode(side({1: 1}), side({24: 1})))
    with pytest.raises(ValueError, match="25 entries"):
        Board((0,) * 24, (0,) * 25)
    with pytest.raises(ValueError, match="non-negative"):
        Board((-1,) + (0,) * 24, (0,) * 25)
    with pytest.raises(ValueError, match=r"more than 15 checkers for the \w[\w ]* \(16\)"):
        Board(side({6: 16}), initial)
    closed = side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1})
    with pytest.raises(ValueError, match="closed boards"):
        Board(closed, closed)


@needs_gnubg
@pytest.mark.gnubg
def test_position_ids_match_gnubg():
    """gnubg.positionid() and gnubg.positionfromid() agree with Board on
    hand-made and random-play boards (one gnubg process)."""
    boards = [
        Board.initial(),
        Board(on_roll=side({6: 5, 8: 3, 13: 5, 23: 2}), opponent=side({1: 1})),
        Board(on_roll=side({25: 3, 1: 12}), opponent=side({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2})),
        Board(on_roll=side({}), opponent=side({24: 15})),
        *random_boards(7, 150),
    ]
    source = (
        "import gnubg, json\n"
        f"boards = json.loads({json.dumps(json.dumps([b.to_gnubg() for b in boards]))})\n"
        "ids = [gnubg.positionid((tuple(b[0]), tuple(b[1]))) for b in boards]\n"
        "back = [gnubg.positionfromid(i) for i in ids]\n"
        "print('JSON' + json.dumps({'ids': ids, 'back': back}))\n"
    )
    proc = run_python(source, timeout=120)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("JSON")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = json.loads(lines[-1][4:])
    assert out["ids"] == [b.position_id() for b in boards]
    assert [Board.from_gnubg(g) for g in out["back"]] == boards
