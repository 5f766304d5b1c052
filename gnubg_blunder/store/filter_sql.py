"""The filter (``filters.Filter``) as the store applies it: one rule for
each of its fields, declared here once, and a filter compiled into them
once per selection (:func:`compile_filter`).

A field the rows of ``matches`` decide is one SQL condition
(``SQL_CONDITIONS``: when it applies, its condition, its arguments); the
others are a step of :meth:`~.selection.DecisionSelection.select` after the
query (``AFTER_QUERY``, in words: the names merged through the aliases, the
analysis chosen, the decisions kept).  ``tests/test_filter_declaration.py``
checks that every field of the filter has exactly one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..filters import Filter

__all__ = ["SQL_CONDITIONS", "AFTER_QUERY", "CompiledFilter", "compile_filter"]


def _marks(values) -> str:
    return ",".join("?" * len(values))


@dataclass(frozen=True)
class SqlCondition:
    """One field as SQL over ``matches``: ``applies(value)``, the condition
    (``sql(value)``, ``?`` marks) and its arguments (``args(value)``)."""

    applies: Callable
    sql: Callable
    args: Callable


SQL_CONDITIONS = {
    "date_from": SqlCondition(bool, lambda v: "date >= ?", lambda v: [v]),
    "date_to": SqlCondition(bool, lambda v: "date <= ?", lambda v: [v]),
    "lengths": SqlCondition(lambda v: v is not None, lambda v: f"length IN ({_marks(v)})", list),
    "tournaments": SqlCondition(bool, lambda v: f"lower(event) IN ({_marks(v)})",
                                lambda v: [t.lower() for t in v]),
}

# the fields no row of ``matches`` decides: where select applies each
AFTER_QUERY = {
    "player": "the players' names merged through the aliases: the matches of that player, and his side",
    "engine": "which stored analysis of a match is read (choose_analysis)",
    "min_depth": "which stored analysis of a match is read (choose_analysis)",
    "family": "only the decisions of one study-plan family (the store's derived rule, store/derived.py)",
    "collection": "only the decisions at a position filed in the collection",
    "decision_type": "none: the metrics count the decisions of the type it names (SPEC §14)",
}


@dataclass(frozen=True)
class CompiledFilter:
    """A filter as one selection applies it: the SQL over ``matches``
    (``where``, ``args``) and the steps after the query."""

    where: tuple
    args: tuple
    player: Optional[str]
    any_analysis: bool  # no engine or depth asked for: a match's one analysis is read as it is
    family: Optional[str]
    collection: Optional[str]


def compile_filter(flt: Filter, kind: Optional[str] = "match", match_ids=None) -> CompiledFilter:
    """``flt`` (and the matches' ``kind``, the ids asked for) as the store
    applies it, once per selection."""
    where, args = [], []
    if kind is not None:
        where.append("kind = ?")
        args.append(kind)
    if match_ids is not None:
        ids = [int(i) for i in match_ids]
        where.append(f"id IN ({_marks(ids) or 'NULL'})")
        args.extend(ids)
    for name, condition in SQL_CONDITIONS.items():
        value = getattr(flt, name)
        if condition.applies(value):
            where.append(condition.sql(value))
            args.extend(condition.args(value))
    return CompiledFilter(tuple(where), tuple(args), flt.player,
                          flt.engine is None and flt.min_depth is None, flt.family or None,
                          getattr(flt, "collection", None) or None)
