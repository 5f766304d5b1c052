"""``breakdowns``: PR by phase, game plan, #tag and score, as text, JSON or CSV.

The rows come from ``metrics/breakdowns.py``; this module lays them out.
Rows under 10 decisions are marked, never hidden; a row without an
interval says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hookspecs import hookimpl
from ..commands import View
from ..options import Option, param
from ..metrics.vocabulary import metric as metric_named
from .errors import ci_text, scope_line, small_mark
from ..formatting import DASH, Table, num, table, table_html
from ..lazy import lazy

_metrics_breakdowns = lazy("gnubg_blunder.metrics.breakdowns")

TITLES = {
    "phase": "By phase",
    "game_plan": "By game plan",
    "tag": "By #tag in comments",
    "score": "By score (away/away from the decider's side)",
}

# how this view reads each metric (the metric's own words: metrics/vocabulary.py)
METRIC_NOTES = {
    "pr": ", with its 95 % interval (matches resampled)",
    "mwc": " (cumulative, % points; match play only; intervals are given for PR only)",
    "mwc7": ": a breakdown row has no 7-point equivalent, so MWC lost is shown (cumulative, % points); "
            "intervals are given for PR only",
}


def breakdowns_object(figures: dict, flt, metric: str, axes: tuple) -> dict:
    out = {"metric": metric, "by": list(axes)}
    out.update(figures)
    out["filter"] = flt.to_json()
    return out


def _rows(obj: dict, axis: str) -> list:
    metric = obj["metric"]
    out = []
    for r in obj[axis]:
        if metric == "pr":
            fig = [num(r["pr"]), ci_text(r) if r["decisions"] else DASH]
        else:
            fig = [num(r["mwc_loss"])]
        label = r["label"]
        if axis == "score" and r.get("crawford_decisions"):
            label += f" (Crawford game: {r['crawford_decisions']})"
        out.append([label, r["positions"], f"{r['decisions']}{small_mark(r)}", r["blunders"]] + fig)
    return out


def breakdowns_text(obj: dict) -> str:
    metric = obj["metric"]
    lines = [scope_line(obj["filter"]), f"Metric: {metric_named(metric).label}{METRIC_NOTES[metric]}",
             f"Counted decisions: {obj['decisions']}"]
    if not obj["decisions"]:
        lines.append("No counted decisions in this selection.")
        return "\n".join(lines)
    fig_headers = ["PR", "95% interval"] if metric == "pr" else ["MWC lost %"]
    align = "lrrrrl" if metric == "pr" else "lrrrr"
    small = False
    for axis in ("phase", "game_plan", "tag", "score"):
        if axis not in obj:
            continue
        lines += ["", TITLES[axis]]
        rows = _rows(obj, axis)
        small = small or any(small_mark(r) for r in obj[axis])
        if rows:
            lines.append(table(rows, ["", "positions", "decisions", "blunders"] + fig_headers, align))
            if metric != "pr" and any(r["mwc_loss"] is None for r in obj[axis]):
                lines.append("(— in MWC lost: money play only, which has no MWC)")
        else:
            lines.append("(no tagged decision)" if axis == "tag" else "(no decisions)")
        if axis == "tag" and rows:
            lines.append(f"Rows do not add up: a decision may carry several tags "
                         f"({obj['tagged_decisions']} of {obj['decisions']} decisions carry at least one).")
        if axis == "score":
            lines.append("Post-Crawford scores read as 1-away: the Crawford game and the games after it "
                         "share a cell.")
            if obj.get("unknown_score"):
                lines.append(f"({obj['unknown_score']} decisions with an unknown score: left out)")
    lines += ["", "positions: distinct positions; blunders: distinct positions with at least one blunder; "
                  "decisions count each time a position was played."]
    if small:
        lines.append("* fewer than 10 decisions: shown, but too few to read")
    return "\n".join(lines)


CSV_HEADERS = ["breakdown", "label", "positions", "decisions", "blunders", "errors", "pr", "pr_ci_low",
               "pr_ci_high", "ci_note", "small", "matches", "mwc_loss", "crawford_decisions"]


def breakdowns_rows(obj: dict) -> list:
    rows = []
    for axis in ("phase", "game_plan", "tag", "score"):
        for r in obj.get(axis, []):
            ci = r["pr_ci"] or [None, None]
            rows.append([axis, r["label"], r["positions"], r["decisions"], r["blunders"], r["errors"], r["pr"],
                         ci[0], ci[1], r["ci_note"], r["small"], r["matches"], r["mwc_loss"],
                         r.get("crawford_decisions")])
    return rows


def breakdowns_table(obj: dict) -> Table:
    return Table(CSV_HEADERS, breakdowns_rows(obj))


HTML_TITLES = {"phase": "By phase", "game_plan": "By game plan", "tag": "By #tag in comments", "score": "By score"}


def breakdowns_html(obj: dict) -> str:
    """The breakdowns as HTML (``<section id="breakdowns">``): one table per
    breakdown of the object, rows under 10 decisions grey, the PR interval
    or why there is none."""
    html = ['<section id="breakdowns"><h2>Breakdowns</h2>']
    for axis, title in HTML_TITLES.items():
        if axis not in obj:
            continue
        rows, classes = [], []
        for r in obj[axis]:
            ci = r["pr_ci"]
            rows.append([r["label"], r["positions"], r["decisions"], r["blunders"],
                         None if r["pr"] is None else f"{r['pr']:.2f}",
                         f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else (r.get("ci_note") or DASH)])
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


BREAKDOWN_CHOICES = {"phase": ("phase",), "game-plan": ("game_plan",), "tag": ("tag",), "score": ("score",),
                     "all": ("phase", "game_plan", "tag", "score")}


@dataclass
class BreakdownsParams:
    """``breakdowns``' own option."""

    by: str = param(Option(("--by",), choices=tuple(BREAKDOWN_CHOICES), help="one breakdown (default: all four)"),
                    default="all")


def compute(scope, params: BreakdownsParams) -> dict:
    axes = BREAKDOWN_CHOICES[params.by]
    figures = _metrics_breakdowns.breakdowns(scope.selection, scope.thresholds, scope.filter.decision_type, axes)
    return breakdowns_object(figures, scope.filter, scope.metric, axes)


VIEW = View("breakdowns", "PR by phase, game plan, #tag and score, with intervals", compute, breakdowns_text,
            table=breakdowns_table, html=breakdowns_html, params=BreakdownsParams, metric=True)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
