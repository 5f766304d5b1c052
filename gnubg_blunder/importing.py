"""Importing as a built-in plugin: the importers of gnubg ``.sgf`` files and
eXtreme Gammon ``.xg`` matches / ``.xgp`` positions, the store step that
writes each imported match, and ``gnubg-blunder import``.  The reading
lives in ``importers/``, the file walk and its lines in ``pipeline.py``."""

from __future__ import annotations

import argparse
import textwrap

from .commands import Command, UserError
from .hookspecs import hookimpl
from .lazy import lazy

_importers_sgf = lazy("gnubg_blunder.importers.sgf")
_importers_xg = lazy("gnubg_blunder.importers.xg")
_pipeline = lazy("gnubg_blunder.pipeline")


class SgfImporter:
    name = "gnubg-sgf"
    extensions = (".sgf",)

    def read(self, path, require_analysis=True):
        return [_importers_sgf.read_match(path, require_analysis=require_analysis)]


class XgImporter:
    name = "xg"
    extensions = (".xg", ".xgp")

    def read(self, path, require_analysis=True):
        return [_importers_xg.read_match(path, require_analysis=require_analysis)]


@hookimpl
def register_importers(register):
    register(XgImporter())  # the order the table had when each importer was a plugin of its own
    register(SgfImporter())


@hookimpl(trylast=True)
def store_match(store, match):
    """The built-in store step: the match written to the store, one transaction."""
    return store.add_match(match)


class _NoHyphenBreaks(argparse.HelpFormatter):
    """Help wrapped without splitting `gnubg-blunder` at its hyphen."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


def _import_configure(p):
    paths_help, p.epilog = _pipeline.import_help()  # the loaded importers' suffixes, plugins' included
    p.formatter_class = _NoHyphenBreaks
    p.add_argument("paths", nargs="+", metavar="PATH", help=paths_help)
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="processes reading files at once (default: one a CPU; 1: this process alone); the matches are "
                        "stored in the order of the files all the same")


def _import_run(args, ctx):
    if args.jobs is not None and args.jobs < 1:
        raise UserError("--jobs takes a number of processes, 1 or more")
    return _pipeline.import_paths(ctx, args.paths, jobs=args.jobs)


@hookimpl
def register_commands(registry):
    registry.add(Command("import", "import analysed matches (files or folders)", _import_run, _import_configure))
