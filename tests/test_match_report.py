"""``report --match ID|last --html FILE`` (docs/report.md): one match's page
on the shared fixture database (tests/fixture_db.py): the head, the review,
one chart of the cumulative MWC lost of both sides whose ends are each
side's MWC lost of ``matches``, the transcript with every decision; and
``bdb.report()`` (the match just stored) outside gnubg.  The real-gnubg
run of ``>bdb.report()`` is in tests/test_gnubg_console.py."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from fixture_db import HOSTILE, MATCHES
from test_report import CHROMIUM, CHROMIUM_FLAGS

CHART = re.compile(r'<svg\b[^>]*aria-label="Cumulative [^"]*".*?</svg>', re.S)


def _page(cli, db, path, *args) -> str:
    res = cli("--no-config", "report", "--html", path, *args, db=db)
    assert f"written to {path}" in res.stdout
    return path.read_text(encoding="utf-8")


def _section(html: str, ident: str) -> str:
    start = html.index(f'<section id="{ident}">')
    return html[start:html.index("</section>", start)]


@pytest.fixture(scope="module")
def matches(db):
    from conftest import run_cli_inprocess as cli

    return {m["id"]: m for m in json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"]}


def _object(db, which):
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.views.match_report import build

    with SQLiteStore(db, upgrade=False) as st:
        return build(st, Filter(), thresholds_for(st), str(which))


@pytest.mark.parametrize("mid", [1, 2, 3, 4, 5])
def test_curve_ends_are_each_sides_figures_of_matches(db, cli, matches, mid, tmp_path):
    """The chart's last point of each side = that side's MWC lost of
    ``matches --format json`` (money: its error in EMG); its series are the
    transcript's running sums; one chart, two series, a line a new game."""
    m = matches[mid]
    obj = _object(db, mid)
    money = m["length"] == 0
    key = "error_emg" if money else "mwc_loss"
    assert obj["curve"]["unit"] == ("EMG" if money else "% MWC")
    assert [s["player"] for s in obj["curve"]["series"]] == m["players"]
    for k, series in enumerate(obj["curve"]["series"]):
        assert series["end"] == pytest.approx(m["sides"][k][key], abs=1e-9)
        assert len(series["values"]) == len(obj["transcript"])

    html = _page(cli, db, tmp_path / "m.html", "--match", mid)
    charts = CHART.findall(html)
    assert len(charts) == 1
    chart = charts[0]
    titles = re.findall(r'<polyline class="series"[^>]*><title>([^<]*)</title>', chart)
    assert len(titles) == 2
    fmt = "{:.3f}" if money else "{:.2f}"
    for k, title in enumerate(titles):
        name = m["players"][k].replace("<", "&lt;").replace(">", "&gt;")
        assert title == f"{name}: {fmt.format(m['sides'][k][key])} at the end"
    assert ("cumulative error (EMG)" if money else "cumulative MWC lost (% points)") in chart
    assert chart.count('class="boundary"') == m["games"] - 1 == len(obj["curve"]["game_starts"])


@pytest.mark.parametrize("mid", [1, 4])
def test_transcript_has_every_decision_of_the_match(db, cli, mid, tmp_path):
    html = _page(cli, db, tmp_path / "m.html", "--match", mid)
    transcript = json.loads(cli("--no-config", "review", mid, "--transcript", "--format", "json", db=db).stdout)
    rows = transcript["transcript"]
    expected = len(next(m for m in MATCHES if m["id"] == mid)["decisions"])
    assert len(rows) == expected
    part = _section(html, "transcript")
    assert part.count("<tr") - 1 == expected  # the header row aside
    assert f"Transcript: {expected} decisions" in part
    assert part.count('<tr class="grey">') == sum(not r["counted"] for r in rows)
    # the last row's running sums are those of the page's chart
    last = part.rsplit("<tr", 1)[1]
    cum = rows[-1]["cum_error_emg" if mid == 4 else "cum_mwc_loss"]
    digits = 3 if mid == 4 else 2
    assert last.endswith(f'<td class="r">{cum[0]:.{digits}f}</td><td class="r">{cum[1]:.{digits}f}</td></tr>'
                         "</table>")


def test_head_review_and_self_contained(db, cli, tmp_path):
    html = _page(cli, db, tmp_path / "m.html", "--match", "1")
    assert html.startswith("<!DOCTYPE html>") and "<title>Match 1: charlot1 vs charlot2</title>" in html
    head = _section(html, "match")
    # names isolated (<bdi>, docs/reliability.md)
    assert "<bdi>charlot1</bdi> vs <bdi>charlot2</bdi>" in head and "7-point match" in head
    assert "<bdi>charlot1</bdi> won (7–0)" in head
    review = _section(html, "review")
    assert "Match review — match 1: <bdi>charlot1</bdi> vs <bdi>charlot2</bdi>" in review
    assert "<h3><bdi>charlot1</bdi></h3>" in review and "<h3><bdi>charlot2</bdi></h3>" in review  # both sides
    assert "Luck-adjusted result" in review and "Hasty vs considered" in review
    assert review.count("<svg") >= 1  # the decisions to review on their boards
    assert "<script" not in html.lower() and not re.search(r"\bon[a-z]+\s*=", html, re.IGNORECASE)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html, re.IGNORECASE)
    assert "<img" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert " id=" not in "".join(re.findall(r"<svg\b.*?</svg>", html, re.S))  # SVGs coexist


def test_player_picks_the_side_and_hostile_names_are_text(db, cli, tmp_path):
    html = _page(cli, db, tmp_path / "m.html", "--match", "2", "--player", "Squire/Jørgensen")
    review = _section(html, "review")
    assert "<h3><bdi>Squire/Jørgensen</bdi></h3>" in review and "<h3><bdi>charlot1</bdi></h3>" not in review
    assert len(re.findall(r'<polyline class="series"', html)) == 2  # the chart keeps both sides
    html = _page(cli, db, tmp_path / "h.html", "--match", "5")
    assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "unfinished (score 1–0)" in _section(html, "match")


def test_last_is_the_most_recently_stored(db, cli, tmp_path):
    latest = json.loads(cli("--no-config", "review", "--format", "json", db=db).stdout)["match_id"]
    html = _page(cli, db, tmp_path / "m.html", "--match", "last")
    assert f"<title>Match {latest}:" in html


def test_unknown_or_wrong_match_is_one_line(db, cli, tmp_path):
    out = tmp_path / "m.html"
    for which, words in (("9999", "report --match 9999: no stored match has this ID"),
                         ("x", "report --match 'x': give a match ID")):
        res = cli("--no-config", "report", "--match", which, "--html", out, db=db, check=False)
        assert res.returncode == 2 and words in res.stderr and len(res.stderr.strip().splitlines()) == 1
        assert not out.exists()
    res = cli("--no-config", "report", "--match", "3", "--player", "charlot1", "--html", out, db=db, check=False)
    assert res.returncode == 2 and "report --match 3: charlot1 did not play this match" in res.stderr


def test_bdb_report_is_the_match_just_stored(db_copy, tmp_path, capsys, monkeypatch):
    """``bdb.report()`` after a store in the session: that match's page;
    ``match=ID`` another; ``match="all"`` the collection report (also the
    default before anything was stored); a failure is one line and None."""
    from gnubg_blunder.gnubg.console import Bdb

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    bdb = Bdb(db_path=str(db_copy))
    assert "match=\"all\"" in repr(bdb)
    collection = bdb.report()
    assert collection == str(tmp_path / "gnubg-blunder-report.html")
    assert "<b>Scope:</b>" in (tmp_path / "gnubg-blunder-report.html").read_text(encoding="utf-8")
    bdb.stored_match_id = 3  # what bdb.store() / bdb.analyse() keep
    path = bdb.report()
    assert path == str(tmp_path / "gnubg-blunder-match-3.html")
    assert "<title>Match 3: charlot2 vs Squire/Jørgensen</title>" in open(path, encoding="utf-8").read()
    other = bdb.report(tmp_path / "two.html", match=2)
    assert "<title>Match 2:" in (tmp_path / "two.html").read_text(encoding="utf-8") and other
    assert bdb.report(tmp_path / "all.html", match="all", options="--player charlot1")
    assert "<b>Scope:</b> player charlot1" in (tmp_path / "all.html").read_text(encoding="utf-8")
    capsys.readouterr()
    assert bdb.report(tmp_path / "none.html", match=77) is None
    said = capsys.readouterr().out.strip().splitlines()
    assert said == ["error: report --match 77: no stored match has this ID (see `matches`)"]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_a_real_browser_renders_the_match_page(db, cli, matches, tmp_path):
    path = tmp_path / "m.html"
    _page(cli, db, path, "--match", "1")
    png = tmp_path / "m.png"
    subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile1'}",
                    f"--screenshot={png}", "--window-size=1000,2400", path.as_uri()],
                   capture_output=True, timeout=120)
    assert png.exists() and png.stat().st_size > 20_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile2'}",
                          "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "Match review — match 1" in dom and "Transcript: 11 decisions" in dom
    for side in matches[1]["sides"]:
        assert f"{side['player']}: {side['mwc_loss']:.2f}" in dom  # the chart's legend
    assert len(CHART.findall(dom)) == 1
