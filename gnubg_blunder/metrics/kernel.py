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
from .arrays import Selection
from .counting import K_CHECKER, Thresholds
from .elo import SQRT7, elo
from .intervals import MIN_UNITS, ratio_interval, sum_interval

PR_SCALE = 500  # SPEC §3: PR = 500 × Σe / N
GNUBG_SCALE = 1000  # gnubg's mEMG rates and its Snowie figure
SMALL_ROW = 10  # rows with fewer counted decisions are flagged (SPEC §14)
RATIO_MIN_DIFFICULTY = 0.005  # SPEC §6: no ratio Σℓ/Σd when Σd < 0.5 % MWC
AVOIDABLE_SHARE = 0.1  # SPEC §6: an avoidable error has d ≤ ℓ/10


# -- the rules ----------------------------------------------------------------

def money_matches(sel: Selection) -> np.ndarray:
    """:func:`is_money` of each match of the selection (bool per match)."""
    return np.array([bool(is_money(m.length)) for m in sel.matches], dtype=bool)


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
    unknown, the match's MWC is not)."""
    dec = sel.decisions
    rows = slice(None) if idx is None else idx
    if not len(dec):
        return np.zeros(0)
    money = money_matches(sel)[dec.match[rows]]
    ell = np.nan_to_num(dec.error[rows], nan=0.0) * np.nan_to_num(dec.mwc_per_emg[rows], nan=0.0)
    return np.where(money, np.nan, ell)


def difficulty_mwc_of(sel: Selection, idx=None) -> np.ndarray:
    """d in fractions of MWC (SPEC §6): d × (MWC per EMG), like ℓ (of the
    decisions ``idx`` when given); NaN in money sessions and where d is
    unknown.  A match-play decision without a conversion factor adds 0, as
    for ℓ."""
    dec = sel.decisions
    rows = slice(None) if idx is None else idx
    if not len(dec):
        return np.zeros(0)
    money = money_matches(sel)[dec.match[rows]]
    return np.where(money, np.nan, dec.difficulty[rows] * np.nan_to_num(dec.mwc_per_emg[rows], nan=0.0))


def avoidable(error: np.ndarray, difficulty: np.ndarray, thresholds: Thresholds) -> np.ndarray:
    """SPEC §6: an avoidable error reaches the error threshold (e rounded
    to the millipoint, as every threshold) and has d ≤ ℓ/10 — in EMG, both
    sides of ℓ and d being the same factor times e and d, d ≤ e/10, so that
    money decisions have it too.  A decision without d is not one."""
    err, _ = thresholds.classify(error)
    with np.errstate(invalid="ignore"):
        return err & ~np.isnan(difficulty) & (difficulty <= AVOIDABLE_SHARE * np.nan_to_num(error, nan=0.0))


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
    # decisions have d and how many of those stand on a truncated list,
    # avoidable errors
    d: Optional[np.ndarray] = None
    d_mwc: Optional[np.ndarray] = None
    n_d: Optional[np.ndarray] = None
    n_truncated: Optional[np.ndarray] = None
    avoidable: Optional[np.ndarray] = None

    @property
    def n_groups(self) -> int:
        return len(self.n)

    def units_of(self, k: int) -> np.ndarray:
        return np.nonzero(self.unit_group == k)[0]


def _bincount(keys, n, weights=None):
    if weights is None:
        return np.bincount(keys, minlength=n).astype(np.int64)
    return np.bincount(keys, weights=weights, minlength=n).astype(np.float64)


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
    if groups is None:
        groups = np.zeros(len(dec), dtype=np.int64)
    keep = np.asarray(mask, dtype=bool) & (groups >= 0)
    idx = np.nonzero(keep)[0]
    g = groups[idx].astype(np.int64)
    e = np.nan_to_num(dec.error[idx], nan=0.0)
    ell_raw = mwc_loss_of(sel, idx) if len(idx) else np.zeros(0)  # only the decisions summed
    mp = ~np.isnan(ell_raw)
    ell = np.nan_to_num(ell_raw, nan=0.0)
    chk = dec.kind[idx] == K_CHECKER
    if thresholds is not None:
        err, blunder = thresholds.classify(dec.error[idx])
    else:
        err = blunder = np.zeros(len(idx), dtype=bool)
    match = dec.match[idx].astype(np.int64)
    d_raw = dec.difficulty[idx]
    has_d = ~np.isnan(d_raw)
    d_mwc = np.nan_to_num(difficulty_mwc_of(sel, idx) if len(idx) else np.zeros(0), nan=0.0)
    trunc = has_d & (dec.difficulty_truncated[idx] == 1)
    avoid = avoidable(dec.error[idx], d_raw, thresholds) if thresholds is not None else np.zeros(len(idx), bool)

    if unit == "game":
        n_games = max((m.n_games for m in sel.matches), default=0) or 1
        unit_key = match * n_games + dec.game[idx].astype(np.int64)
        n_units = max(sel.n_matches, 1) * n_games
    else:
        unit_key = match
        n_units = max(sel.n_matches, 1)
    units, unit_of = np.unique(g * n_units + unit_key, return_inverse=True)
    unit_of = unit_of.reshape(-1)
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

    return Sums(
        n=_bincount(g, n_groups),
        n_checker=_bincount(g[chk], n_groups),
        n_match_play=_bincount(g[mp], n_groups),
        e=_bincount(g, n_groups, e),
        e_checker=_bincount(g[chk], n_groups, e[chk]),
        ell=_bincount(g, n_groups, ell),
        ell_checker=_bincount(g[chk], n_groups, ell[chk]),
        errors=_bincount(g[err], n_groups),
        blunders=_bincount(g[blunder], n_groups),
        root_n=root,
        unit_kind=unit,
        unit_span=span,
        unit_group=units // n_units if nu else np.zeros(0, dtype=np.int64),
        unit_n=_bincount(unit_of, nu),
        unit_e=_bincount(unit_of, nu, e),
        unit_ell=_bincount(unit_of, nu, ell),
        unit_root_n=unit_root,
        d=_bincount(g, n_groups, np.nan_to_num(d_raw, nan=0.0)),
        d_mwc=_bincount(g, n_groups, d_mwc),
        n_d=_bincount(g[has_d], n_groups),
        n_truncated=_bincount(g[trunc], n_groups),
        avoidable=_bincount(g[avoid], n_groups),
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
    n, n_chk = int(s.n[k]), int(s.n_checker[k])
    e, e_chk = float(s.e[k]), float(s.e_checker[k])
    mine = s.units_of(k)
    ue, un = s.unit_e[mine], s.unit_n[mine]
    pr_ci = ratio_interval(ue, un, PR_SCALE)
    measured = s.n_match_play[k] > 0
    L, L_chk = float(s.ell[k]), float(s.ell_checker[k])
    l7 = l7_of(L, s.root_n[k]) if measured else None
    l7_chk = l7_of(L_chk, s.root_n[k]) if measured else None
    l7_ci = None
    if l7 is not None:
        if s.unit_kind == "game":
            # one match side: √N is fixed, the interval is that of the sum
            # over every game of the match (games without a decision add 0)
            values = np.zeros(max(int(s.unit_span[k]), len(mine)))
            values[:len(mine)] = s.unit_ell[mine]
            ci = sum_interval(values, SQRT7 / float(s.root_n[k]))
        else:
            mp_units = mine[s.unit_root_n[mine] > 0]  # money matches have no MWC
            ci = ratio_interval(s.unit_ell[mp_units], s.unit_root_n[mp_units], SQRT7)
        l7_ci = _pp_pair(ci)
    elo_d, bound = elo(l7)
    return {
        "decisions": n,
        "checker_decisions": n_chk,
        "cube_decisions": n - n_chk,
        "error_emg": e,
        "checker_error_emg": e_chk,
        "cube_error_emg": e - e_chk,
        "errors": int(s.errors[k]),
        "blunders": int(s.blunders[k]),
        "pr": rate(e, n),
        "pr_ci": None if pr_ci is None else [pr_ci[0], pr_ci[1]],
        "ci_note": None if pr_ci is not None else (interval_note(ue, un) if n else "no decisions"),
        "checker_pr": rate(e_chk, n_chk),
        "cube_pr": rate(e - e_chk, n - n_chk),
        "mwc_loss": _pp(L) if measured else None,
        "checker_mwc_loss": _pp(L_chk) if measured else None,
        "cube_mwc_loss": _pp(L - L_chk) if measured else None,
        "l7": _pp(l7),
        "checker_l7": _pp(l7_chk),
        "cube_l7": None if l7 is None else _pp(l7 - l7_chk),
        "l7_ci": l7_ci,
        "elo": None if elo_d is None or math.isnan(elo_d) else float(elo_d),
        "elo_bound": bool(bound),
        **difficulty_figures(s, k),
        "small": n < SMALL_ROW,
        "units": int(len(mine)),
    }


def difficulty_figures(s: Sums, k: int = 0) -> dict:
    """SPEC §6 figures of group ``k``: ``difficulty`` (Σd, % points of MWC;
    None for money or without d), ``difficulty_emg`` (Σd in EMG over every
    decision with d, money included; None without), ``excess`` (Σ(ℓ − d),
    % points: ΣL − Σd over the counted decisions, unknown d as 0),
    ``ratio`` (ΣL / Σd, None when Σd < 0.5 % MWC), ``avoidable_errors``
    (count, when thresholds were given) and ``difficulty_truncated`` (the
    decisions whose d is a lower bound, its list truncated)."""
    if s.d is None:
        return {}
    n_d = int(s.n_d[k])
    measured = s.n_match_play[k] > 0
    L, D = float(s.ell[k]), float(s.d_mwc[k])
    mwc = measured and n_d > 0
    return {
        "difficulty": _pp(D) if mwc else None,
        "difficulty_emg": float(s.d[k]) if n_d else None,
        "excess": _pp(L - D) if mwc else None,
        "ratio": L / D if mwc and D >= RATIO_MIN_DIFFICULTY else None,
        "avoidable_errors": int(s.avoidable[k]),
        "difficulty_truncated": int(s.n_truncated[k]),
    }


def all_figures(s: Sums) -> list:
    """:func:`figures` of every group, in group order."""
    return [figures(s, k) for k in range(s.n_groups)]
