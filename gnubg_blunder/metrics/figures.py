"""The figures of SPEC §1–5 and §7, per match side and over a selection.

Pure functions over a :class:`Selection`: no SQL, no I/O.  Sums are grouped
with ``np.bincount`` so that a database of many matches is one pass.
Results are plain dicts with None for "never measured".
"""

from __future__ import annotations


import numpy as np

from .arrays import Selection
from .counting import (
    K_DOUBLE,
    K_NO_DOUBLE,
    K_PASS,
    K_TAKE,
    Thresholds,
    counted,
    gnubg_close_cube,
    gnubg_error,
    gnubg_unforced,
    kind_mask,
)
from . import kernel
from .kernel import GNUBG_SCALE, rate

# SPEC §6, made by kernel.difficulty_figures (docs/commands.md)
DIFFICULTY_KEYS = ("difficulty", "difficulty_emg", "excess", "ratio", "avoidable_errors", "difficulty_truncated")


def _sum(keys, n, weights=None):
    if weights is None:
        return np.bincount(keys, minlength=n).astype(np.int64)
    return np.bincount(keys, weights=weights, minlength=n)


def known_luck(sel: Selection) -> np.ndarray:
    """SPEC §4: luck is known where the analyser gave a value; a match where
    every roll has luck exactly 0 has no luck data at all."""
    r = sel.rolls
    known = ~np.isnan(r.luck)
    if not len(r):
        return known
    nonzero = np.bincount(r.match[known & (r.luck != 0)], minlength=sel.n_matches) > 0
    return known & nonzero[r.match]


def per_side(sel: Selection, thresholds: Thresholds = Thresholds()) -> list:
    """One dict per (match, player): the per-side figures of
    ``matches --format json`` (keys documented there).  Interval units of
    one match side: its games (SPEC §7)."""
    dec, rolls = sel.decisions, sel.rolls
    nm = sel.n_matches
    n_sides = 2 * nm
    key = dec.match.astype(np.int64) * 2 + dec.player
    rkey = rolls.match.astype(np.int64) * 2 + rolls.player
    side_groups = np.arange(n_sides, dtype=np.int64).reshape(nm, 2)
    cnt = counted(dec)
    by_side = dict(side_groups=side_groups, unit="game", thresholds=thresholds)
    every = kernel.sums(sel, cnt, key, n_sides, **by_side)
    doubles = kernel.sums(sel, cnt & np.isin(dec.kind, (K_NO_DOUBLE, K_DOUBLE)), key, n_sides, **by_side)
    takes = kernel.sums(sel, cnt & np.isin(dec.kind, (K_TAKE, K_PASS)), key, n_sides, **by_side)

    # gnubg's own way (its screen): every decision, its denominators.
    unforced = _sum(key[gnubg_unforced(dec)], n_sides)
    close = _sum(key[gnubg_close_cube(dec)], n_sides)
    g_err = gnubg_error(dec)
    g_known = ~np.isnan(g_err)
    g_e = np.nan_to_num(g_err, nan=0.0)
    E_gnubg = _sum(key[g_known], n_sides, g_e[g_known])
    L_gnubg = _sum(key[g_known], n_sides, (g_e * np.nan_to_num(dec.mwc_per_emg, nan=0.0))[g_known])
    analysed = _sum(key[g_known], n_sides)  # does this side have any analysis?

    total_moves = _sum(rolls.match, nm)  # both players' rolls, per match
    lk = known_luck(sel)
    luck = np.nan_to_num(rolls.luck, nan=0.0)
    luck_n = _sum(rkey[lk], n_sides)
    luck_sum = _sum(rkey[lk], n_sides, luck[lk])
    luck_mwc = _sum(rkey[lk], n_sides, (luck * np.nan_to_num(rolls.mwc_per_emg, nan=0.0))[lk])

    out = []
    for mi, m in enumerate(sel.matches):
        money = kernel.is_money(m.length)
        for p in (0, 1):
            s = 2 * mi + p
            fig = kernel.figures(every, s)
            dbl, rsp = kernel.figures(doubles, s), kernel.figures(takes, s)
            gnubg = None
            if m.engine == "gnubg" and analysed[s] + unforced[s] + close[s] > 0:
                denom = int(unforced[s] + close[s])
                gnubg = {
                    "unforced": int(unforced[s]),
                    "close_cube": int(close[s]),
                    "error_emg": float(E_gnubg[s]),
                    "mwc_loss": None if money else 100 * float(L_gnubg[s]),
                    "error_rate_memg": rate(E_gnubg[s], denom, GNUBG_SCALE),
                    "snowie_er": rate(E_gnubg[s], total_moves[mi], GNUBG_SCALE),
                }
            has_luck = luck_n[s] > 0
            out.append(
                {
                    "player": m.players[p],
                    "decisions": fig["decisions"],
                    "checker_decisions": fig["checker_decisions"],
                    "double_decisions": dbl["decisions"],
                    "take_decisions": rsp["decisions"],
                    "error_emg": fig["error_emg"],
                    "checker_error_emg": fig["checker_error_emg"],
                    "cube_error_emg": fig["cube_error_emg"],
                    "double_error_emg": dbl["error_emg"],
                    "take_error_emg": rsp["error_emg"],
                    "pr": fig["pr"],
                    "pr_ci": fig["pr_ci"],
                    "checker_pr": fig["checker_pr"],
                    "cube_pr": fig["cube_pr"],
                    "mwc_loss": fig["mwc_loss"],
                    "checker_mwc_loss": fig["checker_mwc_loss"],
                    "cube_mwc_loss": fig["cube_mwc_loss"],
                    "double_mwc_loss": None if fig["mwc_loss"] is None else 100 * float(doubles.ell[s]),
                    "take_mwc_loss": None if fig["mwc_loss"] is None else 100 * float(takes.ell[s]),
                    "snowie_er": rate(E_gnubg[s], total_moves[mi]),
                    "errors": fig["errors"],
                    "blunders": fig["blunders"],
                    "luck_emg": float(luck_sum[s]) if has_luck else None,
                    "luck_mwc": (None if money else 100 * float(luck_mwc[s])) if has_luck else None,
                    "luck_rolls": int(luck_n[s]),
                    "l7": fig["l7"],
                    "l7_ci": fig["l7_ci"],
                    "elo": fig["elo"],
                    "elo_bound": fig["elo_bound"],
                    "won": None if m.winner is None else (m.winner == p),
                    **{k: fig[k] for k in DIFFICULTY_KEYS},
                    "gnubg": gnubg,
                }
            )
    return out


def aggregate(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
) -> dict:
    """Figures over a whole selection: sum/sum (SPEC §3), intervals with
    matches as units (SPEC §7), L₇ aggregated with √N weights (SPEC §5)."""
    dec, rolls = sel.decisions, sel.rolls
    nm = sel.n_matches
    side = sel.decision_side_mask()
    kinds = kind_mask(dec, decision_type)
    cnt = counted(dec) & side & kinds
    # Snowie's numerator is gnubg's: every decision gnubg analysed, its error
    g_err = gnubg_error(dec)
    snowie_known = ~np.isnan(g_err) & side & kinds
    # interval units (SPEC §7): the matches holding counted decisions of the
    # selected side(s), both sides of a match one unit; every selected
    # match-play side weighs √N in L₇ (SPEC §5), so that with a
    # decision-type filter L₇ is the checker or cube part of the same L₇
    side_groups = np.where(sel.sides, 0, -1) if nm else np.zeros((0, 2), dtype=np.int64)
    fig = kernel.figures(kernel.sums(sel, cnt, None, 1, side_groups=side_groups, thresholds=thresholds))

    total_moves = len(rolls)  # both players' rolls in the kept matches
    rside = sel.roll_side_mask()
    lk = known_luck(sel) & rside
    luck = np.nan_to_num(rolls.luck, nan=0.0)
    events = {m.event.strip().lower() for m in sel.matches if m.event}
    wins = losses = 0
    for i, m in enumerate(sel.matches):
        for p in (0, 1):
            if sel.sides[i, p] and m.winner is not None:
                if m.winner == p:
                    wins += 1
                else:
                    losses += 1
    return {
        "decisions": fig["decisions"],
        "checker_decisions": fig["checker_decisions"],
        "cube_decisions": fig["cube_decisions"],
        "matches": int(sel.sides.any(axis=1).sum()) if nm else 0,
        "tournaments": len(events),
        "wins": wins,
        "losses": losses,
        "error_emg": fig["error_emg"],
        "pr": fig["pr"],
        "pr_ci": fig["pr_ci"],
        "checker_pr": fig["checker_pr"],
        "cube_pr": fig["cube_pr"],
        "mwc_loss": fig["mwc_loss"],
        "l7": fig["l7"],
        "l7_ci": fig["l7_ci"],
        "elo": fig["elo"],
        "elo_bound": fig["elo_bound"],
        "snowie_er": rate(np.nan_to_num(g_err, nan=0.0)[snowie_known].sum(), total_moves)
        if snowie_known.any() else None,
        "errors": fig["errors"],
        "blunders": fig["blunders"],
        "luck_emg": float(luck[lk].sum()) if lk.any() else None,
        "luck_rolls": int(lk.sum()),
        "luck_per_roll_mpt": 1000 * float(luck[lk].sum()) / int(lk.sum()) if lk.any() else None,
        **{k: fig[k] for k in DIFFICULTY_KEYS},
    }
