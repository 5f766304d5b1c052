"""The standalone HTML report: one file, no scripts at all, no external
images or styles; charts and boards as inline SVG; every name and comment
escaped (SPEC §14).

The page is made of sections.  Each is a plugin's ``register_report_sections``
(the built-in ones are in ``default_plugins/report_sections.py``): a name,
an order and a function ``(ReportContext) -> str`` returning an HTML
fragment.  Sections render figures that metrics computed; they compute none.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from html import escape
from typing import Callable, Optional

from .. import __version__
from . import formatting

STYLE = """
body{font-family:"DejaVu Sans",Arial,sans-serif;color:#1f2328;background:#fff;margin:24px auto;max-width:1000px;
line-height:1.4;font-size:14px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;border-bottom:2px solid #d0d7de;padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;margin:8px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f6f8fa}td.l,th.l{text-align:left}
.scope{background:#f6f8fa;border:1px solid #d0d7de;padding:8px 12px;margin:12px 0}
.headline{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.figure{border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:130px}
.figure .v{font-size:22px;font-weight:bold}.figure .k{color:#57606a;font-size:12px}
.muted,.grey{color:#6e7781}.small td{color:#6e7781}.note{color:#57606a;font-size:12px}
.decision{display:flex;gap:16px;align-items:flex-start;border-top:1px solid #d0d7de;padding:10px 0}
.decision .facts{min-width:280px}
mark{background:#fff3b0}tr.highlight td{background:#fff8c5;font-weight:bold}
@media print{body{margin:0}.decision{break-inside:avoid}}
"""


@dataclass
class ReportContext:
    """What every section gets: the store (for drill-down rows), the filter,
    its selection and thresholds; ``cache`` holds figures sections share."""

    store: object
    filter: object
    selection: object
    thresholds: object
    metric: str = "pr"
    cache: dict = field(default_factory=dict)

    def once(self, key: str, compute: Callable):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


def sections(pm=None) -> list:
    """[(order, name, function)] from every plugin, in order."""
    from ..plugins import get_plugin_manager

    pm = pm or get_plugin_manager()
    found = []

    def register(name: str, function: Callable, order: int = 100):
        found.append((order, name, function))

    pm.hook.register_report_sections(register=register)
    return sorted(found, key=lambda t: (t[0], t[1]))


def scope_text(flt) -> str:
    """The filter in words (the report names its scope at the top)."""
    return formatting.scope_text(flt.to_json())


def build_report(ctx: ReportContext, title: Optional[str] = None) -> str:
    title = title or "gnubg-blunder report"
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = []
    for _order, name, function in sections():
        try:
            html = function(ctx)
        except Exception as exc:  # one broken section must not lose the report
            html = (f'<section><h2>{escape(name)}</h2><p class="note">This section could not be made: '
                    f"{escape(type(exc).__name__)}: {escape(str(exc))}</p></section>")
        if html:
            body.append(html)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="note">Made by gnubg-blunder {escape(__version__)} on {escape(now)}. '
        "Figures from the stored analyses (gnubg or eXtreme Gammon); “—” means never measured.</p>"
        f'<div class="scope"><b>Scope:</b> {escape(scope_text(ctx.filter))}</div>'
        + "".join(body)
        + "</body></html>\n"
    )


def write_report(store, flt, thresholds, path, metric: str = "pr", title: Optional[str] = None) -> str:
    """Write the report of ``flt`` to ``path``; returns the HTML."""
    sel = store.select(flt)
    ctx = ReportContext(store=store, filter=flt, selection=sel, thresholds=thresholds, metric=metric)
    html = build_report(ctx, title)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(html)
    return html


def table_html(rows: list, headers: list, align: Optional[str] = None, row_classes: Optional[list] = None) -> str:
    """An HTML table; every cell escaped; None is "—"."""
    align = align or "l" + "r" * (len(headers) - 1)
    out = ["<table><tr>"]
    out += [f'<th class="{"l" if a == "l" else "r"}">{escape(str(h))}</th>' for h, a in zip(headers, align)]
    out.append("</tr>")
    for i, r in enumerate(rows):
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{cls}>")
        for v, a in zip(r, align):
            out.append(f'<td class="{"l" if a == "l" else "r"}">{"—" if v is None else escape(str(v))}</td>')
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)
