"""``training`` (SPEC §14 Training: quiz PR, match PR and Anki retention per
week or month; quiz PR by game plan) and ``list --type study`` (Study vs
play: per game plan, positions reviewed, PR before, PR since), as text,
JSON, CSV and HTML (the report's sections).

Figures from ``metrics/study.py``; the study log from the store.  The
filter restricts the matches only: quiz answers and Anki reviews have no
player.  A view never computes a figure.  docs/study.md.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from html import escape
from typing import Optional

from ..hookspecs import hookimpl
from ..commands import UserError, View
from ..options import Option, param
from ..formatting import (DASH, Table, num, percent, safe_text, scope_text, table, table_html,
                         without_empty_periods)
from .study import study_inputs
from .svgcharts import ACCENT, BAR, FONT, INK, MUTED
from ..lazy import lazy

_metrics_study = lazy("gnubg_blunder.metrics.study")

LOG_NOTE = "The filter restricts the matches only: quiz answers and Anki reviews have no player."


def _plans_and_log(scope):
    return study_inputs(scope.store)


# -- training ---------------------------------------------------------------------------------

@dataclass
class TrainingParams:
    """``training``'s own option."""

    by: str = param(Option(("--by",), choices=("week", "month"),
                           help="one row per ISO week (from Monday, UTC) or per calendar month"), default="week")


def training_compute(scope, params: TrainingParams) -> dict:
    actions, plans = _plans_and_log(scope)
    by = params.by
    obj = _metrics_study.training(scope.selection, actions, by, scope.filter.decision_type or "all", plans)
    return {"filter": scope.filter_json, "by": obj["by"], "note": LOG_NOTE, "windows": obj["windows"],
            "quiz_by_game_plan": obj["quiz_by_game_plan"]}


T_HEADERS = ["from", "to", "quiz PR", "answers", "match PR", "decisions", "matches", "Anki retention", "of",
             "reviews read"]
NONE_GRADUATED = "— (no review graduated yet)"


def _retention_cell(w: dict) -> str:
    """The retention, or why there is none though reviews were read."""
    if w["anki_retention"] is None and w["anki_reviews"]:
        return NONE_GRADUATED
    return percent(w["anki_retention"])


def _window_cells(w: dict) -> list:
    return [w["from"], w["to"], num(w["quiz_pr"]), w["quiz_answers"], num(w["match_pr"]), w["match_decisions"],
            w["matches"], _retention_cell(w), w["anki_learned_reviews"], w["anki_reviews"]]


def _shown_windows(obj: dict) -> tuple:
    """The windows the text and the report's table show (those holding a
    match, a quiz answer or an Anki review) and the line counting the others."""
    def empty(w):
        return not (w["matches"] or w["quiz_answers"] or w["anki_reviews"])

    return without_empty_periods(obj["windows"], empty, obj["by"], "any match or study")


def _plan_cells(p: dict) -> list:
    return [p["game_plan"] or "(game plan unknown)", num(p["quiz_pr"]), p["quiz_answers"]]


def rule_text() -> str:
    """How the training figures are counted, in one paragraph."""
    return (f"Quiz PR = 500 × Σe / N of the graded quiz answers (e = the grade, millipoints); match PR = the "
            f"filter's matches dated in the window; Anki retention = share of the reviews of learned cards graded "
            f"Hard or better (ease ≥ {_metrics_study.RETAINED_EASE}), of that many; reviews read = every Anki review "
            f"synced, cards still in learning included; {NONE_GRADUATED}: reviews read, none of a learned card. "
            "— = nothing in the window.")


def training_text(obj: dict) -> str:
    lines = [f"Training per {obj['by']} — scope: {scope_text(obj['filter'])}", rule_text(), LOG_NOTE, ""]
    if obj["windows"]:
        shown, left_out = _shown_windows(obj)
        lines.append(table([_window_cells(w) for w in shown], T_HEADERS, "llrrrrrrrr"))
        if left_out:
            lines.append(left_out)
    else:
        lines.append("No quiz answer, Anki review or dated match.")
    if obj["quiz_by_game_plan"]:
        lines += ["", "Quiz PR by game plan, worst first:",
                  table([[safe_text(c, None) if isinstance(c, str) else c for c in _plan_cells(p)]
                         for p in obj["quiz_by_game_plan"]], ["game plan", "quiz PR", "answers"], "lrr")]
    return "\n".join(lines)


TRAINING_CSV = ["window_from", "window_to", "quiz_pr", "quiz_answers", "match_pr", "match_decisions", "matches",
                "anki_retention", "anki_learned_reviews", "anki_reviews"]


def training_table(obj: dict) -> Table:
    return Table(TRAINING_CSV, [[w["from"], w["to"], w["quiz_pr"], w["quiz_answers"], w["match_pr"],
                                 w["match_decisions"], w["matches"], w["anki_retention"], w["anki_learned_reviews"],
                                 w["anki_reviews"]]
                                for w in obj["windows"]])


def windows_chart(windows: list, width: int = 640, height: int = 256) -> str:
    """Quiz PR and match PR per window, two lines over the windows' order
    (inline SVG; a window without a figure breaks its line); both axes
    titled; one window is labelled once (its first and last day), not
    twice with the same date."""
    title = "Quiz PR and match PR per window"
    if not windows:
        return ""
    values = [w[k] for w in windows for k in ("quiz_pr", "match_pr") if w[k] is not None]
    if not values:
        return ""
    top_v = max(values + [1.0])
    left, right, top, bottom = 48, 16, 40, 76
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(windows)

    def sx(i):
        return left + plot_w * (i + 0.5) / n

    def sy(v):
        return top + plot_h - plot_h * v / (top_v * 1.1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12"><title>{escape(title)}</title>',
             f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="{MUTED}"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="{MUTED}"/>',
             f'<text x="{left - 4}" y="{sy(top_v) + 4:.1f}" text-anchor="end" fill="{MUTED}">{top_v:.1f}</text>',
             f'<text x="{left - 4}" y="{top + plot_h + 4}" text-anchor="end" fill="{MUTED}">0</text>',
             f'<text x="4" y="32" fill="{MUTED}">PR (500 × Σ e / decisions)</text>',
             f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 32}" text-anchor="middle" fill="{MUTED}">'
             f'window (its first day)</text>']
    if n == 1:  # one window: one label, its first and last day
        parts.append(f'<text x="{sx(0):.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="{MUTED}">'
                     f'{escape(windows[0]["from"])} – {escape(windows[0]["to"])}</text>')
    else:
        parts += [f'<text x="{left}" y="{top + plot_h + 16}" fill="{MUTED}">{escape(windows[0]["from"])}</text>',
                  f'<text x="{width - right}" y="{top + plot_h + 16}" text-anchor="end" fill="{MUTED}">'
                  f'{escape(windows[-1]["from"])}</text>']
    for s, (key, name, colour) in enumerate((("quiz_pr", "quiz PR", ACCENT), ("match_pr", "match PR", BAR))):
        runs, run = [], []
        for i, w in enumerate(windows):
            if w[key] is None:
                if run:
                    runs.append(run)
                run = []
            else:
                run.append((sx(i), sy(w[key])))
        if run:
            runs.append(run)
        for r in runs:
            parts.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in r)}" fill="none" '
                         f'stroke="{colour}" stroke-width="2"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in r]
        y = top + plot_h + 50 + 14 * s
        parts.append(f'<line x1="{left}" y1="{y - 4}" x2="{left + 22}" y2="{y - 4}" stroke="{colour}" '
                     f'stroke-width="2"/><text x="{left + 28}" y="{y}" fill="{INK}">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def training_html(obj: dict) -> str:
    html = [f'<section id="training"><h2>Training per {escape(obj["by"])}</h2>',
            f'<p class="note">{escape(rule_text())} {escape(LOG_NOTE)}</p>']
    if obj["windows"]:
        shown, left_out = _shown_windows(obj)
        html.append(table_html([_window_cells(w) for w in shown], T_HEADERS, "llrrrrrrrr"))
        if left_out:
            html.append(f'<p class="note">{escape(left_out)}.</p>')
        html.append(windows_chart(obj["windows"]))  # every window: an empty one breaks the lines
    else:
        html.append('<p class="muted">No quiz answer, Anki review or dated match.</p>')
    if obj["quiz_by_game_plan"]:
        html.append("<h3>Quiz PR by game plan, worst first</h3>")
        html.append(table_html([_plan_cells(p) for p in obj["quiz_by_game_plan"]], ["game plan", "quiz PR",
                                                                                    "answers"], "lrr"))
    html.append("</section>")
    return "".join(html)


def training_section(ctx) -> str:
    return training_html(ctx.view_object(TRAINING))


TRAINING = View("training", "training per week or month: quiz PR, match PR and Anki retention, quiz PR by game plan "
                "(docs/study.md)", training_compute, training_text, table=training_table, html=training_html,
                params=TrainingParams)


# -- list --type study (study vs play) ---------------------------------------------------------

DEFAULT_DAYS = 30


@dataclass
class ListParams:
    """``list``'s own options."""

    list_type: str = param(Option(("--type",), choices=("study",),
                                  help="what to list: study (study vs play: positions reviewed, PR before, PR "
                                       "since)"), default="study")
    days: int = param(Option(("--days",), type=int, metavar="N",
                             help=f"the window: the last N UTC days, today included (default {DEFAULT_DAYS})"),
                      default=DEFAULT_DAYS)
    today: Optional[str] = param(Option(("--today",), metavar="DATE",
                                        help="the window's last day (YYYY-MM-DD; default: today, UTC)"))


def list_compute(scope, params: ListParams) -> dict:
    days = params.days or DEFAULT_DAYS  # 0 as the default, as it always was
    if days < 1:
        raise UserError("--days N: N must be 1 or more")
    today = params.today
    if today:
        try:
            _dt.date.fromisoformat(today)
        except ValueError:
            raise UserError(f"--today {today!r} is not a date (YYYY-MM-DD)") from None
    else:
        today = _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    actions, plans = _plans_and_log(scope)
    obj = _metrics_study.study_vs_play(scope.selection, actions, today, days, scope.filter.decision_type or "all", plans)
    return {"filter": scope.filter_json, "type": "study", "note": LOG_NOTE, **obj}


L_HEADERS = ["game plan", "positions reviewed", "PR before", "PR since"]


def _list_cells(r: dict) -> list:
    return [r["game_plan"], r["positions_reviewed"], num(r["pr_before"]), num(r["pr_since"])]


def list_text(obj: dict) -> str:
    lines = [f"Study vs play, the last {obj['days']} days ({obj['from']} to {obj['to']}) — scope: "
             f"{scope_text(obj['filter'])}",
             "Positions reviewed: distinct positions of quiz answers and Anki reviews in the window; PR before: the "
             "filter's matches dated before it; PR since: dated from its first day. "
             f"— = a PR on fewer than {_metrics_study.MIN_PR_DECISIONS} decisions. {LOG_NOTE}", ""]
    if obj["game_plans"]:
        lines.append(table([_list_cells(r) for r in obj["game_plans"]], L_HEADERS, "lrrr"))
    else:
        lines.append("No review and no counted decision.")
    if obj["positions_without_game_plan"]:
        lines.append(f"{obj['positions_without_game_plan']} reviewed position(s) with no stored decision: "
                     "game plan unknown.")
    return "\n".join(lines)


def list_table(obj: dict) -> Table:
    return Table(["game_plan", "positions_reviewed", "pr_before", "pr_since"],
                 [[r["game_plan"], r["positions_reviewed"], r["pr_before"], r["pr_since"]]
                  for r in obj["game_plans"]])


def list_html(obj: dict) -> str:
    html = [f'<section id="study-vs-play"><h2>Study vs play, the last {obj["days"]} days</h2>',
            f'<p class="note">{escape(obj["from"])} to {escape(obj["to"])}. Positions reviewed (quiz answers and '
            f"Anki reviews), PR of the matches before the window and since; — on fewer than "
            f"{_metrics_study.MIN_PR_DECISIONS} decisions. {escape(LOG_NOTE)}</p>"]
    if obj["game_plans"]:
        html.append(table_html([_list_cells(r) for r in obj["game_plans"]], L_HEADERS, "lrrr"))
    else:
        html.append('<p class="muted">No review and no counted decision.</p>')
    html.append("</section>")
    return "".join(html)


def list_section(ctx) -> str:
    return list_html(ctx.view_object(LIST))


LIST = View("list", "list --type study --days N: study vs play per game plan — positions reviewed, PR before, PR "
            "since (docs/study.md)", list_compute, list_text, table=list_table, html=list_html, params=ListParams)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

SECTION_ORDER = 47  # after progress with study (46), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(TRAINING)
    registry.add(LIST)


@hookimpl
def register_report_sections(register):
    register("training", training_section, SECTION_ORDER)
    register("study-vs-play", list_section, SECTION_ORDER + 1)
