"""The depth check (SPEC §16, docs/verify.md): which errors to evaluate
again, what a deeper evaluation says of each (confirmed, reduced,
reversed), and the study half's decisions at their deepest evaluation.

Pure functions over arrays and plain values: no SQL, no I/O, no gnubg.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..arrays import DecisionArrays, Selection
from .counting import Thresholds, millipoints
from .groups import base_mask
from .kernel import classified
from .study_cost import excess_terms
from .intervals import ratio_interval

CONFIRMED, REDUCED, REVERSED = "confirmed", "reduced", "reversed"
VERDICTS = (CONFIRMED, REDUCED, REVERSED)


def default_plies(stored_depth: Optional[float]) -> int:
    """SPEC §16: the stored depth + 2, at least 2 (a rollout or an unknown
    depth: 2 more than gnubg's 0-ply, i.e. 2)."""
    if stored_depth is None or not np.isfinite(stored_depth) or stored_depth >= 100:
        return 2
    return max(2, int(stored_depth) + 2)


def costliest_errors(sel: Selection, thresholds: Thresholds, decision_type: str, metric, top: int) -> np.ndarray:
    """Indices (into ``sel.decisions``) of the ``top`` counted errors of the
    filter's side(s) with the largest study cost (SPEC §9's loss − d under
    ``metric``), largest first; errors whose cost is unknown (money under
    mwc) are left out.  Ties: the earlier match, game and move first."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=np.int64)
    err, _blunder = classified(sel, thresholds)
    cost = excess_terms(sel, metric)
    keep = np.flatnonzero(base_mask(sel, decision_type) & err & ~np.isnan(cost))
    order = np.lexsort((dec.seq[keep], dec.game[keep], dec.match[keep], -cost[keep]))
    return keep[order[:max(0, int(top))]]


def is_error(e: Optional[float], thresholds: Thresholds) -> bool:
    """e reaches the error threshold (SPEC §3: rounded to the millipoint)."""
    if e is None or not np.isfinite(e):
        return False
    return bool(thresholds.classify(np.array([e]))[0][0])


def verdict(first_cost: float, deep_error: Optional[float], deep_cost: Optional[float],
            thresholds: Thresholds) -> Optional[str]:
    """SPEC §16, exclusive: reversed (the deeper e below the error
    threshold), reduced (still an error, its cost below half the first
    cost), confirmed (still an error, at least half the first cost).  None
    when the deeper evaluation gave no error."""
    if deep_error is None or not np.isfinite(deep_error):
        return None
    if not is_error(deep_error, thresholds):
        return REVERSED
    if deep_cost is not None and np.isfinite(deep_cost) and deep_cost < first_cost / 2:
        return REDUCED
    return CONFIRMED


def checker_outcome(plays: list, plies: int, played_after: str) -> Optional[dict]:
    """A checker play's deeper evaluation from gnubg's list (``plays``:
    dicts move, equity, plies, probs, after): the plays evaluated at
    ``plies`` first, best first, then the rest as gnubg listed them; e
    against the best of those evaluated at ``plies`` (the deeper
    analysis' own best, SPEC §16).  None when the played move is not
    among the plays evaluated at ``plies``."""
    deep = sorted((p for p in plays if p["plies"] == plies), key=lambda p: -p["equity"])
    rest = [p for p in plays if p["plies"] != plies]
    ordered = deep + rest
    idx = next((k for k, p in enumerate(deep) if p["after"] == played_after), None)
    if idx is None or not deep:
        return None
    error = max(0.0, deep[0]["equity"] - deep[idx]["equity"])
    return {"plays": ordered, "played_index": idx, "error": error, "best_move": deep[0]["move"]}


def rates(first: np.ndarray, deep: np.ndarray, units: np.ndarray) -> dict:
    """PR (SPEC §3: 500 × Σe / N) of the verified decisions at the first
    and the deeper depth, each with its interval (SPEC §7, the matches as
    units: ``units`` a match index a decision)."""
    out = {}
    for name, e in (("first", first), ("deep", deep)):
        e = np.asarray(e, dtype=np.float64)
        n = len(e)
        if not n:
            out[name] = {"pr": None, "ci": None, "decisions": 0}
            continue
        u, inv = np.unique(np.asarray(units), return_inverse=True)
        e_u = np.bincount(inv, weights=e, minlength=len(u))
        n_u = np.bincount(inv, minlength=len(u)).astype(np.float64)
        ci = ratio_interval(e_u, n_u, scale=500.0) if len(u) >= 3 else None
        out[name] = {"pr": 500.0 * float(e.sum()) / n, "ci": list(ci) if ci else None, "decisions": n,
                     "matches": int(len(u))}
    return out


# -- the study half at each decision's deepest evaluation -----------------------------------

OVERLAID = ("error", "nd", "dt", "dp", "difficulty", "difficulty_truncated")


def deepest_selection(sel: Selection, deepest: dict) -> Selection:
    """``sel`` with each verified decision's figures taken from its deepest
    evaluation (SPEC §16: the study half; ``deepest``: {decision id: row
    dict with error, nd, dt, dp, difficulty, plies}), and the column
    ``verified_plies`` (-1: not verified).  ``sel`` itself when nothing of
    it is verified: the match figures never see these values."""
    dec = sel.decisions
    if not deepest or not len(dec):
        return sel
    row_ids = np.asarray(dec.row_id)
    hit = np.flatnonzero(np.isin(row_ids, np.fromiter(deepest, dtype=np.int64, count=len(deepest))))
    if not len(hit):
        return sel
    cols = {}
    for name in OVERLAID:
        col = np.array(getattr(dec, name), copy=True)
        for k in hit:
            v = deepest[int(row_ids[k])]
            if name == "difficulty_truncated":
                col[k] = 0
            elif name in ("nd", "dt", "dp") and v.get(name) is None:
                continue  # a checker play keeps its own (none)
            else:
                col[k] = np.nan if v.get(name) is None else v[name]
        cols[name] = col
    plies = np.full(len(dec), -1, dtype=np.int16)
    for k in hit:
        plies[k] = int(deepest[int(row_ids[k])]["plies"])
    base = dec

    def load(name):
        return getattr(base, name)

    out = DecisionArrays.lazy(len(dec), load, None, cols)
    out.verified_plies = plies
    new = Selection(matches=sel.matches, decisions=out, rolls=sel.rolls, sides=sel.sides,
                    player_filter=sel.player_filter, positions=sel.positions, whole_analyses=sel.whole_analyses)
    new.verified = deepest  # the evaluations it stands on, for the views that read more of them
    return new


def verified_plies(sel: Selection) -> np.ndarray:
    """The depth each decision was verified at (-1: not verified)."""
    plies = sel.decisions.__dict__.get("verified_plies")
    return plies if plies is not None else np.full(len(sel.decisions), -1, dtype=np.int16)


def verification_note(plies: Optional[int]) -> str:
    """What the study half says of one decision (SPEC §16)."""
    if plies is None or plies < 0:
        return "not verified"
    return f"confirmed at {int(plies)} {'ply' if int(plies) == 1 else 'plies'}"


def evaluation_depth(candidate_depth: Optional[str], verified: Optional[int], decision_depth: Optional[str]):
    """The depth of the numbers a card or a quiz answer shows: the
    candidate's own ("2-ply", "rollout", XG's level as stored), else the
    decision's deepest evaluation — gnubg's at ``verified`` plies, or the
    decision's analysis (a cube decision: its cube evaluation's); None
    unknown."""
    if candidate_depth:
        return candidate_depth
    if verified is not None and verified >= 0:
        return f"{int(verified)}-ply"
    return decision_depth or None


__all__ = ["VERDICTS", "evaluation_depth", "costliest_errors", "verdict", "checker_outcome", "rates",
           "deepest_selection", "verified_plies", "verification_note", "default_plies", "millipoints"]


def with_verified_analyses(analyses: dict, deepest: dict) -> dict:
    """The stored analyses of positions (the store's ``position_analyses``
    columns) with each verified decision's own row at its deepest
    evaluation and its first analysis kept beside it as another analysis
    (id −id): SPEC §10's "unstable" then compares the two (a cube verdict
    the deeper evaluation turns is unstable, SPEC §16)."""
    if not deepest or not analyses.get("id"):
        return analyses
    out = {k: list(v) for k, v in analyses.items()}
    n = len(out["id"])
    for k in range(n):
        v = deepest.get(int(out["id"][k]))
        if v is None:
            continue
        for name in out:
            out[name].append(out[name][k])
        out["id"][-1] = -int(out["id"][k])
        out["best_move"][k] = v["best_move"]
        if v.get("nd") is not None:
            out["nd"][k], out["dt"][k], out["dp"][k] = v["nd"], v["dt"], v["dp"]
        out["depth"][k] = f"{int(v['plies'])}-ply"
        out["analysis_depth"][k] = f"{int(v['plies'])}-ply"
        out["engine"][k] = v.get("engine") or "gnubg"
    return out


def second_cost_of_list(equities: list) -> Optional[float]:
    """max(0, eq₁ − eq₂) of a checker list (best first); None with fewer
    than two known equities."""
    eqs = [e for e in equities[:2] if e is not None]
    return max(0.0, eqs[0] - eqs[1]) if len(eqs) == 2 else None
