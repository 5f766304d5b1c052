"""The built-in sections of the HTML report (views/report.py) and the
``report`` command.  Each section renders what a metrics function computed."""

from __future__ import annotations

from html import escape

import numpy as np

from ..commands import Command, UserError
from ..hookspecs import hookimpl
from ..views.formatting import elo_text, num
from ..views.report import table_html


MATCHES_SHOWN = 300  # the report lists the most recent matches; the CLI lists them all


def _aggregate(ctx):
    from ..metrics.figures import aggregate

    return ctx.once("aggregate", lambda: aggregate(ctx.selection, ctx.thresholds, ctx.filter.decision_type))


def _figure(value: str, label: str) -> str:
    return f'<div class="figure"><div class="v">{escape(value)}</div><div class="k">{escape(label)}</div></div>'


def _linked_figure(value: str, label: str, anchor: str) -> str:
    """A count that links to the list of its decisions further down the page."""
    return (f'<div class="figure"><div class="v"><a href="{anchor}">{escape(value)}</a></div>'
            f'<div class="k">{escape(label)} (list below)</div></div>')


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
        _linked_figure(str(a["errors"]), "errors", "#list-errors"),
        _linked_figure(str(a["blunders"]), "blunders", "#list-blunders"),
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
    left_out = max(0, len(objs) - MATCHES_SHOWN)
    objs = objs[-MATCHES_SHOWN:]  # the most recent ones (matches come in date order)
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
    note = (f'<p class="note">The {MATCHES_SHOWN} most recent matches of the scope; {left_out} earlier ones '
            "are left out here (`gnubg-blunder matches` lists them all).</p>" if left_out else "")
    return ('<section id="matches"><h2>Matches</h2>' + note
            + table_html(rows, ["match", "date", "length", "player", "result", "decisions", "PR", "MWC lost", "L7"],
                         "lllllrrrr", classes)
            + "</section>")


def _summary(ctx):
    from ..metrics.summary import summary_figures

    return ctx.once("summary", lambda: summary_figures(ctx.selection, ctx.thresholds, ctx.filter.decision_type))


def _decision_diagram(ctx, record, row) -> str:
    """The board of a costly decision, the played checker move drawn as
    arrows (from the analysis' candidate list), the cube and dice shown."""
    import json

    from ..board.moves import legal_plays
    from ..board.position import Board
    from ..board.svg import board_svg

    if not record.get("position_id"):
        return ""
    board = Board.from_position_id(record["position_id"])
    dice = (row.get("dice1"), row.get("dice2")) if row.get("dice1") else None
    steps = None
    if row.get("kind") == "checker" and dice and row.get("candidates") and row.get("played_index") is not None:
        played = json.loads(row["candidates"])[row["played_index"]].get("position_id")
        for play in legal_plays(board, *dice):
            if play.result.position_id() == played:
                steps = play.steps
                break
    owner = row.get("cube_owner", -1)
    decider = 0 if owner == row.get("player") else (1 if owner in (0, 1) else -1)
    p = row.get("player") or 0
    names = (record["players"][p], record["players"][1 - p]) if record.get("players") else None
    return board_svg(board, cube_value=row.get("cube_value") or 1, cube_owner=decider, dice=dice,
                     move_steps=steps, width=420, player_names=names,
                     title=f"Match {record['match_id']}, game {record['game']}, move {record['move']}")


def summary_section(ctx) -> str:
    """Rolling PR and the ten costliest decisions, each with its board."""
    fig = _summary(ctx)
    rows = [[r["n"], r["decisions"], None if r["pr"] is None else f"{r['pr']:.2f}",
             "exceeds the decisions there are" if r["exceeds"] else ""] for r in fig["rolling"]]
    classes = ["grey" if r["exceeds"] else None for r in fig["rolling"]]
    html = ['<section id="summary"><h2>Summary</h2><h3>PR over the last N decisions</h3>',
            table_html(rows, ["last N", "decisions", "PR", ""], "rrrl", classes),
            f'<h3 id="costliest">The {len(fig["top"])} costliest decisions</h3>']
    if not fig["top"]:
        html.append('<p class="muted">No decision with an error in this scope.</p>')
    details = {r["id"]: r for r in ctx.store.decision_rows([t["row_id"] for t in fig["top"]])}
    for t in fig["top"]:
        row = details.get(t["row_id"], {})
        facts = (
            f'<div class="facts"><b>#{t["rank"]}</b> — {escape(t["player"])}, '
            f'{escape(t["kind"])}<br>cost {t["error_mpt"]:.1f} mpt'
            + ("" if t["mwc_loss"] is None else f", {t['mwc_loss']:.2f} % MWC")
            + f'<br>played: {escape(str(row.get("played_move") or "—"))}<br>'
            f'best: {escape(str(row.get("best_move") or "—"))}<br>'
            f'match {t["match_id"]} ({escape(" v ".join(t["players"]))}, {escape(t["date"] or "undated")}), '
            f'game {t["game"]}, move {t["move"]}<br><span class="muted">{escape(t["position_id"] or "")}</span>'
            + (f'<br><i>{escape(row["comment"])}</i>' if row.get("comment") else "")
            + "</div>"
        )
        html.append(f'<div class="decision">{_decision_diagram(ctx, t, row)}{facts}</div>')
    html.append("</section>")
    return "".join(html)


def progression_section(ctx) -> str:
    from ..metrics.progression import progression_figures
    from ..db_settings import get_goal, main_player
    from ..metrics.levels import BANDS
    from ..views.svgcharts import line_chart
    import datetime as dt

    fig = ctx.once("progression", lambda: progression_figures(
        ctx.selection, ctx.thresholds, ctx.filter.decision_type, "pr", main_player(ctx.store), get_goal(ctx.store)))
    pts = []
    for r in fig["matches"]:
        if r["pr"] is not None and r["date"]:
            day = dt.date.fromisoformat(r["date"]).toordinal()
            pts.append((day, r["pr"], r["decisions"], r["date"]))
    trend = fig["trend"]
    tline = None
    if not trend.get("refused") and trend.get("from") and trend.get("to"):
        a, b = dt.date.fromisoformat(trend["from"]).toordinal(), dt.date.fromisoformat(trend["to"]).toordinal()
        tline = [(a, trend["value_at_first"]), (b, trend["value_at_last"])]
    goal = fig["goal"]
    chart = line_chart(pts, title="PR per match (point size: decisions)", y_label="PR", trend=tline,
                       goal=goal["target"] if goal and goal.get("comparable") else None, bands=BANDS)
    trows = [[t["event"], t["date"], t["player"], t["matches"], t["decisions"],
              None if t["pr"] is None else f"{t['pr']:.2f}"] for t in fig["tournaments"]]
    html = ['<section id="progression"><h2>Progression</h2>', chart,
            f'<p class="note">{escape(fig["trend_note"])} '
            + (escape("Trend refused: " + str(trend.get("refused"))) if trend.get("refused") else "")
            + (f' {fig["undated_matches"]} undated match(es) left out.' if fig["undated_matches"] else "")
            + "</p>"]
    if trows:
        html += ["<h3>Tournaments</h3>",
                 table_html(trows, ["tournament", "date", "player", "matches", "decisions", "PR"], "lllrrr")]
    html.append("</section>")
    return "".join(html)


def errors_section(ctx) -> str:
    from ..metrics.errors import error_figures
    from ..views.svgcharts import bar_chart

    fig = ctx.once("errors", lambda: error_figures(ctx.selection, ctx.thresholds, ctx.filter.decision_type))
    rec = [[r["game_plan"], r["nature"], r["theme"], r["errors"], f"{r['cost']:.2f}"]
           for r in fig["recurring"] + fig["theme_not_determined"]]
    cube = [[r["action"], r["decisions"], None if r["pr"] is None else f"{r['pr']:.2f}",
             None if r["blunder_share"] is None else f"{100 * r['blunder_share']:.0f} %"] for r in fig["cube_actions"]]
    hist = fig["histogram"]
    chart = bar_chart([r["band"] for r in hist], [r["decisions"] for r in hist],
                      title="Error sizes (mpt) over all counted decisions", value_format="{:.0f}")
    html = ['<section id="errors"><h2>Errors</h2><h3>Recurring errors (cost in PR points)</h3>']
    html.append(table_html(rec, ["game plan", "nature", "theme", "errors", "cost"], "lllrr") if rec
                else '<p class="muted">No counted error with a game plan in this scope.</p>')
    html += ["<h3>PR by cube action (the analysis' best action)</h3>",
             table_html(cube, ["action", "decisions", "PR", "blunder share"], "lrrr"), chart, "</section>"]
    return "".join(html)


def breakdowns_section(ctx) -> str:
    from ..metrics.breakdowns import breakdowns

    fig = ctx.once("breakdowns", lambda: breakdowns(ctx.selection, ctx.thresholds, ctx.filter.decision_type))
    html = ['<section id="breakdowns"><h2>Breakdowns</h2>']
    for axis, title in (("phase", "By phase"), ("game_plan", "By game plan"), ("tag", "By #tag in comments"),
                        ("score", "By score")):
        rows, classes = [], []
        for r in fig.get(axis) or []:
            ci = r["pr_ci"]
            rows.append([r["label"], r["positions"], r["decisions"], r["blunders"],
                         None if r["pr"] is None else f"{r['pr']:.2f}",
                         f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else (r.get("ci_note") or "—")])
            classes.append("grey" if r["small"] else None)
        html.append(f"<h3>{title}</h3>")
        if not rows:
            html.append('<p class="muted">No decisions.</p>')
            continue
        html.append(table_html(rows, ["", "positions", "decisions", "blunders", "PR", "95% interval"], "lrrrrl",
                               classes))
        if axis == "tag":
            html.append('<p class="note">A decision can carry several tags: these rows do not add up.</p>')
    html.append('<p class="note">Grey rows: fewer than 10 decisions. Intervals by matches; none under 3 '
                "matches or without spread.</p></section>")
    return "".join(html)


def players_section(ctx) -> str:
    """One row per player of the scope's matches (the filter's player is
    highlighted, not the only row)."""
    import dataclasses

    from ..metrics.players import player_key, player_rows

    everyone = ctx.store.select(dataclasses.replace(ctx.filter, player=None))
    rows = ctx.once("players", lambda: player_rows(everyone, ctx.thresholds))
    rows = sorted(rows, key=lambda r: (-r["decisions"], r["player"].lower()))
    me = player_key(ctx.filter.player, ctx.store.aliases()) if ctx.filter.player else None
    table, classes = [], []
    for r in rows:
        table.append([r["player"], r["matches"], f"{r['wins']}–{r['losses']}", r["decisions"],
                      None if r["pr"] is None else f"{r['pr']:.2f}",
                      None if r["checker_pr"] is None else f"{r['checker_pr']:.2f}",
                      None if r["cube_pr"] is None else f"{r['cube_pr']:.2f}",
                      None if r["snowie_er"] is None else f"{r['snowie_er']:.2f}", r["blunders"],
                      None if r["luck_per_roll"] is None else f"{r['luck_per_roll']:+.1f}",
                      None if r["l7"] is None else f"{r['l7']:.2f}"])
        classes.append("highlight" if me is not None and r.get("key") == me else None)
    if not table:
        return '<section id="players"><h2>Players</h2><p class="muted">No players in this scope.</p></section>'
    return ('<section id="players"><h2>Players</h2>'
            + table_html(table, ["player", "matches", "W–L", "decisions", "PR", "checker PR", "cube PR", "Snowie ER",
                                 "blunders", "luck/roll (mpt)", "L7"], "lrrrrrrrrrr", classes)
            + '<p class="note">Each row is the Σ/Σ of that player\'s match sides. Luck per roll is not skill.</p>'
            "</section>")


LIST_ROWS = 300  # a list in the report shows the costliest; the CLI's `positions` shows them all


def lists_section(ctx) -> str:
    """The decisions behind the headline counts (errors, blunders), costliest
    first, so that every count of the page can be checked in the page."""
    from ..metrics.summary import cost_order, decision_records, pick
    from ..views.positions import attach_moves

    html = ['<section id="lists"><h2>The decisions behind the counts</h2>']
    for severity in ("errors", "blunders"):
        mask = pick(ctx.selection, ctx.thresholds, ctx.filter.decision_type, severity=severity)
        idx = cost_order(ctx.selection, np.nonzero(mask)[0])
        shown = idx[:LIST_ROWS]
        records = attach_moves(decision_records(ctx.selection, shown, ctx.thresholds), ctx.store)
        rows = [[r["match_id"], r["date"], r["game"], r["move"], r["player"], r["kind"], r.get("played"),
                 r.get("best"), None if r["error_mpt"] is None else f"{r['error_mpt']:.1f}", r["position_id"]]
                for r in records]
        html.append(f'<h3 id="list-{severity}">{severity.capitalize()}: {int(mask.sum())}</h3>')
        if len(idx) > LIST_ROWS:
            html.append(f'<p class="note">The {LIST_ROWS} costliest of {len(idx)}; '
                        f"`gnubg-blunder positions --{severity}` lists them all.</p>")
        html.append(table_html(rows, ["match", "date", "game", "move", "player", "kind", "played", "best",
                                      "e (mpt)", "position"], "lllllllrrl") if rows
                    else '<p class="muted">None.</p>')
    html.append("</section>")
    return "".join(html)


@hookimpl
def register_report_sections(register):
    register("headline", headline_section, 10)
    register("summary", summary_section, 20)
    register("progression", progression_section, 30)
    register("errors", errors_section, 40)
    register("breakdowns", breakdowns_section, 50)
    register("players", players_section, 60)
    register("matches", matches_section, 90)
    register("lists", lists_section, 95)


# -- the command ----------------------------------------------------------------

def _report_configure(p):
    from ..commands import add_filter_arguments, add_metric

    p.add_argument("--html", metavar="FILE", help="write the report to FILE")
    add_metric(p)
    p.add_argument("--title", metavar="TEXT")
    p.add_argument("--auto", metavar="FILE|off",
                   help="write the report to FILE after each newly stored match (off: stop)")
    add_filter_arguments(p)


def _report_run(args, ctx):
    from ..user_config import load_config, save_config
    from ..db_settings import thresholds_for
    from ..views.report import write_report
    from ..commands import filter_from_args

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
    from ..user_config import load_config, saved_filter
    from ..filters import Filter
    from ..db_settings import thresholds_for
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
