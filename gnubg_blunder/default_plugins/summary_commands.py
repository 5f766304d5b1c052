"""The ``summary``, ``progression`` and ``positions`` commands (SPEC §14):
the same words on the command line and in gnubg (``>bdb("summary")``)."""

from __future__ import annotations

import re

from ..commands import Command, UserError
from ..hookspecs import hookimpl
from .core_commands import add_filter_arguments, add_format, filter_from_args

DEFAULT_LIMIT = 50
KINDS = ("checker", "nodouble", "double", "take", "pass")


def add_metric(parser):
    parser.add_argument("--metric", choices=("pr", "mwc", "mwc7"), default="pr",
                        help="PR (default), MWC lost (% points) or MWC-7 (L7)")


def _limit(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise UserError(f"--limit {value!r}: give a whole number (0 = all)") from None
    if n < 0:
        raise UserError(f"--limit {value}: give 0 (all) or more")
    return n


def _listing(store, sel, flt, thresholds, criteria: dict, limit: int, order: str = "cost") -> dict:
    """The drill-down object for ``positions`` and ``summary --list``."""
    import numpy as np

    from ..metrics.arrays import LABELS
    from ..metrics.summary import cost_order, decision_records, label_code, pick
    from ..views.positions import attach_moves, positions_object

    last = criteria.pop("last", None)
    try:
        mask = pick(sel, thresholds, flt.decision_type, **criteria)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for name in ("phase", "game_plan", "theme"):
        if criteria.get(name):
            criteria[name] = LABELS[name][label_code(name, criteria[name])]
    idx = np.nonzero(mask)[0]
    if last is not None:
        idx = idx[-last:]  # the last N in play order, as the rolling figure takes them
        criteria["last"] = last
    total = len(idx)
    if order == "cost":
        idx = cost_order(sel, idx)
    shown = idx[:limit] if limit else idx
    records = attach_moves(decision_records(sel, shown, thresholds), store)
    obj = positions_object(records, total, flt, criteria, limit or None)
    if order != "cost":
        obj["order"] = "play order (match date, undated matches by import time, then move order)"
    return obj


# -- summary ------------------------------------------------------------------

_LIST = re.compile(r"decisions|errors|blunders|top|last(\d+)")


def _summary_configure(p):
    add_filter_arguments(p)
    add_metric(p)
    add_format(p)
    p.add_argument("--list", nargs="?", const="errors", metavar="WHAT",
                   help="also list the decisions behind a count: errors (default), blunders, decisions, "
                        "top, or lastN (e.g. last50: the decisions of a rolling figure)")
    p.add_argument("--limit", default=str(DEFAULT_LIMIT), metavar="N",
                   help=f"at most N listed decisions (default {DEFAULT_LIMIT}; 0 = all)")


def _summary_run(args, ctx):
    from ..metrics.summary import TOP_N, summary_figures
    from ..db_settings import thresholds_for
    from ..views.formatting import to_json
    from ..views.positions import attach_moves, positions_object
    from ..views.summary import summary_object, summary_text

    limit = _limit(args.limit)
    what = args.list
    m = _LIST.fullmatch(what.lower()) if what else None
    if what and not m:
        raise UserError(f"--list {what!r}: choose errors, blunders, decisions, top or lastN (e.g. last50)")
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = store.select(flt)
    thresholds = thresholds_for(store)
    fig = summary_figures(sel, thresholds, flt.decision_type)
    attach_moves(fig["top"], store)
    listing, title = None, None
    if what:
        word = what.lower()
        if word == "top":
            listing = positions_object(fig["top"], len(fig["top"]), flt, {"top": TOP_N}, TOP_N)
            title = f"The {TOP_N} costliest"
        elif m.group(1):
            n = int(m.group(1))
            if n <= 0:
                raise UserError("--list lastN: N must be 1 or more")
            listing = _listing(store, sel, flt, thresholds, {"severity": "decisions", "last": n}, limit,
                               order="play")
            title = f"The last {n} decisions"
        else:
            listing = _listing(store, sel, flt, thresholds, {"severity": word}, limit)
            title = word.capitalize()
    obj = summary_object(fig, flt, args.metric, listing)
    ctx.print(to_json(obj) if args.format == "json" else summary_text(obj, title))
    return 0


# -- progression ------------------------------------------------------------------

def _progression_configure(p):
    add_filter_arguments(p)
    add_metric(p)
    add_format(p, ("text", "json", "csv"))


def _progression_run(args, ctx):
    from ..metrics.progression import progression_figures
    from ..db_settings import get_goal, main_player, thresholds_for
    from ..views.progression import progression_object, progression_output

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = store.select(flt)
    main = main_player(store)
    fig = progression_figures(sel, thresholds_for(store), flt.decision_type, args.metric,
                              store.canonical_name(main) if main else None, get_goal(store))
    ctx.print(progression_output(progression_object(fig, flt), args.format))
    return 0


# -- positions ------------------------------------------------------------------

def _positions_configure(p):
    add_filter_arguments(p)
    sev = p.add_mutually_exclusive_group()
    sev.add_argument("--errors", action="store_true", help="errors only (e ≥ the error threshold)")
    sev.add_argument("--blunders", action="store_true", help="blunders only (e ≥ the blunder threshold)")
    p.add_argument("--phase", metavar="PHASE", help="opening, middle game, race or bear-off")
    p.add_argument("--game-plan", metavar="PLAN", help="a game plan (e.g. \"holding game\", race, blitz)")
    p.add_argument("--theme", metavar="THEME", help="an error theme (e.g. \"too many blots\", \"missed double\")")
    p.add_argument("--tag", metavar="WORD", help="decisions whose comment holds #WORD")
    p.add_argument("--kind", choices=KINDS, help="one kind of decision")
    p.add_argument("--limit", default=str(DEFAULT_LIMIT), metavar="N",
                   help=f"at most N decisions, costliest first (default {DEFAULT_LIMIT}; 0 = all)")
    add_format(p, ("text", "json", "csv"))


def _positions_run(args, ctx):
    from ..db_settings import thresholds_for
    from ..views.positions import positions_output

    limit = _limit(args.limit)
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    sel = store.select(flt)
    criteria = {
        "severity": "errors" if args.errors else ("blunders" if args.blunders else "decisions"),
        "phase": args.phase, "game_plan": args.game_plan, "theme": args.theme,
        "tag": args.tag.lstrip("#") if args.tag else None, "kind": args.kind,
    }
    obj = _listing(store, sel, flt, thresholds_for(store), criteria, limit)
    ctx.print(positions_output(obj, args.format))
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("summary", "level, rolling PR and the costliest decisions of a selection",
                         _summary_run, _summary_configure))
    registry.add(Command("progression", "PR per tournament and per match, the goal and a trend",
                         _progression_run, _progression_configure))
    registry.add(Command("positions", "the decisions behind a count (drill-down)",
                         _positions_run, _positions_configure))
