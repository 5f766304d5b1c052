"""The Summary view's figures and the drill-down selection (SPEC §3, §5, §14).

Pure functions over a :class:`Selection`: no SQL, no I/O.  The view
(``views/summary.py``) renders the dict :func:`summary_figures`
returns; ``views/positions.py`` renders :func:`decision_records`.

Rules chosen here (docs/views-summary.md):

- Every figure is over the *counted* decisions (SPEC §2) of the filter's
  side(s) and decision type, as ``stats`` counts them.
- "Last N decisions" follow the order of the decision arrays: match date,
  undated matches by import time, then game and move order.  N larger than
  what exists: the figure is computed on all there is and flagged.
- The costliest decisions are those with e > 0, by e (compared in integer
  micro-EMG), ties by the larger MWC loss (money, which has none, last),
  then match order.
"""

from __future__ import annotations

import math
import re
from typing import Optional

import numpy as np

from ..units import decision_figure, micro, mpt
from . import kernel, vocabulary
from ..arrays import KIND_NAMES, LABELS, Selection, position_ids_at
from .counting import Thresholds, counted, kind_mask
from .figures import aggregate, whole_sums
from .levels import BANDS, level_band
from .breakdowns import comment_tags

ROLLING_NS = (5, 10, 50, 100, 250, 500, 1000)
TOP_N = 10
BANDS_NOTE = "this project's reference bands, not a published norm"


# -- level bands ----------------------------------------------------------------

def band_of(pr: Optional[float]) -> Optional[dict]:
    """The level band of a PR with its edges (SPEC §3; an edge belongs to the
    upper band: 4.0 is Advanced): {"name", "low", "high"} (low None for the
    first band, high None for the last), or None without a PR."""
    name = level_band(pr)
    if name is None:
        return None
    low = None
    for upper, band in BANDS:
        if band == name:
            return {"name": name, "low": low, "high": None if math.isinf(upper) else upper}
        low = upper
    return None  # pragma: no cover (level_band names one of BANDS)


# -- which decisions ------------------------------------------------------------

def selected(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """Counted decisions of the filter's side(s) and decision type (the
    decisions every count of the summary is made of)."""
    dec = sel.decisions
    return counted(dec) & kernel.side_mask(sel) & kind_mask(dec, decision_type)




def cost_order(sel: Selection, idx: np.ndarray) -> np.ndarray:
    """``idx`` sorted costliest first: e descending (integer micro-EMG, so
    that equal errors tie), then the larger MWC loss (money last), then the
    order of the decision arrays (match order, then move order)."""
    idx = np.asarray(idx, dtype=np.int64)
    if not len(idx):
        return idx
    e = micro(sel.decisions.error[idx])
    ell = kernel.mwc_loss_at(sel, idx)  # for these decisions alone: the whole selection's ℓ is not kept
    ell_key = np.where(np.isnan(ell), -1.0, np.round(ell * 1e9))  # money sorts after any MWC
    return idx[np.lexsort((idx, -ell_key, -e))]


def tags_of(comment) -> set:
    """The ``#words`` of a comment, case-folded, without the ``#``: the rule
    of the tag breakdown (``breakdowns.comment_tags``), so that
    ``positions --tag WORD`` lists exactly the decisions its row counts."""
    return set(comment_tags(comment))


def label_code(kind: str, name: Optional[str]) -> Optional[int]:
    """The code of a phase / game plan / theme name (case and ``-``/``_`` for
    spaces forgiven); raises ValueError naming the choices."""
    if name is None:
        return None
    def norm(text):
        return re.sub(r"[-_\s]+", " ", text.strip()).casefold()

    wanted = norm(name)
    for i, label in enumerate(LABELS[kind]):
        if norm(label) == wanted:
            return i
    raise ValueError(f"unknown {kind.replace('_', ' ')} {name!r}: choose one of " + ", ".join(LABELS[kind]))


def pick(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    *,
    severity: Optional[str] = None,
    phase: Optional[str] = None,
    game_plan: Optional[str] = None,
    theme: Optional[str] = None,
    tag: Optional[str] = None,
    kind: Optional[str] = None,
) -> np.ndarray:
    """The drill-down mask: counted decisions of the filter (as every count
    is made), narrowed by severity ("errors" = e ≥ the error threshold,
    "blunders" = e ≥ the blunder threshold, "decisions" or None = all), a
    label name, a ``#tag`` of the comment and a decision kind."""
    dec = sel.decisions
    mask = selected(sel, decision_type)
    if severity not in (None, "decisions"):
        err, blunder = kernel.classified(sel, thresholds)
        if severity == "errors":
            mask &= err
        elif severity == "blunders":
            mask &= blunder
        else:
            raise ValueError(f"unknown severity {severity!r} (decisions, errors or blunders)")
    for name, value in (("phase", phase), ("game_plan", game_plan), ("theme", theme)):
        code = label_code(name, value)
        if code is not None:
            mask &= getattr(dec, name) == code
    if tag:
        want = tag.lstrip("#").casefold()
        hits = np.array([want in tags_of(c) for c in dec.comment], dtype=bool) if len(dec) else np.zeros(0, bool)
        mask &= hits
    if kind is not None:
        codes = {v: k for k, v in KIND_NAMES.items()}
        if kind not in codes:
            raise ValueError(f"unknown kind {kind!r}: choose one of " + ", ".join(codes))
        mask &= dec.kind == codes[kind]
    return mask


def decision_records(sel: Selection, idx, thresholds: Thresholds = Thresholds()) -> list:
    """One dict per decision of ``idx`` (in that order), what a drill-down
    list shows: ``row_id`` (the store's id: played and best moves come from
    ``SQLiteStore.decision_rows``), ``match_id``, ``date``, ``event``,
    ``players`` (as the match file writes them), ``length``, ``game`` and
    ``move`` (both from 1: the game's number, the record's number in its
    game), ``player`` (the decider), ``kind``, ``position_id``, ``error_mpt``
    (e in millipoints, to the analyser's 6 decimals of EMG), ``mwc_loss`` (ℓ in % points, None for money),
    ``error`` / ``blunder`` (the database's thresholds), ``difficulty_mpt``
    (d of SPEC §6 in millipoints EMG, None where unknown),
    ``difficulty_mwc`` (d in % points of MWC, None for money) and
    ``difficulty_truncated`` (d stands on a truncated candidate list, a
    lower bound); ℓ and d under 10⁻¹² are 0 (``units.decision_figure``)."""
    dec = sel.decisions
    idx = np.asarray(idx, dtype=np.int64)
    err, blunder = thresholds.classify(dec.error[idx]) if len(idx) else (np.zeros(0, bool), np.zeros(0, bool))
    ell = kernel.mwc_loss_at(sel, idx)
    d_mwc = kernel.difficulty_mwc_at(sel, idx)
    # read for these rows alone (the whole columns are not kept for a list of a few decisions)
    row_ids, games, seqs = (dec.values_at(name, idx) for name in ("row_id", "game", "seq"))
    position_ids = position_ids_at(sel, idx)
    out = []
    for k, i in enumerate(idx):
        m = sel.matches[int(dec.match[i])]
        p = int(dec.player[i])
        e = float(dec.error[i])
        out.append({
            "row_id": int(row_ids[k]),
            "match_id": m.id,
            "date": m.date,
            "event": m.event,
            "players": list(m.players),
            "length": m.length,
            "game": int(games[k]) + 1,
            "move": int(seqs[k]) + 1,
            "player": m.players[p],
            "kind": KIND_NAMES[int(dec.kind[i])],
            "position_id": position_ids[k],
            "error_mpt": mpt(e),
            "mwc_loss": decision_figure(ell[k], 100),
            "error": bool(err[k]),
            "blunder": bool(blunder[k]),
            "difficulty_mpt": decision_figure(dec.difficulty[i], 1000),
            "difficulty_mwc": decision_figure(d_mwc[k], 100),
            "difficulty_truncated": bool(dec.difficulty_truncated[i] == 1),
        })
    return out


def decision_records_of_lists(sel: Selection, lists, thresholds: Thresholds = Thresholds()) -> list:
    """:func:`decision_records` of each index array of ``lists`` (a list
    of lists of records, in that order), made in one call: the columns a
    record reads for its rows alone (row ids, games, moves, position IDs)
    are read once for every list, not once a list."""
    lists = [np.asarray(ix, dtype=np.int64) for ix in lists]
    if not lists:
        return []
    records = decision_records(sel, np.concatenate(lists), thresholds)
    ends = np.cumsum([len(ix) for ix in lists]).tolist()
    return [records[end - len(ix):end] for ix, end in zip(lists, ends)]


# -- the summary ----------------------------------------------------------------

def _mwc_split(sel: Selection, mask: np.ndarray, thresholds: Thresholds, decision_type: str) -> dict:
    """MWC lost and L₇ split into checker and cube parts that add up (SPEC
    §14), with the denominators of ``aggregate`` (the kernel's: the sums of
    ``mask``, the selected decisions, are ``aggregate``'s)."""
    parts = kernel.figures(whole_sums(sel, thresholds, decision_type))
    out = {key: parts[key] for key in ("checker_mwc_loss", "cube_mwc_loss", "checker_l7", "cube_l7")}
    out["money_decisions"] = int((mask & kernel.money_matches(sel)[sel.decisions.match]).sum())  # ℓ is NaN: money
    return out


def rolling(sel: Selection, mask: np.ndarray, ns=ROLLING_NS) -> list:
    """PR (and MWC lost) over the last N decisions of ``mask`` in the order
    of the decision arrays, for each N: {"n", "decisions" (used),
    "exceeds" (N larger than what exists: all are used), "pr",
    "mwc_loss" (pp over the match-play ones; None if all are money)}."""
    idx = np.nonzero(mask)[0]
    tail = idx[-max(ns):] if len(ns) and len(idx) else idx[:0]  # the decisions any window reads
    e = np.nan_to_num(sel.decisions.error[tail], nan=0.0)
    ell = kernel.mwc_loss_at(sel, tail)
    out = []
    for n in ns:
        last = slice(-n, None) if n <= len(idx) else slice(None)
        used = len(tail[last])
        known = ~np.isnan(ell[last])
        out.append({
            "n": int(n),
            "decisions": used,
            "exceeds": bool(n > len(idx)),
            "pr": kernel.rate(e[last].sum(), used),
            "mwc_loss": 100 * float(ell[last][known].sum()) if known.any() else None,
        })
    return out


def costliest(sel: Selection, mask: np.ndarray, n: int = TOP_N, metric: str = "pr") -> np.ndarray:
    """Indices of the ``n`` costliest decisions of ``mask`` with e > 0: by
    e (PR), or by MWC lost for the MWC metrics (money decisions, which have
    none, after every match-play one; ties by e, then match order)."""
    e_micro = kernel.error_micro(sel)
    idx = np.nonzero(mask & (e_micro > 0))[0]
    by_pr = vocabulary.metric(metric).figure == "pr"
    if by_pr:
        first = e_micro[idx]
    else:
        ell = kernel.mwc_loss_at(sel, idx)
        first = np.where(np.isnan(ell), -1.0, np.round(ell * 1e9))
    if 0 < n < len(idx):
        # only those that can be among the n first: the first key at least the n-th largest (ties kept)
        idx = idx[first >= np.partition(first, len(first) - n)[len(first) - n]]
    if by_pr:
        return cost_order(sel, idx)[:n]
    ell = kernel.mwc_loss_at(sel, idx)
    ell_key = np.where(np.isnan(ell), -1.0, np.round(ell * 1e9))
    return idx[np.lexsort((idx, -e_micro[idx], -ell_key))][:n]


def summary_figures(
    sel: Selection,
    thresholds: Thresholds = Thresholds(),
    decision_type: str = "all",
    ns=ROLLING_NS,
    top: int = TOP_N,
    metric: str = "pr",
) -> dict:
    """Everything the Summary shows, as a plain dict (None = never measured):

    the ``aggregate`` figures (``decisions``, ``checker_decisions``,
    ``cube_decisions``, ``matches``, ``tournaments``, ``errors``,
    ``blunders``, ``pr``, ``pr_ci``, ``checker_pr``, ``cube_pr``,
    ``mwc_loss``, ``l7``, ``l7_ci``, ``elo``, ``elo_bound`` ...), plus
    ``checker_mwc_loss`` / ``cube_mwc_loss`` and ``checker_l7`` /
    ``cube_l7`` (parts that add up), ``money_decisions`` (counted decisions
    without MWC), ``level`` (the band's name, as ``stats``), ``level_band``
    (:func:`band_of`), ``rolling``
    (:func:`rolling`) and ``top`` (:func:`decision_records` of the
    costliest decisions, ranked from 1)."""
    fig = aggregate(sel, thresholds, decision_type)
    mask = selected(sel, decision_type)
    fig.update(_mwc_split(sel, mask, thresholds, decision_type))
    band = band_of(fig["pr"])
    fig["level"] = None if band is None else band["name"]
    fig["level_band"] = band
    fig["rolling"] = rolling(sel, mask, ns)
    top_rows = decision_records(sel, costliest(sel, mask, top, metric), thresholds)
    for rank, r in enumerate(top_rows, 1):
        r["rank"] = rank
    fig["top"] = top_rows
    return fig
