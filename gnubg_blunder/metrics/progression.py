"""The Progression view's figures (SPEC §14): per tournament, per match, the
goal and a least-squares trend; and the goal suggestion.

Pure functions over a :class:`Selection`: no SQL, no I/O.

Rules chosen here (docs/views-summary.md):

- The perspective of the per-match rows, the trend and the suggestion is
  one player: the filter's, else the main player; without either, both
  sides of every match are pooled (as ``stats`` does).  Matches the
  perspective player did not play are left out and counted.
- A tournament is an event name; its date is its earliest match date
  (undated tournaments last, by name).  Its PR is one player's: the
  filter's, else the main player if they played in it, else the player of
  most matches in it, then most counted decisions, then name order.
- The trend is an ordinary least-squares line of the per-match figure
  (one point per dated match with a figure) against the date in days,
  refused under 3 points or when all points share one date.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Optional

import numpy as np

from .arrays import Selection
from .counting import K_CHECKER, Thresholds
from .elo import l7_of_aggregate
from .groups import SMALL_ROW, interval_note
from .intervals import ratio_interval
from .summary import PR_SCALE, band_of, mwc_of, selected

MIN_TREND_POINTS = 3
TREND_NOTE = "A trend is not a forecast."
METRIC_KEYS = {"pr": "pr", "mwc": "mwc_loss", "mwc7": "l7"}
METRIC_NAMES = {"pr": "PR", "mwc": "MWC lost", "mwc7": "MWC-7 (L7)"}


def _low(name: Optional[str]) -> Optional[str]:
    return None if name is None else name.casefold()


def side_names(sel: Selection) -> list:
    """The players of each match as the filter knows them (aliases merged)."""
    return [tuple(m.names) if m.names else tuple(m.players) for m in sel.matches]


def perspective_sides(sel: Selection, player: Optional[str]) -> np.ndarray:
    """sides[m, p]: side p of match m is ``player`` (within the filter's
    sides); without a player, the filter's sides."""
    if player is None:
        return sel.sides.copy()
    want = _low(player)
    names = side_names(sel)
    own = np.array([[_low(n[0]) == want, _low(n[1]) == want] for n in names], dtype=bool).reshape(-1, 2)
    return own & sel.sides


def _decision_sides(sel: Selection, sides: np.ndarray) -> np.ndarray:
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool)
    return sides[dec.match, dec.player]


def _side_sums(sel: Selection, mask: np.ndarray) -> tuple:
    """(counted decisions, L) per match side (index 2·match + player) over
    ``mask``: one pass, so that a large selection stays linear."""
    dec = sel.decisions
    n = 2 * sel.n_matches
    if not len(dec):
        return np.zeros(n, dtype=np.int64), np.zeros(n)
    key = dec.match.astype(np.int64) * 2 + dec.player
    ell = mwc_of(sel)
    mp = mask & ~np.isnan(ell)
    return (np.bincount(key[mask], minlength=n).astype(np.int64),
            np.bincount(key[mp], weights=ell[mp], minlength=n))


def _match_sums(sel: Selection, keep: np.ndarray) -> dict:
    """Per match sums over the decisions of ``keep`` (one pass; each match
    belongs to one tournament, so tournament rows add these up rather than
    hold a tournaments × matches grid): n, n_chk, e, e_chk, ell, n_mp."""
    dec = sel.decisions
    nm = sel.n_matches
    if not len(dec):
        z = np.zeros(nm)
        return {"n": z.astype(np.int64), "n_chk": z.astype(np.int64), "e": z, "e_chk": z, "ell": z,
                "n_mp": z.astype(np.int64)}
    e = np.nan_to_num(dec.error, nan=0.0)
    chk = keep & (dec.kind == K_CHECKER)
    ell = mwc_of(sel)
    mp = keep & ~np.isnan(ell)
    return {
        "n": np.bincount(dec.match[keep], minlength=nm).astype(np.int64),
        "n_chk": np.bincount(dec.match[chk], minlength=nm).astype(np.int64),
        "e": np.bincount(dec.match[keep], weights=e[keep], minlength=nm),
        "e_chk": np.bincount(dec.match[chk], weights=e[chk], minlength=nm),
        "ell": np.bincount(dec.match[mp], weights=ell[mp], minlength=nm),
        "n_mp": np.bincount(dec.match[mp], minlength=nm).astype(np.int64),
    }


def _figures(sums: dict, idx) -> dict:
    """PR, checker / cube PR, MWC lost and the PR interval (matches as
    units, SPEC §7) over the matches ``idx`` of :func:`_match_sums`."""
    idx = np.asarray(idx, dtype=np.int64)
    n = int(sums["n"][idx].sum())
    n_chk = int(sums["n_chk"][idx].sum())
    e = float(sums["e"][idx].sum())
    e_chk = float(sums["e_chk"][idx].sum())
    units = idx[sums["n"][idx] > 0]
    ue, un = sums["e"][units], sums["n"][units]
    ci = ratio_interval(ue, un, PR_SCALE)
    return {
        "decisions": n,
        "pr": PR_SCALE * e / n if n else None,
        "pr_ci": None if ci is None else [ci[0], ci[1]],
        "ci_note": None if ci is not None else (interval_note(ue, un) if n else "no decisions"),
        "checker_pr": PR_SCALE * e_chk / n_chk if n_chk else None,
        "cube_pr": PR_SCALE * (e - e_chk) / (n - n_chk) if n - n_chk else None,
        "mwc_loss": 100 * float(sums["ell"][idx].sum()) if sums["n_mp"][idx].sum() else None,
        "small": n < SMALL_ROW,
    }


def _l7_of_sides(sel: Selection, L_side: np.ndarray, sides: np.ndarray, matches) -> Optional[float]:
    """L₇ (pp) over the given sides of ``matches``: √7 × ΣL / Σ√N (SPEC §5)."""
    losses, lengths = [], []
    for i in matches:
        m = sel.matches[i]
        for p in (0, 1):
            if sides[i, p] and not m.is_money:
                losses.append(L_side[2 * i + p])
                lengths.append(m.length)
    l7 = l7_of_aggregate(losses, lengths)
    return None if l7 is None else 100 * float(l7)


# -- tournaments ------------------------------------------------------------------

def tournament_player(sel: Selection, match_idx: list, side_n: np.ndarray, main_player: Optional[str],
                      names: Optional[list] = None) -> str:
    """SPEC §14: the one player whose PR a tournament row shows: the
    filter's player, else the main player if they played in it, else the
    player of most matches in it, then of most counted decisions, then by
    name order (without case).  ``side_n``: counted decisions per match
    side (index 2·match + player); ``names``: :func:`side_names` (computed
    when not given)."""
    names = names if names is not None else side_names(sel)
    if sel.player_filter:
        return sel.player_filter
    present = {}
    for i in match_idx:
        for p in (0, 1):
            if sel.sides[i, p]:
                present.setdefault(_low(names[i][p]), names[i][p])
    if main_player is not None and _low(main_player) in present:
        return present[_low(main_player)]
    n_matches = {k: 0 for k in present}
    for i in match_idx:
        for k in {_low(names[i][p]) for p in (0, 1) if sel.sides[i, p]}:
            n_matches[k] += 1
    n_dec = {k: 0 for k in present}
    for i in match_idx:
        for p in (0, 1):
            if sel.sides[i, p]:
                n_dec[_low(names[i][p])] += int(side_n[2 * i + p])
    best = min(present, key=lambda k: (-n_matches[k], -n_dec[k], k, present[k]))
    return present[best]


def tournament_rows(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
                    main_player: Optional[str] = None) -> list:
    """One row per event (matches without an event are not a tournament),
    in date order (its earliest match date; undated events last, by name):
    ``event``, ``date``, ``player`` (:func:`tournament_player`),
    ``matches`` (that player's in it), ``decisions``, ``pr``, ``pr_ci``
    (matches as units), ``ci_note``, ``checker_pr``, ``cube_pr``,
    ``mwc_loss``, ``l7``, ``small`` (under 10 decisions)."""
    events: dict = {}
    for i, m in enumerate(sel.matches):
        if m.event and sel.sides[i].any():
            events.setdefault(m.event, []).append(i)
    if not events:
        return []
    mask = selected(sel, decision_type)
    side_n, L_side = _side_sums(sel, mask)
    names = side_names(sel)
    order = sorted(events, key=lambda ev: (min((sel.matches[i].date for i in events[ev] if sel.matches[i].date),
                                                default="9999-99-99"), ev.casefold(), ev))
    chosen = np.zeros((sel.n_matches, 2), dtype=bool)
    players = []
    for k, ev in enumerate(order):
        who = tournament_player(sel, events[ev], side_n, main_player, names)
        players.append(who)
        for i in events[ev]:
            for p in (0, 1):
                chosen[i, p] = sel.sides[i, p] and _low(names[i][p]) == _low(who)
    sums = _match_sums(sel, mask & _decision_sides(sel, chosen))
    out = []
    for k, ev in enumerate(order):
        idx = events[ev]
        dates = [sel.matches[i].date for i in idx if sel.matches[i].date]
        played = [i for i in idx if chosen[i].any()]
        out.append({"event": ev, "date": min(dates) if dates else None, "player": players[k],
                    "matches": len(played), **_figures(sums, played),
                    "l7": _l7_of_sides(sel, L_side, chosen, played)})
    return out


# -- matches ----------------------------------------------------------------------

def match_rows(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
               perspective: Optional[str] = None) -> dict:
    """Per match, for the perspective player (else the filter's sides
    pooled): {"rows": [...], "undated": [match ids], "without_player":
    [match ids]}.  Rows, in match order, dated matches only: ``match_id``,
    ``date``, ``event``, ``players``, ``length``, ``player``,
    ``opponent`` (None when sides are pooled), ``decisions``, ``pr``,
    ``checker_pr``, ``cube_pr``, ``mwc_loss``, ``l7``."""
    sides = perspective_sides(sel, perspective)
    mask = selected(sel, decision_type)
    _, L_side = _side_sums(sel, mask)
    sums = _match_sums(sel, mask & _decision_sides(sel, sides))
    n, n_chk, e, e_chk = sums["n"], sums["n_chk"], sums["e"], sums["e_chk"]
    # L₇ of one match: √7 × (L of its selected sides) / (sides × √N)
    n_sides = sides.sum(axis=1)
    L = (L_side.reshape(-1, 2) * sides).sum(axis=1) if sel.n_matches else np.zeros(0)
    out, undated, without = [], [], []
    for i, m in enumerate(sel.matches):
        if not sides[i].any():
            without.append(m.id)
            continue
        if not m.date:
            undated.append(m.id)
            continue
        player = opponent = None
        if perspective is not None:
            p = 0 if sides[i, 0] else 1
            player, opponent = m.players[p], m.players[1 - p]
        k, k_chk = int(n[i]), int(n_chk[i])
        out.append({
            "match_id": m.id, "date": m.date, "event": m.event, "players": list(m.players), "length": m.length,
            "player": player, "opponent": opponent, "decisions": k,
            "pr": PR_SCALE * float(e[i]) / k if k else None,
            "checker_pr": PR_SCALE * float(e_chk[i]) / k_chk if k_chk else None,
            "cube_pr": PR_SCALE * float(e[i] - e_chk[i]) / (k - k_chk) if k - k_chk else None,
            "mwc_loss": 100 * float(sums["ell"][i]) if sums["n_mp"][i] else None,
            "l7": (100 * math.sqrt(7) * float(L[i]) / (int(n_sides[i]) * math.sqrt(m.length))
                   if k and not m.is_money else None),
        })
    return {"rows": out, "undated": undated, "without_player": without}


def current_figures(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
                    perspective: Optional[str] = None) -> dict:
    """The perspective's figures over the whole selection: ``decisions``,
    ``pr``, ``pr_ci``, ``mwc_loss``, ``l7``, ``matches``, ``level`` (the
    band's name), ``level_band`` (band_of)."""
    sides = perspective_sides(sel, perspective)
    mask = selected(sel, decision_type)
    played = [i for i in range(sel.n_matches) if sides[i].any()]
    row = _figures(_match_sums(sel, mask & _decision_sides(sel, sides)), played)
    _, L_side = _side_sums(sel, mask)
    l7 = _l7_of_sides(sel, L_side, sides, played)
    band = band_of(row["pr"])
    return {"decisions": row["decisions"], "pr": row["pr"], "pr_ci": row["pr_ci"],
            "mwc_loss": row["mwc_loss"], "l7": l7, "matches": len(played),
            "level": None if band is None else band["name"], "level_band": band}


# -- trend ------------------------------------------------------------------------

def _day(iso: str) -> int:
    return dt.date.fromisoformat(iso[:10]).toordinal()


def trend(points: list, deadline: Optional[str] = None) -> dict:
    """Ordinary least squares of value against date (days) over ``points``
    [(ISO date, value)]: {"points", "refused" (a sentence, or None),
    "slope_per_day", "slope_per_30_days", "from", "to", "value_at_first",
    "value_at_last", "deadline", "at_deadline"}."""
    n = len(points)
    out = {"points": n, "refused": None, "slope_per_day": None, "slope_per_30_days": None,
           "from": None, "to": None, "value_at_first": None, "value_at_last": None,
           "deadline": deadline, "at_deadline": None}
    if n < MIN_TREND_POINTS:
        out["refused"] = (f"No trend: {n} dated match{'es' if n != 1 else ''} with a figure; a line needs at "
                          f"least {MIN_TREND_POINTS}, and one through fewer would claim what it cannot hold.")
        return out
    x = np.array([_day(d) for d, _ in points], dtype=np.float64)
    y = np.array([v for _, v in points], dtype=np.float64)
    x0 = float(x.min())
    xs = x - x0
    sxx = float(((xs - xs.mean()) ** 2).sum())
    if sxx == 0:
        out["refused"] = f"No trend: all {n} matches are on one date."
        return out
    slope = float(((xs - xs.mean()) * (y - y.mean())).sum()) / sxx
    intercept = float(y.mean()) - slope * float(xs.mean())
    first, last = dt.date.fromordinal(int(x.min())).isoformat(), dt.date.fromordinal(int(x.max())).isoformat()
    out.update({"slope_per_day": slope, "slope_per_30_days": 30 * slope, "from": first, "to": last,
                "value_at_first": intercept, "value_at_last": intercept + slope * float(xs.max())})
    if deadline:
        out["at_deadline"] = float(intercept + slope * (_day(deadline) - x0))
    return out


def _meets(value: Optional[float], op: str, target: float) -> Optional[bool]:
    if value is None:
        return None
    return bool(value < target) if op == "<" else bool(value <= target)


def progression_figures(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    metric: str = "pr",
    main_player: Optional[str] = None,
    goal: Optional[dict] = None,
) -> dict:
    """Everything the Progression shows: ``metric``, ``perspective`` (the
    player, or None for pooled sides), ``current`` (:func:`current_figures`),
    ``tournaments`` (:func:`tournament_rows`), ``matches`` (rows),
    ``undated_matches`` / ``undated_match_ids`` (left out and counted),
    ``matches_without_player`` (ids), ``goal`` (as stored, or None, with
    ``comparable``: the goal's metric is the one shown, ``now_meets``),
    ``trend`` (:func:`trend` over the shown metric, with ``meets_goal``),
    ``trend_note``."""
    if metric not in METRIC_KEYS:
        raise ValueError(f"unknown metric {metric!r} (pr, mwc or mwc7)")
    perspective = sel.player_filter or main_player
    per_match = match_rows(sel, thresholds, decision_type, perspective)
    key = METRIC_KEYS[metric]
    points = [(r["date"], r[key]) for r in per_match["rows"] if r[key] is not None]
    current = current_figures(sel, thresholds, decision_type, perspective)
    goal_out = None
    deadline = None
    if goal:
        deadline = goal.get("deadline")
        comparable = goal.get("metric") == metric
        goal_out = dict(goal, comparable=comparable,
                        now_meets=_meets(current[key], goal["op"], goal["target"]) if comparable else None)
    tr = trend(points, deadline)
    tr["metric"] = metric
    tr["meets_goal"] = (_meets(tr["at_deadline"], goal["op"], goal["target"])
                        if goal and goal_out["comparable"] and tr["at_deadline"] is not None else None)
    return {
        "metric": metric,
        "perspective": perspective,
        "current": current,
        "tournaments": tournament_rows(sel, thresholds, decision_type, main_player),
        "matches": per_match["rows"],
        "undated_matches": len(per_match["undated"]),
        "undated_match_ids": per_match["undated"],
        "matches_without_player": per_match["without_player"],
        "goal": goal_out,
        "trend": tr,
        "trend_note": TREND_NOTE,
    }


# -- goal suggestion ----------------------------------------------------------------

def goal_suggestion_figures(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
                            perspective: Optional[str] = None) -> dict:
    """SPEC §14 "suggest": the lower bound of the band of the perspective's
    PR.  {"player", "decisions", "pr", "level_band" (band_of), "target" (the
    band's lower edge; None for World class, the first band, or without a
    PR)}."""
    cur = current_figures(sel, thresholds, decision_type, perspective)
    band = cur["level_band"]
    return {"player": perspective, "decisions": cur["decisions"], "pr": cur["pr"], "level_band": band,
            "target": None if band is None else band["low"]}
