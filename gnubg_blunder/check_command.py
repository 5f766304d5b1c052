"""``gnubg-blunder check [--repair]``: is the database file whole, and do the
array cache and the labels agree with the rows (store/check.py,
docs/reliability.md)."""

from __future__ import annotations
from pathlib import Path

from .commands import Command, UserError, add_format
from .hookspecs import hookimpl
from .formatting import to_json
from .lazy import lazy

_database = lazy("gnubg_blunder.database")
_store = lazy("gnubg_blunder.store")


def _configure(p):
    p.add_argument("--repair", action="store_true",
                   help="rebuild what can be rebuilt from the rows (the array cache, the labels, a damaged file "
                        "whose tables of rows still read whole), then check again")
    add_format(p)


def _run(args, ctx):
    path = str(ctx.db_path or _store.default_db_path())
    if not _store.is_database_url(path) and not Path(path).is_file():
        raise UserError(f"no database at {path}")
    report = _database.check_database(path, repair=args.repair)
    if args.format == "json":
        ctx.print(to_json(report.to_json()))
    else:
        for line in report.lines():
            ctx.print(line)
    return 0 if report.ok else 1


@hookimpl
def register_commands(registry):
    registry.add(Command("check", "check the database file (SQLite's integrity check, the array cache and the "
                         "labels against the rows); --repair rebuilds what can be rebuilt", _run, _configure))
