"""The rules the store's derived columns follow, given to it.

The store keeps a few columns worked out of what it stores: each counted
decision's difficulty d (SPEC §6), written with the decision and when an
old database is upgraded; the array cache's counted flag (SPEC §2) and
blots on roll (SPEC §12); and it restricts a selection to one study-plan
family for ``--family`` (SPEC §9).  Those rules are metrics
(``metrics/``); the store holds none of them and imports no metric: whoever
opens a store hands it an object with these five functions
(``gnubg_blunder.database`` hands it ``metrics.derived.METRIC_RULES``).
"""

from __future__ import annotations

from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from ..arrays import DecisionArrays, Selection

__all__ = ["DerivedRules", "NO_RULES_GIVEN"]

NO_RULES_GIVEN = ("a store needs the rules of its derived columns (rules=...): open it with "
                  "gnubg_blunder.database.open_store, which gives it the metrics' rules")


@runtime_checkable
class DerivedRules(Protocol):
    """What a store asks of the metrics (each one rule, in ``metrics/``)."""

    def difficulties(self, rows: Sequence[dict]) -> list:
        """(d, truncated) of each decision row, as ``metrics.difficulty.difficulties``."""

    def difficulty_columns(self, dec: DecisionArrays, flat: np.ndarray, lens: np.ndarray,
                           cnt: Optional[np.ndarray] = None) -> tuple:
        """(d, truncated) arrays, as ``metrics.difficulty.difficulty_columns``."""

    def counted_by_rule(self, dec: DecisionArrays) -> np.ndarray:
        """SPEC §2's counted decisions from their own columns (``metrics.counting``)."""

    def blots_on_roll(self, pids) -> np.ndarray:
        """Blots of the player on roll of each position ID (``metrics.biases``)."""

    def restrict_to_family(self, sel: Selection, family: Optional[str]) -> Selection:
        """Only the decisions of one study-plan family (``metrics.plan``)."""
