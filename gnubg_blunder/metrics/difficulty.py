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

Pure Python and numpy: computed when a match is stored and by schema step 7
for databases stored before.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from .arrays import DecisionArrays
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


def difficulties(rows: Sequence[dict]) -> list:
    """(d, truncated) of each decision row: d (EMG) for the counted
    decisions (SPEC §2) with e known whose options are known, else None;
    truncated 1 where d stands on a checker list shorter than the legal
    plays (a lower bound), 0 where it does not, None without d.

    Each row: ``kind`` (model name), ``error``, ``n_legal``,
    ``n_candidates``, ``equity_spread``, ``xg_counted``, ``nd``, ``dt``,
    ``dp``, ``beaver_take``, ``equities`` (the candidates' equities, in
    the analysis' order)."""
    if not rows:
        return []
    cols = {}
    for name in _COUNT_COLUMNS:
        missing = DecisionArrays.SPEC[name][1]
        cols[name] = [missing if r.get(name) is None else r[name] for r in rows]
    cols["kind"] = [_KIND_CODES.get(r["kind"], -1) for r in rows]
    cols["xg_counted"] = [-1 if r.get("xg_counted") is None else int(r["xg_counted"]) for r in rows]
    cnt = counted(DecisionArrays(**cols))
    out = [(None, None)] * len(rows)
    for i in np.flatnonzero(cnt).tolist():
        r = rows[i]
        kind = r["kind"]
        if kind == "checker":
            eqs = r.get("equities") or []
            if not eqs or any(q is None or q != q for q in eqs):
                continue
            first = eqs[0]
            d = soft_difficulty([first - q if q < first else 0.0 for q in eqs])
            n_legal = r.get("n_legal")
            out[i] = (d, int(n_legal is not None and len(eqs) < n_legal))
        else:
            d = decision_difficulty(kind, (), r.get("nd"), r.get("dt"), r.get("dp"))
            if d is not None:
                out[i] = (d, 0)
    return out
