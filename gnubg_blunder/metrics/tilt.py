"""Tilt (SPEC §18): does a player's excess x = e − d grow after their own
blunder, after a bad roll of theirs, late in a match?

Per player, over their counted decisions with e and d known (EMG), the mean
x of a condition against the mean x of the rest, Δ = mean(condition) −
mean(rest), its interval with matches as units (SPEC §7) and a verdict from
200 decisions on each side.  An association, not a cause.  The edge rules
(docs/tilt.md):

- a window holds the player's next ``WINDOW`` (10) measured decisions of
  the same game after the event; it stops at the game's end;
- after a blunder: the blunder's own decision is not in its window (a
  blunder inside another's window is in the condition and opens its own);
- after a bad roll (luck ≤ −0.2 EMG, the roller's): the window starts after
  that roll's own play (the decisions of later records of the game);
- overlapping windows are one: a decision is in the condition once;
- the last third: the last ⌊n/3⌋ of the player's n measured decisions in a
  match of 5 points or longer; money sessions and shorter matches are in
  neither side of it (they are in both sides of the two others).

Pure functions over a :class:`Selection`; no I/O.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..ordering import lexsort_order
from ..arrays import Selection
from .counting import Thresholds, counted, kind_mask
from .intervals import MIN_UNITS, side_of_zero, symmetric_interval
from ..stash import StashKey, cached

WINDOW = 10  # K: decisions after the event
BAD_LUCK_EMG = -0.2  # a roll this unlucky or worse (the roller's luck, EMG)
MIN_MATCH_LENGTH = 5  # the last third: match play of 5 points and longer
MIN_DECISIONS = 200  # a verdict needs this many decisions on each side
NO_SPREAD_VAR = 1e-24  # Var(Δ) under (10⁻¹² EMG)², far below e's micro-EMG: no spread (float rounding)

CONDITIONS = ("after-blunder", "after-bad-roll", "late-in-match")
CONDITION_WORDS = {
    "after-blunder": f"the next {WINDOW} decisions of the game after the player's own blunder",
    "after-bad-roll": f"the next {WINDOW} decisions of the game after a roll of theirs with luck ≤ "
                      f"{BAD_LUCK_EMG:g} EMG",
    "late-in-match": f"the last third of the player's decisions in a match of {MIN_MATCH_LENGTH} points or longer",
}
VERDICT_WORDS = ("worse", "better", "no effect found")


def measured(sel: Selection) -> np.ndarray:
    """The decisions tilt reads: counted, e and d known, of the filter's
    sides (SPEC §18)."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool)
    return counted(dec) & ~np.isnan(dec.error) & ~np.isnan(dec.difficulty) & sel.decision_side_mask()


def _play_order(sel: Selection, idx: np.ndarray) -> np.ndarray:
    """``idx`` sorted by match, game, record and the store's order (a no
    double comes before the play of the same record)."""
    dec = sel.decisions
    return idx[lexsort_order((dec.match[idx], dec.game[idx], dec.seq[idx], idx))]


def _windows(n: int, group: np.ndarray, starts: np.ndarray, start_groups: np.ndarray) -> np.ndarray:
    """Positions 0..n−1 (``group``: each one's group, non-decreasing) covered
    by a window of ``WINDOW`` positions from each of ``starts`` whose
    position is in the event's group (``start_groups``), stopping at the end
    of that group."""
    if not len(starts) or not n:
        return np.zeros(n, dtype=bool)
    ok = starts < n
    starts, start_groups = starts[ok], start_groups[ok]
    starts = starts[group[starts] == start_groups]
    ends = np.minimum(starts + WINDOW, np.searchsorted(group, group[starts], side="right"))
    marks = np.zeros(n + 1, dtype=np.int64)
    np.add.at(marks, starts, 1)
    np.add.at(marks, ends, -1)
    return np.cumsum(marks[:n]) > 0


CONDITION_MASKS: StashKey[dict] = StashKey("tilt masks")  # .at(thresholds)


def condition_masks(sel: Selection, thresholds: Thresholds = Thresholds()) -> dict:
    """{condition: (population, in_condition)}: two bool masks over the
    decisions (read-only); the rest is ``population & ~in_condition``
    (SPEC §18, the edge rules above).  Once per selection and thresholds:
    the report's tilt section asks for them once for its table and once
    for each condition's list."""
    return cached(sel, CONDITION_MASKS.at(thresholds), lambda: _condition_masks(sel, thresholds))


# the matches whose decisions :func:`_condition_masks` works out at a time (every rule stays within a match)
MATCH_BLOCK = 1000


def _condition_masks(sel: Selection, thresholds: Thresholds) -> dict:
    dec = sel.decisions
    base = measured(sel)
    n_all = len(dec)
    masks = {name: (np.zeros(n_all, dtype=bool), np.zeros(n_all, dtype=bool)) for name in CONDITIONS}
    if n_all:
        rolls = sel.rolls
        # the radixes of the (match, game, player) and record keys: above every game and record
        n_games = int(max(dec.game.max(initial=0), rolls.game.max(initial=0) if len(rolls) else 0)) + 1
        n_seq = int(max(dec.seq.max(initial=0), rolls.seq.max(initial=0) if len(rolls) else 0)) + 2
        # the bad rolls (b): the roller's, of a known record
        if len(rolls):
            luck = np.asarray(rolls.luck, dtype=np.float64)
            with np.errstate(invalid="ignore"):
                bad = (luck <= BAD_LUCK_EMG) & (np.asarray(rolls.seq) >= 0) & sel.roll_side_mask()
            bad_rolls = np.nonzero(bad)[0]
            del luck, bad
        else:
            bad_rolls = np.zeros(0, dtype=np.int64)
        bad_match = np.asarray(rolls.match[bad_rolls], np.int64) if len(bad_rolls) else np.zeros(0, dtype=np.int64)
        lengths = np.array([m.length for m in sel.matches], dtype=np.int64)
        match = dec.match
        # every rule reads one match's decisions and rolls alone: the matches a block at a time when the
        # decisions are in match order (each block's temporaries a tenth of the selection's), else at once
        if n_all > 1 and (np.diff(match) < 0).any():
            blocks = [(0, n_all, 0, sel.n_matches)]
        else:
            cuts = list(range(0, sel.n_matches, MATCH_BLOCK)) + [sel.n_matches]
            at = np.searchsorted(match, cuts, side="left").tolist()
            blocks = [(at[k], at[k + 1], cuts[k], cuts[k + 1]) for k in range(len(cuts) - 1)]
        for lo, hi, m0, m1 in blocks:
            idx = np.nonzero(base[lo:hi])[0] + lo
            if not len(idx):
                continue
            r = bad_rolls[(bad_match >= m0) & (bad_match < m1)] if len(bad_rolls) else bad_rolls
            _block_masks(sel, thresholds, idx, r, n_games, n_seq, lengths, masks)
    for pop_mask, cond_mask in masks.values():
        pop_mask.flags.writeable = cond_mask.flags.writeable = False
    return masks


def _block_masks(sel: Selection, thresholds: Thresholds, idx: np.ndarray, r: np.ndarray, n_games: int,
                 n_seq: int, lengths: np.ndarray, masks: dict) -> None:
    """The conditions of the measured decisions ``idx`` (whole matches),
    with the bad rolls ``r`` of those matches, marked in ``masks``."""
    dec = sel.decisions
    # one player's decisions of one game together, in play order (a window counts only the player's own)
    order = idx[lexsort_order((dec.match[idx], dec.game[idx], dec.player[idx], dec.seq[idx], idx))]
    del idx
    n = len(order)
    # the columns in that order are taken where each rule needs them (not four 8-byte copies held throughout)
    group = (np.asarray(dec.match[order], np.int64) * n_games + dec.game[order]) * 2 + dec.player[order]
    # one player's decisions in one game: non-decreasing

    # (a) after a blunder: the positions after each blunder's own
    _err, blunder = thresholds.classify(dec.error[order])
    at = np.nonzero(blunder)[0]
    after_blunder = _windows(n, group, at + 1, group[at])
    del _err, blunder, at

    # (b) after a bad roll: the first decision of a later record of the roller's game
    rolls = sel.rolls
    if len(r):
        r_group = (np.asarray(rolls.match[r], np.int64) * n_games + np.asarray(rolls.game[r], np.int64)) * 2 \
            + np.asarray(rolls.player[r], np.int64)
        key = group * n_seq + np.asarray(dec.seq[order], np.int64)
        starts = np.searchsorted(key, r_group * n_seq + np.asarray(rolls.seq[r], np.int64), side="right")
        after_roll = _windows(n, group, starts, r_group)
        del key, starts
    else:
        after_roll = np.zeros(n, dtype=bool)

    # (c) the last third of the player's decisions in a match of 5 points or longer
    del group
    match = dec.match[order]
    long_match = lengths[match] >= MIN_MATCH_LENGTH
    # one player's decisions in one match, in play order within it (4 bytes a key: 2 × 10,000 sides)
    side = np.asarray(match, np.int32) * 2 + dec.player[order]
    del match
    by_side = np.argsort(side, kind="stable")
    sorted_side = side[by_side]
    first = np.searchsorted(sorted_side, sorted_side, side="left")
    rank = np.empty(n, dtype=np.int64)
    rank[by_side] = np.arange(n) - first
    count = np.bincount(side, minlength=int(side.max(initial=0)) + 1)[side]
    late = long_match & (3 * rank >= 2 * count)

    for name, population, cond in (("after-blunder", None, after_blunder),
                                   ("after-bad-roll", None, after_roll),
                                   ("late-in-match", long_match, late)):
        pop_mask, cond_mask = masks[name]
        if population is None:
            pop_mask[order] = True
            cond_mask[order[cond]] = True
        else:
            pop_mask[order[population]] = True
            cond_mask[order[population & cond]] = True


def difference_interval(units: np.ndarray, x: np.ndarray, in_cond: np.ndarray) -> tuple:
    """Δ = Σx_c/n_c − Σx_r/n_r over decisions grouped in ``units`` (matches)
    and its interval (SPEC §7's ratio estimator, linearised for a difference
    of two ratios over the same units): z_u = (X_cu − R_c n_cu)/N_c −
    (X_ru − R_r n_ru)/N_r, Var = G/(G−1) Σ z_u², Δ ± 1.96 √Var, not floored;
    none under 3 units or without spread (Var under ``NO_SPREAD_VAR``).  Returns (Δ, interval, G) in the
    unit of x; Δ None when a side is empty."""
    _, u = np.unique(units, return_inverse=True)
    g = int(u.max()) + 1 if len(u) else 0
    cond, rest = in_cond, ~in_cond
    n_c, n_r = int(cond.sum()), int(rest.sum())
    if not n_c or not n_r:
        return None, None, g
    xc = np.bincount(u, weights=np.where(cond, x, 0.0), minlength=g)
    nc = np.bincount(u, weights=cond.astype(np.float64), minlength=g)
    xr = np.bincount(u, weights=np.where(rest, x, 0.0), minlength=g)
    nr = np.bincount(u, weights=rest.astype(np.float64), minlength=g)
    r_c, r_r = xc.sum() / n_c, xr.sum() / n_r
    delta = float(r_c - r_r)
    if g < MIN_UNITS:
        return delta, None, g
    z = (xc - r_c * nc) / n_c - (xr - r_r * nr) / n_r
    var = g / (g - 1) * float((z ** 2).sum())
    if var < NO_SPREAD_VAR:  # the float's rounding of units all alike is no spread
        var = 0.0
    return delta, symmetric_interval(delta, var, units=g), g


def verdict(n_condition: int, n_rest: int, ci) -> tuple:
    """(verdict, why): "worse" (lower bound > 0), "better" (upper bound < 0),
    "no effect found"; None with the reason under 200 decisions on a side or
    without an interval (SPEC §18)."""
    if not n_condition:
        return None, "no decision in the condition"
    if min(n_condition, n_rest) < MIN_DECISIONS:
        return None, f"fewer than {MIN_DECISIONS} decisions on a side"
    if ci is None:
        return None, "no interval"
    return side_of_zero(ci, "worse", "better", "no effect found"), None


def player_codes(sel: Selection) -> tuple:
    """(each decision's player as an index into ``names``, ``names``): the
    players as the filter knows them (aliases merged), each name once, so
    that a per-player mask compares integers, not 1.6 M strings."""
    dec = sel.decisions
    table = [list(m.names or m.players) for m in sel.matches] or [["", ""]]
    names = sorted({name for pair in table for name in pair}, key=lambda n: (n is None, str(n)))
    code_of = {name: k for k, name in enumerate(names)}
    codes = np.array([[code_of[a], code_of[b]] for a, b in table], dtype=np.int32)
    return (codes[dec.match, dec.player] if len(dec) else np.zeros(0, dtype=np.int32)), names


def tilt(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all") -> dict:
    """Per player and condition: N of each side, the means of x and Δ in
    mpt (EMG × 1000), Δ's interval (matches as units), the verdict (SPEC
    §18).  The windows are counted over every measured decision; the
    decision type narrows the decisions whose x is compared."""
    dec = sel.decisions
    masks = condition_masks(sel, thresholds)
    base = measured(sel)
    of_type = base & (kind_mask(dec, decision_type) if len(dec) else base)
    codes, names = player_codes(sel)
    x = np.where(base, dec.error - dec.difficulty, 0.0) if len(dec) else np.zeros(0)
    players = []
    counts = np.bincount(codes[of_type], minlength=len(names))
    for code in sorted(np.nonzero(counts)[0].tolist(), key=lambda k: (-int(counts[k]), names[k].lower())):
        name = names[code]
        mine = of_type & (codes == code)
        rows = []
        for cond in CONDITIONS:
            population, in_cond = masks[cond]
            keep = mine & population
            idx = np.nonzero(keep)[0]
            c = in_cond[idx]
            delta, ci, g = difference_interval(np.asarray(dec.match[idx]), x[idx], c)
            n_c, n_r = int(c.sum()), int((~c).sum())
            word, why = verdict(n_c, n_r, ci)
            rows.append({
                "condition": cond,
                "n_condition": n_c,
                "n_rest": n_r,
                "matches": g,
                "mean_condition_mpt": float(x[idx][c].mean() * 1000) if n_c else None,
                "mean_rest_mpt": float(x[idx][~c].mean() * 1000) if n_r else None,
                "delta_mpt": None if delta is None else delta * 1000,
                "delta_ci": None if ci is None else [ci[0] * 1000, ci[1] * 1000],
                "verdict": word,
                "why": why,
            })
        players.append({"player": name, "decisions": int(mine.sum()), "conditions": rows})
    return {"players": players}


def condition_decisions(sel: Selection, condition: str, thresholds: Thresholds = Thresholds(),
                        decision_type: str = "all", player: Optional[str] = None) -> np.ndarray:
    """The decisions behind a condition, in play order (``player``: one
    player's, aliases merged as the filter knows them)."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r} ({', '.join(CONDITIONS)})")
    dec = sel.decisions
    _population, in_cond = condition_masks(sel, thresholds)[condition]
    keep = in_cond & (kind_mask(dec, decision_type) if len(dec) else in_cond)
    if player is not None:
        codes, names = player_codes(sel)
        keep &= np.isin(codes, [k for k, n in enumerate(names) if str(n).lower() == player.lower()])
    return _play_order(sel, np.nonzero(keep)[0])
