"""One command registry for the CLI and for ``bdb("...")`` inside gnubg.

A command is a name, a help line, a function that adds its arguments to an
argparse parser and a function that runs it with a :class:`Context`.  The
same parser reads ``gnubg-blunder stats --player X`` and
``>bdb("stats --player X")``.
"""

from __future__ import annotations

import argparse
import shlex
import sqlite3
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional, TextIO

from .store.schema import StoreError


class UserError(Exception):
    """A mistake of the user's (bad option, missing file): one line, no traceback."""


@dataclass
class Command:
    name: str
    help: str
    run: Callable  # run(args, ctx) -> int exit status
    configure: Optional[Callable] = None  # configure(parser)


class Registry:
    def __init__(self):
        self.commands: dict = {}

    def add(self, command: Command) -> None:
        if command.name in self.commands:
            raise ValueError(f"command {command.name!r} is registered twice")
        self.commands[command.name] = command


@dataclass
class Context:
    """What a command runs with: where the database is, where to write."""

    db_path: Optional[str] = None
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    summary: bool = False  # print the match summary after storing (inside gnubg)
    inside_gnubg: bool = False
    use_config: bool = True
    _store: object = None

    def store(self):
        if self._store is None:
            from .store import open_store

            self._store = open_store(self.db_path)
        return self._store

    def close(self):
        if self._store is not None:
            self._store.close()
            self._store = None

    def print(self, *args, **kw):
        print(*args, file=self.out, **kw)

    def error(self, *args):
        print(*args, file=self.err)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(f"{self.prog}: {message}")


def get_registry(pm=None) -> Registry:
    from .plugins import get_plugin_manager

    pm = pm or get_plugin_manager()
    reg = Registry()
    # built-in plugins were registered first; pluggy calls them last
    pm.hook.register_commands(registry=reg)
    return reg


def build_parser(registry: Registry) -> argparse.ArgumentParser:
    parser = _Parser(prog="gnubg-blunder", description="Statistics across every analysed backgammon match.")
    parser.add_argument("--db", metavar="PATH", help="database file (default: the user's database; "
                        "GNUBG_BLUNDER_DB overrides)")
    parser.add_argument("--no-config", action="store_true", help="ignore the saved filter")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in sorted(registry.commands):
        cmd = registry.commands[name]
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        if cmd.configure:
            cmd.configure(p)
    return parser


def run(argv: list, ctx: Optional[Context] = None) -> int:
    """Parse ``argv`` and run the command; user errors print one line and
    return 2 (bad usage) or 1."""
    ctx = ctx or Context()
    registry = get_registry()
    parser = build_parser(registry)
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help
            return int(exc.code or 0)
        if not args.command:
            parser.print_help(ctx.out)
            return 2
        if args.db:
            ctx.db_path = args.db
        ctx.use_config = not args.no_config
        return int(registry.commands[args.command].run(args, ctx) or 0)
    except UserError as exc:
        ctx.error(f"error: {exc}")
        return 2
    except (sqlite3.Error, StoreError) as exc:
        from .store import default_db_path

        ctx.error(f"error: database {ctx.db_path or default_db_path()}: {exc}")
        return 1
    finally:
        ctx.close()


def run_line(line: str, ctx: Optional[Context] = None) -> int:
    """``bdb("stats --player X")``: the same words as the command line."""
    return run(shlex.split(line), ctx)
