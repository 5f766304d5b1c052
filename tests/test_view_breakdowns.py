"""``breakdowns``: every axis on the hand-computed fixture database (expected
rows worked out by hand from tests/fixture_db.py: MATCHES; see the table in
tests/test_view_errors.py), plus hand-made decision sets for tags and
post-Crawford cells.

Positions: OPEN (opening / opening), HOLD (middle game / holding game), PRIME
(middle game / playing against a back game), RACE (bear-off / bear-off),
BOAC (middle game / bear-off against contact).  Score cells: away = length − points won before
the game, from the decider's side.  Intervals: matches as units (both
sides of a match one unit without a player filter); R ± 1.96 √(G/(G−1) ×
Σ(e_u − R n_u)² / (Σn)²), floored at 0, × 500.
"""

import csv
import io
import json

import numpy as np
import pytest

from conftest import run_cli_inprocess as cli
from gnubg_blunder.arrays import MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.breakdowns import breakdowns, comment_tags, score_rows, tag_rows
from test_metrics import decisions

A = pytest.approx


def bd_json(db, *args):
    return json.loads(cli("breakdowns", "--no-config", "--format", "json", *args, db=db).stdout)


def table_of(rows):
    """label → (positions, decisions, blunders, PR)"""
    return {r["label"]: (r["positions"], r["decisions"], r["blunders"], r["pr"]) for r in rows}


def ci(row):
    return None if row["pr_ci"] is None else tuple(row["pr_ci"])


# -- charlot1 (12 counted decisions) ---------------------------------------------------

def test_charlot1_phase_and_game_plan(db):
    obj = bd_json(db, "--player", "charlot1")
    assert obj["filter"]["player"] == "charlot1" and obj["by"] == ["phase", "game_plan", "tag", "score"]
    assert obj["decisions"] == 12
    ph = {r["label"]: r for r in obj["phase"]}
    assert list(ph) == ["opening", "middle game", "race", "bear-off"]
    # opening: M1 0, M4 .03, M5 0 (one position OPEN) → PR 500 × .03 / 3 = 5.0
    # middle game: .02 .08 0 (take) | .05 .10 .12 | .09 | .01 → 8 decisions, Σ .47, PR 29.375;
    #   positions HOLD, BOAC, PRIME; blunder positions: HOLD (.10, .12) → 1
    # race: none; bear-off: M1 RACE 0 → PR 0
    assert table_of(obj["phase"]) == {
        "opening": (1, 3, 0, A(5.0)), "middle game": (3, 8, 1, A(29.375)),
        "race": (0, 0, 0, None), "bear-off": (1, 1, 0, A(0.0))}
    # opening units M1 (1, 0) M4 (1, .03) M5 (1, 0): R .01, residuals −.01 .02 −.01, Σ² .0006,
    #   Var = 3/2 × .0006 / 9 = 1e-4, .01 ± .0196 → [0 (floored), .0296] × 500 = [0, 14.8]
    assert ci(ph["opening"]) == (A(0.0), A(14.8))
    # middle units M1 (3, .10) M2 (3, .27) M4 (1, .09) M5 (1, .01): R .05875; residuals −.07625
    #   .09375 .03125 −.04875, Σ² .0179563; Var = 4/3 × .0179563 / 64 = 3.7409e-4;
    #   .05875 ± .037910 → [10.42, 48.33]
    assert ci(ph["middle game"]) == (A(10.4205, abs=1e-3), A(48.3295, abs=1e-3))
    assert ph["bear-off"]["pr_ci"] is None and ph["bear-off"]["ci_note"] == "no interval: 1 match"
    assert all(r["small"] for r in obj["phase"])  # every row under 10 decisions: marked, shown
    # game plans with decisions, in the label order
    assert table_of(obj["game_plan"]) == {
        "bear-off": (1, 1, 0, A(0.0)),
        "bear-off against contact": (1, 1, 0, A(0.0)),       # the take
        "opening": (1, 3, 0, A(5.0)),
        "playing against a back game": (1, 2, 0, A(500 * 0.14 / 2)),  # .05, .09 (money)
        "holding game": (1, 5, 1, A(500 * 0.33 / 5)),        # .02 .08 .10 .12 .01
    }
    assert [r["label"] for r in obj["game_plan"]] == ["bear-off", "bear-off against contact", "opening",
                                                      "playing against a back game", "holding game"]
    gp = {r["label"]: r for r in obj["game_plan"]}
    # holding units M1 (2, .10) M2 (2, .22) M5 (1, .01): R .066; residuals −.032 .088 −.056;
    #   Var = 3/2 × .011904 / 25 = 7.1424e-4; .066 ± .052381 → [6.81, 59.19]
    assert ci(gp["holding game"]) == (A(6.8092, abs=1e-3), A(59.1908, abs=1e-3))
    assert gp["playing against a back game"]["ci_note"] == "no interval: 2 matches"


def test_charlot1_tags_and_score(db):
    obj = bd_json(db, "--player", "charlot1")
    # tags: M1 ".08 #blitz look at this", M2 ".10 #cube", M2 ".12 #blitz"; both #blitz in HOLD
    assert table_of(obj["tag"]) == {"#blitz": (1, 2, 1, A(50.0)), "#cube": (1, 1, 1, A(50.0))}
    assert obj["tagged_decisions"] == 3
    # score cells (own away / opponent's away):
    #   M1 game 0 (7/7): 0 .02 .08;  M1 game 1, charlot1 at 4 (3/7): 0 (RACE), take 0 (BOAC)
    #   M2 game 0 (5/5): .05 .10;    M2 game 1, opponent at 2 (5/3): .12
    #   M5 game 0 (3/3): 0;          M5 game 1, charlot1 at 1 (2/3): .01;   M4 money: .03 .09
    assert table_of(obj["score"]) == {
        "2-away/3-away": (1, 1, 0, A(5.0)),
        "3-away/3-away": (1, 1, 0, A(0.0)),
        "3-away/7-away": (2, 2, 0, A(0.0)),
        "5-away/3-away": (1, 1, 1, A(60.0)),
        "5-away/5-away": (2, 2, 1, A(37.5)),
        "7-away/7-away": (2, 3, 0, A(500 * 0.10 / 3)),
        "money": (2, 2, 0, A(30.0)),
    }
    assert [r["label"] for r in obj["score"]][-1] == "money"
    assert obj["score"][0]["away"] == [2, 3] and obj["score"][-1]["away"] is None
    assert sum(r["decisions"] for r in obj["score"]) == 12 and obj["unknown_score"] == 0


# -- whole database (30 counted decisions) -------------------------------------------------------

def test_whole_database(db):
    obj = bd_json(db)
    assert obj["decisions"] == 30
    # opening (OPEN): .01 0 | 0 | .01 | .03 0 | 0 .07 → 8, Σ .12 → 7.5
    # middle: M1 .02 .08 .15 0 .06 0 | M2 .05 .10 .03 .12 .20 | M3 0 .10 0 .06 | M4 .09 .01 | M5 .01
    #   → 18, Σ 1.08 → 30.0; blunder positions PRIME (.15, .10), HOLD (.10, .12), BOAC (.20) → 3
    # bear-off (RACE): 0 .04 | 0 | .02 → 4, Σ .06 → 7.5
    ph = {r["label"]: r for r in obj["phase"]}
    assert table_of(obj["phase"]) == {
        "opening": (1, 8, 0, A(7.5)), "middle game": (3, 18, 3, A(30.0)),
        "race": (0, 0, 0, None), "bear-off": (1, 4, 0, A(7.5))}
    # opening units (2, .01) (1, 0) (1, .01) (2, .03) (2, .07): R .015, residuals −.02 −.015 −.005 0
    #   .04, Σ² .00225; Var = 5/4 × .00225 / 64; .015 ± .012993 → [1.0035, 13.9965]
    assert ci(ph["opening"]) == (A(1.0035, abs=1e-3), A(13.9965, abs=1e-3))
    # middle units (6, .31) (5, .50) (4, .16) (2, .10) (1, .01): R .06; residuals −.05 .20 −.08 −.02
    #   −.05, Σ² .0518; Var = 5/4 × .0518 / 324; .06 ± .027708 → [16.146, 43.854]
    assert ci(ph["middle game"]) == (A(16.1461, abs=1e-3), A(43.8539, abs=1e-3))
    assert not ph["middle game"]["small"]
    # bear-off units (2, .04) (1, 0) (1, .02): R .015; residuals .01 −.015 .005, Σ² .00035;
    #   Var = 3/2 × .00035 / 16; .015 ± .011227 → [1.886, 13.114]
    assert ci(ph["bear-off"]) == (A(1.8863, abs=1e-3), A(13.1137, abs=1e-3))
    gp = {r["label"]: r for r in obj["game_plan"]}
    assert table_of(obj["game_plan"]) == {
        "bear-off": (1, 4, 0, A(7.5)),
        "bear-off against contact": (1, 3, 1, A(500 * 0.26 / 3)),   # .06 0 .20
        "opening": (1, 8, 0, A(7.5)),
        "playing against a back game": (1, 6, 1, A(500 * 0.40 / 6)),  # .15 .05 0 .10 .09 .01
        "holding game": (1, 9, 1, A(500 * 0.42 / 9)),               # .02 .08 0 .10 .03 .12 0 .06 .01
    }
    # 9 decisions: under 10, marked, with its interval all the same
    assert gp["holding game"]["small"]
    # holding units (3, .10) (3, .25) (2, .06) (1, .01): R .046667; Σ² .0161556;
    #   Var = 4/3 × .0161556 / 81 → [7.352, 39.315]
    assert ci(gp["holding game"]) == (A(7.352, abs=1e-3), A(39.3147, abs=1e-3))
    # units of the back-game position (1, .15) (1, .05) (2, .10) (2, .10): R .066667;
    #   Σ² .0094444; Var = 4/3 × .0094444 / 36 → [15.005, 51.662]
    assert ci(gp["playing against a back game"]) == (A(15.0046, abs=1e-3), A(51.6621, abs=1e-3))
    assert gp["bear-off against contact"]["ci_note"] == "no interval: 2 matches"
    # tags: #blitz .08 .12 (HOLD, 1 blunder position), #cube .10, #race .04; the hostile
    # comment carries no tag
    assert table_of(obj["tag"]) == {"#blitz": (1, 2, 1, A(50.0)), "#cube": (1, 1, 1, A(50.0)),
                                    "#race": (1, 1, 0, A(20.0))}
    assert [r["label"] for r in obj["tag"]] == ["#blitz", "#cube", "#race"]
    # score cells
    assert table_of(obj["score"]) == {
        "2-away/3-away": (1, 1, 0, A(5.0)),                       # M5 .01
        "3-away/3-away": (1, 2, 0, A(500 * 0.07 / 2)),            # M5 0, .07 (OPEN)
        "3-away/5-away": (2, 2, 1, A(50.0)),                      # M2 game 1, Squire at 2: 0, pass .20
        "3-away/7-away": (3, 3, 0, A(10.0)),                      # M1 0, take 0; M3 .06
        "5-away/3-away": (1, 1, 1, A(60.0)),                      # M2 .12
        "5-away/5-away": (3, 4, 1, A(500 * 0.18 / 4)),            # M2 .05 .10 0 .03
        "7-away/3-away": (2, 3, 0, A(500 * 0.12 / 3)),            # M1 .04 .06; M3 .02
        "7-away/7-away": (3, 10, 1, A(500 * 0.37 / 10)),          # M1 game 0 (6), M3 game 0 (4)
        "money": (2, 4, 0, A(500 * 0.13 / 4)),
    }
    sc = {r["label"]: r for r in obj["score"]}
    assert not sc["7-away/7-away"]["small"] and sc["7-away/7-away"]["ci_note"] == "no interval: 2 matches"
    assert sum(r["decisions"] for r in obj["score"]) == 30
    assert sum(r["decisions"] for r in obj["phase"]) == sum(r["decisions"] for r in obj["game_plan"]) == 30


def test_text_csv_and_by(db):
    text = cli("breakdowns", "--no-config", "--player", "charlot1", db=db).stdout
    assert "Scope: player charlot1" in text
    assert "Rows do not add up" in text and "3 of 12 decisions" in text
    assert "* fewer than 10 decisions" in text
    assert "— (1 match)" in text and "[10.42, 48.33]" in text
    assert "Post-Crawford scores read as 1-away" in text
    only = bd_json(db, "--by", "score")
    assert only["by"] == ["score"] and "phase" not in only and "tag" not in only
    rows = list(csv.DictReader(io.StringIO(
        cli("breakdowns", "--no-config", "--format", "csv", "--by", "game-plan", db=db).stdout)))
    assert [r["label"] for r in rows] == ["bear-off", "bear-off against contact", "opening",
                                          "playing against a back game", "holding game"]
    assert rows[4]["small"] == "True" and float(rows[4]["pr_ci_low"]) == A(7.352, abs=1e-3)
    assert rows[1]["pr_ci_low"] == ""  # no interval: empty, not 0
    mwc = cli("breakdowns", "--no-config", "--metric", "mwc7", "--by", "score", db=db).stdout
    assert "no 7-point equivalent" in mwc and "MWC lost %" in mwc


# -- hand-made decision sets ------------------------------------------------------------------------

def _match(i, length, players=("A", "B")):
    return MatchInfo(id=i + 1, players=players, length=length, date=None, event=None, winner=None,
                     final_score=(0, 0), n_games=1, source="sgf", analysis_id=i + 1, engine="gnubg",
                     depth=0, depth_label="0-ply")


def _chk(**kw):
    row = dict(kind="checker", error=0.0, n_legal=5, n_candidates=5, equity_spread=0.3, position=0)
    row.update(kw)
    return row


def test_comment_tags():
    assert comment_tags("#Blitz and again #blitz") == ("blitz",)          # one tag, case-folded
    assert comment_tags("#blitz #Back-Game: hit?") == ("blitz", "back-game")  # two tags
    assert comment_tags("C# and a#b, ## and #-x") == ()                   # glued or no letters
    assert comment_tags("##prime, #prime_2.") == ("prime", "prime_2")
    assert comment_tags("#défense") == ("défense",)
    assert comment_tags(None) == () and comment_tags("") == ()


def test_tags_on_hand_made_set():
    dec = decisions(
        _chk(error=0.02, comment="#Blitz"),
        _chk(error=0.04, comment="#blitz #Prime"),  # two tags: counted in both rows
        _chk(error=0.10, comment="no tag here"),
        _chk(error=0.00),
    )
    sel = Selection(matches=[_match(0, 7)], decisions=dec, rolls=RollArrays(),
                    sides=np.ones((1, 2), dtype=bool), positions=["p"])
    rows, tagged = tag_rows(sel)
    # #blitz: .02 + .04 over 2 → 15.0; #prime: .04 → 20.0; rows 3 > 2 tagged decisions
    assert [(r["label"], r["decisions"], r["pr"]) for r in rows] == [("#blitz", 2, A(15.0)), ("#prime", 1, A(20.0))]
    assert tagged == 2 and sum(r["decisions"] for r in rows) == 3


def test_post_crawford_cells():
    # match 0: 5 points; match 1: 7 points; match 2: money
    dec = decisions(
        _chk(match=0, score_self=4, score_opp=2, crawford=1, error=0.01),  # Crawford game, leader: 1-away/3-away
        _chk(match=1, score_self=6, score_opp=4, error=0.03),              # post-Crawford, leader: 1-away/3-away
        _chk(match=1, score_self=4, score_opp=6, error=0.05),              # post-Crawford, trailer: 3-away/1-away
        _chk(match=0, score_self=4, score_opp=4, error=0.0),               # post-Crawford DMP: 1-away/1-away
        _chk(match=0, score_self=-1, score_opp=2, error=0.0),              # unknown score: left out
        _chk(match=2, score_self=3, score_opp=0, error=0.02),              # money
    )
    sel = Selection(matches=[_match(0, 5), _match(1, 7), _match(2, 0)], decisions=dec, rolls=RollArrays(),
                    sides=np.ones((3, 2), dtype=bool), positions=["p"])
    rows, unknown = score_rows(sel)
    # 1-away/3-away: .01 + .03 over 2 → 10.0, one of them in the Crawford game
    assert [(r["label"], r["decisions"], r["crawford_decisions"]) for r in rows] == [
        ("1-away/1-away", 1, 0), ("1-away/3-away", 2, 1), ("3-away/1-away", 1, 0), ("money", 1, 0)]
    assert rows[1]["pr"] == A(10.0) and rows[2]["pr"] == A(25.0) and rows[3]["pr"] == A(10.0)
    assert unknown == 1
    b = breakdowns(sel, axes=("score",))
    assert b["unknown_score"] == 1 and b["decisions"] == 6


def test_unknown_breakdown_is_refused(db):
    res = cli("breakdowns", "--by", "dice", db=db, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
