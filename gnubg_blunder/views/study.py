"""``progress-study``: before / after study per family (SPEC §11), as text,
JSON, CSV or HTML (the report's section), and the summary's card.

Figures from ``metrics/study.py`` (:func:`before_after`); the study log and
the positions' labels from the store (``store/study_reads.py``).  A view
never computes a figure.  docs/study.md.
"""

from __future__ import annotations

import dataclasses
from html import escape

from ..hookspecs import hookimpl
from ..commands import View, study_selection
from ..stash import StashKey, kept_object
from ..formatting import DASH, Table, num, safe_text, scope_text, table, table_html
from .svgcharts import ACCENT, BAR, FONT, INK, MUTED
from ..lazy import lazy

_metrics_plan = lazy("gnubg_blunder.metrics.plan")
_metrics_study = lazy("gnubg_blunder.metrics.study")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_store_study_reads = lazy("gnubg_blunder.store.study_reads")


def cost_of(obj: dict):
    """The study half's cost the object was priced in (its ``metric``)."""
    return _metrics_study_cost.study_cost(obj.get("metric"))


def rule_text(cost=None) -> str:
    """The before / after rule, in one paragraph."""
    cost = _metrics_study_cost.study_cost(cost)
    c = cost.loss
    money = ("money sessions included" if cost.money else
             f"money play has no {c}: its decisions are not measured here")
    return ("A family is studied from the UTC day of the first study action (studied mark, quiz answer, Anki "
            "review) on the position of one of its members (the player's errors of that family; a study action "
            "where the player's decision of that family was no error does not start it). Windows: matches dated "
            "strictly before / strictly after that day (that day and undated matches in neither). "
            f"r = Σ{c}(family errors) / N(counted decisions of the same game plan and nature), {cost.rate_unit} "
            f"({c}: {cost.loss_words}; {money}); beside it the errors per 100 decisions. "
            f"Δ = r before − r after, 95% interval Δ ± 1.96 √(Σ{c}b²/Nb² + Σ{c}a²/Na²). Verdict: insufficient "
            f"under {_metrics_study.MIN_DECISIONS} decisions in either window; improving when the lower bound > 0; "
            "regressing when the upper bound < 0; else undetermined.")


def study_inputs(store):
    """(the study log, {position: game plan}) read from the store for the
    positions the log names (a family's positions are its members',
    ``metrics.study.member_positions``)."""
    actions = store.study_actions()
    labels = _store_study_reads.position_labels(store, {a["position_id"] for a in actions})
    return actions, _metrics_study.position_game_plans(labels)


# once per selection, decision type, thresholds, family and metric: the report's section and the summary's card
STUDY_OBJECT: StashKey[dict] = StashKey("progress-study view")  # .at(decision type, thresholds, family, metric)


def compute(scope) -> dict:
    """``{"filter", "metric", "unit", "cost_unit", "rule", "note",
    "families", "not_studied", "not_measured"}``
    (``metrics.study.before_after`` in the study half's cost ``--metric``;
    the clock of each family from its members' positions)."""
    flt = scope.filter
    if flt.family:  # N counts every decision of the family's game plan and nature: read them all

        sel = study_selection(scope.store, scope.select(dataclasses.replace(flt, family=None)))
    else:
        sel = scope.study_rows()  # each decision at its deepest evaluation (SPEC §16)
    decision_type = flt.decision_type or "all"

    def measure() -> dict:
        actions, _plans = study_inputs(scope.store)
        # the members' positions that the log names alone: no family's clock starts elsewhere (the
        # distinct positions of the whole selection are a sort of 1.6 M IDs over 10,000 matches)
        studied = {a["position_id"] for a in _metrics_study.study_actions(actions)}
        positions = _metrics_study.member_positions(sel, scope.thresholds, decision_type, only=studied)
        days = _metrics_study.study_days(actions, positions)
        return _metrics_study.before_after(sel, scope.thresholds, days, decision_type, flt.family, scope.metric)

    obj = kept_object(sel.stash, STUDY_OBJECT.at(decision_type, scope.thresholds, flt.family, scope.metric), measure)
    return {"filter": scope.filter_json, "metric": obj["metric"], "unit": obj["unit"], "cost_unit": obj["cost_unit"],
            "rule": rule_text(obj["metric"]), "note": _metrics_study.CHANGE_NOTE, "families": obj["families"],
            "not_studied": list(obj["not_studied"]), "not_measured": obj["not_measured"]}


def _ci(ci) -> str:
    return DASH if not ci else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


HEADERS = ["family", "studied from", "N before", "errors /100 before", "r before", "N after", "errors /100 after",
           "r after", "Δ", "95% interval", "verdict"]
ALIGN = "llrrrrrrrll"


def _cells(f: dict) -> list:
    b, a = f["before"], f["after"]
    return [f["family"], f["studied_from"], b["decisions"], num(b["errors_per_100"], 1), num(b["r"]),
            a["decisions"], num(a["errors_per_100"], 1), num(a["r"]), num(f["delta"], 2, signed=True),
            _ci(f["delta_ci"]), f["verdict"]]


def units_line(obj: dict) -> str:
    return (f"(r, Δ and its interval in {obj['unit']} of the family's game plan and nature; errors /100: the "
            "family's errors per 100 of those decisions, a count)")


def not_measured_text(obj: dict) -> str:
    n = obj["not_measured"]
    c = cost_of(obj).loss
    return f"{n} family error{'s' if n != 1 else ''} in money sessions: not measured (money play has no {c})."


def study_text(obj: dict) -> str:
    lines = [f"Before / after study — scope: {scope_text(obj['filter'])}; cost in {obj['unit']}", obj["rule"],
             _metrics_study.CHANGE_NOTE, ""]
    if obj["families"]:
        rows = [[safe_text(c, None) if isinstance(c, str) else c for c in _cells(f)] for f in obj["families"]]
        lines.append(table(rows, HEADERS, ALIGN))
        lines.append(units_line(obj))
    else:
        lines.append("No studied family with an error in this scope.")
    if obj["not_studied"]:
        lines.append(not_studied_text(obj))
    if obj["not_measured"]:
        lines.append(not_measured_text(obj))
    return "\n".join(lines)


def not_studied_text(obj: dict) -> str:
    """The families with errors not studied yet, as a count: listing every
    one (a hundred and more on a real archive) buries the table; the plan
    ranks them and the JSON lists them."""
    n = len(obj["not_studied"])
    return (f"Not studied yet: {n} famil{'y' if n == 1 else 'ies'} with errors in this scope "
            "(`plan` ranks them; the JSON lists them).")


CSV_HEADERS = ["family", "game_plan", "nature", "theme", "studied_from", "first_action", "matches_before",
               "decisions_before", "errors_before", "errors_per_100_before", "cost_before", "r_before",
               "matches_after", "decisions_after", "errors_after", "errors_per_100_after", "cost_after", "r_after",
               "delta", "ci_low", "ci_high", "verdict", "not_measured", "unit"]


def study_table(obj: dict) -> Table:
    rows = []
    for f in obj["families"]:
        ci = f["delta_ci"] or [None, None]
        b, a = f["before"], f["after"]
        rows.append([f["family"], f["game_plan"], f["nature"], f["theme"], f["studied_from"], f["first_action"],
                     b["matches"], b["decisions"], b["errors"], b["errors_per_100"], b["cost"], b["r"],
                     a["matches"], a["decisions"], a["errors"], a["errors_per_100"], a["cost"], a["r"],
                     f["delta"], ci[0], ci[1], f["verdict"], f["not_measured"], obj["unit"]])
    for name in obj["not_studied"]:  # a row each, so the sheet lists every family of the scope
        game_plan, nature, theme = _metrics_plan.parse_family(name)
        rows.append([name, game_plan, nature, theme] + [None] * 17 + ["not studied", None, obj["unit"]])
    return Table(CSV_HEADERS, rows)


# -- HTML ----------------------------------------------------------------------------------

def delta_chart(families: list, unit: str, width: int = 640) -> str:
    """Δ of each family with its interval, around a zero line (inline SVG;
    the numbers are the view's, drawn as they are)."""
    shown = [f for f in families if f["delta_ci"]]
    title = f"Δ = r before − r after, 95% interval ({unit})"
    if not shown:
        return ""
    label_w, top, row_h = 300, 30, 22
    height = top + row_h * len(shown) + 24
    lo = min(min(f["delta_ci"][0] for f in shown), 0.0)
    hi = max(max(f["delta_ci"][1] for f in shown), 0.0)
    span = (hi - lo) or 1.0
    plot_w = width - label_w - 20

    def sx(v):
        return label_w + plot_w * (v - lo) / span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12"><title>{escape(title)}</title>',
             f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{sx(0):.1f}" y1="{top - 4}" x2="{sx(0):.1f}" y2="{height - 20}" stroke="{MUTED}"/>',
             f'<text x="{sx(0):.1f}" y="{height - 6}" text-anchor="middle" fill="{MUTED}">0</text>']
    for i, f in enumerate(shown):
        y = top + row_h * i + row_h / 2
        colour = MUTED if f["verdict"] == _metrics_study.INSUFFICIENT else (ACCENT if f["verdict"] == "regressing" else BAR)
        parts.append(f'<text x="{label_w - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">'
                     f'{escape(f["family"])}</text>')
        parts.append(f'<line x1="{sx(f["delta_ci"][0]):.1f}" y1="{y:.1f}" x2="{sx(f["delta_ci"][1]):.1f}" '
                     f'y2="{y:.1f}" stroke="{colour}" stroke-width="2"/>')
        tip = "%s: Δ %+.2f, %s" % (f["family"], f["delta"], f["verdict"])
        parts.append(f'<circle cx="{sx(f["delta"]):.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
                     f"<title>{escape(tip)}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def study_html(obj: dict) -> str:
    html = ['<section id="study"><h2>Before / after study</h2>', f'<p class="note">{escape(obj["rule"])}</p>',
            f"<p><b>{escape(_metrics_study.CHANGE_NOTE)}</b></p>"]
    if obj["families"]:
        rows = [_cells(f) for f in obj["families"]]
        html.append(table_html(rows, HEADERS, ALIGN,
                               ["grey" if f["verdict"] == _metrics_study.INSUFFICIENT else None for f in obj["families"]]))
        html.append(f'<p class="note">{escape(units_line(obj))}</p>')
        html.append(delta_chart(obj["families"], obj["unit"]))
    else:
        html.append('<p class="muted">No studied family with an error in this scope.</p>')
    if obj["not_studied"]:
        html.append(f'<p class="note">{escape(not_studied_text(obj))}</p>')
    if obj["not_measured"]:
        html.append(f'<p class="note">{escape(not_measured_text(obj))}</p>')
    html.append("</section>")
    return "".join(html)


def study_section(ctx) -> str:
    return study_html(ctx.view_object(VIEW, metric=ctx.metric))


# -- the summary's card ----------------------------------------------------------------------

def study_card(scope) -> dict:
    """The summary's card: each studied family's verdict and Δ (``unit``:
    the summary's --metric as the study half's cost, per 100 decisions),
    the count of families not studied, and the sentence that it is a
    change."""
    obj = compute(scope)
    keys = ("family", "studied_from", "delta", "delta_ci", "verdict")
    return {"metric": obj["metric"], "unit": obj["unit"],
            "families": [{k: f[k] for k in keys} for f in obj["families"]],
            "not_studied": len(obj["not_studied"]), "note": _metrics_study.CHANGE_NOTE}


def study_card_text(card: dict) -> str:
    if card["families"]:
        body = "; ".join(f"{safe_text(f['family'], None)} {f['verdict']} (Δ {num(f['delta'], 2, signed=True)})"
                         for f in card["families"]) + f" (Δ in {card['unit']})"
    else:
        body = "no studied family with an error"
    return (f"Before / after study: {body}; {card['not_studied']} not studied (details: progress-study). "
            "A change, not an effect.")


def study_card_html(card: dict) -> str:
    if card["families"]:
        rows = [[f["family"], f["studied_from"], num(f["delta"], 2, signed=True), _ci(f["delta_ci"]), f["verdict"]]
                for f in card["families"]]
        body = table_html(rows, ["family", "studied from", f"Δ {card['unit']}", "95% interval", "verdict"], "llrll",
                          ["grey" if f["verdict"] == _metrics_study.INSUFFICIENT else None for f in card["families"]])
    else:
        body = '<p class="muted">No studied family with an error in this scope.</p>'
    return (f'<h3 id="study-card">Before / after study</h3>{body}<p class="note">{card["not_studied"]} families '
            f"not studied yet. {escape(card['note'])}</p>")


VIEW = View("progress-study", "before / after study: each studied family's error rate before and after its first "
            "study action, the change with its interval, in the study half's cost (--metric pr: e in mpt per 100 "
            "decisions, the default; mwc, mwc7; docs/study.md)", compute, study_text, table=study_table,
            html=study_html, cost_metric=True)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

SECTION_ORDER = 46  # after the study plan (45), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_report_sections(register):
    register("study", study_section, SECTION_ORDER)


@hookimpl
def register_summary_cards(register):
    register("study", study_card, study_card_text, study_card_html, order=30)
