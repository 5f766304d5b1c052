"""``gnubg-blunder quiz``: the quiz at the terminal (docs/quiz.md)."""

from __future__ import annotations

import dataclasses
import sys

from ..hookspecs import hookimpl
from ..commands import Command, Scope, UserError, add_filter_arguments, add_metric
from . import DEFAULT_COUNT
from ..text import safe_text
from ..lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_quiz_core = lazy("gnubg_blunder.quiz.core")

HELP = "the Decision exercise: your counted errors asked again, graded by the stored analysis (docs/quiz.md)"


def options(parser) -> None:
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, metavar="N",
                        help=f"how many questions (default {DEFAULT_COUNT}; 0 = every one)")
    parser.add_argument("--seed", type=int, default=None, metavar="N", help="the same random choice every time")
    parser.add_argument("--plan-top", type=int, default=0, metavar="N",
                        help="only the members of the study plan's first N families (docs/plan.md)")
    parser.add_argument("--all-decisions", action="store_true",
                        help="any counted decision, not only the errors")

    add_metric(parser, "with --plan-top: " + _metrics_study_cost.option_help())


def configure(parser) -> None:
    options(parser)
    add_filter_arguments(parser)


def questions(scope, args) -> list:
    """The quiz's questions for a command's scope and arguments.  Without
    --player: the main player's decisions when one is set."""
    flt = scope.filter
    if not flt.player:
        main = _db_settings.main_player(scope.store)
        if main:
            flt = dataclasses.replace(flt, player=main)
    if args.count is not None and args.count < 0:
        raise UserError("--count must be 0 (all) or more")
    if args.plan_top is not None and args.plan_top < 0:
        raise UserError("--plan-top must be 1 or more")
    # nothing to ask is a QuizError, the user's one line
    return _quiz_core.choose(scope.store, flt, scope.thresholds, count=args.count, seed=args.seed,
                  plan_top=args.plan_top, errors_only=not args.all_decisions,
                  metric=getattr(args, "metric", None)), flt


def _ask(ctx, prompt: str):
    ctx.out.write(prompt)
    ctx.out.flush()
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\r\n")


def run(args, ctx) -> int:
    if ctx.inside_gnubg:  # gnubg owns the terminal's input
        raise UserError('inside gnubg the quiz is bdb.quiz("OPTIONS"), answered with bdb.answer("13/7 8/7")')
    scope = Scope(args, ctx)
    items, flt = questions(scope, args)

    who = f"player {safe_text(flt.player)}" if flt.player else "both sides"
    return ask(ctx, scope.store, items, who)


def ask(ctx, store, items: list, who: str) -> int:
    """Ask ``items`` at the terminal, grade and record each answer."""
    ctx.print(f"Quiz: {len(items)} question{'s' if len(items) != 1 else ''} ({who}). "
              "Answer with a move (13/7 8/7, 8/5*/4, bar/22, 6/off) or a cube action "
              "(double, no double, take, pass); q quits.")
    session = _quiz_core.Session()
    for k, item in enumerate(items, 1):
        ctx.print("")
        ctx.print(_quiz_core.question_text(item, k, len(items)))
        while True:
            answer = _ask(ctx, "answer> ")
            if answer is None or answer.strip().lower() in _quiz_core.QUIT_WORDS:
                ctx.print(session.score_text())
                return 0
            g = _quiz_core.grade(item, answer)
            ctx.print(_quiz_core.feedback_text(item, g))
            if g.retry:
                continue
            session.add(g)
            _quiz_core.record(store, item, g)
            break
    ctx.print("")
    ctx.print(session.score_text())
    return 0


def command() -> Command:
    return Command("quiz", HELP, run, configure)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(command())
