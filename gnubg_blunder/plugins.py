"""The plugin manager: built-in plugins first, then installed ones."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from typing import Callable

import pluggy

from . import hookspecs
from .hookspecs import hookimpl  # noqa: F401  (re-exported: a plugin may import it from here)

# The built-in features, each a plugin module carrying its own hookimpls
# (as pytest's and datasette's default plugins are), registered in this
# order (pluggy calls the last registered first: the console summary prints
# after the automatic report's line, as it always has).
DEFAULT_PLUGINS = (
    "gnubg_blunder.importing",
    "gnubg_blunder.gnubg_commands",
    "gnubg_blunder.plugins_command",
    "gnubg_blunder.output_formats",
    "gnubg_blunder.views.matches",
    "gnubg_blunder.views.stats",
    "gnubg_blunder.luck_metric",
    "gnubg_blunder.board_command",
    "gnubg_blunder.settings",
    "gnubg_blunder.views.players",
    "gnubg_blunder.views.errors",
    "gnubg_blunder.views.breakdowns",
    "gnubg_blunder.views.biases",
    "gnubg_blunder.views.agreement",
    "gnubg_blunder.views.report",
    "gnubg_blunder.convert",
    "gnubg_blunder.views.summary",
    "gnubg_blunder.views.progression",
    "gnubg_blunder.views.positions",
    "gnubg_blunder.check_command",
    "gnubg_blunder.views.review",
    "gnubg_blunder.views.plan",
    "gnubg_blunder.views.references",
    "gnubg_blunder.views.collections",
    "gnubg_blunder.views.tournament",
    "gnubg_blunder.views.tilt",
    "gnubg_blunder.anki.command",
    "gnubg_blunder.quiz.terminal",
    "gnubg_blunder.views.study",
    "gnubg_blunder.views.training",
    "gnubg_blunder.watch_command",
    "gnubg_blunder.copy_command",
    "gnubg_blunder.gnubg.depth_check",
)

ENTRY_POINT_GROUP = "gnubg_blunder"

_pm = None


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager.  Installed plugins (entry-point group
    ``gnubg_blunder``) load unless ``GNUBG_BLUNDER_NO_PLUGINS`` is set, so that
    the test suite is not changed by a developer's installed plugins."""
    global _pm
    if _pm is None:
        pm = pluggy.PluginManager("gnubg_blunder")
        pm.add_hookspecs(hookspecs)
        for name in DEFAULT_PLUGINS:
            pm.register(importlib.import_module(name), name=name)
        if not os.environ.get("GNUBG_BLUNDER_NO_PLUGINS") and may_declare_entry_points(ENTRY_POINT_GROUP):
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        _pm = pm
    return _pm


def may_declare_entry_points(group: str) -> bool:
    """False only when no installed distribution can declare an entry point
    of ``group``: the ``entry_points.txt`` of the ``*.dist-info`` and
    ``*.egg-info`` folders on ``sys.path`` (where ``importlib.metadata``
    reads them) do not name ``[group]``.  A few small files read instead of
    importing ``importlib.metadata`` (some 25 ms of every command, ``--help``
    included); anything else (a zip or an egg on the path, a file that
    cannot be read, another finder of distributions) answers True, and
    pluggy looks."""
    if any(hasattr(f, "find_distributions") and f is not importlib.machinery.PathFinder for f in sys.meta_path):
        return True
    needle = f"[{group}]"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (FileNotFoundError, PermissionError):
            continue  # a path entry that does not exist (python3X.zip, an editable finder's hook)
        except OSError:
            return True  # a zip file or an egg: importlib.metadata reads inside
        for name in names:
            if name.endswith(".egg"):
                return True
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    if needle in f.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):
                continue  # no entry points (an .egg-info file holds none)
            except (OSError, UnicodeError):
                return True
    return False


def reset_plugin_manager() -> None:
    global _pm
    _pm = None


def plugin_list(pm=None) -> list:
    """[{name, hooks, builtin}] for ``gnubg-blunder plugins``."""
    pm = pm or get_plugin_manager()
    out = []
    order = {name: i for i, name in enumerate(DEFAULT_PLUGINS)}
    plugins = sorted(pm.get_plugins(), key=lambda p: (order.get(pm.get_name(p), len(order)), pm.get_name(p)))
    for plugin in plugins:
        name = pm.get_name(plugin)
        hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
        dist = None
        for p, d in pm.list_plugin_distinfo():
            if p is plugin:
                dist = f"{d.project_name} {d.version}"
        out.append({"name": name, "hooks": hooks, "builtin": name in DEFAULT_PLUGINS, "distribution": dist})
    return out


def importers(pm=None) -> dict:
    """{suffix: importer}.  pluggy calls the most recently registered plugin
    first, so an installed plugin can replace a built-in importer."""
    pm = pm or get_plugin_manager()
    found: dict = {}

    def register(importer):
        for ext in importer.extensions:
            found.setdefault(ext.lower(), importer)

    pm.hook.register_importers(register=register)
    return found


def first_registered(make: Callable) -> tuple:
    """``(found, register)`` for a hook whose plugins call ``register(name,
    ...)``: pass ``register`` to the hook; ``found`` is then ``{name:
    make(name, ...)}``, the first registered under a name kept — pluggy
    calls the plugins registered last first, so an installed plugin's
    replaces a built-in's (metrics, output formats, summary cards)."""
    found: dict = {}

    def register(name, *args, **kwargs):
        if name not in found:
            found[name] = make(name, *args, **kwargs)

    return found, register


def metrics(pm=None) -> dict:
    """{name: function} of the plugins' metrics (``register_metrics``):
    ``function(selection, thresholds, decision_type) -> dict``, pure (``stats``
    calls it by position); the plugin registered last wins a name."""
    pm = pm or get_plugin_manager()
    found, register = first_registered(lambda name, function: function)
    pm.hook.register_metrics(register=register)
    return found
