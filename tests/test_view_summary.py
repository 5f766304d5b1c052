"""``summary``: expected outputs computed by hand from tests/fixture_db.py,
and hand-made decision sets for the band and rolling-N edges.

charlot1's counted decisions (fixture MATCHES, array order = match date,
the undated match 5 last, then game and move order; forced plays and the
no double outside the window leave the count):

    match 1 (7 pt, Club A)  g1: 0, .020, .080   g2: 0, take 0      -> 5, Σe .10
    match 2 (5 pt, Club A)  g1: .050, nd .100   g2: .120           -> 3, Σe .27
    match 4 (money)         g1: .030            g2: .090           -> 2, Σe .12
    match 5 (3 pt, undated) g1: 0               g2: .010           -> 2, Σe .01

    12 decisions, Σe = .50 -> PR = 500 × .50 / 12 = 20.833
    checker: 10 decisions (all but the take and the no double),
             Σe = .40 -> 500 × .40 / 10 = 20.0; cube: 2, Σe .10 -> 25.0
    errors (≥ 50 mpt): 80, 50, 100, 120, 90 -> 5; blunders (≥ 100): 2
    tournaments: Club A only (matches 4 and 5 have no event) -> 1; matches 4
    MWC (ℓ = e × 0.5, money none): (.10 + .27 + .01) × .5 = .19 -> 19.00 pp
      checker (.10 + .17 + .01) × .5 = .14 -> 14.00, cube .10 × .5 -> 5.00
    L7 = √7 × ΣL / Σ√N = √7 × .19 / (√7 + √5 + √3) = 7.6005 pp
      checker √7 × .14 / (…) = 5.6004, cube √7 × .05 / (…) = 2.0001
"""

import json
import math

import numpy as np
import pytest

from conftest import run_cli_inprocess as cli
from fixture_db import HOSTILE
from gnubg_blunder.arrays import KIND_CODES, DecisionArrays, MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.summary import band_of, rolling, selected, summary_figures

ROOT7 = math.sqrt(7)
SQRT_N = math.sqrt(7) + math.sqrt(5) + math.sqrt(3)


def summary_json(db, *args):
    return json.loads(cli("--no-config", "summary", "--format", "json", *args, db=db).stdout)


# -- hand-made decision sets --------------------------------------------------------

def decisions(errors, match=None):
    """Counted checker plays (5 legal plays, spread 0.3: never forced)."""
    n = len(errors)
    cols = {name: [missing] * n for name, (_dtype, missing) in DecisionArrays.SPEC.items()}
    cols.update(kind=[KIND_CODES["checker"]] * n, error=list(errors), n_legal=[5] * n, n_candidates=[5] * n,
                equity_spread=[0.3] * n, match=match or [0] * n, game=[0] * n, seq=list(range(n)),
                player=[0] * n, mwc_per_emg=[0.5] * n, position=[0] * n, row_id=list(range(1, n + 1)))
    return DecisionArrays(**cols)


def match_info(i, date=None, length=7):
    return MatchInfo(id=i + 1, players=("A", "B"), length=length, date=date, event=None, winner=None,
                     final_score=(0, 0), n_games=1, source="sgf", analysis_id=i + 1, engine="gnubg",
                     depth=0, depth_label="0-ply", names=("A", "B"))


def selection(errors, n_matches=1, match=None):
    return Selection(matches=[match_info(i) for i in range(n_matches)], decisions=decisions(errors, match),
                     rolls=RollArrays(), sides=np.ones((n_matches, 2), dtype=bool), positions=["pos"])


@pytest.mark.parametrize("pr, name, low, high", [
    (1.99, "World class", None, 2.0),
    (2.0, "Expert", 2.0, 4.0),        # an edge belongs to the upper band
    (3.99, "Expert", 2.0, 4.0),
    (4.0, "Advanced", 4.0, 6.0),      # 4.0 is Advanced, not Expert
    (11.99, "Casual", 9.0, 12.0),
    (12.0, "Beginner", 12.0, None),
])
def test_band_edges(pr, name, low, high):
    assert band_of(pr) == {"name": name, "low": low, "high": high}


@pytest.mark.parametrize("total, name", [
    # 125 counted decisions: PR = 500 × Σe / 125 = 4 × Σe
    (0.4975, "World class"),  # 1.99
    (0.5, "Expert"),          # 2.0
    (1.0, "Advanced"),        # 4.0
    (3.0, "Beginner"),        # 12.0
])
def test_band_edges_on_decision_sets(total, name):
    errs = [total / 2, total / 2] + [0.0] * 123
    fig = summary_figures(selection(errs))
    assert fig["decisions"] == 125
    assert fig["pr"] == pytest.approx(4 * total)
    assert fig["level"] == name and fig["level_band"]["name"] == name


def test_no_band_without_decisions():
    fig = summary_figures(selection([]))
    assert fig["decisions"] == 0 and fig["pr"] is None
    assert fig["level"] is None and fig["level_band"] is None
    assert [r["pr"] for r in fig["rolling"]] == [None] * 7
    assert all(r["exceeds"] for r in fig["rolling"]) and fig["top"] == []


@pytest.mark.parametrize("n_decisions, used, exceeds, pr", [
    # errors .010, .020, … in play order; N = 5
    (6, 5, False, 500 * (.02 + .03 + .04 + .05 + .06) / 5),  # N + 1 exist: the last 5 -> 20.0
    (5, 5, False, 500 * (.01 + .02 + .03 + .04 + .05) / 5),  # exactly N: all, not flagged -> 15.0
    (4, 4, True, 500 * (.01 + .02 + .03 + .04) / 4),         # fewer than N: all 4, flagged -> 12.5
])
def test_rolling_edges(n_decisions, used, exceeds, pr):
    errs = [0.01 * (k + 1) for k in range(n_decisions)]
    sel = selection(errs)
    (r,) = rolling(sel, selected(sel), ns=(5,))
    assert r["n"] == 5 and r["decisions"] == used and r["exceeds"] is exceeds
    assert r["pr"] == pytest.approx(pr)
    # MWC lost over the same decisions: e × 0.5 in % points
    assert r["mwc_loss"] == pytest.approx(pr / 500 * used * 0.5 * 100)


def test_rolling_follows_the_array_order_across_matches():
    # match 0 holds .050, .050; match 1 (later) holds .010, .000: the last 2 are match 1's
    sel = selection([0.05, 0.05, 0.01, 0.0], n_matches=2, match=[0, 0, 1, 1])
    (r,) = rolling(sel, selected(sel), ns=(2,))
    assert r["pr"] == pytest.approx(500 * 0.01 / 2)


def test_top_ties_by_mwc_then_match_order():
    # three equal errors (100 mpt): the one worth more MWC first, then match order;
    # the money one (no MWC) after any with MWC; the e = 0 decision is never listed
    sel = selection([0.1, 0.1, 0.1, 0.2, 0.0], n_matches=3, match=[0, 1, 2, 2, 2])
    sel.decisions.mwc_per_emg[:] = [0.4, 0.5, np.nan, 0.4, 0.4]
    sel.matches[2].length = 0  # match 3 is money
    sel.decisions.mwc_per_emg[2:] = np.nan
    top = summary_figures(sel)["top"]
    assert [(t["match_id"], t["error_mpt"]) for t in top] == [(3, 200.0), (2, 100.0), (1, 100.0), (3, 100.0)]
    assert [t["rank"] for t in top] == [1, 2, 3, 4]
    assert top[0]["mwc_loss"] is None and top[1]["mwc_loss"] == pytest.approx(5.0)


def test_top_by_mwc_with_the_mwc_metrics():
    """Rough edge: ``summary --metric mwc`` ranked its top 10 by e; it ranks
    them by MWC lost (money decisions, which have none, after every
    match-play one; ties by e)."""
    sel = selection([0.1, 0.05, 0.2, 0.03], n_matches=2, match=[0, 0, 1, 0])
    sel.decisions.mwc_per_emg[:] = [0.2, 0.6, np.nan, 1.0]  # ℓ = .020, .030, money, .030
    sel.matches[1].length = 0
    by_e = [t["error_mpt"] for t in summary_figures(sel)["top"]]
    assert by_e == [200.0, 100.0, 50.0, 30.0]
    for metric in ("mwc", "mwc7"):
        top = summary_figures(sel, metric=metric)["top"]
        # ℓ .030 (e .050) and ℓ .030 (e .030) tie on MWC: the larger e first; then ℓ .020; money last
        assert [t["error_mpt"] for t in top] == [50.0, 30.0, 100.0, 200.0], metric
        assert [t["mwc_loss"] for t in top][:3] == [pytest.approx(3.0), pytest.approx(3.0), pytest.approx(2.0)]


def test_top_charlot1_by_mwc(db):
    s = summary_json(db, "--player", "charlot1", "--metric", "mwc")
    got = [(t["match_id"], t["error_mpt"], t["mwc_loss"]) for t in s["top"]]
    # MWC = e × 0.5 here, so the order is e's with the money decisions (match 4) last
    assert got == [(2, 120.0, pytest.approx(6.0)), (2, 100.0, pytest.approx(5.0)), (1, 80.0, pytest.approx(4.0)),
                   (2, 50.0, pytest.approx(2.5)), (1, 20.0, pytest.approx(1.0)), (5, 10.0, pytest.approx(0.5)),
                   (4, 90.0, None), (4, 30.0, None)]
    text = cli("--no-config", "summary", "--player", "charlot1", "--metric", "mwc", db=db).stdout
    assert "by MWC lost (money decisions last)" in text


# -- the fixture database ----------------------------------------------------------

def test_summary_charlot1(db):
    s = summary_json(db, "--player", "charlot1")
    assert s["filter"]["player"] == "charlot1" and s["metric"] == "pr"
    assert (s["tournaments"], s["matches"], s["decisions"]) == (1, 4, 12)
    assert (s["checker_decisions"], s["cube_decisions"]) == (10, 2)
    assert (s["errors"], s["blunders"]) == (5, 2)
    assert s["pr"] == pytest.approx(500 * 0.50 / 12)
    assert s["checker_pr"] == pytest.approx(20.0) and s["cube_pr"] == pytest.approx(25.0)
    assert s["level"] == "Beginner" and s["level_band"] == {"name": "Beginner", "low": 12.0, "high": None}
    assert "not a published norm" in s["level_note"]
    assert s["mwc_loss"] == pytest.approx(19.0)
    assert s["checker_mwc_loss"] == pytest.approx(14.0) and s["cube_mwc_loss"] == pytest.approx(5.0)
    assert s["l7"] == pytest.approx(100 * ROOT7 * 0.19 / SQRT_N)
    assert s["checker_l7"] == pytest.approx(100 * ROOT7 * 0.14 / SQRT_N)
    assert s["cube_l7"] == pytest.approx(100 * ROOT7 * 0.05 / SQRT_N)
    assert s["checker_l7"] + s["cube_l7"] == pytest.approx(s["l7"])
    assert s["l7_ci"] is not None  # 3 match-play units with spread
    assert s["money_decisions"] == 2


def test_rolling_charlot1(db):
    s = summary_json(db, "--player", "charlot1")
    r = {x["n"]: x for x in s["rolling"]}
    assert list(r) == [5, 10, 50, 100, 250, 500, 1000]
    # last 5: .120 (match 2), .030, .090 (money), 0, .010 (undated match 5, imported last)
    assert (r[5]["decisions"], r[5]["exceeds"]) == (5, False)
    assert r[5]["pr"] == pytest.approx(500 * 0.25 / 5)  # 25.0
    assert r[5]["mwc_loss"] == pytest.approx((0.12 + 0.01) * 0.5 * 100)  # 6.5 (money has none)
    # last 10: drop the first two (0, .020): Σ = .48 -> 24.0
    assert r[10]["pr"] == pytest.approx(500 * 0.48 / 10) and not r[10]["exceeds"]
    for n in (50, 100, 250, 500, 1000):  # only 12 exist: all of them, flagged
        assert r[n]["exceeds"] and r[n]["decisions"] == 12
        assert r[n]["pr"] == pytest.approx(500 * 0.50 / 12)


def test_top_charlot1(db):
    s = summary_json(db, "--player", "charlot1")
    # every charlot1 decision with e > 0, costliest first (8 of them: fewer than 10)
    got = [(t["match_id"], t["game"], t["move"], t["error_mpt"], t["mwc_loss"]) for t in s["top"]]
    assert got == [
        (2, 2, 1, 120.0, pytest.approx(6.0)),
        (2, 1, 2, 100.0, pytest.approx(5.0)),  # the missed double
        (4, 2, 1, 90.0, None),                  # money: no MWC
        (1, 1, 3, 80.0, pytest.approx(4.0)),
        (2, 1, 1, 50.0, pytest.approx(2.5)),
        (4, 1, 1, 30.0, None),
        (1, 1, 2, 20.0, pytest.approx(1.0)),
        (5, 2, 1, 10.0, pytest.approx(0.5)),
    ]
    missed = s["top"][1]
    assert (missed["kind"], missed["played"], missed["best"]) == ("nodouble", "no double", "double/take")
    assert missed["date"] == "2025-02-15" and missed["players"] == ["charlot1", "Squire/Jørgensen"]
    assert missed["position_id"] == "w+bBAyDgOTiCFQ"


def test_top_everyone_ties(db):
    s = summary_json(db)
    # 30 decisions, Σe = .36 + .50 + .19 + .13 + .08 = 1.26 -> 21.0
    assert s["decisions"] == 30 and s["pr"] == pytest.approx(21.0) and s["tournaments"] == 2
    got = [(t["match_id"], t["game"], t["move"], t["error_mpt"]) for t in s["top"]]
    assert got == [
        (2, 2, 4, 200.0), (1, 1, 5, 150.0), (2, 2, 1, 120.0),
        (2, 1, 2, 100.0), (3, 1, 3, 100.0),   # equal e, equal MWC (.05): match order
        (4, 2, 1, 90.0), (1, 1, 3, 80.0), (5, 1, 2, 70.0),
        (1, 2, 4, 60.0), (3, 2, 1, 60.0),     # equal again: match 1 before match 3
    ]
    assert s["top"][7]["player"] == HOSTILE
    # rolling N=5 over both sides: match 4's last two (.090, .010), match 5's three (0, .070, .010)
    assert s["rolling"][0]["pr"] == pytest.approx(500 * 0.18 / 5)


def test_metric_switch(db):
    s = summary_json(db, "--player", "charlot1", "--metric", "mwc")
    assert s["metric"] == "mwc" and s["mwc_loss"] == pytest.approx(19.0)
    text = cli("--no-config", "summary", "--player", "charlot1", "--metric", "mwc", db=db).stdout
    assert "MWC lost 19.00 % points = checker 14.00 + cube 5.00" in text
    assert "2 money decisions" in text
    text = cli("--no-config", "summary", "--player", "charlot1", "--metric", "mwc7", db=db).stdout
    assert "MWC-7 (L7) 7.60 % points" in text and "checker 5.60 + cube 2.00" in text
    assert "Rolling MWC lost" in text and "no per-decision equivalent" in text


def test_summary_text_charlot1(db):
    text = cli("--no-config", "summary", "--player", "charlot1", db=db).stdout
    assert "scope: player charlot1" in text
    assert "PR 20.83" in text and "checker 20.00" in text and "cube 25.00" in text
    assert "Beginner (PR 12 and above)" in text and "not a published norm" in text
    assert "1 tournament, 4 matches, 12 decisions" in text and "5 errors, 2 blunders" in text
    assert "50*" in text and "N exceeds the 12 decisions" in text and " 5* " not in text
    assert "The 8 costliest decisions" in text
    assert HOSTILE in text  # a name is printed as it is in a terminal (the HTML report escapes it)


def test_one_players_figures_are_labelled_pooled_without_a_player(db):
    """The level band (and, in stats, the luck) is one player's figure:
    without --player the PR of every match's both sides has a band, and it
    says so; with --player it is that player's, without the label.  Both
    sides of the fixture: 21.00 (Beginner); charlot1: 20.83 (Beginner)."""
    text = cli("--no-config", "summary", db=db).stdout
    assert "Level (both sides pooled): Beginner (PR 12 and above)" in text
    text = cli("--no-config", "summary", "--player", "charlot1", db=db).stdout
    assert "Level: Beginner (PR 12 and above)" in text and "pooled" not in text


def test_stats_labels_level_and_luck_pooled_without_a_player(db):
    """stats: the level band and the luck are one player's figures (as in
    the summary): labelled as both sides pooled without --player."""
    text = cli("--no-config", "stats", db=db).stdout
    assert "level (both sides pooled): Beginner" in text
    assert "Luck (both sides pooled): " in text
    text = cli("--no-config", "stats", "--player", "charlot1", db=db).stdout
    assert "level: Beginner" in text and "Luck: " in text and "pooled" not in text


def test_list_errors_matches_the_count(db):
    s = summary_json(db, "--player", "charlot1", "--list")
    lst = s["list"]
    assert lst["criteria"]["severity"] == "errors" and lst["total"] == s["errors"] == 5
    assert [d["error_mpt"] for d in lst["decisions"]] == [120.0, 100.0, 90.0, 80.0, 50.0]
    assert all(d["error"] for d in lst["decisions"])
    s = summary_json(db, "--player", "charlot1", "--list", "blunders")
    assert s["list"]["total"] == s["blunders"] == 2


def test_list_last_n_is_the_rolling_window(db):
    s = summary_json(db, "--player", "charlot1", "--list", "last5")
    lst = s["list"]
    assert lst["total"] == 5 and lst["order"].startswith("play order")
    assert [(d["match_id"], d["error_mpt"]) for d in lst["decisions"]] == [
        (2, 120.0), (4, 30.0), (4, 90.0), (5, 0.0), (5, 10.0)]
    assert 500 * sum(d["error_mpt"] for d in lst["decisions"]) / 1000 / 5 == pytest.approx(s["rolling"][0]["pr"])


def test_list_refuses_unknown(db):
    res = cli("--no-config", "summary", "--list", "nope", db=db, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1


def test_empty_selection(db):
    s = summary_json(db, "--player", "charlot1", "--from", "2030-01-01")
    assert s["decisions"] == 0 and s["pr"] is None and s["level"] is None and s["top"] == []
    text = cli("--no-config", "summary", "--player", "charlot1", "--from", "2030-01-01", db=db).stdout
    assert "no counted decisions" in text


@pytest.mark.parametrize("view", ["summary", "stats", "matches", "progression", "errors", "breakdowns",
                                  "positions", "windows"])
def test_a_player_no_match_has_is_refused_with_the_closest_names(db, view):
    """Rough edge: --player of a name with no match says so and lists the
    closest stored names (it printed an empty view before)."""
    res = cli("--no-config", view, "--player", "charlot", db=db, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    assert "no player 'charlot'" in res.stderr and "charlot1" in res.stderr and "charlot2" in res.stderr
    res = cli("--no-config", view, "--player", "nobody at all", db=db, check=False)
    assert res.returncode == 2 and "no player 'nobody at all'" in res.stderr


def test_same_command_inside_gnubg(db, monkeypatch):
    """``>bdb("summary --player charlot1")`` runs the same parser and view."""
    import io

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    from gnubg_blunder import plugins
    from gnubg_blunder.commands import Context, run_line

    plugins.reset_plugin_manager()
    try:
        out = io.StringIO()
        ctx = Context(db_path=str(db), out=out, err=out, inside_gnubg=True, use_config=False)
        assert run_line("summary --player charlot1 --format json", ctx) == 0
        assert json.loads(out.getvalue())["decisions"] == 12
    finally:
        plugins.reset_plugin_manager()
