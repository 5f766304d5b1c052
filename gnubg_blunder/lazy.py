"""The registry of lazy entries: a module another one needs on some paths
only, named at that one's top and imported when first used
(docs/architecture.md, "Lazy entries").

Every start-up (each ``--help``, gnubg's start-up hook) imports the
built-in plugins, and none may import numpy, the metrics or the store
(tests/test_help_imports.py).  A plugin module therefore names what its
commands need beyond that at its top, as ``_metrics_plan =
lazy("gnubg_blunder.metrics.plan")``, and its functions read names off the
entry (``_metrics_plan.study_plan``): the module graph stays at the tops
of the modules (tests/test_layers.py reads the entries as edges), and the
one import made inside a function is this module's loader.

An entry forwards every attribute to the module once imported; a name the
module lacks is then its submodule, as ``from package import name`` does.
An import that fails fails where the entry is first read, with the
module's own error."""

from __future__ import annotations

import importlib

# {module name: its entry}: one entry a module, whoever names it
ENTRIES: dict = {}


class LazyModule:
    """A module imported when one of its attributes is first read.  Its
    own attributes are two slots named so that no module's name is
    shadowed: everything else is the module's."""

    __slots__ = ("_lazy_name", "_lazy_module")

    def __init__(self, name: str):
        self._lazy_name = name
        self._lazy_module = None

    def __getattr__(self, attr: str):
        module = load(self)
        try:
            return getattr(module, attr)
        except AttributeError:
            if attr.startswith("__"):
                raise
            try:
                return importlib.import_module(f"{self._lazy_name}.{attr}")  # a submodule, as a from-import finds it
            except ModuleNotFoundError as exc:
                if exc.name != f"{self._lazy_name}.{attr}":
                    raise
            raise

    def __repr__(self) -> str:
        state = "" if is_loaded(self) else " (not imported yet)"
        return f"<lazy module {self._lazy_name!r}{state}>"


def lazy(name: str) -> LazyModule:
    """The entry of module ``name`` (absolute), made on first asking."""
    entry = ENTRIES.get(name)
    if entry is None:
        entry = ENTRIES[name] = LazyModule(name)
    return entry


def load(entry: LazyModule):
    """The entry's module, imported now if it is not yet: the loader."""
    if entry._lazy_module is None:
        entry._lazy_module = importlib.import_module(entry._lazy_name)
    return entry._lazy_module


def is_loaded(entry: LazyModule) -> bool:
    return entry._lazy_module is not None
