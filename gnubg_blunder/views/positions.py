"""Drill-down lists: the decisions behind a count (``positions``, and
``summary --list``), as text, JSON or CSV.

The rows are :func:`gnubg_blunder.metrics.summary.decision_records`; the
played and best actions are read from the store (:func:`attach_moves`).
A view never computes a figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..hookspecs import hookimpl
from ..commands import DecisionCriteria, UserError, View, count_option
from ..options import Option, add_options, param
from ..formatting import DASH, Table, folded, html_cell, safe_text, scope_text, table, table_html
from ..lazy import lazy

_arrays = lazy("gnubg_blunder.arrays")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")
np = lazy("numpy")

COLUMNS = ("position_id", "match_id", "date", "game", "move", "player", "kind", "played", "best", "error_mpt",
           "mwc_loss", "difficulty_mpt", "difficulty_mwc", "difficulty_truncated", "gnubg_row")


def attach_moves(records: list, store) -> list:
    """Add ``played`` and ``best`` (the actions as the analysis wrote them)
    to drill-down records, from ``store.decision_rows``, and ``gnubg_row``:
    the row of gnubg's game record listing the decision, in the player's
    column (None: unknown; docs/review.md, "gnubg's game record")."""
    rows = {r["id"]: r for r in store.decision_rows([r["row_id"] for r in records])}
    places = store.gnubg_rows([r["row_id"] for r in records])
    for r in records:
        r["gnubg_row"] = places.get(r["row_id"])
        row = rows.get(r["row_id"], {})
        r["played"] = row.get("played_move")
        r["best"] = row.get("best_move")
        r["dice"] = f"{row['dice1']}-{row['dice2']}" if row.get("dice1") else None  # a cube decision: none
    return records


def positions_object(records: list, total: int, flt, criteria: dict, limit) -> dict:
    """The JSON of a drill-down list: ``filter``, ``criteria`` (what narrowed
    the filter's counted decisions), ``order``, ``total`` (decisions
    matching), ``shown``, ``limit`` (None = all), ``decisions`` (records)."""
    return {
        "filter": flt.to_json(),
        "criteria": criteria,
        "order": "costliest first (e, then MWC loss, then match order)",
        "total": int(total),
        "shown": len(records),
        "limit": limit,
        "decisions": records,
    }


def _mpt(x) -> str:
    return DASH if x is None else f"{x:.1f}"


def _mwc(x) -> str:
    return DASH if x is None else f"{x:.2f}"


def decisions_table(records: list, numbered: bool = False) -> str:
    """The text table of drill-down records (also the summary's top 10)."""
    headers = ["match", "date", "players", "game", "move", "gnubg row", "player", "played", "best", "e mpt", "MWC %",
               "d mpt", "position ID"]
    align = "lllrrrlllrrrl"
    if numbered:
        headers = ["#"] + headers
        align = "r" + align
    rows = []
    for k, r in enumerate(records, 1):
        mark = " (blunder)" if r.get("blunder") else ""
        row = [r["match_id"], r["date"] or DASH, " v ".join(safe_text(p) for p in r["players"]), r["game"],
               r["move"], DASH if r.get("gnubg_row") is None else r["gnubg_row"], safe_text(r["player"]),
               r.get("played") or DASH, r.get("best") or DASH, _mpt(r["error_mpt"]) + mark, _mwc(r["mwc_loss"]),
               _mpt(r.get("difficulty_mpt")) + ("+" if r.get("difficulty_truncated") else ""),
               r["position_id"] or DASH]
        rows.append(([r.get("rank", k)] if numbered else []) + row)
    return table(rows, headers, align)


def _criteria_text(criteria: dict) -> str:
    parts = []
    if criteria.get("top"):
        return f"the {criteria['top']} costliest with an error"
    if criteria.get("last"):
        parts.append(f"the last {criteria['last']} counted decisions")
    sev = criteria.get("severity")
    if sev and sev != "decisions":
        parts.append(sev)
    for k in ("kind", "phase", "game_plan", "theme"):
        if criteria.get(k):
            parts.append(f"{k.replace('_', ' ')} {criteria[k]}")
    if criteria.get("tag"):
        parts.append("#" + safe_text(criteria["tag"].lstrip("#")))
    return ", ".join(parts) if parts else "every counted decision"


def positions_text(obj: dict, title: str = "Decisions") -> str:
    n = obj["total"]
    head = f"{title} — {_criteria_text(obj['criteria'])}: {n} decision{'s' if n != 1 else ''}"
    if not obj["decisions"]:
        return head + "."
    order = obj["order"].split(" (")[0]
    shown = (f", {obj['shown']} shown ({order}; --limit 0 for all)" if obj["shown"] < n else f", {order}")
    lines = [head + shown,
             decisions_table(obj["decisions"]),
             "(e in millipoints; MWC % = match winning chances lost, — for money; d = difficulty (docs/figures.md) in "
             "millipoints, + = a lower bound (truncated candidate list); game and move counted from 1; gnubg row: the "
             "row of gnubg's game record listing the decision, in the player's column)"]
    return "\n".join(lines)


def positions_html(obj: dict, heading: str = None, anchor: str = None, fold: bool = False,
                   boards: dict = None) -> str:
    """A drill-down list as HTML: an ``<h3>`` (``heading``, default the
    criteria in words, with the total; ``anchor`` its id), a note when the
    list is cut, and the table (a fragment: the report puts two in one
    section); ``fold``: the note and table folded under the heading
    (``<details>``, the report's long lists); ``boards`` ({row_id: SVG}):
    a row's board folded in its position cell (the others name the command
    that draws it)."""
    n = obj["total"]
    heading = heading or _criteria_text(obj["criteria"]).capitalize()
    ident = f' id="{escape(anchor)}"' if anchor else ""
    html = [f"<h3{ident}>{escape(heading)}: {n}</h3>"]
    if obj["shown"] < n:
        first = "costliest" if obj["order"].startswith("costliest") else "first"
        flags = {"errors": " --errors", "blunders": " --blunders"}.get(obj["criteria"].get("severity"), "")
        html.append(f'<p class="note">The {obj["shown"]} {first} of {n}; '
                    f"`gnubg-blunder positions{flags} --limit 0` lists them all.</p>")
    boards = boards or {}
    rows = [[r["match_id"], r["date"], r["game"], r["move"], r.get("gnubg_row"), r["player"], r["kind"], r.get("dice"),
             r.get("played"), r.get("best"), None if r["error_mpt"] is None else f"{r['error_mpt']:.1f}",
             r["position_id"]]
            for r in obj["decisions"]]
    table = table_html(rows, ["match", "date", "game", "move", "gnubg row", "player", "kind", "dice", "played", "best",
                              "e (mpt)", "position"], "lllllllllrrl") if rows else '<p class="muted">None.</p>'
    for r in obj["decisions"]:  # the position cell unfolds its board
        if boards.get(r["row_id"]) and r["position_id"]:
            cell = html_cell(r["position_id"])
            table = table.replace(f'<td class="l">{cell}</td>', f'<td class="l"><details class="board"><summary>'
                                  f'{cell}</summary>{boards[r["row_id"]]}</details></td>', 1)
    html.append(table)
    if rows and len(boards) < len(rows):
        html.append('<p class="note">' + (f"The first {len(boards)} positions unfold their board; " if boards else "")
                    + "`gnubg-blunder board show POSITION_ID` draws a position's board (dice: the roll of a checker play; "
                    "— for a cube decision).</p>")
    if fold and rows:
        return folded(html[0], "".join(html[1:]))
    return "".join(html)


def positions_table(obj: dict) -> Table:
    return Table(COLUMNS, [[r.get(c) for c in COLUMNS] for r in obj["decisions"]])


DEFAULT_LIMIT = 50


def parse_limit(value: str) -> int:
    return count_option(value, "--limit")


def listing(scope, criteria: dict, limit: int, order: str = "cost") -> dict:
    """The drill-down object of ``positions`` and ``summary --list``: the
    counted decisions of the scope narrowed by ``criteria``."""
    sel, flt, thresholds = scope.selection, scope.filter, scope.thresholds
    criteria = dict(criteria)
    last = criteria.pop("last", None)
    try:
        mask = _metrics_summary.pick(sel, thresholds, flt.decision_type, **criteria)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for name in ("phase", "game_plan", "theme"):
        if criteria.get(name):
            criteria[name] = _arrays.LABELS[name][_metrics_summary.label_code(name, criteria[name])]
    idx = np.nonzero(mask)[0]
    if last is not None:
        idx = idx[-last:]  # the last N in play order, as the rolling figure takes them
        criteria["last"] = last
    total = len(idx)
    if order == "cost":
        idx = _metrics_summary.cost_order(sel, idx)
    shown = idx[:limit] if limit else idx
    records = attach_moves(_metrics_summary.decision_records(sel, shown, thresholds), scope.store)
    obj = positions_object(records, total, flt, criteria, limit or None)
    if order != "cost":
        obj["order"] = "play order (match date, undated matches by import time, then move order)"
    return obj


@dataclass
class PositionsParams(DecisionCriteria):
    """``positions``' own options: the decision criteria, then ``--limit``."""

    limit: str = param(Option(("--limit",), metavar="N", help=f"at most N decisions, costliest first "
                                                              f"(default {DEFAULT_LIMIT}; 0 = all)"),
                       default=str(DEFAULT_LIMIT))  # as written: parse_limit reads it (0 = all)


def add_own_options(p) -> None:
    """``positions``' own options on another command's parser (``collection add --from positions``)."""
    add_options(p, PositionsParams, defaults=True)


def compute(scope, params: PositionsParams) -> dict:
    return listing(scope, params.criteria(), parse_limit(params.limit))


def positions_view_text(obj: dict) -> str:
    text = f"Scope: {scope_text(obj['filter'])}\n" + positions_text(obj)
    if obj["filter"].get("family") and obj["criteria"].get("severity") == "decisions":
        text += ("\n(--family keeps the family's decisions; its members in the study plan are the counted errors "
                 "among them: add --errors. docs/plan.md)")
    return text


VIEW = View("positions", "the decisions behind a count (drill-down)", compute, positions_view_text,
            table=positions_table, html=positions_html, params=PositionsParams)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
