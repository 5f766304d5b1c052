"""The built-in commands: import, matches, stats, plugins, analyse, install-gnubg."""

from __future__ import annotations

import argparse
import textwrap

from ..commands import Command, UserError
from ..filters import Filter
from ..hookspecs import hookimpl
from ..db_settings import thresholds_for
from ..views.formatting import to_json


def add_format(parser, choices=("text", "json")):
    parser.add_argument("--format", choices=choices, default="text", help="output format")


def add_filter_arguments(parser, decision_type=True):
    """The one filter of every view (SPEC §14).  Flags apply to this run,
    over the saved filter (``filter set``; ``--no-config`` ignores it)."""
    parser.add_argument("--player", metavar="NAME", help="one player's decisions (aliases merged, names without case)")
    parser.add_argument("--from", dest="date_from", metavar="DATE", help="matches dated on or after DATE (YYYY-MM-DD)")
    parser.add_argument("--to", dest="date_to", metavar="DATE", help="matches dated on or before DATE")
    parser.add_argument("--length", dest="lengths", metavar="N", type=int, action="append",
                        help="match length (0 = money); repeat for several")
    parser.add_argument("--tournament", dest="tournaments", metavar="EVENT", action="append",
                        help="matches of this event; repeat for several")
    if decision_type:
        parser.add_argument("--decision-type", choices=("all", "checker", "cube"), default=None)
    parser.add_argument("--engine", choices=("gnubg", "xg"), help="use this analyser's analysis")
    parser.add_argument("--min-depth", type=float, metavar="PLIES", help="analyses at least this deep (gnubg plies)")
    parser.add_argument("--no-config", dest="no_saved_filter", action="store_true",
                        help="ignore the saved filter for this run")


def filter_from_args(args, ctx=None) -> Filter:
    """The filter of this run: the saved one (unless --no-config) with this
    run's flags over it."""
    from ..user_config import filter_flags, merged_filter

    try:
        use = (ctx.use_config if ctx is not None else True) and not getattr(args, "no_saved_filter", False)
        return merged_filter(filter_flags(args), use)
    except ValueError as exc:
        raise UserError(str(exc)) from None


# -- import ------------------------------------------------------------------

class _NoHyphenBreaks(argparse.HelpFormatter):
    """Help wrapped without splitting `gnubg-blunder` at its hyphen."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


def _import_configure(p):
    from ..pipeline import import_help

    paths_help, p.epilog = import_help()  # the loaded importers' suffixes, plugins' included
    p.formatter_class = _NoHyphenBreaks
    p.add_argument("paths", nargs="+", metavar="PATH", help=paths_help)


def _import_run(args, ctx):
    from ..pipeline import import_paths

    return import_paths(ctx, args.paths)


# -- matches -----------------------------------------------------------------

def _matches_configure(p):
    add_format(p)
    add_filter_arguments(p)


def _matches_run(args, ctx):
    from ..views.matches import match_objects, matches_text

    store = ctx.store()
    sel = store.select(filter_from_args(args, ctx))
    objs = match_objects(sel, thresholds_for(store))
    ctx.print(to_json(objs) if args.format == "json" else matches_text(objs))
    return 0


# -- stats -------------------------------------------------------------------

def _stats_configure(p):
    add_filter_arguments(p)
    add_format(p)


def _stats_run(args, ctx):
    from ..metrics.figures import aggregate
    from ..views.stats import stats_object, stats_text

    from ..plugins import metrics

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = store.select(flt)
    thresholds = thresholds_for(store)
    obj = stats_object(aggregate(sel, thresholds, flt.decision_type), flt)
    extra = {name: fn(sel, thresholds, flt.decision_type) for name, fn in sorted(metrics().items())}
    if extra:
        obj["plugin_metrics"] = extra
    ctx.print(to_json(obj) if args.format == "json" else stats_text(obj))
    return 0


# -- plugins -----------------------------------------------------------------

def _plugins_configure(p):
    add_format(p)


def _plugins_run(args, ctx):
    from ..plugins import importers, plugin_list

    rows = plugin_list()
    if args.format == "json":
        ctx.print(to_json({"plugins": rows, "importers": {k: v.name for k, v in sorted(importers().items())}}))
        return 0
    for r in rows:
        origin = "built-in" if r["builtin"] else (r["distribution"] or "installed")
        ctx.print(f"{r['name']} ({origin}): {', '.join(r['hooks']) or 'no hooks'}")
    ctx.print("importers: " + ", ".join(f"{k} ({v.name})" for k, v in sorted(importers().items())))
    return 0


# -- gnubg -------------------------------------------------------------------

def _install_configure(p):
    p.add_argument("--home", metavar="DIR", help="install for this home folder instead of $HOME")


def _install_run(args, ctx):
    from ..gnubg.install import install

    return install(ctx, home=args.home)


def _analyse_configure(p):
    p.add_argument("paths", nargs="+", metavar="FILE", help=".mat or .sgf files (or folders of them)")
    p.add_argument("--plies", type=int, metavar="N",
                   help="analysis depth in plies (default: gnubg's own analysis settings)")


def _analyse_run(args, ctx):
    from ..gnubg.batch import analyse_files

    return analyse_files(ctx, args.paths, plies=args.plies)


@hookimpl
def register_commands(registry):
    registry.add(Command("import", "import analysed matches (files or folders)", _import_run, _import_configure))
    registry.add(Command("matches", "list stored matches with each side's figures", _matches_run, _matches_configure))
    registry.add(Command("stats", "figures over a selection of matches", _stats_run, _stats_configure))
    registry.add(Command("plugins", "list the loaded plugins and their hooks", _plugins_run, _plugins_configure))
    registry.add(Command("install-gnubg", "make gnubg load the plugin at start-up (for this user)",
                         _install_run, _install_configure))
    registry.add(Command("analyse", "analyse .mat/.sgf files in gnubg (headless) and store them",
                         _analyse_run, _analyse_configure))
