"""The Elo difference against the engine (SPEC §5); L₇ itself is
``kernel.l7_of``."""

from __future__ import annotations

import math
from typing import Optional

SQRT7 = math.sqrt(7)  # √7: the 7-point match of L₇ and of the Elo scale
ELO_SCALE = 2000 / SQRT7
Q_FLOOR = 0.01  # from L₇ > 49 % the Elo is only a bound ("≤")


def elo(l7: Optional[float]) -> tuple:
    """(D, is_bound): D = (2000/√7)·log₁₀(q/(1−q)), q = 0.5 − L₇; q clamped at
    0.01 from L₇ > 49 %, where D is an upper bound ("≤")."""
    if l7 is None:
        return None, False
    q = 0.5 - l7
    bound = q < Q_FLOOR
    if bound:
        q = Q_FLOOR
    if q >= 1:
        q = 1 - 1e-12
    return ELO_SCALE * math.log10(q / (1 - q)), bound
