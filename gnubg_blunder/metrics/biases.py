"""Signed biases (SPEC §12): which way a player's decisions lean.

Each counted decision of a family gets x = +1 (too bold), -1 (too cautious)
or 0; with P, M the counts of +1 and -1 among N: B = (P - M)/N,
Var = ((P + M)/N - B²)/N, interval B ± 1.96 √Var (clamped to [-1, 1], a
difference of two rates; none under 3 decisions or without spread, SPEC
§7: all P, all M or no wrong decision).  A decision is wrong when it
disagrees with the analysis' best action (e > 0 in micro-EMG), so B is the
player's rate of the bold action minus the bot's.  Families:

- take/pass: counted takes and passes (a beaver is a take): P = wrong takes,
  M = wrong passes;
- doubles: counted cube-owner decisions (doubles and counted no doubles):
  P = premature doubles (the best is no double, too good included), M =
  missed doubles; also by score cell (own away, opponent's away; money
  under 0/0);
- blots: counted checker plays with contact (before the play), wrong ones
  (e > 0): x = sign(blots after the played play - blots after the best);
  the played play is recognised by the board it leaves, and a play whose
  boards are not known (not reproduced) leaves the count, its share shown.

Pure numpy over a :class:`Selection`.  The blots of the boards a wrong
checker play left and of the best play's board are decision columns
(``blots_played``, ``blots_best``) the store's array cache keeps.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..board.features import PLAN_BEAROFF, PLAN_RACE, has_contact
from ..board.position import Board
from ..arrays import LABEL_CODES, Selection, position_ids_at
from .breakdowns import score_keys
from .counting import K_CHECKER, K_DOUBLE, K_NO_DOUBLE, K_PASS, K_TAKE, counted, kind_mask
from .intervals import MIN_UNITS, side_of_zero, symmetric_interval
from .kernel import error_micro, side_mask
from ..stash import StashKey, cached

MIN_DECISIONS = 20  # a verdict needs this many decisions

TOO_MUCH, TOO_LITTLE, BALANCED, INSUFFICIENT = "too much", "too little", "balanced", "insufficient"

FAMILIES = ("take_pass", "doubles", "blots")
# what P and M are, per family (the text and the docs say so)
WORDS = {
    "take_pass": ("wrong takes", "wrong passes"),
    "doubles": ("premature doubles", "missed doubles"),
    "blots": ("more blots than best", "fewer blots than best"),
}


def signed_interval(p: int, m: int, n: int) -> Optional[list]:
    """[low, high] of B = (P - M)/N (SPEC §12), clamped to [-1, 1]; None
    under 3 decisions or without spread (all P, all M or none: Var = 0),
    SPEC §7 — never a zero-width interval."""
    if n <= 0:
        return None
    b = (p - m) / n
    ci = symmetric_interval(b, ((p + m) / n - b * b) / n, n)
    return None if ci is None else [max(-1.0, ci[0]), min(1.0, ci[1])]


def interval_note(p: int, m: int, n: int) -> Optional[str]:
    """Why B has no interval (None when it has one): the kernel's words
    ("no interval: 2 decisions", "no interval: no spread")."""
    if signed_interval(p, m, n) is not None:
        return None
    if n < MIN_UNITS:
        return f"no interval: {n} decision{'s' if n != 1 else ''}"
    return "no interval: no spread"


def verdict(n: int, ci: Optional[list], b: Optional[float] = None) -> str:
    """"too much" (low > 0), "too little" (high < 0), else "balanced"; from
    ``MIN_DECISIONS`` decisions, else "insufficient".  A set without spread
    (no interval) reads B itself: all P is "too much", all M "too little",
    no wrong decision "balanced"."""
    if n < MIN_DECISIONS:
        return INSUFFICIENT
    if ci is None:
        if b is None:
            return INSUFFICIENT
        ci = [b, b]
    return side_of_zero(ci, TOO_MUCH, TOO_LITTLE, BALANCED)


def bias(x: np.ndarray, error: np.ndarray) -> dict:
    """The bias of decisions with signs ``x`` (+1, -1, 0) and errors
    ``error`` (EMG): n, p, m, b, ci (None: no interval, ``ci_note`` says
    why), verdict and the summed cost of P and of M in millipoints."""
    x = np.asarray(x)
    e = np.nan_to_num(np.asarray(error, dtype=np.float64))
    n, p, m = int(len(x)), int((x > 0).sum()), int((x < 0).sum())
    ci = signed_interval(p, m, n)
    b = (p - m) / n if n else None
    return {
        "n": n,
        "p": p,
        "m": m,
        "b": b,
        "ci": ci,
        "ci_note": interval_note(p, m, n),
        "verdict": verdict(n, ci, b),
        "cost_p_mpt": round(float(e[x > 0].sum()) * 1000, 3),
        "cost_m_mpt": round(float(e[x < 0].sum()) * 1000, 3),
    }


def base(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """Counted decisions of the filter's side(s) and decision type."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool)
    return counted(dec) & side_mask(sel) & kind_mask(dec, decision_type)


def wrong(sel: Selection) -> np.ndarray:
    """e > 0 (in micro-EMG): the decision disagrees with the analysis' best."""
    return error_micro(sel) > 0


def take_pass_signs(sel: Selection) -> np.ndarray:
    """+1 wrong take (a beaver is a take), -1 wrong pass, 0 otherwise."""
    dec = sel.decisions
    w = wrong(sel)
    return np.where((dec.kind == K_TAKE) & w, 1, np.where((dec.kind == K_PASS) & w, -1, 0)).astype(np.int8)


DOUBLE_SIGNS: StashKey[np.ndarray] = StashKey("double signs")


def double_signs(sel: Selection) -> np.ndarray:
    """+1 premature double (the best was no double, too good included), -1
    missed double, 0 otherwise.  Once per selection (``biases`` and
    :func:`double_cells` both read it; read-only)."""
    def compute():
        dec = sel.decisions
        w = wrong(sel)
        return np.where((dec.kind == K_DOUBLE) & w, 1, np.where((dec.kind == K_NO_DOUBLE) & w, -1, 0)).astype(np.int8)

    return cached(sel, DOUBLE_SIGNS, compute)


def score_cells(sel: Selection, mask: np.ndarray) -> list:
    """[(away, opp_away, indices)...] of the decisions in ``mask``:
    match-play cells by own away then the opponent's (post-Crawford games
    are 1-away like the Crawford game), money as 0/0 first; unknown scores
    left out."""
    a_self, a_opp, money = score_keys(sel)
    out = []
    if (mask & money).any():
        out.append((0, 0, np.flatnonzero(mask & money)))
    idx = np.flatnonzero(mask & ~money & (a_self >= 1))
    if len(idx):
        width = int(a_opp[idx].max()) + 1
        key = a_self[idx].astype(np.int64) * width + a_opp[idx]
        order = np.argsort(key, kind="stable")
        keys, starts = np.unique(key[order], return_index=True)
        for k, lo, hi in zip(keys, starts, list(starts[1:]) + [len(order)]):
            out.append((int(k // width), int(k % width), idx[order[lo:hi]]))
    return out


NO_CONTACT_PLANS = tuple(LABEL_CODES["game_plan"][p] for p in (PLAN_RACE, PLAN_BEAROFF))


def with_contact(sel: Selection, mask: np.ndarray) -> np.ndarray:
    """The decisions of ``mask`` whose board before the play has contact:
    from the game-plan label (race and bear-off are the plans without
    contact; the bear-off phase has contact bear-offs too), from the board
    where the label is unknown."""
    dec = sel.decisions
    known = dec.game_plan >= 0
    out = mask & known & ~np.isin(dec.game_plan, NO_CONTACT_PLANS)
    rest = np.flatnonzero(mask & ~known)
    if len(rest):
        ids = position_ids_at(sel, rest)
        has = np.array([p is not None for p in ids], dtype=bool)
        contact = {p: has_contact(Board.from_position_id(p)) for p in set(ids[has])}
        out[rest[has]] = [contact[p] for p in ids[has]]
    return out


_B64 = np.full(256, -1, dtype=np.int16)
for _k, _c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"):
    _B64[_c] = _k
# key bit k (gnubg reads the ID's 10 bytes as one little-endian integer) is
# bit k % 8 of byte k // 8: in the base64 stream, bytes are written most
# significant bit first
_KEY_BIT = np.array([(k // 8) * 8 + 7 - k % 8 for k in range(80)])
PID_LENGTH = 14


def blots_on_roll(pids) -> np.ndarray:
    """Blots (single checkers on points 1-24) of the player on roll of each
    gnubg position ID, decoded all at once: the same count as
    ``board.features.blots(Board.from_position_id(pid).on_roll)``
    (tests/test_biases.py checks it); -1 where ``pid`` is no 14-character
    base64 text.  The ID is 25 entries of the opponent then 25 of the
    player on roll (points 1-24, then the bar), each n 1-bits and a 0-bit."""
    pids = list(pids)
    distinct = list(dict.fromkeys(pids))
    if len(distinct) < len(pids):
        counts = dict(zip(distinct, _blots_distinct(distinct).tolist()))
        return np.array([counts[p] for p in pids], dtype=np.int64)
    return _blots_distinct(pids)


def _blots_distinct(pids: list) -> np.ndarray:
    out = np.full(len(pids), -1, dtype=np.int64)
    ok = np.array([isinstance(p, str) and len(p) == PID_LENGTH and p.isascii() for p in pids], dtype=bool)
    if not ok.any():
        return out
    text = "".join(p for p, good in zip(pids, ok) if good).encode("ascii")
    six = _B64[np.frombuffer(text, dtype=np.uint8).reshape(-1, PID_LENGTH)]
    valid = (six >= 0).all(axis=1)
    six = np.where(six < 0, 0, six).astype(np.uint8)
    stream = np.unpackbits(six[:, :, None], axis=2)[:, :, 2:].reshape(len(six), -1)  # 6 bits a character
    bits = stream[:, _KEY_BIT].astype(bool)
    zero = ~bits
    entry = np.cumsum(zero, axis=1, dtype=np.int8) - zero  # the entry of each bit: 0-bits before it
    before = np.ones_like(bits)
    before[:, 1:] = zero[:, :-1]
    after = np.ones_like(bits)
    after[:, :-1] = zero[:, 1:]
    single = bits & before & after  # an entry of exactly one checker
    blots = (single & (entry >= 25) & (entry <= 48)).sum(axis=1)  # the player on roll's points 1-24
    good = np.flatnonzero(ok)
    out[good] = np.where(valid, blots, -1)
    return out


def blot_signs(sel: Selection, mask: np.ndarray, results: Optional[dict] = None) -> tuple:
    """(eligible, reproduced, x) over the counted checker plays in ``mask``
    with contact before the play.  Only a wrong play (e > 0) can lean, so
    only those need their boards: the blots the selection's columns carry;
    with ``results`` (the tests' cross-check of the cache) {row_id: (board
    left by the played move, that board is among the analysis' candidates,
    board of the analysis' first candidate)} (position IDs; None unknown)
    read for :func:`blot_rows` instead.  A wrong play is reproduced when
    the board it left is one of the candidates' and both boards read; x =
    sign(blots after played - blots after best).  A right play (e = 0) is x
    = 0 and reproduced: its e could only be known by finding the played move
    among the candidates by the board it leaves (importers/build.py)."""
    dec = sel.decisions
    eligible = with_contact(sel, mask & (dec.kind == K_CHECKER))
    w = eligible & wrong(sel)
    reproduced = eligible & ~w
    x = np.zeros(len(dec), dtype=np.int8)
    idx = np.flatnonzero(w)
    if not len(idx):
        return eligible, reproduced, x
    if results is None:
        played, best = dec.blots_played[idx].astype(np.int64), dec.blots_best[idx].astype(np.int64)
    else:
        got = [results.get(int(r)) or (None, False, None) for r in dec.row_id[idx]]
        played = np.where([g[1] for g in got], blots_on_roll([g[0] for g in got]), -1)
        best = blots_on_roll([g[2] for g in got])
    ok = (played >= 0) & (best >= 0)
    reproduced[idx[ok]] = True
    x[idx[ok]] = np.sign(played[ok] - best[ok])
    return eligible, reproduced, x


def blot_rows(sel: Selection, decision_type: str = "all") -> list:
    """The store ids of the plays whose boards :func:`blot_signs` needs:
    the wrong counted checker plays with contact of the filter's side(s)."""
    dec = sel.decisions
    mask = with_contact(sel, base(sel, decision_type) & (dec.kind == K_CHECKER)) & wrong(sel)
    return [int(i) for i in dec.row_id[mask]]


def biases(sel: Selection, results: Optional[dict] = None, decision_type: str = "all", cells: bool = True) -> dict:
    """The three families (SPEC §12) over the selection's counted decisions
    of the filter's side(s); ``results`` as in :func:`blot_signs` (None: the
    blots the selection's columns carry).  ``cells=False``: without the
    doubles' score cells (:func:`double_cells`; the summary's card shows
    none)."""
    dec = sel.decisions
    mask = base(sel, decision_type)
    e = dec.error
    tp = mask & np.isin(dec.kind, (K_TAKE, K_PASS))
    x_tp = take_pass_signs(sel)
    out = {"take_pass": bias(x_tp[tp], e[tp])}
    dbl = mask & np.isin(dec.kind, (K_DOUBLE, K_NO_DOUBLE))
    x_d = double_signs(sel)
    doubles = bias(x_d[dbl], e[dbl])
    if cells:
        doubles["cells"] = _double_cells(sel, dbl, x_d)
    out["doubles"] = doubles
    eligible, reproduced, x_b = blot_signs(sel, mask, results)
    blots = bias(x_b[reproduced], e[reproduced])
    n_eligible = int(eligible.sum())
    blots["not_reproduced"] = n_eligible - int(reproduced.sum())
    blots["not_reproduced_share"] = blots["not_reproduced"] / n_eligible if n_eligible else None
    out["blots"] = blots
    return out


def double_cells(sel: Selection, decision_type: str = "all") -> list:
    """The doubles' bias in each score cell (:func:`score_cells`), as
    ``biases`` gives them under ``doubles["cells"]``."""
    dec = sel.decisions
    dbl = base(sel, decision_type) & np.isin(dec.kind, (K_DOUBLE, K_NO_DOUBLE))
    return _double_cells(sel, dbl, double_signs(sel))


def _double_cells(sel: Selection, dbl: np.ndarray, x_d: np.ndarray) -> list:
    e = sel.decisions.error
    return [dict(away=a, opp_away=b, **bias(x_d[ix], e[ix])) for a, b, ix in score_cells(sel, dbl)]
