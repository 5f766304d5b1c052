"""Level bands by PR (SPEC §3).  This project's reference, not a published norm."""

from __future__ import annotations

from typing import Optional

# (upper bound excluded, name)
BANDS = (
    (2.0, "World class"),
    (4.0, "Expert"),
    (6.0, "Advanced"),
    (9.0, "Intermediate"),
    (12.0, "Casual"),
    (float("inf"), "Beginner"),
)


def level_band(pr: Optional[float]) -> Optional[str]:
    if pr is None:
        return None
    for upper, name in BANDS:
        if pr < upper:
            return name
    return BANDS[-1][1]
