"""The counted decisions split four ways: the ``breakdowns`` view (SPEC §14).

Axes: phase, game plan, ``#tag`` in comments, score (away/away from the
decider's side).  Every row comes from :func:`groups.group_rows` (distinct
positions, decisions, blunders as distinct positions with a blunder, PR,
its 95 % interval by matches, the small-row flag), so every table counts
the same way.  Pure functions over a :class:`Selection`.
"""

from __future__ import annotations

import re
from typing import Optional

import numpy as np

from ..model import is_money
from ..arrays import LABELS, Selection
from .counting import Thresholds
from .groups import base_mask, group_rows
from .kernel import distinct

AXES = ("phase", "game_plan", "tag", "score")

# A tag: "#" then letters, digits or "_" (Unicode), hyphens only inside
# ("#back-game"); not glued to a preceding word ("C#", "a#b" are no tags).
TAG_RE = re.compile(r"(?<!\w)#(\w+(?:-\w+)*)")


def comment_tags(comment) -> tuple:
    """The distinct tags of one comment, case-folded, in order of first
    appearance ("#Blitz" and "#blitz" are one tag)."""
    if not comment:
        return ()
    out = []
    for t in TAG_RE.findall(str(comment)):
        t = t.casefold()
        if t not in out:
            out.append(t)
    return tuple(out)


def _label_rows(sel, codes, names, thresholds, decision_type, keep_empty: bool) -> list:
    """Rows for a label axis (phase, game plan) in the labels' own order;
    decisions without the label form an "unclassified" row when any."""
    n = len(names)
    groups = np.where(codes >= 0, codes, n).astype(np.int32)  # 4 bytes a decision: a few labels
    rows = group_rows(sel, groups, n + 1, thresholds, decision_type)
    out = []
    for k in range(n + 1):
        if k == n and not rows[k]["decisions"]:
            continue
        if k < n and not keep_empty and not rows[k]["decisions"]:
            continue
        out.append(dict(label=names[k] if k < n else "unclassified", **rows[k]))
    return out


def phase_rows(sel, thresholds=Thresholds(), decision_type="all") -> list:
    """The four phases always (an empty one shows 0 decisions and no PR)."""
    return _label_rows(sel, sel.decisions.phase, LABELS["phase"], thresholds, decision_type, True)


def game_plan_rows(sel, thresholds=Thresholds(), decision_type="all") -> list:
    """Game plans with at least one counted decision, in the label order."""
    return _label_rows(sel, sel.decisions.game_plan, LABELS["game_plan"], thresholds, decision_type, False)


def tag_rows(sel: Selection, thresholds=Thresholds(), decision_type="all") -> tuple:
    """(rows, tagged decisions).  A decision carrying several tags counts in
    each of their rows, so rows do not add up.  Rows: most decisions first,
    then the tag's name."""
    dec = sel.decisions
    mask = base_mask(sel, decision_type)
    idx, tag_ids, names = [], [], {}
    for i in np.nonzero(mask & (dec.comment != None))[0]:  # noqa: E711 (object array)
        for t in comment_tags(dec.comment[i]):
            idx.append(i)
            tag_ids.append(names.setdefault(t, len(names)))
    if not names:
        return [], 0
    idx = np.asarray(idx, dtype=np.int64)
    # one decision row per (decision, tag): group_rows then counts each tag
    expanded = Selection(matches=sel.matches, decisions=dec.take(idx), rolls=sel.rolls, sides=sel.sides,
                         player_filter=sel.player_filter, positions=sel.positions)
    rows = group_rows(expanded, np.asarray(tag_ids, dtype=np.int64), len(names), thresholds, decision_type)
    out = [dict(label="#" + t, **rows[k]) for t, k in names.items()]
    out.sort(key=lambda r: (-r["decisions"], r["label"]))
    return out, int(len(distinct(idx)))


MONEY = "money"


def score_keys(sel: Selection) -> tuple:
    """(away_self, away_opp) of each decision from the decider's side, -1
    for money or an unknown score, and the money mask.  The Crawford game
    and the games after it need no rule of their own: the leader is 1-away
    in both, so "1-away/4-away" holds the Crawford game and the
    post-Crawford games at that score (seed 002).  4-byte integers where
    the lengths fit (they are small)."""
    dec = sel.decisions
    lengths = np.array([m.length for m in sel.matches], dtype=np.int64)
    small = np.int32 if not len(lengths) or (lengths.min() > -(1 << 30) and lengths.max() < 1 << 30) else np.int64
    length = lengths.astype(small)[dec.match] if len(dec) else np.zeros(0, dtype=small)
    money = is_money(length)
    a_self = length - dec.score_self.astype(small)
    a_opp = length - dec.score_opp.astype(small)
    del length
    invalid = money | (dec.score_self < 0) | (dec.score_opp < 0) | (a_self < 1) | (a_opp < 1)
    a_self[invalid] = -1
    a_opp[invalid] = -1
    return a_self, a_opp, money


def score_rows(sel: Selection, thresholds=Thresholds(), decision_type="all") -> tuple:
    """(rows, decisions with an unknown score).  Cells by (own away,
    opponent's away) ascending, money last; only cells with counted
    decisions.  ``crawford_decisions``: how many of a cell's decisions were
    made in the Crawford game."""
    dec = sel.decisions
    mask = base_mask(sel, decision_type)
    a_self, a_opp, money = score_keys(sel)
    unknown = int((mask & ~money & (a_self < 1)).sum())
    width = int(a_opp.max()) + 1 if len(dec) else 1
    # each decision's cell, own away × width + the opponent's (-1: none), 4 bytes where it fits
    space = (int(a_self.max()) + 1) * width if len(dec) else 1
    key = a_self.astype(np.int32 if space < 1 << 31 else np.int64)
    none = a_self < 1
    del a_self
    key *= width
    key += a_opp
    del a_opp
    key[none] = -1
    del none
    used = distinct(key[mask & (key >= 0)])  # ascending: own away, then the opponent's
    n_money = len(used)
    # each cell's row (a table over the cells' keys; its last entry, which key -1 reads, says none)
    row_of = np.full(max(space, 1) + 1, -1, dtype=np.int32)
    row_of[used] = np.arange(n_money, dtype=np.int32)
    groups = row_of[key]
    del key, row_of
    groups[money] = n_money
    index = {(int(u // width), int(u % width)): k for k, u in enumerate(used)}
    rows = group_rows(sel, groups, n_money + 1, thresholds, decision_type)
    keep = mask & (groups >= 0)
    crawford = np.bincount(groups[keep & (dec.crawford == 1)], minlength=n_money + 1)
    out = []
    for (a, b), k in index.items():
        out.append(dict(label=f"{a}-away/{b}-away", away=[a, b], crawford_decisions=int(crawford[k]), **rows[k]))
    if rows[n_money]["decisions"]:
        out.append(dict(label=MONEY, away=None, crawford_decisions=0, **rows[n_money]))
    return out, unknown


def breakdowns(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    axes: Optional[tuple] = None,
) -> dict:
    """The rows of each requested axis, with ``decisions`` (the counted
    decisions of the selection, for the tag rows that do not add up),
    ``tagged_decisions`` and ``unknown_score``."""
    axes = tuple(axes or AXES)
    unknown = [a for a in axes if a not in AXES]
    if unknown:
        raise ValueError(f"unknown breakdown {unknown[0]!r} ({', '.join(AXES)})")
    out = {"decisions": int(base_mask(sel, decision_type).sum())}
    if "phase" in axes:
        out["phase"] = phase_rows(sel, thresholds, decision_type)
    if "game_plan" in axes:
        out["game_plan"] = game_plan_rows(sel, thresholds, decision_type)
    if "tag" in axes:
        out["tag"], out["tagged_decisions"] = tag_rows(sel, thresholds, decision_type)
    if "score" in axes:
        out["score"], out["unknown_score"] = score_rows(sel, thresholds, decision_type)
    return out
