"""``errors`` and ``breakdowns``: where the errors come from, and the PR split
by phase, game plan, #tag and score (SPEC §14).  The same words work in the
CLI and inside gnubg as ``>bdb("errors --player NAME")``."""

from __future__ import annotations

from ..commands import Command
from ..hookspecs import hookimpl
from ..db_settings import thresholds_for
from .core_commands import add_filter_arguments, add_format, filter_from_args

BREAKDOWN_CHOICES = {"phase": ("phase",), "game-plan": ("game_plan",), "tag": ("tag",), "score": ("score",),
                     "all": ("phase", "game_plan", "tag", "score")}


def add_metric(parser):
    parser.add_argument("--metric", choices=("pr", "mwc", "mwc7"), default="pr",
                        help="PR (default), MWC lost (cumulative, %% points) or MWC-7 (L7)")


# -- errors ------------------------------------------------------------------

def _errors_configure(p):
    add_filter_arguments(p)
    add_format(p, ("text", "json", "csv"))
    add_metric(p)


def _errors_run(args, ctx):
    from ..metrics.errors import error_figures
    from ..views.errors import errors_object, errors_output

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    thresholds = thresholds_for(store)
    sel = store.select(flt)
    figures = error_figures(sel, thresholds, flt.decision_type, metric=args.metric)
    ctx.print(errors_output(errors_object(figures, flt, args.metric, thresholds), args.format))
    return 0


# -- breakdowns --------------------------------------------------------------

def _breakdowns_configure(p):
    add_filter_arguments(p)
    add_format(p, ("text", "json", "csv"))
    add_metric(p)
    p.add_argument("--by", choices=tuple(BREAKDOWN_CHOICES), default="all",
                   help="one breakdown (default: all four)")


def _breakdowns_run(args, ctx):
    from ..metrics.breakdowns import breakdowns
    from ..views.breakdowns import breakdowns_object, breakdowns_output

    store = ctx.store()
    flt = filter_from_args(args, ctx)
    axes = BREAKDOWN_CHOICES[args.by]
    sel = store.select(flt)
    figures = breakdowns(sel, thresholds_for(store), flt.decision_type, axes)
    ctx.print(breakdowns_output(breakdowns_object(figures, flt, args.metric, axes), args.format))
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("errors", "where the errors come from: recurring errors, cube actions and "
                         "directions, checker vs cube, error sizes", _errors_run, _errors_configure))
    registry.add(Command("breakdowns", "PR by phase, game plan, #tag and score, with intervals",
                         _breakdowns_run, _breakdowns_configure))
