"""The hooks a gnubg-blunder plugin can implement: the plugin author's manual.

A plugin is a module (or any object) with functions marked
``@hookimpl`` (``from gnubg_blunder import hookimpl``, or
``hookimpl = pluggy.HookimplMarker("gnubg_blunder")``), named as a hook
below and taking any subset of its parameters, by name.  What a plugin may
import is the plugin API, the names ``gnubg_blunder`` exports
(docs/plugins.md); the shapes of what it hands back (importers, metrics,
report sections) are the protocols of ``gnubg_blunder/protocols.py``.  An
installed plugin is loaded from the ``gnubg_blunder`` entry-point group::

    [project.entry-points.gnubg_blunder]
    my_plugin = "my_package.my_module"

(``examples/csv_log_plugin`` is a working one: a post-analysis action, a
command, a view and a metric).  ``gnubg-blunder plugins`` lists what is
loaded; ``GNUBG_BLUNDER_NO_PLUGINS=1`` loads none but the built-in ones.

The built-in importers, the store step, the console summary, every command,
the output formats, the summary's cards and the report's sections are
plugins of these same hooks: the modules of ``plugins.DEFAULT_PLUGINS``,
each a feature module carrying its own hookimpls (a view's module
registers its command, report section and summary card itself, e.g.
``views/plan.py``).  They are registered first; pluggy
calls the plugins registered last first, so an installed plugin is called
before the built-in ones.

The hooks, by the phase in which they are called:

1. importing: :func:`register_importers`
2. storing, and after a new analysis is stored: :func:`store_match`,
   :func:`post_analysis`
3. commands and views: :func:`register_commands`, and the formats a
   view writes: :func:`register_output_formats`, the cards of the
   summary: :func:`register_summary_cards`
4. metrics: :func:`register_metrics`
5. the HTML report's sections: :func:`register_report_sections`
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

import pluggy

if TYPE_CHECKING:
    from .commands import Context, Registry
    from .model import Match
    from .protocols import Importer, PluginMetric, ReportSection
    from .store import Store, StoreResult

hookspec = pluggy.HookspecMarker("gnubg_blunder")
hookimpl = pluggy.HookimplMarker("gnubg_blunder")


# -------------------------------------------------------------------------
# 1. Importing: files -> matches
# -------------------------------------------------------------------------


@hookspec
def register_importers(register: Callable[["Importer"], None]) -> None:
    """Add importers of match files.

    Called whenever the loaded importers are needed (``import``, ``convert``,
    ``import --help``, ``plugins``).

    :param register: call ``register(importer)`` once per importer.  An
        importer is any object with (``gnubg_blunder.Importer``, a protocol)

        - ``name: str``: shown by ``gnubg-blunder plugins`` and ``import --help``;
        - ``extensions: tuple[str, ...]``: the suffixes it reads, with the dot
          (``(".sgf",)``; compared without case);
        - ``read(path: pathlib.Path, require_analysis: bool = True) ->
          list[gnubg_blunder.model.Match]``: the matches of one file.
          ``import`` calls ``read(path)``; ``convert`` calls
          ``read(path, require_analysis=False)`` (a match without analysis
          is read too), and ``read(path)`` when the importer does not take
          the keyword.  For a file it cannot read it raises
          ``gnubg_blunder.MatchImportError`` with a one-line message for
          the user (``import`` reports an ``OSError`` or ``UnicodeError``
          the same way) and the other files are imported all the same.

    One importer per suffix: where two plugins read the same suffix, the
    plugin registered last wins, so an installed plugin replaces a
    built-in importer.
    """


# -------------------------------------------------------------------------
# 2. Storing a match, and after a new analysis is stored
# -------------------------------------------------------------------------


@hookspec(firstresult=True)
def store_match(store: "Store", match: "Match") -> Optional["StoreResult"]:
    """Store one imported match (each match ``import``, ``analyse``,
    ``bdb.analyse()`` or ``bdb.store()`` reads).

    :param store: the open store (``gnubg_blunder.store.Store``, over SQLite or PostgreSQL).
    :param match: the match an importer read (``gnubg_blunder.model.Match``).
    :return: a ``gnubg_blunder.store.StoreResult`` (``status``: ``"stored"``,
        ``"analysis added"`` or ``"already stored"``; ``match_id``;
        ``analysis_id``), or None to let the next implementation store it.

    The first implementation that returns a result wins; the built-in store
    step (``trylast``) writes the match to the SQLite store in one
    transaction.
    """


@hookspec
def post_analysis(store: "Store", match: "Match", result: "StoreResult", context: "Context") -> None:
    """Called after each match or analysis that :func:`store_match` stored:
    ``result.status`` is ``"stored"``, ``"analysis added"`` or
    ``"extended"`` (a later save of a stored match made it longer;
    ``result.games_before`` its games before), never ``"already stored"``.

    :param store: the open store.
    :param match: the ``gnubg_blunder.model.Match`` just stored.
    :param result: its ``gnubg_blunder.store.StoreResult`` (``match_id`` is
        the stored match's id).
    :param context: the running command's ``gnubg_blunder.commands.Context``:
        write with ``context.print(...)`` / ``context.error(...)`` (its
        ``out`` is gnubg's console inside gnubg); ``context.summary`` is True
        where the user asked for the match summary (``bdb.analyse()``,
        ``bdb.store()``), ``context.inside_gnubg`` inside gnubg.

    Every implementation is called (the built-in ones print the console
    summary and write the automatic report, ``report --auto FILE``).  An
    exception propagates to the command: catch what is a convenience.
    """


# -------------------------------------------------------------------------
# 3. Commands and views
# -------------------------------------------------------------------------


@hookspec
def register_commands(registry: "Registry") -> None:
    """Add commands: each serves the ``gnubg-blunder`` command line and
    ``bdb("...")`` inside gnubg with the same words.

    :param registry: a ``gnubg_blunder.commands.Registry``; call
        ``registry.add(command)`` with either

        - a ``gnubg_blunder.commands.View``: a command that prints figures or
          rows over the one filter.  ``View(name, help, compute, text,
          table=None, html=None, options=None, metric=False,
          decision_type=True, params=None, cost_metric=False)``:
          ``compute(scope) -> dict`` (with ``params``, a dataclass of its
          options: ``compute(scope, params)``) returns the JSON
          object (the kit adds its ``filter``); ``text(obj) -> str``;
          ``table(obj) -> gnubg_blunder.Table(headers, rows)``
          for a view with one table (its CSV and HTML table; without it no
          ``--format csv``); ``html(obj) -> str`` where the view has a richer
          HTML form; ``options(parser)`` adds the view's own arguments.  The
          kit gives it the filter options (``--player``, ``--from``/``--to``,
          ``--length``, ``--tournament``, ``--decision-type``, ``--engine``,
          ``--min-depth``, ``--no-config``), ``--format``, ``--metric`` when
          ``metric=True``, and a ``gnubg_blunder.commands.Scope``: ``store``,
          ``filter`` (the saved filter with this run's flags over it),
          ``selection`` (``gnubg_blunder.Selection``, read
          once), ``thresholds``, ``metric``, ``args``, ``ctx``,
          ``filter_json``, ``select(filter)``; an unknown ``--player`` is
          refused with the closest names;
        - a ``gnubg_blunder.commands.Command(name, help, run, configure=None)``
          for anything else: ``configure(parser)`` adds its arguments to an
          ``argparse`` parser, ``run(args, ctx) -> int`` runs it with a
          ``gnubg_blunder.commands.Context`` (``ctx.store()``, ``ctx.print``)
          and returns the exit status.  Build its options with the kit's
          ``add_filter_arguments(parser, decision_type=True)``,
          ``add_metric(parser)``, ``add_format(parser, csv=False)`` and
          ``filter_from_args(args, ctx)``.

    Raise ``gnubg_blunder.UserError`` for the user's mistakes: one
    line, exit status 2, no traceback.  A name already registered raises
    ``ValueError``: a plugin's command cannot take a built-in command's name.
    """


@hookspec
def register_output_formats(register: Callable[..., None]) -> None:
    """Add formats in which every view writes its object (``--format NAME``
    of each ``View``; a ``Command`` keeps its own ``add_format``).

    :param register: call ``register(name, render, table=False, order=100, listed=True)``:

        - ``name: str``: the word after ``--format``;
        - ``render(view, obj) -> str``: the view's JSON-ready object
          (``obj``, what ``compute`` returned, its ``filter`` in it) written
          in this format; ``view`` is the ``gnubg_blunder.View`` (its
          ``text``, ``table``, ``html`` functions);
        - ``table: bool``: the format writes the view's one table
          (``view.table(obj)``, a ``gnubg_blunder.Table``), so only views
          that have one offer it (the built-in ``csv``);
        - ``order: int``: the choices are listed by order, then name; the
          built-in ones: text 10, json 20, csv 30;
        - ``listed: bool``: False for a format the program uses inside
          only (the built-in ``html``: the report's sections).

    The built-in formats are registered by ``gnubg_blunder/output_formats.py``;
    pluggy calls the plugins registered last first, and the first format
    registered under a name is the one used, so an installed plugin's
    format of a built-in's name replaces it.
    """


@hookspec
def register_summary_cards(register: Callable[..., None]) -> None:
    """Add cards to ``summary`` (its text, its JSON, the report's summary
    section): a few lines each, under the counts.

    :param register: call ``register(name, compute, text, html, order=100)``:

        - ``name: str``: the card's key in the summary's JSON object;
        - ``compute(scope) -> dict``: the card's JSON-ready object over the
          summary's scope (a ``gnubg_blunder.Scope``: ``selection``,
          ``thresholds``, ``filter``, ``metric``, ``store``); an empty dict
          or None: no card;
        - ``text(card) -> str`` and ``html(card) -> str``: the card written
          in the summary's text and in the report (escape every name);
        - ``order: int``: cards are laid out by order, then name; the
          built-in ones: signed biases 10, the study plan 20, progress with
          study 30.

    The built-in cards are registered by their views' modules
    (``views/summary.py``, ``views/plan.py``, ``views/study.py``); the first card
    registered under a name is kept (pluggy calls the plugins registered
    last first: an installed plugin's card of a built-in's name replaces it).
    """


# -------------------------------------------------------------------------
# 4. Metrics
# -------------------------------------------------------------------------


@hookspec
def register_metrics(register: Callable[[str, "PluginMetric"], None]) -> None:
    """Add metrics, which ``stats`` shows beside its own figures.

    :param register: call ``register(name, function)``; ``stats`` calls
        ``function(selection, thresholds, decision_type) -> dict`` (by
        position; ``gnubg_blunder.PluginMetric``, a protocol) over its
        filter's selection:

        - ``selection``: ``gnubg_blunder.Selection``, the
          decision and roll arrays of the filter's matches; ``sides`` (and
          ``decision_side_mask()``) say which sides are the filter's player
          (both sides without one);
        - ``thresholds``: ``gnubg_blunder.Thresholds``, the
          database's error and blunder thresholds (EMG);
        - ``decision_type``: ``"all"``, ``"checker"`` or ``"cube"``.

        The function is pure: arrays in, figures out (no SQL, no I/O); the
        dict's values are numbers, strings or None (never measured).
        ``stats`` prints ``NAME (plugin): key value, ...``; its JSON has them
        under ``plugin_metrics[NAME]``, its CSV as ``NAME.key`` columns.

    A name ``stats`` shows itself (``gnubg_blunder.views.stats.OWN_METRICS``)
    is a built-in plugin's figure: ``luck`` (SPEC §4, registered by
    ``gnubg_blunder.luck_metric``), shown in ``stats``' own Luck line and
    keys (``luck_emg``, ``luck_rolls``, ``luck_per_roll_mpt``), not as a
    plugin's. A plugin that registers such a name replaces that figure
    there: ``stats`` reads those keys of its dict (numbers or None; a key
    it lacks is unknown, "—") and no other.

    One function per name: the plugin registered last wins.
    """


# -------------------------------------------------------------------------
# 5. The HTML report's sections
# -------------------------------------------------------------------------


@hookspec
def register_report_sections(register: Callable[..., None]) -> None:
    """Add sections to the HTML report (``report --html FILE``, ``bdb.report()``,
    ``report --auto FILE``).

    :param register: call ``register(name, function, order=100)``:

        - ``name: str``: shown in the page if the section fails;
        - ``function(context: gnubg_blunder.ReportContext) -> str``
          (``gnubg_blunder.ReportSection``, a protocol): an HTML fragment, usually one ``<section id="...">``; an
          empty string leaves the section out.  ``context`` holds ``store``,
          ``filter``, ``selection``, ``thresholds``, ``metric`` (the one
          ``--metric`` asked for), ``once(key, compute)`` (figures computed
          once for every section) and ``view_object(view, **args)`` (a
          view's JSON object over the report's scope, e.g.
          ``context.view_object(gnubg_blunder.views.errors.VIEW)``);
        - ``order: int``: sections are laid out by order, then name.  The
          built-in ones: headline 10, summary 20, progression 30, errors 40,
          breakdowns 50, players 60, matches 90, lists 95.

    The page allows no script and no external reference: escape every name
    and comment (``html.escape``); ``gnubg_blunder.formatting.table_html``
    writes a table in the report's style, ``views/svgcharts.py`` inline SVG
    charts.  A section that raises is replaced by a line saying so; the rest
    of the report is written.
    """
