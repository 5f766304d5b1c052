"""``report --match ID|last --html FILE``: one match's page (docs/report.md).

A standalone HTML file in the collection report's style (no scripts, no
external resources, every chart and board an inline SVG): the match's head
(players, length, final score, result), the review of the side(s) ``review``
picks (``views/review.py``: the decisions to review on their boards, the
luck-adjusted result, the pace), the cumulative MWC lost of both sides over
the match's decisions in order (money: the cumulative error in EMG) with the
games marked, and the transcript (every decision).  Written also by
``>bdb.report()`` inside gnubg after ``>bdb.analyse()`` / ``>bdb.store()``.

The numbers are those of ``review --transcript --format json``: this module
computes no figure, it reshapes the transcript's running sums into the
chart's series.
"""

from __future__ import annotations

from html import escape
from typing import Optional

from ..model import is_money
from ..formatting import DASH, html_text, num, table_html
from .review import KIND_WORDS, _sides, review_html, review_object, select_match
from ..commands import Scope
from .report import html_page
from .match_summary import MATCH_FIGURE_HEADERS, match_figures
from .svgcharts import cumulative_chart

WHAT = "report --match"


def match_report_object(store, sel, players, thresholds, flt_json: dict) -> dict:
    """The review object of ``sel``'s one match with its transcript, the
    final score and number of games, and ``curve``: the series of the chart
    (each side's running sum after each decision of the transcript, in match
    order), ``unit`` ("% MWC", money "EMG") and ``game_starts`` (the number
    of decisions before each game after the first)."""
    obj = review_object(store, sel, players, thresholds, flt_json, transcript=True)
    m = sel.matches[0]
    money = is_money(m.length)
    obj["final_score"] = list(m.final_score) if m.final_score is not None else None
    obj["games"] = m.n_games
    rows = obj["transcript"]
    key = "cum_error_emg" if money else "cum_mwc_loss"
    series = []
    for k, name in enumerate(obj["players"]):
        values = [r[key][k] for r in rows]
        series.append({"player": name, "values": values, "end": values[-1] if values else 0.0})
    obj["curve"] = {
        "unit": "EMG" if money else "% MWC",
        "of": key,
        "series": series,
        "game_starts": [i for i in range(1, len(rows)) if rows[i]["game"] != rows[i - 1]["game"]],
    }
    return obj


def build(store, flt, thresholds, which: str = "last") -> dict:
    """The object of the match ``which`` (an ID or ``last``) under the
    filter ``flt``: the sides as ``review`` picks them, and both sides'
    figures as the console's match summary prints them (``figures``)."""
    scope = Scope.over(None, store, flt, thresholds=thresholds)
    sel = select_match(scope, which, what=WHAT)
    obj = match_report_object(store, sel, _sides(scope, sel, what=WHAT), thresholds, flt.to_json())
    _m, rows = match_figures(store, obj["match_id"])
    obj["figures"] = {"headers": MATCH_FIGURE_HEADERS, "rows": rows}
    return obj


# -- HTML ------------------------------------------------------------------------------

def _result(obj: dict) -> str:
    """The result as HTML, the winner's name isolated."""
    score = obj.get("final_score")
    score_text = f"{score[0]}–{score[1]}" if score else DASH
    if obj["length"] == 0:
        return f"points won {score_text}" + (f" ({html_text(obj['winner'])} ahead)" if obj["winner"] else "")
    if obj["winner"] is None:
        return f"unfinished (score {score_text})" if obj["length"] else f"points {score_text}"
    return f"{html_text(obj['winner'])} won ({score_text})"


def decisions_text(transcript: list) -> str:
    """What the match's counts count: every decision of the transcript, and
    those the figures (PR, MWC lost, the curve) are over."""
    n, counted = len(transcript), sum(1 for r in transcript if r["counted"])
    return (f"{n} decision{'s' if n != 1 else ''}, {counted} counted by XG's rules (forced plays and clear "
            "no-doubles left out; the figures are over the counted ones: docs/figures.md)")


def head_html(obj: dict) -> str:
    length = "money session" if obj["length"] == 0 else f"{obj['length']}-point match"
    # (label, the value's HTML): user text isolated and escaped (html_text), ours escaped
    analysis = " ".join(str(x) for x in (obj["analysis"]["engine"], obj["analysis"]["depth"]) if x)
    rows = [
        ("Players", f"{html_text(obj['players'][0])} vs {html_text(obj['players'][1])}"),
        ("Length", escape(length)),
        ("Final score", _result(obj)),
        ("Games", DASH if obj.get("games") is None else escape(str(obj["games"]))),
        ("Date", html_text(obj["date"])),
        ("Event", html_text(obj["event"])),
        ("Analysis", html_text(analysis)),
        ("Decisions", escape(decisions_text(obj["transcript"]))),
    ]
    cells = "".join(f'<tr><th class="l">{escape(k)}</th><td class="l">{v}</td></tr>' for k, v in rows)
    return f'<section id="match"><h2>The match</h2><table>{cells}</table></section>'


def figures_html(obj: dict) -> str:
    """Both sides' figures: the table ``>bdb.store()`` prints."""
    figures = obj.get("figures")
    if not figures or not figures["rows"]:
        return ""
    return ('<section id="figures"><h2>Figures</h2>' + table_html(figures["rows"], figures["headers"], "lrrrrr")
            + '<p class="note">PR with its 95 % interval (games as units), counted decisions, MWC lost, '
            "L7 and luck: the summary gnubg-blunder prints when it stores the match.</p></section>")


def chart_svg(obj: dict) -> str:
    curve = obj["curve"]
    money = curve["unit"] == "EMG"
    rows = obj["transcript"]
    what = "error (EMG)" if money else "MWC lost (% points)"
    boundaries = [(k, f"game {rows[k]['game']}") for k in curve["game_starts"]]
    return cumulative_chart([(s["player"], s["values"]) for s in curve["series"]],
                            title=f"Cumulative {'error' if money else 'MWC lost'} of each side, decision by decision",
                            y_label=f"cumulative {what}", x_label="decision of the match (in order)",
                            boundaries=boundaries, width=900, value_format="{:.3f}" if money else "{:.2f}",
                            min_span=0.1 if money else 1.0)


def chart_html(obj: dict) -> str:
    money = obj["curve"]["unit"] == "EMG"
    ends = "; ".join(f"{html_text(s['player'])} {num(s['end'], digits=3 if money else 2)}"
                     + (" EMG" if money else " %") for s in obj["curve"]["series"])
    note = ("Each side's running sum over its counted decisions (XG's rules: forced plays and clear "
            "no-doubles add nothing); dashed vertical lines: a new game starts. At the end: " + ends
            + ("." if money else " — each side's MWC lost of <code>matches</code>."))
    return (f'<section id="curve"><h2>{"Error" if money else "MWC lost"} across the match</h2>'
            f"{chart_svg(obj)}<p class=\"note\">{note}</p></section>")


def _f(x, digits: int):
    return None if x is None else f"{x:.{digits}f}"


def transcript_html(obj: dict) -> str:
    money = obj["length"] == 0
    digits = 3 if money else 2
    p1, p2 = obj["players"]
    unit = "EMG" if money else "%"
    headers = ["game", "move", "gnubg row", "player", "decision", "played", "best", "e (EMG)", "ℓ (% MWC)",
               f"d ({unit})", f"{p1} cum. ({unit})", f"{p2} cum. ({unit})"]
    rows, classes = [], []
    for r in obj["transcript"]:
        cum = r["cum_error_emg"] if money else r["cum_mwc_loss"]
        dice = f" {r['dice'][0]}-{r['dice'][1]}" if r.get("dice") and r["kind"] == "checker" else ""
        rows.append([r["game"], r["move"], r["gnubg_row"], r["player"], KIND_WORDS.get(r["kind"], r["kind"]) + dice,
                     r["played"], r["best"], _f(r["error_emg"], 3), _f(r["mwc_loss"], 2),
                     _f(r["difficulty_emg"] if money else r["difficulty"], digits),
                     _f(cum[0], digits), _f(cum[1], digits)])
        classes.append(None if r["counted"] else "grey")
    return (f'<section id="transcript"><h2>Transcript: {len(rows)} decisions</h2>'
            '<p class="note">Every decision in match order; grey rows are not counted (forced plays, clear '
            "no-doubles) and add nothing to the sums. move: the decision's record in its game; gnubg row: "
            "the row of gnubg's game record that lists it, in the player's column (docs/review.md). "
            "e: error in EMG; ℓ: MWC lost; d: difficulty; “—”: unknown.</p>"
            + table_html(rows, headers, "rrrllllrrrrr", classes) + "</section>")


def match_report_html(obj: dict, title: Optional[str] = None) -> str:
    heading = None if title else (f"Match {obj['match_id']}: {html_text(obj['players'][0])} vs "
                                  f"{html_text(obj['players'][1])}")
    title = title or f"Match {obj['match_id']}: {obj['players'][0]} vs {obj['players'][1]}"
    return html_page(title, "Figures from the stored analysis",
                     head_html(obj) + figures_html(obj) + f'<section id="review">{review_html(obj)}</section>'
                     + chart_html(obj) + transcript_html(obj), heading=heading)


def write_match_report(store, flt, thresholds, which: str, path, title: Optional[str] = None) -> dict:
    """Write the page of match ``which`` (ID or ``last``) to ``path``;
    returns its object."""
    obj = build(store, flt, thresholds, which)
    html = match_report_html(obj, title)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(html)
    return obj
