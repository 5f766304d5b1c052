"""Signed biases (SPEC §12): which way a player's decisions lean.

Each counted decision of a family gets x = +1 (too bold), -1 (too cautious)
or 0; with P, M the counts of +1 and -1 among N: B = (P - M)/N,
Var = ((P + M)/N - B²)/N, interval B ± 1.96 √Var (clamped to [-1, 1], a
difference of two rates).  A decision is wrong when it disagrees with the
analysis' best action (e > 0 in micro-EMG), so B is the player's rate of the
bold action minus the bot's.  Families:

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

Pure numpy over a :class:`Selection`; the boards after the checker plays
come in as position IDs (``checker_results``), read by the view.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..board.features import blots as side_blots, has_contact
from ..board.position import Board
from ..units import micro
from .arrays import Selection
from .breakdowns import score_keys
from .counting import K_CHECKER, K_DOUBLE, K_NO_DOUBLE, K_PASS, K_TAKE, counted, kind_mask

Z95 = 1.96
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
    when N = 0.  A set without spread (all P, all M or none) has a zero-width
    interval at B."""
    if n <= 0:
        return None
    b = (p - m) / n
    var = max(0.0, ((p + m) / n - b * b) / n)
    half = Z95 * float(np.sqrt(var))
    return [max(-1.0, b - half), min(1.0, b + half)]


def verdict(n: int, ci: Optional[list]) -> str:
    """"too much" (low > 0), "too little" (high < 0), else "balanced"; from
    ``MIN_DECISIONS`` decisions, else "insufficient"."""
    if n < MIN_DECISIONS or ci is None:
        return INSUFFICIENT
    if ci[0] > 0:
        return TOO_MUCH
    if ci[1] < 0:
        return TOO_LITTLE
    return BALANCED


def bias(x: np.ndarray, error: np.ndarray) -> dict:
    """The bias of decisions with signs ``x`` (+1, -1, 0) and errors
    ``error`` (EMG): n, p, m, b, ci, verdict and the summed cost of P and of
    M in millipoints."""
    x = np.asarray(x)
    e = np.nan_to_num(np.asarray(error, dtype=np.float64))
    n, p, m = int(len(x)), int((x > 0).sum()), int((x < 0).sum())
    ci = signed_interval(p, m, n)
    return {
        "n": n,
        "p": p,
        "m": m,
        "b": (p - m) / n if n else None,
        "ci": ci,
        "verdict": verdict(n, ci),
        "cost_p_mpt": round(float(e[x > 0].sum()) * 1000, 3),
        "cost_m_mpt": round(float(e[x < 0].sum()) * 1000, 3),
    }


def base(sel: Selection, decision_type: str = "all") -> np.ndarray:
    """Counted decisions of the filter's side(s) and decision type."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool)
    return counted(dec) & sel.decision_side_mask() & kind_mask(dec, decision_type)


def wrong(sel: Selection) -> np.ndarray:
    """e > 0 (in micro-EMG): the decision disagrees with the analysis' best."""
    return micro(sel.decisions.error) > 0


def take_pass_signs(sel: Selection) -> np.ndarray:
    """+1 wrong take (a beaver is a take), -1 wrong pass, 0 otherwise."""
    dec = sel.decisions
    w = wrong(sel)
    return np.where((dec.kind == K_TAKE) & w, 1, np.where((dec.kind == K_PASS) & w, -1, 0)).astype(np.int8)


def double_signs(sel: Selection) -> np.ndarray:
    """+1 premature double (the best was no double, too good included), -1
    missed double, 0 otherwise."""
    dec = sel.decisions
    w = wrong(sel)
    return np.where((dec.kind == K_DOUBLE) & w, 1, np.where((dec.kind == K_NO_DOUBLE) & w, -1, 0)).astype(np.int8)


def score_cells(sel: Selection, mask: np.ndarray) -> list:
    """[(away, opp_away, mask)...] of the decisions in ``mask``: match-play
    cells by own away then the opponent's (post-Crawford games are 1-away
    like the Crawford game), money as 0/0 first; unknown scores left out."""
    a_self, a_opp, money = score_keys(sel)
    out = []
    if (mask & money).any():
        out.append((0, 0, mask & money))
    keep = mask & ~money & (a_self >= 1)
    for a, b in sorted({(int(x), int(y)) for x, y in zip(a_self[keep], a_opp[keep])}):
        out.append((a, b, keep & (a_self == a) & (a_opp == b)))
    return out


def _blot_counts(pids: list) -> dict:
    """{position ID: blots of the player on roll}."""
    return {pid: side_blots(Board.from_position_id(pid).on_roll) for pid in pids}


def blot_signs(sel: Selection, mask: np.ndarray, results: dict) -> tuple:
    """(eligible, reproduced, x): over the counted checker plays in ``mask``
    with contact before the play; ``results`` {row_id: (board left by the
    played play, the played candidate's board, the best candidate's board)}
    as position IDs (None unknown).  A play is reproduced when the board it
    left is the board of the candidate the analysis judged as played and the
    best candidate's board is known; x = sign(blots after played - blots
    after best) where e > 0, else 0."""
    dec = sel.decisions
    eligible = mask & (dec.kind == K_CHECKER) & (dec.position >= 0)
    idx = np.flatnonzero(eligible)
    contact_of = {}
    for k in np.unique(dec.position[idx]):
        contact_of[int(k)] = has_contact(Board.from_position_id(sel.positions[int(k)]))
    contact = np.zeros(len(dec), dtype=bool)
    if len(idx):
        contact[idx] = [contact_of[int(k)] for k in dec.position[idx]]
    eligible &= contact
    idx = np.flatnonzero(eligible)
    reproduced = np.zeros(len(dec), dtype=bool)
    played_pid, best_pid = {}, {}
    for i in idx:
        after, played, best = results.get(int(dec.row_id[i]), (None, None, None))
        if after is not None and after == played and best is not None:
            reproduced[i] = True
            played_pid[i], best_pid[i] = after, best
    counts = _blot_counts(sorted(set(played_pid.values()) | set(best_pid.values())))
    x = np.zeros(len(dec), dtype=np.int8)
    w = wrong(sel)
    for i, after in played_pid.items():
        if w[i]:
            d = counts[after] - counts[best_pid[i]]
            x[i] = (d > 0) - (d < 0)
    return eligible, reproduced, x


def biases(sel: Selection, results: Optional[dict] = None, decision_type: str = "all") -> dict:
    """The three families (SPEC §12) over the selection's counted decisions
    of the filter's side(s); ``results`` as in :func:`blot_signs` (None: no
    checker board read, every checker play with contact not reproduced)."""
    dec = sel.decisions
    mask = base(sel, decision_type)
    e = dec.error
    tp = mask & np.isin(dec.kind, (K_TAKE, K_PASS))
    x_tp = take_pass_signs(sel)
    out = {"take_pass": bias(x_tp[tp], e[tp])}
    dbl = mask & np.isin(dec.kind, (K_DOUBLE, K_NO_DOUBLE))
    x_d = double_signs(sel)
    doubles = bias(x_d[dbl], e[dbl])
    doubles["cells"] = [dict(away=a, opp_away=b, **bias(x_d[cm], e[cm])) for a, b, cm in score_cells(sel, dbl)]
    out["doubles"] = doubles
    eligible, reproduced, x_b = blot_signs(sel, mask, results or {})
    blots = bias(x_b[reproduced], e[reproduced])
    n_eligible = int(eligible.sum())
    blots["not_reproduced"] = n_eligible - int(reproduced.sum())
    blots["not_reproduced_share"] = blots["not_reproduced"] / n_eligible if n_eligible else None
    out["blots"] = blots
    return out


def checker_rows(sel: Selection, decision_type: str = "all") -> list:
    """The store ids of the counted checker plays of the filter's side(s):
    the rows whose boards :func:`blot_signs` needs."""
    dec = sel.decisions
    mask = base(sel, decision_type) & (dec.kind == K_CHECKER)
    return [int(i) for i in dec.row_id[mask]]
