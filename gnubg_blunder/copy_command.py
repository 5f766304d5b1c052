"""``gnubg-blunder copy --from SRC --to DST``: one database's matches and
study data copied into another, SQLite or PostgreSQL either side
(gnubg_blunder/copying.py, docs/copy.md)."""

from __future__ import annotations

from .commands import Command
from .hookspecs import hookimpl
from .lazy import lazy

_copying = lazy("gnubg_blunder.copying")


def _configure(p):
    p.add_argument("--from", dest="source", required=True, metavar="SRC",
                   help="the database to copy from: a file, or a postgresql:// URL")
    p.add_argument("--to", dest="target", required=True, metavar="DST",
                   help="the database to copy into: a file (made when it does not exist), or a postgresql:// URL "
                        "(the database must exist; its tables are made on first use)")
    p.epilog = ("Every match of SRC that DST lacks is copied whole (its analyses, decisions, candidate lists, "
                "rolls, its import time), and to a match both hold the analyses DST lacks; then the aliases, "
                "study actions, collections, Anki notes and settings (a setting DST has stays DST's). Ids are "
                "kept where DST has them free. Run again, it copies nothing. At the end DST's array cache is "
                "built and DST is checked against SRC (exit 1 when they differ). See docs/copy.md.")


def _run(args, ctx):
    return _copying.copy_databases(ctx, args.source, args.target)


@hookimpl
def register_commands(registry):
    registry.add(Command("copy", "copy one database's matches and study data into another (SQLite or "
                         "PostgreSQL, either way); run again, it copies nothing new", _run, _configure))
