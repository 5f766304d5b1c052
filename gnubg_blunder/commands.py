"""One command registry for the CLI and for ``bdb("...")`` inside gnubg,
and the command kit every command (built-in or a plugin's) is made with.

A command is a name, a help line, a function that adds its arguments to an
argparse parser and a function that runs it with a :class:`Context`.  The
same parser reads ``gnubg-blunder stats --player X`` and
``>bdb("stats --player X")``.

Most commands are *views*: figures or rows over the one filter (SPEC §14).
Declare one with :class:`View` — its name, help, ``compute(scope) -> dict``
and renderers — and the kit gives it the shared options (the filter,
``--format``, ``--metric`` from the one metric table), builds its
:class:`Scope` (store, filter, selection, thresholds) and writes its JSON
(always an object carrying its ``filter``), CSV (when it has one table) or
text.  ``registry.add(View(...))`` registers it.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sqlite3
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Optional, TextIO


from .errors import UserError  # noqa: F401  (re-exported: plugins import it from here)
from .stash import Stash, StashKey
from .model import DECISION_KINDS
from .options import Option, add_options, from_args, param
from .text import closest_names, safe_text  # closest_names: views name it from here (the command kit)
from .filters import add_filter_options
from .metrics import vocabulary
from .plugins import first_registered, get_plugin_manager
from .lazy import lazy

_database = lazy("gnubg_blunder.database")
_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_metrics_verify = lazy("gnubg_blunder.metrics.verify")
_store_damage = lazy("gnubg_blunder.store.damage")
_store_module = lazy("gnubg_blunder.store")
_store_verifications = lazy("gnubg_blunder.store.verifications")
_user_config = lazy("gnubg_blunder.user_config")


def count_option(value, option: str) -> int:
    """A count given to ``option`` (``--limit N``, ``--last N``): a whole
    number, 0 meaning all; anything else is the user's mistake, in one line."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UserError(f"{option} {value!r}: give a whole number (0 = all)") from None
    if n < 0:
        raise UserError(f"{option} {value}: give 0 (all) or more")
    return n


@dataclass
class Command:
    name: str
    help: str
    run: Callable  # run(args, ctx) -> int exit status
    configure: Optional[Callable] = None  # configure(parser)
    view: Optional["View"] = None  # the view it runs, for a command made by the kit


class Registry:
    def __init__(self):
        self.commands: dict = {}

    def add(self, command) -> None:
        """Register a :class:`Command` or a :class:`View`."""
        if isinstance(command, View):
            command = command.command()
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

    @property
    def database(self):
        """This run's database as given (``--db``), else the user's
        (``store.default_db_path``): what the store opens, and whose saved
        filter applies."""
        if self.db_path is not None:
            return self.db_path

        return _store_module.default_db_path()

    def store(self):
        if self._store is None:
            # its notes (a backup made) go with the errors
            self._store = _database.open_store(self.db_path, report=self.error)
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
    pm = pm or get_plugin_manager()
    reg = Registry()
    # built-in plugins were registered first; pluggy calls them last
    pm.hook.register_commands(registry=reg)
    return reg


def _top_parser(registry: Registry) -> tuple:
    """(the command line's parser, {command: its parser}): every command
    listed by name and help line (what ``gnubg-blunder --help`` shows), none
    of their arguments added yet (:func:`_add_arguments`)."""
    parser = _Parser(prog="gnubg-blunder", description="Statistics across every analysed backgammon match.")
    parser.add_argument("--db", metavar="PATH", help="database file (default: the user's database; "
                        "GNUBG_BLUNDER_DB overrides)")
    parser.add_argument("--no-config", action="store_true", help="ignore the saved filter")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parsers = {}
    for name in sorted(registry.commands):
        help = registry.commands[name].help
        parsers[name] = sub.add_parser(name, help=help, description=help, add_help=False)  # -h: _add_arguments
    return parser, parsers


def _add_arguments(parser: argparse.ArgumentParser, cmd: Command) -> None:
    """A command's arguments on its parser: ``-h`` first, as argparse adds
    it, then the command's own (``configure``)."""
    parser.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                        help="show this help message and exit")
    if cmd.configure:
        cmd.configure(parser)


def build_parser(registry: Registry) -> argparse.ArgumentParser:
    """The whole command line: every command with its arguments (the
    tests' and tools' walk of every command; :func:`run` adds one
    command's alone, :func:`command_parser`)."""
    parser, parsers = _top_parser(registry)
    for name, p in parsers.items():
        _add_arguments(p, registry.commands[name])
    return parser


def command_parser(registry: Registry, argv: list) -> argparse.ArgumentParser:
    """The command line's parser for ``argv``: every command listed, the
    arguments of ``argv``'s command alone added.  ``gnubg-blunder --help``
    lists names and help lines and a run parses one command's arguments:
    neither needs the other commands' arguments, whose ``configure`` may
    import what it needs.  Which command ``argv`` names is argparse's own
    answer (a first pass that knows no command's arguments: ``--help``, a
    command that does not exist and a bad top-level option end there, as
    they would in the full parse)."""
    parser, parsers = _top_parser(registry)
    named, _rest = parser.parse_known_args(argv)
    if named.command:
        _add_arguments(parsers[named.command], registry.commands[named.command])
    return parser


def run(argv: list, ctx: Optional[Context] = None) -> int:
    """Parse ``argv`` and run the command; user errors print one line and
    return 2 (bad usage) or 1."""
    ctx = ctx or Context()
    registry = get_registry()
    try:
        try:
            with contextlib.redirect_stdout(ctx.out):  # --help goes where the command's output goes
                parser = command_parser(registry, argv)
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
    except Exception as exc:
        if not is_database_error(exc):
            raise

        damage = _store_damage.is_damage(exc) and not isinstance(exc, _store_damage.DamagedDatabase)
        hint = f" ({_store_damage.CHECK_HINT})" if damage else ""
        db = _store_module.shown_database(ctx.db_path or _store_module.default_db_path())
        ctx.error(f"error: database {db}: {exc}{hint}")
        return 1
    finally:
        ctx.close()


def is_database_error(exc: BaseException) -> bool:
    """An SQLite error or the store's ``StoreError``.  The store is not
    imported to ask (it imports numpy, which ``--help`` does without): a
    ``StoreError`` can only have been raised once its module was loaded."""
    if isinstance(exc, sqlite3.Error):
        return True
    schema = sys.modules.get("gnubg_blunder.store.schema")
    return schema is not None and isinstance(exc, schema.StoreError)


def run_line(line: str, ctx: Optional[Context] = None) -> int:
    """``bdb("stats --player X")``: the same words as the command line."""
    return run(shlex.split(line), ctx)


# -- the command kit ---------------------------------------------------------

FORMATS = ("text", "json", "csv")


def add_format(parser, csv: bool = False, choices=None) -> None:
    """``--format text|json`` (``|csv`` for a command with one table), or
    ``choices`` (a view's: the registered formats it fits)."""
    choices = choices or (FORMATS if csv else FORMATS[:2])
    parser.add_argument("--format", choices=choices, default="text",
                        help="output format (JSON: an object with the filter it used)")


@dataclass(frozen=True)
class OutputFormat:
    """A format a view writes its object in (hookspecs.register_output_formats)."""

    name: str
    render: Callable  # (view, obj) -> str
    table: bool = False
    order: int = 100
    listed: bool = True


def output_formats(pm=None) -> dict:
    """{name: :class:`OutputFormat`} of every plugin, by order then name;
    the first registered under a name is kept (pluggy calls the plugins
    registered last first: an installed plugin's replaces a built-in)."""
    pm = pm or get_plugin_manager()
    found, register = first_registered(OutputFormat)
    pm.hook.register_output_formats(register=register)
    return {f.name: f for f in sorted(found.values(), key=lambda f: (f.order, f.name))}


def add_metric(parser, help: Optional[str] = None) -> None:
    """``--metric pr|mwc|mwc7``, read from the one metric table (``help``:
    what the metric means where it is not the figures' one, e.g. the study
    half's cost, metrics/study_cost.py)."""
    parser.add_argument("--metric", choices=vocabulary.CHOICES, default=vocabulary.DEFAULT,
                        help=help or vocabulary.option_help())


def add_filter_arguments(parser, decision_type: bool = True) -> None:
    """The one filter of every view (SPEC §14).  Flags apply to this run,
    over the saved filter (``filter set``; ``--no-config`` ignores it)."""
    add_filter_options(parser, leave_out=() if decision_type else ("decision_type",))
    parser.add_argument("--no-config", dest="no_saved_filter", action="store_true",
                        help="ignore the saved filter for this run")


@dataclass
class DecisionCriteria:
    """The options that pick decisions within the filter: ``positions``'
    own, and those of every command that works on its decisions (``anki
    export``, ``collection add --from positions``), declared once here."""

    errors: bool = param(Option(("--errors",), action="store_true", group="severity",
                                help="errors only (e ≥ the error threshold)"), default=False)
    blunders: bool = param(Option(("--blunders",), action="store_true", group="severity",
                                  help="blunders only (e ≥ the blunder threshold)"), default=False)
    phase: Optional[str] = param(Option(("--phase",), metavar="PHASE", help="opening, middle game, race or bear-off"))
    game_plan: Optional[str] = param(Option(("--game-plan",), metavar="PLAN",
                                            help="a game plan (e.g. \"holding game\", race, blitz)"))
    theme: Optional[str] = param(Option(("--theme",), metavar="THEME",
                                        help="an error theme (e.g. \"too many blots\", \"missed double\")"))
    tag: Optional[str] = param(Option(("--tag",), metavar="WORD", help="decisions whose comment holds #WORD"))
    kind: Optional[str] = param(Option(("--kind",), choices=DECISION_KINDS, help="one kind of decision"))

    def criteria(self) -> dict:
        """The criteria as a listing names them (``positions``' JSON ``criteria``)."""
        return {
            "severity": "errors" if self.errors else ("blunders" if self.blunders else "decisions"),
            "phase": self.phase, "game_plan": self.game_plan, "theme": self.theme,
            "tag": self.tag.lstrip("#") if self.tag else None, "kind": self.kind,
        }


def add_decision_criteria(p) -> None:
    """:class:`DecisionCriteria`'s options, for a command that is no view."""
    add_options(p, DecisionCriteria, defaults=True)


def filter_from_args(args, ctx: Optional[Context] = None):
    """The filter of this run: its database's saved one (unless --no-config)
    with this run's flags over it."""
    try:
        use = (ctx.use_config if ctx is not None else True) and not getattr(args, "no_saved_filter", False)
        return _user_config.merged_filter(_user_config.filter_flags(args), (ctx or Context()).database, use)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def unknown_player(name: str, names: list, what: str = "stored match") -> UserError:
    """The one-line refusal of a player name that no match has (names shown
    as text output shows user data: escaped and cut, ``safe_text``)."""
    if not names:
        return UserError(f"no player '{safe_text(name)}': the database has no {what} yet")
    near = closest_names(name, names)
    hint = f" (closest names: {', '.join(safe_text(n) for n in near)})" if near else ""
    return UserError(f"no player '{safe_text(name)}' in any {what}{hint}")


def check_player(store, flt) -> None:
    """Refuse a filter's player whom no stored match has, and a collection
    that does not exist (SPEC §14: a typo must not print an empty view as if
    it were a figure); a saved one's refusal says where it came from."""
    if flt.player:
        names = store.player_names()
        if store.canonical_name(flt.player).casefold() not in {n.casefold() for n in names}:
            raise UserError(f"{unknown_player(flt.player, names)}{flt.origin('player')}")
    if getattr(flt, "collection", None) and hasattr(store, "collection") and store.collection(flt.collection) is None:
        raise UserError(f"{unknown_collection(store, flt.collection)}{flt.origin('collection')}")


def unknown_collection(store, name: str) -> UserError:
    """The one-line refusal of a collection name that does not exist, with
    the closest names."""
    names = [c["name"] for c in store.collections()]
    if not names:
        return UserError(f"no collection '{safe_text(name)}': the database has no collection yet "
                         "(`collection add NAME ...` makes one)")
    near = closest_names(name, names)
    hint = f" (closest names: {', '.join(safe_text(n) for n in near)})" if near else ""
    return UserError(f"no collection '{safe_text(name)}'{hint}")


def study_selection(store, sel):
    """``sel`` with each verified decision at its deepest evaluation (SPEC
    §16: what the study half reads): the stored verifications
    (store/verifications.py) laid over the selection by the metrics' rule
    (metrics/verify.py ``deepest_selection``); ``sel`` itself when nothing
    is verified.  Here, above both, so that the store runs no metric rule."""
    if not len(sel.decisions) or not _store_verifications.has_any(store):
        return sel
    deepest = _store_verifications.deepest(store, [int(r) for r in sel.decisions.row_id])
    return _metrics_verify.deepest_selection(sel, deepest)


# the study half of the selection last asked for (Scope.study_rows): (that selection, its study half)
STUDY_ROWS: StashKey[tuple] = StashKey("study rows")


class Scope:
    """What a view computes over: the store, this run's filter, the
    thresholds, and the selection (read once, when first asked for).

    ``Scope(args, ctx)`` is a command's: the filter from the saved one and
    the flags, its player checked.  ``Scope.over(...)`` is a scope whose
    parts are already known (the report computes every view over its one
    selection)."""

    def __init__(self, args, ctx: Optional[Context] = None, *, store=None, filter=None, selection=None,
                 thresholds=None):
        """A command's scope (``Scope(args, ctx)``: the store of its context,
        the filter of its flags over the saved one, its player checked), or
        one whose parts are given (``store`` and ``filter``, and the
        selection and thresholds when already read)."""
        self.args, self.ctx = args, ctx
        if store is None:
            store = ctx.store()
            filter = filter_from_args(args, ctx)
            check_player(store, filter)
        self.store, self.filter = store, filter
        self._selection, self._thresholds = selection, thresholds

    @classmethod
    def over(cls, args, store, flt, selection=None, thresholds=None) -> "Scope":
        """A scope whose parts are known (the report's: one selection for every view)."""
        return cls(args, store=store, filter=flt, selection=selection, thresholds=thresholds)

    @property
    def thresholds(self):
        if self._thresholds is None:
            self._thresholds = _db_settings.thresholds_for(self.store)
        return self._thresholds

    @property
    def selection(self):
        if self._selection is None:
            self._selection = self.store.select(self.filter)
        return self._selection

    @property
    def selection_if_read(self):
        """The selection when it is already read (the report's), else None:
        for a view that can tell from it that it need read nothing."""
        return self._selection

    @cached_property
    def stash(self) -> Stash:
        """What this scope worked out once (``stash.py``), kept as
        long as it is."""
        return Stash()

    def rows(self, keep):
        """The selection when it is already read (the report, the summary
        computing several views), else only the decisions ``keep(decisions)``
        keeps (``store.select_rows``): a view that needs a few decisions of
        10,000 matches (the errors of the plan, the reference positions)
        holds only those."""
        if self._selection is not None:
            return self._selection
        return self.store.select_rows(self.filter, keep)

    def study_rows(self, keep=None):
        """The study half's decisions (SPEC §16): :meth:`rows` (``keep``
        None: the whole :attr:`selection`) with each verified decision at
        its deepest evaluation (metrics/verify.py ``deepest_selection``);
        the match figures keep :attr:`selection`.  Worked out once a
        selection."""
        sel = self.selection if keep is None else self.rows(keep)
        kept = self.stash.get(STUDY_ROWS)
        if kept is not None and kept[0] is sel:
            return kept[1]
        out = study_selection(self.store, sel)
        self.stash[STUDY_ROWS] = (sel, out)
        return out

    def select(self, flt):
        """Another selection of the same store (e.g. every player's)."""
        return self.store.select(flt)

    @property
    def metric(self) -> str:
        return getattr(self.args, "metric", None) or "pr"

    @property
    def filter_json(self) -> dict:
        return self.filter.to_json()


@dataclass
class View:
    """A command that prints figures or rows over the one filter.

    ``compute(scope) -> dict``: the JSON object (the kit adds ``filter``
    when it is absent); ``text(obj) -> str``; ``table(obj) ->
    formatting.Table`` for a view with one table: its CSV and its
    HTML table are written from that one declaration (no table: no
    ``--format csv``); ``html(obj) -> str`` where the view has a richer HTML
    form (the report's sections); ``options(parser)`` adds the view's own
    arguments; ``metric``: takes ``--metric``; ``cost_metric``: takes the
    study half's ``--metric`` instead, the cost of an error, said so in its
    help (metrics/study_cost.py: the plan, the reference positions, before /
    after study); ``decision_type``: takes ``--decision-type``.

    ``params``: a dataclass of the view's own options (``options.param``
    fields, docs/plugins.md "A view's parameters"): its flags are made from
    it, and ``compute(scope, params)`` is given them typed, read from the
    arguments once (:meth:`evaluate`).  A view without it (``options``,
    today's API of a plugin) gets ``compute(scope)`` and reads
    ``scope.args``."""

    name: str
    help: str
    compute: Callable
    text: Callable
    table: Optional[Callable] = None
    html: Optional[Callable] = None
    options: Optional[Callable] = None
    metric: bool = False
    decision_type: bool = True
    params: Optional[type] = None
    cost_metric: bool = False

    def configure(self, parser) -> None:
        if self.params is not None:
            add_options(parser, self.params, defaults=True)
        if self.cost_metric:
            add_metric(parser, _metrics_study_cost.option_help())
        if self.options:
            self.options(parser)
        add_filter_arguments(parser, decision_type=self.decision_type)
        if self.metric:
            add_metric(parser)
        add_format(parser, choices=[f.name for f in output_formats().values()
                                    if f.listed and (self.table is not None or not f.table)])

    def render(self, obj: dict, fmt: str) -> str:
        """The object in the registered format ``fmt`` (:func:`output_formats`:
        text, json, csv, html, a plugin's)."""
        return output_formats()[fmt].render(self, obj)

    def params_of(self, args):
        """The view's parameters from parsed arguments (None: it declares none)."""
        return None if self.params is None else from_args(self.params, args)

    def evaluate(self, scope) -> dict:
        """The view's object over ``scope``: ``compute(scope, params)`` with
        its parameters read from ``scope.args``, or ``compute(scope)`` for a
        view that declares none."""
        if self.params is None:
            return self.compute(scope)
        return self.compute(scope, self.params_of(scope.args))

    def run(self, args, ctx: Context) -> int:
        scope = Scope(args, ctx)
        obj = self.evaluate(scope)
        if not isinstance(obj, dict):
            raise TypeError(f"view {self.name}: compute() must return a dict, not {type(obj).__name__}")
        obj.setdefault("filter", scope.filter_json)
        ctx.print(self.render(obj, getattr(args, "format", "text")))
        return 0

    def command(self) -> Command:
        return Command(self.name, self.help, self.run, self.configure, view=self)
