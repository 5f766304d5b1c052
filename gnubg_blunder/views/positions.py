"""Drill-down lists: the decisions behind a count (``positions``, and
``summary --list``), as text, JSON or CSV.

The rows are :func:`gnubg_blunder.metrics.summary.decision_records`; the
played and best actions are read from the store (:func:`attach_moves`).
A view never computes a figure.
"""

from __future__ import annotations

from .formatting import DASH, csv_text, table, to_json

COLUMNS = ("position_id", "match_id", "date", "game", "move", "player", "kind", "played", "best", "error_mpt",
           "mwc_loss")


def attach_moves(records: list, store) -> list:
    """Add ``played`` and ``best`` (the actions as the analysis wrote them)
    to drill-down records, from ``store.decision_rows``."""
    rows = {r["id"]: r for r in store.decision_rows([r["row_id"] for r in records])}
    for r in records:
        row = rows.get(r["row_id"], {})
        r["played"] = row.get("played_move")
        r["best"] = row.get("best_move")
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
    headers = ["match", "date", "players", "game", "move", "player", "played", "best", "e mpt", "MWC %",
               "position ID"]
    align = "lllrrlllrrl"
    if numbered:
        headers = ["#"] + headers
        align = "r" + align
    rows = []
    for k, r in enumerate(records, 1):
        mark = " (blunder)" if r.get("blunder") else ""
        row = [r["match_id"], r["date"] or DASH, " v ".join(r["players"]), r["game"], r["move"], r["player"],
               r.get("played") or DASH, r.get("best") or DASH, _mpt(r["error_mpt"]) + mark, _mwc(r["mwc_loss"]),
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
        parts.append("#" + criteria["tag"].lstrip("#"))
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
             "(e in millipoints; MWC % = match winning chances lost, — for money; game and move counted from 1)"]
    return "\n".join(lines)


def positions_csv(obj: dict) -> str:
    return csv_text([[r.get(c) for c in COLUMNS] for r in obj["decisions"]], list(COLUMNS))


def positions_output(obj: dict, fmt: str, title: str = "Decisions") -> str:
    if fmt == "json":
        return to_json(obj)
    if fmt == "csv":
        return positions_csv(obj)
    return positions_text(obj, title)
