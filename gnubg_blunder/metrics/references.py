"""Reference positions (SPEC §10): the few positions whose study covers the
most of a filter's excess.  The rule, with a worked example, is in
docs/references.md.

- **Candidates**: the quantified themed errors of the filter (counted
  errors, e ≥ the error threshold, with a family — :mod:`.plan` — and the
  study half's cost known, :mod:`.study_cost`), grouped by position: one
  candidate per (position, family) — and, for the cube, per score
  (away-away, Crawford).  excess(p) = Σ positive (loss − d) of its errors
  under the cost (e − d in EMG by default; ℓ − d or ℓ₇ − d₇ in fractions of
  MWC; mpt or % points in the views).
- **Neighbours**: two candidates of the same family (for the cube, of the
  same score) within like distance ≤ ``RHO`` = 12 pips.
- **Gain** of p = c(p) × Σ excess(q) over p and its neighbours q not yet
  covered; c(p) = 1, × ½ when the lesson is *narrow* (the analysis' second
  choice costs less than half the error threshold, for every error of p),
  × ½ when it is *unstable* (another stored analysis of the same decision —
  another depth or engine of the cube analysis, or a rollout — gives
  another verdict).  A confirming rollout breaks ties only.
- **Greedy** on marginal gain (lazily: gains only fall as positions get
  covered); a chosen position covers its neighbours; near duplicates
  (like distance ≤ ``NEAR`` = 2 pips, the same position ID included) of a
  chosen or studied position are dropped in every family.  Already studied
  positions are never proposed and count as chosen: they cover their
  neighbours first.

Like distance (docs/positions.md): per side, the 1-D transport of the
checkers over off (0), points 1..24 and the bar (25) = Σ over the 25 gaps
of |S_a(k) − S_b(k)|, S(k) = the side's checkers on points ≥ k; summed
over both sides.  Here every position is one vector of 50 small integers
(both sides' S), the like distance the L1 distance of two vectors, and the
neighbours are found without comparing all pairs: sorted by the on-roll
side's pip count (a side's pips are Σ S(k), so |Δpips| per side bounds its
distance from below), only pairs within the band are looked at, first
through the pip counts of both sides (|Δpips₁| + |Δpips₂| ≤ distance), then
through sums over blocks of points (the same bound, finer), then exactly.

Pure numpy: no SQL, no I/O.  What the store must say beside the selection
(the second choice of checker plays, other analyses of the same
positions, the studied positions) comes in as plain arrays and sets.
"""

from __future__ import annotations

import base64
import heapq
import math
from dataclasses import dataclass, field
from typing import Iterable, Optional

import numpy as np

from ..units import millipoints
from ..arrays import KIND_CODES, Selection
from .counting import K_CHECKER, Thresholds
from .plan import FAMILIES, FAMILY_NAMES, error_rows as plan_rows, family_codes, member_masks, plan_mask

RHO = 12  # pips: neighbours of one lesson (SPEC §10)
NEAR = 2  # pips: near duplicates, dropped across families
NARROW_SHARE = 0.5  # narrow: the second choice costs less than half the error threshold
HALF = 0.5  # the factor of a narrow or an unstable lesson
PAIR_CHUNK = 1 << 19  # pairs looked at per numpy pass (memory stays small)
BLOCKS = (0, 6, 12, 18, 25)  # blocks of the S(k) vector of a side, for the bound before the exact distance


# -- boards as vectors ---------------------------------------------------------------

def position_sides(position_ids: Iterable[str]) -> np.ndarray:
    """The checkers of each position ID as an array ``(n, 2, 25)`` (int16):
    ``[:, 0]`` the player on roll, ``[:, 1]`` the opponent, each in its own
    numbering (index 0..23 = points 1..24, 24 = the bar), as
    :class:`gnubg_blunder.board.position.Board` has them.  Vectorised
    decoding of gnubg's key (docs/board.md): 80 bits, least significant
    first, the opponent's 25 entries then the on-roll player's, each n
    1-bits and a 0-bit.  An ID that cannot be read gives a row of -1."""
    ids = list(position_ids)
    n = len(ids)
    raw = np.zeros((n, 10), dtype=np.uint8)
    bad = np.zeros(n, dtype=bool)
    for k, pid in enumerate(ids):
        try:
            b = base64.b64decode(pid + "==", validate=True) if isinstance(pid, str) and len(pid) == 14 else b""
        except ValueError:
            b = b""
        if len(b) != 10:
            bad[k] = True
            continue
        raw[k] = np.frombuffer(b, dtype=np.uint8)
    bits = np.unpackbits(raw, axis=1, bitorder="little").astype(bool)  # (n, 80)
    zeros_before = np.cumsum(~bits, axis=1) - (~bits)
    rows, cols = np.nonzero(bits)
    entry = zeros_before[rows, cols]
    ok = entry < 50
    counts = np.bincount(rows[ok] * 50 + entry[ok], minlength=n * 50).reshape(n, 50).astype(np.int16)
    bad |= counts[:, :25].sum(axis=1) > 15
    bad |= counts[:, 25:].sum(axis=1) > 15
    out = np.stack([counts[:, 25:], counts[:, :25]], axis=1)  # on roll, opponent
    out[bad] = -1
    return out


def cumulative(sides: np.ndarray) -> np.ndarray:
    """``(n, 50)`` int16: per side (on roll, then opponent) S(k) = checkers on
    points ≥ k for k = 25 (the bar), 24, ..., 1.  The like distance of two
    positions is the L1 distance of their rows; a side's pip count is the
    sum of its 25 values."""
    s = np.asarray(sides, dtype=np.int16)
    return np.cumsum(s[:, :, ::-1], axis=2, dtype=np.int16).reshape(len(s), 50)


def like_distances(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Like distance of the rows of two :func:`cumulative` arrays (row by row,
    or one row against many by broadcasting)."""
    return np.abs(x.astype(np.int32) - y.astype(np.int32)).sum(axis=-1)


def _block_sums(cum: np.ndarray) -> np.ndarray:
    per_side = cum.reshape(len(cum), 2, 25).astype(np.int32)
    parts = [per_side[:, :, a:b].sum(axis=2) for a, b in zip(BLOCKS[:-1], BLOCKS[1:])]
    return np.concatenate(parts, axis=1)  # (n, 2 × blocks)


def neighbour_pairs(cum: np.ndarray, buckets: Optional[np.ndarray] = None, radius: int = RHO) -> tuple:
    """Every pair (i, j), i < j, of rows of ``cum`` in the same bucket (all in
    one without ``buckets``) within like distance ≤ ``radius``, as two int64
    arrays, without looking at all pairs.

    Bounds, each below the like distance: the pip counts p₁, p₂ of the two
    sides give |Δp₁| + |Δp₂| = max(|Δu|, |Δv|) with u = p₁ + p₂, v = p₁ − p₂;
    the rows are sorted by (bucket, u), so only a band of |Δu| ≤ radius is
    looked at, then |Δv| ≤ radius, then the sums over blocks of points
    (``BLOCKS``), then the exact distance."""
    n = len(cum)
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    buckets = np.zeros(n, np.int64) if buckets is None else np.asarray(buckets, dtype=np.int64)
    pips = cum.reshape(n, 2, 25).astype(np.int32).sum(axis=2)  # (n, 2)
    u, v = pips[:, 0] + pips[:, 1], pips[:, 0] - pips[:, 1]
    _, bucket_rank = np.unique(buckets, return_inverse=True)
    key = bucket_rank.reshape(-1).astype(np.int64) * 4096 + u  # buckets apart by more than any pip sum
    order = np.argsort(key, kind="stable")
    key_s, v_s = key[order], v[order]
    cum_s = cum[order]
    blocks_s = _block_sums(cum_s)
    hi = np.searchsorted(key_s, key_s + radius, side="right")
    counts = hi - np.arange(n) - 1  # rows after i within the band
    cum_counts = np.concatenate([[0], np.cumsum(counts)])
    out_i, out_j = [], []
    start = 0
    while start < n:
        # as many rows as keep the chunk's pairs under PAIR_CHUNK (at least one row)
        stop = int(np.searchsorted(cum_counts, cum_counts[start] + PAIR_CHUNK, side="right")) - 1
        stop = min(max(stop, start + 1), n)
        c = counts[start:stop]
        total = int(c.sum())
        if total:
            a = np.repeat(np.arange(start, stop), c)
            b = a + 1 + (np.arange(total) - np.repeat(cum_counts[start:stop] - cum_counts[start], c))
            keep = np.abs(v_s[a] - v_s[b]) <= radius
            a, b = a[keep], b[keep]
            if len(a):
                keep = np.abs(blocks_s[a] - blocks_s[b]).sum(axis=1) <= radius
                a, b = a[keep], b[keep]
            if len(a):
                keep = like_distances(cum_s[a], cum_s[b]) <= radius
                a, b = a[keep], b[keep]
            if len(a):
                ia, ib = order[a], order[b]
                out_i.append(np.minimum(ia, ib))
                out_j.append(np.maximum(ia, ib))
        start = stop
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    i, j = np.concatenate(out_i).astype(np.int64), np.concatenate(out_j).astype(np.int64)
    o = np.lexsort((j, i))
    return i[o], j[o]


def _adjacency(n: int, i: np.ndarray, j: np.ndarray) -> tuple:
    """Symmetric CSR (indptr, indices) of the pairs (i, j)."""
    src = np.concatenate([i, j])
    dst = np.concatenate([j, i])
    o = np.lexsort((dst, src))
    src, dst = src[o], dst[o]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst


# -- candidates ----------------------------------------------------------------------

CHECKER_NATURE, CUBE_NATURE = 0, 1


@dataclass
class Candidates:
    """The candidates of a filter, one per (position, family, cube score).

    Per decision row kept (``rows``: indices into ``sel.decisions``, sorted
    by candidate): ``group`` (the candidate of each row) and ``excess``
    (loss − d under the study half's cost, its terms' unit: EMG or fractions
    of MWC).  Per candidate: ``position`` (index into
    ``sel.positions``), ``position_id``, ``family`` (index into
    plan.FAMILIES), ``score`` (cube: (away self × 64 + away opponent) × 2
    + Crawford; checker -1), ``bucket`` (family and score: neighbours share
    one), ``excess`` (Σ positive loss − d), ``n_errors``."""

    rows: np.ndarray
    group: np.ndarray
    row_excess: np.ndarray
    position: np.ndarray
    position_ids: list
    family: np.ndarray
    score: np.ndarray
    bucket: np.ndarray
    excess: np.ndarray
    n_errors: np.ndarray

    def __len__(self):
        return len(self.position)

    def rows_of(self, g: int) -> np.ndarray:
        lo, hi = np.searchsorted(self.group, [g, g + 1])
        return self.rows[lo:hi]


def score_codes(sel: Selection, idx: np.ndarray) -> np.ndarray:
    """The cube score of decisions ``idx``: (away self × 64 + away opponent)
    × 2 + Crawford (money: -1)."""
    dec = sel.decisions
    lengths = np.array([m.length for m in sel.matches], dtype=np.int64)[dec.match[idx]]
    away_self = np.clip(lengths - dec.score_self[idx], 0, 63)
    away_opp = np.clip(lengths - dec.score_opp[idx], 0, 63)
    code = (away_self * 64 + away_opp) * 2 + (dec.crawford[idx] == 1)
    return np.where(lengths > 0, code, -1).astype(np.int64)


def candidate_mask(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
                   metric=None) -> tuple:
    """(mask, excess): the quantified themed errors of the filter's side(s)
    and decision type with a position ID (SPEC §10 candidates), and loss −
    d of every decision under the study half's cost ``metric`` (default pr:
    e − d in EMG; mwc, mwc7: fractions of MWC; NaN where unknown)."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool), np.zeros(0)
    m = member_masks(sel, plan_mask(sel, decision_type), thresholds, metric)
    return m["quantified"] & (dec.position >= 0), m["excess"]


def error_rows(thresholds: Thresholds = Thresholds()):
    """The rows a reference choice can use (:func:`plan.error_rows` with a
    theme); the exact rule (counted, ℓ and d known) is
    :func:`candidate_mask`'s."""
    return plan_rows(thresholds, themed=True)


def candidates(sel: Selection, thresholds: Thresholds = Thresholds(), decision_type: str = "all",
               metric=None) -> Candidates:
    """The candidates of the selection (see :class:`Candidates`) under the
    study half's cost ``metric`` (pr, mwc, mwc7; default pr)."""
    mask, excess = candidate_mask(sel, thresholds, decision_type, metric)
    idx = np.nonzero(mask)[0]
    dec = sel.decisions
    fam = family_codes(sel)[idx].astype(np.int64) if len(idx) else np.zeros(0, np.int64)
    cube = dec.kind[idx] != K_CHECKER
    score = np.where(cube, score_codes(sel, idx), -1) if len(idx) else np.zeros(0, np.int64)
    pos = dec.position[idx].astype(np.int64)
    if len(idx):
        keys = np.stack([pos, fam, score], axis=1)
        uniq, group = np.unique(keys, axis=0, return_inverse=True)
        group = group.reshape(-1)
    else:
        uniq, group = np.zeros((0, 3), np.int64), np.zeros(0, np.int64)
    order = np.lexsort((idx, group))
    rows, group = idx[order], group[order]
    row_excess = excess[rows]
    ng = len(uniq)
    total = np.bincount(group, weights=np.maximum(row_excess, 0.0), minlength=ng)
    n_err = np.bincount(group, minlength=ng)
    bucket = uniq[:, 1] * 1_000_000 + (uniq[:, 2] + 1)
    return Candidates(rows=rows, group=group, row_excess=row_excess, position=uniq[:, 0],
                      position_ids=[sel.positions[p] for p in uniq[:, 0]], family=uniq[:, 1], score=uniq[:, 2],
                      bucket=bucket, excess=total, n_errors=n_err)


# -- narrow and unstable lessons ---------------------------------------------------------

def cube_second_costs(sel: Selection, idx: np.ndarray) -> np.ndarray:
    """The cost of the other cube option (EMG, pre-double cube) of decisions
    ``idx``: the owner's |ND − min(DT, DP)|, the responder's |DT − DP|; NaN
    for checker plays and unknown figures."""
    dec = sel.decisions
    kind = dec.kind[idx]
    nd, dt, dp = dec.nd[idx], dec.dt[idx], dec.dp[idx]
    offer = np.isin(kind, (KIND_CODES["nodouble"], KIND_CODES["double"]))
    respond = np.isin(kind, (KIND_CODES["take"], KIND_CODES["pass"]))
    with np.errstate(invalid="ignore"):
        out = np.where(offer, np.abs(nd - np.fmin(dt, dp)), np.where(respond, np.abs(dt - dp), np.nan))
    return out


def narrow_limit_mpt(thresholds: Thresholds) -> float:
    """A second choice below this many millipoints makes a lesson narrow (half the error threshold)."""
    return NARROW_SHARE * round(thresholds.error * 1000)


def narrow_rows(second_cost: np.ndarray, thresholds: Thresholds) -> np.ndarray:
    """Narrow lesson per decision: its second choice costs less than half
    the error threshold (both in millipoints, as every threshold); unknown
    (NaN) is not narrow."""
    second_cost = np.asarray(second_cost, dtype=np.float64)
    known = ~np.isnan(second_cost)
    return known & (millipoints(second_cost) < narrow_limit_mpt(thresholds))


OFFER, RESPOND, PLAY = "offer", "respond", "checker"
_NATURE_OF_KIND = {"checker": PLAY, "nodouble": OFFER, "double": OFFER, "take": RESPOND, "pass": RESPOND}


def verdict(kind: str, nd, dt, dp, best_move) -> Optional[str]:
    """The analysis' verdict on a decision: the owner's "double" / "no
    double" (double when min(DT, DP) > ND), the responder's "take" / "pass"
    (take when DT ≤ DP), a checker play's best move; None unknown."""
    nature = _NATURE_OF_KIND.get(kind)
    if nature == PLAY:
        return best_move or None
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (nd, dt, dp)):
        return None
    if nature == OFFER:
        return "double" if min(dt, dp) > nd else "no double"
    if nature == RESPOND:
        return "take" if dt <= dp else "pass"
    return None


def _is_rollout(depth: Optional[str]) -> bool:
    return bool(depth) and str(depth).lower().startswith("rollout")


def stability(analyses: dict, row_ids: Iterable[int]) -> tuple:
    """(unstable, confirmed): two sets of decision ids among ``row_ids``.

    ``analyses``: the stored analyses of the positions of those decisions
    (the store's ``position_analyses``), columns of equal length: ``id``,
    ``position_id``, ``kind``, ``dice`` (larger die × 10 + smaller, -1),
    ``length``, ``score_self``, ``score_opp``, ``crawford``, ``cube_value``,
    ``cube_owner``, ``nd``, ``dt``, ``dp``, ``best_move``, ``depth`` (the
    decision's), ``engine``, ``analysis_depth`` (the analysis' label).

    A decision is **unstable** when another analysis of the same decision
    (same position, nature, score, cube and, for a checker play, dice) by
    another engine or depth gives another verdict — for a checker play
    only a rollout counts (SPEC §10: another depth of the *cube* analysis
    or a rollout).  It is **confirmed** when a rollout (its own analysis'
    included) gives its verdict."""
    ids = analyses.get("id", [])
    wanted = set(int(r) for r in row_ids)
    situations: dict = {}
    own = {}
    for k in range(len(ids)):
        kind = analyses["kind"][k]
        nature = _NATURE_OF_KIND.get(kind)
        if nature is None:
            continue
        if nature == PLAY:
            situation = (analyses["position_id"][k], nature, int(analyses["dice"][k]), int(analyses["length"][k]),
                         int(analyses["score_self"][k]), int(analyses["score_opp"][k]), int(analyses["crawford"][k]))
        else:
            situation = (analyses["position_id"][k], nature, -1, int(analyses["length"][k]),
                         int(analyses["score_self"][k]), int(analyses["score_opp"][k]), int(analyses["crawford"][k]),
                         int(analyses["cube_value"][k]), int(analyses["cube_owner"][k]))
        depth = analyses["depth"][k] or analyses["analysis_depth"][k]
        source = (analyses["engine"][k], depth)
        v = verdict(kind, analyses["nd"][k], analyses["dt"][k], analyses["dp"][k], analyses["best_move"][k])
        entry = (int(ids[k]), source, _is_rollout(depth) or _is_rollout(analyses["analysis_depth"][k]), v, nature)
        situations.setdefault(situation, []).append(entry)
        if int(ids[k]) in wanted:
            own[int(ids[k])] = (situation, entry)
    unstable, confirmed = set(), set()
    for rid, (situation, (_id, source, _roll, v, nature)) in own.items():
        if v is None:
            continue
        for oid, osource, orollout, ov, _n in situations[situation]:
            if ov is None:
                continue
            if orollout and ov == v:
                confirmed.add(rid)
            if oid != rid and osource != source and ov != v and (nature != PLAY or orollout):
                unstable.add(rid)
    return unstable, confirmed


# -- the greedy choice -----------------------------------------------------------------

@dataclass
class Choice:
    group: int  # the candidate chosen
    gain: float  # c × Σ excess covered (the cost's terms: EMG or fractions of MWC)
    factor: float  # c
    covers: list  # the candidates it covers (itself first when it was not covered before)
    rows: np.ndarray  # the decisions of those candidates (indices into sel.decisions)
    narrow: bool
    unstable: bool
    confirmed: bool
    # its neighbours (same family and cube score, within rho), and how many earlier choices and studied
    # positions had covered some of them, or its own errors, before it was chosen
    neighbours: int = 0
    covered_by_choices: int = 0
    covered_by_studied: int = 0


MIN_COVERED = 2  # a reference is at the centre of several errors when it covers this many positions


def why_alone(cands: Candidates, ch: Choice, rho: int = RHO) -> Optional[str]:
    """Why the chosen candidate ``ch`` covers fewer than ``MIN_COVERED``
    positions (None when it covers that many): "no neighbour within 12 pips
    in its family" (" at this score" for a cube decision of match play,
    whose neighbours share its score), or which of its neighbours —
    and its own errors — were covered before it by earlier references or
    studied positions (docs/references.md)."""
    if len(ch.covers) >= MIN_COVERED:
        return None
    where = f"within {rho} pips in its family" + (" at this score" if cands.score[ch.group] >= 0 else "")
    if not ch.neighbours:
        return f"no neighbour {where}"
    choices, studied = ch.covered_by_choices, ch.covered_by_studied
    by = " and ".join(words for words in (
        ("earlier references" if choices > 1 else "an earlier reference") if choices else "",
        ("studied positions" if studied > 1 else "a studied position") if studied else "",
    ) if words)
    own = bool(ch.covers) and ch.covers[0] == ch.group  # its own errors still uncovered when chosen
    k = ch.neighbours
    neighbours = f"{k} neighbour{'s' if k != 1 else ''} {where}"
    if own:
        return f"its {neighbours} {'was' if k == 1 else 'were'} covered already, by {by}"
    left = k - len(ch.covers)  # its neighbours covered before it
    return f"its own errors and {left} of its {neighbours} were covered already, by {by}"


@dataclass
class References:
    candidates: Candidates
    chosen: list  # [Choice], in the greedy order
    studied: np.ndarray  # bool per candidate: studied (never proposed, counts as chosen)
    dropped: np.ndarray  # bool per candidate: a near duplicate of a chosen or studied position
    n_pairs: int = 0  # neighbour pairs found
    stats: dict = field(default_factory=dict)


def _key(gain: float, confirmed: bool, own: float, pid: str, g: int) -> tuple:
    # gains compared to 1e-12 of MWC (sums in another order tie); then a confirming rollout; then the
    # position's own excess not yet covered (its own lesson before a covered position's); then the ID
    return (-int(round(gain * 1e12)), not confirmed, -int(round(own * 1e12)), pid, g)


def choose(cands: Candidates, *, narrow=None, unstable=None, confirmed=None, studied: Iterable[str] = (),
           limit: Optional[int] = None, rho: int = RHO, near: int = NEAR) -> References:
    """The greedy choice over ``cands``.  ``narrow``, ``unstable``,
    ``confirmed``: bool per candidate (default all False); ``studied``:
    position IDs already studied (comment, "studied" mark, card,
    collection); ``limit``: at most this many (None or 0: until no gain is
    left)."""
    n = len(cands)
    narrow = np.zeros(n, bool) if narrow is None else np.asarray(narrow, bool)
    unstable = np.zeros(n, bool) if unstable is None else np.asarray(unstable, bool)
    confirmed = np.zeros(n, bool) if confirmed is None else np.asarray(confirmed, bool)
    studied_ids = sorted(set(studied))
    # the distinct positions (candidates' and studied ones), each decoded once
    distinct = sorted(set(cands.position_ids) | set(studied_ids))
    where = {pid: k for k, pid in enumerate(distinct)}
    pos_of = np.array([where[pid] for pid in cands.position_ids], dtype=np.int64)
    sides = position_sides(distinct)
    readable = sides[:, 0, 0] >= 0
    cum = cumulative(np.where(sides < 0, 0, sides))
    # neighbours: same bucket (family, cube score), like distance ≤ rho
    cum_c = cum[pos_of] if n else np.zeros((0, 50), np.int16)
    i, j = neighbour_pairs(cum_c, cands.bucket, rho)
    keep = readable[pos_of[i]] & readable[pos_of[j]]
    indptr, nbrs = _adjacency(n, i[keep], j[keep])
    # near duplicates: any family, like distance ≤ near, between distinct positions (the same ID: itself)
    ni, nj = neighbour_pairs(cum, None, near)
    keep = readable[ni] & readable[nj]
    near_ptr, near_idx = _adjacency(len(distinct), ni[keep], nj[keep])
    by_pos = np.argsort(pos_of, kind="stable")  # candidates of each distinct position
    pos_ptr = np.searchsorted(pos_of[by_pos], np.arange(len(distinct) + 1))

    def duplicates(k: int) -> np.ndarray:
        """The candidates at distinct position k or within ``near`` of it."""
        ks = np.concatenate([[k], near_idx[near_ptr[k]:near_ptr[k + 1]]])
        return np.concatenate([by_pos[pos_ptr[q]:pos_ptr[q + 1]] for q in ks])

    studied_set = set(studied_ids)
    is_studied = np.array([pid in studied_set for pid in cands.position_ids], dtype=bool)
    covered = np.zeros(n, bool)
    covered_by = np.full(n, -1, np.int64)  # by whom: -1 none, k ≥ 0 the k-th choice, -2 - g studied candidate g
    dropped = np.zeros(n, bool)
    for g in np.nonzero(is_studied)[0]:
        covered[g] = True
        covered[nbrs[indptr[g]:indptr[g + 1]]] = True
        hood = np.concatenate([[g], nbrs[indptr[g]:indptr[g + 1]]]).astype(np.int64)
        covered_by[hood[covered_by[hood] == -1]] = -2 - g
    for pid in studied_ids:  # a studied position's near duplicates, in every family, are not proposed
        dropped[duplicates(where[pid])] = True
    dropped &= ~is_studied
    proposable = ~is_studied & ~dropped

    factor = np.where(narrow, HALF, 1.0) * np.where(unstable, HALF, 1.0)
    excess = cands.excess

    def gain_of(g: int) -> float:
        members = nbrs[indptr[g]:indptr[g + 1]]
        total = (0.0 if covered[g] else excess[g]) + float(excess[members][~covered[members]].sum())
        return float(factor[g] * total)

    # initial gains, vectorised (every candidate's uncovered neighbourhood)
    open_x = np.where(covered, 0.0, excess)
    counts = np.diff(indptr)
    nb_sum = (np.bincount(np.repeat(np.arange(n), counts), weights=open_x[nbrs], minlength=n) if len(nbrs)
              else np.zeros(n))
    gains = factor * (open_x + nb_sum)
    # lazy greedy: the candidates in the order of their first keys (numpy), and a heap of those whose gain
    # fell since; the next is the better of the two heads
    gain_int = np.round(gains * 1e12).astype(np.int64)
    own_int = np.round(open_x * 1e12).astype(np.int64)
    pid_rank = np.unique(np.array(cands.position_ids, dtype=object), return_inverse=True)[1].reshape(-1) if n \
        else np.zeros(0, np.int64)
    first = np.nonzero(proposable & (gains > 0))[0]
    first = first[np.lexsort((first, pid_rank[first], -own_int[first], ~confirmed[first], -gain_int[first]))]
    heap: list = []
    chosen = []
    pops = 0
    at = 0

    def first_key(g):
        return _key(gains[g], confirmed[g], open_x[g], cands.position_ids[g], g)

    while (heap or at < len(first)) and (not limit or len(chosen) < limit):
        if at < len(first) and (not heap or first_key(first[at]) < heap[0]):
            top = first_key(first[at])
            at += 1
        else:
            top = heapq.heappop(heap)
        g = top[4]
        pops += 1
        if dropped[g]:
            continue
        gain = gain_of(g)
        if gain <= 0:
            continue
        key = _key(gain, confirmed[g], 0.0 if covered[g] else excess[g], cands.position_ids[g], g)
        if key != top:  # its gain fell since it was pushed: push it back with the gain it has now
            heapq.heappush(heap, key)
            continue
        members = nbrs[indptr[g]:indptr[g + 1]]
        newly = ([g] if not covered[g] else []) + [int(q) for q in members if not covered[q]]
        before = covered_by[np.concatenate([[g], members]).astype(np.int64)]  # itself and its neighbours
        covered_by[newly] = len(chosen)
        covered[newly] = True
        dropped[duplicates(int(pos_of[g]))] = True
        dropped[g] = False
        rows = np.concatenate([cands.rows_of(q) for q in newly]) if newly else np.zeros(0, np.int64)
        chosen.append(Choice(group=int(g), gain=gain, factor=float(factor[g]), covers=newly, rows=rows,
                             narrow=bool(narrow[g]), unstable=bool(unstable[g]), confirmed=bool(confirmed[g]),
                             neighbours=len(members), covered_by_choices=len(set(before[before >= 0].tolist())),
                             covered_by_studied=len(set(before[before <= -2].tolist()))))
    return References(candidates=cands, chosen=chosen, studied=is_studied, dropped=dropped, n_pairs=len(nbrs) // 2,
                      stats={"pops": pops, "near_pairs": int(len(near_idx) // 2), "positions": len(distinct)})


def group_flags(cands: Candidates, row_flags: np.ndarray, rule: str = "any") -> np.ndarray:
    """A per-decision flag (aligned with ``cands.rows``) per candidate:
    ``"any"`` of its errors, or ``"all"`` of them."""
    n = len(cands)
    if not n:
        return np.zeros(0, bool)
    hits = np.bincount(cands.group, weights=np.asarray(row_flags, dtype=np.float64), minlength=n)
    if rule == "all":
        return hits == np.bincount(cands.group, minlength=n)
    return hits > 0


def family_of(cands: Candidates, g: int) -> dict:
    """The family of candidate ``g`` in words."""
    game_plan, nature, theme = FAMILIES[int(cands.family[g])]
    out = {"family": FAMILY_NAMES[int(cands.family[g])], "game_plan": game_plan, "nature": nature, "theme": theme}
    s = int(cands.score[g])
    if s >= 0:
        out["score"] = {"away": [(s // 2) // 64, (s // 2) % 64], "crawford": bool(s % 2)}
    return out


__all__ = ["RHO", "NEAR", "position_sides", "cumulative", "like_distances", "neighbour_pairs", "Candidates",
           "candidates", "candidate_mask", "cube_second_costs", "narrow_rows", "verdict", "stability", "choose",
           "References", "Choice", "group_flags", "family_of", "why_alone", "MIN_COVERED"]
