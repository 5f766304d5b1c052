"""The settings as a built-in plugin: the commands that set things (the
saved filter, aliases, the main player, the PR goal, the error thresholds)
and relabelling."""

from __future__ import annotations

from .commands import Command, UserError, add_filter_arguments, unknown_player
from .hookspecs import hookimpl
from .formatting import DASH, table
from .filters import Filter
from .views.progression import goal_suggestion
from .lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_counting = lazy("gnubg_blunder.metrics.counting")
_user_config = lazy("gnubg_blunder.user_config")


# -- filter ------------------------------------------------------------------

def _filter_configure(p):
    sub = p.add_subparsers(dest="filter_command", metavar="SUBCOMMAND")
    s = sub.add_parser("set", help="save this database's filter (the flags given replace those saved)")
    add_filter_arguments(s)
    r = sub.add_parser("reset", help="clear this database's saved filter, all but the player")
    r.add_argument("--player", dest="forget_player", action="store_true", help="forget the saved player too")
    sub.add_parser("show", help="show this database's saved filter")


def _filter_run(args, ctx):
    """Each database has its own saved filter (``--db``, else the user's
    database): docs/commands.md."""
    cmd = args.filter_command or "show"
    database = ctx.database
    try:
        of = f"of {_user_config.database_key(database)}"
        if cmd == "set":
            values = _user_config.saved_filter(database)
            values.update({k: (list(v) if isinstance(v, tuple) else v)
                           for k, v in _user_config.filter_flags(args).items() if v is not None})
            Filter(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in values.items()})  # validate
            path = _user_config.save_filter(database, values)
            ctx.print(f"saved filter {of} ({path}): {_describe(values)}")
        elif cmd == "reset":
            keep = () if args.forget_player else ("player",)
            values = {k: v for k, v in _user_config.saved_filter(database).items() if k in keep}
            path = _user_config.save_filter(database, values)
            ctx.print(f"filter {of} reset ({path}): {_describe(values)}")
        else:
            old = (", the global one saved before each database had its own: the default database's only"
                   if _user_config.is_old_global_filter(database) else "")
            saved = _describe(_user_config.saved_filter(database))
            ctx.print(f"saved filter {of} ({_user_config.config_path()}{old}): {saved}")
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return 0


def _describe(values: dict) -> str:
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in values.items() if v is not None]
    return ", ".join(parts) if parts else "none (every match, both sides)"


# -- aliases -----------------------------------------------------------------

def _alias_configure(p):
    sub = p.add_subparsers(dest="alias_command", metavar="SUBCOMMAND")
    a = sub.add_parser("add", help="OTHER is another spelling of CANONICAL")
    a.add_argument("canonical", metavar="CANONICAL")
    a.add_argument("other", metavar="OTHER")
    r = sub.add_parser("remove", help="forget an alias")
    r.add_argument("other", metavar="OTHER")
    sub.add_parser("list", help="list the aliases")


def _alias_run(args, ctx):
    store = ctx.store()
    cmd = args.alias_command or "list"
    if cmd == "add":
        try:
            store.add_alias(args.canonical, args.other)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        ctx.print(f"{args.other} = {store.canonical_name(args.other)}")
    elif cmd == "remove":
        if not store.remove_alias(args.other):
            raise UserError(f"{args.other!r} is not an alias")
        ctx.print(f"{args.other} is its own name again")
    else:
        rows = store.alias_pairs()
        ctx.print(table([list(r) for r in rows], ["player", "also written"], "ll") if rows else "No aliases.")
    return 0


# -- main player ---------------------------------------------------------------

def _main_configure(p):
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="whose database it is: a player of a stored match (omit to show)")
    p.add_argument("--clear", action="store_true", help="forget the main player")


def _main_run(args, ctx):
    store = ctx.store()
    if args.clear and args.name is not None:
        raise UserError("main-player: give NAME or --clear, not both")
    if args.clear:
        _db_settings.clear_main_player(store)
    elif args.name is not None:
        _db_settings.set_main_player(store, _stored_player(store, args.name))
    ctx.print(f"main player: {_db_settings.main_player(store) or DASH}")
    return 0


def _stored_player(store, name: str) -> str:
    """``name`` as a stored match spells it (aliases merged, without case);
    refused when no stored match has that player."""
    name = store.canonical_name(name)
    if not name:
        raise UserError("main-player: the name is empty (give a player's name, or --clear)")
    names = store.player_names()
    stored = {n.casefold(): n for n in names}.get(name.casefold())
    if stored is None:
        raise unknown_player(name, names)
    return stored


# -- goal ------------------------------------------------------------------------

def _goal_configure(p):
    sub = p.add_subparsers(dest="goal_command", metavar="SUBCOMMAND")
    s = sub.add_parser("set", help='set the goal, e.g. goal set "PR < 5" --weeks 12')
    s.add_argument("goal", metavar="GOAL")
    s.add_argument("--weeks", type=float, required=True)
    sub.add_parser("show", help="show the goal")
    sub.add_parser("clear", help="forget the goal")
    g = sub.add_parser("suggest", help="propose the lower bound of the current level band")
    add_filter_arguments(g)


def _goal_run(args, ctx):
    store = ctx.store()
    cmd = args.goal_command or "show"
    if cmd == "set":
        try:
            goal = _db_settings.set_goal(store, args.goal, args.weeks)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        ctx.print(f"goal: {goal['metric'].upper()} {goal['op']} {goal['target']:g} by {goal['deadline']}")
    elif cmd == "clear":
        _db_settings.clear_goal(store)
        ctx.print("goal cleared")
    elif cmd == "suggest":
        ctx.print(goal_suggestion(store, args, ctx))
    else:
        goal = _db_settings.get_goal(store)
        ctx.print("no goal set" if not goal else
                  f"goal: {goal['metric'].upper()} {goal['op']} {goal['target']:g} by {goal['deadline']} "
                  f"(set on {goal['set_on']})")
    return 0


# -- thresholds ------------------------------------------------------------------------

def _thresholds_configure(p):
    p.add_argument("values", nargs="*", metavar="VALUE",
                   help="ERROR BLUNDER in EMG (e.g. 0.050 0.100), or a preset: default, gnubg, xg")


def _thresholds_run(args, ctx):
    store = ctx.store()
    try:
        if len(args.values) == 1:
            preset = _metrics_counting.THRESHOLD_PRESETS.get(args.values[0].lower())
            if preset is None:
                raise ValueError(f"unknown preset {args.values[0]!r} (default, gnubg, xg)")
            _db_settings.set_thresholds(store, preset.error, preset.blunder)
        elif len(args.values) == 2:
            _db_settings.set_thresholds(store, float(args.values[0]), float(args.values[1]))
        elif args.values:
            raise ValueError("give ERROR BLUNDER, or one preset name")
    except ValueError as exc:
        raise UserError(str(exc)) from None
    t = _db_settings.thresholds_for(store)
    ctx.print(f"error from {t.error:.3f} EMG ({t.error * 1000:.0f} mpt), blunder from {t.blunder:.3f} EMG "
              f"({t.blunder * 1000:.0f} mpt)")
    return 0


def _relabel_run(args, ctx):
    n = ctx.store().relabel()
    ctx.print(f"labels recomputed for {n} decisions")
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("filter", "save, reset or show the filter every view uses", _filter_run, _filter_configure))
    registry.add(Command("alias", "merge the spellings of a player's name", _alias_run, _alias_configure))
    registry.add(Command("main-player", "set, show or clear whose database it is", _main_run, _main_configure))
    registry.add(Command("goal", "the PR goal (kept in the database)", _goal_run, _goal_configure))
    registry.add(Command("thresholds", "error and blunder thresholds of this database", _thresholds_run,
                         _thresholds_configure))
    registry.add(Command("relabel", "recompute phases, game plans and themes of every decision", _relabel_run))
