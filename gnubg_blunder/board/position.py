"""A backgammon position, in GNU Backgammon's conventions.

Each side is a 25-tuple in gnubg's ``anBoard`` layout, counted from that
side's own home: index 0..23 = its points 1..24, index 24 = its bar.
Checkers borne off are not stored (15 minus the checkers on the board).

``Board.on_roll`` is the player about to move, ``Board.opponent`` the other.
gnubg orders the pair the other way round: ``gnubg.board()`` returns
``(opponent, on_roll)`` (``anBoard[0]`` is the player *not* on roll,
``anBoard[1]`` the player on roll), and so does ``gnubg.positionfromid()``.

The position ID (14 characters) is gnubg's: an 80-bit key, for
``anBoard[0]`` (the opponent) then ``anBoard[1]`` (the player on roll), each
of the 25 entries written as that many 1-bits followed by a 0-bit; bits are
packed least significant bit first into 10 bytes, then written in standard
base64 without the ``==`` padding.  Verified against ``gnubg.positionid()``
and the ``board`` keys of ``gnubg.match()`` (tests/test_board_position.py).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Iterable, Sequence, Tuple

Side = Tuple[int, ...]

CHECKERS = 15
BAR = 24  # index of the bar in a side's 25-tuple
POSITION_ID_LENGTH = 14

_INITIAL_SIDE: Side = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
_BASE64_RE = re.compile(r"^[A-Za-z0-9+/]{14}$")


def _side(values: Iterable[int], name: str) -> Side:
    side = tuple(values)
    if len(side) != 25:
        raise ValueError(f"{name}: expected 25 entries (points 1..24 and the bar), got {len(side)}")
    for n in side:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"{name}: checker counts must be non-negative ints, got {n!r}")
    return side


def _check(on_roll: Side, opponent: Side) -> None:
    """gnubg's CheckPosition: at most 15 checkers a side, no point held by
    both sides, not both sides on the bar against closed boards."""
    for name, side in (("player on roll", on_roll), ("opponent", opponent)):
        total = sum(side)
        if total > CHECKERS:
            raise ValueError(f"more than {CHECKERS} checkers for the {name} ({total})")
    for i in range(24):
        if on_roll[i] and opponent[23 - i]:
            raise ValueError(
                f"both players have checkers on the same point "
                f"(point {i + 1} of the player on roll)"
            )
    if (
        on_roll[BAR]
        and opponent[BAR]
        and all(n >= 2 for n in on_roll[:6])
        and all(n >= 2 for n in opponent[:6])
    ):
        raise ValueError("both players are on the bar against closed boards")


class Board:
    """An immutable, hashable backgammon position with a player on roll.

    ``Board(on_roll, opponent)`` takes two 25-sequences (see the module
    docstring) and validates them.  Two boards are equal when both sides
    are equal; the player on roll is part of the position.
    """

    __slots__ = ("on_roll", "opponent", "_hash")

    on_roll: Side
    opponent: Side

    def __init__(self, on_roll: Iterable[int], opponent: Iterable[int]):
        me = _side(on_roll, "player on roll")
        opp = _side(opponent, "opponent")
        _check(me, opp)
        _set_on_roll(self, me)
        _set_opponent(self, opp)
        _set_hash(self, None)

    @classmethod
    def _trusted(cls, on_roll: Side, opponent: Side) -> "Board":
        """Build from two 25-tuples known to be valid (no checks; internal)."""
        b = _new(cls)
        _set_on_roll(b, on_roll)
        _set_opponent(b, opponent)
        _set_hash(b, None)
        return b

    # -- immutability, equality -------------------------------------------
    def __setattr__(self, name, value):
        raise AttributeError("Board is immutable")

    def __delattr__(self, name):
        raise AttributeError("Board is immutable")

    def __eq__(self, other) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.on_roll == other.on_roll and self.opponent == other.opponent

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self.on_roll, self.opponent))
            _set_hash(self, h)
        return h

    def __reduce__(self):
        return (Board, (self.on_roll, self.opponent))

    def __repr__(self) -> str:
        return f"Board.from_position_id({self.position_id()!r})"

    # -- construction ------------------------------------------------------
    @classmethod
    def initial(cls) -> "Board":
        """The starting position (symmetric, so either player may be on roll)."""
        return cls._trusted(_INITIAL_SIDE, _INITIAL_SIDE)

    @classmethod
    def from_gnubg(cls, board: Sequence[Sequence[int]]) -> "Board":
        """From gnubg's ``(anBoard[0], anBoard[1])`` = ``(opponent, on_roll)``,
        as ``gnubg.board()`` and ``gnubg.positionfromid()`` return it."""
        if len(board) != 2:
            raise ValueError(f"a gnubg board is a pair of 25-sequences, got {len(board)} items")
        return cls(board[1], board[0])

    def to_gnubg(self) -> Tuple[Side, Side]:
        """``(opponent, on_roll)``: the order ``gnubg.positionid(board)`` expects."""
        return (self.opponent, self.on_roll)

    @classmethod
    def from_position_id(cls, pid: str) -> "Board":
        """Decode a 14-character gnubg position ID.

        Raises ``ValueError`` on a malformed ID: not a string, wrong length,
        characters outside base64, more than 15 checkers a side, bits left
        over after the 50 entries, or an impossible position."""
        if not isinstance(pid, str):
            raise ValueError(f"position ID must be a string, got {type(pid).__name__}")
        text = pid.strip()
        if len(text) != POSITION_ID_LENGTH:
            raise ValueError(
                f"malformed position ID {pid!r}: expected {POSITION_ID_LENGTH} characters, got {len(text)}"
            )
        if not _BASE64_RE.match(text):
            raise ValueError(f"malformed position ID {pid!r}: characters outside base64 (A-Z a-z 0-9 + /)")
        try:
            raw = base64.b64decode(text + "==", validate=True)
        except (binascii.Error, ValueError) as exc:  # pragma: no cover - regex catches these
            raise ValueError(f"malformed position ID {pid!r}: {exc}") from None
        # the 80 bits, least significant first: 25 entries for each side, each n 1-bits then a 0-bit
        runs = format(int.from_bytes(raw, "little"), "080b")[::-1].split("0")
        if len(runs) <= 50:  # fewer than 50 0-bits: the entries need more than the 80 bits
            raise ValueError(f"malformed position ID {pid!r}: more than {CHECKERS} checkers a side")
        if any(runs[50:]):
            raise ValueError(f"malformed position ID {pid!r}: stray bits after the last point")
        counts = [len(run) for run in runs[:50]]
        opponent, on_roll = tuple(counts[:25]), tuple(counts[25:])
        try:
            _check(on_roll, opponent)
        except ValueError as exc:
            raise ValueError(f"malformed position ID {pid!r}: {exc}") from None
        return cls._trusted(on_roll, opponent)

    # -- conversions -------------------------------------------------------
    def position_id(self) -> str:
        """gnubg's position ID, equal to ``gnubg.positionid(self.to_gnubg())``."""
        key = 0
        pos = 0
        for side in (self.opponent, self.on_roll):
            for n in side:
                if n:
                    key |= ((1 << n) - 1) << pos
                    pos += n
                pos += 1
        return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:POSITION_ID_LENGTH]

    def swapped(self) -> "Board":
        """The same position with the other player on roll."""
        return Board._trusted(self.opponent, self.on_roll)

    # -- counts ------------------------------------------------------------
    def pip_counts(self) -> Tuple[int, int]:
        """``(on_roll, opponent)`` pip counts; a checker on the bar counts 25."""
        return (
            sum(i * n for i, n in enumerate(self.on_roll, 1)),
            sum(i * n for i, n in enumerate(self.opponent, 1)),
        )

    def checkers_off(self) -> Tuple[int, int]:
        """``(on_roll, opponent)`` checkers borne off (15 minus those on the board)."""
        return (CHECKERS - sum(self.on_roll), CHECKERS - sum(self.opponent))


# Slot setters: Board blocks attribute assignment, so its own code writes the
# slots through their descriptors (faster than object.__setattr__).
_new = object.__new__
_set_on_roll = Board.__dict__["on_roll"].__set__
_set_opponent = Board.__dict__["opponent"].__set__
_set_hash = Board.__dict__["_hash"].__set__
