"""Analysers' agreement (SPEC §17): two whole-match analyses of the same
matches (an XG file and its gnubg re-analysis, or gnubg at two depths),
their decisions paired, the verdicts at the error threshold compared.

Pure functions over two :class:`Selection` of the same matches in the same
order, one analysis each (the store's ``select(..., choose=...)``): no SQL,
no I/O.  docs/agreement.md states the rules in plain English.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..model import CHECKER
from ..arrays import KIND_CODES, Selection, position_ids_at
from .counting import Thresholds, counted
from .intervals import MIN_UNITS, ratio_interval, symmetric_interval
from .kernel import PR_SCALE, rate, side_mask

K_CHECKER = KIND_CODES[CHECKER]
TOP_DISAGREEMENTS = 10

# why a decision counted under one analysis has no pair (the keys of ``unpaired``)
UNPAIRED_REASONS = {
    "only_in_first": "counted under the first analysis, absent from the second",
    "only_in_second": "counted under the second analysis, absent from the first",
    "counted_in_first_only": "in both, counted (e known, not forced, in the no-double window) under the first only",
    "counted_in_second_only": "in both, counted under the second only",
}


def first_and_second(stored: list, engine: Optional[str] = None, min_depth: Optional[float] = None) -> tuple:
    """SPEC §17: which two of a match's stored analyses are compared: the
    first is the one the match's figures use (the filter's engine and depth,
    else the deepest, the first imported among equals), the second the
    deepest of the others (the first imported among equals).  (None, None)
    for a match with fewer than two analyses."""
    if len(stored) < 2:
        return None, None

    def deepest(items):
        return max(items, key=lambda a: (a["depth"] if a["depth"] is not None else -1, -a["id"])) if items else None

    first = deepest([a for a in stored
                     if (engine is None or a["engine"] == engine)
                     and (min_depth is None or (a["depth"] is not None and a["depth"] >= min_depth))])
    if first is None:
        return None, None
    return first, deepest([a for a in stored if a["id"] != first["id"]])


@dataclass
class Pairs:
    """Decisions paired across two selections: ``first[k]`` and
    ``second[k]`` are the indexes of pair k's decision in each (counted
    under both); ``unpaired`` counts the decisions counted under one
    analysis only, by reason (:data:`UNPAIRED_REASONS`)."""

    first: np.ndarray
    second: np.ndarray
    unpaired: dict


def _keys(sel: Selection, rows: np.ndarray) -> list:
    """Each decision's pairing key: match, game, decider, kind, position
    before the decision and dice, with its occurrence among equal keys (a
    position met twice in a game is two decisions)."""
    dec = sel.decisions
    pos = position_ids_at(sel, rows)
    match, game, player, kind, dice = (np.asarray(getattr(dec, c))[rows] for c in
                                       ("match", "game", "player", "kind", "dice"))
    seen: dict = {}
    out = []
    for k in range(len(rows)):
        key = (int(match[k]), int(game[k]), int(player[k]), int(kind[k]), pos[k], int(dice[k]))
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append(key + (n,))
    return out


def pair_decisions(first: Selection, second: Selection) -> Pairs:
    """SPEC §17: decisions paired by game, move and position (the match,
    game, decider, kind, position and dice, in play order), each counted
    under both analyses (§2) on the filter's sides."""
    if [m.id for m in first.matches] != [m.id for m in second.matches]:
        raise ValueError("the two selections must hold the same matches in the same order")
    rows = []
    for sel in (first, second):
        n = len(sel.decisions)
        idx = np.arange(n)
        in_side = side_mask(sel) if n else np.zeros(0, dtype=bool)
        rows.append((idx[in_side], counted(sel.decisions)[in_side] if n else np.zeros(0, dtype=bool)))
    key_a = dict(zip(_keys(first, rows[0][0]), zip(rows[0][0].tolist(), rows[0][1].tolist())))
    key_b = dict(zip(_keys(second, rows[1][0]), zip(rows[1][0].tolist(), rows[1][1].tolist())))
    unpaired = {reason: 0 for reason in UNPAIRED_REASONS}
    pa, pb = [], []
    for key, (i, ok_a) in key_a.items():
        other = key_b.get(key)
        if other is None:
            unpaired["only_in_first"] += int(ok_a)
            continue
        j, ok_b = other
        if ok_a and ok_b:
            pa.append(i)
            pb.append(j)
        elif ok_a:
            unpaired["counted_in_first_only"] += 1
        elif ok_b:
            unpaired["counted_in_second_only"] += 1
    unpaired["only_in_second"] = sum(int(ok) for key, (_j, ok) in key_b.items() if key not in key_a)
    order = np.argsort(np.asarray(pa, dtype=np.int64), kind="stable")
    return Pairs(np.asarray(pa, dtype=np.int64)[order], np.asarray(pb, dtype=np.int64)[order], unpaired)


def cohen_kappa(a, b) -> dict:
    """Cohen's κ of two boolean verdicts over the same items:
    κ = (p_o − p_e) / (1 − p_e), p_o the share agreeing, p_e = p_a·p_b +
    (1 − p_a)(1 − p_b) from each verdict's share of True.  None when a
    verdict is constant (every item judged alike by one analysis: nothing
    to agree on beyond chance), with ``undefined`` saying which."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    n = len(a)
    table = {"both": int((a & b).sum()), "first_only": int((a & ~b).sum()), "second_only": int((~a & b).sum()),
             "neither": int((~a & ~b).sum())}
    out = {"n": n, "table": table, "agreement": None, "kappa": None, "undefined": None}
    if not n:
        out["undefined"] = "no paired decision"
        return out
    p_o = (table["both"] + table["neither"]) / n
    out["agreement"] = p_o
    p_a, p_b = (table["both"] + table["first_only"]) / n, (table["both"] + table["second_only"]) / n
    constant = [name for name, p in (("first", p_a), ("second", p_b)) if p in (0.0, 1.0)]
    if constant:
        out["undefined"] = constant
        return out
    p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
    out["kappa"] = (p_o - p_e) / (1 - p_e)
    return out


def _paired_difference_interval(diff_units, n_units) -> Optional[list]:
    """SPEC §7 for a paired difference D = Σ(e₂ − e₁)/Σn over G units:
    Var = G/(G−1) · Σ(d_u − D·n_u)² / (Σn_u)², D ± 1.96 √Var (not floored:
    a difference may be negative), × 500; none under 3 units or without
    spread."""
    d = np.asarray(diff_units, dtype=np.float64)
    n = np.asarray(n_units, dtype=np.float64)
    g = len(d)
    if g < MIN_UNITS or not n.sum() > 0:
        return None
    r = d.sum() / n.sum()
    var = g / (g - 1) * ((d - r * n) ** 2).sum() / n.sum() ** 2
    return symmetric_interval(PR_SCALE * r, PR_SCALE ** 2 * var, g)


def _rates(e_first, e_second, units) -> dict:
    """PR under each analysis over the same decisions, the paired difference
    (second − first) and their intervals, ``units`` each decision's unit."""
    n = len(e_first)
    keys, inverse = np.unique(units, return_inverse=True) if n else (np.zeros(0), np.zeros(0, dtype=np.int64))
    g = len(keys)
    n_u = np.bincount(inverse, minlength=g).astype(np.float64)
    ea_u = np.bincount(inverse, weights=e_first, minlength=g)
    eb_u = np.bincount(inverse, weights=e_second, minlength=g)
    pr_a, pr_b = rate(e_first.sum(), n), rate(e_second.sum(), n)
    ci_a = ratio_interval(ea_u, n_u, PR_SCALE) if g else None
    ci_b = ratio_interval(eb_u, n_u, PR_SCALE) if g else None
    return {
        "decisions": n, "units": g,
        "pr_first": pr_a, "pr_first_ci": list(ci_a) if ci_a else None,
        "pr_second": pr_b, "pr_second_ci": list(ci_b) if ci_b else None,
        "difference": None if pr_a is None else pr_b - pr_a,
        "difference_ci": _paired_difference_interval(eb_u - ea_u, n_u) if g else None,
    }


def agreement(first: Selection, second: Selection, thresholds: Thresholds = Thresholds(),
              top: int = TOP_DISAGREEMENTS) -> dict:
    """SPEC §17 over two selections of the same matches (one analysis
    each): ``pairs`` (:class:`Pairs`), ``units`` ("games" for one match,
    else "matches"), the verdict table with the share agreeing and Cohen's κ
    (:func:`cohen_kappa`), the rates (PR under each, the paired difference,
    intervals) for all, checker and cube decisions, and ``top``: the pair
    indexes (into ``pairs``) of the largest |e₂ − e₁|, largest first
    (``delta`` = e₂ − e₁ per pair)."""
    pairs = pair_decisions(first, second)
    e_a = np.asarray(first.decisions.error, dtype=np.float64)[pairs.first] if len(pairs.first) else np.zeros(0)
    e_b = np.asarray(second.decisions.error, dtype=np.float64)[pairs.second] if len(pairs.second) else np.zeros(0)
    err_a, _ = thresholds.classify(e_a)
    err_b, _ = thresholds.classify(e_b)
    one_match = first.n_matches == 1
    dec = first.decisions
    if len(pairs.first):
        units = (np.asarray(dec.game)[pairs.first] if one_match else np.asarray(dec.match)[pairs.first])
        checker = np.asarray(dec.kind)[pairs.first] == K_CHECKER
    else:
        units, checker = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    rates = {name: _rates(e_a[m], e_b[m], units[m])
             for name, m in (("all", np.ones(len(e_a), dtype=bool)), ("checker", checker), ("cube", ~checker))}
    gap = np.abs(e_b - e_a)
    # largest |Δe| first; among equals, play order
    order = np.lexsort((np.arange(len(gap)), -gap))
    top_pairs = [int(k) for k in order if gap[k] > 0][:top] if top else [int(k) for k in order if gap[k] > 0]
    return {
        "pairs": pairs, "units": "games" if one_match else "matches",
        "errors_first": err_a, "errors_second": err_b, "e_first": e_a, "e_second": e_b, "delta": e_b - e_a,
        "verdicts": cohen_kappa(err_a, err_b),
        "rates": rates, "top": top_pairs,
    }
