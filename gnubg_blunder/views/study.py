"""``progress-study``: before / after study per family (SPEC §11), as text,
JSON, CSV or HTML (the report's section), and the summary's card.

Figures from ``metrics/study.py`` (:func:`before_after`); the study log and
the positions' labels from the store (``store/study_reads.py``).  A view
never computes a figure.  docs/study.md.
"""

from __future__ import annotations

import dataclasses
from html import escape

from ..commands import View
from .formatting import DASH, Table, num, safe_text, scope_text, table, table_html

def rule_text() -> str:
    """The before / after rule, in one paragraph."""
    from ..metrics.study import MIN_DECISIONS

    return ("A family is studied from the UTC day of the first study action (studied mark, quiz answer, Anki "
            "review) on one of its positions. Windows: matches dated strictly before / strictly after that day (that "
            "day and undated matches in neither). r = Σℓ(family errors) / N(counted decisions of the same game plan "
            "and nature), MWC % points per 100 decisions; Δ = r before − r after, 95% interval Δ ± 1.96 √(Σℓb²/Nb² + "
            f"Σℓa²/Na²). Verdict: insufficient under {MIN_DECISIONS} decisions in either window; improving when the "
            "lower bound > 0; regressing when the upper bound < 0; else undetermined. Money play has no ℓ: its "
            "decisions are not measured here.")


def study_inputs(store, sel):
    """(the study log, {position: families}, {position: game plan}) read
    from the store for the positions the log names."""
    from ..metrics.study import position_families, position_game_plans
    from ..store.study_reads import position_labels

    actions = store.study_actions()
    labels = position_labels(store, {a["position_id"] for a in actions})
    return actions, position_families(labels), position_game_plans(labels)


def compute(scope) -> dict:
    """``{"filter", "rule", "note", "families", "not_studied",
    "money_errors"}`` (``metrics.study.before_after``)."""
    from ..metrics.study import CHANGE_NOTE, before_after, study_days

    flt = scope.filter
    if flt.family:  # N counts every decision of the family's game plan and nature: read them all
        sel = scope.select(dataclasses.replace(flt, family=None))
    else:
        sel = scope.selection
    memo = sel.__dict__.setdefault("_study", {})
    key = (flt.decision_type or "all", scope.thresholds, flt.family)
    if key not in memo:
        actions, families_of, _plans = study_inputs(scope.store, sel)
        memo[key] = before_after(sel, scope.thresholds, study_days(actions, families_of), key[0], flt.family)
    obj = memo[key]
    return {"filter": scope.filter_json, "rule": rule_text(), "note": CHANGE_NOTE, "families": obj["families"],
            "not_studied": list(obj["not_studied"]), "money_errors": obj["money_errors"]}


def _ci(ci) -> str:
    return DASH if not ci else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


HEADERS = ["family", "studied from", "N before", "r before", "N after", "r after", "Δ", "95% interval", "verdict"]


def _cells(f: dict) -> list:
    return [f["family"], f["studied_from"], f["before"]["decisions"], num(f["before"]["r"]),
            f["after"]["decisions"], num(f["after"]["r"]), num(f["delta"], 2, signed=True), _ci(f["delta_ci"]),
            f["verdict"]]


def study_text(obj: dict) -> str:
    from ..metrics.study import CHANGE_NOTE

    lines = [f"Before / after study — scope: {scope_text(obj['filter'])}", rule_text(), CHANGE_NOTE, ""]
    if obj["families"]:
        rows = [[safe_text(c, None) if isinstance(c, str) else c for c in _cells(f)] for f in obj["families"]]
        lines.append(table(rows, HEADERS, "llrrrrrll"))
        lines.append("(r in MWC % points per 100 decisions of the family's game plan and nature)")
    else:
        lines.append("No studied family with an error in this scope.")
    if obj["not_studied"]:
        lines.append(f"Not studied yet ({len(obj['not_studied'])}): "
                     + "; ".join(safe_text(n, None) for n in obj["not_studied"]))
    if obj["money_errors"]:
        lines.append(f"{obj['money_errors']} family error{'s' if obj['money_errors'] != 1 else ''} in money "
                     "sessions: not measured (money play has no ℓ).")
    return "\n".join(lines)


CSV_HEADERS = ["family", "game_plan", "nature", "theme", "studied_from", "first_action", "matches_before",
               "decisions_before", "errors_before", "mwc_loss_before", "r_before", "matches_after",
               "decisions_after", "errors_after", "mwc_loss_after", "r_after", "delta", "ci_low", "ci_high",
               "verdict", "money_errors"]


def study_table(obj: dict) -> Table:
    from ..metrics.plan import parse_family

    rows = []
    for f in obj["families"]:
        ci = f["delta_ci"] or [None, None]
        b, a = f["before"], f["after"]
        rows.append([f["family"], f["game_plan"], f["nature"], f["theme"], f["studied_from"], f["first_action"],
                     b["matches"], b["decisions"], b["errors"], b["mwc_loss"], b["r"], a["matches"], a["decisions"],
                     a["errors"], a["mwc_loss"], a["r"], f["delta"], ci[0], ci[1], f["verdict"], f["money_errors"]])
    for name in obj["not_studied"]:  # a row each, so the sheet lists every family of the scope
        game_plan, nature, theme = parse_family(name)
        rows.append([name, game_plan, nature, theme] + [None] * 15 + ["not studied", None])
    return Table(CSV_HEADERS, rows)


# -- HTML ----------------------------------------------------------------------------------

def delta_chart(families: list, width: int = 640) -> str:
    """Δ of each family with its interval, around a zero line (inline SVG;
    the numbers are the view's, drawn as they are)."""
    from ..metrics.study import INSUFFICIENT
    from .svgcharts import ACCENT, BAR, FONT, INK, MUTED

    shown = [f for f in families if f["delta_ci"]]
    title = "Δ = r before − r after, 95% interval (MWC % points per 100 decisions)"
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
        colour = MUTED if f["verdict"] == INSUFFICIENT else (ACCENT if f["verdict"] == "regressing" else BAR)
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
    from ..metrics.study import CHANGE_NOTE, INSUFFICIENT

    html = ['<section id="study"><h2>Before / after study</h2>', f'<p class="note">{escape(rule_text())}</p>',
            f"<p><b>{escape(CHANGE_NOTE)}</b></p>"]
    if obj["families"]:
        rows = [_cells(f) for f in obj["families"]]
        html.append(table_html(rows, HEADERS, "llrrrrrll",
                               ["grey" if f["verdict"] == INSUFFICIENT else None for f in obj["families"]]))
        html.append(delta_chart(obj["families"]))
    else:
        html.append('<p class="muted">No studied family with an error in this scope.</p>')
    if obj["not_studied"]:
        html.append(f'<p class="note">Not studied yet: {escape("; ".join(obj["not_studied"]))}.</p>')
    if obj["money_errors"]:
        html.append(f'<p class="note">{obj["money_errors"]} family errors in money sessions: not measured '
                    "(money play has no ℓ).</p>")
    html.append("</section>")
    return "".join(html)


def study_section(ctx) -> str:
    return study_html(ctx.view_object(VIEW))


# -- the summary's card ----------------------------------------------------------------------

def study_card(scope) -> dict:
    """The summary's card: each studied family's verdict and Δ, the count
    of families not studied, and the sentence that it is a change."""
    from ..metrics.study import CHANGE_NOTE

    obj = compute(scope)
    keys = ("family", "studied_from", "delta", "delta_ci", "verdict")
    return {"families": [{k: f[k] for k in keys} for f in obj["families"]],
            "not_studied": len(obj["not_studied"]), "note": CHANGE_NOTE}


def study_card_text(card: dict) -> str:
    if card["families"]:
        body = "; ".join(f"{safe_text(f['family'], None)} {f['verdict']} (Δ {num(f['delta'], 2, signed=True)})"
                         for f in card["families"])
    else:
        body = "no studied family with an error"
    return (f"Before / after study: {body}; {card['not_studied']} not studied (details: progress-study). "
            "A change, not an effect.")


def study_card_html(card: dict) -> str:
    from ..metrics.study import INSUFFICIENT

    if card["families"]:
        rows = [[f["family"], f["studied_from"], num(f["delta"], 2, signed=True), _ci(f["delta_ci"]), f["verdict"]]
                for f in card["families"]]
        body = table_html(rows, ["family", "studied from", "Δ", "95% interval", "verdict"], "llrll",
                          ["grey" if f["verdict"] == INSUFFICIENT else None for f in card["families"]])
    else:
        body = '<p class="muted">No studied family with an error in this scope.</p>'
    return (f'<h3 id="study-card">Before / after study</h3>{body}<p class="note">{card["not_studied"]} families '
            f"not studied yet. {escape(card['note'])}</p>")


VIEW = View("progress-study", "before / after study: each studied family's error rate before and after its first "
            "study action, the change with its interval (docs/study.md)", compute, study_text, table=study_table,
            html=study_html)
