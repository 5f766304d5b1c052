"""Figures per player (SPEC §14 "Players" and "Corpus"): the players table,
compare, contrast, ranking, head-to-head and rolling calendar windows.

Pure functions over a :class:`Selection`: no SQL, no I/O.  A player is a
canonical name (aliases merged by the store, ``MatchInfo.names``) without
case, as the filter's player is.  Every per-player figure is
:func:`figures.aggregate` over that player's match sides, so a player's row
is, by construction, ``stats --player NAME`` with the same filter (SPEC §3:
Σ/Σ over the sides; §7: matches as units; §5: L₇ aggregated with √N).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Optional

import numpy as np

from ..arrays import DecisionArrays, RollArrays, Selection
from .counting import K_CHECKER, K_DOUBLE, K_NO_DOUBLE, K_PASS, K_TAKE, Thresholds, counted, kind_mask
from . import vocabulary
from .figures import DIFFICULTY_KEYS, aggregate, aggregates
from .levels import level_band

# -- players ------------------------------------------------------------------


def player_key(name: Optional[str], aliases: Optional[dict] = None) -> Optional[str]:
    """The key of a name as the store's player filter reads it: the alias'
    canonical name if any, without case."""
    if name is None:
        return None
    aliases = aliases or {}
    return aliases.get(name.lower(), name).lower()


@dataclass
class Players:
    """The players of a selection: ``keys[i]`` (canonical, lower case),
    ``names[i]`` (the spelling shown: the most frequent, then the first met),
    ``owner[m, p]`` = index of the player of side p of match m."""

    keys: list
    names: list
    owner: np.ndarray
    _matches: Optional[list] = None

    def matches_of(self, g: int) -> np.ndarray:
        """Indices of the matches where player g has a side (in order)."""
        if self._matches is None:
            flat = self.owner.reshape(-1)
            order = np.argsort(flat, kind="stable")
            bounds = np.searchsorted(flat[order], np.arange(len(self.keys) + 1))
            self._matches = [np.unique(order[bounds[k]: bounds[k + 1]] // 2) for k in range(len(self.keys))]
        return self._matches[g]

    def index(self, key: Optional[str]) -> Optional[int]:
        try:
            return self.keys.index(key)
        except ValueError:
            return None

    def like(self, fragment: str, limit: int = 5) -> list:
        """Names containing ``fragment`` (for "did you mean")."""
        f = fragment.casefold()
        return [n for n in self.names if f in n.casefold()][:limit]


def players_of(sel: Selection) -> Players:
    keys: list = []
    index: dict = {}
    spellings: list = []
    owner = np.full((sel.n_matches, 2), -1, dtype=np.int64)
    for mi, m in enumerate(sel.matches):
        names = m.names or m.players
        for p in (0, 1):
            name = names[p] or ""
            key = name.lower()
            if key not in index:
                index[key] = len(keys)
                keys.append(key)
                spellings.append({})
            g = index[key]
            owner[mi, p] = g
            spellings[g][name] = spellings[g].get(name, 0) + 1
    shown = [max(s.items(), key=lambda kv: kv[1])[0] for s in spellings]  # first met wins ties
    return Players(keys, shown, owner)


class Subsets:
    """Sub-selections of a selection (some of its matches, chosen sides)
    without scanning every decision for each: decisions and rolls are
    indexed by match once."""

    def __init__(self, sel: Selection):
        self.sel = sel
        nm = sel.n_matches
        self._dec = self._index(sel.decisions.match, nm)
        self._rolls = self._index(sel.rolls.match, nm)

    @staticmethod
    def _index(match_col, nm):
        order = np.argsort(match_col, kind="stable")
        bounds = np.searchsorted(match_col[order], np.arange(nm + 1))
        return order, bounds

    @staticmethod
    def _rows(index, ms):
        order, bounds = index
        if not len(ms):
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([order[bounds[m]: bounds[m + 1]] for m in ms])

    def take(self, ms, sides, player_filter: Optional[str] = None) -> Selection:
        """The matches ``ms`` (indices, in the selection's order) with
        ``sides`` (bool, shape (len(ms), 2)) as the selected sides."""
        sel = self.sel
        ms = np.asarray(ms, dtype=np.int64)
        remap = np.full(max(sel.n_matches, 1), -1, dtype=np.int64)
        remap[ms] = np.arange(len(ms))
        di = self._rows(self._dec, ms)
        ri = self._rows(self._rolls, ms)
        dcols = {name: getattr(sel.decisions, name)[di] for name in DecisionArrays.SPEC}
        dcols["match"] = remap[sel.decisions.match[di]] if len(di) else dcols["match"]
        rcols = {name: getattr(sel.rolls, name)[ri] for name in RollArrays.SPEC}
        rcols["match"] = remap[sel.rolls.match[ri]] if len(ri) else rcols["match"]
        return Selection(
            matches=[sel.matches[i] for i in ms],
            decisions=DecisionArrays(**dcols),
            rolls=RollArrays(**rcols),
            sides=np.asarray(sides, dtype=bool).reshape(-1, 2),
            player_filter=player_filter,
            positions=sel.positions,
        )

    def of_player(self, players: Players, g: int, ms=None) -> Selection:
        """The player's matches (among ``ms`` if given) with their sides
        selected: what ``select(Filter(player=...))`` gives."""
        owner = players.owner
        if ms is None:
            ms = players.matches_of(g)
        ms = np.asarray(ms, dtype=np.int64)
        return self.take(ms, owner[ms] == g, players.names[g])


def measured(fig: dict) -> dict:
    """``aggregate`` figures with the MWC figures of a selection without a
    counted decision as never measured (None, "—"), not 0."""
    if not fig["decisions"]:
        fig = dict(fig, mwc_loss=None, l7=None, l7_ci=None, elo=None, elo_bound=False)
    return fig


def _per_100(count, n) -> Optional[float]:
    return None if not n else 100.0 * count / n


def player_row(name: str, fig: dict) -> dict:
    """A players-table row from the figures of one player's sides."""
    fig = measured(fig)
    row = {
        "player": name,
        "matches": fig["matches"],
        "wins": fig["wins"],
        "losses": fig["losses"],
        "undecided": fig["matches"] - fig["wins"] - fig["losses"],
        "decisions": fig["decisions"],
        "checker_decisions": fig["checker_decisions"],
        "cube_decisions": fig["cube_decisions"],
        "pr": fig["pr"],
        "pr_ci": fig["pr_ci"],
        "checker_pr": fig["checker_pr"],
        "cube_pr": fig["cube_pr"],
        "level": level_band(fig["pr"]),
        "snowie_er": fig["snowie_er"],
        "errors": fig["errors"],
        "blunders": fig["blunders"],
        "blunders_per_100": _per_100(fig["blunders"], fig["decisions"]),
        "luck_per_roll": fig["luck_per_roll_mpt"],
        "luck_rolls": fig["luck_rolls"],
        "mwc_loss": fig["mwc_loss"],
        "l7": fig["l7"],
        "l7_ci": fig["l7_ci"],
        "elo": fig["elo"],
        "elo_bound": fig["elo_bound"],
        "tournaments": fig["tournaments"],
        **{k: fig[k] for k in DIFFICULTY_KEYS},
    }
    return row


def player_rows(sel: Selection, thresholds: Thresholds = Thresholds(), splits: bool = False,
                players: Optional[Players] = None) -> list:
    """One row per player of the selection (decision type: all; the columns
    split checker and cube).  ``splits`` adds the checker and cube parts of
    the MWC lost and of L₇ (``checker_mwc_loss``, ``cube_mwc_loss``,
    ``checker_l7``, ``cube_l7``: parts that add up)."""
    players = players or players_of(sel)
    n = len(players.names)
    parts = ("all", "checker", "cube") if splits else ("all",)
    # every player at once (figures.aggregates: each as its own sides' selection gives them)
    by_part = {part: aggregates(sel, players.owner, n, thresholds, part) for part in parts}
    if any(v is None for v in by_part.values()):
        subsets = Subsets(sel)
        by_part = {part: [] for part in parts}
        for g in range(n):
            sub = subsets.of_player(players, g)
            for part in parts:
                by_part[part].append(aggregate(sub, thresholds, part))
    rows = []
    for g, name in enumerate(players.names):
        row = player_row(name, by_part["all"][g])
        row["key"] = players.keys[g]
        if splits:
            chk = by_part["checker"][g]
            cube = by_part["cube"][g]
            for part, fig in (("checker", chk), ("cube", cube)):
                # a part without decisions was never measured ("—"), not 0
                row[f"{part}_mwc_loss"] = fig["mwc_loss"] if fig["decisions"] else None
                row[f"{part}_l7"] = fig["l7"] if fig["decisions"] else None
        rows.append(row)
    return rows


RANK_DIGITS = 2  # the ranking shows its figure to two decimals


def ranking(rows: list, min_decisions: int = 1, metric: str = "pr") -> tuple:
    """(ranked rows, left out): players with at least ``min_decisions``
    counted decisions and a figure, by ``metric`` (pr, mwc_loss or l7; lower
    is better), ties by name; each ranked row gets ``rank`` (equal figures
    at the two decimals the ranking shows share a rank)."""
    key = vocabulary.metric(metric).figure
    kept = [r for r in rows if r["decisions"] >= min_decisions and r.get(key) is not None]
    out = sorted(kept, key=lambda r: (r[key], r["player"].casefold()))
    ranked, last, rank = [], None, 0
    for i, r in enumerate(out):
        shown = _shown(r[key], RANK_DIGITS)
        if shown != last:
            rank, last = i + 1, shown
        ranked.append(dict(r, rank=rank))
    return ranked, len(rows) - len(ranked)


# -- compare ------------------------------------------------------------------

def _shown(x, digits: int) -> Optional[Decimal]:
    """A figure at the digits the table shows: equal there is a tie."""
    if x is None:
        return None
    return Decimal(float(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)


def compare(row_a: dict, row_b: dict, rows) -> list:
    """Side by side, for each ``(key, label, relative, digits)`` of ``rows``
    (the players table's declaration, ``views.players.COMPARE_ROWS``): one
    dict per figure with ``a``, ``b``, ``relative`` and
    ``better`` (0 = A, 1 = B, None): a verdict only on relative figures
    (rates, lower is better), never on counts nor on luck (not skill); a tie
    at the digits shown, or a figure never measured, decides nothing."""
    out = []
    for key, label, relative, digits in rows:
        a, b = row_a.get(key), row_b.get(key)
        better = None
        if relative:
            sa, sb = _shown(a, digits), _shown(b, digits)
            if sa is not None and sb is not None and sa != sb:
                better = 0 if sa < sb else 1
        out.append({"key": key, "label": label, "a": a, "b": b, "relative": relative, "better": better})
    return out


# -- contrast -----------------------------------------------------------------

# SPEC vocabulary: a decision is a checker play, a cube decision of the player
# on roll (no double / double) or a response (take / pass).
KIND_CLASS = {K_CHECKER: 0, K_NO_DOUBLE: 1, K_DOUBLE: 1, K_TAKE: 2, K_PASS: 2}
KIND_CLASS_NAMES = ("checker", "cube offer", "cube response")


def _class_of(kind: np.ndarray) -> np.ndarray:
    out = np.full(len(kind), -1, dtype=np.int64)
    for k, c in KIND_CLASS.items():
        out[kind == k] = c
    return out


def _score_text(dec, i) -> Optional[str]:
    """The decider's score before the game (points won, "3-1"; "C" marks
    the Crawford game); None when unknown (money sessions: no score)."""
    s, o = int(dec.score_self[i]), int(dec.score_opp[i])
    if s < 0 or o < 0:
        return None
    return f"{s}-{o}" + (" C" if dec.crawford[i] else "")


def decision_key(dec, i: int, cls: int) -> tuple:
    """When two decisions are the same decision (rough edge of contrast): a
    checker play by position, dice, cube and score; a cube decision by
    position, cube and score (no dice: it is taken before the roll)."""
    dice = int(dec.dice[i]) if cls == KIND_CLASS[K_CHECKER] else -1
    return (int(dec.position[i]), cls, dice, int(dec.cube_value[i]), _score_text(dec, i))


def contrast(sel: Selection, players: Players, a: int, b: int, thresholds: Thresholds = Thresholds(),
             decision_type: str = "all") -> list:
    """Decisions both A and B made (:func:`decision_key`: same position,
    same kind — checker, cube offer, cube response —, same cube and score,
    and for a checker play the same dice) where one stayed under the
    error threshold and the other did not, each judged by their worst
    counted decision there; largest gap first (then position ID).  Rows:
    position_id, kind, a_worst, b_worst, gap (EMG), a_count, b_count,
    a_ids, b_ids (decision ids, for drill-down), under (0 = A, 1 = B)."""
    dec = sel.decisions
    if not len(dec):
        return []
    who = players.owner[dec.match, dec.player]
    keep = counted(dec) & kind_mask(dec, decision_type) & (dec.position >= 0)
    cls = _class_of(dec.kind)
    keep &= cls >= 0
    e = dec.error
    worst: dict = {}
    for side, g in ((0, a), (1, b)):
        idx = np.nonzero(keep & (who == g))[0]
        for i in idx:
            k = decision_key(dec, i, int(cls[i]))
            w = worst.setdefault(k, [None, None, 0, 0, [], []])
            if w[side] is None or e[i] > w[side]:
                w[side] = float(e[i])
            w[2 + side] += 1
            w[4 + side].append(int(dec.row_id[i]))
    rows = []
    for (pos, c, dice, cube, score), (wa, wb, na, nb, ia, ib) in worst.items():
        if wa is None or wb is None:
            continue
        err, _ = thresholds.classify(np.array([wa, wb]))
        if bool(err[0]) == bool(err[1]):
            continue
        rows.append({
            "position_id": sel.positions[pos],
            "kind": KIND_CLASS_NAMES[c],
            "dice": None if dice < 0 else f"{dice // 10}-{dice % 10}",
            "cube": cube,
            "score": score,
            "a_worst": wa,
            "b_worst": wb,
            "gap": abs(wa - wb),
            "a_count": na,
            "b_count": nb,
            "a_ids": ia,
            "b_ids": ib,
            "under": 1 if err[0] else 0,
        })
    rows.sort(key=lambda r: (-r["gap"], r["position_id"], r["kind"]))
    return rows


# -- head to head -------------------------------------------------------------

def head_to_head(sel: Selection, players: Players, a: int, b: int, thresholds: Thresholds = Thresholds(),
                 decision_type: str = "all") -> dict:
    """Matches of A against B: each side's figures over them (Σ/Σ, matches
    as units: ``stats --player`` restricted to these matches), the score
    (matches won, undecided, points) and one row per match."""
    owner = players.owner
    common = np.nonzero(((owner[:, 0] == a) & (owner[:, 1] == b)) | ((owner[:, 0] == b) & (owner[:, 1] == a)))[0]
    subsets = Subsets(sel)
    sides = []
    for g in (a, b):
        sub = subsets.of_player(players, g, common)
        sides.append(measured(aggregate(sub, thresholds, decision_type)))
    # per match, per side: one aggregate on a one-match selection
    rows = []
    won = [0, 0]
    points = [0, 0]
    for mi in common:
        m = sel.matches[mi]
        pa = 0 if owner[mi, 0] == a else 1
        per = []
        for p in (pa, 1 - pa):
            one = np.zeros((1, 2), dtype=bool)
            one[0, p] = True
            per.append(measured(aggregate(subsets.take([mi], one), thresholds, decision_type)))
        score = (m.final_score[pa], m.final_score[1 - pa])
        winner = None if m.winner is None else (0 if m.winner == pa else 1)
        if winner is not None:
            won[winner] += 1
        points[0] += score[0] or 0
        points[1] += score[1] or 0
        rows.append({
            "id": m.id, "date": m.date, "event": m.event, "length": m.length,
            "score": list(score), "winner": winner,
            "decisions": [per[0]["decisions"], per[1]["decisions"]],
            "pr": [per[0]["pr"], per[1]["pr"]],
            "mwc_loss": [per[0]["mwc_loss"], per[1]["mwc_loss"]],
            "l7": [per[0]["l7"], per[1]["l7"]],
        })
    return {
        "matches": len(common),
        "sides": sides,
        "won": won,
        "undecided": len(common) - won[0] - won[1],
        "points": points,
        "rows": rows,
    }


# -- rolling calendar windows -------------------------------------------------

WINDOW_MONTHS = (1, 3, 6, 12)


def match_date(m) -> Optional[_dt.date]:
    if not m.date:
        return None
    try:
        return _dt.date.fromisoformat(str(m.date)[:10])
    except ValueError:
        return None


def _month_start(k: int) -> _dt.date:
    return _dt.date(k // 12, k % 12 + 1, 1)


def _month_end(k: int) -> _dt.date:
    return _month_start(k + 1) - _dt.timedelta(days=1)


def windows(sel: Selection, months: int, thresholds: Thresholds = Thresholds(),
            decision_type: str = "all") -> dict:
    """PR (and the other figures of ``stats``) per rolling calendar window of
    ``months`` months: one window ending at each month end from the month of
    the first dated match to that of the last; a window holds the matches
    dated from the first day of its first month to its end, inclusive, and
    is exactly ``stats --from START --to END`` with the same filter.
    Undated matches are left out and counted.  ``partial``: the window
    starts before the first dated match's month."""
    if months not in WINDOW_MONTHS:
        raise ValueError(f"windows of {months} months: choose 1, 3, 6 or 12")
    dates = [match_date(m) for m in sel.matches]
    dated = [i for i, d in enumerate(dates) if d is not None]
    undated = sel.n_matches - len(dated)
    out = {"months": months, "undated": undated, "windows": []}
    if not dated:
        return out
    first = min(dates[i] for i in dated)
    last = max(dates[i] for i in dated)
    k0, k1 = first.year * 12 + first.month - 1, last.year * 12 + last.month - 1
    subsets = Subsets(sel)
    ordinal = np.array([dates[i].toordinal() for i in dated], dtype=np.int64)
    dated = np.array(dated, dtype=np.int64)
    for k in range(k0, k1 + 1):
        start, end = _month_start(k - months + 1), _month_end(k)
        ms = np.sort(dated[(ordinal >= start.toordinal()) & (ordinal <= end.toordinal())])
        fig = measured(aggregate(subsets.take(ms, sel.sides[ms], sel.player_filter), thresholds, decision_type))
        out["windows"].append({
            "start": start.isoformat(), "end": end.isoformat(), "partial": k - months + 1 < k0,
            **fig,
        })
    return out
