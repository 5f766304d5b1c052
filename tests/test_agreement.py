"""Analysers' agreement (SPEC §17, issue 28): ``gnubg-blunder agreement``.

- Cohen's κ of a small case computed by hand, and κ undefined (said, not a
  number) when one analysis judges every decision alike;
- a hand-made match stored under two analyses (2-ply and 0-ply, tests/
  fixture_db.py's form): the pairs, the verdict table, κ, PR under each,
  the paired difference and its interval with games as units, all by hand;
  a decision counted under one analysis only is said, not paired; the
  text, JSON, CSV and HTML hold the same numbers; the report's section
  appears only when some match has two analyses;
- a real gnubg match analysed at 0 plies (committed) and again at 1 ply by
  the real gnubg: the 0-ply side of every pair is the 0-ply file's own
  figure (its PR over the pairs is `stats`' PR of the file stored alone).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math

import numpy as np
import pytest
from lxml import html as lxml_html

from conftest import committed_selfplay_file, needs_gnubg
from fixture_db import P_BOAC, P_HOLD, P_OPEN, P_PRIME, build_matches
from gnubg_blunder.metrics.agreement import cohen_kappa, first_and_second
from gnubg_blunder.model import Analysis

# -- κ by hand ------------------------------------------------------------------------------


def test_kappa_of_a_small_case_by_hand():
    # 10 decisions: both call an error on 2, only the first on 1, only the second on 1, neither on 6
    first = [True, True, True] + [False] * 7
    second = [True, True, False, True] + [False] * 6
    k = cohen_kappa(first, second)
    assert k["table"] == {"both": 2, "first_only": 1, "second_only": 1, "neither": 6}
    # p_o = 8/10; each calls 3/10 errors: p_e = 0.3·0.3 + 0.7·0.7 = 0.58; κ = (0.8 − 0.58)/(1 − 0.58) = 11/21
    assert k["agreement"] == pytest.approx(0.8)
    assert k["kappa"] == pytest.approx(11 / 21)
    assert k["undefined"] is None
    # perfect agreement with spread: κ = 1; opposite verdicts: κ = −1
    assert cohen_kappa([True, False], [True, False])["kappa"] == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True])["kappa"] == pytest.approx(-1.0)


def test_kappa_is_undefined_when_one_verdict_is_constant():
    from gnubg_blunder.views.agreement import kappa_text

    # the second analysis calls no error at all: 9 of 10 agree, but κ has nothing to stand on
    k = cohen_kappa([True] + [False] * 9, [False] * 10)
    assert k["agreement"] == pytest.approx(0.9)
    assert k["kappa"] is None and k["undefined"] == ["second"]
    assert "undefined" in kappa_text(k) and "second analysis" in kappa_text(k)
    # every decision an error under both: both constant
    k = cohen_kappa([True] * 4, [True] * 4)
    assert k["agreement"] == 1.0 and k["kappa"] is None and k["undefined"] == ["first", "second"]
    assert "first and second" in kappa_text(k)
    k = cohen_kappa([], [])
    assert k["agreement"] is None and k["kappa"] is None and "no paired decision" in kappa_text(k)


def test_which_two_analyses_are_compared():
    stored = [{"id": 1, "engine": "xg", "depth": 4.0}, {"id": 2, "engine": "gnubg", "depth": 2.0},
              {"id": 3, "engine": "gnubg", "depth": 0.0}]
    a, b = first_and_second(stored)
    assert (a["id"], b["id"]) == (1, 2)  # the match's own (the deepest), then the deepest of the rest
    a, b = first_and_second(stored, engine="gnubg")
    assert (a["id"], b["id"]) == (2, 1)  # the filter picks the first; the second is the deepest other
    assert first_and_second(stored[:1]) == (None, None)
    assert first_and_second(stored, min_depth=5) == (None, None)


# -- a hand-made match under two analyses ---------------------------------------------------

# (game, player, kind, e under the 2-ply analysis, e under the 0-ply one, position); kinds as in fixture_db.py
HAND = [
    (0, 0, "checker", 0.060, 0.070, P_OPEN),  # both: error
    (0, 1, "checker", 0.010, 0.055, P_HOLD),  # the 0-ply one only
    (1, 0, "checker", 0.080, 0.020, P_PRIME),  # the 2-ply one only
    (1, 1, "checker", 0.000, 0.000, P_OPEN),  # neither
    (2, 0, "checker", 0.030, 0.040, P_HOLD),  # neither
    (2, 1, "pass", 0.100, 0.150, P_BOAC),  # both
]


def _hand_match(column: int, depth: float):
    decisions = [(g, p, k, row[column], pos, None, None) for (g, p, k, *row, pos) in
                 [(g, p, k, e2, e0, pos) for (g, p, k, e2, e0, pos) in HAND]]
    # a no double counted under the 0-ply analysis only (in the window there, far outside under 2 plies)
    decisions.append((2, 0, "nd_far" if column == 0 else "nd", 0.0, P_HOLD, None, None))
    table = dict(id=1, date="2025-05-01", event="Club A", length=7, players=("charlot1", "charlot2"),
                 games=[(0, 2), (1, 2), (0, 2)], decisions=decisions, luck=(0.0, 0.0))
    match = build_matches(matches=[table])[0]
    match.analysis = Analysis(engine="gnubg", depth=depth, depth_label=f"{depth:.0f}-ply")
    return match


@pytest.fixture(scope="module")
def two_analyses(tmp_path_factory):
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path_factory.mktemp("agreement") / "two.db"
    with SQLiteStore(path) as st:
        first = st.add_match(_hand_match(0, 2.0))
        second = st.add_match(copy.deepcopy(_hand_match(1, 0.0)))
        assert st.count_matches() == 1, (first, second)  # one match, two analyses
    return path


def _json(cli, db, *args):
    return json.loads(cli("--no-config", "agreement", *args, "--format", "json", db=db).stdout)


def test_hand_made_match_under_two_analyses(two_analyses, cli):
    obj = _json(cli, two_analyses)
    assert obj["matches"] == 1 and obj["units"] == "games"
    assert obj["analyses"] == [{"first": {"engine": "gnubg", "depth": "2-ply"},
                                "second": {"engine": "gnubg", "depth": "0-ply"}, "matches": 1}]
    assert obj["pairs"] == 6
    assert obj["unpaired"] == {"only_in_first": 0, "only_in_second": 0, "counted_in_first_only": 0,
                               "counted_in_second_only": 1}
    v = obj["verdicts"]
    assert v["table"] == {"both": 2, "first_only": 1, "second_only": 1, "neither": 2}
    # p_o = 4/6, p_a = p_b = 1/2: p_e = 1/2, κ = (2/3 − 1/2)/(1/2) = 1/3
    assert v["agreement"] == pytest.approx(4 / 6) and v["kappa"] == pytest.approx(1 / 3)
    r = obj["rates"]["all"]
    assert r["decisions"] == 6 and r["units"] == 3
    # PR = 500 Σe / N: 500 × 0.280/6 and 500 × 0.335/6
    assert r["pr_first"] == pytest.approx(500 * 0.280 / 6)
    assert r["pr_second"] == pytest.approx(500 * 0.335 / 6)
    assert r["difference"] == pytest.approx(500 * 0.055 / 6)
    # the paired difference by games: d_g = Σ(e₀ − e₂) = 0.055, −0.060, 0.060, n_g = 2 each;
    # D = 0.055/6; Var = 3/2 × Σ(d_g − 2D)² / 6²
    d, n = np.array([0.055, -0.060, 0.060]), np.array([2, 2, 2])
    big_d = d.sum() / n.sum()
    var = 3 / 2 * ((d - big_d * n) ** 2).sum() / 36
    half = 500 * 1.96 * math.sqrt(var)
    assert r["difference_ci"] == pytest.approx([500 * big_d - half, 500 * big_d + half])
    assert r["difference_ci"][0] < 0 < r["difference_ci"][1]  # a difference's interval is not floored at 0
    # PR under the 2-ply analysis by games: e_g = 0.070, 0.080, 0.130; R = 0.28/6
    e = np.array([0.070, 0.080, 0.130])
    rr = e.sum() / 6
    half = 1.96 * math.sqrt(3 / 2 * ((e - rr * n) ** 2).sum() / 36)
    assert r["pr_first_ci"] == pytest.approx([500 * (rr - half), 500 * (rr + half)])
    # checker plays: the five; cube: the one pass, in one game: no interval (SPEC §7: under 3 units)
    assert obj["rates"]["checker"]["decisions"] == 5
    assert obj["rates"]["checker"]["pr_first"] == pytest.approx(500 * 0.180 / 5)
    cube = obj["rates"]["cube"]
    assert cube["decisions"] == 1 and cube["units"] == 1 and cube["difference_ci"] is None
    assert cube["pr_first_ci"] is None and cube["difference"] == pytest.approx(500 * 0.050)
    # the pairs that disagree most: |Δe| 0.060 (game 2 move 1), then 0.050 (the pass), 0.045, 0.010, 0.010
    dis = obj["disagreements"]
    assert [x["delta_mpt"] for x in dis] == pytest.approx([-60.0, 50.0, 45.0, 10.0, 10.0])
    assert [(x["game"], x["kind"]) for x in dis[:2]] == [(2, "checker"), (3, "pass")]
    assert dis[0]["position_id"] == P_PRIME and dis[0]["first"]["error"] and not dis[0]["second"]["error"]
    assert dis[0]["first"]["candidates"][0] == {"rank": 1, "move": "move 0", "equity": 0.3, "played": True}
    assert [c["action"] for c in dis[1]["first"]["candidates"]] == ["no double", "double/take", "double/pass"]
    assert len(_json(cli, two_analyses, "--top", "2")["disagreements"]) == 2


def test_text_csv_and_html_hold_the_json_numbers(two_analyses, cli):
    from gnubg_blunder.views.agreement import VIEW

    obj = _json(cli, two_analyses)
    text = cli("--no-config", "agreement", db=two_analyses).stdout
    assert text.startswith("Scope: every stored match, both sides")
    assert "first gnubg 2-ply, second gnubg 0-ply" in text
    assert "Cohen's kappa 0.333" in text and "Agreeing: 66.7 %" in text
    assert "1: in both, counted under the second only" in text
    assert f"{obj['rates']['all']['pr_first']:.2f}" in text
    lo, hi = obj["rates"]["all"]["difference_ci"]
    assert f"[{lo:+.2f}, {hi:+.2f}]" in text
    assert "no interval" in text  # the cube's one game
    rows = list(csv.reader(io.StringIO(cli("--no-config", "agreement", "--format", "csv",
                                           db=two_analyses).stdout)))
    assert len(rows) == 1 + len(obj["disagreements"])
    assert [float(r[rows[0].index("delta_mpt")]) for r in rows[1:]] == [x["delta_mpt"] for x in obj["disagreements"]]
    page = lxml_html.fromstring(VIEW.table(obj).html())
    assert len(page.findall(".//tr")) == len(rows)
    section = VIEW.html(obj)
    assert section.startswith('<section id="agreement">') and "0.333" in section


def test_report_section_only_with_two_analyses(two_analyses, db, cli, tmp_path):
    out = tmp_path / "two.html"
    cli("--no-config", "report", "--html", str(out), db=two_analyses)
    assert 'id="agreement"' in out.read_text(encoding="utf-8")
    out = tmp_path / "one.html"
    cli("--no-config", "report", "--html", str(out), db=db)  # one analysis per match
    assert 'id="agreement"' not in out.read_text(encoding="utf-8")
    text = cli("--no-config", "agreement", db=db).stdout
    assert "no match of the scope has two analyses" in text
    obj = _json(cli, db)
    assert obj["matches"] == 0 and obj["pairs"] == 0 and obj["verdicts"] is None


def test_filter_reaches_both_analyses(two_analyses, cli):
    obj = _json(cli, two_analyses, "--player", "charlot1")
    # charlot1 is player 0: games 1-3 move 1, and the no double counted under 0 plies only
    assert obj["pairs"] == 3 and obj["unpaired"]["counted_in_second_only"] == 1
    assert obj["filter"]["player"] == "charlot1"
    assert obj["verdicts"]["table"] == {"both": 1, "first_only": 1, "second_only": 0, "neither": 1}
    obj = _json(cli, two_analyses, "--engine", "xg")
    assert obj["matches"] == 0


# -- a real gnubg match at two depths -------------------------------------------------------

@needs_gnubg
def test_real_match_at_zero_and_one_ply(tmp_path, cli):
    sgf = tmp_path / "m23-3.sgf"
    sgf.write_bytes(committed_selfplay_file(23, 3).read_bytes())
    alone, both = tmp_path / "alone.db", tmp_path / "both.db"
    cli("import", str(sgf), db=alone)
    cli("import", str(sgf), db=both)
    cli("analyse", "--plies", "1", str(sgf), db=both)  # the real gnubg: a second analysis of the same match
    obj = _json(cli, both)
    assert obj["analyses"] == [{"first": {"engine": "gnubg", "depth": "1-ply"},
                                "second": {"engine": "gnubg", "depth": "0-ply"}, "matches": 1}]
    assert obj["units"] == "games"
    t = obj["verdicts"]["table"]
    assert sum(t.values()) == obj["pairs"] > 0
    # the 0-ply side of the pairs is the committed file's own analysis: with every one of its counted
    # decisions paired, its PR over the pairs is `stats`' PR of the file stored alone
    stats = json.loads(cli("--no-config", "stats", "--format", "json", db=alone).stdout)
    unpaired_second = obj["unpaired"]["only_in_second"] + obj["unpaired"]["counted_in_second_only"]
    assert obj["pairs"] + unpaired_second == stats["decisions"]
    if not unpaired_second:
        assert obj["rates"]["all"]["pr_second"] == pytest.approx(stats["pr"], rel=1e-12)
    # each disagreement's 0-ply e is the one `positions` lists for that decision of the file alone
    listed = json.loads(cli("--no-config", "positions", "--limit", "0", "--format", "json", db=alone).stdout)
    by_place = {(r["game"], r["move"], r["kind"]): r["error_mpt"] for r in listed["decisions"]}
    for d in obj["disagreements"]:
        assert by_place[(d["game"], d["second"]["move"], d["kind"])] == pytest.approx(d["second"]["error_mpt"])


def test_no_zero_width_interval(two_analyses, cli):
    from test_no_zero_width_intervals import html_text, zero_width_in_csv, zero_width_in_json, zero_width_in_text

    from gnubg_blunder.views.agreement import VIEW

    for args in ((), ("--player", "charlot2")):
        obj = _json(cli, two_analyses, *args)
        assert zero_width_in_json(obj) == []
        assert zero_width_in_text(cli("--no-config", "agreement", *args, db=two_analyses).stdout) == []
        assert zero_width_in_csv(cli("--no-config", "agreement", *args, "--format", "csv",
                                     db=two_analyses).stdout) == []
        assert zero_width_in_text(html_text(VIEW.html(obj))) == []


@needs_gnubg
def test_inside_gnubg(two_analyses, tmp_path):
    """``>bdb("agreement")`` in the real gnubg prints the view (the command kit gives it)."""
    import os
    import subprocess

    from conftest import run_cli

    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_DB=str(two_analyses))
    env.pop("XDG_DATA_HOME", None)
    run_cli("install-gnubg", env=env)
    out = subprocess.run(["/usr/games/gnubg", "-t"], input='>bdb("agreement --no-config --top 2")\n\n',
                         capture_output=True, text=True, env=env, timeout=300).stdout
    assert "Traceback" not in out
    assert "first gnubg 2-ply, second gnubg 0-ply" in out and "Cohen's kappa 0.333" in out
    assert "The pairs that disagree most (|Δe| largest first, 2 shown)" in out


@needs_gnubg
def test_real_xg_match_and_its_gnubg_analysis(tmp_path, cli):
    """The real XG file, converted by `convert` and analysed by the real gnubg (0 plies here, for time),
    both stored as one match: the XG side of every pair is the XG file's own figure."""
    from conftest import DATA

    xg = DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
    sgf = tmp_path / "converted.sgf"
    cli("convert", str(xg), str(sgf))
    alone, both = tmp_path / "xg.db", tmp_path / "both.db"
    cli("import", str(xg), db=alone)
    cli("import", str(xg), db=both)
    cli("analyse", "--plies", "0", str(sgf), db=both)
    for db in (alone, both):
        cli("thresholds", "xg", db=db)  # XG's own error threshold, 20 mpt
    obj = _json(cli, both)
    assert obj["matches"] == 1 and obj["units"] == "games"
    assert obj["analyses"][0]["first"] == {"engine": "xg", "depth": "XG 4-ply+"}
    assert obj["analyses"][0]["second"] == {"engine": "gnubg", "depth": "0-ply"}
    assert obj["rates"]["all"]["units"] == 8  # the match's 8 games
    stats = json.loads(cli("--no-config", "stats", "--format", "json", db=alone).stdout)
    u = obj["unpaired"]
    assert obj["pairs"] + u["only_in_first"] + u["counted_in_first_only"] == stats["decisions"]
    t = obj["verdicts"]["table"]
    assert t["both"] + t["first_only"] <= stats["errors"]  # XG's errors among the pairs
    listed = json.loads(cli("--no-config", "positions", "--limit", "0", "--format", "json", db=alone).stdout)
    by_place = {(r["game"], r["move"], r["kind"]): r["error_mpt"] for r in listed["decisions"]}
    assert obj["disagreements"]
    for d in obj["disagreements"]:
        assert by_place[(d["game"], d["first"]["move"], d["kind"])] == pytest.approx(d["first"]["error_mpt"])
        assert d["first"]["candidates"] and d["second"]["candidates"]
