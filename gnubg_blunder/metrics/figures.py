"""The figures of SPEC §1–5 and §7, per match side and over a selection.

Pure functions over a :class:`Selection`: no SQL, no I/O.  Sums are grouped
with ``np.bincount`` so that a database of many matches is one pass.
Results are plain dicts with None for "never measured".
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from ..arrays import Selection
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
from .groups import base_mask
from .kernel import GNUBG_SCALE, rate
from ..stash import StashKey, cached

# SPEC §6, made by kernel.difficulty_figures (docs/commands.md)
DIFFICULTY_KEYS = ("difficulty", "difficulty_emg", "excess", "excess_emg", "ratio", "avoidable_errors",
                   "avoidable_errors_money", "difficulty_truncated")


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


LUCK_FIGURES: StashKey[dict] = StashKey("luck figures")


def luck_figures(sel: Selection) -> dict:
    """SPEC §4: the luck of the selected sides' rolls: ``luck_emg``, its sum in
    EMG over the rolls of known luck, ``luck_rolls``, their count, and
    ``luck_per_roll_mpt``, a roll's mean in millipoints; None without any
    roll of known luck.  Not a skill figure: the decision type and the
    thresholds do not change it.  Computed once a selection (``stats`` asks
    its registered metric, :func:`aggregate` the same figures); read-only."""

    def compute():
        known = known_luck(sel) & sel.roll_side_mask()
        luck = kernel.zero_nan(sel.rolls.luck)
        return _luck_object(luck[known].sum() if known.any() else None, int(known.sum()))

    return cached(sel, LUCK_FIGURES, compute)


def _luck_object(luck, luck_rolls: int) -> dict:
    """:func:`luck_figures`' dict of a sum of luck (None without any) over ``luck_rolls`` rolls."""
    return {
        "luck_emg": None if luck is None else float(luck),
        "luck_rolls": luck_rolls,
        "luck_per_roll_mpt": None if luck is None else 1000 * float(luck) / luck_rolls,
    }


def per_side(sel: Selection, thresholds: Thresholds = Thresholds(), matches=None) -> list:
    """One dict per (match, player): the per-side figures of
    ``matches --format json`` (keys documented there).  Interval units of
    one match side: its games (SPEC §7).  ``matches``: the indices (in
    ``sel.matches``, ascending) of the matches wanted, None for all; a
    side's figures are its own decisions' alone, so they are the same
    either way (``matches --last``: the report's few rows of 10,000
    matches)."""
    if matches is not None and len(matches) < sel.n_matches:
        # a few matches of many (the report's last 300 of 10,000): their own decisions and rolls alone, the
        # same figures without the sums and masks over every decision (the report's peak was there)
        kept = np.zeros(sel.n_matches, dtype=bool)
        kept[np.asarray(matches, dtype=np.int64)] = True
        sel = dataclasses.replace(sel, decisions=sel.decisions.take(kept[sel.decisions.match]),
                                  rolls=sel.rolls.take(kept[sel.rolls.match]), whole_analyses=False)
    dec, rolls = sel.decisions, sel.rolls
    nm = sel.n_matches
    wanted = np.arange(nm, dtype=np.int64) if matches is None else np.asarray(matches, dtype=np.int64)
    n_sides = 2 * len(wanted)
    if matches is None:
        key = dec.match.astype(np.int64) * 2 + dec.player
        rkey = rolls.match.astype(np.int64) * 2 + rolls.player
    else:  # the wanted matches' sides numbered 0, 1, 2, …; every other decision and roll -1 (left out)
        slot = np.full(nm, -1, dtype=np.int64)
        slot[wanted] = np.arange(len(wanted), dtype=np.int64)
        key = np.where(slot[dec.match] >= 0, slot[dec.match] * 2 + dec.player, -1)
        rkey = np.where(slot[rolls.match] >= 0, slot[rolls.match] * 2 + rolls.player, -1)
    side_groups = np.full((nm, 2), -1, dtype=np.int64)
    side_groups[wanted] = np.arange(n_sides, dtype=np.int64).reshape(-1, 2)
    cnt = counted(dec)
    by_side = dict(side_groups=side_groups, unit="game", thresholds=thresholds)
    every = kernel.sums(sel, cnt, key, n_sides, **by_side)
    doubles = kernel.sums(sel, cnt & np.isin(dec.kind, (K_NO_DOUBLE, K_DOUBLE)), key, n_sides, **by_side)
    takes = kernel.sums(sel, cnt & np.isin(dec.kind, (K_TAKE, K_PASS)), key, n_sides, **by_side)

    # gnubg's own way (its screen): every decision, its denominators.
    inside = key >= 0
    unforced = _sum(key[gnubg_unforced(dec) & inside], n_sides)
    close = _sum(key[gnubg_close_cube(dec) & inside], n_sides)
    g_err = gnubg_error(dec)
    g_known = ~np.isnan(g_err) & inside
    g_e = kernel.zero_nan(g_err)
    E_gnubg = _sum(key[g_known], n_sides, g_e[g_known])
    L_gnubg = _sum(key[g_known], n_sides, (g_e * kernel.zero_nan(dec.mwc_per_emg))[g_known])
    analysed = _sum(key[g_known], n_sides)  # does this side have any analysis?

    total_moves = _sum(rolls.match, nm)  # both players' rolls, per match
    lk = known_luck(sel) & (rkey >= 0)
    luck = kernel.zero_nan(rolls.luck)
    luck_n = _sum(rkey[lk], n_sides)
    luck_sum = _sum(rkey[lk], n_sides, luck[lk])
    luck_mwc = _sum(rkey[lk], n_sides, (luck * kernel.zero_nan(rolls.mwc_per_emg))[lk])

    # plain numbers for the loop below (the same values)
    unforced, close, analysed = unforced.tolist(), close.tolist(), analysed.tolist()
    E_gnubg, L_gnubg, total_moves = E_gnubg.tolist(), L_gnubg.tolist(), total_moves.tolist()
    luck_n, luck_sum, luck_mwc = luck_n.tolist(), luck_sum.tolist(), luck_mwc.tolist()
    every_fig = kernel.figures_of(every)
    dbl_n, dbl_e, dbl_ell = doubles.n.tolist(), doubles.e.tolist(), doubles.ell.tolist()
    rsp_n, rsp_e, rsp_ell = takes.n.tolist(), takes.e.tolist(), takes.ell.tolist()
    out = []
    for slot_of_match, mi in enumerate(wanted.tolist()):
        m = sel.matches[mi]
        money = kernel.is_money(m.length)
        for p in (0, 1):
            s = 2 * slot_of_match + p
            fig = every_fig[s]
            gnubg = None
            has_luck = luck_n[s] > 0
            side_luck_emg = float(luck_sum[s]) if has_luck else None
            side_luck_mwc = (None if money else 100 * float(luck_mwc[s])) if has_luck else None
            if m.engine == "gnubg" and analysed[s] + unforced[s] + close[s] > 0:
                denom = int(unforced[s] + close[s])
                gnubg = {
                    "unforced": int(unforced[s]),
                    "close_cube": int(close[s]),
                    "error_emg": float(E_gnubg[s]),
                    "mwc_loss": None if money else 100 * float(L_gnubg[s]),
                    "error_rate_memg": rate(E_gnubg[s], denom, GNUBG_SCALE),
                    # gnubg's "Error rate mEMG (MWC)" bracket: % points of MWC per decision
                    "error_rate_mwc": None if money else rate(100 * L_gnubg[s], denom, 1),
                    "snowie_er": rate(E_gnubg[s], total_moves[mi], GNUBG_SCALE),
                    # the analysis is gnubg's, so is the luck of its rolls ("Luck total EMG")
                    "luck_emg": side_luck_emg,
                    "luck_mwc": side_luck_mwc,
                }
            out.append(
                {
                    "player": m.players[p],
                    "decisions": fig["decisions"],
                    "checker_decisions": fig["checker_decisions"],
                    "double_decisions": dbl_n[s],
                    "take_decisions": rsp_n[s],
                    "error_emg": fig["error_emg"],
                    "checker_error_emg": fig["checker_error_emg"],
                    "cube_error_emg": fig["cube_error_emg"],
                    "double_error_emg": dbl_e[s],
                    "take_error_emg": rsp_e[s],
                    "pr": fig["pr"],
                    "pr_ci": fig["pr_ci"],
                    "checker_pr": fig["checker_pr"],
                    "cube_pr": fig["cube_pr"],
                    "mwc_loss": fig["mwc_loss"],
                    "checker_mwc_loss": fig["checker_mwc_loss"],
                    "cube_mwc_loss": fig["cube_mwc_loss"],
                    "double_mwc_loss": None if fig["mwc_loss"] is None else 100 * dbl_ell[s],
                    "take_mwc_loss": None if fig["mwc_loss"] is None else 100 * rsp_ell[s],
                    "snowie_er": rate(E_gnubg[s], total_moves[mi]),
                    "errors": fig["errors"],
                    "blunders": fig["blunders"],
                    "luck_emg": side_luck_emg,
                    "luck_mwc": side_luck_mwc,
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


WHOLE_SUMS: StashKey[kernel.Sums] = StashKey("whole sums")  # .at(thresholds, decision type)


def whole_sums(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all") -> kernel.Sums:
    """The kernel's sums over the counted decisions of the filter's side(s)
    and decision type (``groups.base_mask``), one group: interval units the
    matches holding them, both sides of a match one unit (SPEC §7); every
    selected match-play side weighs √N in L₇ (SPEC §5), so that with a
    decision-type filter L₇ is the checker or cube part of the same L₇.
    Once per selection, thresholds and decision type (``aggregate``, the
    summary and the errors view share it; not to be changed)."""
    def compute():
        side_groups = np.where(sel.sides, 0, -1) if sel.n_matches else np.zeros((0, 2), dtype=np.int64)
        return kernel.sums(sel, base_mask(sel, decision_type), None, 1, side_groups=side_groups,
                           thresholds=thresholds)

    return cached(sel, WHOLE_SUMS.at(thresholds, decision_type or "all"), compute)


def aggregate(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
) -> dict:
    """Figures over a whole selection: sum/sum (SPEC §3), intervals with
    matches as units (SPEC §7), L₇ aggregated with √N weights (SPEC §5)."""
    dec, rolls = sel.decisions, sel.rolls
    nm = sel.n_matches
    side = kernel.side_mask(sel)
    kinds = kind_mask(dec, decision_type)
    # Snowie's numerator is gnubg's: every decision gnubg analysed, its error
    g_err = gnubg_error(dec)
    snowie_known = ~np.isnan(g_err) & side & kinds
    # interval units (SPEC §7): the matches holding counted decisions of the
    # selected side(s), both sides of a match one unit; every selected
    # match-play side weighs √N in L₇ (SPEC §5), so that with a
    # decision-type filter L₇ is the checker or cube part of the same L₇
    fig = kernel.figures(whole_sums(sel, thresholds, decision_type))

    total_moves = len(rolls)  # both players' rolls in the kept matches
    events = {m.event.strip().lower() for m in sel.matches if m.event}
    wins = losses = 0
    for i, m in enumerate(sel.matches):
        for p in (0, 1):
            if sel.sides[i, p] and m.winner is not None:
                if m.winner == p:
                    wins += 1
                else:
                    losses += 1
    snowie = kernel.zero_nan(g_err)[snowie_known].sum() if snowie_known.any() else None
    return _aggregate_object(fig, int(sel.sides.any(axis=1).sum()) if nm else 0, len(events), wins, losses,
                             snowie, total_moves, luck_figures(sel))


def _aggregate_object(fig, matches, tournaments, wins, losses, snowie, total_moves, luck: dict) -> dict:
    """The dict of :func:`aggregate` from the kernel's figures and the
    counts beside them (``snowie``: a sum, None without any; ``luck``:
    :func:`luck_figures`' dict)."""
    return {
        "decisions": fig["decisions"],
        "checker_decisions": fig["checker_decisions"],
        "cube_decisions": fig["cube_decisions"],
        "matches": matches,
        "tournaments": tournaments,
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
        "snowie_er": None if snowie is None else rate(snowie, total_moves),
        "errors": fig["errors"],
        "blunders": fig["blunders"],
        **luck,
        **{k: fig[k] for k in DIFFICULTY_KEYS},
    }


def _group_bounds(key: np.ndarray, n_groups: int) -> np.ndarray:
    """Where each group 0..n_groups starts in ``key`` sorted (and where the
    last ends): the counts of the smaller keys, without sorting a copy of
    ``key`` (13 MB over 1.6 M decisions, the peak of ``players``)."""
    return np.concatenate([[0], np.cumsum(np.bincount(key, minlength=n_groups + 1))])[:n_groups + 1]


def aggregates(
    sel: Selection,
    owner: np.ndarray,
    n_groups: int,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
) -> Optional[list]:
    """:func:`aggregate` of many groups of match sides at once: ``owner``
    (int, shape (matches, 2)) names the group of each side (-1: none);
    group g's figures are those of the selection of the matches where it
    has a side, with its sides selected (``players.Subsets.take``), to
    the bit.  None when the decisions or rolls are not in match order (the
    sums would then add in another order than one group's selection)."""
    dec, rolls = sel.decisions, sel.rolls
    nm = sel.n_matches
    owner = np.asarray(owner, dtype=np.int64).reshape(nm, 2)
    if (len(dec) > 1 and (np.diff(dec.match) < 0).any()) or (len(rolls) > 1 and (np.diff(rolls.match) < 0).any()):
        return None
    dgroup = owner[dec.match, dec.player] if len(dec) else np.zeros(0, dtype=np.int64)
    kinds = kind_mask(dec, decision_type)
    cnt = counted(dec) & kinds
    s = kernel.sums(sel, cnt, dgroup, n_groups, side_groups=owner, thresholds=thresholds)
    figs = kernel.figures_of(s)
    g_err = gnubg_error(dec)
    snowie_known = ~np.isnan(g_err) & kinds & (dgroup >= 0)  # a group's Snowie sum adds these (known, no NaN)
    rgroup = owner[rolls.match, rolls.player] if len(rolls) else np.zeros(0, dtype=np.int64)
    lk = known_luck(sel) & (rgroup >= 0)
    luck = kernel.zero_nan(rolls.luck)
    rolls_of_match = np.bincount(rolls.match, minlength=nm) if len(rolls) else np.zeros(nm, dtype=np.int64)
    # each group's decisions and rolls, in selection order (that of its own selection)
    d_key = np.where(snowie_known, dgroup, n_groups)
    d_order = np.argsort(d_key, kind="stable")
    d_bounds = _group_bounds(d_key, n_groups)
    del d_key
    r_key = np.where(lk, rgroup, n_groups)
    r_order = np.argsort(r_key, kind="stable")
    r_bounds = _group_bounds(r_key, n_groups)
    out = []
    for g in range(n_groups):
        mine = owner == g
        ms = np.nonzero(mine.any(axis=1))[0]
        events = {sel.matches[i].event.strip().lower() for i in ms.tolist() if sel.matches[i].event}
        wins = losses = 0
        for i in ms.tolist():
            m = sel.matches[i]
            for p in (0, 1):
                if mine[i, p] and m.winner is not None:
                    if m.winner == p:
                        wins += 1
                    else:
                        losses += 1
        di = d_order[d_bounds[g]:d_bounds[g + 1]]
        ri = r_order[r_bounds[g]:r_bounds[g + 1]]
        out.append(_aggregate_object(
            figs[g], len(ms), len(events), wins, losses, g_err[di].sum() if len(di) else None,
            int(rolls_of_match[ms].sum()), _luck_object(luck[ri].sum() if len(ri) else None, len(ri))))
    return out
