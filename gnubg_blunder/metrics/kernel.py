"""The figures kernel: every figure of every view is made here, in two steps.

1. :func:`sums` — from a mask of decisions of a :class:`Selection` and a
   grouping (one group, per match side, per phase, per player...) to the
   sums the figures need: counted decisions N (checker / cube), Σe, ΣL (MWC
   lost, match play only), Σ√N (the L₇ denominator), errors, blunders, and
   the same per interval unit (SPEC §7).
2. :func:`figures` — from those sums to the figures: PR, checker / cube PR
   (SPEC §3), MWC lost and its checker / cube parts, L₇ and Elo (SPEC §5),
   the 95 % intervals (SPEC §7), difficulty, excess, ratio and avoidable
   errors (SPEC §6).

The rules live here once: ``PR_SCALE``, the money rule (``model.is_money``:
a match of length 0 has no MWC, whatever its decisions carry), ℓ per
decision (:func:`mwc_loss_of`), L₇ (:func:`l7_of`), d in MWC
(:func:`difficulty_mwc_of`), the avoidable error (:func:`avoidable`), the
ratio's threshold (``RATIO_MIN_DIFFICULTY``).  Views do no
arithmetic on figures; metrics call these.

Pure numpy: no SQL, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..model import is_money
from ..units import micro
from ..arrays import Selection
from .counting import K_CHECKER, Thresholds
from .elo import SQRT7, elo
from .intervals import MIN_UNITS, ratio_interval, ratio_intervals, sum_intervals
from ..stash import StashKey, cached

PR_SCALE = 500  # SPEC §3: PR = 500 × Σe / N
GNUBG_SCALE = 1000  # gnubg's mEMG rates and its Snowie figure
SMALL_ROW = 10  # rows with fewer counted decisions are flagged (SPEC §14)
RATIO_MIN_DIFFICULTY = 0.005  # SPEC §6: no ratio Σℓ/Σd when Σd < 0.5 % MWC
AVOIDABLE_SHARE = 0.1  # SPEC §6: an avoidable error has d ≤ ℓ/10


# -- the rules ----------------------------------------------------------------

MONEY: StashKey[np.ndarray] = StashKey("money")
SIDE: StashKey[np.ndarray] = StashKey("side")
ERROR_MICRO: StashKey[np.ndarray] = StashKey("error micro")
ELL: StashKey[np.ndarray] = StashKey("ell")
D_MWC: StashKey[np.ndarray] = StashKey("d_mwc")
BASE_FLAGS: StashKey[np.ndarray] = StashKey("base flags")
FLAGS: StashKey[np.ndarray] = StashKey("flags")  # .at(thresholds)


def money_matches(sel: Selection) -> np.ndarray:
    """:func:`is_money` of each match of the selection (bool per match)."""
    return cached(sel, MONEY, lambda: np.array([bool(is_money(m.length)) for m in sel.matches], dtype=bool))


def zero_nan(x) -> np.ndarray:
    """``np.nan_to_num(x, nan=0.0)`` (unknown as 0; an infinity, which no
    analysis gives, to the largest float) in three passes instead of seven."""
    x = np.asarray(x)
    if x.dtype.kind != "f" or not x.ndim:
        return np.nan_to_num(x, nan=0.0)
    out = np.where(np.isnan(x), 0.0, x)
    if np.isinf(out).any():
        return np.nan_to_num(x, nan=0.0)
    return out


def side_mask(sel: Selection) -> np.ndarray:
    """``sel.decision_side_mask()`` (the decisions of the filter's sides),
    computed once per selection (a fresh copy each call)."""
    return cached(sel, SIDE, sel.decision_side_mask).copy()


def error_micro(sel: Selection) -> np.ndarray:
    """Each decision's e in integer micro-EMG (``units.micro``: unknown as
    0), once per selection (read-only); 4-byte integers when every error is
    under 2,000 EMG (always, but for a broken analysis), else 8-byte."""
    return cached(sel, ERROR_MICRO, lambda: _micro_of(sel.decisions.error))


def _micro_of(error) -> np.ndarray:
    """``units.micro(error)`` in int32 where its values fit (a block at a
    time: no 8-byte copy of the whole column), else as it is (int64)."""
    error = np.asarray(error, dtype=np.float64)
    hi, lo = (np.fmax.reduce(error), np.fmin.reduce(error)) if len(error) else (0.0, 0.0)
    if hi >= 2000 or lo <= -2000:  # an infinity too; NaN (all unknown) compares False: fits
        return micro(error)
    out = np.empty(len(error), dtype=np.int32)
    for start in range(0, len(error), _TERM_CHUNK):
        out[start:start + _TERM_CHUNK] = micro(error[start:start + _TERM_CHUNK])
    return out


def match_play(sel: Selection) -> np.ndarray:
    """Whether each decision is match play (``~np.isnan(mwc_loss_of(sel))``:
    not in a money session), from the kernel's flags (a fresh array)."""
    return (_base_flags(sel) & F_MATCH_PLAY) != 0


def distinct(keys) -> np.ndarray:
    """``np.unique(keys)`` (sorted distinct values): for integers a presence
    table when they are small and non-negative, else a sort (numpy's own,
    hashing, is slow over millions of keys)."""
    keys = np.asarray(keys)
    if not len(keys) or keys.dtype.kind not in "iu":
        return np.unique(keys)
    if keys.min() >= 0 and keys.max() < max(4 * len(keys), 1 << 16):
        return np.flatnonzero(np.bincount(keys)).astype(keys.dtype)
    ordered = np.sort(keys)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def rate(total, n, scale: float = PR_SCALE) -> Optional[float]:
    """scale × total / n (PR with the default scale); None without decisions."""
    return None if not n else scale * float(total) / float(n)


def l7_of(mwc_lost: float, root_n: float) -> Optional[float]:
    """SPEC §5: L₇ = √7 × ΣL / Σ√N (fractions of MWC; one match side:
    L × √(7/N)).  None without a match-play denominator."""
    if not root_n or root_n <= 0:
        return None
    return SQRT7 * float(mwc_lost) / float(root_n)


def mwc_loss_of(sel: Selection, idx=None) -> np.ndarray:
    """ℓ = e × (MWC per EMG) of each decision (of the decisions ``idx``
    when given), in fractions of MWC (SPEC §1); NaN in money sessions.  A
    match-play decision without a conversion factor adds 0 (its MWC loss is
    unknown, the match's MWC is not).  Computed once per selection
    (kept in its stash, ``stash.py``; the whole array is read-only)."""
    if not len(sel.decisions):
        return np.zeros(0)
    full = cached(sel, ELL, lambda: _mwc_loss(sel))
    return full if idx is None else full[idx]


def _ell(error, factor, money) -> np.ndarray:
    """The rule of ℓ (SPEC §1), elementwise: e × factor, unknowns as 0, NaN in money."""
    return np.where(money, np.nan, zero_nan(error) * zero_nan(factor))


def _d_mwc(difficulty, factor, money) -> np.ndarray:
    """The rule of d in MWC (SPEC §6), elementwise: d × factor (an unknown factor as 0), NaN in money."""
    return np.where(money, np.nan, difficulty * zero_nan(factor))


def _mwc_loss(sel: Selection) -> np.ndarray:
    dec = sel.decisions
    return _ell(dec.error, dec.mwc_per_emg, money_matches(sel)[dec.match])


def mwc_loss_at(sel: Selection, idx) -> np.ndarray:
    """``mwc_loss_of(sel)[idx]`` computed for those decisions alone (the
    same rule), without making or keeping the whole selection's array: for
    the few rows a list shows, or the last N of a rolling figure."""
    idx = np.asarray(idx, dtype=np.int64)
    dec = sel.decisions
    return _ell(dec.error[idx], dec.mwc_per_emg[idx], money_matches(sel)[dec.match[idx]])


def difficulty_mwc_at(sel: Selection, idx) -> np.ndarray:
    """``difficulty_mwc_of(sel)[idx]`` for those decisions alone (see
    :func:`mwc_loss_at`)."""
    idx = np.asarray(idx, dtype=np.int64)
    dec = sel.decisions
    return _d_mwc(dec.difficulty[idx], dec.mwc_per_emg[idx], money_matches(sel)[dec.match[idx]])


def difficulty_mwc_of(sel: Selection, idx=None) -> np.ndarray:
    """d in fractions of MWC (SPEC §6): d × (MWC per EMG), like ℓ (of the
    decisions ``idx`` when given); NaN in money sessions and where d is
    unknown.  A match-play decision without a conversion factor adds 0, as
    for ℓ.  Computed once per selection (the whole array is read-only)."""
    if not len(sel.decisions):
        return np.zeros(0)
    full = cached(sel, D_MWC, lambda: _difficulty_mwc(sel))
    return full if idx is None else full[idx]


def _difficulty_mwc(sel: Selection) -> np.ndarray:
    dec = sel.decisions
    return _d_mwc(dec.difficulty, dec.mwc_per_emg, money_matches(sel)[dec.match])


def avoidable(error: np.ndarray, difficulty: np.ndarray, thresholds: Thresholds, err=None) -> np.ndarray:
    """SPEC §6: an avoidable error reaches the error threshold (e rounded
    to the millipoint, as every threshold) and has d ≤ ℓ/10 — in EMG, both
    sides of ℓ and d being the same factor times e and d, d ≤ e/10, so that
    money decisions have it too.  A decision without d is not one."""
    if err is None:  # errors under thresholds.classify(error), when the caller does not have them
        err, _ = thresholds.classify(error)
    with np.errstate(invalid="ignore"):
        return err & ~np.isnan(difficulty) & (difficulty <= AVOIDABLE_SHARE * zero_nan(error))


def root_n_of_sides(sel: Selection, sides: np.ndarray) -> np.ndarray:
    """√N of each (match, side) in ``sides`` (bool, shape (matches, 2)), 0
    for money and unselected sides: the L₇ weights of SPEC §5."""
    if not sel.n_matches:
        return np.zeros((0, 2))
    lengths = np.array([m.length for m in sel.matches], dtype=np.float64)
    w = np.where(money_matches(sel), 0.0, np.sqrt(np.maximum(lengths, 0.0)))
    return np.asarray(sides, dtype=bool) * w[:, None]


# -- step 1: sums ---------------------------------------------------------------

@dataclass
class Sums:
    """Sums per group (arrays of length ``n_groups``), and per interval unit
    (``unit_*`` arrays, one entry per (group, unit) that holds decisions;
    ``unit_group`` says whose)."""

    n: np.ndarray
    n_checker: np.ndarray
    n_match_play: np.ndarray
    e: np.ndarray
    e_checker: np.ndarray
    ell: np.ndarray
    ell_checker: np.ndarray
    errors: np.ndarray
    blunders: np.ndarray
    root_n: np.ndarray  # Σ√N of the group's match-play sides (L₇ denominator)
    unit_kind: str  # "match" or "game"
    unit_span: np.ndarray  # games of the group's sides (game units: every game is a unit of the L₇ interval)
    unit_group: np.ndarray
    unit_n: np.ndarray
    unit_e: np.ndarray
    unit_ell: np.ndarray
    unit_root_n: np.ndarray
    # SPEC §6: Σd (EMG, decisions with d), Σd in MWC (match play), how many
    # decisions have d (money's among them) and how many of those stand on a
    # truncated list, avoidable errors (money's among them)
    d: Optional[np.ndarray] = None
    d_mwc: Optional[np.ndarray] = None
    n_d: Optional[np.ndarray] = None
    n_truncated: Optional[np.ndarray] = None
    avoidable: Optional[np.ndarray] = None
    n_d_money: Optional[np.ndarray] = None
    avoidable_money: Optional[np.ndarray] = None
    unit_start: Optional[np.ndarray] = None  # group k's units are unit_start[k]:unit_start[k + 1] (made on demand)

    @property
    def n_groups(self) -> int:
        return len(self.n)

    def unit_starts(self) -> np.ndarray:
        """Where each group's units start (``unit_group`` is in group order),
        and their end: ``n_groups + 1`` indices."""
        if self.unit_start is None:
            self.unit_start = np.searchsorted(self.unit_group, np.arange(self.n_groups + 1), side="left")
        return self.unit_start

    def units_of(self, k: int) -> np.ndarray:
        """The indices of group ``k``'s units."""
        start = self.unit_starts()
        return np.arange(start[k], start[k + 1], dtype=np.int64)


def _bincount(keys, n, weights=None):
    if weights is None:
        return np.bincount(keys, minlength=n).astype(np.int64)
    return np.bincount(keys, weights=weights, minlength=n).astype(np.float64)


# the bits of a decision's flags (:func:`_flags`): what :func:`sums` counts
F_CHECKER, F_MATCH_PLAY, F_HAS_D, F_TRUNCATED, F_ERROR, F_BLUNDER, F_AVOIDABLE = (1 << b for b in range(7))
_N_FLAGS = 128


def _base_flags(sel: Selection) -> np.ndarray:
    """The flags :func:`sums` counts, for every decision of the selection
    (once per selection): checker, match play, d known, d on a truncated
    list.  The terms it adds (e, ℓ, d, d in MWC) are not kept for the whole
    selection (4 × 8 bytes a decision): :func:`_term` works each out for the
    decisions summed from the stored columns, by the same rules."""
    def compute():
        dec = sel.decisions
        ell_raw = _mwc_loss(sel)  # not memoized: the NaN-marked ℓ of mwc_loss_of is not kept for a view without it
        match_play = ~np.isnan(ell_raw)
        del ell_raw
        has_d = ~np.isnan(dec.difficulty)
        flags = ((dec.kind == K_CHECKER) * F_CHECKER + match_play * F_MATCH_PLAY + has_d * F_HAS_D
                 + (has_d & (dec.difficulty_truncated == 1)) * F_TRUNCATED).astype(np.uint8)
        flags.flags.writeable = False
        return flags

    return cached(sel, BASE_FLAGS, compute)


# the decisions a term is worked out for at a time (:func:`_term`): its temporaries stay small
_TERM_CHUNK = 1 << 16


def _term(sel: Selection, term: str, idx: np.ndarray, money: np.ndarray) -> np.ndarray:
    """The term ``term`` of :func:`sums` for the decisions ``idx`` (``money``:
    whether each is in a money session): e (unknown as 0), ℓ (money and
    unknown as 0), d (EMG, unknown as 0) or d in MWC, each the rule of the
    whole selection's term (``zero_nan`` of :func:`_ell`, of
    :func:`_d_mwc`) applied to those decisions alone, a block at a time:
    elementwise, so the same values."""
    dec = sel.decisions
    out = np.empty(len(idx), dtype=np.float64)
    for start in range(0, len(idx), _TERM_CHUNK):
        rows = idx[start:start + _TERM_CHUNK]
        part = slice(start, start + len(rows))
        if term == "e":
            out[part] = zero_nan(dec.error[rows])
        elif term == "d":
            out[part] = zero_nan(dec.difficulty[rows])
        elif term == "ell":
            out[part] = zero_nan(_ell(dec.error[rows], dec.mwc_per_emg[rows], money[part]))
        else:
            out[part] = zero_nan(_d_mwc(dec.difficulty[rows], dec.mwc_per_emg[rows], money[part]))
    return out


def _flags(sel: Selection, thresholds: Optional[Thresholds]) -> np.ndarray:
    """Each decision's flags (``F_*`` bits), with errors, blunders (SPEC §3)
    and avoidable errors (SPEC §6) under ``thresholds`` (once per selection
    and thresholds; none without thresholds)."""
    base = _base_flags(sel)
    if thresholds is None:
        return base

    def compute():
        dec = sel.decisions
        err, blunder = thresholds.classify(dec.error)
        avoid = avoidable(dec.error, dec.difficulty, thresholds, err)
        return base | (err * F_ERROR + blunder * F_BLUNDER + avoid * F_AVOIDABLE).astype(np.uint8)

    return cached(sel, FLAGS.at(thresholds), compute)


def classified(sel: Selection, thresholds: Thresholds) -> tuple:
    """(errors, blunders) of every decision of the selection:
    ``thresholds.classify`` of its errors, computed once per selection and
    thresholds (fresh arrays each call)."""
    flags = _flags(sel, thresholds)
    return (flags & F_ERROR) != 0, (flags & F_BLUNDER) != 0


def _flag_counts(counts: np.ndarray, bit: int, without: int = 0) -> np.ndarray:
    """From counts per (group, flags) (shape (groups, 128)): the count of
    decisions with ``bit`` (and none of the bits ``without``) per group."""
    return counts[:, [v for v in range(_N_FLAGS) if v & bit and not v & without]].sum(axis=1)


# keys spaces up to this size are numbered with a table rather than sorted
_DENSE_KEYS = 1 << 23


def _codes(keys: np.ndarray, space: int):
    """``np.unique(keys, return_inverse=True)`` of non-negative integer
    keys below ``space``: a presence table instead of a sort when the space
    is small enough (the same two arrays)."""
    if space > max(_DENSE_KEYS, 4 * len(keys)):
        uniq, inverse = np.unique(keys, return_inverse=True)
        return uniq, inverse.reshape(-1)
    present = np.zeros(space, dtype=bool)
    present[keys] = True
    uniq = np.flatnonzero(present)
    lookup = np.zeros(space, dtype=np.int64 if len(uniq) >= 2**31 else np.int32)
    lookup[uniq] = np.arange(len(uniq))
    return uniq.astype(np.int64), lookup[keys].astype(np.int64)


def _one_match_each(g: np.ndarray, match: np.ndarray, n_groups: int) -> bool:
    """Whether the decisions of each group all belong to one match."""
    if not len(g):
        return True
    if n_groups == 1 and match[0] != match[-1]:
        return False
    first = np.full(n_groups, -1, dtype=np.int64)
    first[g] = match
    return bool((first[g] == match).all())


def sums(
    sel: Selection,
    mask: np.ndarray,
    groups: Optional[np.ndarray] = None,
    n_groups: int = 1,
    *,
    side_groups: Optional[np.ndarray] = None,
    root_n: Optional[float] = None,
    unit: str = "match",
    thresholds: Optional[Thresholds] = None,
) -> Sums:
    """Sums over the decisions of ``mask`` (usually the counted decisions of
    the filter's side(s), see :func:`counted_mask`), grouped by ``groups``
    (an int per decision, -1 = left out; None = one group).

    The L₇ denominator Σ√N (SPEC §5) of a group is that of the match sides
    it is made of: ``side_groups`` (int, shape (matches, 2): the group of
    each side, -1 none) — every such side weighs √N whether or not it holds
    a decision of the mask, so that a checker or cube part of L₇ shares the
    whole's denominator.  Groups of decisions rather than sides (a phase,
    a theme) give instead ``root_n``, the selection's Σ√N: a row's L₇ is
    then its contribution to the whole, and the rows add up.  Neither: no
    L₇.
    ``unit``: the interval unit (SPEC §7): "match" (both sides of a match are
    one unit) or "game" (one match side: its games)."""
    dec = sel.decisions
    if groups is None:  # one group: no key per decision of the whole selection
        idx = np.nonzero(np.asarray(mask, dtype=bool))[0]
        g = np.zeros(len(idx), dtype=np.int64)
    else:
        idx = np.nonzero(np.asarray(mask, dtype=bool) & (groups >= 0))[0]
        g = groups[idx].astype(np.int64, copy=False)
    flags = _flags(sel, thresholds)[idx]
    match = dec.match[idx].astype(np.int64, copy=False)
    money = money_matches(sel)[match]

    n_units = max(sel.n_matches, 1)
    if unit == "game":
        n_games = max((m.n_games for m in sel.matches), default=0) or 1
        game = dec.game[idx].astype(np.int64)
        if _one_match_each(g, match, n_groups) and (not len(game) or game.max() < n_games):
            # each group within one match (a match side): its units are its games, in the same
            # order as the (group, match, game) keys below would give them
            units, unit_of = _codes(g * n_games + game, n_groups * n_games)
            unit_group = units // n_games
        else:
            n_units *= n_games
            units, unit_of = _codes(g * n_units + match * n_games + game, n_groups * n_units)
            unit_group = units // n_units
        del game
    elif _one_match_each(g, match, n_groups):
        # each group within one match (a match, a match side): one unit a group, the same keys
        groups_held, unit_of = _codes(g, n_groups)
        its_match = np.zeros(n_groups, dtype=np.int64)
        its_match[g] = match
        units = groups_held * n_units + its_match[groups_held]
        unit_group = groups_held
    else:
        units, unit_of = _codes(g * n_units + match, n_groups * n_units)
        unit_group = units // n_units
    nu = len(units)

    # Σ√N: per group from the sides it is made of, or one shared figure
    root = np.zeros(n_groups)
    unit_root = np.zeros(nu)
    span = np.zeros(n_groups, dtype=np.int64)
    if side_groups is not None and sel.n_matches:
        sg = np.asarray(side_groups, dtype=np.int64).reshape(-1)
        rn = root_n_of_sides(sel, np.ones((sel.n_matches, 2), dtype=bool)).reshape(-1)
        has = sg >= 0
        root = _bincount(sg[has], n_groups, rn[has])
        games = np.repeat(np.array([m.n_games for m in sel.matches], dtype=np.float64), 2)
        span = _bincount(sg[has], n_groups, games[has]).astype(np.int64)
        if unit == "match" and nu:
            side_match = np.repeat(np.arange(sel.n_matches, dtype=np.int64), 2)
            keys = sg[has] * n_units + side_match[has]
            pos = np.minimum(np.searchsorted(units, keys), nu - 1)
            hit = units[pos] == keys
            unit_root = _bincount(pos[hit], nu, rn[has][hit])
    elif root_n is not None:
        root = np.full(n_groups, float(root_n))

    counts = _bincount(g * _N_FLAGS + flags, n_groups * _N_FLAGS).reshape(n_groups, _N_FLAGS)
    by_kind = g * 2 + (flags & F_CHECKER)  # checker decisions at odd keys: their sums, in decision order
    del flags, match

    def summed(term: str) -> tuple:
        """The term's sums per group, per group's checker plays and per
        unit; the term worked out for the decisions summed here alone, and
        let go before the next term's (one such array at a time)."""
        x = _term(sel, term, idx, money)
        return (_bincount(g, n_groups, x), _bincount(by_kind, 2 * n_groups, x)[1::2].copy(),
                _bincount(unit_of, nu, x))

    e, e_checker, unit_e = summed("e")
    ell, ell_checker, unit_ell = summed("ell")
    d = _bincount(g, n_groups, _term(sel, "d", idx, money))
    d_mwc = _bincount(g, n_groups, _term(sel, "d_mwc", idx, money))
    del money
    return Sums(
        n=counts.sum(axis=1),
        n_checker=_flag_counts(counts, F_CHECKER),
        n_match_play=_flag_counts(counts, F_MATCH_PLAY),
        e=e,
        e_checker=e_checker,
        ell=ell,
        ell_checker=ell_checker,
        errors=_flag_counts(counts, F_ERROR),
        blunders=_flag_counts(counts, F_BLUNDER),
        root_n=root,
        unit_kind=unit,
        unit_span=span,
        unit_group=unit_group if nu else np.zeros(0, dtype=np.int64),
        unit_n=_bincount(unit_of, nu),
        unit_e=unit_e,
        unit_ell=unit_ell,
        unit_root_n=unit_root,
        d=d,
        d_mwc=d_mwc,
        n_d=_flag_counts(counts, F_HAS_D),
        n_truncated=_flag_counts(counts, F_TRUNCATED),
        avoidable=_flag_counts(counts, F_AVOIDABLE),
        n_d_money=_flag_counts(counts, F_HAS_D, without=F_MATCH_PLAY),
        avoidable_money=_flag_counts(counts, F_AVOIDABLE, without=F_MATCH_PLAY),
    )


# -- step 2: figures --------------------------------------------------------------

def interval_note(units_e, units_n) -> Optional[str]:
    """Why a row has no interval (None when it has one): SPEC §7 gives none
    under 3 units or without spread."""
    n = np.asarray(units_n, dtype=np.float64)
    if len(n) < MIN_UNITS:
        return f"no interval: {len(n)} match{'es' if len(n) != 1 else ''}"
    if ratio_interval(units_e, units_n) is None:
        return "no interval: no spread"
    return None


def _pp(x: Optional[float]) -> Optional[float]:
    return None if x is None else 100 * float(x)


def _pp_pair(ci) -> Optional[list]:
    return None if ci is None else [100 * ci[0], 100 * ci[1]]


def figures(s: Sums, k: int = 0) -> dict:
    """The figures of group ``k`` (None = never measured):

    ``decisions``, ``checker_decisions``, ``cube_decisions``, ``error_emg``,
    ``checker_error_emg``, ``cube_error_emg``, ``errors``, ``blunders``,
    ``pr``, ``pr_ci``, ``ci_note``, ``checker_pr``, ``cube_pr`` (SPEC §3, §7);
    ``mwc_loss``, ``checker_mwc_loss``, ``cube_mwc_loss`` (% points; None
    when the group holds no counted match-play decision), ``l7``,
    ``checker_l7``, ``cube_l7``, ``l7_ci`` (% points; parts that add up),
    ``elo``, ``elo_bound`` (SPEC §5); ``small`` (under 10 decisions) and
    ``units`` (the interval units holding decisions)."""
    return figures_of(s, [k])[0]


def figures_of(s: Sums, ks=None) -> list:
    """:func:`figures` of the groups ``ks`` (default: every group, in group
    order), the intervals of all of them computed at once
    (``intervals.ratio_intervals``: each one what its group alone gives)."""
    ks = np.arange(s.n_groups, dtype=np.int64) if ks is None else np.asarray(ks, dtype=np.int64)
    start = s.unit_starts()
    first, count = start[ks], start[ks + 1] - start[ks]
    pr_cis = ratio_intervals(s.unit_e, s.unit_n, first, count, PR_SCALE)
    n, n_chk = s.n[ks].tolist(), s.n_checker[ks].tolist()
    e, e_chk = s.e[ks].tolist(), s.e_checker[ks].tolist()
    ell, ell_chk = s.ell[ks].tolist(), s.ell_checker[ks].tolist()
    root = s.root_n[ks].tolist()
    measured = (s.n_match_play[ks] > 0).tolist()
    errors, blunders = s.errors[ks].tolist(), s.blunders[ks].tolist()
    units = count.tolist()
    l7 = [l7_of(L, r) if m else None for L, r, m in zip(ell, root, measured)]
    l7_cis = [None] * len(ks)
    has = np.array([x is not None for x in l7], dtype=bool)
    if has.any():
        rows = np.nonzero(has)[0]
        if s.unit_kind == "game":
            # one match side: √N is fixed, the interval is that of the sum
            # over every game of the match (games without a decision add 0)
            widths = np.maximum(s.unit_span[ks[rows]], count[rows])
            cis = sum_intervals(s.unit_ell, first[rows], count[rows], widths, SQRT7 / s.root_n[ks[rows]])
        else:
            mp = s.unit_root_n > 0  # money matches have no MWC
            before = np.concatenate(([0], np.cumsum(mp)))
            kept = np.nonzero(mp)[0]
            lo, hi = before[first[rows]], before[(first + count)[rows]]
            cis = ratio_intervals(s.unit_ell[kept], s.unit_root_n[kept], lo, hi - lo, SQRT7)
        for i, ci in zip(rows.tolist(), cis):
            l7_cis[i] = _pp_pair(ci)
    out = []
    for j, k in enumerate(ks.tolist()):
        nj, cj, ej, ecj = n[j], n_chk[j], e[j], e_chk[j]
        pr_ci = pr_cis[j]
        L, L_chk, m = ell[j], ell_chk[j], measured[j]
        l7j = l7[j]
        l7_chk = l7_of(L_chk, root[j]) if m else None
        elo_d, bound = elo(l7j)
        if pr_ci is not None or not nj:
            note = None if pr_ci is not None else "no decisions"
        elif units[j] < MIN_UNITS:
            note = f"no interval: {units[j]} match{'es' if units[j] != 1 else ''}"
        else:
            note = "no interval: no spread"
        out.append({
            "decisions": nj,
            "checker_decisions": cj,
            "cube_decisions": nj - cj,
            "error_emg": ej,
            "checker_error_emg": ecj,
            "cube_error_emg": ej - ecj,
            "errors": errors[j],
            "blunders": blunders[j],
            "pr": rate(ej, nj),
            "pr_ci": None if pr_ci is None else [pr_ci[0], pr_ci[1]],
            "ci_note": note,
            "checker_pr": rate(ecj, cj),
            "cube_pr": rate(ej - ecj, nj - cj),
            "mwc_loss": _pp(L) if m else None,
            "checker_mwc_loss": _pp(L_chk) if m else None,
            "cube_mwc_loss": _pp(L - L_chk) if m else None,
            "l7": _pp(l7j),
            "checker_l7": _pp(l7_chk),
            "cube_l7": None if l7j is None else _pp(l7j - l7_chk),
            "l7_ci": l7_cis[j],
            "elo": None if elo_d is None or math.isnan(elo_d) else float(elo_d),
            "elo_bound": bool(bound),
            **difficulty_figures(s, k),
            "small": nj < SMALL_ROW,
            "units": units[j],
        })
    return out


def difficulty_figures(s: Sums, k: int = 0) -> dict:
    """SPEC §6 figures of group ``k``: ``difficulty`` (Σd, % points of MWC;
    None for money or without d), ``difficulty_emg`` (Σd in EMG over every
    decision with d, money included; None without), ``excess`` (Σ(ℓ − d),
    % points: ΣL − Σd over the counted decisions, unknown d as 0),
    ``excess_emg`` (Σ(e − d) in EMG the same way, money included: a money
    session's excess, SPEC §8; None without d), ``ratio`` (ΣL / Σd, None
    when Σd < 0.5 % MWC), ``avoidable_errors`` (match play: errors with
    d ≤ ℓ/10, judged in MWC; None without a match-play decision with d),
    ``avoidable_errors_money`` (money: errors with d ≤ e/10, judged in EMG,
    kept apart since money has no MWC; None without a money decision with
    d) — counts when thresholds were given, 0 otherwise — and
    ``difficulty_truncated`` (the decisions whose d is a lower bound, its
    list truncated)."""
    if s.d is None:
        return {}
    n_d = int(s.n_d[k])
    n_d_money = int(s.n_d_money[k])
    measured = s.n_match_play[k] > 0
    L, D = float(s.ell[k]), float(s.d_mwc[k])
    mwc = measured and n_d > 0
    avoidable_money = int(s.avoidable_money[k])
    return {
        "difficulty": _pp(D) if mwc else None,
        "difficulty_emg": float(s.d[k]) if n_d else None,
        "excess": _pp(L - D) if mwc else None,
        "excess_emg": float(s.e[k]) - float(s.d[k]) if n_d else None,
        "ratio": L / D if mwc and D >= RATIO_MIN_DIFFICULTY else None,
        "avoidable_errors": int(s.avoidable[k]) - avoidable_money if n_d > n_d_money else None,
        "avoidable_errors_money": avoidable_money if n_d_money else None,
        "difficulty_truncated": int(s.n_truncated[k]),
    }


def all_figures(s: Sums) -> list:
    """:func:`figures` of every group, in group order."""
    return figures_of(s)
