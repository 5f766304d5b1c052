"""95 % intervals in closed form (SPEC §7).

The unit resampled is the largest independent one: the games of a match, the
matches of an aggregate (both sides of a match are one unit when there is no
player filter).  Fewer than 3 units, or no spread, give no interval (None).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

Z95 = 1.96
MIN_UNITS = 3


def ratio_interval(e_units, n_units, scale: float = 1.0) -> Optional[tuple]:
    """Interval of R = Σe/Σn over units:
    Var(R) = G/(G−1) · Σ(e_u − R·n_u)² / (Σn_u)²; R ± 1.96·√Var, the lower
    bound floored at 0, then × scale (500 for PR)."""
    e = np.asarray(e_units, dtype=np.float64)
    n = np.asarray(n_units, dtype=np.float64)
    g = len(e)
    total_n = n.sum()
    if g < MIN_UNITS or total_n <= 0:
        return None
    r = e.sum() / total_n
    var = g / (g - 1) * np.sum((e - r * n) ** 2) / total_n**2
    if not var > 0:
        return None
    half = Z95 * math.sqrt(var)
    return (float(max(0.0, r - half) * scale), float((r + half) * scale))


def sum_interval(unit_values, scale: float = 1.0) -> Optional[tuple]:
    """Interval of a sum over G units (L of one match over its games):
    Var = G/(G−1) · Σ(l_g − l̄)²; the lower bound floored at 0, × scale."""
    v = np.asarray(unit_values, dtype=np.float64)
    g = len(v)
    if g < MIN_UNITS:
        return None
    var = g / (g - 1) * np.sum((v - v.mean()) ** 2)
    if not var > 0:
        return None
    total = v.sum()
    half = Z95 * math.sqrt(var)
    return (float(max(0.0, total - half) * scale), float((total + half) * scale))


def side_of_zero(ci, above: str, below: str, across: str) -> str:
    """The verdict of an interval against 0 (SPEC §11, §12, §13 all read it
    so): ``above`` when its lower bound is > 0, ``below`` when its upper
    bound is < 0, else ``across``."""
    if ci[0] > 0:
        return above
    if ci[1] < 0:
        return below
    return across
