"""The one filter every view takes (SPEC §14), declared once.

Each criterion is a field of :class:`Filter` whose metadata says all there
is to say of it: its option (flag, help, metavar, type, repeat;
:mod:`.options`), how it is checked, and how it is said — in words (the
scope every view names) and as flags (the same scope in another command).
From that one declaration come the command line's flags
(:func:`add_filter_options`, :func:`flags_given`), the saved filter's YAML
keys (:func:`filter_keys`), the JSON (:meth:`Filter.to_json`), the flags
of a drill-down command (:func:`command_flags`) and the words
(:func:`filter_words`).  A field's name is its YAML key, its JSON key and
the attribute the store reads (``store/``: one SQL condition per field).

Light: no numpy, no store, no metric rule (``--help`` builds the flags
from here; :mod:`.families` is imported only to check a ``--family``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
from dataclasses import dataclass, field
from typing import Callable, Optional

from .options import OPTION, Option
from .lazy import lazy

_families = lazy("gnubg_blunder.families")

DECISION_TYPES = ("all", "checker", "cube")
CRITERION = "gnubg_blunder.criterion"  # the metadata key of a filter field's Criterion


def _shown(value) -> str:
    return str(value)


@dataclass(frozen=True)
class Criterion:
    """How one criterion of the filter is checked and said.

    ``check(value, flt) -> value``: the value as the filter keeps it, or
    ValueError in the user's words (``flt`` holds the criteria checked
    before it); called with every value, None included.  ``is_set(value)``:
    the criterion restricts anything (it is said, in words and as flags).
    ``words``: its phrase in the scope's words, a template of the value
    (``"player {}"``, the value through ``word_value``) or a function of the
    whole ``to_json()`` and the text-escaping function (``(f, shown) ->
    phrase or None``: the dates are one phrase); None: said by another
    field.  ``flag_value(value) -> str``: the value as a command line
    writes it.  ``words_rank``, ``flags_rank``, ``check_rank``: where the
    criterion comes in the words, in a command's flags and among the checks
    when not at its place among the fields (the order they have always had)."""

    check: Optional[Callable] = None
    is_set: Callable = bool
    words: object = None
    word_value: Callable = None  # (value, shown) -> text; None: shown(value)
    flag_value: Callable = str
    words_rank: Optional[float] = None
    flags_rank: Optional[float] = None
    check_rank: Optional[float] = None


def criterion(option: Option, default=None, **how):
    """A field of the filter: its default, its :class:`Option` and its
    :class:`Criterion` (``how``)."""
    return field(default=default, metadata={OPTION: option, CRITERION: Criterion(**how)})


# -- the checks -----------------------------------------------------------------

def _date(name: str) -> Callable:
    def check(value, flt):
        if value is not None:
            try:
                _dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{name.replace('_', ' ')} {value!r} is not a date (YYYY-MM-DD)") from None
        return value
    return check


def _date_to(value, flt):
    value = _date("date_to")(value, flt)
    if (flt.date_from is not None and value is not None
            and _dt.date.fromisoformat(flt.date_from) > _dt.date.fromisoformat(value)):
        raise ValueError(f"date from {flt.date_from} is later than date to {value}: no day lies between them")
    return value


def _player(value, flt):
    if value is not None and not str(value).strip():
        raise ValueError("player: the name is empty (give a player's name)")
    return value


def _decision_type(value, flt):
    if value not in DECISION_TYPES:
        raise ValueError(f"decision type {value!r}: choose all, checker or cube")
    return value


def _tuple_of(kind: Callable) -> Callable:
    def check(value, flt):
        return None if value is None else tuple(kind(x) for x in value)
    return check


def _family(value, flt):
    if value is None:
        return None
    return _families.canonical_family(value)  # ValueError naming the closest families


def _collection(value, flt):
    if value is None:
        return None
    value = str(value).strip()
    if not value:
        raise ValueError("collection: the name is empty (give a collection's name; `collection list`)")
    return value


def _dates_words(f: dict, shown) -> Optional[str]:
    if f.get("date_from") or f.get("date_to"):
        return f"dates {f.get('date_from') or '…'} to {f.get('date_to') or '…'}"
    return None


def _listed(value, shown) -> str:
    return ", ".join(shown(x) for x in value)


# -- the filter -----------------------------------------------------------------

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
    """The criteria of a selection; ``None`` (``"all"``: the decision type)
    restricts nothing."""

    player: Optional[str] = criterion(
        Option(("--player",), metavar="NAME", help="one player's decisions (aliases merged, names without case)"),
        check=_player, words="player {}")
    date_from: Optional[str] = criterion(  # ISO date, inclusive
        Option(("--from",), metavar="DATE", help="matches dated on or after DATE (YYYY-MM-DD)"),
        check=_date("date_from"), check_rank=-2, words=_dates_words)
    date_to: Optional[str] = criterion(  # ISO date, inclusive; said with date_from: "dates A to B"
        Option(("--to",), metavar="DATE", help="matches dated on or before DATE"),
        check=_date_to, check_rank=-1)
    lengths: Optional[tuple] = criterion(  # match lengths kept; 0 = money
        Option(("--length",), metavar="N", type=int, repeat=True, help="match length (0 = money); repeat for several"),
        check=_tuple_of(int), words="lengths {}",
        word_value=lambda v, shown: ", ".join("money" if x == 0 else str(x) for x in v))
    tournaments: Optional[tuple] = criterion(  # events kept (names, without case)
        Option(("--tournament",), metavar="EVENT", repeat=True, help="matches of this event; repeat for several"),
        check=_tuple_of(str), words="tournaments {}", word_value=_listed, words_rank=0.5)
    decision_type: str = criterion(
        Option(("--decision-type",), choices=DECISION_TYPES), default="all",
        check=_decision_type, check_rank=2.5, is_set=lambda v: bool(v) and v != "all",
        words="{} decisions", word_value=lambda v, shown: v)
    engine: Optional[str] = criterion(  # gnubg or xg
        Option(("--engine",), choices=("gnubg", "xg"), help="use this analyser's analysis"),
        words="engine {}")
    min_depth: Optional[float] = criterion(  # gnubg plies
        Option(("--min-depth",), type=float, metavar="PLIES", help="analyses at least this deep (gnubg plies)"),
        is_set=lambda v: v is not None, words="depth ≥ {}", word_value=lambda v, shown: f"{v:g}",
        flag_value=lambda v: f"{v:g}")
    family: Optional[str] = criterion(  # a study-plan family "GAME PLAN/checker|cube/THEME" (SPEC §9; families.py)
        Option(("--family",), metavar="FAMILY",
               help="only the decisions of one study-plan family, \"GAME PLAN/checker|cube/THEME\" "
                    "(e.g. \"holding game/checker/too many blots\"; `plan` lists them; docs/plan.md)"),
        check=_family, words="family {}")
    collection: Optional[str] = criterion(  # a collection's name: decisions at its positions (docs/collections.md)
        Option(("--collection",), metavar="NAME",
               help="only the decisions at a position filed in collection NAME (`collection list`; "
                    "docs/collections.md)"),
        check=_collection, words="collection {}", flags_rank=4.5)
    saved_from: Optional[SavedFrom] = field(default=None, compare=False, repr=False)  # not a criterion

    def __post_init__(self):
        for name, how, _ in _ordered(type(self), "check_rank"):
            if how.check is not None:
                setattr(self, name, how.check(getattr(self, name), self))

    def origin(self, *keys) -> str:
        """What a refusal of ``keys``' values adds: where the saved ones came
        from (:meth:`SavedFrom.note`); ``""`` when they were given for this run."""
        return self.saved_from.note(*keys) if self.saved_from is not None else ""

    def to_json(self) -> dict:
        """The criteria by name, in the fields' order; repeated ones as lists."""
        out = {}
        for name, opt in _options(type(self)):
            value = getattr(self, name)
            out[name] = list(value) if opt.repeat and value is not None else value
        return out


# -- what the declaration generates ------------------------------------------------

@functools.lru_cache(maxsize=None)
def criteria(cls=Filter) -> tuple:
    """``(name, Criterion)`` of each criterion of ``cls``, in the fields'
    order, each rank filled in (its place among the fields when not given)."""
    got = []
    for k, f in enumerate(f for f in dataclasses.fields(cls) if CRITERION in f.metadata):
        how = f.metadata[CRITERION]
        got.append((f.name, dataclasses.replace(how, **{
            rank: k if getattr(how, rank) is None else getattr(how, rank)
            for rank in ("words_rank", "flags_rank", "check_rank")})))
    return tuple(got)


@functools.lru_cache(maxsize=None)
def _ordered(cls, rank: str) -> tuple:
    """``(name, Criterion, Option)`` of each criterion of ``cls`` in the order of ``rank``."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    return tuple((name, how, fields[name].metadata[OPTION])
                 for name, how in sorted(criteria(cls), key=lambda c: getattr(c[1], rank)))


def _options(cls) -> tuple:
    """``(name, Option)`` of each criterion of ``cls``, in the fields' order."""
    return tuple((f.name, f.metadata[OPTION]) for f in dataclasses.fields(cls) if CRITERION in f.metadata)


def filter_keys(cls=Filter) -> tuple:
    """The criteria's names: the saved filter's YAML keys, the JSON's keys."""
    return tuple(name for name, _ in criteria(cls))


def repeated_keys(cls=Filter) -> tuple:
    """The criteria given several times (lists in YAML and JSON, tuples in
    the filter)."""
    return tuple(name for name, opt in _options(cls) if opt.repeat)


def add_filter_options(parser, leave_out: tuple = (), cls=Filter) -> None:
    """The criteria's flags, in the fields' order, but for ``leave_out``."""
    for name, opt in _options(cls):
        if name not in leave_out:
            opt.add_to(parser, name)


def flags_given(args, cls=Filter) -> dict:
    """The criteria given on a command line (``args``, argparse's), None
    for those not given (a repeated one given no time: None)."""
    out = {}
    for name, opt in _options(cls):
        value = getattr(args, name, None)
        out[name] = (tuple(value) if value else None) if opt.repeat else value
    return out


def command_flags(f: dict, leave_out: tuple = (), cls=Filter) -> list:
    """The command-line words of a filter (``Filter.to_json()``) but for
    ``leave_out``: the same scope in another command."""
    out = []
    for name, how, opt in _ordered(cls, "flags_rank"):
        value = f.get(name)
        if name not in leave_out and how.is_set(value):
            for v in (value if opt.repeat else (value,)):
                out += [opt.flag, how.flag_value(v)]
    return out


def filter_words(f: dict, shown: Callable = _shown, ignored: tuple = (), cls=Filter) -> list:
    """The phrases saying a filter (``Filter.to_json()``) in words, but for
    the criteria in ``ignored``; ``shown`` writes a user's text (a name,
    an event) as the output shows it."""
    parts = []
    for name, how, _ in _ordered(cls, "words_rank"):
        if name in ignored or how.words is None:
            continue
        if callable(how.words):
            phrase = how.words(f, shown)
        else:
            value = f.get(name)
            phrase = (how.words.format(how.word_value(value, shown) if how.word_value else shown(value))
                      if how.is_set(value) else None)
        if phrase:
            parts.append(phrase)
    return parts
