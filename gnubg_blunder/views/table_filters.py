"""Column filters and sorting for any table of rows (dicts), SPEC §14.

A table declares its columns (:class:`Column`: key, label, text or number,
the digits it is shown with).  Then

- ``parse_where("decisions>=500", columns)`` reads one column filter;
  ``apply_filters(rows, filters)`` keeps the rows passing all of them;
- ``parse_sort("pr:desc", columns)`` reads a sort order;
  ``sort_rows(rows, key, desc)`` sorts with the rows whose value was never
  measured (None, shown "—") last in either direction.

Filter forms on a number column: ``>=500``, ``>500``, ``<2.5``, ``<=2``,
``3-7`` (inclusive range; ``-5--1`` for negative bounds), ``5`` (exact, at
the precision written: ``5`` keeps what rounds to 5, ``4.50`` what rounds to
4.50).  On a text column: a fragment of the text, without case.  Numbers
are compared as the table shows them (rounded to the column's digits), so a
PR shown "2.50" does not pass ``<2.5``.  A value never measured passes no
bound.  A filter that cannot be read raises :class:`FilterError` (one
line), never ignored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Callable, Optional

from ..errors import UserError


class FilterError(ValueError, UserError):
    """An unreadable column filter or sort order (one line for the user)."""


@dataclass(frozen=True)
class Column:
    key: str  # the row's key (and the JSON key)
    label: str  # the header shown
    kind: str = "number"  # "number" or "text"
    digits: Optional[int] = None  # digits shown (numbers compare rounded to them); None = as they are
    aliases: tuple = ()  # other names the user may type


def _norm(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def find_column(name: str, columns) -> Column:
    """The column called ``name`` (key, label or alias; case, spaces, '-' and
    '_' ignored)."""
    wanted = _norm(name)
    if wanted:
        for c in columns:
            if wanted in {_norm(c.key), _norm(c.label), *(_norm(a) for a in c.aliases)}:
                return c
    known = ", ".join(c.key for c in columns)
    raise FilterError(f"no column {name!r} (columns: {known})")


# -- numbers -----------------------------------------------------------------

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_CMP = re.compile(rf"^(>=|<=|>|<|=)?\s*({_NUM})$")
_RANGE = re.compile(rf"^({_NUM})\s*-\s*({_NUM})$")


def _shown(value: float, digits: Optional[int]) -> Decimal:
    """The value as the table prints it (f"{x:.{digits}f}" rounds the exact
    binary value half to even; Decimal(x) is that exact value)."""
    d = Decimal(value)
    if digits is None:
        return d
    return d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)


def _number(value) -> Optional[float]:
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or math.isinf(x) else x


@dataclass
class ColumnFilter:
    column: Column
    text: str  # the filter as written
    test: Callable = field(repr=False)  # value -> bool

    def __call__(self, row: dict) -> bool:
        return bool(self.test(row.get(self.column.key)))

    def describe(self) -> str:
        return f"{self.column.key} {self.text}"


def parse_filter(spec: str, column: Column) -> ColumnFilter:
    """One filter for one column (the part after ``COLUMN=``)."""
    text = (spec or "").strip().replace("≥", ">=").replace("≤", "<=").replace("−", "-").replace("–", "-")
    if not text:
        raise FilterError(f"empty filter for column {column.key!r}")
    if column.kind == "text":
        frag = text.casefold()
        return ColumnFilter(column, text, lambda v: v is not None and frag in str(v).casefold())
    digits = column.digits
    m = _RANGE.match(text)
    if m:
        lo, hi = Decimal(m.group(1)), Decimal(m.group(2))
        if lo > hi:
            raise FilterError(f"filter {column.key}={spec!r}: the range is empty (write the low bound first, "
                              f"e.g. {m.group(2)}-{m.group(1)})")

        def in_range(v, lo=lo, hi=hi):
            x = _number(v)
            return x is not None and lo <= _shown(x, digits) <= hi

        return ColumnFilter(column, text, in_range)
    m = _CMP.match(text)
    if not m:
        raise FilterError(
            f"filter {column.key}={spec!r} is not readable: write >=N, >N, <N, <=N, A-B (inclusive) or N"
        )
    op, bound = m.group(1) or "=", Decimal(m.group(2))
    if op == "=":
        # exact at the precision written: "5" keeps what rounds to 5
        places = max(0, -bound.as_tuple().exponent)

        def exact(v, bound=bound, places=places):
            x = _number(v)
            return x is not None and _shown(x, places) == bound

        return ColumnFilter(column, text, exact)
    compare = {
        ">=": lambda a, b: a >= b,
        ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b,
        "<": lambda a, b: a < b,
    }[op]

    def bounded(v, bound=bound, compare=compare):
        x = _number(v)
        return x is not None and compare(_shown(x, digits), bound)

    return ColumnFilter(column, text, bounded)


_WHERE = re.compile(r"^\s*([^=<>≥≤]+?)\s*(=|(?=[<>≥≤]))(.*)$", re.S)


def parse_where(text: str, columns) -> ColumnFilter:
    """``COLUMN=FILTER`` (``decisions=>=500``, ``pr=3-7``, ``player=char``);
    ``decisions>=500`` is read the same way."""
    m = _WHERE.match(text or "")
    if not m:
        raise FilterError(f"column filter {text!r}: write COLUMN=FILTER, e.g. decisions=>=500 or player=char")
    column = find_column(m.group(1), columns)
    return parse_filter(m.group(3), column)


def apply_filters(rows: list, filters) -> list:
    """The rows passing every filter (in their order)."""
    filters = list(filters or ())
    return [r for r in rows if all(f(r) for f in filters)]


# -- sorting -----------------------------------------------------------------

def parse_sort(text: str, columns) -> tuple:
    """``COLUMN`` or ``COLUMN:asc`` / ``COLUMN:desc`` -> (Column, desc)."""
    name, _, direction = (text or "").partition(":")
    direction = direction.strip().lower()
    if direction not in ("", "asc", "desc"):
        raise FilterError(f"sort {text!r}: the direction is asc or desc (e.g. pr:desc)")
    return find_column(name, columns), direction == "desc"


def _sort_value(value, column: Column):
    if column.kind == "text":
        return None if value is None else str(value).casefold()
    return _number(value)


def sort_rows(rows: list, column: Column, desc: bool = False, tiebreak: Optional[Column] = None) -> list:
    """Rows sorted by ``column``; rows without a value ("—") come last in
    either direction; equal values keep the ``tiebreak`` column's ascending
    order (then their order)."""

    def tie(r):
        if tiebreak is None:
            return ""
        v = _sort_value(r.get(tiebreak.key), tiebreak)
        return "" if v is None else v

    known, unknown = [], []
    for r in rows:
        (unknown if _sort_value(r.get(column.key), column) is None else known).append(r)
    known.sort(key=tie)  # stable sorts: tiebreak first, then the column
    known.sort(key=lambda r: _sort_value(r.get(column.key), column), reverse=desc)
    unknown.sort(key=tie)
    return known + unknown
