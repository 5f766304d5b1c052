"""The match review (SPEC §8): the three decisions to review, the
luck-adjusted result and the pace (hasty vs considered), per side of one
match.

Pure functions over a :class:`Selection` (no SQL, no I/O).  MWC figures are
returned in percentage points of MWC (like gnubg's "Luck adjusted result":
-18.57 means -18.57 %), EMG figures in EMG.

Difficulty d is read from the decision arrays' ``difficulty`` column (EMG)
where the arrays have one; without it, or where it is NaN, d is unknown and
counts 0 in the ranking (SPEC §8).  Durations likewise from ``duration``
(seconds).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..units import decision_figure
from ..arrays import KIND_NAMES, Selection
from .counting import K_CHECKER, Thresholds, counted
from .figures import known_luck
from .kernel import PR_SCALE, classified, is_money, mwc_loss_of, rate
from ..met import default_met

REVIEW_SIZE = 3
KEY_DECIMALS = 12  # ℓ − d compared to 1e-12 (of MWC, or EMG for money)

NO_LUCK_REASONS = {
    "money": "money session: no match winning chances",
    "unfinished": "unfinished match: no final result",
    "no_luck": "no luck in the analysis",
}
NO_DURATIONS = "no durations"


def _column(dec, name: str) -> np.ndarray:
    """An optional float column of the decision arrays (NaN where absent)."""
    col = getattr(dec, name, None)
    if col is None:
        return np.full(len(dec), np.nan)
    return np.asarray(col, dtype=np.float64)


def difficulty_emg(sel: Selection) -> np.ndarray:
    """d of every decision in EMG; NaN where unknown (or not stored)."""
    return _column(sel.decisions, "difficulty")


def durations(sel: Selection) -> np.ndarray:
    """Seconds spent on every decision; NaN where the source has none."""
    return _column(sel.decisions, "duration")


def review_indices(sel: Selection, match: int, player: int, thresholds: Thresholds = Thresholds(),
                   size: int = REVIEW_SIZE) -> list:
    """Indices (into ``sel.decisions``) of up to ``size`` decisions to
    review for side ``player`` of match number ``match`` of the selection:
    the side's counted errors (e ≥ error threshold) with ℓ known and
    ℓ − d > 0, ℓ − d descending (unknown d as 0), ties by larger ℓ, then
    match order.  Money: the same on e − d in EMG."""
    dec = sel.decisions
    if not len(dec):
        return []
    money = is_money(sel.matches[match].length)
    err, _ = classified(sel, thresholds)
    mine = (dec.match == match) & (dec.player == player) & counted(dec) & err
    d = np.nan_to_num(difficulty_emg(sel), nan=0.0)
    if money:
        cost = dec.error
        key = dec.error - d
    else:
        factor = dec.mwc_per_emg
        mine &= ~np.isnan(factor)
        cost = dec.error * factor
        key = cost - d * factor
    key = np.round(key, KEY_DECIMALS)  # ties are ties, not float noise
    mine &= key > 0
    idx = np.flatnonzero(mine)
    if not len(idx):
        return []
    # match order = (game, seq); lexsort sorts by the last key first
    order = np.lexsort((dec.seq[idx], dec.game[idx], -cost[idx], -key[idx]))
    return [int(i) for i in idx[order][:size]]


def review_record(sel: Selection, i: int) -> dict:
    """What the review shows of decision ``i`` (played and best actions are
    the store's: the view adds them): ``row_id``, ``position_id``, ``game``
    and ``move`` (from 1), ``kind``, ``error_emg``, ``mwc_loss`` (pp, None
    for money), ``difficulty`` (pp of MWC, None for money or unknown),
    ``difficulty_emg`` (None when unknown), ``cube_value``, ``dice``."""
    dec = sel.decisions
    money = is_money(sel.matches[int(dec.match[i])].length)
    e = float(dec.error[i])
    factor = float(dec.mwc_per_emg[i])
    d = float(difficulty_emg(sel)[i])
    pos = int(dec.position[i])
    dice = int(dec.dice[i])
    return {
        "row_id": int(dec.row_id[i]),
        "position_id": sel.positions[pos] if 0 <= pos < len(sel.positions) else None,
        "game": int(dec.game[i]) + 1,
        "move": int(dec.seq[i]) + 1,
        "kind": KIND_NAMES[int(dec.kind[i])],
        "error_emg": e,
        "mwc_loss": None if money or math.isnan(factor) else decision_figure(e * factor, 100),
        "difficulty": None if money or math.isnan(factor) else decision_figure(d * factor, 100),
        "difficulty_emg": decision_figure(d),
        "cube_value": int(dec.cube_value[i]),
        "dice": None if dice < 0 else [dice // 10, dice % 10],
    }


def starting_mwc(sel: Selection, match: int, player: int) -> float:
    """MWC₀ of ``player`` at the match's starting score (0.5 at 0-0)."""
    m = sel.matches[match]
    if m.start_score is None:
        return 0.5
    s = m.start_score
    own, opp = (s[0], s[1]) if player == 0 else (s[1], s[0])
    if own == 0 and opp == 0:
        return 0.5

    return float(default_met().mwc(m.length - own, m.length - opp))


LOST_TO_THE_DICE, LOST_BY_PLAY = "lost to the dice", "lost by play"
WON_BY_THE_DICE, WON_BY_PLAY = "won by the dice", "won by play"


def luck_reading(won: bool, a: float) -> str:
    """The luck-adjusted result A in words (SPEC §8, seed 000 §8): a lost
    match with A > 0 was lost to the dice, with A < 0 lost by play; a won
    match with A < 0 was won by the dice, with A > 0 won by play.  A = 0
    (to 1e-12 of a % point: float noise) says the play was even, so the
    dice made the result: "lost to the dice" / "won by the dice"."""
    a = round(a, KEY_DECIMALS)
    if won:
        return WON_BY_PLAY if a > 0 else WON_BY_THE_DICE
    return LOST_BY_PLAY if a < 0 else LOST_TO_THE_DICE


def luck_adjusted(sel: Selection, match: int) -> list:
    """Per side (player 0, 1) of match number ``match``: ``luck_adjusted``
    A = 100 × [(outcome − MWC₀) − (Σ own luck − Σ opponent's luck, in
    MWC)], ``luck_adjusted_reason`` (None, or why there is no A),
    ``luck_reading`` (A in words, :func:`luck_reading`; None without A),
    ``error_difference`` 100 × (L_opp − L_own) over counted decisions
    (None for money), ``luck_coverage`` (rolls with luck / rolls played,
    None without rolls), ``luck_rolls``, ``rolls``."""
    m = sel.matches[match]
    money = is_money(m.length)
    rolls, dec = sel.rolls, sel.decisions
    in_match = rolls.match == match
    lk = known_luck(sel) & in_match
    luck_mwc = np.zeros(2)
    n_rolls, n_luck = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    for p in (0, 1):
        side = rolls.player == p
        n_rolls[p] = int((in_match & side).sum())
        known = lk & side
        n_luck[p] = int(known.sum())
        luck_mwc[p] = float((rolls.luck[known] * rolls.mwc_per_emg[known]).sum()) if known.any() else 0.0
    ell = mwc_loss_of(sel)
    cnt = counted(dec) & (dec.match == match) if len(dec) else np.zeros(0, dtype=bool)
    L = [float(np.nansum(ell[cnt & (dec.player == p)])) for p in (0, 1)]
    factor_known = [bool((~np.isnan(rolls.mwc_per_emg[lk & (rolls.player == p)])).all()) for p in (0, 1)]
    out = []
    for p in (0, 1):
        reason = None
        if money:
            reason = "money"
        elif m.winner is None:
            reason = "unfinished"
        elif n_luck[p] == 0 or n_luck[1 - p] == 0 or not (factor_known[0] and factor_known[1]):
            reason = "no_luck"
        value = None
        if reason is None:
            outcome = 1.0 if m.winner == p else 0.0
            value = 100 * ((outcome - starting_mwc(sel, match, p)) - (luck_mwc[p] - luck_mwc[1 - p]))
        out.append({
            "luck_adjusted": value,
            "luck_adjusted_reason": None if reason is None else NO_LUCK_REASONS[reason],
            "luck_reading": None if value is None else luck_reading(m.winner == p, value),
            "error_difference": None if money else 100 * (L[1 - p] - L[p]),
            "luck_coverage": None if not n_rolls[p] else float(n_luck[p]) / float(n_rolls[p]),
            "luck_rolls": int(n_luck[p]),
            "rolls": int(n_rolls[p]),
        })
    return out


def pace(sel: Selection, match: int, player: int) -> Optional[dict]:
    """Hasty vs considered (SPEC §8) for one side: per type (checker, cube)
    the median duration of the side's counted decisions with a duration,
    and the count and PR of those below the median (hasty) and at or above
    it (considered).  None when no decision of the side has a duration."""
    dec = sel.decisions
    if not len(dec):
        return None
    dur = durations(sel)
    mine = (dec.match == match) & (dec.player == player) & counted(dec) & ~np.isnan(dur)
    if not mine.any():
        return None
    out = {}
    for name, part in (("checker", dec.kind == K_CHECKER), ("cube", dec.kind != K_CHECKER)):
        sel_mask = mine & part
        if not sel_mask.any():
            out[name] = None
            continue
        median = float(np.median(dur[sel_mask]))
        hasty = sel_mask & (dur < median)
        considered = sel_mask & (dur >= median)
        out[name] = {
            "median_s": median,
            "hasty": {"n": int(hasty.sum()), "pr": rate(dec.error[hasty].sum(), int(hasty.sum()), PR_SCALE)},
            "considered": {"n": int(considered.sum()),
                           "pr": rate(dec.error[considered].sum(), int(considered.sum()), PR_SCALE)},
        }
    return out


def transcript(sel: Selection, match: int) -> list:
    """Every decision of match number ``match`` in match order (game, move):
    ``index`` (into ``sel.decisions``), ``player`` (0/1), ``counted``,
    ``error_emg`` (None unknown), ``mwc_loss`` and ``difficulty`` (pp, None
    for money or unknown), ``difficulty_emg``, and the running sums of each
    side over counted decisions: ``cum_mwc_loss`` [side 0, side 1] (pp, None
    for money) and ``cum_error_emg``."""
    dec = sel.decisions
    if not len(dec):
        return []
    money = is_money(sel.matches[match].length)
    idx = np.flatnonzero(dec.match == match)
    idx = idx[np.lexsort((dec.seq[idx], dec.game[idx]))]
    cnt = counted(dec)
    d_all = difficulty_emg(sel)
    cum_l, cum_e = [0.0, 0.0], [0.0, 0.0]
    out = []
    for i in idx:
        i = int(i)
        p = int(dec.player[i])
        e, factor, d = float(dec.error[i]), float(dec.mwc_per_emg[i]), float(d_all[i])
        ell = None if money or math.isnan(factor) else decision_figure(e * factor, 100)
        if cnt[i]:
            cum_e[p] += e
            cum_l[p] += 0.0 if ell is None else ell
        dice = int(dec.dice[i])
        out.append({
            "index": i,
            "game": int(dec.game[i]) + 1,
            "move": int(dec.seq[i]) + 1,
            "player": p,
            "kind": KIND_NAMES[int(dec.kind[i])],
            "dice": None if dice < 0 else [dice // 10, dice % 10],
            "counted": bool(cnt[i]),
            "error_emg": None if math.isnan(e) else e,
            "mwc_loss": ell,
            "difficulty": None if money or math.isnan(factor) else decision_figure(d * factor, 100),
            "difficulty_emg": decision_figure(d),
            "cum_mwc_loss": None if money else list(cum_l),
            "cum_error_emg": list(cum_e),
        })
    return out
