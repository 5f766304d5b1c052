"""The metric rules a store's derived columns follow (store/derived.py's
``DerivedRules``): each is the one rule of its metric module, handed to the
store by whoever opens it (``gnubg_blunder.database``), so that the store
imports no metric."""

from __future__ import annotations

from .biases import blots_on_roll
from .counting import counted_by_rule
from .difficulty import difficulties, difficulty_columns
from .plan import restrict_to_family

__all__ = ["MetricRules", "METRIC_RULES"]


class MetricRules:
    """SPEC §6's difficulty, §2's counted rule, §12's blots on roll and
    §9's ``--family`` restriction, as the store asks for them."""

    difficulties = staticmethod(difficulties)
    difficulty_columns = staticmethod(difficulty_columns)
    counted_by_rule = staticmethod(counted_by_rule)
    blots_on_roll = staticmethod(blots_on_roll)
    restrict_to_family = staticmethod(restrict_to_family)


METRIC_RULES = MetricRules()
