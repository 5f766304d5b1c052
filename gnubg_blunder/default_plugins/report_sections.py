"""The built-in sections of the HTML report (views/report.py) and the
``report`` command.  Each section renders what a metrics function computed."""

from __future__ import annotations

from html import escape

from ..commands import Command, UserError
from ..hookspecs import hookimpl
from ..views.formatting import elo_text, num
from ..views.report import table_html


def _aggregate(ctx):
    from ..metrics.figures import aggregate

    return ctx.once("aggregate", lambda: aggregate(ctx.selection, ctx.thresholds, ctx.filter.decision_type))


def _figure(value: str, label: str) -> str:
    return f'<div class="figure"><div class="v">{escape(value)}</div><div class="k">{escape(label)}</div></div>'


def _ci(ci, digits=2) -> str:
    return "no interval" if not ci else f"95% {ci[0]:.{digits}f}–{ci[1]:.{digits}f}"


def headline_section(ctx) -> str:
    """The headline figures with their intervals."""
    from ..metrics.levels import level_band

    a = _aggregate(ctx)
    band = level_band(a["pr"])
    figs = [
        _figure(num(a["pr"]), f"PR ({_ci(a['pr_ci'])})"),
        _figure(num(a["checker_pr"]), "checker PR"),
        _figure(num(a["cube_pr"]), "cube PR"),
        _figure("—" if a["mwc_loss"] is None else f"{a['mwc_loss']:.2f}", "MWC lost, % points"),
        _figure("—" if a["l7"] is None else f"{a['l7']:.2f}", f"L7, % points ({_ci(a['l7_ci'])})"),
        _figure(elo_text(a["elo"], a["elo_bound"]), "Elo against the engine"),
        _figure(str(a["decisions"]), "decisions"),
        _figure(str(a["matches"]), "matches"),
        _figure(str(a["tournaments"]), "tournaments"),
        _figure(band or "—", "level (this project's bands)"),
    ]
    note = ('<p class="note">PR = 500 × error / decisions (XG\'s counting). Level bands are this project\'s '
            "reference, not a published norm. Money play has no MWC, L7 or Elo.</p>")
    return f'<section id="headline"><h2>Headline</h2><div class="headline">{"".join(figs)}</div>{note}</section>'


def matches_section(ctx) -> str:
    from ..views.matches import match_objects

    objs = ctx.once("matches", lambda: match_objects(ctx.selection, ctx.thresholds))
    rows, classes = [], []
    for m in objs:
        for k, s in enumerate(m["sides"]):
            rows.append([
                m["id"] if k == 0 else "", (m["date"] or "—") if k == 0 else "",
                ("money" if m["length"] == 0 else m["length"]) if k == 0 else "",
                s["player"], "won" if s["won"] else ("lost" if s["won"] is False else None),
                s["decisions"], num(s["pr"]) if s["pr"] is not None else None,
                num(s["mwc_loss"]) if s["mwc_loss"] is not None else None,
                num(s["l7"]) if s["l7"] is not None else None,
            ])
            classes.append(None)
    if not rows:
        return '<section id="matches"><h2>Matches</h2><p class="muted">No matches in this scope.</p></section>'
    return ('<section id="matches"><h2>Matches</h2>'
            + table_html(rows, ["match", "date", "length", "player", "result", "decisions", "PR", "MWC lost", "L7"],
                         "lllllrrrr", classes)
            + "</section>")


@hookimpl
def register_report_sections(register):
    register("headline", headline_section, 10)
    register("matches", matches_section, 90)


# -- the command ----------------------------------------------------------------

def _report_configure(p):
    from .core_commands import add_filter_arguments

    p.add_argument("--html", metavar="FILE", help="write the report to FILE")
    p.add_argument("--metric", choices=("pr", "mwc", "mwc7"), default="pr")
    p.add_argument("--title", metavar="TEXT")
    p.add_argument("--auto", metavar="FILE|off",
                   help="write the report to FILE after each newly stored match (off: stop)")
    add_filter_arguments(p)


def _report_run(args, ctx):
    from ..config import load_config, save_config
    from ..settings import thresholds_for
    from ..views.report import write_report
    from .core_commands import filter_from_args

    if args.auto:
        data = load_config()
        data["report"] = {"auto": None if args.auto.lower() == "off" else args.auto}
        save_config(data)
        ctx.print("automatic report off" if args.auto.lower() == "off" else
                  f"the report is written to {args.auto} after each newly stored match")
        if not args.html:
            return 0
    if not args.html:
        raise UserError("report needs --html FILE")
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    try:
        write_report(store, flt, thresholds_for(store), args.html, metric=args.metric, title=args.title)
    except OSError as exc:
        raise UserError(f"{args.html}: {exc.strerror or exc}") from None
    ctx.print(f"report written to {args.html}")
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("report", "a standalone HTML report (no scripts, inline SVG)", _report_run, _report_configure))


@hookimpl
def post_analysis(store, match, result, context):
    """The optional automatic report (``report --auto FILE``)."""
    from ..config import load_config, saved_filter
    from ..filters import Filter
    from ..settings import thresholds_for
    from ..views.report import write_report

    try:
        path = (load_config().get("report") or {}).get("auto")
    except ValueError:
        return
    if not path:
        return
    try:
        flt = Filter(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in saved_filter().items()})
        write_report(store, flt, thresholds_for(store), path)
        context.print(f"report updated: {path}")
    except Exception as exc:  # the match is stored; the report is a convenience
        context.error(f"report not written ({type(exc).__name__}: {exc})")
