"""GNU Backgammon as a built-in plugin: ``install-gnubg`` (gnubg loads the
plugin at start-up), ``analyse`` (gnubg analyses files headless, then they
are stored) and the console summary printed after a match is stored where
the user asked for it (``>bdb.analyse()``, ``>bdb.store()``).  The code that
talks to gnubg lives in ``gnubg/``, imported only when a command runs."""

from __future__ import annotations

from .commands import Command
from .hookspecs import hookimpl
from .lazy import lazy

_gnubg_batch = lazy("gnubg_blunder.gnubg.batch")
_gnubg_install = lazy("gnubg_blunder.gnubg.install")
_views_match_summary = lazy("gnubg_blunder.views.match_summary")


def _install_configure(p):
    p.add_argument("--home", metavar="DIR", help="install for this home folder instead of $HOME")


def _install_run(args, ctx):
    return _gnubg_install.install(ctx, home=args.home)


def _analyse_configure(p):
    p.add_argument("paths", nargs="+", metavar="FILE",
                   help=".sgf files and match transcripts (.mat, or .txt holding one), or folders of them")
    p.add_argument("--plies", type=int, metavar="N",
                   help="analysis depth in plies (default: gnubg's own analysis settings)")


def _analyse_run(args, ctx):
    return _gnubg_batch.analyse_files(ctx, args.paths, plies=args.plies)


@hookimpl
def register_commands(registry):
    registry.add(Command("install-gnubg", "make gnubg load the plugin at start-up (for this user)",
                         _install_run, _install_configure))
    registry.add(Command("analyse", "analyse .sgf files and match transcripts in gnubg (headless) and store them",
                         _analyse_run, _analyse_configure))


@hookimpl
def post_analysis(store, match, result, context):
    """The console summary: each player's figures, where the user asked for it."""
    if not getattr(context, "summary", False):
        return

    context.print(_views_match_summary.match_summary_text(store, result.match_id))
