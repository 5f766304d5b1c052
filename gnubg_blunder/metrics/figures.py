"""The figures of SPEC §1–5 and §7, per match side and over a selection.

Pure functions over a :class:`Selection`: no SQL, no I/O.  Sums are grouped
with ``np.bincount`` so that a database of many matches is one pass.
Results are plain dicts with None for "never measured".
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .arrays import Selection
from .counting import (
    K_CHECKER,
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
from .elo import elo, l7_of_aggregate, l7_of_match
from .intervals import ratio_interval, sum_interval

PR_SCALE = 500  # SPEC §3: PR = 500 × Σe / N
GNUBG_SCALE = 1000  # gnubg's mEMG rates and its Snowie figure


def _sum(keys, n, weights=None):
    if weights is None:
        return np.bincount(keys, minlength=n).astype(np.int64)
    return np.bincount(keys, weights=weights, minlength=n)


def _f(x) -> Optional[float]:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def rate(total, n, scale=PR_SCALE) -> Optional[float]:
    return None if not n else scale * float(total) / float(n)


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
    ``matches --format json`` (keys documented there)."""
    dec, rolls = sel.decisions, sel.rolls
    n_sides = 2 * sel.n_matches
    key = dec.match.astype(np.int64) * 2 + dec.player
    rkey = rolls.match.astype(np.int64) * 2 + rolls.player
    e = np.nan_to_num(dec.error, nan=0.0)
    known_e = ~np.isnan(dec.error) & (dec.beaver_take == 0)
    mpe = dec.mwc_per_emg
    cnt = counted(dec)
    chk = dec.kind == K_CHECKER
    dbl = np.isin(dec.kind, (K_NO_DOUBLE, K_DOUBLE))
    rsp = np.isin(dec.kind, (K_TAKE, K_PASS))
    ell = e * np.nan_to_num(mpe, nan=0.0)
    err, blunder = thresholds.classify(np.where(known_e, e, np.nan))

    N = _sum(key[cnt], n_sides)
    N_chk = _sum(key[cnt & chk], n_sides)
    N_dbl = _sum(key[cnt & dbl], n_sides)
    N_rsp = _sum(key[cnt & rsp], n_sides)
    E = _sum(key[cnt], n_sides, e[cnt])
    E_chk = _sum(key[cnt & chk], n_sides, e[cnt & chk])
    E_cube = E - E_chk
    E_dbl = _sum(key[cnt & dbl], n_sides, e[cnt & dbl])
    E_rsp = _sum(key[cnt & rsp], n_sides, e[cnt & rsp])
    L = _sum(key[cnt], n_sides, ell[cnt])
    L_chk = _sum(key[cnt & chk], n_sides, ell[cnt & chk])
    L_dbl = _sum(key[cnt & dbl], n_sides, ell[cnt & dbl])
    L_rsp = _sum(key[cnt & rsp], n_sides, ell[cnt & rsp])
    n_err = _sum(key[cnt & err], n_sides)
    n_blunder = _sum(key[cnt & blunder], n_sides)

    # gnubg's own way (its screen): every decision, its denominators.
    unforced = _sum(key[gnubg_unforced(dec)], n_sides)
    close = _sum(key[gnubg_close_cube(dec)], n_sides)
    g_err = gnubg_error(dec)
    g_known = ~np.isnan(g_err)
    g_e = np.nan_to_num(g_err, nan=0.0)
    E_gnubg = _sum(key[g_known], n_sides, g_e[g_known])
    L_gnubg = _sum(key[g_known], n_sides, (g_e * np.nan_to_num(mpe, nan=0.0))[g_known])
    analysed = _sum(key[g_known], n_sides)  # does this side have any analysis?

    total_moves = _sum(rolls.match, sel.n_matches)  # both players' rolls, per match
    lk = known_luck(sel)
    luck = np.nan_to_num(rolls.luck, nan=0.0)
    luck_n = _sum(rkey[lk], n_sides)
    luck_sum = _sum(rkey[lk], n_sides, luck[lk])
    luck_mwc = _sum(rkey[lk], n_sides, (luck * np.nan_to_num(rolls.mwc_per_emg, nan=0.0))[lk])

    # per (side, game) units for the intervals of one match side
    n_games = max((m.n_games for m in sel.matches), default=0) or 1
    gkey = key * n_games + dec.game
    G_N = _sum(gkey[cnt], n_sides * n_games)
    G_E = _sum(gkey[cnt], n_sides * n_games, e[cnt])
    G_L = _sum(gkey[cnt], n_sides * n_games, ell[cnt])

    out = []
    for mi, m in enumerate(sel.matches):
        money = m.is_money
        for p in (0, 1):
            s = 2 * mi + p
            units = slice(s * n_games, s * n_games + m.n_games)
            won = None if m.winner is None else (m.winner == p)
            l7 = None if money or not N[s] else l7_of_match(L[s], m.length)
            elo_d, bound = elo(l7)
            l7_ci = None
            games_n, games_e = G_N[units], G_E[units]
            played = games_n > 0  # ratio units: the games holding the side's counted decisions
            pr_ci = ratio_interval(games_e[played], games_n[played], PR_SCALE)
            if not money and N[s]:
                ci = sum_interval(G_L[units], math.sqrt(7 / m.length))
                l7_ci = None if ci is None else [100 * ci[0], 100 * ci[1]]
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
                    "decisions": int(N[s]),
                    "checker_decisions": int(N_chk[s]),
                    "double_decisions": int(N_dbl[s]),
                    "take_decisions": int(N_rsp[s]),
                    "error_emg": float(E[s]),
                    "checker_error_emg": float(E_chk[s]),
                    "cube_error_emg": float(E_cube[s]),
                    "double_error_emg": float(E_dbl[s]),
                    "take_error_emg": float(E_rsp[s]),
                    "pr": rate(E[s], N[s]),
                    "pr_ci": None if pr_ci is None else list(pr_ci),
                    "checker_pr": rate(E_chk[s], N_chk[s]),
                    "cube_pr": rate(E_cube[s], N[s] - N_chk[s]),
                    "mwc_loss": None if money else 100 * float(L[s]),
                    "checker_mwc_loss": None if money else 100 * float(L_chk[s]),
                    "cube_mwc_loss": None if money else 100 * float(L[s] - L_chk[s]),
                    "double_mwc_loss": None if money else 100 * float(L_dbl[s]),
                    "take_mwc_loss": None if money else 100 * float(L_rsp[s]),
                    "snowie_er": rate(E_gnubg[s], total_moves[mi]),
                    "errors": int(n_err[s]),
                    "blunders": int(n_blunder[s]),
                    "luck_emg": float(luck_sum[s]) if has_luck else None,
                    "luck_mwc": (None if money else 100 * float(luck_mwc[s])) if has_luck else None,
                    "luck_rolls": int(luck_n[s]),
                    "l7": None if l7 is None else 100 * l7,
                    "l7_ci": l7_ci,
                    "elo": _f(elo_d),
                    "elo_bound": bool(bound),
                    "won": won,
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
    e = np.nan_to_num(dec.error, nan=0.0)
    mpe = np.nan_to_num(dec.mwc_per_emg, nan=0.0)
    chk = dec.kind == K_CHECKER
    err, blunder = thresholds.classify(dec.error)

    N = int(cnt.sum())
    N_chk = int((cnt & chk).sum())
    E = float(e[cnt].sum())
    E_chk = float(e[cnt & chk].sum())
    money = np.array([m.is_money for m in sel.matches], dtype=bool)
    lengths = np.array([m.length for m in sel.matches], dtype=np.float64)
    M_units_N = _sum(dec.match[cnt], nm)
    M_units_E = _sum(dec.match[cnt], nm, e[cnt])
    # interval units (SPEC §7): the matches holding counted decisions of the
    # selected side(s); both sides of a match are one unit
    unit = (sel.sides.any(axis=1) if nm else np.zeros(0, dtype=bool)) & (M_units_N > 0)
    pr_ci = ratio_interval(M_units_E[unit], M_units_N[unit], PR_SCALE)

    # MWC and L₇ over match-play sides only (money has no MWC).  Every
    # selected side of a match-play match weighs √N (SPEC §5), so that with
    # a decision-type filter L₇ is the checker or cube part of the same L₇
    # (the parts add up, SPEC §14).  Nothing counted: never measured (None).
    ell = e * mpe
    mp = ~money[dec.match] if len(dec) else np.zeros(0, dtype=bool)
    L_match = _sum(dec.match[cnt & mp], nm, ell[cnt & mp])
    skey = dec.match.astype(np.int64) * 2 + dec.player
    L_side = _sum(skey[cnt & mp], 2 * nm, ell[cnt & mp])
    measured = bool((cnt & mp).any())
    picked = [(i, p) for i in range(nm) for p in (0, 1) if sel.sides[i, p] and not money[i]]
    mwc_loss = 100 * float(L_match.sum()) if measured else None
    l7 = l7_of_aggregate([L_side[2 * i + p] for i, p in picked],
                         [sel.matches[i].length for i, _ in picked]) if measured else None
    l7_ci = None
    if l7 is not None:
        # units: the match-play matches of the selected sides; both sides one unit
        mp_units = (sel.sides.any(axis=1) & ~money) & (M_units_N > 0)
        sqrtN = np.sqrt(lengths) * sel.sides.sum(axis=1)
        ci = ratio_interval(L_match[mp_units], sqrtN[mp_units], math.sqrt(7))
        l7_ci = None if ci is None else [100 * ci[0], 100 * ci[1]]
    elo_d, bound = elo(l7)

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
        "decisions": N,
        "checker_decisions": N_chk,
        "cube_decisions": N - N_chk,
        "matches": int(sel.sides.any(axis=1).sum()) if nm else 0,
        "tournaments": len(events),
        "wins": wins,
        "losses": losses,
        "error_emg": E,
        "pr": rate(E, N),
        "pr_ci": None if pr_ci is None else list(pr_ci),
        "checker_pr": rate(E_chk, N_chk),
        "cube_pr": rate(E - E_chk, N - N_chk),
        "mwc_loss": mwc_loss,
        "l7": None if l7 is None else 100 * l7,
        "l7_ci": l7_ci,
        "elo": _f(elo_d),
        "elo_bound": bool(bound),
        "snowie_er": rate(np.nan_to_num(g_err, nan=0.0)[snowie_known].sum(), total_moves)
        if snowie_known.any() else None,
        "errors": int((cnt & err).sum()),
        "blunders": int((cnt & blunder).sum()),
        "luck_emg": float(luck[lk].sum()) if lk.any() else None,
        "luck_rolls": int(lk.sum()),
        "luck_per_roll_mpt": 1000 * float(luck[lk].sum()) / int(lk.sum()) if lk.any() else None,
    }
