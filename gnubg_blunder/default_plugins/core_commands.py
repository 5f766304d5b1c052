"""The built-in commands: import, matches, stats, plugins, analyse,
install-gnubg.  Registration only: views live in ``views/``."""

from __future__ import annotations

import argparse
import textwrap

from ..commands import Command, add_format
from ..hookspecs import hookimpl
from ..views import matches as matches_view
from ..views import stats as stats_view
from ..views.formatting import to_json


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
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="processes reading files at once (default: one a CPU; 1: this process alone); the matches are "
                        "stored in the order of the files all the same")


def _import_run(args, ctx):
    from ..commands import UserError
    from ..pipeline import import_paths

    if args.jobs is not None and args.jobs < 1:
        raise UserError("--jobs takes a number of processes, 1 or more")
    return import_paths(ctx, args.paths, jobs=args.jobs)


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
    p.add_argument("paths", nargs="+", metavar="FILE",
                   help=".sgf files and match transcripts (.mat, or .txt holding one), or folders of them")
    p.add_argument("--plies", type=int, metavar="N",
                   help="analysis depth in plies (default: gnubg's own analysis settings)")


def _analyse_run(args, ctx):
    from ..gnubg.batch import analyse_files

    return analyse_files(ctx, args.paths, plies=args.plies)


@hookimpl
def register_commands(registry):
    registry.add(Command("import", "import analysed matches (files or folders)", _import_run, _import_configure))
    registry.add(matches_view.VIEW)
    registry.add(stats_view.VIEW)
    registry.add(Command("plugins", "list the loaded plugins and their hooks", _plugins_run, _plugins_configure))
    registry.add(Command("install-gnubg", "make gnubg load the plugin at start-up (for this user)",
                         _install_run, _install_configure))
    registry.add(Command("analyse", "analyse .sgf files and match transcripts in gnubg (headless) and store them",
                         _analyse_run, _analyse_configure))
