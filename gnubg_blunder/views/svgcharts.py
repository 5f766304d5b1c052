"""Small inline SVG charts for the HTML report: no scripts, no ids, no
external anything; every text escaped.  Charts draw numbers that metrics
computed; they compute nothing."""

from __future__ import annotations

import math
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
              width: int = 640, bar_height: int = 18, value_format: str = "{:.2f}",
              label_title: str = "", value_title: str = "") -> str:
    """Horizontal bars, one per label; a value of None is drawn as "—".
    ``label_title`` heads the labels' axis, ``value_title`` is written under
    the bars (every chart's axes are titled)."""
    n = len(labels)
    label_w = min(260, 12 + 7 * max((len(str(l)) for l in [*labels, label_title]), default=4))
    top = 44 if label_title else 26
    height = top + n * (bar_height + 6) + 8 + (18 if value_title else 0)
    finite = [v for v in values if v is not None]
    vmax = max(finite) if finite and max(finite) > 0 else 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12">',
             f"<title>{escape(title)}</title>",
             f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>']
    plot_w = width - label_w - 90
    if label_title:
        parts.append(f'<text x="{label_w - 6}" y="36" text-anchor="end" fill="{MUTED}">{escape(label_title)}</text>')
    if value_title:
        parts.append(f'<text x="{_n(label_w + plot_w / 2)}" y="{height - 6}" text-anchor="middle" fill="{MUTED}">'
                     f"{escape(value_title)}</text>")
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


# Level bands, palest first (World class) to the warmest (Beginner).
BAND_FILLS = ("#e3f2e6", "#edf5dc", "#f7f4d9", "#fbecd6", "#f9e0d5", "#f4d6d6")
CHAR_W = 0.62  # a character's width in em, roughly (DejaVu Sans is wide): enough to keep texts apart
MIN_PLOT_H = 150  # px: the chart grows when its legend would leave less
MIN_TICK_GAP = 36  # px between two numbered ticks of the match-order axis
X_PAD = 14  # px inside each end of a date axis: the first and last points (and their neighbours) fit


def _text_w(text: str, size: float = 12) -> float:
    return CHAR_W * size * len(text)


def _nice_step(span: float, most: int = 5) -> float:
    """A 1-2-2.5-5 step giving at most ``most`` intervals over ``span``."""
    span = max(span, 1e-9)
    mag = 10 ** math.floor(math.log10(span / most))
    for m in (1, 2, 2.5, 5, 10):
        if span / (m * mag) <= most:
            return m * mag
    return 10 * mag  # pragma: no cover


def _band_rows(bands: Sequence[tuple]) -> list:
    """(low, high, name) from (upper bound, name) pairs (metrics.levels.BANDS:
    the first band starts at 0, the last has no end)."""
    rows, low = [], 0.0
    for upper, name in bands:
        rows.append((low, None if upper is None or math.isinf(upper) else float(upper), name))
        low = upper
    return rows


def _band_caption(low: float, high: Optional[float], name: str) -> str:
    if not low:
        return f"{name} < {_n(high)}"
    if high is None:
        return f"{name} ≥ {_n(low)}"
    return f"{name} {_n(low)}–{_n(high)}"


def line_chart(points: Sequence[tuple], *, title: str, y_label: str, width: int = 640, height: int = 240,
               trend: Optional[Sequence[tuple]] = None, goal: Optional[float] = None,
               bands: Optional[Sequence[tuple]] = None) -> str:
    """Points ``(x as a number, y, size, label)`` (size and label optional)
    joined in the order given; an optional trend line (list of (x, y)), a
    horizontal goal line and level bands (``(upper bound, name)`` pairs,
    ``metrics.levels.BANDS``: shaded behind the points, named in a legend).

    The x axis is x (a day number; labels: the first and last point's label)
    while the points spread over at least two x values; points that share
    an x stand side by side.  When every point has the same x (every match on
    one date) the axis is the points' order instead, numbered from 1, and the
    trend (drawn against x) is left out.  Texts never print on one another:
    tick labels are thinned to fit, the axis titles have their own lines."""
    def svg(parts, height):
        return "".join([f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
                        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12">',
                        f"<title>{escape(title)}</title>",
                        f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>',
                        *parts, "</svg>"])

    if not points:
        return svg([f'<text x="0" y="40" fill="{MUTED}">no dated matches</text>'], height)
    parts = []
    band_rows = _band_rows(bands) if bands else []
    legend_rows = _legend_layout(band_rows, width)
    # vertical layout: title 16, y-axis title 34, plot, x ticks, x-axis title, band legend
    left, right, top = 48, (40 if goal is not None else 16), 46  # "goal" is written right of the plot
    legend_h = 18 * len(legend_rows)
    bottom = 44 + (legend_h + 6 if legend_rows else 0)
    plot_h = height - top - bottom
    if plot_h < MIN_PLOT_H:  # the legend takes room of its own, not the plot's
        height += MIN_PLOT_H - plot_h
        plot_h = MIN_PLOT_H
    plot_w = width - left - right
    base = top + plot_h

    by_order = len({p[0] for p in points}) < 2 and len(points) > 1
    n = len(points)
    if by_order:
        xs = list(range(1, n + 1))
        x0, x1 = 0.5, n + 0.5
        trend = None
    else:
        xs = [p[0] for p in points]
        x0, x1 = min(xs + [t[0] for t in (trend or [])]), max(xs + [t[0] for t in (trend or [])])
    single = x1 == x0

    pad = 0 if by_order else X_PAD  # the match-order axis is padded by half a match each side already

    def sx(x):
        if single:
            return left + plot_w / 2
        return left + pad + (plot_w - 2 * pad) * (x - x0) / (x1 - x0)

    ys = [p[1] for p in points] + [t[1] for t in (trend or [])] + ([goal] if goal is not None else [])
    step = _nice_step(max(max(ys), 1.0) * 1.05)
    y1 = step * math.ceil(max(max(ys), 1.0) * 1.05 / step)

    def sy(y):
        return base - plot_h * y / y1

    # bands behind everything
    for i, (low, high, name) in enumerate(band_rows):
        if low >= y1:
            continue
        hi = y1 if high is None else min(high, y1)
        parts.append(f'<rect class="band" x="{left}" y="{_n(sy(hi))}" width="{plot_w}" '
                     f'height="{_n(sy(low) - sy(hi))}" fill="{BAND_FILLS[i % len(BAND_FILLS)]}">'
                     f"<title>{escape(_band_caption(low, high, name))}</title></rect>")
    parts.append(f'<line x1="{left}" y1="{_n(base)}" x2="{width - right}" y2="{_n(base)}" stroke="{MUTED}"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{_n(base)}" stroke="{MUTED}"/>')
    k = 0
    while k * step <= y1 + 1e-9:
        yv = k * step
        parts.append(f'<text x="{left - 4}" y="{_n(sy(yv) + 4)}" text-anchor="end" fill="{MUTED}">{_n(yv)}</text>')
        k += 1
    parts.append(f'<text x="4" y="34" fill="{MUTED}">{escape(y_label)}</text>')
    if goal is not None:
        parts.append(f'<line x1="{left}" y1="{_n(sy(goal))}" x2="{width - right}" y2="{_n(sy(goal))}" '
                     f'stroke="{ACCENT}" stroke-dasharray="6 4"/>'
                     f'<text x="{width - right + 4}" y="{_n(sy(goal) + 4)}" fill="{ACCENT}">goal</text>')
    if trend and len(trend) >= 2:
        parts.append(f'<line x1="{_n(sx(trend[0][0]))}" y1="{_n(sy(trend[0][1]))}" x2="{_n(sx(trend[-1][0]))}" '
                     f'y2="{_n(sy(trend[-1][1]))}" stroke="{ACCENT}" stroke-width="1.5"/>')

    # points: those sharing an x stand side by side (at most 40 px wide a group)
    px = [sx(x) for x in xs]
    if not by_order:
        groups: dict = {}
        for i, x in enumerate(xs):
            groups.setdefault(x, []).append(i)
        for members in groups.values():
            if len(members) > 1:
                gap = min(8.0, 40.0 / (len(members) - 1))
                for j, i in enumerate(members):
                    px[i] = min(max(px[i] + gap * (j - (len(members) - 1) / 2), left + 1), width - right - 1)
    path = " ".join(f"{_n(x)},{_n(sy(p[1]))}" for x, p in zip(px, points))
    parts.append(f'<polyline points="{path}" fill="none" stroke="{BAR}" stroke-width="1"/>')
    for x, p in zip(px, points):
        r = 2.5 + min(6.0, (p[2] or 0) ** 0.5 / 3) if len(p) > 2 else 3
        parts.append(f'<circle cx="{_n(x)}" cy="{_n(sy(p[1]))}" r="{_n(r)}" fill="{BAR}" fill-opacity="0.7"/>')

    # x tick labels and the x-axis title, each on its own line under the plot
    tick_y, axis_y = base + 16, base + 32
    labels = [str(p[3]) if len(p) > 3 and p[3] else "" for p in points]
    if by_order:
        spacing = plot_w / n  # px between two matches
        every = max(1, math.ceil(MIN_TICK_GAP / spacing))
        picks = list(range(0, n, every))
        if picks[-1] != n - 1:  # the last match is always numbered
            if (n - 1 - picks[-1]) * spacing < MIN_TICK_GAP and picks[-1] != 0:
                picks[-1] = n - 1
            else:
                picks.append(n - 1)
        for i in picks:
            parts.append(f'<text x="{_n(px[i])}" y="{_n(tick_y)}" text-anchor="middle" fill="{MUTED}">{i + 1}</text>')
        days = sorted(set(labels) - {""})
        on = f", every match on {days[0]}" if len(days) == 1 else ""
        parts.append(f'<text x="{_n(left + plot_w / 2)}" y="{_n(axis_y)}" text-anchor="middle" fill="{MUTED}">'
                     f"{escape('match order' + on)}</text>")
    else:
        named = [i for i in range(n) if labels[i]]
        if named:
            a, b = min(named, key=lambda i: xs[i]), max(named, key=lambda i: xs[i])
            if single or labels[a] == labels[b]:
                parts.append(f'<text x="{_n(left + plot_w / 2)}" y="{_n(tick_y)}" text-anchor="middle" '
                             f'fill="{MUTED}">{escape(labels[a])}</text>')
            else:
                parts.append(f'<text x="{left}" y="{_n(tick_y)}" fill="{MUTED}">{escape(labels[a])}</text>')
                if _text_w(labels[a]) + _text_w(labels[b]) + 8 <= plot_w:
                    parts.append(f'<text x="{width - right}" y="{_n(tick_y)}" text-anchor="end" fill="{MUTED}">'
                                 f"{escape(labels[b])}</text>")
        parts.append(f'<text x="{_n(left + plot_w / 2)}" y="{_n(axis_y)}" text-anchor="middle" fill="{MUTED}">'
                     f"date</text>")

    # the band legend: swatch and "name range", wrapped into rows
    for r, row in enumerate(legend_rows):
        y = axis_y + 10 + 18 * r
        for x, i in row:
            low, high, name = band_rows[i]
            parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="12" height="12" '
                         f'fill="{BAND_FILLS[i % len(BAND_FILLS)]}" stroke="{MUTED}" stroke-width="0.5"/>'
                         f'<text x="{_n(x + 16)}" y="{_n(y + 10)}" fill="{INK}" font-size="11">'
                         f"{escape(_band_caption(low, high, name))}</text>")
    return svg(parts, height)


def _legend_layout(band_rows: list, width: int) -> list:
    """Rows of (x, band index): items left to right, a new row when the next
    would pass the right edge."""
    widths = [16 + _text_w(_band_caption(*b), 11) + 14 for b in band_rows]
    per_row = len(widths)
    while per_row > 1 and any(sum(widths[k:k + per_row]) > width for k in range(0, len(widths), per_row)):
        per_row -= 1
    per_row = math.ceil(len(widths) / math.ceil(len(widths) / per_row)) if widths else 1  # rows evenly filled
    rows = []
    for k in range(0, len(widths), per_row):
        xs = [sum(widths[k:j]) for j in range(k, min(k + per_row, len(widths)))]
        rows.append([(x, k + j) for j, x in enumerate(xs)])
    return rows


SERIES_COLOURS = (BAR, ACCENT)


def cumulative_chart(series: Sequence[tuple], *, title: str, y_label: str, x_label: str = "decision (match order)",
                     boundaries: Sequence[tuple] = (), width: int = 640, height: int = 280,
                     value_format: str = "{:.2f}", min_span: float = 1.0) -> str:
    """Running sums of two (or more) sides over one sequence of decisions.

    ``series``: ``(name, ys)`` with ``ys[i]`` the side's running sum after
    decision ``i + 1`` (every series as long as the sequence); each is drawn
    from 0 at x = 0 as a polyline whose ``<title>`` names its side and its
    last value, and named in a legend with that value.  ``boundaries``:
    ``(k, label)`` — a dashed vertical line between decision ``k`` and
    ``k + 1`` (a new game starts after decision ``k``), its label at the top,
    labels thinned so that none prints on another.  The y axis spans at
    least ``min_span`` (a match without errors still has a readable axis)."""
    def svg(parts, height):
        return "".join([f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" '
                        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT} font-size="12">',
                        f"<title>{escape(title)}</title>",
                        f'<text x="0" y="16" fill="{INK}" font-weight="bold">{escape(title)}</text>',
                        *parts, "</svg>"])

    n = max((len(ys) for _name, ys in series), default=0)
    if not n:
        return svg([f'<text x="0" y="40" fill="{MUTED}">no decisions</text>'], 60)
    parts = []
    legend_h = 18 * len(series)
    left, right, top = 56, 16, 60  # title, y-axis title, game labels above the plot
    bottom = 44 + legend_h + 6
    plot_h = max(height - top - bottom, MIN_PLOT_H)
    height = top + plot_h + bottom
    plot_w = width - left - right
    base = top + plot_h

    values = [y for _name, ys in series for y in ys if y is not None] + [0.0]
    lo, hi = min(values), max(values)
    hi = max(hi, lo + min_span)
    step = _nice_step((hi - lo) * 1.05)
    y0 = step * math.floor(lo / step) if lo < 0 else 0.0
    y1 = step * math.ceil(hi * 1.05 / step)
    if y1 <= y0:
        y1 = y0 + step

    def sx(x):
        return left + plot_w * x / n

    def sy(y):
        return base - plot_h * (y - y0) / (y1 - y0)

    parts.append(f'<line x1="{left}" y1="{_n(base)}" x2="{width - right}" y2="{_n(base)}" stroke="{MUTED}"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{_n(base)}" stroke="{MUTED}"/>')
    k = 0
    while y0 + k * step <= y1 + 1e-9:
        yv = y0 + k * step
        label = value_format.format(yv) if step < 0.1 else _n(yv)
        parts.append(f'<text x="{left - 4}" y="{_n(sy(yv) + 4)}" text-anchor="end" fill="{MUTED}">'
                     f"{escape(label)}</text>")
        if k:
            parts.append(f'<line x1="{left}" y1="{_n(sy(yv))}" x2="{width - right}" y2="{_n(sy(yv))}" '
                         f'stroke="#eaeef2"/>')
        k += 1
    parts.append(f'<text x="4" y="34" fill="{MUTED}">{escape(y_label)}</text>')

    # game boundaries: dashed lines, their labels thinned to fit
    last_label_x = -1e9
    for kk, label in boundaries:
        x = sx(kk + 0.5)
        parts.append(f'<line class="boundary" x1="{_n(x)}" y1="{top - 4}" x2="{_n(x)}" y2="{_n(base)}" '
                     f'stroke="{MUTED}" stroke-dasharray="3 3" stroke-width="0.8"/>')
        w = _text_w(str(label), 10)
        if x - w / 2 >= last_label_x + 4 and x + w / 2 <= width:
            parts.append(f'<text x="{_n(x)}" y="{top - 8}" text-anchor="middle" fill="{MUTED}" font-size="10">'
                         f"{escape(str(label))}</text>")
            last_label_x = x + w / 2

    # x ticks: a nice step over 0..n, n itself always numbered
    xstep = max(1, int(_nice_step(n, max(2, int(plot_w // MIN_TICK_GAP)))))
    ticks = list(range(0, n + 1, xstep))
    if ticks[-1] != n:
        if (n - ticks[-1]) * plot_w / n < MIN_TICK_GAP and len(ticks) > 1:
            ticks[-1] = n
        else:
            ticks.append(n)
    for t in ticks:
        parts.append(f'<text x="{_n(sx(t))}" y="{_n(base + 16)}" text-anchor="middle" fill="{MUTED}">{t}</text>')
    parts.append(f'<text x="{_n(left + plot_w / 2)}" y="{_n(base + 32)}" text-anchor="middle" fill="{MUTED}">'
                 f"{escape(x_label)}</text>")

    for s, (name, ys) in enumerate(series):
        colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
        pts, prev = [f"{_n(sx(0))},{_n(sy(0))}"], 0.0
        for i, y in enumerate(ys, 1):
            prev = prev if y is None else y
            pts.append(f"{_n(sx(i))},{_n(sy(prev))}")
        end = value_format.format(prev)
        dash = ' stroke-dasharray="6 3"' if s % 2 else ""
        parts.append(f'<polyline class="series" points="{" ".join(pts)}" fill="none" stroke="{colour}" '
                     f'stroke-width="2"{dash}><title>{escape(f"{name}: {end} at the end")}</title></polyline>')
        y = base + 44 + 18 * s
        parts.append(f'<line x1="{left}" y1="{_n(y - 4)}" x2="{left + 22}" y2="{_n(y - 4)}" stroke="{colour}" '
                     f'stroke-width="2"{dash}/>'
                     f'<text x="{left + 28}" y="{_n(y)}" fill="{INK}">{escape(f"{name}: {end}")}</text>')
    return svg(parts, height)
