"""What many metrics need of one selection, computed once per selection.

The views of one scope (the summary with its cards, the report's sections)
ask the same questions of the same arrays: which decisions count (SPEC §2),
ℓ and d in MWC of each decision (SPEC §1, §6), which matches are money.
:func:`memo` keeps each answer beside the object it was computed from (a
:class:`~gnubg_blunder.metrics.arrays.Selection` or its decision arrays),
for as long as that object lives; the rules themselves stay where they are
(``counting.py``, ``kernel.py``), each computed by its own function.

The arrays kept are made read-only: a caller that changes one in place
fails loudly instead of changing every later figure.  A selection's
arrays are read-only data once selected; code that edits them (tests
building a case) does so before the first figure is asked for.
"""

from __future__ import annotations

import weakref
from typing import Callable

import numpy as np

_MEMO: dict = {}  # id(owner) -> (weak reference to owner, {key: value})


def _forget(oid: int, ref) -> None:
    entry = _MEMO.get(oid)
    if entry is not None and entry[0] is ref:
        del _MEMO[oid]


def memo(owner, key, compute: Callable):
    """``compute()`` once per ``owner`` (held by a weak reference, by
    identity) and ``key``; a numpy result is made read-only."""
    oid = id(owner)
    entry = _MEMO.get(oid)
    if entry is None or entry[0]() is not owner:
        try:
            ref = weakref.ref(owner, lambda r, oid=oid: _forget(oid, r))
        except TypeError:  # an owner that cannot be weakly referenced: no memo
            return compute()
        entry = (ref, {})
        _MEMO[oid] = entry
    values = entry[1]
    if key not in values:
        value = compute()
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        values[key] = value
    return values[key]


def forget(owner, keep=()) -> None:
    """Drop what was memoized for ``owner`` (computed again when next
    asked), but the keys ``keep`` (a key, or a tuple key's first item)."""
    entry = _MEMO.get(id(owner))
    if entry is None or entry[0]() is not owner:
        return
    values = entry[1]
    for key in list(values):
        if (key[0] if isinstance(key, tuple) else key) not in keep:
            del values[key]
