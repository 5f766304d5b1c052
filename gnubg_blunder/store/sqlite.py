"""The SQLite store: one object over a database, made of its parts.

One transaction per match (a match is stored whole or not at all), WAL so
that gnubg and the command line can share the database, schema migrated by
numbered steps (:mod:`.schema`).  Figures are never computed here: the store
selects decisions and hands arrays to :mod:`gnubg_blunder.metrics`.  Each
responsibility is a module of its own (docs/architecture.md "The store"):

- :mod:`.connection`: opening (WAL, read-only files, copies in memory),
  transactions, metadata;
- :mod:`.matches`: writing matches, identity, aliases, labels;
- :mod:`.selection`: what a filter selects, as arrays;
- :mod:`.array_cache`: the cache those arrays are read from;
- :mod:`.study_data`: study actions, collections, position reads.
"""

from __future__ import annotations

from .array_cache import ARRAYS_FORMAT, ArrayCache
from .derived import DerivedRules
from .connection import BUSY_TIMEOUT, SQLiteDialect, StoreConnection, busy_timeout, write_transaction
from .dialect import Dialect
from .matches import ALREADY_STORED, ANALYSIS_ADDED, EXTENDED, STORED, MatchRecords, StoreResult
from .selection import DecisionSelection
from .study_data import StudyData

__all__ = ["Store", "SQLiteStore", "StoreResult", "STORED", "ALREADY_STORED", "ANALYSIS_ADDED", "EXTENDED", "ARRAYS_FORMAT",
           "BUSY_TIMEOUT", "busy_timeout", "write_transaction"]


class Store(StoreConnection, MatchRecords, DecisionSelection, ArrayCache, StudyData):
    """Storage behind one interface: ``add_match``, ``matches``, ``select``,
    ``get_meta``/``set_meta``, over the engine its ``dialect`` is
    (store/dialect.py: SQLite's, store/connection.py ``SQLiteDialect``;
    PostgreSQL's, store/postgres.py ``PostgresDialect``).  Every query,
    every rule of storing and reading and the array cache are this one
    class's; what differs between the engines is the dialect's."""

    def __init__(self, dialect: Dialect, report=None, upgrade: bool = True, *, rules: DerivedRules):
        self.dialect = dialect
        self._start(dialect.shown_name, report, rules)
        dialect.open(self, upgrade)

    @property
    def engine(self) -> str:
        """"sqlite" or "postgresql": how messages and ``check`` name it (the dialect's name)."""
        return self.dialect.name


class SQLiteStore(Store):
    """The store in a SQLite file (or ``:memory:``)."""

    def __init__(self, path, report=None, upgrade: bool = True, *, rules: DerivedRules):
        """Open (or create) the database at ``path``, migrated to the current
        schema (``upgrade=False``: as it is, for ``check``).  ``report`` takes
        the one-line notes the opening has for the user (a backup made before
        an upgrade, a read-only database read from a copy); default: stderr.

        Any number of processes may open one database at once.  A database
        that cannot be written (its file, folder or mount read-only) is
        opened read-only: every read works, a write says why it cannot be
        made (``read_only_reason``).  docs/reliability.md.

        ``rules``: the metric rules of its derived columns (store/derived.py;
        ``gnubg_blunder.database`` gives the metrics' own)."""
        super().__init__(SQLiteDialect(path), report, upgrade, rules=rules)
