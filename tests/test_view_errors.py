"""``errors``: every section on the hand-computed fixture database (expected
figures worked out by hand from tests/fixture_db.py: MATCHES), plus
hand-made decision sets for the band and cube-action edges.

Fixture reminder (default thresholds: error ≥ 50 mpt, blunder ≥ 100 mpt;
mwc_per_emg 0.5 in match play, so ℓ in % points = 50 × e; match 4 is money).
Counted decisions, e in EMG (a forced play and an "nd_far" are not counted):

  M1 (7 pt)  p0 charlot1: chk 0 OPEN, chk .02 HOLD, chk .08 HOLD (too many blots, #blitz),
                          chk 0 RACE, take 0 BOAC (ND .6 DT .7 DP 1)
             p1 charlot2: chk .01 OPEN, chk .15 PRIME (point not made), nd 0 HOLD (ND .5 DT .45),
                          chk .04 RACE (#race), double .06 BOAC (premature; ND .5 DT .44)
  M2 (5 pt)  p0 charlot1: chk .05 PRIME (not determined), nd .10 HOLD (missed double, #cube; ND .5 DT .6),
                          chk .12 HOLD (too many blots, #blitz)
             p1 Squire:   chk 0 OPEN, chk .03 HOLD, chk 0 RACE, pass .20 BOAC (wrong pass; ND .6 DT .8)
  M3 (7 pt)  p0 charlot2: chk .01 OPEN, chk 0 PRIME, chk .06 HOLD (too passive)
             p1 Squire:   chk .10 PRIME (point not made), chk 0 HOLD, chk .02 RACE
  M4 money   p0 charlot1: chk .03 OPEN, chk .09 PRIME (too many blots)
             p1 charlot2: chk 0 OPEN, chk .01 PRIME
  M5 (3 pt)  p0 charlot1: chk 0 OPEN, chk .01 HOLD
             p1 hostile:  chk .07 OPEN (not determined)

Game plans: OPEN opening, HOLD holding game, PRIME playing against a back game,
RACE bear-off, BOAC bear-off against contact.
"""

import csv
import io
import json
import math

import numpy as np
import pytest

from conftest import run_cli, run_cli_inprocess as cli
from gnubg_blunder.importers.build import cube_action
from gnubg_blunder.arrays import LABEL_CODES, MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.counting import Thresholds
from gnubg_blunder.metrics.errors import CUBE_ACTIONS, band_codes, cube_action_codes, error_figures
from gnubg_blunder.metrics.figures import aggregate
from test_metrics import decisions

A = pytest.approx
SQRT7, SQRT5, SQRT3 = math.sqrt(7), math.sqrt(5), math.sqrt(3)


def errors_json(db, *args):
    return json.loads(cli("errors", "--no-config", "--format", "json", *args, db=db).stdout)


def by(rows, key, value):
    found = [r for r in rows if r[key] == value]
    assert len(found) == 1, (key, value, rows)
    return found[0]


# -- charlot1 ---------------------------------------------------------------------

def test_charlot1_totals_and_recurring(db):
    obj = errors_json(db, "--player", "charlot1")
    assert obj["filter"]["player"] == "charlot1"
    assert obj["metric"] == "pr"
    t = obj["totals"]
    # N = M1 5 + M2 3 + M4 2 + M5 2 = 12; Σe = .10 + .27 + .12 + .01 = .50; PR = 500 × .5 / 12
    assert t["decisions"] == 12 and t["checker_decisions"] == 10 and t["cube_decisions"] == 2
    assert t["pr"] == A(500 * 0.5 / 12)
    # errors: .08, .05, .10, .12, .09; blunders: .10, .12
    assert (t["errors"], t["blunders"]) == (5, 2)
    # MWC: match play Σe = .50 − .12 (money) = .38 → 50 × .38 = 19.0 pp
    assert t["mwc_loss"] == A(19.0)
    # L7 = √7 × .19 / (√7 + √5 + √3) (sides M1, M2, M5) = 7.6006 pp
    assert t["l7"] == A(100 * SQRT7 * 0.19 / (SQRT7 + SQRT5 + SQRT3))
    # recurring: (holding, checker, too many blots) .08 + .12 = .20 → 500 × .2 / 12 = 8.333, 40 %
    #            (holding, cube, missed double) .10 → 4.167, 20 %
    #            (against a back game, checker, too many blots) .09 (money) → 3.75, 18 %
    rec = obj["recurring"]
    assert [(r["game_plan"], r["nature"], r["theme"], r["errors"]) for r in rec] == [
        ("holding game", "checker", "too many blots", 2),
        ("holding game", "cube", "missed double", 1),
        ("playing against a back game", "checker", "too many blots", 1),
    ]
    assert [r["cost"] for r in rec] == [A(500 * 0.20 / 12), A(500 * 0.10 / 12), A(500 * 0.09 / 12)]
    assert [r["share"] for r in rec] == [A(0.40), A(0.20), A(0.18)]
    # MWC: 50 × .20 = 10.0 (share 10/19), 5.0, money only → none
    assert [r["mwc_loss"] for r in rec] == [A(10.0), A(5.0), None]
    assert rec[0]["mwc_share"] == A(10 / 19)
    assert rec[0]["l7"] == A(100 * SQRT7 * 0.10 / (SQRT7 + SQRT5 + SQRT3))
    # theme not determined: against a back game .05 → 500 × .05 / 12 = 2.083, 10 %; never ranked
    assert [(r["game_plan"], r["errors"]) for r in obj["theme_not_determined"]] == [("playing against a back game", 1)]
    assert obj["theme_not_determined"][0]["cost"] == A(500 * 0.05 / 12)
    assert obj["theme_not_determined"][0]["share"] == A(0.10)
    # no group exceeds the PR, and everything adds up to the errors' part of it
    costs = [r["cost"] for r in rec + obj["theme_not_determined"]]
    assert max(costs) <= t["pr"] and sum(costs) == A(500 * (0.08 + 0.05 + 0.10 + 0.12 + 0.09) / 12)
    assert obj["errors_without_label"] == 0


def test_charlot1_cube_sections_and_histogram(db):
    obj = errors_json(db, "--player", "charlot1")
    # cube decisions: take (ND .6, DT .7, DP 1: min(DT,DP) .7 ≥ ND, DT ≤ DP → DoubleTake), e 0
    #                 no double (ND .5, DT .6: .6 ≥ .5 → DoubleTake), e .10 (a blunder)
    ca = {r["action"]: r for r in obj["cube_actions"]}
    assert list(ca) == list(CUBE_ACTIONS)
    dt = ca["DoubleTake"]
    assert (dt["decisions"], dt["errors"], dt["blunders"]) == (2, 1, 1)
    assert dt["pr"] == A(500 * 0.10 / 2) and dt["blunder_share"] == A(0.5)
    assert dt["pr_ci"] is None and dt["small"]  # 2 matches
    for name in ("NoDouble", "DoublePass", "TooGood"):
        assert ca[name]["decisions"] == 0 and ca[name]["pr"] is None and ca[name]["blunder_share"] is None
    # direction: offer = the counted no double (1): missed 1 (.10 → 500 × .1 / 12 = 4.167); premature 0
    #            respond = the take (1): wrong pass 0, wrong take 0
    d = {r["direction"]: r for r in obj["cube_direction"]}
    assert (d["missed double"]["decisions"], d["missed double"]["of"]) == (1, 1)
    assert d["missed double"]["cost"] == A(500 * 0.10 / 12) and d["missed double"]["error_emg"] == A(0.10)
    assert (d["premature double"]["decisions"], d["premature double"]["of"]) == (0, 1)
    assert (d["wrong pass"]["decisions"], d["wrong take"]["decisions"], d["wrong take"]["of"]) == (0, 0, 1)
    # checker: 10 decisions Σe .40 → PR 20.0; errors .08 .05 .12 .09; blunder .12
    # cube: 2 decisions Σe .10 → PR 25.0; error and blunder .10
    cc = {r["nature"]: r for r in obj["checker_cube"]}
    assert (cc["checker"]["decisions"], cc["checker"]["errors"], cc["checker"]["blunders"]) == (10, 4, 1)
    assert cc["checker"]["pr"] == A(20.0)
    # checker interval, matches as units (n, Σe): M1 (4, .10) M2 (2, .17) M4 (2, .12) M5 (2, .01);
    # R = .04; residuals −.06 .09 .04 −.07; Var = 4/3 × .0182 / 10² = 2.4267e-4;
    # R ± 1.96 √Var = .04 ± .030533 → × 500 = [4.733, 35.267]
    assert cc["checker"]["pr_ci"] == [A(4.7338, abs=1e-3), A(35.2662, abs=1e-3)]
    assert (cc["cube"]["decisions"], cc["cube"]["errors"], cc["cube"]["blunders"]) == (2, 1, 1)
    assert cc["cube"]["pr"] == A(25.0) and cc["cube"]["pr_ci"] is None
    # MWC-7 parts add up to L7: checker √7 × (.14) / Σ√N, cube √7 × .05 / Σ√N
    s = SQRT7 + SQRT5 + SQRT3
    assert cc["checker"]["l7"] == A(100 * SQRT7 * 0.14 / s) and cc["cube"]["l7"] == A(100 * SQRT7 * 0.05 / s)
    assert cc["checker"]["l7"] + cc["cube"]["l7"] == A(obj["totals"]["l7"])
    # histogram (mpt): 0 20 80 0 0 | 50 100 120 | 30 90 | 0 10
    #   0–5: 4   5–10: 0   10–25: 20, 10 → 2   25–50: 30 → 1   50–100: 80 50 90 → 3   ≥100: 100 120 → 2
    h = obj["histogram"]
    assert [r["band"] for r in h] == ["0–5", "5–10", "10–25", "25–50", "50–100", "≥100"]
    assert [r["decisions"] for r in h] == [4, 0, 2, 1, 3, 2]
    # costs: 0, 0, 500 × .03 / 12, 500 × .03 / 12, 500 × .22 / 12, 500 × .22 / 12 (sum = PR)
    assert [r["cost"] for r in h] == [A(0), A(0), A(1.25), A(1.25), A(500 * 0.22 / 12), A(500 * 0.22 / 12)]
    assert h[2]["decision_share"] == A(2 / 12)
    assert (h[0]["low_mpt"], h[0]["high_mpt"], h[5]["low_mpt"], h[5]["high_mpt"]) == (0, 5, 100, None)
    # 25–50 holds only the money .03: no MWC
    assert h[3]["mwc_loss"] is None and h[2]["mwc_loss"] == A(50 * 0.03)


# -- whole database -------------------------------------------------------------------

def test_whole_database(db):
    obj = errors_json(db)
    t = obj["totals"]
    # N = 10 + 7 + 6 + 4 + 3 = 30; Σe = .36 + .50 + .19 + .13 + .08 = 1.26 → PR 21.0
    assert (t["decisions"], t["checker_decisions"], t["cube_decisions"]) == (30, 25, 5)
    assert t["pr"] == A(21.0) and (t["errors"], t["blunders"]) == (11, 5)
    # MWC: 50 × (1.26 − .13) = 56.5; L7 = √7 × .565 / (4√7 + 2√5 + 2√3)
    assert t["mwc_loss"] == A(56.5)
    assert t["l7"] == A(100 * SQRT7 * 0.565 / (4 * SQRT7 + 2 * SQRT5 + 2 * SQRT3))
    rec = obj["recurring"]
    # (against a back game, point not made) .15 + .10 = .25 → 4.167; then two groups at .20 (3.333):
    # (holding, too many blots, 2 errors) before (BOAC, wrong pass, 1 error): more errors first;
    # (holding, missed double) .10 → 1.667; (against a back game, too many blots) .09 → 1.5;
    # two at .06 (1.0) with 1 error each: game-plan order, BOAC before holding game.
    assert [(r["game_plan"], r["theme"]) for r in rec] == [
        ("playing against a back game", "point not made"),
        ("holding game", "too many blots"),
        ("bear-off against contact", "wrong pass"),
        ("holding game", "missed double"),
        ("playing against a back game", "too many blots"),
        ("bear-off against contact", "premature double"),
        ("holding game", "too passive"),
    ]
    assert [r["nature"] for r in rec] == ["checker", "checker", "cube", "cube", "checker", "cube", "checker"]
    assert [r["errors"] for r in rec] == [2, 2, 1, 1, 1, 1, 1]
    assert [r["cost"] for r in rec] == [A(500 * x / 30) for x in (0.25, 0.20, 0.20, 0.10, 0.09, 0.06, 0.06)]
    assert rec[0]["share"] == A(0.25 / 1.26)
    # theme not determined: opening .07 (1.167) before against a back game .05 (0.833)
    tnd = obj["theme_not_determined"]
    assert [(r["game_plan"], r["errors"]) for r in tnd] == [("opening", 1), ("playing against a back game", 1)]
    assert [r["cost"] for r in tnd] == [A(500 * 0.07 / 30), A(500 * 0.05 / 30)]
    # cube actions: nd (ND .5 DT .45) → NoDouble e 0; double (ND .5 DT .44) → NoDouble e .06;
    # take (ND .6 DT .7) → DoubleTake e 0; nd (ND .5 DT .6) → DoubleTake e .10; pass (ND .6 DT .8) →
    # DoubleTake e .20.  NoDouble: 2, PR 500 × .06 / 2 = 15, 1 error, 0 blunders;
    # DoubleTake: 3, PR 500 × .30 / 3 = 50, 2 errors, 2 blunders (share 2/3)
    ca = {r["action"]: r for r in obj["cube_actions"]}
    assert (ca["NoDouble"]["decisions"], ca["NoDouble"]["errors"], ca["NoDouble"]["blunders"]) == (2, 1, 0)
    assert ca["NoDouble"]["pr"] == A(15.0) and ca["NoDouble"]["blunder_share"] == 0
    assert (ca["DoubleTake"]["decisions"], ca["DoubleTake"]["blunders"]) == (3, 2)
    assert ca["DoubleTake"]["pr"] == A(50.0) and ca["DoubleTake"]["blunder_share"] == A(2 / 3)
    assert ca["DoublePass"]["decisions"] == ca["TooGood"]["decisions"] == 0
    # direction: offer = nd, double, nd (3): missed 1 (.10 → 1.667), premature 1 (.06 → 1.0);
    # respond = take, pass (2): wrong pass 1 (.20 → 3.333), wrong take 0
    d = {r["direction"]: r for r in obj["cube_direction"]}
    assert [(d[k]["decisions"], d[k]["of"]) for k in ("missed double", "premature double", "wrong pass",
                                                      "wrong take")] == [(1, 3), (1, 3), (1, 2), (0, 2)]
    assert [d[k]["cost"] for k in ("missed double", "premature double", "wrong pass", "wrong take")] == [
        A(500 * 0.10 / 30), A(500 * 0.06 / 30), A(500 * 0.20 / 30), A(0)]
    # checker 25, Σe .90 → 18.0, errors 8, blunders 3 (.15 .12 .10); cube 5, Σe .36 → 36.0, 3 and 2
    cc = {r["nature"]: r for r in obj["checker_cube"]}
    assert (cc["checker"]["decisions"], cc["checker"]["errors"], cc["checker"]["blunders"]) == (25, 8, 3)
    assert (cc["cube"]["decisions"], cc["cube"]["errors"], cc["cube"]["blunders"]) == (5, 3, 2)
    assert cc["checker"]["pr"] == A(18.0) and cc["cube"]["pr"] == A(36.0)
    # checker units (both sides one unit): (7, .30) (5, .20) (6, .19) (4, .13) (3, .08); R = .036;
    # residuals .048 .02 −.026 −.014 −.028, Σ² = .00436; Var = 5/4 × .00436 / 625 = 8.72e-6;
    # .036 ± 1.96 × .0029530 → × 500 = [15.106, 20.894]
    assert cc["checker"]["pr_ci"] == [A(15.106, abs=1e-3), A(20.894, abs=1e-3)]
    # histogram: 0–5: 10; 5–10: 0; 10–25: 6 (Σ .08); 25–50: 3 (Σ .10); 50–100: 6 (Σ .41); ≥100: 5 (Σ .67)
    h = obj["histogram"]
    assert [r["decisions"] for r in h] == [10, 0, 6, 3, 6, 5]
    assert [r["error_emg"] for r in h] == [A(0), A(0), A(0.08), A(0.10), A(0.41), A(0.67)]
    assert sum(r["cost"] for r in h) == A(t["pr"])
    # the totals agree with `stats`
    st = json.loads(cli("stats", "--no-config", "--format", "json", db=db).stdout)
    assert (st["decisions"], st["errors"], st["blunders"]) == (t["decisions"], t["errors"], t["blunders"])
    assert st["pr"] == A(t["pr"]) and st["l7"] == A(t["l7"]) and st["mwc_loss"] == A(t["mwc_loss"])


def test_metric_switch_and_formats(db):
    # --metric mwc orders the recurring errors by MWC lost; the money-only group (against a back game,
    # too many blots: .09 in match 4) has none and goes last
    obj = errors_json(db, "--metric", "mwc")
    assert obj["metric"] == "mwc"
    assert obj["recurring"][-1]["theme"] == "too many blots" and obj["recurring"][-1]["mwc_loss"] is None
    text = cli("errors", "--no-config", "--metric", "mwc7", "--player", "charlot1", db=db).stdout
    assert "Metric: MWC-7" in text and "L7: 7.60 % points" in text and "share of L7" in text
    text = cli("errors", "--no-config", "--player", "charlot1", db=db).stdout
    assert "Scope: player charlot1" in text
    assert text.index("too many blots") < text.index("Theme not determined") < text.index("theme not determined")
    assert "Double/take         2*  25.00" in text and "DoubleTake" not in text  # a player's words (issue 26)
    rows = list(csv.DictReader(io.StringIO(
        cli("errors", "--no-config", "--format", "csv", "--player", "charlot1", db=db).stdout)))
    hist = [r for r in rows if r["section"] == "histogram"]
    assert [int(r["decisions"]) for r in hist] == [4, 0, 2, 1, 3, 2]
    rec = [r for r in rows if r["section"] == "recurring"]
    assert rec[0]["game_plan"] == "holding game" and float(rec[0]["cost"]) == A(500 * 0.2 / 12)
    # a money-only value is empty in CSV, never 0
    assert [r for r in rows if r["section"] == "histogram"][3]["mwc_loss"] == ""


def test_decision_type_checker_has_no_cube_sections(db):
    obj = errors_json(db, "--decision-type", "checker")
    assert obj["totals"]["decisions"] == 25 and obj["totals"]["pr"] == A(18.0)
    assert all(r["decisions"] == 0 for r in obj["cube_actions"])
    text = cli("errors", "--no-config", "--decision-type", "checker", db=db).stdout
    assert "(no counted cube decision)" in text


def test_inside_gnubg_same_words(db, monkeypatch):
    """``>bdb("errors --player charlot1")`` runs the same command line."""
    from gnubg_blunder.commands import Context, run_line
    from gnubg_blunder.plugins import reset_plugin_manager

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    reset_plugin_manager()
    out, err = io.StringIO(), io.StringIO()
    rc = run_line('errors --player charlot1 --format json --no-config', Context(db_path=str(db), out=out, err=err))
    reset_plugin_manager()
    assert rc == 0, err.getvalue()
    assert json.loads(out.getvalue())["totals"]["decisions"] == 12


@pytest.mark.e2e
def test_unknown_metric_is_one_line_error(db):
    """End to end (a real process): the exit status of the interpreter is 2."""
    res = run_cli("errors", "--metric", "elo", db=db, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and res.stdout == ""


# -- hand-made decision sets ------------------------------------------------------------------

def _match(i, length=7):
    return MatchInfo(id=i + 1, players=("A", "B"), length=length, date=None, event=None, winner=None,
                     final_score=(0, 0), n_games=1, source="sgf", analysis_id=i + 1, engine="gnubg",
                     depth=0, depth_label="0-ply")


def _sel(dec, n_matches=1, length=7):
    return Selection(matches=[_match(i, length) for i in range(n_matches)], decisions=dec, rolls=RollArrays(),
                     sides=np.ones((n_matches, 2), dtype=bool), positions=["p"])


def test_histogram_band_edges():
    # e is rounded half-up to the millipoint first (SPEC §3):
    #   0.0049 → 4.9 mpt → 5 → band 5–10;  0.00449 → 4.49 → 4 → 0–5;  0.0045 → 4.5 → 5 → 5–10
    #   0.0095 → 10 → 10–25;  0.0249 → 25 → 25–50;  0.0499 → 50 → 50–100
    #   0.099499 → 99.499 → 99 → 50–100;  0.0995 → 100 → ≥100;  0.1 → ≥100;  0 → 0–5
    es = [0.0049, 0.00449, 0.0045, 0.0095, 0.0249, 0.0499, 0.099499, 0.0995, 0.1, 0.0]
    assert band_codes(np.array(es)).tolist() == [1, 0, 1, 2, 3, 4, 4, 5, 5, 0]
    dec = decisions(*[dict(kind="checker", error=e, n_legal=5, n_candidates=5, equity_spread=0.3, position=0)
                      for e in es])
    h = error_figures(_sel(dec))["histogram"]
    assert [r["decisions"] for r in h] == [2, 2, 1, 1, 2, 2]


def _cube(kind, nd, dt, dp=1.0, error=0.0):
    return dict(kind=kind, nd=nd, dt=dt, dp=dp, error=error, position=0)


CUBE_EDGES = [
    # ND = min(DT, DP) exactly: doubling loses nothing, so the best action is a double
    (_cube("double", 0.6, 0.6), "DoubleTake"),            # ND = DT < DP
    (_cube("double", 1.0, 1.2), "DoublePass"),            # ND = DP < DT
    # DT = DP exactly: taking loses nothing, so the response is a take
    (_cube("double", 0.5, 1.0), "DoubleTake"),            # DT = DP > ND
    (_cube("nodouble", 1.2, 1.0, error=0.0), "NoDouble"),  # ND > DT = DP: a take, so NoDouble, not TooGood
    (_cube("double", 1.0, 1.0), "DoubleTake"),            # ND = DT = DP
    # plain cases
    (_cube("nodouble", 0.5, 0.45), "NoDouble"),
    (_cube("nodouble", 1.1, 1.3), "TooGood"),
    (_cube("double", 0.7, 1.3, error=0.0), "DoublePass"),
    # a take or pass carries the figures of the double it answers: its action is that double's
    (_cube("take", 0.5, 0.44), "NoDouble"),               # a premature double, taken
    (_cube("pass", 1.1, 1.3), "TooGood"),                 # a too-good double, passed
]


def test_cube_action_edges():
    dec = decisions(*[row for row, _ in CUBE_EDGES], dict(kind="double", error=0.1),
                    dict(kind="checker", error=0.0))
    codes = cube_action_codes(dec)
    assert [CUBE_ACTIONS[c] for c in codes[:-2]] == [name for _, name in CUBE_EDGES]
    assert codes[-2:].tolist() == [-1, -1]  # no cube figures; a checker play
    # the same rule as the importer's best action
    names = {"no double": "NoDouble", "double/take": "DoubleTake", "double/pass": "DoublePass",
             "too good": "TooGood"}
    assert [names[cube_action(r["nd"], r["dt"], r["dp"])] for r, _ in CUBE_EDGES] == [n for _, n in CUBE_EDGES]


def test_cube_action_rows_and_direction_on_hand_made_set():
    dec = decisions(
        _cube("nodouble", 0.5, 0.6, error=0.1),    # DoubleTake, missed double, blunder
        _cube("double", 0.5, 0.44, error=0.06),    # NoDouble, premature double
        _cube("take", 0.5, 0.44),                  # NoDouble, right take
        _cube("pass", 0.6, 0.8, error=0.2),        # DoubleTake, wrong pass, blunder
        _cube("take", 1.1, 1.3, error=0.3),        # TooGood, wrong take, blunder
        _cube("double", 0.7, 1.3, error=0.0),      # DoublePass, right double
    )
    obj = error_figures(_sel(dec))
    ca = {r["action"]: r for r in obj["cube_actions"]}
    # NoDouble: .06 + 0 over 2 → PR 15, 0 blunders; DoubleTake: .1 + .2 over 2 → 75, 2 blunders;
    # TooGood: .3 → 150, 1 blunder; DoublePass: 0 → 0
    assert [(ca[a]["decisions"], ca[a]["blunders"]) for a in CUBE_ACTIONS] == [(2, 0), (2, 2), (1, 0), (1, 1)]
    assert [ca[a]["pr"] for a in CUBE_ACTIONS] == [A(15.0), A(75.0), A(0.0), A(150.0)]
    assert ca["DoubleTake"]["blunder_share"] == 1.0 and ca["NoDouble"]["blunder_share"] == 0.0
    d = {r["direction"]: (r["decisions"], r["of"]) for r in obj["cube_direction"]}
    assert d == {"missed double": (1, 3), "premature double": (1, 3), "wrong pass": (1, 3),
                 "wrong take": (1, 3)}


def test_theme_not_determined_is_never_ranked():
    # a large undetermined error (.3) would top the table: it stays on its own line
    none_code = LABEL_CODES["theme"]["theme not determined"]
    blots = LABEL_CODES["theme"]["too many blots"]
    plan = LABEL_CODES["game_plan"]["holding game"]
    dec = decisions(
        dict(kind="checker", error=0.3, n_legal=5, n_candidates=5, equity_spread=0.3, position=0,
             theme=none_code, game_plan=plan),
        dict(kind="checker", error=0.05, n_legal=5, n_candidates=5, equity_spread=0.3, position=0,
             theme=blots, game_plan=plan),
        dict(kind="checker", error=0.049, n_legal=5, n_candidates=5, equity_spread=0.3, position=0,
             theme=blots, game_plan=plan),  # 49 mpt: not an error, not a member
    )
    obj = error_figures(_sel(dec), Thresholds())
    assert [(r["theme"], r["errors"]) for r in obj["recurring"]] == [("too many blots", 1)]
    assert [(r["theme"], r["errors"]) for r in obj["theme_not_determined"]] == [("theme not determined", 1)]
    # cost over all 3 counted decisions: 500 × .05 / 3
    assert obj["recurring"][0]["cost"] == A(500 * 0.05 / 3)


def test_l7_parts_equal_aggregate():
    dec = decisions(
        dict(kind="checker", error=0.05, mwc_per_emg=0.5, n_legal=5, n_candidates=5, equity_spread=0.3,
             position=0, match=0),
        dict(kind="double", nd=0.5, dt=0.44, dp=1.0, error=0.06, mwc_per_emg=0.5, position=0, match=1),
    )
    sel = _sel(dec, n_matches=2, length=5)
    obj = error_figures(sel)
    agg = aggregate(sel)
    parts = [r["l7"] for r in obj["checker_cube"]]
    assert sum(parts) == A(agg["l7"]) == A(obj["totals"]["l7"])
