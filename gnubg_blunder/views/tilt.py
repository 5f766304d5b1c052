"""``tilt [filter] [--list CONDITION]``: errors after errors, after bad
dice, late in a match (SPEC §18) as text, JSON, CSV and the report's
section.  Renders :func:`gnubg_blunder.metrics.tilt.tilt`; computes
nothing.  The rules: docs/tilt.md."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Optional

from ..hookspecs import hookimpl
from ..commands import View
from ..options import Option, param
from ..formatting import Table, html_cell, num, scope_text, table
from .positions import (attach_moves, decisions_table, parse_limit, positions_html, positions_object,
                        positions_table)
from ..lazy import lazy

_metrics_summary = lazy("gnubg_blunder.metrics.summary")
_metrics_tilt = lazy("gnubg_blunder.metrics.tilt")

CONDITIONS = ("after-blunder", "after-bad-roll", "late-in-match")  # metrics/tilt.py's, without importing numpy
TITLES = {"after-blunder": "after a blunder", "after-bad-roll": "after a bad roll",
          "late-in-match": "last third of a match"}
LIST_HEADINGS = {"after-blunder": "Decisions after a blunder", "after-bad-roll": "Decisions after a bad roll",
                 "late-in-match": "Decisions in the last third of a match"}
NOTE = ("An association, not a cause: a condition's decisions differ from the rest in more than the condition "
        "(a blunder's game is often a harder one than difficulty measures).")
DEFAULT_LIMIT = 50


@dataclass
class TiltParams:
    """``tilt``'s own options."""

    list: Optional[str] = param(Option(("--list",), choices=CONDITIONS, metavar="CONDITION",
                                       help="list the decisions behind a condition: " + ", ".join(CONDITIONS)))
    limit: str = param(Option(("--limit",), metavar="N", help=f"with --list: at most N decisions, in play order "
                                                              f"(default {DEFAULT_LIMIT}; 0 = all)"),
                       default=str(DEFAULT_LIMIT))  # as written: parse_limit reads it (0 = all)


def compute(scope, params: TiltParams) -> dict:
    sel, flt = scope.selection, scope.filter
    condition = params.list
    if condition:
        limit = parse_limit(params.limit)
        idx = _metrics_tilt.condition_decisions(sel, condition, scope.thresholds, flt.decision_type or "all")
        shown = idx[:limit] if limit else idx
        records = attach_moves(_metrics_summary.decision_records(sel, shown, scope.thresholds), scope.store)
        obj = positions_object(records, len(idx), flt, {"condition": condition}, limit or None)
        obj["order"] = "play order (match date, undated matches by import time, then game and move)"
        obj["condition"] = condition
        obj["condition_rule"] = _metrics_tilt.CONDITION_WORDS[condition]
        return obj
    obj = _metrics_tilt.tilt(sel, scope.thresholds, flt.decision_type or "all")
    obj["rule"] = {
        "excess": "x = e − d (EMG) over counted decisions with e and d known; figures in mpt",
        "window": _metrics_tilt.WINDOW, "bad_luck_emg": _metrics_tilt.BAD_LUCK_EMG,
        "min_match_length": _metrics_tilt.MIN_MATCH_LENGTH,
        "min_decisions": _metrics_tilt.MIN_DECISIONS, "units": "matches",
        "conditions": dict(_metrics_tilt.CONDITION_WORDS),
    }
    obj["note"] = NOTE
    return obj


def _interval(ci) -> str:
    return "no interval" if not ci else f"[{ci[0]:+.1f}, {ci[1]:+.1f}]"


def _verdict(c: dict) -> str:
    return c["verdict"] or f"— ({c['why']})"


HEADERS = ["player", "condition", "N condition", "N rest", "matches", "mean x cond. mpt", "mean x rest mpt",
           "Δ mpt", "95% interval", "verdict"]


def _rows(obj: dict) -> list:
    return [[p["player"], TITLES[c["condition"]], c["n_condition"], c["n_rest"], c["matches"],
             num(c["mean_condition_mpt"], 1, signed=True), num(c["mean_rest_mpt"], 1, signed=True),
             num(c["delta_mpt"], 1, signed=True), _interval(c["delta_ci"]), _verdict(c)]
            for p in obj["players"] for c in p["conditions"]]


def _list_text(obj: dict) -> str:
    n = obj["total"]
    head = (f"Tilt — {TITLES[obj['condition']]} ({obj['condition_rule']}): {n} decision{'s' if n != 1 else ''}")
    if not obj["decisions"]:
        return head + "."
    more = f", {obj['shown']} shown in play order (--limit 0 for all)" if obj["shown"] < n else ", in play order"
    return "\n".join([head + more, decisions_table(obj["decisions"]),
                      "(e and d in millipoints; game and move counted from 1)"])


def tilt_text(obj: dict) -> str:
    lines = [f"Scope: {scope_text(obj['filter'])}"]
    if "decisions" in obj:
        return "\n".join(lines + [_list_text(obj)])
    rule = obj["rule"]
    lines.append(f"Tilt: mean excess x = e − d (mpt) in a condition against the rest of the player's decisions; "
                 f"Δ = condition − rest, 95% interval with matches as units; a verdict from "
                 f"{rule['min_decisions']} decisions on each side.")
    for cond in CONDITIONS:
        lines.append(f"  {TITLES[cond]}: {rule['conditions'][cond]}")
    if not obj["players"]:
        lines.append("No counted decision with e and d known in this scope.")
    else:
        lines.append(table(_rows(obj), HEADERS, "llrrrrrrll"))
    lines.append(NOTE)
    lines.append("`gnubg-blunder tilt --list CONDITION` lists a condition's decisions (docs/tilt.md).")
    return "\n".join(lines)


CSV_HEADERS = ["player", "condition", "n_condition", "n_rest", "matches", "mean_condition_mpt", "mean_rest_mpt",
               "delta_mpt", "delta_ci_low_mpt", "delta_ci_high_mpt", "verdict", "why"]


def tilt_table(obj: dict) -> Table:
    if "decisions" in obj:
        return positions_table(obj)
    rows = []
    for p in obj["players"]:
        for c in p["conditions"]:
            ci = c["delta_ci"] or [None, None]
            rows.append([p["player"], c["condition"], c["n_condition"], c["n_rest"], c["matches"],
                         c["mean_condition_mpt"], c["mean_rest_mpt"], c["delta_mpt"], ci[0], ci[1], c["verdict"],
                         c["why"]])
    return Table(CSV_HEADERS, rows)


REPORT_LIST_ROWS = 100  # the report's list of a condition: its first decisions in play order


def _anchor(condition: str) -> str:
    return f"tilt-{condition}"


def _table_html(obj: dict, lists: dict) -> str:
    """The table, each condition's N linked to its list in the page where
    ``lists`` holds it; rows without a verdict grey."""
    align = "llrrrrrrll"
    out = ["<table><tr>"] + [f'<th class="{a}">{escape(h)}</th>' for h, a in zip(HEADERS, align)] + ["</tr>"]
    for row, (p, c) in zip(_rows(obj), [(p, c) for p in obj["players"] for c in p["conditions"]]):
        cells = [html_cell(v) for v in row]
        if c["condition"] in lists and c["n_condition"]:
            cells[2] = f'<a href="#{_anchor(c["condition"])}">{cells[2]}</a>'
        cls = "" if c["verdict"] else ' class="grey"'
        out.append(f"<tr{cls}>" + "".join(f'<td class="{a}">{v}</td>' for v, a in zip(cells, align)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def tilt_html(obj: dict, lists: dict = None) -> str:
    """``<section id="tilt">``: one row per player and condition, rows
    without a verdict grey; ``lists`` ({condition: its ``--list`` object}):
    each condition's decisions after the table, its N cells linking to them."""
    if "decisions" in obj:
        return ('<section id="tilt"><h2>Tilt</h2>'
                + positions_html(obj, heading=LIST_HEADINGS[obj["condition"]]) + "</section>")
    lists = lists or {}
    html = ['<section id="tilt"><h2>Tilt: errors after errors, bad dice and late in a match</h2>']
    rule = obj["rule"]
    items = "".join(f"<li>{escape(TITLES[c])}: {escape(rule['conditions'][c])}</li>" for c in CONDITIONS)
    html.append(f'<p class="note">Mean excess x = e − d (mpt) in a condition against the rest; Δ = condition − '
                f"rest, 95 % interval with matches as units; a verdict from {rule['min_decisions']} decisions on "
                f"each side (grey rows: no verdict).</p><ul>{items}</ul>")
    if obj["players"]:
        html.append(_table_html(obj, lists))
    else:
        html.append('<p class="muted">No counted decision with e and d known.</p>')
    html.append(f'<p class="note">{escape(NOTE)} `gnubg-blunder tilt --list CONDITION` lists the decisions '
                f"behind a condition.</p>")
    if lists:
        for cond in CONDITIONS:
            if cond in lists:
                listed = lists[cond]
                # its own note on a cut list below (the command that lists them all is tilt's, not positions')
                cut = (f'<p class="note">The first {listed["shown"]} in play order; `gnubg-blunder tilt '
                       f'--list {cond} --limit 0` lists them all.</p>' if listed["shown"] < listed["total"] else "")
                # folded under its heading (the report opens short); its N cell in the table links to it
                html.append(positions_html(dict(listed, shown=listed["total"]),
                                           heading=f"{LIST_HEADINGS[cond]} (every player)", anchor=_anchor(cond),
                                           fold=True).replace("</details>", cut + "</details>") if cut else
                            positions_html(dict(listed, shown=listed["total"]),
                                           heading=f"{LIST_HEADINGS[cond]} (every player)", anchor=_anchor(cond),
                                           fold=True))
    html.append("</section>")
    return "".join(html)


def report_section(ctx) -> str:
    """The report's tilt section (every player of the report's scope), each
    condition's N linked to its first decisions in the page."""
    obj = ctx.view_object(VIEW)
    lists = {cond: ctx.view_object(VIEW, list=cond, limit=str(REPORT_LIST_ROWS)) for cond in CONDITIONS
             if any(c["condition"] == cond and c["n_condition"] for p in obj["players"] for c in p["conditions"])}
    return tilt_html(obj, lists)


VIEW = View("tilt", "errors after a blunder, after bad dice, late in a match (docs/tilt.md)", compute, tilt_text,
            table=tilt_table, html=tilt_html, params=TiltParams)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

REPORT_ORDER = 57  # after the biases (55), before the players (60)


@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_report_sections(register):
    register("tilt", report_section, REPORT_ORDER)
