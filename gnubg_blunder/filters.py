"""The one filter every view takes (SPEC §14)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass
from typing import Optional

DECISION_TYPES = ("all", "checker", "cube")


@dataclass
class Filter:
    player: Optional[str] = None
    date_from: Optional[str] = None  # ISO date, inclusive
    date_to: Optional[str] = None  # ISO date, inclusive
    lengths: Optional[tuple] = None  # match lengths kept; 0 = money
    decision_type: str = "all"
    engine: Optional[str] = None  # gnubg or xg
    min_depth: Optional[float] = None  # gnubg plies

    def __post_init__(self):
        for name in ("date_from", "date_to"):
            v = getattr(self, name)
            if v is not None:
                try:
                    _dt.date.fromisoformat(v)
                except ValueError:
                    raise ValueError(f"{name.replace('_', ' ')} {v!r} is not a date (YYYY-MM-DD)") from None
        if self.decision_type not in DECISION_TYPES:
            raise ValueError(f"decision type {self.decision_type!r}: choose all, checker or cube")
        if self.lengths is not None:
            self.lengths = tuple(int(x) for x in self.lengths)

    def to_json(self) -> dict:
        d = asdict(self)
        if d["lengths"] is not None:
            d["lengths"] = list(d["lengths"])
        return d
