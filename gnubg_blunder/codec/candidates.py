"""A decision's candidate list as stored: one compact BLOB (docs/storage.md).

Importing resolves no candidate but the played and the first: a list keeps
each play as the source wrote it (its single-checker steps, two letters a
step) with its numbers; the notation and the board a play leaves are worked
out when a list is shown (:func:`decode`, given the decision's board and
dice).  Every reader of ``decision_candidates.candidates`` goes through this
module.

Format 1 (little-endian), column by column::

    byte 0      1, the format
    bytes 1-2   n, the number of candidates (uint16)
    byte 3      flags (below)
    moves       n times: 1 byte length L (255: none), L bytes.  The steps, two letters a
                step, "a".."x" the mover's points 1..24, "y" the bar, "z"
                off; with MOVE_TEXT a notation as written (lists stored
                before format 1)
    equities    EQ_I32: n int32, millionths (the stored float is k / 1e6
                exactly; -2**31 = unknown); EQ_F64: n float64 (NaN = unknown);
                neither: every equity unknown
    probs       PR_I32: n times 5 int32 millionths (the first -2**31: none);
                PR_F64: n times 5 float64 (the first NaN: none); neither: none
    positions   POS_RAW: n times the 10 bytes of the gnubg position ID (its
                14 characters are their base64); POS_TEXT: n times 1 byte
                length and the ID as text (255: none); neither: none (the
                board is worked out from the steps)
    depths      DEPTHS: 1 byte m, m times (1 byte length, the text), then n
                bytes: each candidate's depth as an index into them (255:
                none); no DEPTHS: no depth

Unknown stays unknown (None); a float's exact value is kept.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from typing import Optional, Sequence

import numpy as np

from ..board.moves import IllegalMove, apply_steps, find_play
from ..board.position import Board

FORMAT = 1
EQ_I32, EQ_F64, PR_I32, PR_F64, POS_RAW, POS_TEXT, MOVE_TEXT, DEPTHS = (1 << k for k in range(8))

_NONE_I32 = -2 ** 31
_LETTERS = "zabcdefghijklmnopqrstuvwxy"  # point 0 (off) .. 25 (bar)
_POINT = {c: k for k, c in enumerate(_LETTERS)}
# gnubg's SGF letters of Black's moves, as the mover's own (White's) letters
SGF_BLACK_TO_MOVER = str.maketrans("abcdefghijklmnopqrstuvwx", "xwvutsrqponmlkjihgfedcba")


_STEP_LETTERS = [[a + b for b in _LETTERS] for a in _LETTERS]  # [from][to]: a step's two letters


def steps_text(steps) -> str:
    """Single-checker steps as stored: two letters a step (mover's points).
    A point above 25 raises IndexError, a point that is no int TypeError."""
    return "".join([_STEP_LETTERS[a][b] for a, b in steps])


def text_steps(text: str) -> tuple:
    """The steps of :func:`steps_text`."""
    return tuple((_POINT[text[k]], _POINT[text[k + 1]]) for k in range(0, len(text), 2))


def _micro(values: np.ndarray) -> tuple:
    """(int32 millionths of ``values``, which of them read back as the same
    float): any number written with 6 decimals does, -0.0 does not.  NaN
    (unknown) is -2**31 and reads back."""
    known = ~np.isnan(values)
    v = np.where(known, values, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.round(v * 1e6)
        ok = (np.abs(k) < 2 ** 31 - 1) & (k / 1e6 == v) & ~((k == 0) & np.signbit(v))
    k = np.where(ok & known, k, _NONE_I32).astype("<i4")
    return k, ok | ~known


# a gnubg position ID: 14 base64 characters of 10 bytes (the last one's low 4 bits zero)
_POSITION_ID = re.compile(r"[A-Za-z0-9+/]{13}[AQgw]")
_POS_CACHE: dict = {}


def _pos_bytes(pid) -> Optional[bytes]:
    """The 10 bytes of a position ID, or None when it is no ID of that form
    (then it is stored as text)."""
    raw = _POS_CACHE.get(pid)
    if raw is None:
        if not isinstance(pid, str) or not _POSITION_ID.fullmatch(pid):
            return None
        if len(_POS_CACHE) > 200000:
            _POS_CACHE.clear()
        raw = _POS_CACHE[pid] = binascii.a2b_base64(pid + "==")
    return raw


def _texts(items) -> bytes:
    if None not in items:
        try:  # the common case (ASCII steps or notation): one encoding of the whole column
            joined = "".join(items)
            if joined.isascii() and max(map(len, items), default=0) < 255:
                return "".join([chr(len(t)) + t for t in items]).encode("latin-1")
        except TypeError:  # bytes among them
            pass
    out = bytearray()
    for t in items:
        if t is None:
            out.append(255)
        else:
            b = t.encode() if isinstance(t, str) else t
            if len(b) > 254:
                raise ValueError(f"text too long to store in a candidate list: {t!r}")
            out.append(len(b))
            out += b
    return bytes(out)


def encode_many(lists: Sequence[tuple]) -> list:
    """Format 1 of several lists at once (the numbers of all of them
    converted together).  Each list is ``(moves, moves_are_text, equities,
    probs, position_ids, depths)``: ``moves`` bytes or str (letters, or
    notation with ``moves_are_text``); ``equities`` floats or None;
    ``probs`` 5-tuples or None; ``position_ids`` a list or None (none
    stored); ``depths`` a list of str or None, or None."""
    sizes = [len(x[0]) for x in lists]
    for n in sizes:
        if n > 65535:
            raise ValueError(f"a candidate list of {n} plays (at most 65,535 are stored)")
    eq_all = np.array([np.nan if e is None else e for x in lists for e in x[2]], dtype=np.float64)
    eq_k, eq_ok = _micro(eq_all)
    eq_known = ~np.isnan(eq_all)
    pr_all = np.array([p if p else (np.nan,) * 5 for x in lists for p in x[3]], dtype=np.float64).reshape(-1, 5)
    if pr_all.shape[0] != eq_all.shape[0]:
        raise ValueError("probabilities are 5 numbers a candidate")
    pr_k, pr_ok = _micro(pr_all.ravel())
    pr_k, pr_ok = pr_k.reshape(-1, 5), pr_ok.reshape(-1, 5).all(axis=1)
    pr_k[np.isnan(pr_all[:, 0])] = _NONE_I32  # no probabilities: the first number says it
    # per list: are its numbers all exact millionths, are any known (one pass, not one a list)
    bounds = np.cumsum([0] + sizes)
    starts = bounds[:-1]
    nonempty = np.array(sizes) > 0

    def per_list(flags):
        out = np.zeros(len(sizes), dtype=bool)
        if len(flags):
            out[nonempty] = np.logical_and.reduceat(flags, starts[nonempty])
        return out

    eq_exact = per_list(eq_ok)
    eq_none = per_list(~eq_known)
    pr_exact = per_list(pr_ok)
    eq_k_b, eq_f_b, pr_k_b, pr_f_b = eq_k.tobytes(), eq_all.astype("<f8").tobytes(), pr_k.tobytes(), \
        pr_all.astype("<f8").tobytes()
    out = []
    for li, ((moves, is_text, eqs, probs, pids, depths), n) in enumerate(zip(lists, sizes)):
        start = int(bounds[li])
        flags = MOVE_TEXT if is_text else 0
        parts = [b"", _texts(moves)]
        if n and not eq_none[li]:
            if eq_exact[li]:
                flags |= EQ_I32
                parts.append(eq_k_b[4 * start:4 * (start + n)])
            else:
                flags |= EQ_F64
                parts.append(eq_f_b[8 * start:8 * (start + n)])
        if n and any(probs):
            if pr_exact[li]:
                flags |= PR_I32
                parts.append(pr_k_b[20 * start:20 * (start + n)])
            else:
                flags |= PR_F64
                parts.append(pr_f_b[40 * start:40 * (start + n)])
        if pids is not None and any(p is not None for p in pids):
            raws = [_pos_bytes(p) for p in pids]
            if None in raws:
                flags |= POS_TEXT
                parts.append(_texts(pids))
            else:
                flags |= POS_RAW
                parts.append(b"".join(raws))
        if depths is not None and any(d is not None for d in depths):
            flags |= DEPTHS
            table = list(dict.fromkeys(d for d in depths if d is not None))
            if len(table) > 254:
                raise ValueError("more than 254 depths in one candidate list")
            where = {d: i for i, d in enumerate(table)}
            parts.append(bytes((len(table),)) + _texts(table)
                         + bytes(255 if d is None else where[d] for d in depths))
        parts[0] = bytes((FORMAT, n & 255, n >> 8, flags))
        out.append(b"".join(parts))
    return out


def encode(cands: Sequence) -> bytes:
    """One list of :class:`gnubg_blunder.model.Candidate` (or of anything
    with ``move``, ``equity``, ``probs``, ``position_id``, ``depth``) as
    format 1, each move kept as its notation and each board as its ID."""
    return encode_many([_columns(cands)])[0]


def _columns(cands) -> tuple:
    get = (lambda c, k: c.get(k)) if cands and isinstance(cands[0], dict) else getattr
    return ([get(c, "move") for c in cands], True, [get(c, "equity") for c in cands],
            [get(c, "probs") for c in cands], [get(c, "position_id") for c in cands],
            [get(c, "depth") for c in cands])


def encode_dicts(cands: Sequence[dict]) -> bytes:
    """A list of the JSON form (``move``, ``equity``, ``position_id``,
    ``probs``, ``depth``; before format 1) as format 1."""
    return encode_many([_columns(cands)])[0]


def _read_texts(b: bytes, i: int, n: int) -> tuple:
    out = []
    for _ in range(n):
        m = b[i]
        if m == 255:
            out.append(None)
            i += 1
        else:
            out.append(b[i + 1:i + 1 + m].decode())
            i += 1 + m
    return out, i


def _header(b: bytes) -> tuple:
    """A binary candidate list's (number of candidates, flags), after its
    format byte is checked."""
    if b[0] != FORMAT:
        raise ValueError(f"candidate list of unknown format {b[0]}")
    return b[1] | b[2] << 8, b[3]


def _after_moves(b, n: int) -> int:
    """Where a binary list's numbers start: after its header and its ``n``
    moves, skipped by their lengths (a byte each, 255 for none), not read."""
    i = 4
    for _ in range(n):
        m = b[i]
        i += 1 if m == 255 else 1 + m
    return i


class Columns:
    """One stored list's columns, no play resolved: ``moves`` (letters, or
    notation when ``moves_are_text``), ``equities``, ``probs``,
    ``position_ids`` (None where not stored), ``depths``."""

    __slots__ = ("moves", "moves_are_text", "equities", "_probs", "_pr", "position_ids", "depths")

    def __init__(self, blob):
        if blob is None or (not isinstance(blob, str) and not len(blob)):
            self.moves, self.moves_are_text, self.equities = [], True, []
            self._probs = self.position_ids = self.depths = []
            return
        if isinstance(blob, str):  # the JSON list of a database before schema step 10
            cands = json.loads(blob)
            self.moves, self.moves_are_text = [c.get("move") for c in cands], True
            self.equities = [c.get("equity") for c in cands]
            self._probs = [tuple(c["probs"]) if c.get("probs") else None for c in cands]
            self.position_ids = [c.get("position_id") for c in cands]
            self.depths = [c.get("depth") for c in cands]
            return
        b = bytes(blob)
        n, flags = _header(b)
        self.moves, i = _read_texts(b, 4, n)
        self.moves_are_text = bool(flags & MOVE_TEXT)
        if flags & EQ_I32:
            k = struct.unpack_from(f"<{n}i", b, i)
            self.equities = [None if x == _NONE_I32 else x / 1e6 for x in k]
            i += 4 * n
        elif flags & EQ_F64:
            v = struct.unpack_from(f"<{n}d", b, i)
            self.equities = [None if math.isnan(x) else x for x in v]
            i += 8 * n
        else:
            self.equities = [None] * n
        self._probs = None
        if flags & PR_I32:  # read when asked (most readers want the equities or the boards)
            self._pr = (True, struct.unpack_from(f"<{5 * n}i", b, i))
            i += 20 * n
        elif flags & PR_F64:
            self._pr = (False, struct.unpack_from(f"<{5 * n}d", b, i))
            i += 40 * n
        else:
            self._probs = [None] * n
        if flags & POS_RAW:
            self.position_ids = [base64.b64encode(b[j:j + 10])[:14].decode() for j in range(i, i + 10 * n, 10)]
            i += 10 * n
        elif flags & POS_TEXT:
            self.position_ids, i = _read_texts(b, i, n)
        else:
            self.position_ids = [None] * n
        if flags & DEPTHS:
            table, i = _read_texts(b, i + 1, b[i])
            self.depths = [None if x == 255 else table[x] for x in b[i:i + n]]
        else:
            self.depths = [None] * n


    def prob(self, j: int) -> Optional[tuple]:
        """Candidate j's probabilities (None: none)."""
        if self._probs is not None:
            return self._probs[j]
        ints, v = self._pr
        if ints:
            return None if v[5 * j] == _NONE_I32 else tuple(x / 1e6 for x in v[5 * j:5 * j + 5])
        return None if math.isnan(v[5 * j]) else v[5 * j:5 * j + 5]

    @property
    def probs(self) -> list:
        if self._probs is None:
            self._probs = [self.prob(j) for j in range(len(self.moves))]
        return self._probs


def probs_text(probs) -> Optional[str]:
    """A cube decision's chances (5 numbers) as ``decisions.cube_probs``
    stores them: their JSON list (each float's exact value); None unknown."""
    return None if not probs else json.dumps([float(p) for p in probs])


def text_probs(text) -> Optional[tuple]:
    """The chances of :func:`probs_text`."""
    return None if not text else tuple(json.loads(text))


def decider_cube_probs(row) -> Optional[tuple]:
    """A cube decision row's chances from the decider's side: the stored
    doubler's (``cube_probs``) for a double / no double, their mirror
    (win ↔ lose) for the responder of a take / pass; None unknown."""
    probs = text_probs(row.get("cube_probs"))
    if probs is None or row.get("kind") not in ("take", "pass"):
        return probs
    win, win_g, win_bg, lose_g, lose_bg = probs
    return (1.0 - win, lose_g, lose_bg, win_g, win_bg)


def equities(blob) -> list:
    """The candidates' equities in list order (None unknown): no play
    resolved, and of a format 1 list nothing read but the moves' lengths
    and the equities (no board decoded: the references' second choices
    read 67,000 lists over 10,000 matches)."""
    if blob is None or isinstance(blob, str) or not len(blob):
        return Columns(blob).equities
    b = bytes(blob)
    n, flags = _header(b)
    i = _after_moves(b, n)
    if flags & EQ_I32:
        return [None if x == _NONE_I32 else x / 1e6 for x in struct.unpack_from(f"<{n}i", b, i)]
    if flags & EQ_F64:
        return [None if math.isnan(x) else x for x in struct.unpack_from(f"<{n}d", b, i)]
    return [None] * n


def resolve(letters: str, board, dice) -> tuple:
    """(notation, resulting position ID) of a play stored as letters, on
    ``board`` with ``dice``; (None, None) when it is no legal play there."""
    if board is None or not dice or dice[0] is None or dice[1] is None:
        return None, None

    try:
        play = find_play(board, int(dice[0]), int(dice[1]), text_steps(letters))
    except (KeyError, ValueError):
        return None, None
    if play is None:
        return None, None
    return play.notation, play.result.position_id()


class CandidateList(Sequence):
    """A stored list read back: a sequence of dicts as the list was written
    before format 1 (``move`` in notation, ``equity``, ``position_id`` of
    the board left, mover on roll, ``probs`` a list, ``depth``).  A play is
    resolved (its notation and board) when its dict is first asked for."""

    def __init__(self, blob, position_id: Optional[str] = None, dice=None, notation: bool = True):
        self.columns = Columns(blob)
        self._notation = notation
        self._pid = position_id
        self._board = None
        self._dice = tuple(dice) if dice else None
        self._done: dict = {}

    def __len__(self) -> int:
        return len(self.columns.moves)

    def _board_before(self):
        if self._board is None and self._pid:
            self._board = Board.from_position_id(self._pid)
        return self._board

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(k)
        got = self._done.get(k)
        if got is None:
            c = self.columns
            move, pid = c.moves[k], c.position_ids[k]
            if not c.moves_are_text:
                if self._notation:
                    move, found = resolve(move, self._board_before(), self._dice)
                    pid = pid or found
                else:  # boards only: the steps applied, no legal plays generated
                    move, pid = None, self.board(k)
            probs = c.prob(k)
            got = self._done[k] = {"move": move, "equity": c.equities[k], "position_id": pid,
                                   "probs": list(probs) if probs else None, "depth": c.depths[k]}
        return got

    def equities(self) -> list:
        return list(self.columns.equities)

    def board(self, k: int) -> Optional[str]:
        """The position ID of the board candidate k leaves (mover on roll),
        without its notation: stored, or its steps applied to the decision's
        board (the board the import's legal play gave); None unknown."""
        c = self.columns
        if k in self._done or c.moves_are_text or c.position_ids[k] is not None:
            return self._done[k]["position_id"] if k in self._done else c.position_ids[k]
        board = self._board_before()
        if board is None:
            return None

        try:
            steps = text_steps(c.moves[k])
        except (KeyError, IndexError, TypeError):
            return None
        for order in (steps, sorted(steps, reverse=True)):
            try:
                return apply_steps(board, order).position_id()
            except IllegalMove:
                continue
        return None

    def __eq__(self, other):
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"CandidateList({list(self)!r})"


def decode(blob, position_id: Optional[str] = None, dice=None, notation: bool = True) -> CandidateList:
    """A stored list (format 1, or the JSON text of older databases) as
    dicts; ``position_id`` and ``dice`` are the decision's (the board before
    the play and the roll), which a play stored as steps needs.
    ``notation=False``: a play stored as steps gets its board (its steps
    applied) and no notation (``move`` None), without generating the legal
    plays: for readers of boards and numbers (labels, check)."""
    return CandidateList(blob, position_id, dice, notation)


def decode_row(row) -> CandidateList:
    """:func:`decode` of a decisions row with its ``candidates`` (as
    ``SQLiteStore.decision_rows`` gives them); empty when it has none."""
    return CandidateList(row.get("candidates"), row.get("position_id"), (row.get("dice1"), row.get("dice2")))


_EQ_PAIR = {EQ_I32: struct.Struct("<2i"), EQ_F64: struct.Struct("<2d")}


def second_cost(blob) -> Optional[float]:
    """max(0, eq₁ − eq₂) of a stored list (EMG), None when it has fewer
    than two candidates with an equity: :func:`equities`' first two, and
    of a format 1 list nothing read but the moves' lengths and those two
    numbers (the references' second choices read 67,000 lists over 10,000
    matches)."""
    if blob is None or isinstance(blob, str) or not len(blob) or blob[0] != FORMAT:
        eqs = equities(blob)
        if len(eqs) >= 2 and eqs[0] is not None and eqs[1] is not None:
            return max(0.0, float(eqs[0]) - float(eqs[1]))
        return None
    n, flags = _header(blob)
    kind = flags & (EQ_I32 | EQ_F64)
    if n < 2 or not kind:
        return None
    i = _after_moves(blob, n)
    first, second = _EQ_PAIR[EQ_I32 if kind & EQ_I32 else EQ_F64].unpack_from(blob, i)
    if kind & EQ_I32:
        if first == _NONE_I32 or second == _NONE_I32:
            return None
        first, second = first / 1e6, second / 1e6
    elif math.isnan(first) or math.isnan(second):
        return None
    return max(0.0, float(first) - float(second))
