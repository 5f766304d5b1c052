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
from .counting import K_CHECKER, Thresholds, counted, kind_mask
from .intervals import MIN_UNITS, ratio_interval

PR_SCALE = 500
SMALL_ROW = 10  # rows with fewer counted decisions are flagged (SPEC §14)


def interval_note(units_e, units_n) -> Optional[str]:
    """Why a row has no interval (None when it has one)."""
    n = np.asarray(units_n, dtype=np.float64)
    if len(n) < MIN_UNITS:
        return f"no interval: {len(n)} match{'es' if len(n) != 1 else ''}"
    if ratio_interval(units_e, units_n) is None:
        return "no interval: no spread"
    return None


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
    idx = np.nonzero(keep)[0]
    g = groups[idx].astype(np.int64)
    e = np.nan_to_num(dec.error[idx], nan=0.0)
    mpe = dec.mwc_per_emg[idx]
    chk = dec.kind[idx] == K_CHECKER
    err, blunder = thresholds.classify(dec.error[idx])
    pos = dec.position[idx].astype(np.int64)
    match = dec.match[idx].astype(np.int64)
    nm = max(sel.n_matches, 1)

    n = np.bincount(g, minlength=n_groups)
    n_chk = np.bincount(g[chk], minlength=n_groups)
    esum = np.bincount(g, weights=e, minlength=n_groups)
    echk = np.bincount(g[chk], weights=e[chk], minlength=n_groups)
    errors = np.bincount(g[err], minlength=n_groups)
    mp = ~np.isnan(mpe)
    lsum = np.bincount(g[mp], weights=(e * np.nan_to_num(mpe))[mp], minlength=n_groups)
    has_mp = np.bincount(g[mp], minlength=n_groups) > 0
    # distinct positions (known ones), and those with at least one blunder
    npos = max(len(sel.positions), 1)
    known_pos = pos >= 0
    pkey = g * npos + pos
    uniq_pos = np.unique(pkey[known_pos])
    positions = np.bincount(uniq_pos // npos, minlength=n_groups) if len(uniq_pos) else np.zeros(n_groups)
    bl_keys = np.unique(pkey[blunder & known_pos])
    blunders = np.bincount(bl_keys // npos, minlength=n_groups) if len(bl_keys) else np.zeros(n_groups)
    # units: the (group, match) pairs that occur (no dense groups x matches grid)
    units, unit_of = np.unique(g * nm + match, return_inverse=True)
    u_n = np.bincount(unit_of, minlength=len(units))
    u_e = np.bincount(unit_of, weights=e, minlength=len(units))
    u_group = units // nm
    order = np.argsort(u_group, kind="stable")
    bounds = np.searchsorted(u_group[order], np.arange(n_groups + 1))

    rows = []
    for k in range(n_groups):
        mine = order[bounds[k]:bounds[k + 1]]
        ue, un = u_e[mine], u_n[mine]
        ci = ratio_interval(ue, un, PR_SCALE)
        rows.append({
            "decisions": int(n[k]),
            "positions": int(positions[k]),
            "blunders": int(blunders[k]),
            "errors": int(errors[k]),
            "error_emg": float(esum[k]),
            "pr": PR_SCALE * float(esum[k]) / int(n[k]) if n[k] else None,
            "pr_ci": None if ci is None else [ci[0], ci[1]],
            "ci_note": None if ci is not None else (interval_note(ue, un) if n[k] else "no decisions"),
            "checker_pr": PR_SCALE * float(echk[k]) / int(n_chk[k]) if n_chk[k] else None,
            "cube_pr": PR_SCALE * float(esum[k] - echk[k]) / int(n[k] - n_chk[k]) if n[k] - n_chk[k] else None,
            "mwc_loss": 100 * float(lsum[k]) if has_mp[k] else None,
            "small": bool(n[k] < SMALL_ROW),
            "matches": int(len(mine)),
        })
    return rows
