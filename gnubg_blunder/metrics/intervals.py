"""95 % intervals in closed form (SPEC §7).

The unit resampled is the largest independent one: the games of a match, the
matches of an aggregate (both sides of a match are one unit when there is no
player filter).  Fewer than 3 units, or no spread, give no interval (None):
never a zero-width one, in any view (:func:`symmetric_interval` is the rule
for the intervals made of a variance elsewhere: the plan's, the study's,
the biases').
"""

from __future__ import annotations

from typing import Optional

import numpy as np

Z95 = 1.96
MIN_UNITS = 3


def symmetric_interval(centre: float, var: float, units: Optional[int] = None) -> Optional[list]:
    """[centre − 1.96·√var, centre + 1.96·√var], not floored; None without
    spread (var ≤ 0: a zero-width interval is certainty where there is none)
    or, when ``units`` is given, under ``MIN_UNITS`` units (SPEC §7)."""
    if not var > 0 or (units is not None and units < MIN_UNITS):
        return None
    half = Z95 * float(np.sqrt(var))
    low, high = centre - half, centre + half
    return [low, high] if high > low else None  # a spread lost in the float's last digit is none


def ratio_interval(e_units, n_units, scale: float = 1.0) -> Optional[tuple]:
    """Interval of R = Σe/Σn over units:
    Var(R) = G/(G−1) · Σ(e_u − R·n_u)² / (Σn_u)²; R ± 1.96·√Var, the lower
    bound floored at 0, then × scale (500 for PR)."""
    e = np.asarray(e_units, dtype=np.float64)
    return ratio_intervals(e, n_units, [0], [len(e)], scale)[0]


def ratio_intervals(e_units, n_units, starts, lengths, scale=1.0) -> list:
    """:func:`ratio_interval` of many groups of units at once: group i is
    the units ``starts[i]`` to ``starts[i] + lengths[i]`` of ``e_units`` and
    ``n_units``; ``scale`` one number or one per group.  Every sum is taken
    as ``np.sum`` takes it over the group's own units, so that each interval
    is the one :func:`ratio_interval` gives of its group alone, to the bit."""
    e = np.asarray(e_units, dtype=np.float64)
    n = np.asarray(n_units, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.int64)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), lengths.shape)
    out = [None] * len(lengths)
    for rows, (E, N) in _rows((e, n), starts, lengths, lengths):
        g = lengths[rows]
        total_n = N.sum(axis=1)
        ok = (g >= MIN_UNITS) & (total_n > 0)
        if not ok.any():
            continue
        rows, E, N, g, total_n = rows[ok], E[ok], N[ok], g[ok], total_n[ok]
        r = E.sum(axis=1) / total_n
        square = np.array([t**2 for t in total_n])  # a scalar's power, as one group's is taken
        var = g / (g - 1) * ((E - r[:, None] * N) ** 2).sum(axis=1) / square
        _bounds(out, rows, r, var, scale[rows])
    return out


def sum_interval(unit_values, scale: float = 1.0) -> Optional[tuple]:
    """Interval of a sum over G units (L of one match over its games):
    Var = G/(G−1) · Σ(l_g − l̄)²; the lower bound floored at 0, × scale."""
    v = np.asarray(unit_values, dtype=np.float64)
    return sum_intervals(v, [0], [len(v)], [len(v)], scale)[0]


def sum_intervals(unit_values, starts, lengths, widths, scale=1.0) -> list:
    """:func:`sum_interval` of many groups at once: group i is the values
    ``starts[i]`` to ``starts[i] + lengths[i]``, followed by zeros up to
    ``widths[i]`` units (units without a value add 0); ``scale`` one number
    or one per group.  Each interval is the one :func:`sum_interval` gives
    of its group alone, to the bit."""
    v = np.asarray(unit_values, dtype=np.float64)
    widths = np.asarray(widths, dtype=np.int64)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), widths.shape)
    out = [None] * len(widths)
    for rows, (V,) in _rows((v,), starts, lengths, widths):
        g = widths[rows]
        if g[0] < MIN_UNITS:  # one width a block
            continue
        total = V.sum(axis=1)
        var = g / (g - 1) * ((V - (total / g)[:, None]) ** 2).sum(axis=1)
        _bounds(out, rows, total, var, scale[rows])
    return out


def _bounds(out: list, rows, centre, var, scale) -> None:
    """centre ± 1.96·√var, the lower bound floored at 0, × scale, into
    ``out[rows]`` where var > 0 and the bounds differ (never a zero-width
    interval)."""
    ok = var > 0
    if not ok.all():
        rows, centre, var, scale = rows[ok], centre[ok], var[ok], scale[ok]
    half = Z95 * np.sqrt(var)
    low = centre - half
    low = np.where(low > 0.0, low, 0.0) * scale  # max(0.0, low)
    high = (centre + half) * scale
    for i, lo, hi in zip(rows.tolist(), low.tolist(), high.tolist()):
        if hi > lo:
            out[i] = (lo, hi)


def _rows(arrays, starts, lengths, widths):
    """The groups as matrices, one block of rows per width: (rows, [the
    values of each array, a group a row, zeros after its own values])."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    widths = np.asarray(widths, dtype=np.int64)
    if len(widths) == 1:
        blocks = [(int(widths[0]), np.zeros(1, dtype=np.int64))]
    else:
        blocks = [(int(w), np.nonzero(widths == w)[0]) for w in np.unique(widths)]
    for w, rows in blocks:
        if w == 0:
            yield rows, [np.zeros((len(rows), 0)) for _ in arrays]
            continue
        cols = np.arange(w)
        ln = lengths[rows]
        if (ln == w).all():
            idx = starts[rows][:, None] + cols
            yield rows, [a[idx] for a in arrays]
            continue
        valid = cols < ln[:, None]
        idx = np.where(valid, starts[rows][:, None] + cols, 0)
        yield rows, [np.where(valid, a[idx], 0.0) if len(a) else np.zeros((len(rows), w)) for a in arrays]


def side_of_zero(ci, above: str, below: str, across: str) -> str:
    """The verdict of an interval against 0 (SPEC §11, §12, §13 all read it
    so): ``above`` when its lower bound is > 0, ``below`` when its upper
    bound is < 0, else ``across``."""
    if ci[0] > 0:
        return above
    if ci[1] < 0:
        return below
    return across
