"""The study plan (SPEC §9): which families of errors to study first.

A **family** is (game plan, nature, theme): the game plan of the position
(``labels.ALL_GAME_PLANS``), the nature of the decision (``"checker"`` or
``"cube"``) and the theme of its error (``labels.THEMES`` but "theme not
determined").  Its name is one string, the same in every command, the
``--family`` filter and the reference positions / quizzes that reuse it::

    family_name("holding game", "checker", "too many blots")
    == "holding game/checker/too many blots"

**Members** of a family: the counted errors (e ≥ the error threshold, the
thresholds of the scope) of the scope's mask whose labels are the family's.
**Quantified** members: the study half's cost known (:mod:`.study_cost`:
e and d under ``pr``, the default, money included; ℓ and d in MWC under
``mwc``, ℓ₇ and d₇ under ``mwc7``, money errors members but not quantified).

Recoverable R = Σ(loss − d) over the quantified members (signed; EMG or
fractions of MWC here, the cost's unit, mpt or % points, in the object);
the member count treated as Poisson gives Var(R) = Σ(loss − d)², interval
R ± 1.96 √Var.  A family is in the plan with ≥ 5 quantified members and a
lower bound > 0, ordered by lower bound descending (ties: larger R, then
the name); every other family is "to confirm", unranked, listed after the
plan in the order of its name.

Public names other modules import (the tournament review, the reference
positions, the quizzes):

- ``FAMILY_SEPARATOR``, :func:`family_name`, :func:`parse_family`
  (a name as a user typed it → (game plan, nature, theme), or ValueError
  naming the closest names), ``FAMILIES`` / ``FAMILY_NAMES`` (every possible
  family, in code order);
- :func:`family_codes` (the family index of each decision of a selection, -1
  none), :func:`family_mask`, :func:`restrict_to_family` (the ``--family``
  filter on a selection);
- :func:`plan_mask` (the usual scope mask: counted decisions of the
  filter's side(s) and decision type), :func:`member_masks`,
  :func:`study_plan`, :func:`family_members` (a family's member indices,
  costliest first), :func:`member_lists` (the same for several families,
  the first N of each with its cost); each takes ``metric`` (pr, mwc,
  mwc7; :mod:`.study_cost`).

Pure numpy: no SQL, no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional

import numpy as np

from ..families import (  # noqa: F401  (re-exported: the family names live below the filter)
    _BY_FOLDED, CHECKER, CUBE, FAMILIES, FAMILY_INDEX, FAMILY_NAMES, FAMILY_SEPARATOR, NATURE_THEMES, NATURES,
    canonical_family, closest_families, family_name, parse_family)
from ..labels import ALL_GAME_PLANS, CHECKER_THEMES, CUBE_THEMES, THEMES  # noqa: F401
from ..arrays import LABEL_CODES, Selection
from .intervals import Z95, symmetric_interval
from .counting import K_CHECKER, Thresholds, counted
from .groups import base_mask
from .kernel import classified
from ..stash import StashKey, cached
from .study_cost import excess_terms, study_cost
from ..labels import THEME_NONE

MIN_QUANTIFIED = 5  # SPEC §9: in the plan from 5 quantified members
IN_PLAN, TO_CONFIRM = "plan", "to confirm"

def _lookup_table() -> np.ndarray:
    """table[game plan code, nature code, theme code] -> family index, -1."""
    plans, themes = LABEL_CODES["game_plan"], LABEL_CODES["theme"]
    table = np.full((len(plans), len(NATURES), len(THEMES)), -1, dtype=np.int32)
    for k, (plan, nature, theme) in enumerate(FAMILIES):
        table[plans[plan], NATURES.index(nature), themes[theme]] = k
    return table


_TABLE = _lookup_table()


# -- per decision -----------------------------------------------------------------

FAMILY_CODES: StashKey[np.ndarray] = StashKey("family codes")


def family_codes(sel: Selection) -> np.ndarray:
    """The family index (into ``FAMILIES`` / ``FAMILY_NAMES``) of each
    decision, -1 where it has none: no theme (no error), "theme not
    determined", no game plan or kind.  Once per selection (a copy each
    call)."""
    return cached(sel, FAMILY_CODES, lambda: _family_codes(sel)).copy()


def _family_codes(sel: Selection) -> np.ndarray:
    dec = sel.decisions
    n = len(dec)
    if not n:
        return np.zeros(0, dtype=np.int32)
    plan, theme, kind = dec.game_plan, dec.theme, dec.kind
    ok = (plan >= 0) & (theme >= 0) & (kind >= 0)
    # one flat index into the table, in int32 (1.6 M decisions: a few small arrays, not five int64 ones)
    flat = np.where(ok, plan, 0).astype(np.int32)
    flat *= 2
    flat += kind != K_CHECKER
    flat *= _TABLE.shape[2]
    flat += np.where(ok, theme, 0)
    codes = _TABLE.reshape(-1)[flat].astype(np.int32)
    codes[~ok] = -1
    return codes


def family_mask(sel: Selection, family: str) -> np.ndarray:
    """The decisions of the selection whose labels are ``family``'s."""
    k = FAMILY_INDEX[canonical_family(family)]
    return family_codes(sel) == k


def restrict_to_family(sel: Selection, family: Optional[str]) -> Selection:
    """The ``--family`` filter: the same matches, rolls and sides, only the
    decisions of ``family`` (None: the selection as it is)."""
    if not family:
        return sel
    return dataclasses.replace(sel, decisions=sel.decisions.take(family_mask(sel, family)), whole_analyses=False)


def plan_mask(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """The usual scope of a plan: the scope of every breakdown
    (:func:`groups.base_mask`: counted decisions of the filter's side(s)
    and decision type)."""
    return base_mask(sel, decision_type)


def member_masks(sel: Selection, mask: np.ndarray, thresholds: Thresholds, metric=None) -> dict:
    """The masks and codes behind a plan: ``codes`` (family per decision),
    ``errors`` (counted errors of ``mask``), ``members`` (errors with a
    family), ``quantified`` (members whose cost is known under ``metric``),
    ``excess`` (loss − d of each decision, :func:`study_cost.excess_terms`:
    EMG or fractions of MWC, NaN where unknown)."""
    dec = sel.decisions
    codes = family_codes(sel)
    base = np.asarray(mask, dtype=bool) & counted(dec) if len(dec) else np.zeros(0, dtype=bool)
    err, _blunder = classified(sel, thresholds)
    errors = base & err
    members = errors & (codes >= 0)
    excess = excess_terms(sel, metric)
    quantified = members & ~np.isnan(excess)
    return {"codes": codes, "errors": errors, "members": members, "quantified": quantified, "excess": excess}


def recoverable(excess) -> tuple:
    """(R, [low, high]) of the members' costs (loss − d, the terms' unit):
    R = Σ, the interval R ± 1.96 √Σ(loss − d)² (SPEC §9, the count
    Poisson); (None, None) without a value."""
    x = np.asarray(excess, dtype=np.float64)
    if not len(x):
        return None, None
    r = float(x.sum())
    return r, interval_of(r, float((x * x).sum()))


def interval_of(r: float, sum_squares: float) -> Optional[list]:
    """[R − 1.96 √Σx², R + 1.96 √Σx²], x = loss − d of each quantified
    member (SPEC §9: the member count Poisson, Var(R) = Σx²); not floored.
    None without spread (every x = 0): no zero-width interval (SPEC §7)."""
    return symmetric_interval(r, sum_squares)


def error_rows(thresholds: Thresholds = Thresholds(), themed: bool = False):
    """The rows the plan (``themed``: the reference positions) needs, as a
    function of a selection's decision columns (``DecisionArrays``, read
    lazily: only ``error`` and ``theme``): the errors, with a theme that
    names a family when ``themed``.  The store keeps only those
    (``select_rows``); which of them count is :func:`member_masks`'
    rule."""
    named = np.zeros(len(LABEL_CODES["theme"]) + 1, dtype=bool)  # by theme code + 1 (-1: none)
    for name, k in LABEL_CODES["theme"].items():
        named[k + 1] = name != THEME_NONE
    # e rounded to the millipoint reaches the threshold only from (threshold − 0.5 mpt): a plain comparison
    # a little below keeps every error (and a few just under, which the rule leaves out)
    low = thresholds.error - 0.0006

    def keep(dec) -> np.ndarray:
        errors = dec.error >= low
        return errors & named[dec.theme.astype(np.int64) + 1] if themed else errors

    return keep


def study_plan(sel: Selection, mask: np.ndarray, thresholds: Thresholds = Thresholds(), metric=None) -> dict:
    """The study plan of the decisions of ``mask`` (usually
    :func:`plan_mask`; the function keeps only counted decisions of it),
    priced by the study half's cost ``metric`` (SPEC §9; default pr).

    Returns ``{"metric", "unit", "families": [...], "outside":
    {"no_theme", "not_quantified"}}``: one object per family holding at
    least one member — ``family`` (its name), ``game_plan``, ``nature``,
    ``theme``, ``members``, ``quantified``, ``recoverable`` (R in ``unit``:
    mpt, % MWC or % MWC-7; None without a quantified member),
    ``recoverable_ci`` ([low, high] in ``unit``, or None), ``status``
    ("plan" or "to confirm") — the plan first (lower bound descending, then
    R descending, then name), then "to confirm" by name; ``outside``:
    ``no_theme`` (counted errors without a family: no theme or "theme not
    determined"), ``not_quantified`` (members whose cost is unknown: money
    under mwc and mwc7, or d unknown)."""
    cost = study_cost(metric)
    scale = cost.scale
    m = member_masks(sel, mask, thresholds, cost)
    codes, members, quantified, excess = m["codes"], m["members"], m["quantified"], m["excess"]
    nf = len(FAMILIES)
    n_members = np.bincount(codes[members], minlength=nf)
    n_quant = np.bincount(codes[quantified], minlength=nf)
    xq = excess[quantified]
    sum_x = np.bincount(codes[quantified], weights=xq, minlength=nf)
    sum_x2 = np.bincount(codes[quantified], weights=xq * xq, minlength=nf)
    plan, confirm = [], []
    for k in np.nonzero(n_members)[0]:
        game_plan, nature, theme = FAMILIES[k]
        q = int(n_quant[k])
        if q:
            r = float(sum_x[k])
            ci = interval_of(r, float(sum_x2[k]))
        else:
            r, ci = None, None
        status = IN_PLAN if q >= MIN_QUANTIFIED and ci is not None and ci[0] > 0 else TO_CONFIRM
        row = {
            "family": FAMILY_NAMES[k], "game_plan": game_plan, "nature": nature, "theme": theme,
            "members": int(n_members[k]), "quantified": q,
            "recoverable": None if r is None else scale * r,
            "recoverable_ci": None if ci is None else [scale * ci[0], scale * ci[1]],
            "status": status,
        }
        (plan if status == IN_PLAN else confirm).append((ci, r, row))
    plan.sort(key=lambda t: (-t[0][0], -t[1], t[2]["family"]))
    confirm.sort(key=lambda t: t[2]["family"])
    return {
        "metric": cost.key,
        "unit": cost.unit,
        "families": [row for _ci, _r, row in plan + confirm],
        "outside": {
            "no_theme": int((m["errors"] & (codes < 0)).sum()),
            "not_quantified": int((members & ~quantified).sum()),
        },
    }


def family_members(sel: Selection, mask: np.ndarray, thresholds: Thresholds, family: str,
                   metric=None) -> np.ndarray:
    """The member indices of ``family`` among ``mask``: quantified members
    by their cost (loss − d under ``metric``) descending, then the others
    (cost unknown: money under mwc, d unknown) by e descending; ties in the
    order of the arrays (match, then move order)."""
    return member_lists(sel, mask, thresholds, [family], limit=0, metric=metric)[canonical_family(family)]["index"]


def member_lists(sel: Selection, mask: np.ndarray, thresholds: Thresholds, families, limit: int = 20,
                 metric=None) -> dict:
    """The drill-down of each family of ``families`` (names): ``{its
    canonical name:
    {"total": members, "index": the first ``limit`` member indices in
    :func:`family_members`' order, "excess": loss − d of each in the cost's
    unit (mpt, % MWC or % MWC-7; None where not quantified)}}`` — one pass
    over the selection."""
    cost = study_cost(metric)
    m = member_masks(sel, mask, thresholds, cost)
    e = np.nan_to_num(sel.decisions.error, nan=0.0) if len(sel.decisions) else np.zeros(0)
    out = {}
    for name in map(canonical_family, families):
        k = FAMILY_INDEX[name]
        idx = np.nonzero(m["members"] & (m["codes"] == k))[0]
        x = m["excess"][idx]
        order = np.lexsort((idx, -e[idx], -np.nan_to_num(x, nan=0.0), np.isnan(x)))
        shown = idx[order][:limit] if limit else idx[order]
        out[name] = {
            "total": int(len(idx)),
            "index": shown,
            "excess": [None if math.isnan(v) else cost.shown(v) for v in m["excess"][shown]],
        }
    return out
