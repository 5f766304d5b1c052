"""Study against play (SPEC §11, §14): before / after study, training,
study vs play.  Pure functions over a ``Selection`` and the study log (rows
of ``store.study_actions()``); no SQL, no I/O.  docs/study.md.

**Study actions** (SPEC §11): ``"studied"`` (a mark), ``"quiz"`` (a quiz
answer; grade = its error in whole millipoints, docs/quiz.md),
``"anki review"``, ``"anki learn"``, ``"anki relearn"``, ``"anki cram"``
(Anki reviews, ``anki sync``; grade = ease 1–4).  Any
other action (a card created, a position filed in a collection) is not one.

**A family's positions** (SPEC §11): the positions of its members — the
counted errors of the scope (the filter's side(s) and decision type) with
the family's labels (metrics/plan.py).  A family is **studied from** the
UTC day of the first study action on one of them: a study action on a
position where the player's decision of that family was no error does not
start its clock.

**Before / after**: matches dated strictly before / strictly after that day
(the day itself and undated matches in neither).  In each window
r = Σc(family errors) / N(counted decisions of the same game plan and
nature), c the study half's cost (:mod:`.study_cost`: e in EMG by default,
money included; ℓ or ℓ₇ by choice, money left out), in the cost's unit per
100 decisions; Δ = r_before − r_after, Var = Σc_b²/N_b² + Σc_a²/N_a² (same
unit squared), interval Δ ± 1.96 √Var; beside it the errors per 100
decisions of each window (a count).  Verdict: "insufficient" under 30
decisions in either window, "improving" when the lower bound > 0,
"regressing" when the upper bound < 0, else "undetermined".  Decisions
whose cost is unknown (money under mwc and mwc7) are left out of both sums
and their family errors counted apart (not measured).
"""

from __future__ import annotations

import datetime as _dt
from typing import Optional

import numpy as np

from ..labels import ALL_GAME_PLANS
from ..study_log import (ANKI_ACTIONS, ANKI_CRAM, ANKI_LEARN, ANKI_RELEARN, ANKI_REVIEW,  # noqa: F401 (names of the study log)
                         QUIZ, REVIEW_ACTIONS, STUDIED, STUDY_ACTIONS, utc_day, utc_time)
from ..arrays import LABEL_CODES, Selection, position_ids_at
from .counting import K_CHECKER, Thresholds
from .intervals import side_of_zero, symmetric_interval
from .kernel import classified, distinct, rate
from .plan import FAMILIES, FAMILY_NAMES, family_codes, member_masks, plan_mask
from .study_cost import PER_100, cost_terms, study_cost

MIN_DECISIONS = 30  # SPEC §11: "insufficient" under 30 decisions in either window
RETAINED_EASE = 2  # an Anki review graded Hard or better is retained
MIN_PR_DECISIONS = 10  # study vs play: a PR on fewer decisions is not shown
QUIZ_GRADE_EMG = 0.001  # a quiz grade is its error in millipoints
INSUFFICIENT, IMPROVING, REGRESSING, UNDETERMINED = "insufficient", "improving", "regressing", "undetermined"
CHANGE_NOTE = ("A change, not an effect: the windows differ in more than the study (opponents, events, form, "
               "chance); nothing here says the study caused it.")


# -- the study log ---------------------------------------------------------------

def member_positions(sel: Selection, thresholds: Thresholds, decision_type: str = "all", only=None) -> dict:
    """{position ID: set of family indices}: the positions of each family's
    members in the scope (SPEC §11: the player's errors of that family,
    any window) — the only positions whose study starts a family's clock.
    ``only`` (position IDs): of those positions alone (the study log's: the
    members' own IDs are read, not the distinct positions of the whole
    selection, a sort of every decision's ID; none asked, none read)."""
    dec = sel.decisions
    if not len(dec) or (only is not None and not only):
        return {}
    m = member_masks(sel, plan_mask(sel, decision_type), thresholds)
    if only is not None:
        idx = np.flatnonzero(m["members"])
        out: dict = {}
        for pid, k in zip(position_ids_at(sel, idx).tolist(), m["codes"][idx].tolist()):
            if pid is not None and pid in only:
                out.setdefault(pid, set()).add(int(k))
        return out
    position = dec.position
    idx = np.flatnonzero(m["members"] & (position >= 0))
    if not len(idx):
        return {}
    # each (position, family) once, as one integer key: no Python pair per member decision
    codes = m["codes"][idx].astype(np.int64)
    span = int(codes.max()) + 1
    out: dict = {}
    for key in np.unique(position[idx].astype(np.int64) * span + codes).tolist():
        p, k = divmod(key, span)
        out.setdefault(sel.positions[p], set()).add(k)
    return out


def position_game_plans(label_rows) -> dict:
    """{position ID: game plan} (the game plan is the position's: any
    decision stored at it gives it)."""
    out = {}
    for pid, _kind, plan, _theme in label_rows:
        if plan in ALL_GAME_PLANS:
            out.setdefault(pid, plan)
    return out


def study_actions(actions) -> list:
    """The log's actions that count as studying a position (``STUDY_ACTIONS``,
    SPEC §11), in the log's order."""
    return [a for a in actions if a["action"] in STUDY_ACTIONS]


def study_days(actions, families_of: dict) -> dict:
    """{family index: {"day", "action", "position_id", "at"}}: the first
    study action (by time) on a position of each family (``families_of``:
    :func:`member_positions`); its UTC day."""
    out: dict = {}
    timed = [(utc_time(a["at"]), a["id"], a) for a in study_actions(actions)]
    for t, _id, a in sorted((x for x in timed if x[0] is not None), key=lambda x: (x[0], x[1])):
        day = t.date().isoformat()
        for k in families_of.get(a["position_id"], ()):
            if k not in out:
                out[k] = {"day": day, "action": a["action"], "position_id": a["position_id"], "at": a["at"]}
    return out


# -- before / after ----------------------------------------------------------------

def change(sum_b: float, sq_b: float, n_b: int, sum_a: float, sq_a: float, n_a: int, metric=None) -> dict:
    """r before / after (the cost's unit per 100 decisions: mpt under pr,
    % MWC under mwc, % MWC-7 under mwc7), Δ, its interval and the verdict
    from Σc, Σc² (the cost's terms: EMG or fractions of MWC) and N of each
    window."""
    scale = PER_100 * study_cost(metric).scale
    r_b = scale * sum_b / n_b if n_b else None
    r_a = scale * sum_a / n_a if n_a else None
    delta = ci = None
    if r_b is not None and r_a is not None:
        delta = r_b - r_a
        # no error in either window: no spread, no interval (SPEC §7), never a zero-width one
        ci = symmetric_interval(delta, scale ** 2 * (sq_b / n_b ** 2 + sq_a / n_a ** 2))
    return {"r_before": r_b, "r_after": r_a, "delta": delta, "delta_ci": ci, "verdict": verdict_of(n_b, n_a, ci)}


def per_100(count: int, n: int) -> Optional[float]:
    """A count per 100 decisions (the errors beside Δ, SPEC §11); None
    without a decision."""
    return PER_100 * count / n if n else None


def verdict_of(n_b: int, n_a: int, ci) -> str:
    """SPEC §11: insufficient under 30 decisions in either window; improving
    when the lower bound of Δ > 0; regressing when its upper bound < 0;
    undetermined otherwise — and without an interval (no error in either
    window: Δ = 0, no change to tell)."""
    if n_b < MIN_DECISIONS or n_a < MIN_DECISIONS:
        return INSUFFICIENT
    if ci is None:
        return UNDETERMINED
    return side_of_zero(ci, IMPROVING, REGRESSING, UNDETERMINED)


def match_days(sel: Selection) -> np.ndarray:
    """Each match's day (YYYY-MM-DD, "" undated) as a numpy string array."""
    return np.array([(m.date or "")[:10] for m in sel.matches], dtype="U10")


def before_after(sel: Selection, thresholds: Thresholds, days: dict, decision_type: str = "all",
                 only_family: Optional[str] = None, metric=None) -> dict:
    """SPEC §11 over the counted decisions of the filter's side(s) and
    decision type, priced by the study half's cost ``metric`` (default pr:
    c = e; mwc: ℓ; mwc7: ℓ₇).  ``days``: :func:`study_days`.  Returns
    ``{"metric", "unit" (r's and Δ's: the cost's unit per 100 decisions),
    "cost_unit" (Σc's), "families": [...], "not_studied": [names],
    "not_measured": n}``: one object per studied family holding a member of
    the scope (errors e ≥ threshold with the family's labels, any window;
    the plan's families are among them), in the order of their names, each
    window with ``decisions``, ``errors``, ``errors_per_100``, ``cost``
    (Σc) and ``r``; ``not_measured``: family errors whose cost is unknown
    (money under mwc and mwc7), left out of every sum; ``only_family``:
    that family only (the ``--family`` filter)."""
    cost = study_cost(metric)
    head = {"metric": cost.key, "unit": cost.rate_unit, "cost_unit": cost.unit}
    dec = sel.decisions
    base = plan_mask(sel, decision_type)
    if not len(dec):
        return {**head, "families": [], "not_studied": [], "not_measured": 0}
    codes = family_codes(sel)
    err, _ = classified(sel, thresholds)
    members = base & err & (codes >= 0)
    loss, _difficulty = cost_terms(sel, cost)
    known = ~np.isnan(loss)  # the cost known: e (money included) under pr; ℓ or ℓ₇ in match play otherwise
    c = group = None  # made for the first studied family (a summary without study needs neither)
    # the windows are compared match by match (10,000 days), then spread to the decisions
    day_of_match = match_days(sel)
    dated = day_of_match != ""
    present = sorted(set(int(k) for k in distinct(codes[members])), key=lambda k: FAMILY_NAMES[k])
    if only_family:
        present = [k for k in present if FAMILY_NAMES[k] == only_family]
    plans = LABEL_CODES["game_plan"]
    rows, not_studied = [], []
    for k in present:
        name = FAMILY_NAMES[k]
        if k not in days:
            not_studied.append(name)
            continue
        game_plan, nature, theme = FAMILIES[k]
        day = days[k]["day"]
        if c is None:
            c = np.where(known, loss, 0.0)
            group = dec.game_plan.astype(np.int64) * 2 + np.where(dec.kind == K_CHECKER, 0, 1)
        same = base & known & (group == plans[game_plan] * 2 + (0 if nature == "checker" else 1))
        mine = members & known & (codes == k)
        windows = {}
        for key, when in (("before", (dated & (day_of_match < day))[dec.match]),
                          ("after", (dated & (day_of_match > day))[dec.match])):
            n = int((same & when).sum())
            x = c[mine & when]
            windows[key] = {"decisions": n, "errors": int(len(x)), "sum": float(x.sum()),
                            "sq": float((x * x).sum()),
                            "matches": int(len(distinct(dec.match[same & when])))}
        b, a = windows["before"], windows["after"]
        ch = change(b["sum"], b["sq"], b["decisions"], a["sum"], a["sq"], a["decisions"], cost)
        rows.append({
            "family": name, "game_plan": game_plan, "nature": nature, "theme": theme,
            "studied_from": day, "first_action": days[k]["action"], "first_position": days[k]["position_id"],
            "first_at": days[k]["at"],
            **{key: {"matches": w["matches"], "decisions": w["decisions"], "errors": w["errors"],
                     "errors_per_100": per_100(w["errors"], w["decisions"]), "cost": cost.shown(w["sum"]),
                     "r": ch["r_" + key]}
               for key, w in windows.items()},
            "delta": ch["delta"], "delta_ci": ch["delta_ci"], "verdict": ch["verdict"],
            "not_measured": int((members & ~known & (codes == k)).sum()),
        })
    return {**head, "families": rows, "not_studied": not_studied, "not_measured": int((members & ~known).sum())}


# -- training and study vs play -------------------------------------------------------

def window_start(day: str, by: str) -> str:
    """The first day of the week (Monday, ISO weeks) or month holding ``day``."""
    d = _dt.date.fromisoformat(day)
    if by == "month":
        return d.replace(day=1).isoformat()
    return (d - _dt.timedelta(days=d.weekday())).isoformat()


def _next_start(start: str, by: str) -> str:
    d = _dt.date.fromisoformat(start)
    if by == "month":
        return (d.replace(year=d.year + 1, month=1) if d.month == 12 else d.replace(month=d.month + 1)).isoformat()
    return (d + _dt.timedelta(days=7)).isoformat()


def quiz_error(grade) -> float:
    """A quiz answer's error in EMG (its grade is in millipoints)."""
    return QUIZ_GRADE_EMG * float(grade)


def _decision_keys(sel: Selection, decision_type: str):
    """(decisions, plan_mask, each match's day): a decision's day is its
    match's, so what is asked of the days is asked per match and spread to
    the decisions (:func:`of_decisions`), not of 1.6 M day strings (64 MB)."""
    return sel.decisions, plan_mask(sel, decision_type), match_days(sel)


def of_decisions(dec, per_match: np.ndarray) -> np.ndarray:
    """A per-match bool spread to each decision of ``dec``."""
    return per_match[dec.match] if len(dec) else np.zeros(0, dtype=bool)


def training(sel: Selection, actions, by: str = "week", decision_type: str = "all", plans_of: dict = None) -> dict:
    """SPEC §14 Training: per week (ISO, from Monday) or month — quiz PR
    (500 × Σe/N of the quiz answers with a grade), match PR (the selection's
    matches dated in it), the Anki reviews read (every kind: learning,
    relearning and cram steps included) and the Anki retention (share of
    the reviews of learned cards, ``"anki review"``, with ease ≥ 2; None
    before a card graduated) with that count — from the first window with any of them
    to the last, empty windows included (None = none); and the quiz PR per
    game plan (``plans_of``: {position ID: game plan}), worst first."""
    plans_of = plans_of or {}
    dec, mask, days_of = _decision_keys(sel, decision_type)
    e = np.nan_to_num(dec.error, nan=0.0) if len(dec) else np.zeros(0)
    buckets: dict = {}

    def bucket(day):
        return buckets.setdefault(window_start(day, by), {"quiz_n": 0, "quiz_e": 0.0, "n": 0, "e": 0.0,
                                                          "anki_n": 0, "anki_learned": 0, "anki_ok": 0,
                                                          "matches": set()})

    idx = np.nonzero(mask & of_decisions(dec, days_of != ""))[0]
    # one pass: per day, then per window; a decision's day is its match's: the days of the matches held
    held = distinct(dec.match[idx].astype(np.int64))
    days, held_day = np.unique(days_of[held], return_inverse=True) if len(held) else (days_of[:0], held)
    day_of_match = np.full(max(sel.n_matches, 1), -1, dtype=np.int64)
    day_of_match[held] = held_day.reshape(-1)
    inverse = day_of_match[dec.match[idx]]
    n_day = np.bincount(inverse, minlength=len(days))
    e_day = np.bincount(inverse, weights=e[idx], minlength=len(days))
    match_days_of: dict = {}
    pairs = held * max(len(days), 1) + day_of_match[held]  # (match, day), each match on one day, in order
    for m, k in zip((pairs // max(len(days), 1)).tolist(), (pairs % max(len(days), 1)).tolist()):
        match_days_of.setdefault(k, set()).add(m)
    for k, day in enumerate(days):
        b = bucket(str(day))
        b["n"] += int(n_day[k])
        b["e"] += float(e_day[k])
        b["matches"].update(match_days_of.get(k, ()))
    by_plan: dict = {}
    for a in actions:
        day = utc_day(a["at"])
        if day is None or a.get("grade") is None:
            continue
        if a["action"] == QUIZ:
            b = bucket(day)
            b["quiz_n"] += 1
            b["quiz_e"] += quiz_error(a["grade"])
            p = by_plan.setdefault(plans_of.get(a["position_id"]), [0, 0.0])
            p[0] += 1
            p[1] += quiz_error(a["grade"])
        elif a["action"] in ANKI_ACTIONS:
            b = bucket(day)
            b["anki_n"] += 1  # a review read, whatever its kind
            if a["action"] == ANKI_REVIEW:  # retention: the reviews of learned cards only
                b["anki_learned"] += 1
                b["anki_ok"] += int(a["grade"]) >= RETAINED_EASE
    windows = []
    if buckets:
        start, last = min(buckets), max(buckets)
        while start <= last:
            b = buckets.get(start) or {"quiz_n": 0, "quiz_e": 0.0, "n": 0, "e": 0.0, "anki_n": 0, "anki_learned": 0,
                                       "anki_ok": 0, "matches": set()}
            end = (_dt.date.fromisoformat(_next_start(start, by)) - _dt.timedelta(days=1)).isoformat()
            windows.append({
                "window": start, "from": start, "to": end,
                "quiz_pr": rate(b["quiz_e"], b["quiz_n"]), "quiz_answers": b["quiz_n"],
                "match_pr": rate(b["e"], b["n"]), "match_decisions": b["n"], "matches": len(b["matches"]),
                "anki_retention": b["anki_ok"] / b["anki_learned"] if b["anki_learned"] else None,
                "anki_reviews": b["anki_n"], "anki_learned_reviews": b["anki_learned"],
            })
            start = _next_start(start, by)
    plans = [{"game_plan": plan, "quiz_answers": n, "quiz_pr": rate(s, n)} for plan, (n, s) in by_plan.items()]
    plans.sort(key=lambda r: (r["game_plan"] is None, -(r["quiz_pr"] or 0.0), r["game_plan"] or ""))
    return {"by": by, "windows": windows, "quiz_by_game_plan": plans}


def study_vs_play(sel: Selection, actions, today: str, days: int, decision_type: str = "all",
                  plans_of: dict = None) -> dict:
    """SPEC §14 Study vs play over the last ``days`` UTC days ending on
    ``today`` (included): per game plan, the distinct positions reviewed
    (quiz answers and Anki reviews in the window, each position once), the
    PR of the selection's matches dated before the window and since its
    first day (None on fewer than 10 decisions)."""
    plans_of = plans_of or {}
    first = (_dt.date.fromisoformat(today) - _dt.timedelta(days=days - 1)).isoformat()
    reviewed: dict = {}
    for a in actions:
        day = utc_day(a["at"])
        if a["action"] in REVIEW_ACTIONS and day is not None and first <= day <= today:
            reviewed.setdefault(plans_of.get(a["position_id"]), set()).add(a["position_id"])
    dec, mask, days_of = _decision_keys(sel, decision_type)
    e = np.nan_to_num(dec.error, nan=0.0) if len(dec) else np.zeros(0)
    plan_code = dec.game_plan.astype(np.int64) if len(dec) else np.zeros(0, dtype=np.int64)
    before = mask & of_decisions(dec, (days_of != "") & (days_of < first))
    since = mask & of_decisions(dec, days_of >= first)
    rows = []
    for k, plan in enumerate(ALL_GAME_PLANS):
        mine = plan_code == k
        nb, ns = int((before & mine).sum()), int((since & mine).sum())
        n_rev = len(reviewed.get(plan, ()))
        if not (nb or ns or n_rev):
            continue
        rows.append({"game_plan": plan, "positions_reviewed": n_rev,
                     "pr_before": rate(e[before & mine].sum(), nb) if nb >= MIN_PR_DECISIONS else None,
                     "decisions_before": nb,
                     "pr_since": rate(e[since & mine].sum(), ns) if ns >= MIN_PR_DECISIONS else None,
                     "decisions_since": ns})
    rows.sort(key=lambda r: (-r["positions_reviewed"], ALL_GAME_PLANS.index(r["game_plan"])))
    unknown = len(reviewed.get(None, ()))
    return {"days": days, "from": first, "to": today, "game_plans": rows, "positions_without_game_plan": unknown}
