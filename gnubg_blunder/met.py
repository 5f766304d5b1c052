"""Match equity table (MET) and equity <-> match-winning-chance conversions.

The table is Kazaross-XG2 in GNU Backgammon's XML format, read with lxml and
extended to 64-away the way GNU Backgammon 1.07 extends it, so that every
conversion here gives the numbers ``gnubg.eq2mwc`` / ``gnubg.mwc2eq`` give
(the test suite compares both against the real gnubg; see ``docs/met.md``).

What gnubg does, and what this module therefore does:

* The stored pre-Crawford table (25 x 25 for Kazaross-XG2) is kept as is.
  Every row from the stored length up to 64-away is replaced by David
  Montgomery's normal-distribution estimate (``P(lead survives)`` with a
  per-game standard deviation that depends on the away score), and the
  missing upper triangle is filled by complement, ``1 - MET[j][i]``.
* Of the stored post-Crawford row only the first ``length - 1`` entries are
  used (24 for a 25-point table: 1-away .. 24-away for the trailer); from
  there on it is rebuilt with Zadeh's recursion, gammon rate 0.25:
  ``pc[k] = 0.125 * pc[k-4] + 0.375 * pc[k-2]`` (the free-drop corrections at
  2-away and 4-away only ever apply to the first entries, which are stored).
* Everything is single precision (gnubg's tables are C ``float``), and the
  arithmetic here is done in ``numpy.float32`` in the same order as gnubg's,
  so the results agree to the last bit, not just to 1e-6: that matters for
  ``mwc2eq`` at lopsided scores, where it divides by a tiny MWC difference.
* Reading a score after a game (gnubg's ``getME``): if the game is the
  Crawford game, or is played at a score where either player is 1-away (a
  post-Crawford game), the score it leads to is read in the post-Crawford
  table; otherwise in the pre-Crawford table.  So a game won from the
  Crawford game leads to a post-Crawford score, while a pre-Crawford game that
  brings a player to 1-away is read at the pre-Crawford 1-away entry, the MWC
  at the start of the Crawford game.  A finished match is 1 or 0.

Scores in the public API are the points already won (``score_self``,
``score_opp``), from the side of the player whose MWC is wanted (the player
on roll for ``eq2mwc``/``mwc2eq``, like gnubg's ``cubeinfo`` mover).  gnubg's
tables are stored for its player 0; the complement ``1 - x`` of a float32 is
not always the float32 of the complement, so reading a score as player 1
can differ from reading the mirrored score as player 0 in the last bit.  The
keyword ``player`` (gnubg's index of that player: 0 = X, 1 = O) reproduces
gnubg's rounding exactly.  Left at 0, MWCs and ``eq2mwc`` stay within
1.2e-7 of gnubg, but ``mwc2eq`` at lopsided scores (where it divides by a
difference of 1e-7 or less) does not: pass ``player`` when gnubg's index is
known.

The cube value and the Crawford flag are taken as given; the cube owner
plays no part in these conversions (nor in gnubg's).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading
from pathlib import Path
from typing import Optional, Tuple, Union

import numpy as np
from lxml import etree

__all__ = [
    "MAXSCORE",
    "BUNDLED_MET",
    "MatchEquityTable",
    "default_met",
]

#: gnubg's largest supported away score / match length.
MAXSCORE = 64

#: The Kazaross-XG2 table shipped with this package (same file as gnubg's
#: ``/usr/share/gnubg/met/Kazaross-XG2.xml``).
BUNDLED_MET = Path(__file__).resolve().parent / "data" / "Kazaross-XG2.xml"

_F = np.float32
_ONE = _F(1.0)
_HALF = _F(0.5)
_TWO = _F(2.0)

# Montgomery's per-game standard deviations by away score (index = points
# away; 0 unused); 1.77 beyond 10-away.
_MONTGOMERY_SD = (0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72)
_MONTGOMERY_SD_FAR = 1.77

# Zadeh post-Crawford parameters gnubg uses to rebuild the row.
_PC_GAMMON_RATE = 0.25
_PC_FREE_DROP_2 = 0.015
_PC_FREE_DROP_4 = 0.004


# ----------------------------------------------------------------------------
# single-precision helpers


def _load_erff():
    """C's single-precision ``erff`` from the system libm, if there is one.

    gnubg computes the normal-distribution extension with ``erff``; using the
    same function keeps the extended table bit-identical.  Without a libm the
    double-precision ``math.erf`` rounded to float32 is used (it can differ
    by one unit in the last place, ~1e-7, in a few entries).
    """
    for name in (ctypes.util.find_library("m"), "libm.so.6"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            fn = lib.erff
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float]
        return lambda x: _F(fn(float(x)))
    return lambda x: _F(math.erf(float(x)))


_erff = _load_erff()
_INV_SQRT2_F = _F(1.0 / math.sqrt(2.0))


def _sd(away: int):
    return _F(_MONTGOMERY_SD_FAR if away > 10 else _MONTGOMERY_SD[away])


def _extend_pre_crawford(table: np.ndarray, stored: int) -> None:
    """Fill rows ``stored..MAXSCORE-1`` of ``table`` (float32, indices are
    away - 1) with Montgomery's normal approximation, then the upper
    triangle of the new part by complement.  In place.

    For a player a0-away against a1-away (a0 >= a1) the match lasts about
    (a0 + a1) / 2 games, each moving the point difference with standard
    deviation sd(a) per player; the MWC of the trailer is the probability
    that a normal variable N(0, sigma) ends between the deficit a0 - a1 and
    6 sigma.

    The float32 operations are those of Debian's gnubg 1.07.001 binary,
    which is built with value-changing optimisations: it computes
    sigma = sqrt(games * (sd0^2 + sd1^2)) (one square root, not two), scales
    by the constant float(1/sqrt(2)) rather than dividing by sqrtf(2), and
    takes (erf(hi) - erf(lo)) / 2 instead of subtracting the two
    cumulative probabilities.  The textbook order gives the same numbers
    to about 1e-7; this order gives gnubg's to the bit.
    """
    six = _F(6.0)
    for i in range(stored, MAXSCORE):
        away0 = i + 1
        var0 = _sd(away0) * _sd(away0)
        for j in range(i + 1):
            away1 = j + 1
            var1 = _sd(away1) * _sd(away1)
            games = _F(away0 + away1) * _HALF
            sigma = np.sqrt(_F(games * _F(var1 + var0)))
            upper = six * sigma
            deficit = _F(away0 - away1)
            if upper > deficit:
                e_hi = _erff(_F(upper / sigma) * _INV_SQRT2_F)
                e_lo = _erff(_F(deficit / sigma) * _INV_SQRT2_F)
                table[i, j] = _F(e_hi - e_lo) * _HALF
            else:
                table[i, j] = _F(0.0)
    for i in range(MAXSCORE):
        for j in range(max(stored, i + 1), MAXSCORE):
            table[i, j] = _ONE - table[j, i]


def _extend_post_crawford(row: np.ndarray, start: int) -> None:
    """Zadeh's post-Crawford recursion from index ``start`` on (in place).

    ``row[k]`` is the MWC of the trailer at (k+1)-away against a leader at
    1-away, post-Crawford.  A win by the trailer is a gammon with
    probability G (4 points with the free double) or single (2 points).
    """
    g = _F(_PC_GAMMON_RATE)
    w_gammon = g * _HALF
    w_single = (_ONE - g) * _HALF
    for k in range(start, MAXSCORE):
        after_gammon = row[k - 4] if k >= 4 else _ONE
        after_single = row[k - 2] if k >= 2 else _ONE
        v = _F(w_gammon * after_gammon) + _F(w_single * after_single)
        if k == 1:
            v = v - _F(_PC_FREE_DROP_2)
        if k == 3:
            v = v - _F(_PC_FREE_DROP_4)
        row[k] = v


# ----------------------------------------------------------------------------
# XML


def _parse_float(text: Optional[str]) -> np.float32:
    # gnubg: (float) g_ascii_strtod(text) -- parse as double, round to float.
    if text is None or not text.strip():
        raise ValueError("empty <me> element in match equity table")
    return _F(float(text.strip()))


def _read_xml(path: Path):
    parser = etree.XMLParser(
        load_dtd=False, no_network=True, resolve_entities=False, remove_comments=True
    )
    root = etree.parse(str(path), parser).getroot()
    if root.tag != "met":
        raise ValueError(f"{path}: not a GNU Backgammon match equity table (<met>)")
    name = (root.findtext("info/name") or "").strip()
    description = (root.findtext("info/description") or "").strip()
    length_text = root.findtext("info/length")
    if length_text is None:
        raise ValueError(f"{path}: <info><length> missing")
    stored = int(length_text.strip())
    if stored < 1:
        raise ValueError(f"{path}: invalid table length {stored}")

    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise ValueError(f"{path}: <pre-crawford-table> missing")
    if pre_el.get("type", "explicit") != "explicit":
        raise ValueError(
            f"{path}: parameterised pre-Crawford tables ({pre_el.get('type')!r}) are not supported"
        )
    rows = [[_parse_float(me.text) for me in row.findall("me")] for row in pre_el.findall("row")]

    post = {}
    for pc_el in root.findall("post-crawford-table"):
        if pc_el.get("type", "explicit") != "explicit":
            raise ValueError(
                f"{path}: parameterised post-Crawford tables ({pc_el.get('type')!r}) are not supported"
            )
        values = [_parse_float(me.text) for me in pc_el.iterfind("row/me")]
        who = pc_el.get("player", "both")
        targets = {"both": (0, 1), "0": (0,), "1": (1,)}.get(who)
        if targets is None:
            raise ValueError(f"{path}: post-Crawford table for unknown player {who!r}")
        for p in targets:
            post[p] = values
    if set(post) != {0, 1}:
        raise ValueError(f"{path}: post-Crawford table missing for a player")
    return name, description, stored, rows, post


# ----------------------------------------------------------------------------


Number = Union[int, float]


class MatchEquityTable:
    """A match equity table extended to 64-away exactly as gnubg 1.07 does.

    Attributes
    ----------
    name, description : from the XML ``<info>``.
    path : the XML file read.
    stored_length : the table's own length (25 for Kazaross-XG2).
    pre_crawford : float32 array (64, 64), read-only; ``pre_crawford[i, j]``
        is the MWC of a player (i+1)-away against an opponent (j+1)-away
        before or at the start of the Crawford game.
    post_crawford : float32 array (64,), read-only; ``post_crawford[k]`` is
        the MWC of the trailer (k+1)-away against a leader 1-away in a
        post-Crawford game (``post_crawford[0]`` = 0.5, DMP).
    post_crawford_by_player : float32 array (2, 64), gnubg's two rows (the
        trailer being gnubg's player 0 / player 1); identical for tables
        with ``player="both"`` such as Kazaross-XG2.
    """

    _cache: dict = {}
    _cache_lock = threading.Lock()

    def __init__(self, path: Union[str, Path]):
        path = Path(path)
        name, description, stored, rows, post = _read_xml(path)
        self.path = path
        self.name = name
        self.description = description
        self.stored_length = stored

        n = min(stored, MAXSCORE)
        if len(rows) < n or any(len(r) < n for r in rows[:n]):
            raise ValueError(f"{path}: pre-Crawford table smaller than its length {stored}")
        pre = np.zeros((MAXSCORE, MAXSCORE), dtype=np.float32)
        for i in range(n):
            pre[i, :n] = rows[i][:n]
        _extend_pre_crawford(pre, n)

        # gnubg keeps length-1 stored post-Crawford entries (the first legal
        # post-Crawford score of an n-point match is 1-away, (n-1)-away) and
        # rebuilds the rest.
        keep = min(stored - 1, MAXSCORE)
        pcs = np.zeros((2, MAXSCORE), dtype=np.float32)
        for p in (0, 1):
            if len(post[p]) < keep:
                raise ValueError(
                    f"{path}: post-Crawford table has {len(post[p])} entries, needs {keep}"
                )
            pcs[p, :keep] = post[p][:keep]
            _extend_post_crawford(pcs[p], keep)

        pre.setflags(write=False)
        pcs.setflags(write=False)
        self.pre_crawford = pre
        self.post_crawford_by_player = pcs
        self.post_crawford = pcs[0]

    # -- construction -------------------------------------------------------

    @classmethod
    def load(cls, path: Union[str, Path, None] = None) -> "MatchEquityTable":
        """The table in ``path`` (default: the bundled Kazaross-XG2), cached."""
        p = Path(path) if path is not None else BUNDLED_MET
        key = str(p.resolve())
        with cls._cache_lock:
            met = cls._cache.get(key)
            if met is None:
                met = cls(p)
                cls._cache[key] = met
        return met

    def __repr__(self) -> str:
        return f"<MatchEquityTable {self.name!r} ({self.stored_length} stored, extended to {MAXSCORE})>"

    # -- table look-ups -----------------------------------------------------

    def mwc(self, away_self: int, away_opp: int, post_crawford: bool = False) -> float:
        """MWC of a player needing ``away_self`` points against one needing
        ``away_opp``.  ``away <= 0`` means that player has won.

        ``post_crawford=True`` reads the post-Crawford table (one player must
        be 1-away); otherwise the pre-Crawford table, whose 1-away entries are
        the MWC at the start of the Crawford game.
        """
        away_self = int(away_self)
        away_opp = int(away_opp)
        if away_self <= 0 and away_opp <= 0:
            raise ValueError("both players cannot have won")
        if away_self <= 0:
            return 1.0
        if away_opp <= 0:
            return 0.0
        if away_self > MAXSCORE or away_opp > MAXSCORE:
            raise ValueError(f"away scores are limited to {MAXSCORE}")
        if post_crawford:
            if away_self == 1:
                return float(_ONE - self.post_crawford_by_player[1][away_opp - 1])
            if away_opp == 1:
                return float(self.post_crawford_by_player[0][away_self - 1])
            raise ValueError("post-Crawford scores need a player 1-away")
        return float(self.pre_crawford[away_self - 1, away_opp - 1])

    # gnubg's getME, on float32: MWC of ``player`` after ``winner`` wins
    # ``points`` from score (score0, score1) of gnubg's players 0 and 1.
    def _me(self, score0: int, score1: int, length: int, player: int,
            points: int, winner: int, crawford: bool) -> np.float32:
        n0 = length - (score0 + (points if winner == 0 else 0)) - 1
        n1 = length - (score1 + (points if winner == 1 else 0)) - 1
        if n0 < 0:
            return _ONE if player == 0 else _F(0.0)
        if n1 < 0:
            return _F(0.0) if player == 0 else _ONE
        if crawford or length - score0 == 1 or length - score1 == 1:
            pc = self.post_crawford_by_player
            if n0 == 0:
                v = pc[1][n1]
                return v if player == 1 else _ONE - v
            v = pc[0][n0]
            return v if player == 0 else _ONE - v
        v = self.pre_crawford[n0, n1]
        return v if player == 0 else _ONE - v

    @staticmethod
    def _check(length, score_self, score_opp, cube, crawford, player):
        if not (0 <= length <= MAXSCORE):
            raise ValueError(f"match length must be 0 (money) .. {MAXSCORE}, not {length}")
        if player not in (0, 1):
            raise ValueError("player must be 0 or 1")
        if cube < 1:
            raise ValueError(f"cube value must be >= 1, not {cube}")
        if length == 0:
            return
        for s in (score_self, score_opp):
            if not (0 <= s < length):
                raise ValueError(f"score {s} impossible in a {length}-point match")
        if crawford and length - score_self != 1 and length - score_opp != 1:
            raise ValueError("a Crawford game needs a player 1-away")

    def _win_lose(self, length, score_self, score_opp, cube, crawford, player):
        length, score_self, score_opp, cube = int(length), int(score_self), int(score_opp), int(cube)
        self._check(length, score_self, score_opp, cube, crawford, player)
        if player == 0:
            s0, s1 = score_self, score_opp
        else:
            s0, s1 = score_opp, score_self
        crawford = bool(crawford)
        win = self._me(s0, s1, length, player, cube, player, crawford)
        lose = self._me(s0, s1, length, player, cube, 1 - player, crawford)
        return win, lose

    # -- public conversions -------------------------------------------------

    def win_lose_mwc(self, length: int, score_self: int, score_opp: int, cube: int,
                     crawford: bool, *, player: int = 0) -> Tuple[float, float]:
        """(MWC after winning ``cube`` points, MWC after losing ``cube``
        points), for the player with ``score_self`` points, read at the score
        the game leads to as gnubg's ``getME`` does.  Match play only."""
        if int(length) == 0:
            raise ValueError("win_lose_mwc needs a match (length > 0)")
        win, lose = self._win_lose(length, score_self, score_opp, cube, crawford, player)
        return float(win), float(lose)

    def eq2mwc(self, eq: Number, length: int, score_self: int, score_opp: int,
               cube: int, crawford: bool, *, player: int = 0) -> float:
        """Normalised equity (EMG) of the player on roll -> his MWC.

        Equals ``gnubg.eq2mwc(eq, gnubg.cubeinfo(cube, owner, mover, length,
        score, crawford))`` (cube owner plays no part).  Money (length 0):
        ``cube * eq`` (gnubg's money convention; note ``gnubg.eq2mwc`` itself
        returns a meaningless 1.0 for money cube-infos)."""
        if int(length) == 0:
            self._check(0, 0, 0, int(cube), False, player)
            return float(cube) * float(eq)
        win, lose = self._win_lose(length, score_self, score_opp, cube, crawford, player)
        r = _F(eq)
        return float(_HALF * (r * (win - lose) + (win + lose)))

    def mwc2eq(self, mwc: Number, length: int, score_self: int, score_opp: int,
               cube: int, crawford: bool, *, player: int = 0) -> float:
        """MWC of the player on roll -> normalised equity (EMG); the inverse
        of :meth:`eq2mwc`, equal to ``gnubg.mwc2eq``.  Money: ``mwc / cube``."""
        if int(length) == 0:
            self._check(0, 0, 0, int(cube), False, player)
            return float(mwc) / float(cube)
        win, lose = self._win_lose(length, score_self, score_opp, cube, crawford, player)
        m = _F(mwc)
        with np.errstate(divide="ignore", invalid="ignore"):
            return float((_TWO * m - (win + lose)) / (win - lose))

    def mwc_per_emg(self, length: int, score_self: int, score_opp: int, cube: int,
                    crawford: bool, *, player: int = 0) -> Optional[float]:
        """(MWC_win - MWC_lose) / 2: the MWC (as a fraction) that an error of
        1.0 EMG costs at this score and cube.  ``None`` for money."""
        if int(length) == 0:
            self._check(0, 0, 0, int(cube), False, player)
            return None
        win, lose = self._win_lose(length, score_self, score_opp, cube, crawford, player)
        return (float(win) - float(lose)) / 2.0


_default_lock = threading.Lock()
_default: Optional[MatchEquityTable] = None


def default_met() -> MatchEquityTable:
    """The bundled Kazaross-XG2 table (one shared instance)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = MatchEquityTable.load()
    return _default
