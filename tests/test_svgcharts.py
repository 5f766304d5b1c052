"""The report's inline SVG charts (gnubg_blunder/views/svgcharts.py): the
progression chart stays readable when the matches share one date (x falls
back to match order), no two texts print on the same spot, the axis title
keeps clear of the chart title, the level bands are drawn."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

from gnubg_blunder.metrics.levels import BANDS
from gnubg_blunder.views.svgcharts import line_chart

DAY = dt.date(2025, 3, 20).toordinal()
TITLE = "PR per match (point size: decisions)"


def _texts(svg: str) -> list:
    """(x, y, text) of every <text> element."""
    return [(float(x), float(y), t) for x, y, t in
            re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</text>', svg)]


def _circles(svg: str) -> list:
    return [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"', svg)]


def _boxes_overlap(a, b, font=12) -> bool:
    """Rough text boxes (start-anchored width ~0.62 em a character) overlap."""
    (xa, ya, ta, anchor_a), (xb, yb, tb, anchor_b) = a, b

    def span(x, t, anchor):
        w = 0.62 * font * len(t)
        return {"end": (x - w, x), "middle": (x - w / 2, x + w / 2)}.get(anchor, (x, x + w))

    (l1, r1), (l2, r2) = span(xa, ta, anchor_a), span(xb, tb, anchor_b)
    return abs(ya - yb) < font and l1 < r2 and l2 < r1


def _anchored(svg: str) -> list:
    out = []
    for attrs, t in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg):
        x = float(re.search(r'x="([-\d.]+)"', attrs).group(1))
        y = float(re.search(r'y="([-\d.]+)"', attrs).group(1))
        anchor = re.search(r'text-anchor="(\w+)"', attrs)
        size = re.search(r'font-size="([\d.]+)"', attrs)
        out.append(((x, y, t, anchor.group(1) if anchor else "start"), float(size.group(1)) if size else 12))
    return out


def assert_readable(svg: str):
    texts = _anchored(svg)
    spots = Counter((x, y) for (x, y, _t, _a), _s in texts)
    assert not [s for s, n in spots.items() if n > 1], spots  # no two texts at the same coordinates
    for i, (a, fa) in enumerate(texts):
        for b, fb in texts[i + 1:]:
            assert not _boxes_overlap(a, b, max(fa, fb)), (a, b)
    for (x, _y, t, anchor), size in texts:  # nothing drawn off the left edge
        assert x >= 0 and (anchor != "end" or x >= 0.62 * size * len(t) - 1), (x, t, anchor)


def same_day_points(n=5):
    prs = [13.3, 35.0, 11.7, 12.5, 7.5][:n]
    return [(DAY, pr, 10 + i, "2025-03-20") for i, pr in enumerate(prs)]


def test_one_date_falls_back_to_match_order():
    svg = line_chart(same_day_points(), title=TITLE, y_label="PR", bands=BANDS)
    xs = [x for x, _y in _circles(svg)]
    assert len(xs) == 5 and len(set(xs)) == 5, xs  # one x per match
    assert xs == sorted(xs)  # in the order given
    assert "match order" in svg and "2025-03-20" in svg
    assert_readable(svg)


def test_axis_title_clear_of_chart_title():
    svg = line_chart(same_day_points(), title=TITLE, y_label="PR", bands=BANDS)
    texts = _texts(svg)
    title = [t for t in texts if t[2] == TITLE][0]
    axis = [t for t in texts if t[2] == "PR"][0]
    assert axis[1] - title[1] >= 14, (title, axis)  # a line apart at 12 px


def test_level_bands_drawn_and_named():
    svg = line_chart(same_day_points(), title=TITLE, y_label="PR", bands=BANDS)
    for _upper, name in BANDS:
        assert name in svg, name
    assert len(re.findall(r'<rect [^>]*class="band"', svg)) == len(BANDS)
    # no bands asked, none drawn
    assert 'class="band"' not in line_chart(same_day_points(), title=TITLE, y_label="PR")


def test_spread_dates_stay_on_a_date_axis():
    pts = [(DAY + 30 * i, pr, 10, (dt.date.fromordinal(DAY + 30 * i)).isoformat())
           for i, pr in enumerate([13.3, 35.0, 11.7, 12.5])]
    pts.append((DAY + 90, 7.5, 10, dt.date.fromordinal(DAY + 90).isoformat()))  # two on one day
    svg = line_chart(pts, title=TITLE, y_label="PR", bands=BANDS,
                     trend=[(DAY, 20.0), (DAY + 90, 10.0)], goal=4.0)
    xs = [x for x, _y in _circles(svg)]
    assert len(set(xs)) == 5, xs  # the two of one day side by side, not on top of each other
    assert "match order" not in svg
    assert "2025-03-20" in svg and dt.date.fromordinal(DAY + 90).isoformat() in svg
    assert_readable(svg)


@pytest.mark.parametrize("n", [1, 2, 40])
def test_few_and_many_points(n):
    pts = [(DAY, 5.0 + (i % 7), 10, "2025-03-20") for i in range(n)]
    svg = line_chart(pts, title=TITLE, y_label="PR", bands=BANDS)
    xs = [x for x, _y in _circles(svg)]
    assert len(set(xs)) == n
    assert_readable(svg)


def test_report_of_one_date(tmp_path):
    """The whole report on a database whose matches share one date."""
    from fixture_db import build_matches
    from gnubg_blunder.commands import Context, run
    from gnubg_blunder.database import SQLiteStore
    import io

    db = tmp_path / "one-day.db"
    with SQLiteStore(db) as st:
        for m in build_matches():
            m.date = "2025-03-20"
            st.add_match(m)
    out = tmp_path / "r.html"
    status = run(["--db", str(db), "--no-config", "report", "--html", str(out)],
                 Context(out=io.StringIO(), err=io.StringIO()))
    assert status == 0
    html = out.read_text(encoding="utf-8")
    section = html[html.index('<section id="progression">'):]
    svg = section[:section.index("</svg>") + 6]
    xs = [x for x, _y in _circles(svg)]
    assert len(xs) >= 2 and len(set(xs)) == len(xs), xs
    assert 'class="band"' in svg
    assert_readable(svg)
