"""What many metrics and views need of one selection, computed once and
kept by the selection itself.

The views of one scope (the summary with its cards, the report's sections)
ask the same questions of the same arrays: which decisions count (SPEC §2),
ℓ and d in MWC of each decision (SPEC §1, §6), which matches are money, the
biases and the plan of the whole selection.  Each answer is kept in the
``stash`` of the object it was computed from (a
:class:`~gnubg_blunder.arrays.Selection`, its decision arrays, a
:class:`~gnubg_blunder.commands.Scope`, a report's context), so that it
goes with that object: no module keeps state about objects it does not own.
The rules themselves stay where they are (``counting.py``, ``kernel.py``),
each computed by its own function.

The model is pytest's ``Stash``: a key is a module-level :class:`StashKey`
declared next to the function that computes its value, typed by that value
(``StashKey[np.ndarray]``), and compared by identity, so that two modules
never share a value by choosing the same string.  ``KEY.at(*params)`` is
the key of one set of parameters (thresholds, a decision type, a metric),
equal to any other made with the same parameters.

What :func:`cached` keeps is read-only (:func:`read_only`): a caller that
changes an array in place fails loudly instead of changing every later
figure.  A view's object kept for other readers (:func:`kept_object`: the
plan, the biases, before / after study, the report's views) is read-only
likewise (:func:`read_only_json`), JSON-ready as it was; a reader that
changes it copies it first.  A selection's arrays are read-only data once
selected; code that edits them (tests building a case) does so before the
first figure is asked for.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from types import MappingProxyType
from typing import Callable, Generic, Hashable, Iterable, TypeVar, Union

T = TypeVar("T")
D = TypeVar("D")


class StashKey(Generic[T]):
    """The key of a value of type ``T`` in a :class:`Stash`; ``name`` says
    what it holds (for ``repr`` only: keys are compared by identity)."""

    __slots__ = ("name", "root", "params")

    def __init__(self, name: str) -> None:
        self.name = name
        self.root: StashKey = self
        self.params: tuple = ()

    def at(self, *params: Hashable) -> "StashKey[T]":
        """The key of this value for ``params`` (e.g. the thresholds): equal
        to every key made with the same parameters from the same key."""
        key = StashKey.__new__(StashKey)
        key.name, key.root, key.params = self.name, self.root, self.params + params
        return key

    def __eq__(self, other) -> bool:
        return isinstance(other, StashKey) and other.root is self.root and other.params == self.params

    def __hash__(self) -> int:
        return hash((id(self.root), self.params))

    def __repr__(self) -> str:
        return f"StashKey({self.name!r})" + (f".at{self.params!r}" if self.params else "")


class Stash:
    """Values by :class:`StashKey`, held by their owner (an attribute
    ``stash``): they live as long as the owner does."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._values[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        return self._values[key]

    def get(self, key: StashKey[T], default: D = None) -> Union[T, D]:
        return self._values.get(key, default)

    def setdefault(self, key: StashKey[T], default: T) -> T:
        return self._values.setdefault(key, default)

    def __delitem__(self, key: StashKey[T]) -> None:
        del self._values[key]

    def __contains__(self, key: StashKey) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def forget(self, keep: Iterable[StashKey] = ()) -> None:
        """Drop every value (computed again when next asked) but those of
        the keys ``keep``, each with every ``key.at(...)`` made from it."""
        kept = {key.root for key in keep}
        for key in [key for key in self._values if key.root not in kept]:
            del self._values[key]


def read_only(value):
    """``value`` made read-only where it can be, in place: a numpy array
    not writeable; a tuple's items and a dataclass' array fields likewise;
    a dict a read-only mapping of read-only values.  Anything else as it
    is (numbers, strings: immutable already)."""
    if _is_array(value):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for item in value:
            read_only(item)
    elif isinstance(value, dict):
        return MappingProxyType({k: read_only(v) for k, v in value.items()})
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if isinstance(item, tuple) or _is_array(item):
                read_only(item)
    return value


def _is_array(value) -> bool:
    """A numpy array; no module that declares a key need import numpy
    (``--help`` imports none, tests/test_help_imports.py): before numpy is
    imported no value is an array."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def compute_once(stash: Stash, key: StashKey[T], compute: Callable[[], T]) -> T:
    """``compute()`` once per ``stash`` and ``key``, kept as it is (a
    plugin's value; a view's object is kept by :func:`kept_object`)."""
    if key not in stash:
        stash[key] = compute()
    return stash[key]


def kept_object(stash: Stash, key: StashKey[T], compute: Callable[[], T]) -> T:
    """A view's object (JSON-ready dicts and lists), ``compute()`` once per
    ``stash`` and ``key``, kept and handed out read-only
    (:func:`read_only_json`): its readers (the summary's cards, the
    report's sections) cannot change what the next one reads."""
    return compute_once(stash, key, lambda: read_only_json(compute()))


class ReadOnlyDict(dict):
    """A dict that refuses every change: a kept view object's.  It is a
    dict to every reader (``json``, ``isinstance``); its copies (``dict(x)``,
    ``{**x}``, ``x.copy()``, ``copy.copy``, ``copy.deepcopy``) are plain
    dicts, to be changed."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a kept view object is read-only: change a copy (dict(obj))")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self):
        return dict(self)

    def __deepcopy__(self, memo):
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self):
        return (dict, (dict(self),))


class ReadOnlyList(list):
    """A list that refuses every change (as :class:`ReadOnlyDict`); its
    copies (``list(x)``, ``x[:]``, ``x + y``, ``copy.copy``,
    ``copy.deepcopy``) are plain lists."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a kept view object is read-only: change a copy (list(obj))")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = extend = insert = remove = pop = clear = sort = \
        reverse = _refuse

    def __copy__(self):
        return list(self)

    def __deepcopy__(self, memo):
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self):
        return (list, (list(self),))


def read_only_json(value):
    """A JSON-ready ``value`` made read-only all through: each dict a
    :class:`ReadOnlyDict`, each list a :class:`ReadOnlyList` (a tuple's
    items likewise); numbers, strings and None as they are."""
    if isinstance(value, dict):
        return ReadOnlyDict((k, read_only_json(v)) for k, v in value.items())
    if isinstance(value, list):
        return ReadOnlyList(read_only_json(v) for v in value)
    if isinstance(value, tuple):
        return tuple(read_only_json(v) for v in value)
    return value


def cached(owner, key: StashKey[T], compute: Callable[[], T]) -> T:
    """``compute()`` once per ``owner`` (kept in ``owner.stash``) and
    ``key``, read-only (:func:`read_only`): a metric's arrays.  Computed
    each time for an owner without a stash."""
    stash = getattr(owner, "stash", None)
    if stash is None:
        return compute()
    return compute_once(stash, key, lambda: read_only(compute()))


def forget(owner, keep: Iterable[StashKey] = ()) -> None:
    """Drop what ``owner``'s stash holds but the keys ``keep``
    (:meth:`Stash.forget`): the report between its sections."""
    stash = getattr(owner, "stash", None)
    if stash is not None:
        stash.forget(keep)


__all__ = ["ReadOnlyDict", "ReadOnlyList", "Stash", "StashKey", "cached", "compute_once", "forget", "kept_object",
           "read_only", "read_only_json"]
