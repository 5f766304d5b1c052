"""``progression`` and ``goal suggest``: expected outputs computed by hand
from tests/fixture_db.py, and hand-made decision sets for the trend (its
refusal under 3 dated matches, and a 3-match fit checked against a hand
least-squares fit), the tournament player rule and the suggestion.

Fixture, charlot1's matches (see test_view_summary.py for the decisions):

    match 1  2025-01-10  Club A  5 decisions  Σe .10  PR 10.0   ℓ 5.0 pp
    match 2  2025-02-15  Club A  3 decisions  Σe .27  PR 45.0   ℓ 13.5 pp
    match 4  2025-04-05  —       2 decisions  Σe .12  PR 30.0   money: no MWC
    match 5  undated     —       2 decisions              -> left out, counted

Tournament Club A for charlot1: 8 decisions, Σe .37 -> PR 23.125; 2 matches
(units) -> no interval.
"""

import datetime as dt
import json
import math

import numpy as np
import pytest

from conftest import run_cli_inprocess as cli
from gnubg_blunder.arrays import KIND_CODES, DecisionArrays, MatchInfo, RollArrays, Selection
from gnubg_blunder.metrics.progression import (
    TREND_NOTE,
    goal_suggestion_figures,
    progression_figures,
    tournament_rows,
    trend,
)
from gnubg_blunder.views.progression import suggestion_text

# charlot1's trend, by hand: x = days after 2025-01-10 = 0, 36, 85; y = 10, 45, 30
#   Σx = 121, Σy = 85, Σxy = 36·45 + 85·30 = 4170, Σx² = 36² + 85² = 8521
#   Sxy = 4170 − 121·85/3 = 2225/3;  Sxx = 8521 − 121²/3 = 10922/3
SLOPE = 2225 / 10922                       # 0.20372 PR a day
INTERCEPT = 85 / 3 - SLOPE * 121 / 3       # 20.1167 on 2025-01-10
# goal set on 2025-04-05 for 12 weeks: deadline 2025-06-28 = day 85 + 84 = 169
AT_DEADLINE = INTERCEPT + SLOPE * 169      # 54.545


@pytest.fixture()
def db_goal(db_copy):
    """The fixture with a goal "PR < 5" set on 2025-04-05 for 12 weeks."""
    from gnubg_blunder.db_settings import set_goal
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(db_copy) as st:
        set_goal(st, "PR < 5", 12, today=dt.date(2025, 4, 5))
    return db_copy


def progression_json(db, *args):
    return json.loads(cli("--no-config", "progression", "--format", "json", *args, db=db).stdout)


# -- the fixture database ----------------------------------------------------------

def test_progression_charlot1(db_goal):
    p = progression_json(db_goal, "--player", "charlot1")
    assert p["perspective"] == "charlot1" and p["filter"]["player"] == "charlot1"
    (t,) = p["tournaments"]
    assert (t["event"], t["date"], t["player"], t["matches"], t["decisions"]) == (
        "Club A", "2025-01-10", "charlot1", 2, 8)
    assert t["pr"] == pytest.approx(500 * 0.37 / 8)  # 23.125
    assert t["pr_ci"] is None and t["ci_note"] == "no interval: 2 matches" and t["small"]
    # L7 of the tournament: √7 × (.05 + .135) / (√7 + √5)
    assert t["l7"] == pytest.approx(100 * math.sqrt(7) * 0.185 / (math.sqrt(7) + math.sqrt(5)))
    rows = [(m["match_id"], m["date"], m["decisions"], m["pr"], m["opponent"]) for m in p["matches"]]
    assert rows == [
        (1, "2025-01-10", 5, pytest.approx(10.0), "charlot2"),
        (2, "2025-02-15", 3, pytest.approx(45.0), "Squire/Jørgensen"),
        (4, "2025-04-05", 2, pytest.approx(30.0), "charlot2"),
    ]
    assert p["undated_matches"] == 1 and p["undated_match_ids"] == [5]
    g = p["goal"]
    assert (g["metric"], g["op"], g["target"], g["deadline"], g["comparable"]) == ("pr", "<", 5.0, "2025-06-28", True)
    assert g["now_meets"] is False  # PR 20.83 now
    tr = p["trend"]
    assert tr["refused"] is None and tr["points"] == 3
    assert (tr["from"], tr["to"]) == ("2025-01-10", "2025-04-05")
    assert tr["slope_per_day"] == pytest.approx(SLOPE)
    assert tr["slope_per_30_days"] == pytest.approx(30 * SLOPE)
    assert tr["value_at_first"] == pytest.approx(INTERCEPT)
    assert tr["at_deadline"] == pytest.approx(AT_DEADLINE) and tr["meets_goal"] is False
    assert p["trend_note"] == TREND_NOTE


def test_progression_text(db_goal):
    text = cli("--no-config", "progression", "--player", "charlot1", db=db_goal).stdout
    assert "Goal: PR < 5 by 2025-06-28 (set on 2025-04-05)." in text
    assert "Club A" in text and "23.12" in text  # 23.125 printed to 2 decimals
    assert "1 undated match left out (match 5)." in text
    assert f"{30 * SLOPE:+.2f} per 30 days" in text  # +6.11
    assert f"{AT_DEADLINE:.2f}" in text and "would not be met" in text
    assert text.rstrip().endswith(TREND_NOTE)


def test_progression_everyone_one_player_per_tournament(db):
    p = progression_json(db)
    assert p["perspective"] is None  # no --player, no main player: sides pooled
    got = [(t["event"], t["date"], t["player"], t["matches"], t["decisions"]) for t in p["tournaments"]]
    # Club A: charlot1 played both matches (most matches).  Open B: charlot2 and
    # Squire/Jørgensen have 1 match and 3 decisions each: name order -> charlot2
    assert got == [("Club A", "2025-01-10", "charlot1", 2, 8), ("Open B", "2025-03-20", "charlot2", 1, 3)]
    assert p["tournaments"][1]["pr"] == pytest.approx(500 * 0.07 / 3)  # .010 + 0 + .060
    # pooled matches: Σe / N per match: .36/10, .50/7, .19/6, .13/4
    assert [(m["match_id"], m["decisions"]) for m in p["matches"]] == [(1, 10), (2, 7), (3, 6), (4, 4)]
    assert [m["pr"] for m in p["matches"]] == pytest.approx([18.0, 500 * 0.5 / 7, 500 * 0.19 / 6, 16.25])
    assert p["undated_matches"] == 1
    assert p["goal"] is None


def test_progression_main_player(db_copy):
    from gnubg_blunder.db_settings import set_main_player
    from gnubg_blunder.database import SQLiteStore

    path = db_copy
    with SQLiteStore(path) as st:
        set_main_player(st, "Squire/Jørgensen")
    p = progression_json(path)
    assert p["perspective"] == "Squire/Jørgensen"
    # the main player played in both tournaments: their PR in each
    # Club A (match 2): 0, .030, 0, .200 -> 500 × .23 / 4 = 28.75; Open B (match 3): .100, 0, .020 -> 20.0
    got = [(t["event"], t["player"], t["pr"]) for t in p["tournaments"]]
    assert got == [("Club A", "Squire/Jørgensen", pytest.approx(28.75)),
                   ("Open B", "Squire/Jørgensen", pytest.approx(20.0))]
    assert [m["match_id"] for m in p["matches"]] == [2, 3]
    assert p["matches_without_player"] == [1, 4, 5] and p["undated_matches"] == 0
    # 2 dated matches: the trend is refused, and says why
    assert p["trend"]["refused"].startswith("No trend: 2 dated matches")
    text = cli("--no-config", "progression", db=path).stdout
    assert "No trend: 2 dated matches" in text and TREND_NOTE in text
    assert "3 matches without Squire/Jørgensen left out." in text


def test_progression_mwc_leaves_money_out(db):
    p = progression_json(db, "--player", "charlot1", "--metric", "mwc")
    assert [m["mwc_loss"] for m in p["matches"]] == [pytest.approx(5.0), pytest.approx(13.5), None]
    assert p["trend"]["points"] == 2 and p["trend"]["refused"]  # the money match has no MWC
    p = progression_json(db, "--player", "charlot1", "--metric", "mwc7")
    # L7 of one side: L × √(7/N): .05 × 1 -> 5.0; .135 × √(7/5) -> 15.97
    assert [m["l7"] for m in p["matches"]] == [pytest.approx(5.0), pytest.approx(13.5 * math.sqrt(7 / 5)), None]


def test_progression_csv(db):
    out = cli("--no-config", "progression", "--player", "charlot1", "--format", "csv", db=db).stdout
    lines = out.splitlines()
    assert lines[0].startswith("row,date,tournament,match_id,player")
    assert [ln.split(",")[0] for ln in lines[1:]] == ["tournament", "match", "match", "match"]
    assert lines[1].split(",")[:8] == ["tournament", "2025-01-10", "Club A", "", "charlot1", "", "2", "8"]
    assert lines[4].split(",")[13] == ""  # money: MWC unknown, never 0


def test_goal_suggest_cli(db):
    out = cli("--no-config", "goal", "suggest", "--player", "charlot1", db=db).stdout
    # PR 20.83 is Beginner (12 and above): its lower bound 12
    assert "Beginner" in out and 'PR < 12' in out and "not a published norm" in out


# -- hand-made decision sets --------------------------------------------------------

def _decisions(rows):
    """rows: (match, player, error) counted checker plays."""
    n = len(rows)
    cols = {name: [missing] * n for name, (_dtype, missing) in DecisionArrays.SPEC.items()}
    cols.update(kind=[KIND_CODES["checker"]] * n, n_legal=[5] * n, n_candidates=[5] * n, equity_spread=[0.3] * n,
                match=[r[0] for r in rows], player=[r[1] for r in rows], error=[r[2] for r in rows],
                game=[0] * n, seq=list(range(n)), mwc_per_emg=[0.5] * n, position=[0] * n,
                row_id=list(range(1, n + 1)))
    return DecisionArrays(**cols)


def _match(i, date=None, event=None, players=("A", "B")):
    return MatchInfo(id=i + 1, players=players, length=7, date=date, event=event, winner=None, final_score=(0, 0),
                     n_games=1, source="sgf", analysis_id=i + 1, engine="gnubg", depth=0, depth_label="0-ply",
                     names=players)


def _selection(matches, rows):
    return Selection(matches=matches, decisions=_decisions(rows), rolls=RollArrays(),
                     sides=np.ones((len(matches), 2), dtype=bool), positions=["pos"])


def test_trend_refused_with_two_dated_matches():
    sel = _selection([_match(0, "2025-01-01"), _match(1, "2025-01-11"), _match(2)],
                     [(0, 0, 0.02), (1, 0, 0.016), (2, 0, 0.006)])
    p = progression_figures(sel)
    assert p["undated_matches"] == 1
    assert p["trend"]["points"] == 2 and p["trend"]["slope_per_day"] is None
    assert "No trend: 2 dated matches" in p["trend"]["refused"]
    assert p["trend_note"] == "A trend is not a forecast."


def test_trend_on_three_matches_against_a_hand_fit():
    # PR 10, 8, 3 (one decision each: e = .020, .016, .006) on days 0, 10, 30
    #   Σx = 40, Σy = 21, Σxy = 80 + 90 = 170, Σx² = 1000
    #   Sxy = 170 − 40·21/3 = −110;  Sxx = 1000 − 1600/3 = 1400/3
    #   slope = −110 / (1400/3) = −33/140 a day;  intercept = 7 + (33/140)(40/3) = 7 + 22/7
    #   on 2025-02-10 (day 40): 7 + 22/7 − 40·33/140 = 5/7 < 5: the goal is met on this line
    sel = _selection([_match(0, "2025-01-01"), _match(1, "2025-01-11"), _match(2, "2025-01-31")],
                     [(0, 0, 0.02), (1, 0, 0.016), (2, 0, 0.006)])
    goal = {"metric": "pr", "op": "<", "target": 5.0, "set_on": "2025-01-01", "deadline": "2025-02-10"}
    p = progression_figures(sel, goal=goal)
    assert [m["pr"] for m in p["matches"]] == pytest.approx([10.0, 8.0, 3.0])
    t = p["trend"]
    assert t["points"] == 3 and t["refused"] is None
    assert t["slope_per_day"] == pytest.approx(-33 / 140)
    assert t["value_at_first"] == pytest.approx(7 + 22 / 7)
    assert t["value_at_last"] == pytest.approx(7 + 22 / 7 - 30 * 33 / 140)
    assert t["at_deadline"] == pytest.approx(5 / 7, abs=1e-9) and t["meets_goal"] is True
    assert p["goal"]["comparable"] and p["goal"]["now_meets"] is False  # now: 500 × .042 / 3 = 7.0


def test_trend_refused_on_one_date():
    t = trend([("2025-01-01", 3.0), ("2025-01-01", 4.0), ("2025-01-01", 5.0)])
    assert t["refused"] == "No trend: all 3 matches are on one date."


def test_goal_in_another_metric_is_not_compared():
    sel = _selection([_match(i, f"2025-01-0{i + 1}") for i in range(3)], [(i, 0, 0.01) for i in range(3)])
    goal = {"metric": "mwc7", "op": "<", "target": 5.0, "set_on": "2025-01-01", "deadline": "2025-02-10"}
    p = progression_figures(sel, goal=goal)
    assert p["goal"]["comparable"] is False and p["trend"]["meets_goal"] is None


def test_tournament_player_rule():
    matches = [
        _match(0, "2025-03-01", "E", ("A", "B")),
        _match(1, "2025-03-02", "E", ("C", "A")),    # E: A has 2 matches
        _match(2, "2025-02-01", "F", ("B", "C")),    # F: 1 match each; B 3 decisions, C 2
        _match(3, None, "G", ("charlot2", "charlot1")),  # G: undated, 1 decision each: name order -> charlot1
    ]
    rows = [(0, 0, 0.01), (0, 1, 0.0), (1, 0, 0.0), (1, 1, 0.03),
            (2, 0, 0.01), (2, 0, 0.0), (2, 0, 0.02), (2, 1, 0.0), (2, 1, 0.0),
            (3, 0, 0.0), (3, 1, 0.04)]
    sel = _selection(matches, rows)
    got = [(t["event"], t["date"], t["player"], t["decisions"]) for t in tournament_rows(sel)]
    # order: F (2025-02-01), E (2025-03-01), G (undated, last)
    assert got == [("F", "2025-02-01", "B", 3), ("E", "2025-03-01", "A", 2), ("G", None, "charlot1", 1)]
    rows_e = tournament_rows(sel)[1]
    assert rows_e["pr"] == pytest.approx(500 * 0.04 / 2) and rows_e["matches"] == 2
    # the main player first wherever they played
    got = [(t["event"], t["player"]) for t in tournament_rows(sel, main_player="c")]
    assert got == [("F", "C"), ("E", "C"), ("G", "charlot1")]


@pytest.mark.parametrize("total, n, expect", [
    (1.06, 100, 'PR 5.30 over 100 decisions is Advanced (PR 4–6). Suggested goal: PR < 4'),
    (0.3, 100, "is World class (PR below 2): the first band has no band above it"),
    (0.4, 100, "is Expert (PR 2–4). Suggested goal: PR < 2"),   # 2.0 exactly: Expert
    (2.0, 100, "is Casual (PR 9–12). Suggested goal: PR < 9"),   # PR 10
])
def test_goal_suggestion(total, n, expect):
    sel = _selection([_match(0, "2025-01-01")], [(0, 0, total)] + [(0, 0, 0.0)] * (n - 1))
    s = goal_suggestion_figures(sel, perspective="A")
    assert s["decisions"] == n and s["pr"] == pytest.approx(500 * total / n)
    assert expect in suggestion_text(s)


def test_goal_suggestion_without_decisions():
    sel = _selection([_match(0, "2025-01-01")], [])
    assert "nothing to suggest" in suggestion_text(goal_suggestion_figures(sel, perspective="A"))
