"""The players views as commands (SPEC §14 "Players" and "Corpus"):
``players``, ``compare``, ``contrast``, ``ranking``, ``h2h`` and ``windows``.
Each takes the one filter of every view and ``--format text|json|csv``; the
same words work inside gnubg as ``>bdb("players --sort pr")``."""

from __future__ import annotations

import dataclasses

from ..commands import Command, UserError
from ..hookspecs import hookimpl
from ..db_settings import thresholds_for
from .core_commands import add_filter_arguments, add_format, filter_from_args

FORMATS = ("text", "json", "csv")


def _add_metric(p):
    p.add_argument("--metric", choices=("pr", "mwc", "mwc7"), default="pr",
                   help="PR (default), MWC lost (%% points) or MWC-7 (L7)")


def _select_all_players(store, flt):
    """The filter's matches of every player: the filter's player does not
    restrict (it is highlighted, or the view names its players)."""
    return store.select(dataclasses.replace(flt, player=None))


def _resolve(store, players, name):
    from ..metrics.players import player_key

    g = players.index(player_key(name, store.aliases()))
    if g is None:
        like = players.like(name)
        hint = f" (names containing it: {', '.join(like)})" if like else ""
        raise UserError(f"no player {name!r} in this selection{hint}")
    return g


def _refuse_engine_depth(args, flt, view):
    if flt.engine is None and flt.min_depth is None:
        return
    given = getattr(args, "engine", None) is not None or getattr(args, "min_depth", None) is not None
    where = "" if given else " (it comes from the saved filter: run with --no-config, or `filter reset`)"
    raise UserError(f"{view} does not take the engine/depth filter (--engine, --min-depth): it compares matches "
                    f"analysed by different engines and depths, each with its own analysis{where}")


def _emit(ctx, fmt, obj, text, csv):
    from ..views.players import dump

    ctx.print(dump(obj) if fmt == "json" else (csv(obj) if fmt == "csv" else text(obj)))
    return 0


# -- players -----------------------------------------------------------------

def _players_configure(p):
    add_filter_arguments(p)
    add_format(p, FORMATS)
    _add_metric(p)
    p.add_argument("--sort", metavar="COLUMN[:desc]",
                   help="sort by a column (default decisions:desc); players with no data (—) last either way")
    p.add_argument("--where", metavar="COLUMN=FILTER", action="append", default=[],
                   help="column filter: >=500, >500, <2.5, <=2, 3-7 (inclusive), 5 (exact), or a name fragment "
                        "for text columns; repeat for several (all must pass)")


def _players_run(args, ctx):
    from ..metrics.players import player_key, player_rows, players_of
    from ..views import players as pv
    from ..views.table_filters import FilterError, apply_filters, find_column, parse_sort, parse_where, sort_rows

    try:
        filters = [parse_where(w, pv.PLAYER_COLUMNS) for w in args.where]
        if args.sort:
            sort_col, desc = parse_sort(args.sort, pv.PLAYER_COLUMNS)
        else:
            sort_col, desc = find_column(pv.DEFAULT_SORT[0], pv.PLAYER_COLUMNS), pv.DEFAULT_SORT[1]
    except FilterError as exc:
        raise UserError(str(exc)) from None
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = _select_all_players(store, flt)
    players = players_of(sel)
    rows = player_rows(sel, thresholds_for(store), splits=args.metric != "pr", players=players)
    hkey = player_key(flt.player, store.aliases()) if flt.player else None
    objs = pv.player_objects(rows, flt.to_json(), hkey, args.metric)
    total = len(objs)
    objs = sort_rows(apply_filters(objs, filters), sort_col, desc, tiebreak=pv.PLAYER_COLUMN)
    if args.format == "json":
        ctx.print(pv.dump(objs))
    elif args.format == "csv":
        ctx.print(pv.players_csv(objs))
    else:
        ctx.print(pv.players_text(objs, flt.to_json(), total=total, sort=(sort_col.key, desc),
                                  filters=[f.describe() for f in filters], metric=args.metric,
                                  highlight_name=flt.player))
    return 0


# -- compare -----------------------------------------------------------------

def _two_players(p):
    p.add_argument("a", metavar="A", help="a player (aliases merged, names without case)")
    p.add_argument("b", metavar="B", help="another player")


def _two_selected(args, ctx, refuse_engine_depth_for=None) -> tuple:
    """The store, filter, selection (every player), players and the
    indexes of players A and B (two different ones)."""
    from ..metrics.players import players_of

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    if refuse_engine_depth_for:
        _refuse_engine_depth(args, flt, refuse_engine_depth_for)
    sel = _select_all_players(store, flt)
    players = players_of(sel)
    a, b = _resolve(store, players, args.a), _resolve(store, players, args.b)
    if a == b:
        raise UserError(f"{args.a!r} and {args.b!r} are the same player")
    return store, flt, sel, players, a, b


def _compare_configure(p):
    _two_players(p)
    add_filter_arguments(p)
    add_format(p, FORMATS)


def _compare_run(args, ctx):
    from ..metrics.players import compare, player_rows
    from ..views import players as pv

    store, flt, sel, players, a, b = _two_selected(args, ctx)
    rows = player_rows(sel, thresholds_for(store), players=players)
    obj = pv.compare_object(compare(rows[a], rows[b]), rows[a], rows[b], flt.to_json())
    return _emit(ctx, args.format, obj, pv.compare_text, pv.compare_csv)


# -- contrast ----------------------------------------------------------------

def _contrast_configure(p):
    _two_players(p)
    add_filter_arguments(p)
    add_format(p, FORMATS)


def _contrast_run(args, ctx):
    from ..metrics.players import contrast
    from ..views import players as pv

    store, flt, sel, players, a, b = _two_selected(args, ctx)
    thr = thresholds_for(store)
    rows = contrast(sel, players, a, b, thr, flt.decision_type)
    obj = pv.contrast_object(rows, players.names[a], players.names[b], thr, flt.to_json())
    return _emit(ctx, args.format, obj, pv.contrast_text, pv.contrast_csv)


# -- ranking -----------------------------------------------------------------

def _ranking_configure(p):
    add_filter_arguments(p)
    add_format(p, FORMATS)
    _add_metric(p)
    p.add_argument("--min-decisions", type=int, default=1, metavar="N",
                   help="only players with at least N counted decisions (default 1)")


def _ranking_run(args, ctx):
    from ..metrics.players import player_rows, ranking
    from ..views import players as pv

    if args.min_decisions < 0:
        raise UserError("--min-decisions: a number of decisions, 0 or more")
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = _select_all_players(store, flt)
    rows = player_rows(sel, thresholds_for(store))
    ranked, left_out = ranking(rows, args.min_decisions, args.metric)
    obj = pv.ranking_object(ranked, left_out, args.min_decisions, args.metric, flt.to_json())
    return _emit(ctx, args.format, obj, pv.ranking_text, pv.ranking_csv)


# -- h2h -----------------------------------------------------------------------

def _h2h_configure(p):
    _two_players(p)
    add_filter_arguments(p)
    add_format(p, FORMATS)
    _add_metric(p)


def _h2h_run(args, ctx):
    from ..metrics.players import head_to_head
    from ..views import players as pv

    store, flt, sel, players, a, b = _two_selected(args, ctx, refuse_engine_depth_for="h2h")
    res = head_to_head(sel, players, a, b, thresholds_for(store), flt.decision_type)
    obj = pv.h2h_object(res, players.names[a], players.names[b], args.metric, flt.to_json())
    return _emit(ctx, args.format, obj, pv.h2h_text, pv.h2h_csv)


# -- windows -------------------------------------------------------------------

def _windows_configure(p):
    p.add_argument("--months", type=int, choices=(1, 3, 6, 12), default=3,
                   help="window length in calendar months (default 3)")
    add_filter_arguments(p)
    add_format(p, FORMATS)
    _add_metric(p)


def _windows_run(args, ctx):
    from ..metrics.players import windows
    from ..views import players as pv

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    _refuse_engine_depth(args, flt, "windows")
    sel = store.select(flt)
    res = windows(sel, args.months, thresholds_for(store), flt.decision_type)
    obj = pv.windows_object(res, args.metric, flt.to_json())
    return _emit(ctx, args.format, obj, pv.windows_text, pv.windows_csv)


@hookimpl
def register_commands(registry):
    registry.add(Command("players", "one row per player: matches, W–L, decisions, PR, Snowie ER, luck, L7",
                         _players_run, _players_configure))
    registry.add(Command("compare", "two players side by side, with a verdict on relative figures",
                         _compare_run, _compare_configure))
    registry.add(Command("contrast", "positions two players both decided where only one stayed under the "
                         "error threshold", _contrast_run, _contrast_configure))
    registry.add(Command("ranking", "players by PR, with a minimum number of decisions",
                         _ranking_run, _ranking_configure))
    registry.add(Command("h2h", "head to head: two players' common matches, each side's PR, the score",
                         _h2h_run, _h2h_configure))
    registry.add(Command("windows", "PR per rolling calendar window (1, 3, 6 or 12 months)",
                         _windows_run, _windows_configure))
