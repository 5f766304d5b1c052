"""``gnubg-blunder watch FOLDER... [--settle SECONDS]``: matches saved into
folders stored without typing (gnubg_blunder/watch.py, docs/watch.md)."""

from __future__ import annotations

from .commands import Command
from .hookspecs import hookimpl
from .lazy import lazy

_watch = lazy("gnubg_blunder.watch")

DEFAULT_SETTLE = 1.0  # watch.DEFAULT_SETTLE, without importing it for --help


def _configure(p):
    p.add_argument("folders", nargs="+", metavar="FOLDER",
                   help="folders to watch, sub-folders too (hidden ones and hidden files are not read)")
    p.add_argument("--settle", type=float, default=DEFAULT_SETTLE, metavar="SECONDS",
                   help="read a file once it has not changed for this long (default: %(default)g s)")
    p.epilog = ("Each analysed match file (.sgf, .xg, .xgp, an importer plugin's) saved, copied or moved in is "
                "stored once, a line each; unanalysed ones are refused by name, saying how to analyse them. "
                "Files already there are handled at start (those already stored summed up in one line). "
                "Ctrl-C or SIGTERM prints the counts and exits 0. See docs/watch.md.")


def _run(args, ctx):
    return _watch.watch(ctx, args.folders, settle=args.settle)


@hookimpl
def register_commands(registry):
    registry.add(Command("watch", "store every analysed match saved into folders, as it is saved (until Ctrl-C)",
                         _run, _configure))
