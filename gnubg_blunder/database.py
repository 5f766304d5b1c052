"""A store opened with the metrics' rules for its derived columns.

The store (``store/``) imports no metric rule: it is given the rules of the
columns it derives (store/derived.py).  This module hands it the metrics'
own (``metrics.derived.METRIC_RULES``), once, for every program that opens
a database: the command kit, ``copy``, ``check``, the benchmarks and the
tests.  docs/architecture.md "Layers"."""

from __future__ import annotations

from . import store
from .metrics.derived import METRIC_RULES
from .store.check import CheckReport, check_database as _check_database

__all__ = ["open_store", "SQLiteStore", "check_database", "METRIC_RULES"]


def open_store(path=None, report=None, upgrade: bool = True) -> store.Store:
    """:func:`gnubg_blunder.store.open_store` with the metrics' rules."""
    return store.open_store(path, report=report, upgrade=upgrade, rules=METRIC_RULES)


class SQLiteStore(store.SQLiteStore):
    """The SQLite store with the metrics' rules unless given others."""

    def __init__(self, path, report=None, upgrade: bool = True, *, rules=METRIC_RULES):
        super().__init__(path, report, upgrade, rules=rules)


def check_database(path, repair: bool = False) -> CheckReport:
    """:func:`gnubg_blunder.store.check.check_database` with the metrics' rules."""
    return _check_database(path, repair=repair, rules=METRIC_RULES)
