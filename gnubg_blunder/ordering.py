"""The stable order of rows by several integer columns, fast: below the
metrics and the game record, which both sort decisions by (match, game,
seq, ...) — tilt's runs (metrics/tilt.py) and gnubg's game-record rows
(game_record.py)."""

from __future__ import annotations

import numpy as np


def lexsort_order(columns) -> np.ndarray:
    """``np.lexsort`` of ``columns`` given the most significant first: the
    stable order of the rows by them, by one sort of one integer key where
    their ranges fit in 62 bits (over 1.6 M decisions a few times faster
    than a lexsort of four or five columns: tilt, gnubg's game-record
    rows), else by the lexsort."""
    columns = [np.asarray(col) for col in columns]
    key, span = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64), 1
    for col in columns:
        if not len(col):
            return np.zeros(0, dtype=np.int64)
        low, high = int(col.min()), int(col.max())
        span *= high - low + 1
        if span >= 1 << 62:
            return np.lexsort(columns[::-1])
        key *= high - low + 1
        key += col
        key -= low
    return np.argsort(key, kind="stable")
