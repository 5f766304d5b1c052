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
from typing import Optional

import numpy as np

from . import kernel, vocabulary
from ..arrays import Selection
from .counting import Thresholds
from .summary import band_of, selected

MIN_TREND_POINTS = 3
TREND_NOTE = "A trend is not a forecast."


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


def _side_counts(sel: Selection, mask: np.ndarray) -> np.ndarray:
    """Counted decisions per match side (index 2·match + player)."""
    dec = sel.decisions
    key = dec.match.astype(np.int64) * 2 + dec.player
    return np.bincount(key[mask], minlength=2 * sel.n_matches).astype(np.int64)


def _grouped(sel: Selection, mask: np.ndarray, side_group: np.ndarray, n_groups: int) -> list:
    """The kernel's figures per group of match sides (``side_group``: the
    group of each side, -1 none): decisions of those sides only, their
    matches as interval units, their √N as the L₇ denominator."""
    dec = sel.decisions
    groups = side_group[dec.match, dec.player] if len(dec) else np.zeros(0, dtype=np.int64)
    return kernel.all_figures(kernel.sums(sel, mask, groups, n_groups, side_groups=side_group))


ROW_KEYS = ("decisions", "pr", "pr_ci", "ci_note", "checker_pr", "cube_pr", "mwc_loss", "l7", "small")


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
    side_n = _side_counts(sel, mask)
    names = side_names(sel)
    order = sorted(events, key=lambda ev: (min((sel.matches[i].date for i in events[ev] if sel.matches[i].date),
                                                default="9999-99-99"), ev.casefold(), ev))
    side_group = np.full((sel.n_matches, 2), -1, dtype=np.int64)
    players = []
    for k, ev in enumerate(order):
        who = tournament_player(sel, events[ev], side_n, main_player, names)
        players.append(who)
        for i in events[ev]:
            for p in (0, 1):
                if sel.sides[i, p] and _low(names[i][p]) == _low(who):
                    side_group[i, p] = k
    figs = _grouped(sel, mask, side_group, len(order))
    out = []
    for k, ev in enumerate(order):
        idx = events[ev]
        dates = [sel.matches[i].date for i in idx if sel.matches[i].date]
        played = [i for i in idx if (side_group[i] == k).any()]
        out.append({"event": ev, "date": min(dates) if dates else None, "player": players[k],
                    "matches": len(played), **{key: figs[k][key] for key in ROW_KEYS}})
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
    side_group = np.where(sides, np.arange(sel.n_matches, dtype=np.int64)[:, None], -1)
    figs = _grouped(sel, mask, side_group, sel.n_matches)
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
        f = figs[i]
        out.append({
            "match_id": m.id, "date": m.date, "event": m.event, "players": list(m.players), "length": m.length,
            "player": player, "opponent": opponent,
            **{key: f[key] for key in ("decisions", "pr", "checker_pr", "cube_pr", "mwc_loss", "l7")},
        })
    return {"rows": out, "undated": undated, "without_player": without}


def current_figures(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
                    perspective: Optional[str] = None) -> dict:
    """The perspective's figures over the whole selection: ``decisions``,
    ``pr``, ``pr_ci``, ``mwc_loss``, ``l7``, ``matches``, ``level`` (the
    band's name), ``level_band`` (band_of)."""
    sides = perspective_sides(sel, perspective)
    mask = selected(sel, decision_type)
    row = _grouped(sel, mask, np.where(sides, 0, -1), 1)[0]
    band = band_of(row["pr"])
    return {"decisions": row["decisions"], "pr": row["pr"], "pr_ci": row["pr_ci"],
            "mwc_loss": row["mwc_loss"], "l7": row["l7"], "matches": int(sides.any(axis=1).sum()),
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
    key = vocabulary.metric(metric).figure
    perspective = sel.player_filter or main_player
    per_match = match_rows(sel, thresholds, decision_type, perspective)
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
