"""The tournament review (SPEC §13): one player's tournament against their
usual level, with the breakdowns in PR.

Pure functions over a :class:`Selection` (every stored match the review may
use, without a player filter): no SQL, no I/O.  The rules (docs/tournament.md):

- **Tournament** = an event name (compared without case, as ``--tournament``
  compares it); its date is its earliest match date (as the progression's).
- **Player**: the asked player (the filter's) when given; else the main
  player if they played in it; else the player of most matches in it, then
  most counted decisions, then name order (``progression.tournament_player``).
- **Usual level**: that player's match-play matches dated in the 365 days
  before the tournament's date — from date − 365 days to date − 1 day, both
  included, i.e. ``--from D-365 --to D-1`` — the tournament's own matches
  left out; needs ≥ 5 matches.  An undated tournament has no window.
- **Δ** = tournament − usual (PR, L₇); σ = √(σₜ² + σᵤ²), each σ the upper
  half-width of its 95 % interval / 1.96 (the lower bound is floored at 0,
  the upper one is not); Δ ± 1.96σ: "worse" when the lower bound > 0,
  "better" when the upper bound < 0, else "as usual"; "insufficient" (the
  figures still given) without an interval on either side, under 20
  decisions on either side, or under 5 usual matches.
- **Breakdowns in PR**, each cell judged by the same rule: per round (each
  tournament match, games as interval units, against the usual overall PR);
  per decision index (the player's own counted decisions in the match, every
  type, numbered in play order, in bands of 30) against the same band of the
  usual level; per score (DMP, Crawford game, post-Crawford, other: the first
  that matches); per pace (below / at or above the median duration of the
  side's decisions with a duration), only where durations exist.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Optional

import numpy as np

from . import kernel
from ..arrays import Selection
from .counting import Thresholds, counted, kind_mask
from .intervals import Z95, side_of_zero
from .progression import _side_counts, side_names, tournament_player

USUAL_DAYS = 365
MIN_USUAL_MATCHES = 5
MIN_DECISIONS = 20
INDEX_BAND = 30
SCORE_CELLS = ("DMP", "Crawford game", "post-Crawford", "other")
PACE_CELLS = ("below the median", "at or above the median")
NO_DURATIONS = "no durations"
MAX_FAMILIES = 3

WORSE, BETTER, AS_USUAL, INSUFFICIENT = "worse", "better", "as usual", "insufficient"


def _low(name: Optional[str]) -> str:
    return (name or "").casefold()


# -- the tournaments of a selection -----------------------------------------------

def events(sel: Selection) -> dict:
    """{event key (lower case): [match indices]} of the matches naming an
    event (matches without an event are not a tournament)."""
    out: dict = {}
    for i, m in enumerate(sel.matches):
        if m.event and m.event.strip():
            out.setdefault(m.event.lower(), []).append(i)
    return out


def event_date(sel: Selection, idx: list) -> Optional[str]:
    """A tournament's date: its earliest match date (None: all undated)."""
    dates = [sel.matches[i].date[:10] for i in idx if sel.matches[i].date]
    return min(dates) if dates else None


def event_names(sel: Selection) -> list:
    """The event names as stored (one spelling each), sorted without case."""
    ev = events(sel)
    return sorted((sel.matches[idx[0]].event for idx in ev.values()), key=lambda s: (s.casefold(), s))


def latest_event(sel: Selection, player: Optional[str] = None) -> Optional[str]:
    """The default tournament: the latest by date (its earliest match date;
    ties: the later last match, then the later in the selection's order) of
    those ``player`` played in; when they played in none (or no player), the
    latest of all.  Undated tournaments come before every dated one, in the
    selection's order (import order).  None without any event."""
    ev = events(sel)
    if not ev:
        return None
    names = side_names(sel)

    def played(idx):
        return any(_low(names[i][p]) == _low(player) and sel.sides[i, p] for i in idx for p in (0, 1))

    pool = {k: v for k, v in ev.items() if player and played(v)} or ev

    def key(k):
        idx = pool[k]
        d = event_date(sel, idx)
        last = max((sel.matches[i].date[:10] for i in idx if sel.matches[i].date), default="")
        return (d is not None, d or "", last, max(idx))

    best = max(pool, key=key)
    return sel.matches[pool[best][0]].event


# -- the comparison rule ---------------------------------------------------------

def sigma_of(value: Optional[float], ci) -> Optional[float]:
    """σ read from an interval: its upper half-width / 1.96 (the lower bound
    is floored at 0, the upper one is not)."""
    if value is None or not ci:
        return None
    return (float(ci[1]) - float(value)) / Z95


def compare(t_value, t_ci, t_n: int, u_value, u_ci, u_n: int, usual_ok: bool = True) -> dict:
    """Δ = t − u, σ = √(σₜ² + σᵤ²), Δ ± 1.96σ and the verdict (SPEC §13):
    {"delta", "sigma", "delta_ci", "verdict", "why"} — ``why`` says what
    makes it "insufficient" (None otherwise)."""
    delta = None if t_value is None or u_value is None else float(t_value) - float(u_value)
    st, su = sigma_of(t_value, t_ci), sigma_of(u_value, u_ci)
    sigma = None if st is None or su is None else math.sqrt(st * st + su * su)
    ci = None if delta is None or sigma is None else [delta - Z95 * sigma, delta + Z95 * sigma]
    why = []
    if not usual_ok:
        why.append(f"under {MIN_USUAL_MATCHES} usual matches")
    if t_n < MIN_DECISIONS or u_n < MIN_DECISIONS:
        why.append(f"under {MIN_DECISIONS} decisions on a side")
    if t_ci is None or u_ci is None:
        why.append("no interval on a side")
    verdict = INSUFFICIENT if why or ci is None else side_of_zero(ci, WORSE, BETTER, AS_USUAL)
    return {"delta": delta, "sigma": sigma, "delta_ci": ci, "verdict": verdict, "why": "; ".join(why) or None}


# -- the pieces -------------------------------------------------------------------

def _side_mask(sel: Selection, player: str, matches: list) -> np.ndarray:
    """sides[m, p]: side p of match m (among ``matches``) is ``player``."""
    names = side_names(sel)
    sides = np.zeros((sel.n_matches, 2), dtype=bool)
    for i in matches:
        for p in (0, 1):
            sides[i, p] = bool(sel.sides[i, p]) and _low(names[i][p]) == _low(player)
    return sides


def usual_window(date: Optional[str]) -> Optional[tuple]:
    """(first, last) ISO days of the usual level's window: date − 365 days
    to date − 1 day, both included; None for an undated tournament."""
    if not date:
        return None
    d = dt.date.fromisoformat(date[:10])
    return ((d - dt.timedelta(days=USUAL_DAYS)).isoformat(), (d - dt.timedelta(days=1)).isoformat())


def _figures_of(s: kernel.Sums, k: int) -> dict:
    f = kernel.figures(s, k)
    return {key: f[key] for key in ("decisions", "pr", "pr_ci", "l7", "l7_ci")}


def _pr_cell(f: dict) -> dict:
    return {"decisions": f["decisions"], "pr": f["pr"], "pr_ci": f["pr_ci"]}


def _judged(cell: dict, t: dict, u: dict, usual_ok: bool) -> dict:
    c = compare(t["pr"], t["pr_ci"], t["decisions"], u["pr"], u["pr_ci"], u["decisions"], usual_ok)
    cell.update({"delta_pr": c["delta"], "sigma_pr": c["sigma"], "delta_pr_ci": c["delta_ci"],
                 "verdict_pr": c["verdict"], "why": c["why"]})
    return cell


def decision_index(sel: Selection, mask: np.ndarray) -> np.ndarray:
    """The 1-based number of each decision of ``mask`` among the decisions of
    ``mask`` of its match side, in play order (game, move); 0 elsewhere."""
    dec = sel.decisions
    out = np.zeros(len(dec), dtype=np.int32)  # numbers within a match side: far below 2**31
    idx = np.flatnonzero(mask)
    if not len(idx):
        return out
    order = idx[np.lexsort((idx, dec.seq[idx], dec.game[idx], dec.player[idx], dec.match[idx]))]
    side = dec.match[order].astype(np.int64) * 2 + dec.player[order]
    start = np.r_[True, side[1:] != side[:-1]]
    first = np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))
    out[order] = np.arange(len(order)) - first + 1
    return out


def score_cell(sel: Selection) -> np.ndarray:
    """The score cell of each decision (index into ``SCORE_CELLS``), the
    first that matches: DMP (both players 1 away), the Crawford game,
    post-Crawford (one player 1 away, not the Crawford game), other (money
    and unknown scores included)."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=np.int64)
    # a decision's "one away" score (length − 1) in the scores' own small integers: no 8-byte copies
    lengths = np.array([m.length for m in sel.matches], dtype=np.int64)
    one_away = np.where(lengths > 0, lengths - 1, -2).astype(np.int32)[dec.match]  # -2: money or unknown
    a, b = dec.score_self, dec.score_opp
    known = (one_away >= 0) & (a >= 0) & (b >= 0)
    away1_a, away1_b = known & (a == one_away), known & (b == one_away)
    del one_away
    cell = np.full(len(dec), 3, dtype=np.int32)
    cell[away1_a | away1_b] = 2
    cell[known & (dec.crawford == 1)] = 1
    cell[away1_a & away1_b] = 0
    return cell


def pace_cell(sel: Selection, masks: list) -> tuple:
    """Per side mask (tournament, usual): -1 (no duration), 0 below the
    median duration of that side's decisions with a duration, 1 at or above
    it; and the medians (None without durations)."""
    dec = sel.decisions
    dur = dec.duration if len(dec) else np.zeros(0)
    cell = np.full(len(dec), -1, dtype=np.int32)
    medians = []
    for m in masks:
        has = m & ~np.isnan(dur)
        if not has.any():
            medians.append(None)
            continue
        med = float(np.median(dur[has]))
        medians.append(med)
        cell[has] = np.where(dur[has] < med, 0, 1)
    return cell, medians


def _cells(sel, mask_t, mask_u, cell_of, n_cells, usual_ok, names) -> list:
    """One row per cell: the tournament's and the usual level's PR in it
    (matches as interval units) and their comparison."""
    groups = np.full(len(sel.decisions), -1, dtype=np.int32)  # 4 bytes a decision: a few cells
    groups[mask_t & (cell_of >= 0)] = cell_of[mask_t & (cell_of >= 0)]
    groups[mask_u & (cell_of >= 0)] = n_cells + cell_of[mask_u & (cell_of >= 0)]
    s = kernel.sums(sel, mask_t | mask_u, groups, 2 * n_cells)
    out = []
    for k in range(n_cells):
        t, u = _pr_cell(kernel.figures(s, k)), _pr_cell(kernel.figures(s, n_cells + k))
        out.append(_judged({"cell": names[k], "tournament": t, "usual": u}, t, u, usual_ok))
    return out


# -- the review ---------------------------------------------------------------------

def tournament_review(
    sel: Selection,
    event: str,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    main_player: Optional[str] = None,
    player: Optional[str] = None,
    study_plan=None,
) -> dict:
    """The review of ``event`` (a stored event name, any case) over ``sel``
    (every match the review may use: the tournament's and its usual window's,
    no player filter).  ``player``: the asked player (must have played in
    it), else the SPEC §13 rule with ``main_player``.  ``study_plan``:
    ``metrics.plan.study_plan`` (or None: no families).

    Returns ``event``, ``date``, ``player``, ``player_rule``, ``usual``
    {``matches``, ``decisions``, ``pr``, ``pr_ci``, ``l7``, ``l7_ci``,
    ``from``, ``to``, ``match_ids``, ``money_left_out``}, ``tournament``
    {``matches``, ``decisions``, ``pr``, ``pr_ci``, ``l7``, ``l7_ci``,
    ``match_ids``}, ``delta_pr``, ``sigma_pr``, ``delta_pr_ci``,
    ``verdict_pr``, ``why_pr``, the same for L₇, ``rounds``,
    ``by_decision_index``, ``by_score``, ``by_pace``, ``families``,
    ``families_note``.  Raises KeyError for an event no match of ``sel``
    names, ValueError for a player who did not play in it."""
    ev = events(sel)
    key = event.lower()
    if key not in ev:
        raise KeyError(event)
    t_idx = ev[key]
    name = sel.matches[t_idx[0]].event
    date = event_date(sel, t_idx)
    names = side_names(sel)
    dec = sel.decisions
    base = counted(dec) & kind_mask(dec, decision_type) if len(dec) else np.zeros(0, dtype=bool)

    if player is not None:
        present = {_low(names[i][p]): names[i][p] for i in t_idx for p in (0, 1) if sel.sides[i, p]}
        if _low(player) not in present:
            raise ValueError(player)
        who, rule = present[_low(player)], "the filter's player"
    else:
        side_n = _side_counts(sel, base & kernel.side_mask(sel))
        who = tournament_player(sel, t_idx, side_n, main_player, names)
        rule = ("the main player" if main_player and _low(who) == _low(main_player)
                else "the player of most matches, then decisions, then name")

    window = usual_window(date)
    in_event = set(t_idx)
    u_idx, money_out = [], 0
    money = kernel.money_matches(sel)
    if window:
        for i, m in enumerate(sel.matches):
            if i in in_event or not m.date or not (window[0] <= m.date[:10] <= window[1]):
                continue
            if not any(sel.sides[i, p] and _low(names[i][p]) == _low(who) for p in (0, 1)):
                continue
            if money[i]:
                money_out += 1
                continue
            u_idx.append(i)
    t_sides, u_sides = _side_mask(sel, who, t_idx), _side_mask(sel, who, u_idx)
    t_played = [i for i in t_idx if t_sides[i].any()]
    on = (lambda sides: sides[dec.match, dec.player] if len(dec) else np.zeros(0, dtype=bool))
    mask_t, mask_u = base & on(t_sides), base & on(u_sides)

    # the two sides overall: group 0 the tournament, 1 the usual level
    side_group = np.where(t_sides, 0, np.where(u_sides, 1, -1)).astype(np.int64)
    groups = np.full(len(dec), -1, dtype=np.int32)
    groups[mask_t], groups[mask_u] = 0, 1
    s = kernel.sums(sel, mask_t | mask_u, groups, 2, side_groups=side_group, thresholds=thresholds)
    t, u = _figures_of(s, 0), _figures_of(s, 1)
    t.update(matches=len(t_played), match_ids=[sel.matches[i].id for i in t_played])
    u.update(matches=len(u_idx), match_ids=[sel.matches[i].id for i in u_idx],
             **{"from": window[0] if window else None, "to": window[1] if window else None},
             money_left_out=money_out)
    usual_ok = len(u_idx) >= MIN_USUAL_MATCHES
    out = {"event": name, "date": date, "player": who, "player_rule": rule, "usual": u, "tournament": t}
    for metric in ("pr", "l7"):
        c = compare(t[metric], t[f"{metric}_ci"], t["decisions"], u[metric], u[f"{metric}_ci"], u["decisions"],
                    usual_ok)
        if not window:
            c["why"] = "the tournament has no date: no usual window" + (f"; {c['why']}" if c["why"] else "")
        out.update({f"delta_{metric}": c["delta"], f"sigma_{metric}": c["sigma"],
                    f"delta_{metric}_ci": c["delta_ci"], f"verdict_{metric}": c["verdict"],
                    f"why_{metric}": c["why"]})

    # per round: each tournament match (games as units) against the usual PR
    r_groups = np.full(len(dec), -1, dtype=np.int32)
    r_sides = np.full((sel.n_matches, 2), -1, dtype=np.int64)
    for k, i in enumerate(t_played):
        r_groups[mask_t & (dec.match == i)] = k
        r_sides[i][t_sides[i]] = k
    rs = kernel.sums(sel, mask_t, r_groups, len(t_played), side_groups=r_sides, unit="game")
    rounds = []
    for k, i in enumerate(t_played):
        m = sel.matches[i]
        p = 0 if t_sides[i, 0] else 1
        f = _pr_cell(kernel.figures(rs, k))
        stored = m.round is not None and str(m.round).strip() != ""
        row = {"match_id": m.id, "round": str(m.round).strip() if stored else str(k + 1),
               "round_source": "stored" if stored else "order", "date": m.date, "opponent": m.players[1 - p],
               "length": m.length, **f, "usual_pr": u["pr"]}
        rounds.append(_judged(row, f, u, usual_ok))

    # per decision index (bands of 30, numbered over every counted decision of the side)
    numbered = decision_index(sel, counted(dec) & (on(t_sides) | on(u_sides)) if len(dec) else base)
    band = np.where(numbered > 0, (numbered - 1) // INDEX_BAND, -1)
    n_bands = int(band[mask_t].max()) + 1 if mask_t.any() else 0
    band_names = [f"{INDEX_BAND * k + 1}–{INDEX_BAND * (k + 1)}" for k in range(n_bands)]
    by_index = _cells(sel, mask_t, mask_u, np.where(band < n_bands, band, -1), n_bands, usual_ok, band_names)

    by_score = _cells(sel, mask_t, mask_u, score_cell(sel), len(SCORE_CELLS), usual_ok, SCORE_CELLS)

    pace, medians = pace_cell(sel, [mask_t, mask_u])
    if medians[0] is None:
        by_pace = {"durations": False, "note": NO_DURATIONS, "median_s": None, "usual_median_s": medians[1],
                   "cells": []}
    else:
        by_pace = {"durations": True, "note": None if medians[1] is not None else "no durations in the usual level",
                   "median_s": medians[0], "usual_median_s": medians[1],
                   "cells": _cells(sel, mask_t, mask_u, pace, len(PACE_CELLS), usual_ok, PACE_CELLS)}
    out.update(rounds=rounds, by_decision_index=by_index, by_score=by_score, by_pace=by_pace)
    out.update(families_of(sel, mask_t, thresholds, study_plan))
    return out


def families_of(sel: Selection, mask: np.ndarray, thresholds: Thresholds, study_plan=None) -> dict:
    """At most three study-plan families of the tournament's decisions
    (``study_plan(sel, mask, thresholds)``, metrics/plan.py, in the study
    half's default cost, pr: R in mpt): those in the plan first, in the
    plan's order, then those "to confirm" by recoverable R descending
    (without R last), then name.  ``families_outside``: the plan's
    ``outside`` counts; ``families_unit``: R's unit."""
    if study_plan is None:
        return {"families": [], "families_note": "no study plan available", "families_outside": None,
                "families_unit": None}
    plan = study_plan(sel, mask, thresholds)
    rows = list(plan.get("families") or [])
    in_plan = [f for f in rows if f.get("status") == "plan"]
    others = sorted((f for f in rows if f.get("status") != "plan"),
                    key=lambda f: (f.get("recoverable") is None, -(f.get("recoverable") or 0.0), f.get("family")))
    fams = (in_plan + others)[:MAX_FAMILIES]
    return {"families": fams, "families_note": None if fams else "no family among the tournament's errors",
            "families_outside": plan.get("outside"), "families_unit": plan.get("unit")}
