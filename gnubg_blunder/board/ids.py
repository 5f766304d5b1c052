"""Match IDs, XGIDs and eXtreme Gammon position and move arrays.

Three ways other programs write a position or a match state down, read into
(and written from) this package's ``Board`` and a small ``MatchState``:

* **gnubg's match ID** (12 characters): the match state gnubg keeps beside a
  position ID.  Layout from gnubg's manual ("A technical description of the
  Match ID"), plus two facts the manual leaves out (gnubg's matchid.c): a
  67th bit meaning "no Jacoby", and the dice written larger first.  Verified
  against ``gnubg.matchid()`` (tests/test_board_ids.py).
* **XGID** (eXtreme Gammon's position string, ``XGID=<26>:<9 fields>``):
  field meanings from public XG-exported pages and gnubg's own XGID reader
  (``set xgid``); see docs/board.md for the sources and every convention.
* **XG position and move arrays** as stored in .xg/.xgp files: 26 signed
  numbers a position, (from, to) pairs a move.  Facts from XG's published
  format description (../shared/docs/xg-format.md) and the sample files.

Player numbering is gnubg's throughout: players 0 and 1, ``score`` =
(player 0, player 1), ``cube_owner`` -1 = centred.  An XGID's bottom player
(upper-case checkers) is gnubg's player 1, the top player gnubg's player 0:
that is how gnubg's ``set xgid`` reads it.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Optional, Sequence, Tuple

from .moves import Play, legal_plays
from .position import BAR, Board, Side

__all__ = [
    "GameState",
    "MatchState",
    "match_id",
    "MATCH_ID_LENGTH",
    "XGID",
    "parse_xgid",
    "board_from_xg",
    "xg_from_board",
    "steps_from_xg_move",
    "play_from_xg_move",
]

# ---------------------------------------------------------------------------
# gnubg match ID
# ---------------------------------------------------------------------------

MATCH_ID_LENGTH = 12
_MATCH_ID_RE = re.compile(r"^[A-Za-z0-9+/]{12}$")
_MAX_15_BITS = (1 << 15) - 1

# The match key (72 bits, 9 bytes), least significant bit first: bit 1 of
# the manual is bit 0 here.  (name, first bit, width).
_KEY_FIELDS = (
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),  # 0, 1, or 3 = centred
    ("on_roll", 6, 1),  # the manual's "dice owner"
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),  # not in the manual: gnubg writes !fJacoby here
)
_CENTRED_BITS = 3


class GameState(IntEnum):
    """gnubg's game state (bits 9-11 of the match key)."""

    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2
    RESIGNED = 3  # ended by an accepted resignation
    DROPPED = 4  # ended by a dropped cube


def _int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {value!r}")
    return value


@dataclass(frozen=True)
class MatchState:
    """The state a gnubg match ID holds, in gnubg's terms (``matchstate``).

    * ``cube``: cube value, a power of two from 1 to 32768.
    * ``cube_owner``: -1 centred, 0 or 1 the owning player.
    * ``on_roll``: the player on roll, or who has rolled (gnubg ``fMove``).
    * ``turn``: the player who must act now (gnubg ``fTurn``): the doubler's
      opponent after a double, the resigner's opponent after a resignation
      offer; ``None`` (the default) = ``on_roll``.
    * ``crawford``: this game is the Crawford game.
    * ``game_state``: a ``GameState`` (0..4).
    * ``doubled``: a double is offered and not yet taken or dropped.
    * ``resigned``: 0 none, else the resignation offered: 1 single, 2 gammon,
      3 backgammon.
    * ``dice``: ``(0, 0)`` when not rolled, else two dice 1..6, kept larger
      first (gnubg writes them so; the ID holds no order).
    * ``match_length``: 0 = money game.
    * ``score``: (player 0, player 1): the match or session score before this
      game (gnubg adds the game's points once the game is over).
    * ``jacoby``: the Jacoby rule is in force (money play).  gnubg writes it
      as a 67th bit that means "no Jacoby", so match-play IDs have it set and
      end in ``E`` (scores under 8192); gnubg's manual describes only the
      first 66 bits.

    Beavers and the post-Crawford flag are not part of the match ID.
    """

    cube: int = 1
    cube_owner: int = -1
    on_roll: int = 0
    turn: Optional[int] = None
    crawford: bool = False
    game_state: int = GameState.PLAYING
    doubled: bool = False
    resigned: int = 0
    dice: Tuple[int, int] = (0, 0)
    match_length: int = 0
    score: Tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self):
        cube = _int(self.cube, "cube")
        if cube < 1 or cube > 1 << 15 or cube & (cube - 1):
            raise ValueError(f"cube must be a power of two from 1 to 32768, got {cube}")
        if self.cube_owner not in (-1, 0, 1) or isinstance(self.cube_owner, bool):
            raise ValueError(f"cube_owner must be -1 (centred), 0 or 1, got {self.cube_owner!r}")
        if self.on_roll not in (0, 1) or isinstance(self.on_roll, bool):
            raise ValueError(f"on_roll must be 0 or 1, got {self.on_roll!r}")
        turn = self.on_roll if self.turn is None else self.turn
        if turn not in (0, 1) or isinstance(turn, bool):
            raise ValueError(f"turn must be 0 or 1, got {self.turn!r}")
        try:
            state = GameState(_int(self.game_state, "game_state"))
        except ValueError:
            raise ValueError(f"game_state must be 0..4, got {self.game_state!r}") from None
        if _int(self.resigned, "resigned") not in (0, 1, 2, 3):
            raise ValueError(f"resigned must be 0..3, got {self.resigned}")
        dice = tuple(self.dice)
        if len(dice) != 2 or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in dice):
            raise ValueError(f"dice must be two ints 0..6, got {self.dice!r}")
        if (dice[0] == 0) != (dice[1] == 0):
            raise ValueError(f"dice must be both 0 (not rolled) or both 1..6, got {self.dice!r}")
        if dice[0] < dice[1]:
            dice = (dice[1], dice[0])
        length = _int(self.match_length, "match_length")
        if not 0 <= length <= _MAX_15_BITS:
            raise ValueError(f"match_length must be 0..32767, got {length}")
        score = tuple(self.score)
        if len(score) != 2 or not all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= _MAX_15_BITS for s in score
        ):
            raise ValueError(f"score must be two ints 0..32767, got {self.score!r}")
        if self.crawford and not length:
            raise ValueError("no Crawford game in money play (match_length 0)")
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "jacoby", bool(self.jacoby))
        object.__setattr__(self, "crawford", bool(self.crawford))
        object.__setattr__(self, "doubled", bool(self.doubled))
        object.__setattr__(self, "game_state", state)
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "score", score)

    # -- match ID ------------------------------------------------------------
    def match_id(self) -> str:
        """gnubg's 12-character match ID (equal to ``gnubg.matchid()``)."""
        values = {
            "cube_log2": self.cube.bit_length() - 1,
            "cube_owner": _CENTRED_BITS if self.cube_owner == -1 else self.cube_owner,
            "on_roll": self.on_roll,
            "crawford": int(self.crawford),
            "game_state": int(self.game_state),
            "turn": self.turn,
            "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die1": self.dice[0],
            "die2": self.dice[1],
            "match_length": self.match_length,
            "score0": self.score[0],
            "score1": self.score[1],
            "no_jacoby": int(not self.jacoby),
        }
        key = 0
        for name, shift, _width in _KEY_FIELDS:
            key |= values[name] << shift
        return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def from_match_id(cls, mid: str) -> "MatchState":
        """Decode a gnubg match ID.

        Raises ``ValueError`` for anything that is not 12 base64 characters,
        and for field values gnubg never writes (cube owner bits 10, game
        state 5..7, a die of 7, one die rolled and not the other, a Crawford
        game in money play).  The last five bits (after gnubg's 67) are
        ignored, as gnubg ignores them."""
        if not isinstance(mid, str):
            raise ValueError(f"match ID must be a string, got {type(mid).__name__}")
        text = mid.strip()
        if not _MATCH_ID_RE.match(text):
            raise ValueError(f"malformed match ID {mid!r}: expected {MATCH_ID_LENGTH} base64 characters")
        try:
            key = int.from_bytes(base64.b64decode(text, validate=True), "little")
        except (binascii.Error, ValueError) as exc:  # pragma: no cover - regex catches these
            raise ValueError(f"malformed match ID {mid!r}: {exc}") from None
        v = {name: (key >> shift) & ((1 << width) - 1) for name, shift, width in _KEY_FIELDS}
        if v["cube_owner"] == 2:
            raise ValueError(f"malformed match ID {mid!r}: cube owner bits 10")
        if v["game_state"] > GameState.DROPPED:
            raise ValueError(f"malformed match ID {mid!r}: game state {v['game_state']}")
        try:
            return cls(
                cube=1 << v["cube_log2"],
                cube_owner=-1 if v["cube_owner"] == _CENTRED_BITS else v["cube_owner"],
                on_roll=v["on_roll"],
                turn=v["turn"],
                crawford=bool(v["crawford"]),
                game_state=v["game_state"],
                doubled=bool(v["doubled"]),
                resigned=v["resigned"],
                dice=(v["die1"], v["die2"]),
                match_length=v["match_length"],
                score=(v["score0"], v["score1"]),
                jacoby=not v["no_jacoby"],
            )
        except ValueError as exc:
            raise ValueError(f"malformed match ID {mid!r}: {exc}") from None

    # -- helpers ---------------------------------------------------------------
    def swapped_players(self) -> "MatchState":
        """The same state with players 0 and 1 exchanged (what gnubg's
        ``swap players`` does to the match state)."""
        return MatchState(
            cube=self.cube,
            cube_owner=self.cube_owner if self.cube_owner == -1 else 1 - self.cube_owner,
            on_roll=1 - self.on_roll,
            turn=1 - self.turn,
            crawford=self.crawford,
            game_state=self.game_state,
            doubled=self.doubled,
            resigned=self.resigned,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
            jacoby=self.jacoby,
        )


def match_id(state: MatchState) -> str:
    """gnubg's match ID of ``state`` (``state.match_id()``)."""
    return state.match_id()


# ---------------------------------------------------------------------------
# XGID
# ---------------------------------------------------------------------------

_XGID_PREFIX = "XGID="
_DEFAULT_MAX_CUBE = 1 << 10  # the field most XG exports end with (":10")


def _xg_char(n: int, upper: bool) -> str:
    if n == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + n - 1)


def _parse_int(text: str, name: str, xgid: str) -> int:
    if not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"malformed XGID {xgid!r}: {name} {text!r} is not an integer")
    return int(text)


@dataclass(frozen=True)
class XGID:
    """An XGID's contents, in XG's terms.

    ``bottom`` and ``top`` are the two sides in this package's layout (a
    25-tuple counted from that side's own home, index 24 = its bar).  The
    bottom player writes upper-case letters and is gnubg's player 1; the top
    player writes lower-case letters and is gnubg's player 0.

    * ``cube``: the cube value (the XGID stores its log2).
    * ``cube_owner``: 1 bottom, -1 top, 0 centred.
    * ``turn``: 1 bottom, -1 top: the player on roll, or who has doubled when
      ``doubled`` (that is how gnubg reads the field).
    * ``dice``: (0, 0) = not rolled (``00``); ``doubled`` = dice field ``D``.
    * ``score_bottom``, ``score_top``: the two score fields, in that order.
    * ``crawford``: match play, rules field 1.  ``jacoby`` / ``beaver``:
      money play, rules field bit 0 / bit 1.
    * ``match_length``: 0 = money.  ``max_cube``: the last field (its log2 is
      stored); gnubg ignores it.
    """

    bottom: Side
    top: Side
    cube: int = 1
    cube_owner: int = 0
    turn: int = 1
    dice: Tuple[int, int] = (0, 0)
    doubled: bool = False
    score_bottom: int = 0
    score_top: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    match_length: int = 0
    max_cube: int = _DEFAULT_MAX_CUBE

    def __post_init__(self):
        bottom, top = tuple(self.bottom), tuple(self.top)
        object.__setattr__(self, "bottom", bottom)
        object.__setattr__(self, "top", top)
        Board(bottom, top)  # validates both sides (counts, shared points, bars)
        for name in ("cube", "max_cube"):
            v = _int(getattr(self, name), name)
            if v < 1 or v & (v - 1):
                raise ValueError(f"{name} must be a power of two, got {v}")
        if self.cube_owner not in (-1, 0, 1) or isinstance(self.cube_owner, bool):
            raise ValueError(f"cube_owner must be 1 (bottom), -1 (top) or 0 (centred), got {self.cube_owner!r}")
        if self.turn not in (-1, 1) or isinstance(self.turn, bool):
            raise ValueError(f"turn must be 1 (bottom) or -1 (top), got {self.turn!r}")
        dice = tuple(self.dice)
        if len(dice) != 2 or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in dice):
            raise ValueError(f"dice must be two ints 0..6, got {self.dice!r}")
        if (dice[0] == 0) != (dice[1] == 0):
            raise ValueError(f"dice must be both 0 (not rolled) or both 1..6, got {self.dice!r}")
        if self.doubled and dice != (0, 0):
            raise ValueError("a doubled position has no dice (the XGID dice field is 'D')")
        object.__setattr__(self, "dice", dice)
        for name in ("score_bottom", "score_top", "match_length"):
            if _int(getattr(self, name), name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.match_length and (self.jacoby or self.beaver):
            raise ValueError("jacoby and beaver are money-play rules (match_length 0)")
        if not self.match_length and self.crawford:
            raise ValueError("crawford is a match-play rule (match_length > 0)")
        for name in ("doubled", "crawford", "jacoby", "beaver"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    # -- text ------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> "XGID":
        """Read ``XGID=<position>:<cube>:<owner>:<turn>:<dice>:<score bottom>:
        <score top>:<rules>:<length>:<max cube>`` (the ``XGID=`` prefix and
        the last field are optional).  Raises ``ValueError`` on anything
        else; dice fields other than two digits or ``D`` (XG's beaver and
        raccoon letters) are not supported."""
        if not isinstance(text, str):
            raise ValueError(f"XGID must be a string, got {type(text).__name__}")
        raw = text.strip()
        body = raw[len(_XGID_PREFIX):] if raw.upper().startswith(_XGID_PREFIX) else raw
        fields = body.split(":")
        if len(fields) not in (9, 10):
            raise ValueError(
                f"malformed XGID {text!r}: expected 10 ':'-separated fields (9 without the max cube), got {len(fields)}"
            )
        pos = fields[0]
        if len(pos) != 26 or not re.fullmatch(r"[A-Pa-p-]{26}", pos):
            raise ValueError(f"malformed XGID {text!r}: the position is 26 characters from A-P, a-p and '-'")
        bottom = [0] * 25
        top = [0] * 25
        for i, ch in enumerate(pos):
            if ch == "-":
                continue
            if ch.isupper():  # bottom player: char i = its point i, char 25 = its bar
                if i == 0:
                    raise ValueError(f"malformed XGID {text!r}: character 0 is the top player's bar")
                bottom[i - 1] = ord(ch) - ord("A") + 1
            else:  # top player: char i = its point 25 - i, char 0 = its bar
                if i == 25:
                    raise ValueError(f"malformed XGID {text!r}: character 25 is the bottom player's bar")
                top[24 - i] = ord(ch) - ord("a") + 1
        cube_log2 = _parse_int(fields[1], "cube", text)
        if not 0 <= cube_log2 <= 15:
            raise ValueError(f"malformed XGID {text!r}: cube field {cube_log2} (log2 of the cube, 0..15)")
        owner = _parse_int(fields[2], "cube position", text)
        turn = _parse_int(fields[3], "turn", text)
        dfield = fields[4]
        if dfield == "D":
            dice, doubled = (0, 0), True
        elif re.fullmatch(r"00|[1-6][1-6]", dfield):
            dice, doubled = (int(dfield[0]), int(dfield[1])), False
        else:
            raise ValueError(f"malformed XGID {text!r}: dice field {dfield!r} (00, two dice 1-6, or D)")
        score_bottom = _parse_int(fields[5], "score", text)
        score_top = _parse_int(fields[6], "score", text)
        rules = _parse_int(fields[7], "rules", text)
        length = _parse_int(fields[8], "match length", text)
        max_log2 = _parse_int(fields[9], "max cube", text) if len(fields) == 10 else 10
        if not 0 <= max_log2 <= 30:
            raise ValueError(f"malformed XGID {text!r}: max cube field {max_log2}")
        if length > 0 and rules not in (0, 1):
            raise ValueError(f"malformed XGID {text!r}: match play rules field is 0 or 1 (Crawford), got {rules}")
        if length == 0 and rules not in (0, 1, 2, 3):
            raise ValueError(f"malformed XGID {text!r}: money rules field is 0..3 (1 Jacoby + 2 beaver), got {rules}")
        try:
            return cls(
                bottom=tuple(bottom),
                top=tuple(top),
                cube=1 << cube_log2,
                cube_owner=owner,
                turn=turn,
                dice=dice,
                doubled=doubled,
                score_bottom=score_bottom,
                score_top=score_top,
                crawford=length > 0 and rules == 1,
                jacoby=length == 0 and bool(rules & 1),
                beaver=length == 0 and bool(rules & 2),
                match_length=length,
                max_cube=1 << max_log2,
            )
        except ValueError as exc:
            raise ValueError(f"malformed XGID {text!r}: {exc}") from None

    @property
    def position(self) -> str:
        """The 26-character position field."""
        chars = [_xg_char(self.top[BAR], False)]
        for p in range(1, 25):
            b, t = self.bottom[p - 1], self.top[24 - p]
            chars.append(_xg_char(b, True) if b else _xg_char(t, False))
        chars.append(_xg_char(self.bottom[BAR], True))
        return "".join(chars)

    def __str__(self) -> str:
        if self.match_length:
            rules = int(self.crawford)
        else:
            rules = int(self.jacoby) | (int(self.beaver) << 1)
        dice = "D" if self.doubled else f"{self.dice[0]}{self.dice[1]}"
        return (
            f"{_XGID_PREFIX}{self.position}:{self.cube.bit_length() - 1}:{self.cube_owner}:{self.turn}:"
            f"{dice}:{self.score_bottom}:{self.score_top}:{rules}:{self.match_length}:"
            f"{self.max_cube.bit_length() - 1}"
        )

    # -- conversions -------------------------------------------------------------
    def board(self) -> Board:
        """The position with the ``turn`` player on roll (the doubler when
        ``doubled``)."""
        if self.turn == 1:
            return Board(self.bottom, self.top)
        return Board(self.top, self.bottom)

    def match_state(self) -> MatchState:
        """The gnubg match state: bottom = player 1, top = player 0, game
        being played, no resignation; after a double (``D``) the top/bottom
        player who did not double has the turn."""
        on_roll = 1 if self.turn == 1 else 0
        return MatchState(
            cube=self.cube,
            cube_owner={1: 1, -1: 0, 0: -1}[self.cube_owner],
            on_roll=on_roll,
            turn=1 - on_roll if self.doubled else on_roll,
            crawford=self.crawford,
            game_state=GameState.PLAYING,
            doubled=self.doubled,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score_top, self.score_bottom),
            jacoby=self.jacoby,
        )

    @classmethod
    def from_board(
        cls,
        board: Board,
        state: MatchState,
        *,
        beaver: bool = False,
        max_cube: int = _DEFAULT_MAX_CUBE,
    ) -> "XGID":
        """The XGID of ``board`` (``state.on_roll`` on roll) in ``state``.

        Player 1 goes to the bottom.  ``state.jacoby`` (money play) and
        ``beaver`` fill the money rules field.  A pending double becomes the
        ``D`` dice field; the XGID has no room for a resignation, a finished game
        or the player to act other than through ``D``, so those states raise
        ``ValueError``."""
        if state.game_state not in (GameState.PLAYING, GameState.NONE) or state.resigned:
            raise ValueError("an XGID describes a game being played (no resignation, game not over)")
        if state.turn != (1 - state.on_roll if state.doubled else state.on_roll):
            raise ValueError(
                "an XGID cannot express this turn: the player to act is the one on roll, or the doubler's opponent"
            )
        if state.doubled and state.dice != (0, 0):
            raise ValueError("a doubled state has no dice")
        if state.on_roll == 1:
            bottom, top = board.on_roll, board.opponent
        else:
            bottom, top = board.opponent, board.on_roll
        return cls(
            bottom=bottom,
            top=top,
            cube=state.cube,
            cube_owner={1: 1, 0: -1, -1: 0}[state.cube_owner],
            turn=1 if state.on_roll == 1 else -1,
            dice=state.dice,
            doubled=state.doubled,
            score_bottom=state.score[1],
            score_top=state.score[0],
            crawford=state.crawford and state.match_length > 0,
            jacoby=state.jacoby and not state.match_length,
            beaver=beaver,
            match_length=state.match_length,
            max_cube=max_cube,
        )


def parse_xgid(text: str) -> XGID:
    """``XGID.parse(text)``."""
    return XGID.parse(text)


# ---------------------------------------------------------------------------
# eXtreme Gammon position and move arrays (.xg / .xgp records)
# ---------------------------------------------------------------------------

def board_from_xg(position: Sequence[int], on_roll: int = 1) -> Board:
    """A Board from an XG position array (``PositionEngine``: 26 signed ints).

    XG writes the position from one player's side: that player's checkers
    are positive, index ``p`` = its point ``p`` (1..24) and index 25 = its
    bar; the other player's checkers are negative, index ``i`` = that
    player's point ``25 - i`` and index 0 = its bar.

    ``on_roll`` says who is on roll in the returned Board: 1 = the positive
    player, -1 = the negative player.  Arrays in the mover's orientation
    (a Move record's ``PositionEnd``, the candidates' ``Pos``/``PosPlayed``,
    a Cube record's ``Doubled.Pos``) take the default; arrays in player 1's
    orientation (``PositionI``, ``PosInit``, a Cube record's ``Position``)
    take the record's ``ActiveP`` (1 = player 1, -1 = player 2)."""
    pos = tuple(position)
    if len(pos) != 26:
        raise ValueError(f"an XG position has 26 entries (0 and 25 = bars), got {len(pos)}")
    for n in pos:
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"XG position entries must be ints, got {n!r}")
    if pos[0] > 0:
        raise ValueError(f"index 0 is the negative player's bar, got {pos[0]}")
    if pos[25] < 0:
        raise ValueError(f"index 25 is the positive player's bar, got {pos[25]}")
    plus = tuple(max(pos[p], 0) for p in range(1, 25)) + (pos[25],)
    minus = tuple(max(-pos[25 - p], 0) for p in range(1, 25)) + (-pos[0],)
    if on_roll == 1:
        return Board(plus, minus)
    if on_roll == -1:
        return Board(minus, plus)
    raise ValueError(f"on_roll must be 1 (the positive player) or -1 (the negative player), got {on_roll!r}")


def xg_from_board(board: Board, on_roll: int = 1) -> Tuple[int, ...]:
    """The XG position array of ``board``: the inverse of ``board_from_xg``.
    ``on_roll=1`` writes it from the player on roll's side (positive),
    ``on_roll=-1`` from the opponent's side."""
    if on_roll == 1:
        plus, minus = board.on_roll, board.opponent
    elif on_roll == -1:
        plus, minus = board.opponent, board.on_roll
    else:
        raise ValueError(f"on_roll must be 1 or -1, got {on_roll!r}")
    arr = [0] * 26
    arr[0] = -minus[BAR]
    arr[25] = plus[BAR]
    for p in range(1, 25):
        arr[p] = plus[p - 1] - minus[24 - p]
    return tuple(arr)


def steps_from_xg_move(move: Sequence[int]) -> Optional[Tuple[Tuple[int, int], ...]]:
    """The (from, to) pairs of an XG move array, in gnubg's numbering.

    XG writes up to four (from, to) pairs (a Move record's ``Moves[8]``, a
    candidate's ``Moves[32][8]``), 0-based from the mover's side: 0 = its
    1-point, 23 = its 24-point, 24 = the bar, ``to`` <= -1 = borne off; a
    ``from`` of -1 ends the list.  Returned 1-based as gnubg writes steps:
    25 = bar, 0 = off.  ``()`` = no move (the roll dances).

    XG writes one pair per checker *path*: a checker moved by both dice is
    one pair (6-4 played 24/14 is ``(23, 13)``).  Such a pair is not a
    single-die step for ``apply_steps``/``find_play``; ``play_from_xg_move``
    resolves it against the legal plays.

    ``None``: an array of zeros, XG's "no move written": the played move of
    a roll that was never played (the game ended by a resignation after the
    roll), and the only candidate of a roll that dances.  Raises
    ``ValueError`` for anything else that is not a move."""
    arr = tuple(move)
    if len(arr) % 2 or not 2 <= len(arr) <= 8:
        raise ValueError(f"an XG move array has 2 to 8 entries in (from, to) pairs, got {len(arr)}")
    for n in arr:
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"XG move entries must be ints, got {n!r}")
    if all(n == 0 for n in arr):
        return None
    steps = []
    for k in range(0, len(arr), 2):
        frm, to = arr[k], arr[k + 1]
        if frm == -1:
            break
        if not 0 <= frm <= 24:
            raise ValueError(f"XG move {arr!r}: 'from' {frm} is not a point (0..23) or the bar (24)")
        if to >= frm:
            raise ValueError(f"XG move {arr!r}: ({frm}, {to}) does not move forward")
        if to >= 0 and frm - to > 24:
            raise ValueError(f"XG move {arr!r}: ({frm}, {to}) moves more than 24 pips")
        steps.append((frm + 1, to + 1 if to >= 0 else 0))
    return tuple(steps)


def _paths_result(board: Board, pairs: Sequence[Tuple[int, int]]) -> Optional[Side]:
    """The mover's side after moving one checker along each (from, to) pair
    (hits are not needed to know the mover's own checkers)."""
    me = list(board.on_roll)
    for frm, to in pairs:
        if not me[frm - 1]:
            return None
        me[frm - 1] -= 1
        if to:
            me[to - 1] += 1
    return tuple(me)


def play_from_xg_move(board: Board, d1: int, d2: int, move: Sequence[int]) -> Optional[Play]:
    """The legal play of ``board.on_roll`` for the roll ``d1``-``d2`` that an
    XG move array describes, with gnubg's single-die steps.

    The pairs fix where the mover's checkers end up; XG ends a pair where
    its checker hits, so a blot standing on a pair's landing point is hit
    and one passed over inside a pair is not (24/18* 18/14 is two pairs,
    24/14 past a blot on 18 one).  On XG's sample files the result equals
    the record's ``PositionEnd`` (``board_from_xg(PositionEnd)``) for every
    played move and equals ``PosPlayed`` for every analysed candidate.  A roll that dances (no legal play) with
    an empty or all-zero array gives a Play with no steps.  ``None`` when
    the array matches no legal play, including an all-zero array (no move
    written) for a roll that could be played."""
    pairs = steps_from_xg_move(move)
    plays = legal_plays(board, d1, d2)
    if not pairs:  # no move written (None) or none made (()): right when the roll dances
        return None if plays else Play(board, (), board)
    target = _paths_result(board, pairs)
    if target is None:
        return None
    # XG ends a pair where its checker hits (6/2* 2/1* is two pairs), so the
    # blots hit are exactly those standing on the pairs' landing points.
    hits = {to for _frm, to in pairs if to and board.opponent[24 - to] == 1}
    for p in plays:
        if p.result.on_roll == target and set(p.hits) == hits:
            return p
    return None
