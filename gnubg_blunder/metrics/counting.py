"""Which decisions count, and how big an error is (SPEC §2, §3).

Each rule lives here once, under one name, as a function over decision
arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board.forced import is_forced as forced_rule
from ..model import BEAVER, BEAVER_CLOSE
from ..units import micro, millipoints
from ..arrays import KIND_CODES, DecisionArrays
from ..stash import StashKey, cached

K_CHECKER = KIND_CODES["checker"]
K_NO_DOUBLE = KIND_CODES["nodouble"]
K_DOUBLE = KIND_CODES["double"]
K_TAKE = KIND_CODES["take"]
K_PASS = KIND_CODES["pass"]

# SPEC §2: a no double counts while ND - min(DT, DP) < 0.200 (micro-EMG).
NO_DOUBLE_WINDOW_MICRO = 200_000
# gnubg's close cube decision: best - min(DT, 1) < 0.16.
GNUBG_CLOSE_CUBE = 0.16


def is_forced(dec: DecisionArrays) -> np.ndarray:
    """SPEC §2 forced plays: the board engine's rule (board/forced.py) over
    the decision arrays."""
    return forced_rule(dec.n_legal, dec.n_candidates, dec.equity_spread)


def no_double_in_window(dec: DecisionArrays) -> np.ndarray:
    """SPEC §2: ND > 0 and ND - min(DT, DP) < 0.200 (cubeful, player on roll)."""
    return _in_window(dec.nd, dec.dt, dec.dp)


def _in_window(nd, dt, dp) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        gap = nd - np.fmin(dt, dp)
        ok = ~np.isnan(nd) & ~np.isnan(dt) & (nd > 0)
    return ok & (micro(gap) < NO_DOUBLE_WINDOW_MICRO)


def closes_beaver(dec: DecisionArrays) -> np.ndarray:
    """SPEC §2: the doubler's answer to a beaver (the take that closes a
    beaver chain) is not a decision: out of every figure of ours.  The beaver
    itself is the responder's take (a plain take decision here).  gnubg's
    statistics file the answer as a take: see :func:`gnubg_decisions`."""
    return dec.beaver_take == BEAVER_CLOSE


COUNTED: StashKey[np.ndarray] = StashKey("counted")


def counted(dec: DecisionArrays) -> np.ndarray:
    """The PR denominator (SPEC §2, XG's rules); computed once per decision
    arrays (kept in their stash, ``stash.py``), a fresh copy each call."""
    return cached(dec, COUNTED, lambda: _counted(dec)).copy()


def _counted(dec: DecisionArrays) -> np.ndarray:
    carried = dec.counted  # the array cache's flag: the same rule, applied when the cache was built
    if len(carried) and carried.min() >= 0:
        return carried == 1
    return counted_by_rule(dec)


def counted_by_rule(dec: DecisionArrays) -> np.ndarray:
    """:func:`counted` from the decisions' own columns (kind, error,
    beaver, XG's verdict, the forced rule's and the no-double window's
    inputs)."""
    known = ~np.isnan(dec.error)
    kind = dec.kind
    out = np.isin(kind, (K_DOUBLE, K_TAKE, K_PASS)) & known & ~closes_beaver(dec)
    # the forced rule and the no-double window read only their own decisions' rows
    checker = np.nonzero((kind == K_CHECKER) & known)[0]
    if len(checker):
        verdict = dec.xg_counted[checker]
        own = np.nonzero(verdict < 0)[0]
        ok = verdict == 1
        if len(own):
            rows = checker[own]
            ok[own] = ~np.asarray(forced_rule(dec.n_legal[rows], dec.n_candidates[rows], dec.equity_spread[rows]))
        out[checker] = ok
    nodouble = np.nonzero((kind == K_NO_DOUBLE) & known)[0]
    if len(nodouble):
        out[nodouble] = _in_window(dec.nd[nodouble], dec.dt[nodouble], dec.dp[nodouble])
    return out


def kind_mask(dec: DecisionArrays, decision_type: str) -> np.ndarray:
    """The decision-type filter of SPEC §14: all, checker or cube."""
    if decision_type in (None, "all"):
        return np.ones(len(dec), dtype=bool)
    if decision_type == "checker":
        return dec.kind == K_CHECKER
    if decision_type == "cube":
        return dec.kind != K_CHECKER
    raise ValueError(f"unknown decision type {decision_type!r} (all, checker or cube)")


# -- gnubg's own counting (the cross-check of SPEC §3) ----------------------

def gnubg_decisions(dec: DecisionArrays) -> np.ndarray:
    """The decisions gnubg's statistics see (SPEC §2, last point, reproduced
    only here): not the beaver, which gnubg does not analyse; the doubler's
    answer to it is filed by gnubg as that player's take, judged on the
    original double's analysis (it stays in)."""
    return dec.beaver_take != BEAVER


def gnubg_unforced(dec: DecisionArrays) -> np.ndarray:
    """gnubg's "unforced moves": analysed checker plays with more than one
    candidate in its list (its list holds every legal play)."""
    return (dec.kind == K_CHECKER) & (dec.n_candidates > 1)


def gnubg_close_cube(dec: DecisionArrays) -> np.ndarray:
    """gnubg's "close or actual cube decisions": every analysed double, take
    and pass that gnubg sees (:func:`gnubg_decisions`), plus the analysed
    no-doubles where best − min(DT, 1) < 0.16, "best" being ND where gnubg's
    replay sees no cube access."""
    with np.errstate(invalid="ignore"):
        best = np.where(dec.gnubg_dead_cube == 1, dec.nd, np.fmax(dec.nd, np.fmin(dec.dt, dec.dp)))
        close = (best - np.fmin(dec.dt, 1.0)) < GNUBG_CLOSE_CUBE
    analysed = ~np.isnan(dec.nd) & ~np.isnan(dec.dt)
    nodouble = (dec.kind == K_NO_DOUBLE) & analysed & close
    actual = np.isin(dec.kind, (K_DOUBLE, K_TAKE, K_PASS)) & ~np.isnan(dec.error) & gnubg_decisions(dec)
    return nodouble | actual


def gnubg_error(dec: DecisionArrays) -> np.ndarray:
    """The error gnubg's statistics give each decision (EMG, 0 where gnubg
    sees none, NaN where unknown or where gnubg has no decision): e, except
    no missed double where gnubg's replay sees no cube access."""
    e = np.where((dec.kind == K_NO_DOUBLE) & (dec.gnubg_dead_cube == 1) & ~np.isnan(dec.error), 0.0, dec.error)
    return np.where(gnubg_decisions(dec), e, np.nan)


@dataclass(frozen=True)
class Thresholds:
    """Error and blunder thresholds in EMG (SPEC §3), inclusive, compared on
    e rounded to the millipoint."""

    error: float = 0.050
    blunder: float = 0.100

    def classify(self, e: np.ndarray):
        mpt = millipoints(e)
        known = ~np.isnan(np.asarray(e, dtype=np.float64))
        err = known & (mpt >= round(self.error * 1000))
        blunder = known & (mpt >= round(self.blunder * 1000))
        return err, blunder


THRESHOLD_PRESETS = {
    "default": Thresholds(0.050, 0.100),
    "gnubg": Thresholds(0.060, 0.120),
    "xg": Thresholds(0.020, 0.080),
}
