"""The ``plugins`` command: the loaded plugins, their hooks and the
importers (the built-in plugin that lists them; the loading is
``plugins.py``)."""

from __future__ import annotations

from .commands import Command, add_format
from .formatting import to_json
from .hookspecs import hookimpl
from .plugins import importers, plugin_list


def _plugins_configure(p):
    add_format(p)


def _plugins_run(args, ctx):
    rows = plugin_list()
    if args.format == "json":
        ctx.print(to_json({"plugins": rows, "importers": {k: v.name for k, v in sorted(importers().items())}}))
        return 0
    for r in rows:
        origin = "built-in" if r["builtin"] else (r["distribution"] or "installed")
        ctx.print(f"{r['name']} ({origin}): {', '.join(r['hooks']) or 'no hooks'}")
    ctx.print("importers: " + ", ".join(f"{k} ({v.name})" for k, v in sorted(importers().items())))
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("plugins", "list the loaded plugins and their hooks", _plugins_run, _plugins_configure))
