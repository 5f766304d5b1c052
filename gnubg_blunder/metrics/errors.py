"""Where the errors come from: the figures of the ``errors`` view (SPEC §14).

Five sections over the counted decisions of the filter's side(s) and
decision type:

- recurring errors by (game plan, nature, theme), cost = 500 × Σe(group) /
  N(all counted decisions of the filter), so no group exceeds the PR; the
  "theme not determined" remainder apart, one row per game plan;
- PR by cube action (the analysis' best action, not the one played);
- cube error direction (offer: missed / premature; respond: wrong pass /
  wrong take);
- checker vs cube;
- a histogram of error sizes in millipoint bands.

Pure functions over a :class:`Selection` (no SQL, no I/O).  Every row
carries each metric's figure (PR cost or rate, MWC lost, contribution to
L₇), so a view only chooses which to print.  None = never measured.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..labels import (
    THEME_MISSED_DOUBLE,
    THEME_PREMATURE_DOUBLE,
    THEME_WRONG_PASS,
    THEME_WRONG_TAKE,
)
from ..board.features import THEME_NONE
from ..units import millipoints
from ..arrays import LABEL_CODES, LABELS, Selection
from .counting import K_CHECKER, K_DOUBLE, K_NO_DOUBLE, K_PASS, K_TAKE, Thresholds
from . import kernel, vocabulary
from .figures import whole_sums
from .groups import base_mask, group_rows


# -- cube actions -------------------------------------------------------------

CUBE_ACTIONS = ("NoDouble", "DoubleTake", "DoublePass", "TooGood")
A_NO_DOUBLE, A_DOUBLE_TAKE, A_DOUBLE_PASS, A_TOO_GOOD = range(4)


def cube_action_codes(dec) -> np.ndarray:
    """The analysis' best cube action of each cube decision, as an index into
    ``CUBE_ACTIONS`` (-1 for checker plays and cube decisions without the
    three equities).  The rule of ``importers/build.py: cube_action`` over
    arrays, on the doubler's cubeful ND, DT, DP (a take or pass carries the
    figures of the double it answers, so it falls under that double's
    action):

    - min(DT, DP) ≥ ND: a double; DoubleTake when DT ≤ DP, else DoublePass;
    - min(DT, DP) < ND: no double; TooGood when DT > DP, else NoDouble.

    Ties: ND = min(DT, DP) is a double (doubling loses nothing);
    DT = DP is a take (the responder loses nothing by taking), so
    ND > DT = DP is NoDouble, not TooGood.
    """
    nd, dt, dp = dec.nd, dec.dt, dec.dp
    known = ~np.isnan(nd) & ~np.isnan(dt) & ~np.isnan(dp) & (dec.kind != K_CHECKER)
    with np.errstate(invalid="ignore"):
        response = np.minimum(dt, dp)
        double = response >= nd
        code = np.where(
            double,
            np.where(dt <= dp, A_DOUBLE_TAKE, A_DOUBLE_PASS),
            np.where(dt > dp, A_TOO_GOOD, A_NO_DOUBLE),
        )
    return np.where(known, code, -1).astype(np.int64)


# -- error-size bands ---------------------------------------------------------

# [low, high) in millipoints; the last band is open.
BAND_EDGES_MPT = (0, 5, 10, 25, 50, 100)
BAND_LABELS = ("0–5", "5–10", "10–25", "25–50", "50–100", "≥100")


def band_codes(error) -> np.ndarray:
    """Band index of each e, rounded half-up to the millipoint first (SPEC §3:
    0.0049 is 5 mpt, band 5–10; 0.00449 is 4 mpt, band 0–5)."""
    mpt = millipoints(error)
    return (np.searchsorted(np.asarray(BAND_EDGES_MPT), mpt, side="right") - 1).astype(np.int64)


# -- sums per group -------------------------------------------------------------

class _Base:
    """The counted decisions of the filter (side(s), decision type) and the
    denominators every cost shares: N and Σe of the filter (PR costs), ΣL
    and Σ√N of its match-play sides (MWC shares, L₇ parts that add up)."""

    def __init__(self, sel: Selection, thresholds: Thresholds, decision_type: str):
        self.sel = sel
        self.thresholds = thresholds
        self.mask = base_mask(sel, decision_type)
        self.e_micro = kernel.error_micro(sel)
        self.err, self.blunder = kernel.classified(sel, thresholds)
        whole = whole_sums(sel, thresholds, decision_type)  # the sums of self.mask
        self.whole = kernel.figures(whole)
        self.N = self.whole["decisions"]
        self.E = self.whole["error_emg"]
        self.mp_any = self.whole["mwc_loss"] is not None
        self.L = float(whole.ell[0])
        self.sqrt_n = float(whole.root_n[0])

    def sums(self, groups: np.ndarray, n_groups: int, extra: Optional[np.ndarray] = None) -> list:
        """Per group over the base decisions where groups >= 0 (and extra):
        decisions, errors, blunders (decisions), error_emg, cost (500 Σe / N
        of the filter), share (of Σe), mwc_loss (pp), mwc_share, l7
        (contribution to L₇, pp)."""
        keep = self.mask & (groups >= 0)
        if extra is not None:
            keep &= extra
        s = kernel.sums(self.sel, keep, groups, n_groups, root_n=self.sqrt_n, thresholds=self.thresholds)
        emicro = np.bincount(groups[keep].astype(np.int64), weights=self.e_micro[keep].astype(np.float64),
                             minlength=n_groups)
        rows = []
        for k, fig in enumerate(kernel.figures_of(s)):
            # MWC is never measured for a group of money decisions only; an
            # empty group adds 0 when the selection has match play
            empty_mp = fig["decisions"] == 0 and self.mp_any
            lk = float(s.ell[k])
            has_mp = fig["mwc_loss"] is not None or empty_mp
            rows.append({
                "decisions": fig["decisions"],
                "errors": fig["errors"],
                "blunders": fig["blunders"],
                "error_emg": fig["error_emg"],
                "error_micro": int(emicro[k]),
                "cost": kernel.rate(fig["error_emg"], self.N),
                "share": fig["error_emg"] / self.E if self.E > 0 else None,
                "mwc_loss": (fig["mwc_loss"] or 0.0) if has_mp else None,
                "mwc_share": lk / self.L if has_mp and self.L > 0 else None,
                "l7": (fig["l7"] or 0.0) if has_mp and self.sqrt_n > 0 else None,
            })
        return rows

    def totals(self) -> dict:
        w = self.whole
        return {
            "decisions": w["decisions"],
            "checker_decisions": w["checker_decisions"],
            "cube_decisions": w["cube_decisions"],
            "error_emg": w["error_emg"],
            "pr": w["pr"],
            "errors": w["errors"],
            "blunders": w["blunders"],
            "mwc_loss": w["mwc_loss"],
            "l7": w["l7"],
            "money_decisions": w["decisions"] - int(np.count_nonzero(self.mask & kernel.match_play(self.sel))),
        }


def _sort_key(metric: str):
    """Costliest first: Σe in integer micro-EMG (PR) or MWC lost (mwc,
    mwc7; never measured last), then more errors, then label order."""
    def key(item):
        order, row = item
        if metric == "pr":
            cost = -row["error_micro"]
        else:
            cost = -row["mwc_loss"] if row["mwc_loss"] is not None else math.inf
        return (cost, -row["errors"], order)

    return key


# -- the sections ---------------------------------------------------------------

def recurring(base: _Base, metric: str = "pr") -> tuple:
    """(ranked rows, "theme not determined" rows, counted errors without any
    label).  Members: counted errors (e ≥ the error threshold) with a theme;
    a family is (game plan, nature, theme)."""
    dec = base.sel.decisions
    n_plans = len(LABELS["game_plan"]) + 1  # + "no game plan" (-1)
    n_themes = len(LABELS["theme"])
    theme_none = LABEL_CODES["theme"][THEME_NONE]
    nature = (dec.kind != K_CHECKER).astype(np.int64)  # 0 checker, 1 cube
    members = base.mask & base.err & (dec.theme >= 0)
    key = ((dec.game_plan.astype(np.int64) + 1) * 2 + nature) * n_themes + dec.theme.astype(np.int64)
    n_keys = n_plans * 2 * n_themes
    groups = np.where(members, key, -1)
    used = kernel.distinct(groups[members])
    index = np.full(n_keys, -1, dtype=np.int64)
    index[used] = np.arange(len(used))
    compact = np.where(members, index[np.where(members, key, 0)], -1)
    sums = base.sums(compact, len(used))
    ranked, undetermined = [], []
    for k, code in enumerate(used):
        theme = int(code % n_themes)
        nat = int((code // n_themes) % 2)
        plan = int(code // (2 * n_themes)) - 1
        row = {
            "game_plan": LABELS["game_plan"][plan] if plan >= 0 else None,
            "nature": "cube" if nat else "checker",
            "theme": LABELS["theme"][theme],
        }
        row.update(sums[k])
        del row["decisions"]  # every member is an error: "errors" says it
        (undetermined if theme == theme_none else ranked).append((int(code), row))
    ranked.sort(key=_sort_key(metric))
    undetermined.sort(key=_sort_key(metric))
    unlabelled = int((base.mask & base.err & (dec.theme < 0)).sum())
    return [r for _, r in ranked], [r for _, r in undetermined], unlabelled


def by_cube_action(base: _Base, thresholds: Thresholds, decision_type: str) -> tuple:
    """One row per best cube action (all four, in CUBE_ACTIONS order), and
    the number of counted cube decisions without the three equities."""
    sel = base.sel
    codes = cube_action_codes(sel.decisions)
    grouped = group_rows(sel, codes, len(CUBE_ACTIONS), thresholds, decision_type)
    sums = base.sums(codes, len(CUBE_ACTIONS))
    rows = []
    for k, name in enumerate(CUBE_ACTIONS):
        g, s = grouped[k], sums[k]
        rows.append({
            "action": name,
            "decisions": s["decisions"],
            "errors": s["errors"],
            "blunders": s["blunders"],
            "blunder_share": s["blunders"] / s["decisions"] if s["decisions"] else None,
            "error_emg": s["error_emg"],
            "pr": g["pr"],
            "pr_ci": g["pr_ci"],
            "ci_note": g["ci_note"],
            "small": g["small"],
            "matches": g["matches"],
            "cost": s["cost"],
            "share": s["share"],
            "mwc_loss": s["mwc_loss"],
            "mwc_share": s["mwc_share"],
            "l7": s["l7"],
        })
    unclassified = int((base.mask & (sel.decisions.kind != K_CHECKER) & (codes < 0)).sum())
    return rows, unclassified


DIRECTIONS = (
    ("offer", THEME_MISSED_DOUBLE, K_NO_DOUBLE),
    ("offer", THEME_PREMATURE_DOUBLE, K_DOUBLE),
    ("respond", THEME_WRONG_PASS, K_PASS),
    ("respond", THEME_WRONG_TAKE, K_TAKE),
)


def cube_direction(base: _Base) -> list:
    """Wrong cube decisions (e > 0: the analysis prefers the other choice)
    by direction.  ``of``: the side's counted decisions (offer: no doubles
    and doubles; respond: takes and passes); ``errors`` among the wrong
    ones reach the error threshold."""
    dec = base.sel.decisions
    wrong = base.e_micro > 0
    groups = np.full(len(dec), -1, dtype=np.int64)
    for k, (_side, _name, kind) in enumerate(DIRECTIONS):
        groups[(dec.kind == kind) & wrong] = k
    sums = base.sums(groups, len(DIRECTIONS))
    offer = int((base.mask & np.isin(dec.kind, (K_NO_DOUBLE, K_DOUBLE))).sum())
    respond = int((base.mask & np.isin(dec.kind, (K_TAKE, K_PASS))).sum())
    rows = []
    for k, (side, name, _kind) in enumerate(DIRECTIONS):
        row = {"side": side, "direction": name, "of": offer if side == "offer" else respond}
        row.update(sums[k])
        rows.append(row)
    return rows


def checker_vs_cube(base: _Base, thresholds: Thresholds, decision_type: str) -> list:
    sel = base.sel
    groups = (sel.decisions.kind != K_CHECKER).astype(np.int64)
    grouped = group_rows(sel, groups, 2, thresholds, decision_type)
    sums = base.sums(groups, 2)
    rows = []
    for k, name in enumerate(("checker", "cube")):
        row = {"nature": name}
        row.update(sums[k])
        row.update({key: grouped[k][key] for key in ("pr", "pr_ci", "ci_note", "small", "matches")})
        rows.append(row)
    return rows


def histogram(base: _Base) -> list:
    """Every counted decision, zeros included, by e in [low, high) mpt bands."""
    codes = band_codes(base.sel.decisions.error)
    sums = base.sums(codes, len(BAND_LABELS))
    rows = []
    for k, label in enumerate(BAND_LABELS):
        row = {
            "band": label,
            "low_mpt": BAND_EDGES_MPT[k],
            "high_mpt": BAND_EDGES_MPT[k + 1] if k + 1 < len(BAND_EDGES_MPT) else None,
        }
        row.update(sums[k])
        row["decision_share"] = sums[k]["decisions"] / base.N if base.N else None
        rows.append(row)
    return rows


def error_figures(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    metric: str = "pr",
) -> dict:
    """Every section of the ``errors`` view.  ``metric`` only orders the
    recurring errors (by Σe for PR, by MWC lost for mwc / mwc7)."""
    metric = vocabulary.metric(metric).key
    base = _Base(sel, thresholds, decision_type)
    ranked, undetermined, unlabelled = recurring(base, metric)
    actions, unclassified = by_cube_action(base, thresholds, decision_type)
    out = {
        "totals": base.totals(),
        "recurring": ranked,
        "theme_not_determined": undetermined,
        "errors_without_label": unlabelled,
        "cube_actions": actions,
        "cube_actions_unclassified": unclassified,
        "cube_direction": cube_direction(base),
        "checker_cube": checker_vs_cube(base, thresholds, decision_type),
        "histogram": histogram(base),
    }
    for section in ("recurring", "theme_not_determined", "cube_direction", "checker_cube", "histogram"):
        for row in out[section]:
            row.pop("error_micro", None)
    return out
