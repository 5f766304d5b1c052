"""The forced-play rule of SPEC §2, for gnubg analyses.

A play is forced when the roll allows at most one legal play (counted by our
own move generator, :func:`gnubg_blunder.board.moves.count_legal_plays`), or
when the analysis lists every legal play and all have the same equity to the
millipoint (best − worst < 0.0005).  When the legal plays cannot be counted,
only a single candidate makes the play forced.  XG analyses carry XG's own
verdict instead (see metrics/counting.py).

Works on numbers and on numpy arrays alike (unknown legal count: -1).
"""

from __future__ import annotations

import numpy as np

from ..units import micro

# best − worst below 0.0005 EMG: "the same equity to the millipoint",
# compared in integer micro-EMG so that float edges do not matter.
EQUAL_EQUITY_MICRO = 500


def is_forced(n_legal, n_candidates, equity_spread):
    """True where the play is forced.  ``n_legal`` -1 = not counted,
    ``equity_spread`` = best − worst candidate equity (NaN = unknown)."""
    n_legal = np.asarray(n_legal, dtype=np.int64)
    n_candidates = np.asarray(n_candidates, dtype=np.int64)
    spread = np.asarray(equity_spread, dtype=np.float64)
    known = n_legal >= 0
    all_listed = known & (n_candidates == n_legal)
    same_equity = ~np.isnan(spread) & (micro(spread) < EQUAL_EQUITY_MICRO)
    out = np.where(known, (n_legal <= 1) | (all_listed & same_equity), n_candidates == 1)
    return out if out.ndim else bool(out)
