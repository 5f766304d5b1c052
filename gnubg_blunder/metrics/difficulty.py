"""Difficulty d of a decision (SPEC §6): how much a player choosing among the
analysis' options "softly at random" would give up.

The rule lives here once:

- options: every candidate of the stored checker list, with
  Δᵢ = max(0, eq(first) − eqᵢ) on equities (the analysis' first candidate is
  the best, SPEC §1, so a lower-depth tail scoring above it counts Δ = 0);
  for the cube owner (no double, double) ND and D = min(DT, DP), Δ against
  B = max(ND, D); for the responder (take, pass) take and pass, Δ against
  R = min(DT, DP) (DT − R and DP − R): the figures e is made of, EMG in the
  cube before the double;
- pᵢ = exp(−Δᵢ/τ) / Σⱼ exp(−Δⱼ/τ), τ = 0.025 EMG;
- d = Σᵢ pᵢ Δᵢ (EMG); its MWC form is d × mwc_per_emg, like ℓ (the kernel
  makes it: :func:`gnubg_blunder.metrics.kernel.difficulty_mwc_of`).

Only counted decisions (SPEC §2, :func:`counting.counted`) with e known
carry d: a forced play has none.  A checker list shorter than the legal
plays (XG often stores 5) gives a lower bound: ``truncated``.

numpy over all the decisions at once (:func:`difficulty_columns`):
computed when a match is stored and by schema step 7 for databases stored
before; :func:`soft_difficulty` is the rule for one list.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from ..arrays import DecisionArrays
from .counting import K_CHECKER, K_DOUBLE, K_NO_DOUBLE, K_PASS, K_TAKE, counted

TAU = 0.025  # EMG (SPEC §6)


def soft_difficulty(deltas: Sequence[float], tau: float = TAU) -> float:
    """d = Σ pᵢΔᵢ with pᵢ ∝ exp(−Δᵢ/τ) (Δᵢ ≥ 0, EMG)."""
    if not len(deltas):
        raise ValueError("no options")
    low = min(deltas)  # the weights relative to the best option's (the same ratios, no underflow)
    num = den = 0.0
    for x in deltas:  # plain floats: a handful of options, 1.6 million decisions
        w = math.exp(-(x - low) / tau)
        num += w * x
        den += w
    return num / den


def checker_deltas(equities: Sequence[float]) -> list:
    """Δᵢ = max(0, eq(first) − eqᵢ) of each candidate (SPEC §6)."""
    first = equities[0]
    return [max(0.0, first - eq) for eq in equities]


def cube_deltas(kind: str, nd: float, dt: float, dp: Optional[float]) -> list:
    """The two options of a cube decision, Δ in EMG (pre-double cube).
    Owner (``nodouble``, ``double``): ND and D = min(DT, DP), against
    B = max(ND, D).  Responder (``take``, ``pass``): take and pass, against
    R = min(DT, DP).  DP missing is taken as +1 (normalised)."""
    dp = 1.0 if dp is None or (isinstance(dp, float) and math.isnan(dp)) else dp
    r = min(dt, dp)
    if kind in ("nodouble", "double"):
        b = max(nd, r)
        return [b - nd, b - r]
    if kind in ("take", "pass"):
        return [dt - r, dp - r]
    raise ValueError(f"not a cube decision: {kind!r}")


def _known(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def decision_difficulty(kind: str, equities: Sequence, nd, dt, dp) -> Optional[float]:
    """d of one decision from its options (None when the options are not
    known).  Whether the decision counts is the caller's (:func:`difficulties`)."""
    if kind == "checker":
        if not equities or not all(_known(q) for q in equities):
            return None
        return soft_difficulty(checker_deltas([float(q) for q in equities]))
    if not (_known(nd) and _known(dt)):
        return None
    return soft_difficulty(cube_deltas(kind, float(nd), float(dt), dp))


_COUNT_COLUMNS = ("error", "n_legal", "n_candidates", "equity_spread", "nd", "dt", "dp", "beaver_take")
_KIND_CODES = {"checker": K_CHECKER, "nodouble": K_NO_DOUBLE, "double": K_DOUBLE, "take": K_TAKE, "pass": K_PASS}


def checker_difficulties(flat: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """d of many checker lists at once: list k is ``flat[o:o + lens[k]]``
    (the candidates' equities in the analysis' order, all lists laid end to
    end, every ``lens[k]`` ≥ 1).  The rule of :func:`soft_difficulty` over
    :func:`checker_deltas`, in numpy: Δ = first − eq where eq < first, else
    0; the first option's Δ is 0, the smallest, so the weights need no
    shift.  NaN where a list holds an unknown (NaN) equity."""
    flat = np.asarray(flat, dtype=np.float64)
    lens = np.asarray(lens, dtype=np.int64)
    if not len(lens):
        return np.zeros(0, dtype=np.float64)
    starts = np.zeros(len(lens), dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    first = np.repeat(flat[starts], lens)
    with np.errstate(invalid="ignore"):
        delta = np.where(flat < first, first - flat, 0.0)
        w = np.exp(-delta / TAU)
        d = np.add.reduceat(w * delta, starts) / np.add.reduceat(w, starts)
    d[np.add.reduceat(np.isnan(flat), starts) > 0] = np.nan
    return d


def cube_difficulties(kind: np.ndarray, nd: np.ndarray, dt: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """d of many cube decisions at once (kind codes; EMG; DP NaN taken as
    +1): the rule of :func:`soft_difficulty` over :func:`cube_deltas`, in
    numpy, the same sums in the same order.  NaN where ND or DT is unknown
    or the kind is no cube decision."""
    nd, dt = np.asarray(nd, dtype=np.float64), np.asarray(dt, dtype=np.float64)
    dp = np.asarray(dp, dtype=np.float64)
    dp = np.where(np.isnan(dp), 1.0, dp)
    kind = np.asarray(kind)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.where(dp < dt, dp, dt)  # min(dt, dp)
        owner = np.isin(kind, (K_NO_DOUBLE, K_DOUBLE))
        b = np.where(r > nd, r, nd)  # max(nd, r)
        x0 = np.where(owner, b - nd, dt - r)
        x1 = np.where(owner, b - r, dp - r)
        low = np.where(x1 < x0, x1, x0)
        w0 = np.exp(-(x0 - low) / TAU)
        w1 = np.exp(-(x1 - low) / TAU)
        d = (0.0 + w0 * x0 + w1 * x1) / (0.0 + w0 + w1)
    ok = ~np.isnan(nd) & ~np.isnan(dt) & (owner | np.isin(kind, (K_TAKE, K_PASS)))
    return np.where(ok, d, np.nan)


def difficulty_columns(dec: DecisionArrays, flat: np.ndarray, lens: np.ndarray,
                       cnt: Optional[np.ndarray] = None) -> tuple:
    """(d, truncated) of each decision of ``dec``, as arrays: d (EMG) for
    the counted decisions (SPEC §2) with e known whose options are known,
    else NaN; truncated 1 where d stands on a checker list shorter than the
    legal plays (a lower bound), 0 where it does not, -1 without d.

    ``flat``/``lens``: the candidates' equities of each decision (NaN for
    an unknown one), laid end to end, ``lens[k]`` of decision k (0: no
    list).  Only the counted checker plays' lists are read: the others may
    be given as 0.  ``cnt``: :func:`counted` of ``dec`` when the caller has it."""
    n = len(dec)
    cnt = counted(dec) if cnt is None else cnt
    lens = np.asarray(lens, dtype=np.int64)
    d = np.full(n, np.nan)
    checker = dec.kind == K_CHECKER
    rows = cnt & checker & (lens > 0)
    if rows.any():
        keep = np.repeat(rows, lens)
        d[rows] = checker_difficulties(np.asarray(flat, dtype=np.float64)[keep], lens[rows])
    cube = cnt & ~checker
    if cube.any():
        d[cube] = cube_difficulties(dec.kind[cube], dec.nd[cube], dec.dt[cube], dec.dp[cube])
    has = ~np.isnan(d)
    truncated = np.where(has, np.where(checker, ((dec.n_legal >= 0) & (lens < dec.n_legal)), 0), -1).astype(np.int8)
    return d, truncated


def difficulties(rows: Sequence[dict]) -> list:
    """(d, truncated) of each decision row: d (EMG) for the counted
    decisions (SPEC §2) with e known whose options are known, else None;
    truncated 1 where d stands on a checker list shorter than the legal
    plays (a lower bound), 0 where it does not, None without d.

    Each row: ``kind`` (model name), ``error``, ``n_legal``,
    ``n_candidates``, ``equity_spread``, ``xg_counted``, ``nd``, ``dt``,
    ``dp``, ``beaver_take``, ``equities`` (the candidates' equities, in
    the analysis' order).  One rule with :func:`difficulty_columns`."""
    if not rows:
        return []
    cols = {}
    for name in _COUNT_COLUMNS:
        missing = DecisionArrays.SPEC[name][1]
        cols[name] = [missing if r.get(name) is None else r[name] for r in rows]
    cols["kind"] = [_KIND_CODES.get(r["kind"], -1) for r in rows]
    cols["xg_counted"] = [-1 if r.get("xg_counted") is None else int(r["xg_counted"]) for r in rows]
    dec = DecisionArrays(**cols)
    lists = [r.get("equities") or [] for r in rows]
    flat = np.array([np.nan if q is None else q for eqs in lists for q in eqs], dtype=np.float64)
    d, truncated = difficulty_columns(dec, flat, np.array([len(eqs) for eqs in lists], dtype=np.int64))
    return [(None, None) if t < 0 else (dd, t) for dd, t in zip(d.tolist(), truncated.tolist())]
