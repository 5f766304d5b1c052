"""The one filter every view takes (SPEC §14)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass, field
from typing import Optional

DECISION_TYPES = ("all", "checker", "cube")


@dataclass(frozen=True)
class SavedFrom:
    """Which values of a filter are a database's saved filter's (``filter
    set``), so that a refusal of one of them says where it came from."""

    database: str  # the database, as messages name it
    keys: frozenset  # the filter's keys whose value is the saved one

    def note(self, *keys) -> str:
        """`` (from the saved filter of DB; --no-config ignores it)`` when
        one of ``keys`` has the saved value (none given: any), else ``""``."""
        if not (self.keys & set(keys) if keys else self.keys):
            return ""
        return f" (from the saved filter of {self.database}; --no-config ignores it)"


@dataclass
class Filter:
    player: Optional[str] = None
    date_from: Optional[str] = None  # ISO date, inclusive
    date_to: Optional[str] = None  # ISO date, inclusive
    lengths: Optional[tuple] = None  # match lengths kept; 0 = money
    tournaments: Optional[tuple] = None  # events kept (names, without case)
    decision_type: str = "all"
    engine: Optional[str] = None  # gnubg or xg
    min_depth: Optional[float] = None  # gnubg plies
    family: Optional[str] = None  # a study-plan family "GAME PLAN/checker|cube/THEME" (SPEC §9; metrics/plan.py)
    collection: Optional[str] = None  # a collection's name: decisions at its positions (docs/collections.md)
    saved_from: Optional[SavedFrom] = field(default=None, compare=False, repr=False)  # not a criterion

    def __post_init__(self):
        for name in ("date_from", "date_to"):
            v = getattr(self, name)
            if v is not None:
                try:
                    _dt.date.fromisoformat(v)
                except ValueError:
                    raise ValueError(f"{name.replace('_', ' ')} {v!r} is not a date (YYYY-MM-DD)") from None
        if (self.date_from is not None and self.date_to is not None
                and _dt.date.fromisoformat(self.date_from) > _dt.date.fromisoformat(self.date_to)):
            raise ValueError(f"date from {self.date_from} is later than date to {self.date_to}: "
                             f"no day lies between them")
        if self.player is not None and not str(self.player).strip():
            raise ValueError("player: the name is empty (give a player's name)")
        if self.decision_type not in DECISION_TYPES:
            raise ValueError(f"decision type {self.decision_type!r}: choose all, checker or cube")
        if self.lengths is not None:
            self.lengths = tuple(int(x) for x in self.lengths)
        if self.tournaments is not None:
            self.tournaments = tuple(str(t) for t in self.tournaments)
        if self.family is not None:
            from .metrics.plan import canonical_family

            self.family = canonical_family(self.family)  # ValueError naming the closest families
        if self.collection is not None:
            self.collection = str(self.collection).strip()
            if not self.collection:
                raise ValueError("collection: the name is empty (give a collection's name; `collection list`)")

    def origin(self, *keys) -> str:
        """What a refusal of ``keys``' values adds: where the saved ones came
        from (:meth:`SavedFrom.note`); ``""`` when they were given for this run."""
        return self.saved_from.note(*keys) if self.saved_from is not None else ""

    def to_json(self) -> dict:
        d = asdict(self)
        del d["saved_from"]
        for k in ("lengths", "tournaments"):
            if d[k] is not None:
                d[k] = list(d[k])
        return d
