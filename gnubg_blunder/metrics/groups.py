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

from .arrays import Selection
from .counting import Thresholds, counted, kind_mask
from . import kernel


def base_mask(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """Counted decisions of the filter's side(s) and decision type."""
    dec = sel.decisions
    return counted(dec) & sel.decision_side_mask() & kind_mask(dec, decision_type)


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
    dec = sel.decisions
    keep = base_mask(sel, decision_type) & (groups >= 0)
    if mask is not None:
        keep &= mask
    sums = kernel.sums(sel, keep, groups, n_groups, thresholds=thresholds)
    # distinct positions (known ones), and those with at least one blunder
    idx = np.nonzero(keep)[0]
    g = groups[idx].astype(np.int64)
    _, blunder = thresholds.classify(dec.error[idx])
    pos = dec.position[idx].astype(np.int64)
    npos = max(len(sel.positions), 1)
    known_pos = pos >= 0
    pkey = g * npos + pos
    uniq_pos = np.unique(pkey[known_pos])
    positions = np.bincount(uniq_pos // npos, minlength=n_groups) if len(uniq_pos) else np.zeros(n_groups)
    bl_keys = np.unique(pkey[blunder & known_pos])
    blunders = np.bincount(bl_keys // npos, minlength=n_groups) if len(bl_keys) else np.zeros(n_groups)

    rows = []
    for k in range(n_groups):
        fig = kernel.figures(sums, k)
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
