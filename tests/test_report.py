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
