"""No zero-width interval anywhere (SPEC §7, issue 25).

An interval needs at least 3 units and a non-zero spread; otherwise there
is none (``null`` in JSON, empty in CSV, "no interval (n = …)" or "—" in
text), never "[+0.000, +0.000]".  Every view of the registry is run over
the fixture database (tests/fixture_db.py), both sides and each player, in
text, JSON and CSV with its HTML, and the report and the match pages: no
interval in any of them has equal bounds.

The biases of the fixture database hold score cells of 1 decision and a
blots family of 6 checker plays with contact, none of them wrong: before
the rule, "[+0.000, +0.000]" (and "[-1.000, -1.000]", "[+1.000, +1.000]"
for cells of one wrong decision).
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest

TWO_PLAYER_VIEWS = ("compare", "contrast", "h2h")
PLAYERS = (None, "charlot1", "charlot2", "Squire/Jørgensen")
# an interval as the texts write it: "[0.12, 3.40]", "[+0.000, -0.120]", "0.12–3.40"
BRACKETED = re.compile(r"\[\s*([+-]?\d+(?:\.\d+)?)\s*,\s*([+-]?\d+(?:\.\d+)?)\s*\]")
DASHED = re.compile(r"(?<![\d.])([+-]?\d+\.\d+)–([+-]?\d+\.\d+)(?![\d.])")


def zero_width_in_text(text: str) -> list:
    """The intervals of a text whose two bounds read the same."""
    found = []
    for pattern in (BRACKETED, DASHED):
        for m in pattern.finditer(text):
            if float(m.group(1)) == float(m.group(2)):
                found.append(m.group(0))
    return found


def _is_interval_key(key: str) -> bool:
    return key == "ci" or key.endswith("_ci")


def zero_width_in_json(obj, path="") -> list:
    """The intervals of a JSON object (keys ``ci`` and ``*_ci``) with equal bounds."""
    found = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if _is_interval_key(str(k)) and isinstance(v, (list, tuple)) and len(v) == 2 \
                    and all(isinstance(x, (int, float)) for x in v):
                if not v[1] > v[0]:
                    found.append((f"{path}.{k}", v))
            else:
                found += zero_width_in_json(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found += zero_width_in_json(v, f"{path}[{i}]")
    return found


def zero_width_in_csv(text: str) -> list:
    """Rows whose interval columns (``X_low``/``X_high``) hold equal bounds."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    head = rows[0]
    pairs = [(head.index(h), head.index(h[:-4] + "_high")) for h in head
             if h.endswith("_low") and h[:-4] + "_high" in head]
    found = []
    for row in rows[1:]:
        for lo, hi in pairs:
            if row[lo] and row[hi] and not float(row[hi]) > float(row[lo]):
                found.append((head[lo], row[lo], row[hi]))
    return found


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def html_text(page: str) -> str:
    p = _Text()
    p.feed(page)
    p.close()
    return " ".join(p.parts)


@pytest.fixture(scope="module")
def views():
    import os

    from gnubg_blunder import plugins
    from gnubg_blunder.commands import get_registry

    os.environ["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    plugins.reset_plugin_manager()
    return {name: c.view for name, c in get_registry().commands.items() if c.view is not None}


def _args(name: str, player) -> list:
    if name in TWO_PLAYER_VIEWS:
        return [name, "charlot1", "charlot2"]
    return [name] + (["--limit", "0"] if name == "positions" else []) + (["--player", player] if player else [])


# -- the checks themselves ------------------------------------------------------------------

def test_the_checks_find_a_zero_width_interval():
    assert zero_width_in_text("all  6  0  0  +0.000  [+0.000, +0.000]  balanced") == ["[+0.000, +0.000]"]
    assert zero_width_in_text("PR 3.10 [1.20, 5.00]; 95% 0.50–0.50") == ["0.50–0.50"]
    assert zero_width_in_text("[+0.000, +0.120] 2025-01-10–2025-02-15") == []
    assert zero_width_in_json({"a": [{"ci": [1.0, 1.0]}, {"pr_ci": [0.0, 2.0]}]}) == [(".a[0].ci", [1.0, 1.0])]
    assert zero_width_in_csv("b,ci_low,ci_high\n0,0.0,0.0\n0,,\n") == [("ci_low", "0.0", "0.0")]


# -- every output -----------------------------------------------------------------------------

def test_no_view_shows_a_zero_width_interval(db, views, cli):
    assert len(views) >= 13
    for name, view in sorted(views.items()):
        for player in (PLAYERS if name not in TWO_PLAYER_VIEWS else (None,)):
            args = ["--no-config", *_args(name, player)]
            where = (name, player)
            assert zero_width_in_text(cli(*args, db=db).stdout) == [], (where, "text")
            obj = json.loads(cli(*args, "--format", "json", db=db).stdout)
            assert zero_width_in_json(obj) == [], (where, "json")
            if view.table is not None:
                assert zero_width_in_csv(cli(*args, "--format", "csv", db=db).stdout) == [], (where, "csv")
                assert zero_width_in_text(html_text(view.table(obj).html())) == [], (where, "html table")
            assert zero_width_in_text(html_text(view.render(obj, "html"))) == [], (where, "html")


def test_the_report_and_the_match_pages_show_no_zero_width_interval(db, cli, tmp_path):
    for extra in ([], ["--player", "charlot1"]):
        out = tmp_path / "report.html"
        cli("--no-config", "report", "--html", out, *extra, db=db)
        assert zero_width_in_text(html_text(out.read_text(encoding="utf-8"))) == [], ("report", extra)
    for match_id in range(1, 6):
        out = tmp_path / f"match-{match_id}.html"
        cli("--no-config", "report", "--match", match_id, "--html", out, db=db)
        assert zero_width_in_text(html_text(out.read_text(encoding="utf-8"))) == [], ("match page", match_id)


def test_biases_cells_without_an_error_have_no_interval(db, cli):
    """The fixture's blots: 6 checker plays with contact, none wrong (P = M
    = 0, Var = 0); its doubles' score cells hold 1 decision each (match 1's
    premature double at 7-away/3-away is all P, match 2's missed double at
    5-away/5-away all M, a right no double at 7-away/7-away none)."""
    obj = json.loads(cli("--no-config", "biases", "--format", "json", db=db).stdout)
    blots = obj["blots"]
    assert (blots["n"], blots["p"], blots["m"], blots["b"]) == (6, 0, 0, 0.0)
    assert blots["ci"] is None and blots["ci_note"] == "no interval: no spread"
    cells = {(c["away"], c["opp_away"]): c for c in obj["doubles"]["cells"]}
    assert {k: (c["n"], c["p"], c["m"], c["ci"], c["ci_note"]) for k, c in cells.items()} == {
        (5, 5): (1, 0, 1, None, "no interval: 1 decision"),
        (7, 3): (1, 1, 0, None, "no interval: 1 decision"),
        (7, 7): (1, 0, 0, None, "no interval: 1 decision"),
    }
    # 3 cube-owner decisions, P = M = 1: B = 0, Var = (2/3)/3, a real interval
    d = obj["doubles"]
    assert (d["n"], d["p"], d["m"]) == (3, 1, 1) and d["ci_note"] is None
    assert d["ci"] == pytest.approx([-1.96 * (2 / 9) ** 0.5, 1.96 * (2 / 9) ** 0.5])
    text = cli("--no-config", "biases", db=db).stdout
    assert "no interval (n = 6)" in text and "no interval (n = 1)" in text and "[-0.924, +0.924]" in text
    assert "[+0.000, +0.000]" not in text
    rows = list(csv.DictReader(io.StringIO(cli("--no-config", "biases", "--format", "csv", db=db).stdout)))
    blots_row = next(r for r in rows if r["family"] == "blots")
    assert (blots_row["ci_low"], blots_row["ci_high"], blots_row["b"]) == ("", "", "0.0")


def test_the_plan_and_the_study_give_no_interval_without_spread():
    """The intervals made of a variance (SPEC §9, §11): members whose ℓ − d
    are all 0, windows without an error, have none (the rule of
    ``intervals.symmetric_interval``)."""
    from gnubg_blunder.metrics.intervals import symmetric_interval
    from gnubg_blunder.metrics.plan import interval_of, recoverable
    from gnubg_blunder.metrics.study import change

    assert symmetric_interval(0.5, 0.0) is None and symmetric_interval(0.5, float("nan")) is None
    assert symmetric_interval(0.5, 0.04, units=2) is None
    assert symmetric_interval(0.5, 0.04, units=3) == pytest.approx([0.5 - 0.392, 0.5 + 0.392])
    assert interval_of(0.0, 0.0) is None and recoverable([0.0, 0.0]) == (0.0, None)
    assert recoverable([0.03, 0.04])[1] == pytest.approx([0.07 - 1.96 * 0.05, 0.07 + 1.96 * 0.05])
    # 40 decisions before, 50 after, no error in either: Δ = 0, no interval; 30 decisions a window are
    # enough for a verdict, and with nothing to tell apart it is "undetermined"
    none = change(0.0, 0.0, 40, 0.0, 0.0, 50)
    assert (none["delta"], none["delta_ci"], none["verdict"]) == (0.0, None, "undetermined")
    assert change(0.0, 0.0, 20, 0.0, 0.0, 50)["verdict"] == "insufficient"
    some = change(0.02, 0.0004, 40, 0.0, 0.0, 50)
    assert some["delta_ci"] is not None and some["delta_ci"][1] > some["delta_ci"][0]
