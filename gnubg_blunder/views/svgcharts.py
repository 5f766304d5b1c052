"""Small inline SVG charts for the HTML report: no scripts, no ids, no
external anything; every text escaped.  Charts draw numbers that metrics
computed; they compute nothing."""

from __future__ import annotations

from html import escape
from typing import Optional, Sequence

FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
INK = "#1f2328"
MUTED = "#6e7781"
BAR = "#3b6ea5"
ACCENT = "#b5532a"


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def bar_chart(labels: Sequence[str], values: Sequence[Optional[float]], *, title: str, unit: str = "",
              width: int = 640, bar_height: int = 18, value_format: str = "{:.2f}") -> str:
    """Horizontal bars, one per label; a value of None is drawn as "—"."""
    n = len(labels)
    label_w = min(260, 12 + 7 * max((len(str(l)) for l in labels), default=4))
    top = 26
    height = top + n * (bar_height + 6) + 8
    finite = [v for v in values if v is not None]
    vmax = max(finite) if finite and max(finite) > 0 else 1.0
    plot_w = width - label_w - 90
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12">',
             f"<title>{escape(title)}</title>",
             f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>']
    for i, (label, v) in enumerate(zip(labels, values)):
        y = top + i * (bar_height + 6)
        parts.append(f'<text x="{label_w - 6}" y="{y + bar_height - 5}" text-anchor="end" fill="{INK}">'
                     f"{escape(str(label))}</text>")
        if v is None:
            parts.append(f'<text x="{label_w + 4}" y="{y + bar_height - 5}" fill="{MUTED}">—</text>')
            continue
        w = max(0.0, plot_w * v / vmax)
        parts.append(f'<rect x="{label_w}" y="{y}" width="{_n(w)}" height="{bar_height}" fill="{BAR}"/>')
        parts.append(f'<text x="{_n(label_w + w + 4)}" y="{y + bar_height - 5}" fill="{INK}">'
                     f"{escape(value_format.format(v) + unit)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def line_chart(points: Sequence[tuple], *, title: str, y_label: str, width: int = 640, height: int = 240,
               trend: Optional[Sequence[tuple]] = None, goal: Optional[float] = None) -> str:
    """Points (x as a number, y, size) joined in order; an optional trend
    line (list of (x, y)) and a horizontal goal line.  x labels are the
    first and last x given as text in points[i][3] when present."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12">',
             f"<title>{escape(title)}</title>",
             f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>']
    if not points:
        parts.append(f'<text x="0" y="40" fill="{MUTED}">no dated matches</text></svg>')
        return "".join(parts)
    left, right, top, bottom = 48, 16, 28, 28
    xs = [p[0] for p in points] + [t[0] for t in (trend or [])]
    ys = [p[1] for p in points] + [t[1] for t in (trend or [])] + ([goal] if goal is not None else [])
    x0, x1 = min(xs), max(xs)
    y0, y1 = 0.0, max(max(ys), 1.0) * 1.1
    if x1 == x0:
        x1 = x0 + 1

    def sx(x):
        return left + (width - left - right) * (x - x0) / (x1 - x0)

    def sy(y):
        return height - bottom - (height - top - bottom) * (y - y0) / (y1 - y0)

    parts.append(f'<line x1="{left}" y1="{sy(0)}" x2="{width - right}" y2="{_n(sy(0))}" stroke="{MUTED}"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{_n(sy(0))}" stroke="{MUTED}"/>')
    for frac in (0.5, 1.0):
        yv = y1 / 1.1 * frac
        parts.append(f'<text x="{left - 4}" y="{_n(sy(yv) + 4)}" text-anchor="end" fill="{MUTED}">{_n(yv)}</text>')
    parts.append(f'<text x="{left - 4}" y="{_n(sy(0) + 4)}" text-anchor="end" fill="{MUTED}">0</text>')
    parts.append(f'<text x="4" y="{top - 6}" fill="{MUTED}">{escape(y_label)}</text>')
    if goal is not None:
        parts.append(f'<line x1="{left}" y1="{_n(sy(goal))}" x2="{width - right}" y2="{_n(sy(goal))}" '
                     f'stroke="{ACCENT}" stroke-dasharray="6 4"/>'
                     f'<text x="{width - right}" y="{_n(sy(goal) - 4)}" text-anchor="end" fill="{ACCENT}">goal</text>')
    if trend and len(trend) >= 2:
        parts.append(f'<line x1="{_n(sx(trend[0][0]))}" y1="{_n(sy(trend[0][1]))}" x2="{_n(sx(trend[-1][0]))}" '
                     f'y2="{_n(sy(trend[-1][1]))}" stroke="{ACCENT}" stroke-width="1.5"/>')
    path = " ".join(f"{_n(sx(p[0]))},{_n(sy(p[1]))}" for p in points)
    parts.append(f'<polyline points="{path}" fill="none" stroke="{BAR}" stroke-width="1"/>')
    for p in points:
        r = 2.5 + min(6.0, (p[2] or 0) ** 0.5 / 3) if len(p) > 2 else 3
        parts.append(f'<circle cx="{_n(sx(p[0]))}" cy="{_n(sy(p[1]))}" r="{_n(r)}" fill="{BAR}" fill-opacity="0.7"/>')
    labelled = [p for p in points if len(p) > 3 and p[3]]
    if labelled:
        a, b = labelled[0], labelled[-1]
        parts.append(f'<text x="{_n(sx(a[0]))}" y="{height - 8}" fill="{MUTED}">{escape(str(a[3]))}</text>')
        if b is not a:
            parts.append(f'<text x="{_n(sx(b[0]))}" y="{height - 8}" text-anchor="end" fill="{MUTED}">'
                         f"{escape(str(b[3]))}</text>")
    parts.append("</svg>")
    return "".join(parts)
