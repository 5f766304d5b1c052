"""``progression`` (am I improving?) and ``goal suggest``, as text, JSON or
CSV.  Renders :func:`gnubg_blunder.metrics.progression.progression_figures`;
computes nothing."""

from __future__ import annotations
import datetime as dt
from html import escape

from ..hookspecs import hookimpl
from ..commands import View, filter_from_args
from ..metrics.vocabulary import metric as metric_named
from ..formatting import DASH, POOLED, Table, interval, num, safe_text, table, table_html
from .summary import band_text, scope_text
from ..metrics.levels import BANDS
from .svgcharts import line_chart
from ..lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_progression = lazy("gnubg_blunder.metrics.progression")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")



def progression_object(fig: dict, flt) -> dict:
    out = dict(fig)
    out["filter"] = flt.to_json()
    return out


def _goal_line(obj: dict) -> str:
    g = obj["goal"]
    if not g:
        return "Goal: none set (goal set \"PR < 5\" --weeks 12; goal suggest proposes one)."
    line = f"Goal: {metric_named(g['metric']).short} {g['op']} {g['target']:g} by {g['deadline']} (set on {g['set_on']})."
    if not g["comparable"]:
        line += f" It is in {g['metric'].upper()}: run with --metric {g['metric']} to compare."
    return line


def _now_line(obj: dict) -> str:
    cur = obj["current"]
    m = metric_named(obj["metric"])
    key = m.figure
    who = safe_text(obj["perspective"]) if obj["perspective"] else "both sides pooled"
    if not cur["decisions"]:
        return f"Now ({who}): no counted decisions."
    text = (f"Now ({who}): {m.label} {num(cur[key])}{m.unit} over "
            f"{cur['decisions']} decisions in {cur['matches']} matches; level {band_text(cur['level_band'])}")
    g = obj["goal"]
    if g and g["comparable"] and g["now_meets"] is not None:
        text += f"; goal {'met' if g['now_meets'] else 'not met'} today"
    return text + "."


def _trend_lines(obj: dict) -> list:
    t = obj["trend"]
    unit = metric_named(obj["metric"]).unit
    name = metric_named(obj["metric"]).label
    if t["refused"]:
        return [t["refused"], _metrics_progression.TREND_NOTE]
    text = (f"Trend ({name}, least squares over {t['points']} dated matches, {t['from']} to {t['to']}): "
            f"{t['slope_per_30_days']:+.2f}{unit} per 30 days, from {num(t['value_at_first'])} to "
            f"{num(t['value_at_last'])} on the line")
    if t["at_deadline"] is not None:
        text += f"; projected to the deadline {t['deadline']}: {num(t['at_deadline'])}{unit}"
        if t["meets_goal"] is not None:
            text += f" (the goal would {'be' if t['meets_goal'] else 'not be'} met on this line)"
    return [text + ".", _metrics_progression.TREND_NOTE]


def progression_text(obj: dict) -> str:
    metric = obj["metric"]
    key = metric_named(metric).figure
    name = metric_named(metric).label
    whose = safe_text(obj["perspective"]) if obj["perspective"] else "both sides pooled"
    lines = [f"Progression — scope: {scope_text(obj['filter'], ('player',), 'every stored match')}; "
             f"figures of {whose}; metric {name}",
             _goal_line(obj), _now_line(obj), ""]
    if obj["tournaments"]:
        lines.append("By tournament (date = its earliest match; the figure of one player per tournament):")
        rows = []
        for t in obj["tournaments"]:
            ci = interval(t["pr_ci"]) if t["pr_ci"] else f"({t['ci_note']})" if t["ci_note"] else DASH
            rows.append([t["date"] or DASH, t["event"], t["player"], t["matches"],
                         f"{t['decisions']}{'†' if t['small'] else ''}", num(t[key]),
                         ci if metric == "pr" else ""])
        headers = ["date", "tournament", "player", "matches", "decisions", name, "95% (PR)" if metric == "pr" else ""]
        lines.append(table(rows, headers, "lllrrrl"))
        if any(t["small"] for t in obj["tournaments"]):
            lines.append("† under 10 decisions: a rough figure.")
    else:
        lines.append("By tournament: no match of this scope names an event.")
    lines.append("")
    who = safe_text(obj["perspective"]) if obj["perspective"] else None
    lines.append(f"By match ({who + ' only' if who else 'both sides pooled; --player NAME for one player'}):")
    if obj["matches"]:
        rows = []
        for m in obj["matches"]:
            other = m["opponent"] if who else " v ".join(safe_text(p) for p in m["players"])
            rows.append([m["date"], m["match_id"], m["event"] or DASH,
                         "money" if m["length"] == 0 else m["length"], other, m["decisions"], num(m[key])])
        lines.append(table(rows, ["date", "match", "event", "length", "opponent" if who else "players",
                                  "decisions", name], "lrlllrr"))
    else:
        lines.append("  no dated match.")
    if obj["undated_matches"]:
        ids = ", ".join(str(i) for i in obj["undated_match_ids"])
        lines.append(f"{obj['undated_matches']} undated match{'es' if obj['undated_matches'] != 1 else ''} "
                     f"left out (match {ids}).")
    if who and obj["matches_without_player"]:
        n = len(obj["matches_without_player"])
        lines.append(f"{n} match{'es' if n != 1 else ''} without {who} left out.")
    if metric != "pr":
        lines.append("(money matches have no MWC: — )")
    lines.append("")
    lines += _trend_lines(obj)
    return "\n".join(lines)


CSV_HEADERS = ["row", "date", "tournament", "match_id", "player", "opponent", "matches", "decisions", "pr",
               "pr_low", "pr_high", "checker_pr", "cube_pr", "mwc_loss", "l7"]


def progression_table(obj: dict) -> Table:
    """One table: tournament rows then match rows (column ``row``)."""
    rows = []
    for t in obj["tournaments"]:
        ci = t["pr_ci"] or [None, None]
        rows.append(["tournament", t["date"], t["event"], None, t["player"], None, t["matches"], t["decisions"],
                     t["pr"], ci[0], ci[1], t["checker_pr"], t["cube_pr"], t["mwc_loss"], t["l7"]])
    for m in obj["matches"]:
        rows.append(["match", m["date"], m["event"], m["match_id"], m["player"], m["opponent"], 1, m["decisions"],
                     m["pr"], None, None, m["checker_pr"], m["cube_pr"], m["mwc_loss"], m["l7"]])
    return Table(CSV_HEADERS, rows)


def chart_title(obj: dict) -> str:
    """The progression chart's title: whose per-match figure it draws (the
    perspective: the filter's player, else the main player, else both
    sides pooled, as the text's first line says)."""
    return f"{metric_named(obj['metric']).short} per match of {obj['perspective'] or POOLED} (point size: decisions)"


def progression_html(obj: dict) -> str:
    """The progression as HTML (``<section id="progression">``): the
    perspective's figure (the object's metric) per dated match as an inline
    SVG chart with the trend, the goal and, for PR, the level bands; the
    tournaments table."""
    m = metric_named(obj["metric"])
    key = m.figure
    pts = []
    for r in obj["matches"]:
        if r[key] is not None and r["date"]:
            pts.append((dt.date.fromisoformat(r["date"]).toordinal(), r[key], r["decisions"], r["date"]))
    trend = obj["trend"]
    tline = None
    if not trend.get("refused") and trend.get("from") and trend.get("to"):
        a, b = dt.date.fromisoformat(trend["from"]).toordinal(), dt.date.fromisoformat(trend["to"]).toordinal()
        tline = [(a, trend["value_at_first"]), (b, trend["value_at_last"])]
    goal = obj["goal"]
    chart = line_chart(pts, title=chart_title(obj), y_label=m.short, trend=tline,
                       goal=goal["target"] if goal and goal.get("comparable") else None,
                       bands=BANDS if key == "pr" else None)  # the level bands are bands of PR
    trows = [[t["event"], t["date"], t["player"], t["matches"], t["decisions"],
              None if t[key] is None else f"{t[key]:.2f}"] for t in obj["tournaments"]]
    html = ['<section id="progression"><h2>Progression</h2>', chart,
            f'<p class="note">{escape(obj["trend_note"])} '
            + (escape("Trend refused: " + str(trend.get("refused"))) if trend.get("refused") else "")
            + (f' {obj["undated_matches"]} undated match(es) left out.' if obj["undated_matches"] else "")
            + "</p>"]
    if trows:
        html += ["<h3>Tournaments</h3>",
                 table_html(trows, ["tournament", "date", "player", "matches", "decisions", m.short], "lllrrr")]
    html.append("</section>")
    return "".join(html)


def compute(scope) -> dict:
    main = _db_settings.main_player(scope.store)
    fig = _metrics_progression.progression_figures(scope.selection, scope.thresholds, scope.filter.decision_type,
                                                   scope.metric, scope.store.canonical_name(main) if main else None,
                                                   _db_settings.get_goal(scope.store))
    return progression_object(fig, scope.filter)


VIEW = View("progression", "PR per tournament and per match, the goal and a trend", compute, progression_text,
            table=progression_table, html=progression_html, metric=True)


# -- goal suggest ------------------------------------------------------------------

def suggestion_text(s: dict) -> str:
    """The sentence of ``goal suggest`` from ``goal_suggestion_figures``."""
    who = safe_text(s["player"]) if s["player"] else "both sides pooled (no --player and no main player)"
    if not s["decisions"]:
        return f"{who}: no counted decisions in this selection: nothing to suggest."
    head = f"{who}: PR {num(s['pr'])} over {s['decisions']} decisions is {band_text(s['level_band'])}"
    if s["target"] is None:
        return (head + ": the first band has no band above it, so the bands suggest no goal "
                f"({_metrics_summary.BANDS_NOTE}).")
    return (head + f". Suggested goal: PR < {s['target']:g}, the lower bound of {s['level_band']['name']} "
            f"({_metrics_summary.BANDS_NOTE}). Set it with: goal set \"PR < {s['target']:g}\" --weeks 12")


def goal_suggestion(store, args, ctx) -> str:
    """``goal suggest [filter]``: the lower bound of the current band of the
    player's PR (the filter's player, else the main player)."""
    flt = filter_from_args(args, ctx)
    sel = store.select(flt)
    main = _db_settings.main_player(store)
    perspective = sel.player_filter or (store.canonical_name(main) if main else None)
    s = _metrics_progression.goal_suggestion_figures(sel, _db_settings.thresholds_for(store), flt.decision_type, perspective)
    return suggestion_text(s)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
