"""Figures per group of decisions (a phase, a game plan, a tag, a score
cell, a player...): the rows of the breakdown and player tables.

One function, :func:`group_rows`, so that every table counts the same way
(SPEC §3, §7, §14): counted decisions of the filter's side(s), distinct
positions, blunders as distinct positions with at least one blunder, PR
Σ/Σ, and a 95 % interval with the matches as units (both sides of a match
one unit without a player filter); no interval under 3 matches or without
spread, and rows under 10 decisions flagged, never hidden.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..arrays import Selection
from .counting import Thresholds, counted, kind_mask
from . import kernel
from ..stash import StashKey, cached


def base_mask(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """Counted decisions of the filter's side(s) and decision type."""
    dec = sel.decisions
    return counted(dec) & kernel.side_mask(sel) & kind_mask(dec, decision_type)


def group_rows(
    sel: Selection,
    groups: np.ndarray,
    n_groups: int,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    mask: Optional[np.ndarray] = None,
) -> list:
    """One dict per group 0..n_groups-1 over the counted decisions where
    ``groups >= 0`` (and ``mask``): decisions, positions, blunders, errors,
    error_emg, pr, pr_ci, ci_note, checker_pr, cube_pr, mwc_loss (pp, None
    when the group holds only money decisions), small (fewer than 10
    decisions), matches (units)."""
    keep = base_mask(sel, decision_type) & (groups >= 0)
    if mask is not None:
        keep &= mask
    sums = kernel.sums(sel, keep, groups, n_groups, thresholds=thresholds)
    # distinct positions (known ones), and those with at least one blunder
    _, blunder = kernel.classified(sel, thresholds)
    positions = distinct_positions(sel, keep, groups, n_groups)
    blunders = distinct_positions(sel, keep & blunder, groups, n_groups)

    rows = []
    for k, fig in enumerate(kernel.figures_of(sums)):
        rows.append({
            "decisions": fig["decisions"],
            "positions": int(positions[k]),
            "blunders": int(blunders[k]),
            "errors": fig["errors"],
            "error_emg": fig["error_emg"],
            "pr": fig["pr"],
            "pr_ci": fig["pr_ci"],
            "ci_note": fig["ci_note"],
            "checker_pr": fig["checker_pr"],
            "cube_pr": fig["cube_pr"],
            "mwc_loss": fig["mwc_loss"],
            "small": fig["small"],
            "matches": fig["units"],
        })
    return rows


# one more than the largest position index of the selection (the (group, position) keys' stride)
POSITION_SPAN: StashKey[int] = StashKey("position span")


def distinct_positions(sel: Selection, keep: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """How many distinct known positions the decisions ``keep`` of each
    group hold (int per group): the (group, position) keys sorted, each
    first of its kind counted for its group."""
    pos = sel.decisions.position
    kept = np.asarray(keep, dtype=bool) & (pos >= 0)
    if not kept.any():
        return np.zeros(n_groups, dtype=np.int64)
    span = cached(sel, POSITION_SPAN, lambda: int(pos.max()) + 1)
    keys = np.sort(np.asarray(groups)[kept].astype(np.int64) * span + pos[kept])
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return np.bincount(keys[first] // span, minlength=n_groups).astype(np.int64)
