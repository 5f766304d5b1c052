"""``errors``: where the errors come from, as text, JSON or CSV.

The figures come from ``metrics/errors.py: error_figures``; this module only
chooses which of them the metric shows and lays them out.  "—" means never
measured, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..hookspecs import hookimpl
from ..commands import Scope, UserError, View
from ..options import Option, param
from ..metrics.vocabulary import metric as metric_named
from ..formatting import DASH, Table, cube_action_text, folded, num, percent, safe_text, table, scope_text, table_html
from ..anki.command import changes_text, export_notes
from ..quiz.terminal import ask
from .collections import errors_listed_pairs, file_listed_errors, filed_text
from .svgcharts import bar_chart
from ..lazy import lazy

_metrics_errors = lazy("gnubg_blunder.metrics.errors")
_quiz_core = lazy("gnubg_blunder.quiz.core")
_units = lazy("gnubg_blunder.units")

# how this view reads each metric (the metric's own words: metrics/vocabulary.py)
METRIC_NOTES = {
    "pr": "",
    "mwc": " (cumulative, % points; match play only)",
    "mwc7": " (contribution to L7, % points; match play only; the parts add up to L7)",
}


def metric_title(metric: str) -> str:
    return metric_named(metric).label + METRIC_NOTES[metric]


def scope_line(f: dict) -> str:
    """The filter in words (every view names its scope)."""
    return "Scope: " + scope_text(f)


pct = percent  # a share as "12.5 %"


def ci_text(row: dict) -> str:
    """The 95 % interval, or why there is none ("—, 2 matches")."""
    if row.get("pr_ci"):
        lo, hi = row["pr_ci"]
        return f"[{lo:.2f}, {hi:.2f}]"
    note = row.get("ci_note") or "no interval"
    note = note.replace("no interval: ", "")
    return f"{DASH} ({note})"


def small_mark(row: dict) -> str:
    return "*" if row.get("small") and row.get("decisions") else ""


def errors_object(figures: dict, flt, metric: str, thresholds) -> dict:
    out = {
        "metric": metric,
        "thresholds": {"error": thresholds.error, "blunder": thresholds.blunder},
    }
    out.update(figures)
    out["filter"] = flt.to_json()
    return out


def _value(row: dict, metric: str) -> Optional[float]:
    return row["cost"] if metric == "pr" else (row["mwc_loss"] if metric == "mwc" else row["l7"])


def _share(row: dict, metric: str) -> Optional[float]:
    return row["share"] if metric == "pr" else row["mwc_share"]


def _value_header(metric: str) -> str:
    return {"pr": "cost (PR)", "mwc": "MWC lost %", "mwc7": "L7 part %"}[metric]


def _share_header(metric: str) -> str:
    return {"pr": "share of PR", "mwc": "share of MWC lost", "mwc7": "share of L7"}[metric]


def errors_text(obj: dict) -> str:
    metric = obj["metric"]
    t = obj["totals"]
    th = obj["thresholds"]
    err_mpt, bl_mpt = _units.mpt(th["error"]), _units.mpt(th["blunder"])
    lines = [scope_line(obj["filter"]), f"Metric: {metric_title(metric)}"]
    if not t["decisions"]:
        lines.append("No counted decisions in this selection.")
        return "\n".join(lines)
    head = (f"Counted decisions: {t['decisions']} (checker {t['checker_decisions']}, cube {t['cube_decisions']})   "
            f"errors (e ≥ {err_mpt:g} mpt): {t['errors']}   blunders (e ≥ {bl_mpt:g} mpt): {t['blunders']}")
    lines.append(head)
    if metric == "pr":
        lines.append(f"PR: {num(t['pr'])}")
    elif metric == "mwc":
        lines.append(f"MWC lost: {num(t['mwc_loss'])} % points" if t["mwc_loss"] is not None
                     else "MWC lost: — (money play has no MWC)")
    else:
        lines.append(f"L7: {num(t['l7'])} % points" if t["l7"] is not None
                     else "L7: — (money play has no MWC)")
    if metric != "pr" and t["money_decisions"]:
        lines.append(f"({t['money_decisions']} money decisions have no MWC: they count in no MWC figure)")

    # -- recurring errors
    lines += ["", "Recurring errors by game plan and theme (counted errors with a theme), costliest first"]
    if metric == "pr":
        lines.append(f"cost = 500 × Σe(group) / all {t['decisions']} counted decisions, so no group exceeds the PR")
    rows = [[r["game_plan"] or "unclassified", r["nature"], r["theme"], r["errors"],
             num(_value(r, metric)), pct(_share(r, metric))] for r in obj["recurring"]]
    headers = ["game plan", "nature", "theme", "errors", _value_header(metric), _share_header(metric)]
    if rows:
        lines.append(table(rows, headers, "lllrrr"))
    else:
        lines.append("(no counted error with a theme)")
    if obj["theme_not_determined"]:
        lines.append("Theme not determined (no rule names these errors confidently; not ranked):")
        rows = [[r["game_plan"] or "unclassified", r["nature"], "theme not determined", r["errors"],
                 num(_value(r, metric)), pct(_share(r, metric))] for r in obj["theme_not_determined"]]
        lines.append(table(rows, headers, "lllrrr"))
    if obj["errors_without_label"]:
        lines.append(f"({obj['errors_without_label']} counted errors have no labels: left out)")

    # -- cube actions
    lines += ["", "By cube action (the analysis' best action, not the one played; "
                  "a take or pass counts under the double it answers)"]
    if not t["cube_decisions"]:
        lines.append("(no counted cube decision)")
    else:
        rows = []
        for r in obj["cube_actions"]:
            if metric == "pr":
                fig = [num(r["pr"]), ci_text(r) if r["decisions"] else DASH]
            else:
                fig = [num(_value(r, metric)), pct(_share(r, metric))]
            rows.append([cube_action_text(r["action"]), f"{r['decisions']}{small_mark(r)}"] + fig
                        + [r["errors"], r["blunders"], pct(r["blunder_share"])])
        headers = ["action", "decisions"] + (["PR", "95% interval"] if metric == "pr"
                                             else [_value_header(metric), _share_header(metric)])
        headers += ["errors", "blunders", "blunder share"]
        lines.append(table(rows, headers, "lrrlrrr" if metric == "pr" else "lrrrrrr"))
        if obj["cube_actions_unclassified"]:
            lines.append(f"({obj['cube_actions_unclassified']} cube decisions without ND/DT/DP: left out)")

        # -- direction
        lines += ["", "Cube error direction (wrong decisions: e > 0; errors among them reach the error threshold)"]
        rows = [[r["side"], r["direction"], f"{r['decisions']} of {r['of']}", r["errors"],
                 num(_value(r, metric)) if r["of"] else DASH,
                 num(r["error_emg"], 3) if r["of"] else DASH] for r in obj["cube_direction"]]
        lines.append(table(rows, ["side", "direction", "decisions", "errors", _value_header(metric), "EMG lost"],
                           "llrrrr"))
        lines.append("(it counts decisions, it does not judge a tendency)")

    # -- checker vs cube
    lines += ["", "Checker vs cube"]
    rows = []
    for r in obj["checker_cube"]:
        if metric == "pr":
            fig = [num(r["pr"]), ci_text(r) if r["decisions"] else DASH]
        else:
            fig = [num(_value(r, metric)), pct(_share(r, metric))]
        rows.append([r["nature"], f"{r['decisions']}{small_mark(r)}"] + fig + [r["errors"], r["blunders"]])
    headers = ["", "decisions"] + (["PR", "95% interval"] if metric == "pr"
                                   else [_value_header(metric), _share_header(metric)]) + ["errors", "blunders"]
    lines.append(table(rows, headers, "lrrlrr" if metric == "pr" else "lrrrrr"))

    # -- histogram
    lines += ["", "Error sizes (every counted decision, zeros included; e rounded to the millipoint; "
                  "bands [low, high) mpt)"]
    rows = [[r["band"], r["decisions"], pct(r["decision_share"]), num(_value(r, metric)),
             pct(_share(r, metric))] for r in obj["histogram"]]
    lines.append(table(rows, ["mpt", "decisions", "of decisions", _value_header(metric), _share_header(metric)],
                       "lrrrr"))
    if any(small_mark(r) for r in obj["cube_actions"] + obj["checker_cube"]):
        lines += ["", "* fewer than 10 decisions: shown, but too few to read"]
    return "\n".join(lines)


CSV_HEADERS = ["section", "game_plan", "nature", "label", "decisions", "of", "errors", "blunders",
               "blunder_share", "error_emg", "pr", "pr_ci_low", "pr_ci_high", "cost", "share", "mwc_loss",
               "mwc_share", "l7"]


def _csv_row(section: str, r: dict, label: str, game_plan=None, nature=None) -> list:
    ci = r.get("pr_ci") or [None, None]
    return [section, game_plan, nature, label, r.get("decisions", r.get("errors")), r.get("of"), r["errors"],
            r["blunders"], r.get("blunder_share"), r["error_emg"], r.get("pr"), ci[0], ci[1], r["cost"],
            r["share"], r["mwc_loss"], r["mwc_share"], r["l7"]]


def errors_rows(obj: dict) -> list:
    """Every section as rows of one long table (the CSV)."""
    rows = []
    for section in ("recurring", "theme_not_determined"):
        for r in obj[section]:
            rows.append(_csv_row(section, r, r["theme"], r["game_plan"], r["nature"]))
    for r in obj["cube_actions"]:
        rows.append(_csv_row("cube_action", r, r["action"], nature="cube"))
    for r in obj["cube_direction"]:
        rows.append(_csv_row("cube_direction", r, r["direction"], nature="cube"))
    for r in obj["checker_cube"]:
        rows.append(_csv_row("checker_cube", r, r["nature"], nature=r["nature"]))
    for r in obj["histogram"]:
        rows.append(_csv_row("histogram", r, r["band"]))
    return rows


def errors_table(obj: dict) -> Table:
    return Table(CSV_HEADERS, errors_rows(obj))


RECURRING_SHOWN = 10  # the HTML's recurring errors shown unfolded


def errors_html(obj: dict) -> str:
    """The errors as HTML (``<section id="errors">``): recurring errors (cost
    in PR points), PR by cube action and the error sizes as a bar chart."""
    rec = [[r["game_plan"], r["nature"], r["theme"], r["errors"], f"{r['cost']:.2f}"]
           for r in obj["recurring"] + obj["theme_not_determined"]]
    cube = [[cube_action_text(r["action"]), r["decisions"], None if r["pr"] is None else f"{r['pr']:.2f}",
             None if r["blunder_share"] is None else percent(r["blunder_share"], 0)] for r in obj["cube_actions"]]
    hist = obj["histogram"]
    chart = bar_chart([r["band"] for r in hist], [r["decisions"] for r in hist],
                      title="Error sizes (mpt) over all counted decisions", value_format="{:.0f}",
                      label_title="error e (mpt)", value_title="decisions")
    html = ['<section id="errors"><h2>Errors</h2><h3>Recurring errors (cost in PR points)</h3>']
    heads = ["game plan", "nature", "theme", "errors", "cost"]
    if not rec:
        html.append('<p class="muted">No counted error with a game plan in this scope.</p>')
    else:  # the costliest rows shown, the rest folded below them
        html.append(table_html(rec[:RECURRING_SHOWN], heads, "lllrr"))
        if len(rec) > RECURRING_SHOWN:
            html.append(folded(f"{len(rec) - RECURRING_SHOWN} more recurring errors (click to unfold)",
                               table_html(rec[RECURRING_SHOWN:], heads, "lllrr")))
    html += ["<h3>PR by cube action (the analysis' best action)</h3>",
             table_html(cube, ["action", "decisions", "PR", "blunder share"], "lrrr"), chart, "</section>"]
    return "".join(html)


def compute(scope, params: ErrorsParams) -> dict:
    figures = _metrics_errors.error_figures(scope.selection, scope.thresholds, scope.filter.decision_type,
                                            metric=scope.metric)
    obj = errors_object(figures, scope.filter, scope.metric, scope.thresholds)
    if params.to_collection:  # the rows' action: file their positions (views/collections.py)

        obj["filed"] = file_listed_errors(scope, params.to_collection)
    if params.deck:  # the rows' action: an Anki deck of their decisions (docs/anki.md)
        obj["deck"] = _deck(scope, params.deck)
    return obj


def _listed_row_ids(scope) -> list:
    return [d for _p, d in errors_listed_pairs(scope)]


def _deck(scope, out: str) -> dict:
    """``errors --deck OUT.apkg``: anki/command.py's export over the
    decisions behind the rows (one note per decision key)."""
    if not out.endswith(".apkg"):
        raise UserError(f"{out}: give a file name ending in .apkg")
    if getattr(scope.store, "read_only", False):
        raise UserError(f"the database cannot record the notes exported: {scope.store.read_only_reason}")
    criteria = {"severity": "errors", "phase": None, "game_plan": None, "theme": None, "tag": None, "kind": None}
    made, at = export_notes(scope, out, criteria, row_ids=_listed_row_ids(scope))
    return {"out": out if made else None, "notes": len(made), "exported_at": at,
            "changes": changes_text(made) if made else None}


def _quiz(scope) -> int:
    """``errors --quiz``: the terminal quiz (quiz/terminal.py) over the
    decisions behind the rows."""
    # nothing to ask is a QuizError, the user's one line
    items = _quiz_core.choose(scope.store, scope.filter, scope.thresholds, count=_quiz_core.DEFAULT_COUNT,
                              row_ids=_listed_row_ids(scope))
    who = f"player {safe_text(scope.filter.player)}" if scope.filter.player else "both sides"
    return ask(scope.ctx, scope.store, items, who)


@dataclass
class ErrorsParams:
    """``errors``' own options: the actions on its recurring-error rows."""

    to_collection: Optional[str] = param(Option(
        ("--to-collection",), metavar="NAME",
        help="file the positions of the errors of the recurring-error rows into collection NAME "
             "(made when new; docs/collections.md)"))
    deck: Optional[str] = param(Option(
        ("--deck",), metavar="OUT.apkg",
        help="write the decisions behind the recurring-error rows as an Anki deck (docs/anki.md)"))
    quiz: bool = param(Option(
        ("--quiz",), action="store_true",
        help="after the table, the terminal quiz over the decisions behind those rows (docs/quiz.md)"), default=False)


def _text(obj: dict) -> str:
    text = errors_text(obj)
    if obj.get("filed"):
        text += "\n\n" + filed_text(obj["filed"])
    if obj.get("deck"):
        d = obj["deck"]
        wrote = (f"Wrote {d['notes']} note{'s' if d['notes'] != 1 else ''} (one per decision key of the errors of "
                 f"the rows above) to {safe_text(d['out'], None)}: {d['changes']}; import it in Anki (File > Import)")
        text += "\n\n" + (wrote if d["notes"] else "No decision behind the rows above: no deck written.")
    return text


class ErrorsView(View):
    """The view, then ``--quiz``: the quiz over the rows' decisions."""

    def run(self, args, ctx) -> int:
        if self.params_of(args).quiz and ctx.inside_gnubg:
            raise UserError('inside gnubg the quiz is bdb.quiz("OPTIONS"), answered with bdb.answer("13/7 8/7")')
        scope = Scope(args, ctx)
        obj = self.evaluate(scope)
        obj.setdefault("filter", scope.filter_json)
        ctx.print(self.render(obj, getattr(args, "format", "text")))
        if self.params_of(args).quiz:
            ctx.print("")
            return _quiz(scope)
        return 0


VIEW = ErrorsView("errors", "where the errors come from: recurring errors, cube actions and directions, checker vs "
            "cube, error sizes", compute, _text, table=errors_table, html=errors_html, params=ErrorsParams,
            metric=True)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
