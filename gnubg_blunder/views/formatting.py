"""Text formatting shared by every view: "—" for never measured, never 0."""

from __future__ import annotations

import json
from typing import Optional

DASH = "—"


def num(x: Optional[float], digits: int = 2, signed: bool = False) -> str:
    if x is None:
        return DASH
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def percent(share: Optional[float], digits: int = 1) -> str:
    """A share (0.125) written as a percentage ("12.5 %"); "—" unknown."""
    return DASH if share is None else f"{share:.{digits}%}".replace("%", " %")


def interval(ci, digits: int = 2) -> str:
    if not ci:
        return "(no interval)"
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def elo_text(elo: Optional[float], bound: bool) -> str:
    if elo is None:
        return DASH
    return ("≤ " if bound else "") + f"{round(elo) + 0:d}"


def safe_text(s) -> str:
    """User data as printable text (control characters escaped)."""
    if s is None:
        return DASH
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(s))


def scope_text(f: dict, ignored: tuple = (), everything: str = "every stored match, both sides") -> str:
    """The filter in words (every view names its scope, and whose figures
    they are: a player, or both sides); ``f`` is ``Filter.to_json()``; keys
    in ``ignored`` are left out (a view that names its players itself
    ignores "player")."""
    parts = []
    if f.get("player") and "player" not in ignored:
        parts.append(f"player {safe_text(f['player'])}")
    if f.get("tournaments"):
        parts.append("tournaments " + ", ".join(safe_text(t) for t in f["tournaments"]))
    if f.get("date_from") or f.get("date_to"):
        parts.append(f"dates {f.get('date_from') or '…'} to {f.get('date_to') or '…'}")
    if f.get("lengths"):
        parts.append("lengths " + ", ".join("money" if x == 0 else str(x) for x in f["lengths"]))
    if f.get("decision_type") and f["decision_type"] != "all" and "decision_type" not in ignored:
        parts.append(f"{f['decision_type']} decisions")
    if f.get("engine"):
        parts.append(f"engine {f['engine']}")
    if f.get("min_depth") is not None:
        parts.append(f"depth ≥ {f['min_depth']:g}")
    if parts and not f.get("player") and "player" not in ignored:
        parts.append("both sides")
    return ", ".join(parts) if parts else everything


POOLED = "both sides pooled"  # the label of a one-player figure (level, luck) computed over both sides


def whose(f: dict) -> str:
    """Whose figures a filter's selection holds: the filter's player, else
    both sides of every match (``f`` is ``Filter.to_json()``)."""
    return f"player {safe_text(f['player'])}" if f.get("player") else "both sides of every match"


def table(rows: list, headers: list, align: Optional[str] = None) -> str:
    """A plain text table; align is a string of 'l'/'r' per column."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)
    lines = []
    for k, r in enumerate(cells):
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)]
        lines.append("  ".join(parts).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


class Table:
    """A view's one table, declared once: ``headers`` (the CSV header and
    the HTML table's head) and ``rows`` (cells, None = unknown).  CSV and
    HTML are written from it by :func:`csv_of` and :func:`html_of`."""

    def __init__(self, headers, rows):
        self.headers = list(headers)
        self.rows = [list(r) for r in rows]

    def csv(self) -> str:
        return csv_text(self.rows, self.headers)

    def html(self) -> str:
        return html_table(self.rows, self.headers)


def html_table(rows: list, headers: list) -> str:
    """A table as HTML; None is "—" (never measured); numbers as Python
    writes them (the same digits as CSV); user text escaped."""
    from html import escape

    def cell(v):
        if v is None:
            return DASH
        return escape(str(v))

    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f'<table class="view"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def table_html(rows: list, headers: list, align: Optional[str] = None, row_classes: Optional[list] = None) -> str:
    """An HTML table of the report's style: every cell escaped, None is "—";
    ``align`` a string of 'l'/'r' per column (default: first left, the rest
    right); ``row_classes`` a class (or None) per row ("grey", "highlight")."""
    from html import escape

    align = align or "l" + "r" * (len(headers) - 1)
    out = ["<table><tr>"]
    out += [f'<th class="{"l" if a == "l" else "r"}">{escape(str(h))}</th>' for h, a in zip(headers, align)]
    out.append("</tr>")
    for i, r in enumerate(rows):
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{cls}>")
        for v, a in zip(r, align):
            out.append(f'<td class="{"l" if a == "l" else "r"}">{DASH if v is None else escape(str(v))}</td>')
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def csv_text(rows: list, headers: list) -> str:
    """A table as CSV (RFC 4180); None is written as an empty field (the
    reader's "unknown"), never 0."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(headers)
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
    return buf.getvalue().rstrip("\n")
