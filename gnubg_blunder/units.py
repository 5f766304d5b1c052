"""Units shared by every rule: EMG, micro-EMG, millipoints.

Thresholds compare integers in micro-EMG (SPEC §3: "compute in integer
micro-EMG to avoid float edges: 0.0495 is 50 mpt")."""

from __future__ import annotations

import numpy as np


def micro(x) -> np.ndarray:
    """EMG -> integer micro-EMG, half away from zero; NaN -> 0."""
    x = np.asarray(x, dtype=np.float64)
    a = np.absolute(x, out=np.empty_like(x))  # sign(x) × floor(|x| × 10⁶ + 0.5), in place
    a *= 1e6
    a += 0.5
    np.floor(a, out=a)
    np.copysign(a, x, out=a)
    a[np.isnan(x)] = 0
    return a.astype(np.int64)


def millipoints(e) -> np.ndarray:
    """e rounded half-up to the millipoint (SPEC §3), as integer mpt."""
    return (micro(e) + 500) // 1000


def mpt(e):
    """An error in millipoints to the analyser's 6 decimals of EMG (a float,
    for lists and JSON); None stays None and NaN is None (unknown)."""
    if e is None or e != e:
        return None
    return round(1000 * float(e), 3)


NEGLIGIBLE = 1e-12  # EMG or MWC: a millionth of the analysers' last decimal (gnubg writes 6)


def decision_figure(x, scale: float = 1.0):
    """One decision's ℓ or d (EMG or a fraction of MWC) times ``scale``,
    as lists give it: None where unknown (None, NaN), 0.0 under
    ``NEGLIGIBLE``.  Why: a take whose pass costs 1.5 EMG has d = 1.5 /
    (1 + e^60) ≈ 10⁻²⁶ EMG, exact by the rule but beyond any analysis'
    precision, and "1.08e-23" in a CSV reads as float noise where 0 is
    meant; sums are kept (under 10⁻¹² a decision)."""
    if x is None or x != x:
        return None
    x = float(x)
    return 0.0 if abs(x) < NEGLIGIBLE else scale * x
