"""The HTML report: self-contained, escaped, and rendered by a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import run_cli
from fixture_db import HOSTILE, build_fixture_db

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    db = build_fixture_db(tmp / "fx.db")
    path = tmp / "report.html"
    res = run_cli("report", "--html", path, db=db)
    assert "report written" in res.stdout
    stats = run_cli("stats", "--format", "json", db=db).stdout
    return path, path.read_text(encoding="utf-8"), stats, db


def test_self_contained_no_scripts(report):
    _path, html, _stats, _db = report
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower()  # no scripts at all, the hostile name included
    assert not re.search(r"\bon[a-z]+\s*=", html, re.IGNORECASE)  # no event handlers
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html, re.IGNORECASE)
    assert "<img" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert len(re.findall(r"<svg\b", html)) >= 10  # charts and the ten boards, inline


def test_scope_and_headline(report):
    import json

    _path, html, stats, _db = report
    s = json.loads(stats)
    assert "<b>Scope:</b> every stored match, both sides" in html
    assert f"{s['pr']:.2f}" in html and f"{s['l7']:.2f}" in html
    assert html.count('class="decision"') == 10


def test_counts_link_to_their_lists_in_the_page(report):
    import json

    _path, html, stats, _db = report
    s = json.loads(stats)
    for what in ("errors", "blunders"):
        assert f'href="#list-{what}"' in html and f'id="list-{what}"' in html
        assert f'id="list-{what}">{what.capitalize()}: {s[what]}</h3>' in html
    # every internal link has its target in the page
    for anchor in re.findall(r'href="#([^"]+)"', html):
        assert f'id="{anchor}"' in html


def test_hostile_names_are_text(report):
    _path, html, _stats, _db = report
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_scope_of_a_player(report, tmp_path):
    _path, _html, _stats, db = report
    out = tmp_path / "p.html"
    run_cli("report", "--html", out, "--player", "charlot1", "--tournament", "Club A", db=db)
    assert "<b>Scope:</b> player charlot1, tournaments Club A" in out.read_text(encoding="utf-8")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_a_real_browser_renders_it(report, tmp_path):
    import json

    path, _html, stats, _db = report
    s = json.loads(stats)
    png = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile1'}",
                    f"--screenshot={png}", "--window-size=1000,3000", path.as_uri()],
                   capture_output=True, timeout=120)
    assert png.exists() and png.stat().st_size > 20_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile2'}",
                          "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "Headline" in dom and f"{s['pr']:.2f}" in dom and f"{s['l7']:.2f}" in dom
    # the hostile name is text in the rendered page, not an element
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "<script>alert(1)</script>" not in dom
    assert len(re.findall(r"<svg\b", dom)) >= 10


# -- whose figures: the headline (the filter's) and the progression chart (the progression's perspective) ----

def _section(html: str, ident: str) -> str:
    start = html.index(f'<section id="{ident}">')
    return html[start:html.index("</section>", start)]


def _report(cli, db, path, *args) -> str:
    cli("--no-config", "report", "--html", path, *args, db=db)
    return path.read_text(encoding="utf-8")


def _perspective(cli, db, *args):
    import json

    return json.loads(cli("--no-config", "progression", "--format", "json", *args, db=db).stdout)["perspective"]


def test_without_a_player_the_headline_is_both_sides_pooled(cli, db, tmp_path):
    html = _report(cli, db, tmp_path / "r.html")
    head = _section(html, "headline")
    assert "Figures of both sides of every match." in head
    assert "level, both sides pooled (this project&#x27;s bands)" in head  # a level is one player's
    assert _perspective(cli, db) is None
    assert "<title>PR per match of both sides pooled (point size: decisions)</title>" in _section(html, "progression")


def test_a_players_report_names_the_player_in_headline_and_chart(cli, db, tmp_path):
    html = _report(cli, db, tmp_path / "r.html", "--player", "charlot1")
    head = _section(html, "headline")
    assert "Figures of player charlot1." in head
    assert "level (this project&#x27;s bands)" in head and "pooled" not in head
    assert _perspective(cli, db, "--player", "charlot1") == "charlot1"
    assert "<title>PR per match of charlot1 (point size: decisions)</title>" in _section(html, "progression")


def test_the_chart_follows_the_main_player_as_the_progression_view_does(cli, db_copy, tmp_path):
    """The main player is the progression's perspective without --player:
    the chart names them; the headline stays both sides (the filter's)."""
    cli("main-player", "charlot2", db=db_copy)
    html = _report(cli, db_copy, tmp_path / "r.html")
    assert "Figures of both sides of every match." in _section(html, "headline")
    assert _perspective(cli, db_copy) == "charlot2"
    assert "<title>PR per match of charlot2 (point size: decisions)</title>" in _section(html, "progression")


def test_a_hostile_players_name_is_text_in_headline_and_chart(cli, db, tmp_path):
    html = _report(cli, db, tmp_path / "r.html", "--player", HOSTILE)
    assert HOSTILE not in html
    assert "Figures of player &lt;script&gt;alert(1)&lt;/script&gt;." in _section(html, "headline")
    assert "PR per match of &lt;script&gt;alert(1)&lt;/script&gt;" in _section(html, "progression")


@pytest.mark.parametrize("view, section, args", [
    ("stats", "headline", ()), ("progression", "progression", ()), ("errors", "errors", ()),
    ("breakdowns", "breakdowns", ()), ("players", "players", ("--sort", "decisions:desc")),
    ("matches", "matches", ()), ("summary", "summary", ()), ("biases", "biases", ()),
])
def test_a_section_is_its_views_html_of_its_json(cli, db, tmp_path, view, section, args):
    """Each section of the report is the view's ``html`` of the object the
    view's ``--format json`` prints (the summary's boards and comments
    aside: they come from the store)."""
    import json

    from gnubg_blunder.commands import get_registry
    from gnubg_blunder.views.summary import summary_html

    html = _report(cli, db, tmp_path / "r.html", "--player", "charlot1")
    obj = json.loads(cli("--no-config", view, "--player", "charlot1", *args, "--format", "json", db=db).stdout)
    kit = get_registry().commands[view].view
    mine = summary_html(obj) if view == "summary" else kit.render(obj, "html")
    theirs = _section(html, section) + "</section>"
    if view == "summary":  # the boards and comments beside each costly decision come from the store
        comment = r"<br><i>(?:<bdi>)?[^<]*(?:</bdi>)?</i>"  # a comment is isolated in <bdi>
        theirs = re.sub(r"<svg\b.*?</svg>|" + comment, "", theirs)
        mine = re.sub(comment, "", mine)
    assert kit.html is not None and mine == theirs


def test_report_refuses_a_player_no_match_has(cli, db, tmp_path):
    out = tmp_path / "r.html"
    res = cli("--no-config", "report", "--html", out, "--player", "charlot", db=db, check=False)
    assert res.returncode == 2 and "no player 'charlot'" in res.stderr and "charlot1" in res.stderr
    assert not out.exists()


def test_report_metric_is_the_progression_charts(cli, db, tmp_path):
    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, "--metric", "mwc7", db=db)
    assert "L7 per match of both sides pooled" in out.read_text(encoding="utf-8")
    cli("--no-config", "report", "--html", out, db=db)
    assert "PR per match of both sides pooled" in out.read_text(encoding="utf-8")


def test_report_metric_is_the_study_halfs_cost(cli, db, tmp_path):
    """--metric is also the study half's cost (SPEC §9): the plan, the
    reference positions, before / after and the summary's plan card price
    an error e − d in mpt by default, ℓ − d in % MWC under mwc; each says
    its unit."""
    import json

    html = _report(cli, db, tmp_path / "r.html")
    plan = json.loads(cli("--no-config", "plan", "--format", "json", db=db).stdout)
    assert plan["unit"] == "mpt" and plan["families"]
    assert "R mpt" in _section(html, "plan") and "R % MWC" not in _section(html, "plan")
    assert " mpt" in _section(html, "references") and "mpt per 100 decisions" in _section(html, "study")
    assert "R mpt" in html[html.index('id="plan-card"'):]
    html = _report(cli, db, tmp_path / "r.html", "--metric", "mwc")
    assert "R % MWC" in _section(html, "plan") and "R mpt" not in _section(html, "plan")
    assert "% MWC" in _section(html, "references") and "% MWC per 100 decisions" in _section(html, "study")
    mwc = json.loads(cli("--no-config", "plan", "--metric", "mwc", "--format", "json", db=db).stdout)
    first = mwc["families"][0]
    assert f"{first['recoverable']:+.2f}" in _section(html, "plan")
