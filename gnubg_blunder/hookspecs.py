"""The hooks a gnubg-blunder plugin can implement.

This file is the plugin author's manual.  Implement a hook with
``@gnubg_blunder.hookimpl`` in a module or object, and make it loadable from
the ``gnubg_blunder`` entry-point group (see ``examples/``).  The built-in
importers, the store step, the console summary and every command are
registered through these same hooks (``gnubg_blunder/default_plugins/``).
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("gnubg_blunder")
hookimpl = pluggy.HookimplMarker("gnubg_blunder")


@hookspec
def register_importers(register):
    """Add importers.

    Call ``register(importer)`` once per importer.  An importer has
    ``name`` (str), ``extensions`` (tuple of lower-case suffixes such as
    ``(".sgf",)``) and ``read(path, require_analysis=True) ->
    list[gnubg_blunder.model.Match]`` (``require_analysis=False``: a match
    without analysis is read too, for conversions),
    raising ``gnubg_blunder.importers.records.MatchImportError`` with a
    one-line message for a file it cannot read.  An importer of a plugin
    loaded later replaces a built-in one for the same suffix.
    """


@hookspec(firstresult=True)
def store_match(store, match):
    """Store one imported match; return a ``gnubg_blunder.store.StoreResult``.

    The first plugin that returns a result wins (the built-in store step
    writes it to the SQLite store in one transaction)."""


@hookspec
def post_analysis(store, match, result, context):
    """Called with each newly stored match or analysis.

    ``match`` is the :class:`gnubg_blunder.model.Match` just stored,
    ``result`` its ``StoreResult`` (``status`` is ``"stored"`` or
    ``"analysis added"``, never ``"already stored"``), ``store`` the open
    store and ``context`` a :class:`gnubg_blunder.commands.Context` (its
    ``out`` stream is gnubg's console inside gnubg; ``context.summary`` is
    True where the user asked for the match summary)."""


@hookspec
def register_commands(registry):
    """Add commands: ``registry.add(command)`` with a
    :class:`gnubg_blunder.commands.Command`.  Every command serves both the
    ``gnubg-blunder`` CLI and ``bdb("...")`` inside gnubg."""


@hookspec
def register_metrics(register):
    """Add metrics: ``register(name, function)`` where ``function(selection,
    thresholds, decision_type) -> dict`` is pure (arrays in, figures out;
    no SQL, no I/O; ``selection`` is a
    :class:`gnubg_blunder.metrics.arrays.Selection`).  ``stats`` shows each
    under its name (JSON: ``plugin_metrics``)."""


@hookspec
def register_report_sections(register):
    """Add HTML report sections: ``register(name, function)`` where
    ``function(selection, context) -> str`` returns an HTML fragment."""
