"""Players views on the hand-computed fixture database (tests/fixture_db.py):
players, compare, contrast, ranking, h2h, windows.

Every expected figure is computed by hand from the MATCHES table of
fixture_db.py (arithmetic in the comments), never copied from the code.
Reminders: PR = 500 Σe / N over counted decisions (forced plays and the
"nd_far" no double do not count); ℓ = e × 0.5 in match play; L7 = √7 ΣL /
Σ√N; each match has 2 games × 2 players = 4 rolls, each roll carrying half
the luck of the MATCHES table; error threshold 50 mpt, blunder 100 mpt.

Counted decisions (e in EMG) by player and match:
  charlot1  m1: OPEN .000, HOLD .020, HOLD .080, RACE .000, take BOAC .000   (5, Σ .100)
            m2: PRIME .050, nd HOLD .100, HOLD .120                          (3, Σ .270)
            m4: OPEN .030, PRIME .090 (money)                                (2, Σ .120)
            m5: OPEN .000, HOLD .010                                         (2, Σ .010)
  charlot2  m1: OPEN .010, PRIME .150, nd HOLD .000, RACE .040, double BOAC .060  (5, Σ .260)
            m3: OPEN .010, PRIME .000, HOLD .060                             (3, Σ .070)
            m4: OPEN .000, PRIME .010 (money)                                (2, Σ .010)
  Squire    m2: OPEN .000, HOLD .030, RACE .000, pass BOAC .200              (4, Σ .230)
            m3: PRIME .100, HOLD .000, RACE .020                             (3, Σ .120)
  hostile   m5: OPEN .070                                                    (1, Σ .070)
"""

from __future__ import annotations

import json
import math

import pytest

from conftest import run_cli, run_cli_inprocess as cli
from fixture_db import HOSTILE, P_BOAC, P_HOLD, P_OPEN

SQ = "Squire/Jørgensen"
R7, R5, R3 = math.sqrt(7), math.sqrt(5), math.sqrt(3)
approx = pytest.approx


def cli_json(db, *args):
    return json.loads(cli(*args, "--format", "json", "--no-config", db=db).stdout)


def by_player(rows):
    return {r["player"]: r for r in rows}


# -- players: every column by hand ----------------------------------------------

EXPECTED = {
    "charlot1": dict(
        matches=4,  # m1, m2, m4, m5
        wins=1, losses=2,  # m1 won 7-0; m2 lost 0-5; m4 money 1-2 lost; m5 unfinished 1-0 = neither
        decisions=12,  # 5 + 3 + 2 + 2
        pr=500 * 0.5 / 12,  # Σe = .100 + .270 + .120 + .010 = .500 -> 20.833
        checker_pr=500 * 0.4 / 10,  # checker: .100 (4) + .170 (2) + .120 (2) + .010 (2) = .400 over 10 -> 20.0
        cube_pr=500 * 0.1 / 2,  # take .000 + nd .100 -> 25.0
        snowie_er=500 * 0.5 / 16,  # every analysed decision's e (forced and nd_far add 0) over 4 × 4 rolls
        blunders=2,  # m2 nd .100 and HOLD .120 (≥ 100 mpt, inclusive)
        luck_per_roll=1000 * (0.30 - 0.20 + 0.10) / 6,  # m1 .30, m2 -.20, m4 .10 over 2+2+2 rolls; m5 unknown
        l7=100 * R7 * (0.05 + 0.135 + 0.005) / (R7 + R5 + R3),  # L: m1 .100×.5, m2 .270×.5, m5 .010×.5 -> 7.6006
    ),
    "charlot2": dict(
        matches=3,  # m1, m3, m4
        wins=2, losses=1,  # m1 lost; m3 won 7-0; m4 money 2-1 won
        decisions=10,  # 5 + 3 + 2
        pr=500 * 0.34 / 10,  # .260 + .070 + .010 = .340 -> 17.0
        checker_pr=500 * 0.28 / 8,  # .200 (3) + .070 (3) + .010 (2) -> 17.5
        cube_pr=500 * 0.06 / 2,  # nd .000 + double .060 -> 15.0
        snowie_er=500 * 0.34 / 12,  # over 3 × 4 rolls -> 14.1667
        blunders=1,  # m1 PRIME .150
        luck_per_roll=1000 * (-0.10 + 0.05 + 0.10) / 6,  # -> 8.333
        l7=100 * R7 * (0.13 + 0.035) / (R7 + R7),  # m1 .260×.5, m3 .070×.5; m4 money -> 8.25
    ),
    SQ: dict(
        matches=2, wins=1, losses=1,  # m2 won 5-0; m3 lost 0-7
        decisions=7,  # 4 + 3
        pr=500 * 0.35 / 7,  # .230 + .120 -> 25.0
        checker_pr=500 * 0.15 / 6,  # .030 + .120 -> 12.5
        cube_pr=500 * 0.2 / 1,  # pass .200 -> 100.0
        snowie_er=500 * 0.35 / 8,  # -> 21.875
        blunders=2,  # pass .200, PRIME .100
        luck_per_roll=1000 * (0.25 + 0.00) / 4,  # m3 has luck (charlot2's .05), so Squire's 0.00 is known -> 62.5
        l7=100 * R7 * (0.115 + 0.06) / (R5 + R7),  # -> 9.4843
    ),
    HOSTILE: dict(
        matches=1, wins=0, losses=0,  # m5 unfinished
        decisions=1, pr=500 * 0.07 / 1, checker_pr=35.0,
        cube_pr=None,  # no cube decision: never measured, not 0
        snowie_er=500 * 0.07 / 4,  # -> 8.75
        blunders=0,
        luck_per_roll=None,  # m5 has no luck data
        l7=100 * R7 * 0.035 / R3,  # -> 5.3463
    ),
}


def test_players_rows_every_column_by_hand(db):
    rows = cli_json(db, "players")["players"]
    assert isinstance(rows, list) and len(rows) == 4
    got = by_player(rows)
    assert set(got) == set(EXPECTED)
    for name, exp in EXPECTED.items():
        for key, value in exp.items():
            assert got[name][key] == (None if value is None else approx(value)), (name, key)
    # default order: PR ascending, best first (seed 002); never measured (—) last
    # (every player here has a PR: 17.0, 20.83, 35.0, then the hostile name's)
    prs = [r["pr"] for r in rows]
    assert prs == sorted(prs)
    assert [r["player"] for r in rows] == ["charlot2", "charlot1", SQ, HOSTILE]


def test_players_pr_interval_by_hand(db):
    c1 = by_player(cli_json(db, "players")["players"])["charlot1"]
    # SPEC §7, units = charlot1's 4 matches (e, n): (.10,5) (.27,3) (.12,2) (.01,2); R = .5/12
    units = [(0.10, 5), (0.27, 3), (0.12, 2), (0.01, 2)]
    r = 0.5 / 12
    var = 4 / 3 * sum((e - r * n) ** 2 for e, n in units) / 12**2
    half = 1.96 * math.sqrt(var)
    assert c1["pr_ci"] == approx([500 * (r - half), 500 * (r + half)])  # ≈ [2.10, 39.57]
    # two matches: no interval
    assert by_player(cli_json(db, "players")["players"])[SQ]["pr_ci"] is None


def test_players_json_keys_and_filter(db):
    obj = cli_json(db, "players", "--tournament", "Club A")
    assert obj["filter"]["tournaments"] == ["Club A"]
    rows = obj["players"]
    for r in rows:
        for key in ("player", "matches", "wins", "losses", "decisions", "pr", "checker_pr", "cube_pr",
                    "snowie_er", "blunders", "luck_per_roll", "l7", "pr_ci", "highlight"):
            assert key in r
    # Club A = m1, m2: charlot1 in both, charlot2 in m1, Squire in m2
    got = by_player(rows)
    assert got["charlot1"]["decisions"] == 8 and got["charlot1"]["pr"] == approx(500 * 0.37 / 8)
    assert set(got) == {"charlot1", "charlot2", SQ}


def test_players_row_is_sum_over_sum_of_match_sides(db):
    """Each row against the per-side figures of ``matches --format json``."""
    matches = cli_json(db, "matches")["matches"]
    rows = by_player(cli_json(db, "players")["players"])
    for name, row in rows.items():
        sides = [(m, s) for m in matches for s in m["sides"] if s["player"] == name]
        n = sum(s["decisions"] for _, s in sides)
        e = sum(s["error_emg"] for _, s in sides)
        n_chk = sum(s["checker_decisions"] for _, s in sides)
        e_chk = sum(s["checker_error_emg"] for _, s in sides)
        assert row["decisions"] == n
        assert row["pr"] == approx(500 * e / n)
        assert row["checker_pr"] == approx(500 * e_chk / n_chk)
        assert row["cube_pr"] == (approx(500 * (e - e_chk) / (n - n_chk)) if n - n_chk else None)
        assert row["blunders"] == sum(s["blunders"] for _, s in sides)
        assert row["wins"] == sum(1 for _, s in sides if s["won"] is True)
        assert row["losses"] == sum(1 for _, s in sides if s["won"] is False)
        rolls = sum(s["luck_rolls"] for _, s in sides)
        luck = sum(s["luck_emg"] or 0 for _, s in sides)
        assert row["luck_per_roll"] == (approx(1000 * luck / rolls) if rolls else None)
        mp = [(m, s) for m, s in sides if m["length"]]
        l7 = 100 * R7 * sum(s["mwc_loss"] / 100 for _, s in mp) / sum(math.sqrt(m["length"]) for m, _ in mp)
        assert row["l7"] == approx(l7)
        # Snowie: the sides' numerators over the matches' rolls (4 per match in the fixture)
        assert row["snowie_er"] == approx(sum(s["snowie_er"] * 4 for _, s in sides) / (4 * len(sides)))


@pytest.mark.parametrize("name", ["charlot1", "charlot2", SQ, HOSTILE])
def test_players_row_equals_stats_player(db, name):
    row = by_player(cli_json(db, "players")["players"])[name]
    stats = cli_json(db, "stats", "--player", name)
    assert row["decisions"] == stats["decisions"]
    assert row["pr"] == stats["pr"]
    assert row["pr_ci"] == stats["pr_ci"]
    for key in ("matches", "wins", "losses", "checker_pr", "cube_pr", "snowie_er", "blunders", "l7", "l7_ci"):
        assert row[key] == stats[key], key
    assert row["luck_per_roll"] == stats["luck_per_roll_mpt"]


def test_players_highlight_and_decision_type_not_applied(db):
    obj = cli_json(db, "players", "--player", "CHARLOT2", "--decision-type", "checker")
    rows = obj["players"]
    # every player is a row; only the filter's player is highlighted
    assert len(rows) == 4
    assert [r["player"] for r in rows if r["highlight"]] == ["charlot2"]
    # the decision type does not apply: charlot2 keeps its 10 decisions (8 checker + 2 cube)
    assert by_player(rows)["charlot2"]["decisions"] == 10
    assert obj["filter"]["decision_type"] == "checker" and obj["filter"]["player"] == "CHARLOT2"
    text = cli("players", "--player", "charlot2", "--decision-type", "checker", "--no-config", db=db).stdout
    assert "does not apply" in text
    line = next(ln for ln in text.splitlines() if "charlot2" in ln and ln.startswith("*"))
    assert "17.00" in line


def test_players_without_data_sort_last_by_default(tmp_path):
    """Rough edge (seed 002): ``players`` opens sorted by PR ascending, a
    player never measured (no counted decision: —) last."""
    from gnubg_blunder.views.players import DEFAULT_SORT, PLAYER_COLUMNS
    from gnubg_blunder.views.table_filters import find_column, sort_rows

    rows = [{"player": "a", "pr": None}, {"player": "b", "pr": 9.0}, {"player": "c", "pr": 3.0}]
    col = find_column(DEFAULT_SORT[0], PLAYER_COLUMNS)
    assert [r["player"] for r in sort_rows(rows, col, DEFAULT_SORT[1], tiebreak=PLAYER_COLUMNS[0])] == ["c", "b", "a"]


def test_players_sort_and_where(db):
    rows = cli_json(db, "players", "--sort", "cube_pr")["players"]
    # cube PR 15 (c2), 25 (c1), 100 (Squire), then "—" (hostile)
    assert [r["player"] for r in rows] == ["charlot2", "charlot1", SQ, HOSTILE]
    rows = cli_json(db, "players", "--sort", "cube_pr:desc")["players"]
    assert [r["player"] for r in rows] == [SQ, "charlot1", "charlot2", HOSTILE]
    rows = cli_json(db, "players", "--where", "decisions=>=7", "--where", "pr=<21")["players"]
    assert [r["player"] for r in rows] == ["charlot2", "charlot1"]
    rows = cli_json(db, "players", "--where", "player=CHAR", "--sort", "pr")["players"]
    assert [r["player"] for r in rows] == ["charlot2", "charlot1"]
    # luck/roll is signed: +8.3 (c2), +33.3 (c1), +62.5 (Squire); hostile never measured
    rows = cli_json(db, "players", "--where", "luck=0-40")["players"]
    assert [r["player"] for r in rows] == ["charlot2", "charlot1"]


@pytest.mark.parametrize("args", [("--where", "pr=abc"), ("--where", "nope=3"), ("--sort", "pr:up"),
                                  ("--where", "pr=9-2")])
def test_players_unreadable_filter_is_an_error(db, args):
    res = cli("players", *args, "--no-config", db=db, check=False)
    assert res.returncode == 2
    assert res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error:")


def test_players_hostile_name_is_text(db):
    text = cli("players", "--no-config", db=db).stdout
    assert HOSTILE in text  # printed as text, as it is (no HTML here)
    assert by_player(cli_json(db, "players")["players"])[HOSTILE]["player"] == HOSTILE
    csv = cli("players", "--format", "csv", "--no-config", db=db).stdout
    assert HOSTILE in csv
    assert csv.splitlines()[0].startswith("player,matches,wins,losses")


def test_players_control_characters_are_escaped_in_text():
    from gnubg_blunder.views.players import safe_text

    assert safe_text("a\x1b[31mb\n") == "a\\x1b[31mb\\n"


def test_players_metric_parts_add_up(db):
    rows = by_player(cli_json(db, "players", "--metric", "mwc7")["players"])
    c1 = rows["charlot1"]
    # checker ℓ: (.100 (m1) + .170 (m2) + .010 (m5)) × .5; cube: m2 nd .100 × .5
    assert c1["checker_l7"] == approx(100 * R7 * 0.14 / (R7 + R5 + R3))
    assert c1["cube_l7"] == approx(100 * R7 * 0.05 / (R7 + R5 + R3))
    assert c1["checker_l7"] + c1["cube_l7"] == approx(c1["l7"])
    assert rows[HOSTILE]["cube_l7"] is None  # no cube decision: "—", not 0
    text = cli("players", "--metric", "mwc", "--no-config", db=db).stdout
    assert "MWC lost" in text


def test_players_empty_selection(db):
    assert cli_json(db, "players", "--from", "2030-01-01")["players"] == []
    text = cli("players", "--from", "2030-01-01", "--no-config", db=db).stdout
    assert "No players" in text


# -- compare ---------------------------------------------------------------------------

def test_compare_verdicts(db):
    obj = cli_json(db, "compare", "charlot1", "Charlot2")
    assert obj["players"] == ["charlot1", "charlot2"]
    assert obj["filter"]["player"] is None
    rows = {r["key"]: r for r in obj["rows"]}
    # relative figures, lower is better: PR 20.83 v 17.00, checker 20.00 v 17.50, cube 25 v 15,
    # Snowie 15.625 v 14.167, blunders/100 2/12 = 16.67 v 1/10 = 10.00 -> charlot2; L7 7.60 v 8.25 -> charlot1
    for key in ("pr", "checker_pr", "cube_pr", "snowie_er", "blunders_per_100"):
        assert rows[key]["better"] == "charlot2", key
    assert rows["l7"]["better"] == "charlot1"
    assert rows["blunders_per_100"]["a"] == approx(100 * 2 / 12)
    assert rows["blunders_per_100"]["b"] == approx(100 * 1 / 10)
    # counts and luck: no verdict
    for key in ("matches", "wins", "losses", "decisions", "blunders", "luck_per_roll"):
        assert rows[key]["better"] is None and rows[key]["relative"] is False, key
    assert rows["luck_per_roll"]["a"] == approx(1000 * 0.2 / 6)
    text = cli("compare", "charlot1", "charlot2", "--no-config", db=db).stdout
    assert "*17.00" in text and "*7.60" in text and "*" not in text.split("luck per roll")[1].splitlines()[0]


def test_compare_dash_decides_nothing(db):
    obj = cli_json(db, "compare", "charlot1", HOSTILE)
    rows = {r["key"]: r for r in obj["rows"]}
    assert rows["cube_pr"]["b"] is None and rows["cube_pr"]["better"] is None  # 25.0 v —
    # blunders/100: 16.67 v 0/1 = 0.00 -> the hostile name
    assert rows["blunders_per_100"]["better"] == HOSTILE
    text = cli("compare", "charlot1", HOSTILE, "--no-config", db=db).stdout
    assert HOSTILE in text


def test_compare_tie_decides_nothing():
    from gnubg_blunder.metrics.players import compare
    from gnubg_blunder.views.players import COMPARE_ROWS

    a = {"pr": 5.004, "checker_pr": 4.0, "cube_pr": None, "snowie_er": 3.0, "blunders_per_100": 2.0, "l7": 1.0}
    b = {"pr": 4.996, "checker_pr": 4.0, "cube_pr": 3.0, "snowie_er": 3.001, "blunders_per_100": 1.0, "l7": None}
    rows = {r["key"]: r["better"] for r in compare(a, b, COMPARE_ROWS)}
    # 5.00 v 5.00, 4.00 v 4.00, 3.00 v 3.00 at the digits shown: ties; — decides nothing
    assert rows["pr"] is None and rows["checker_pr"] is None and rows["snowie_er"] is None
    assert rows["cube_pr"] is None and rows["l7"] is None
    assert rows["blunders_per_100"] == 1


def test_compare_unknown_player_is_an_error(db):
    res = cli("compare", "charlot1", "char", "--no-config", db=db, check=False)
    assert res.returncode == 2 and "charlot1, charlot2" in res.stderr
    res = cli("compare", "charlot1", "CHARLOT1", "--no-config", db=db, check=False)
    assert res.returncode == 2 and "same player" in res.stderr


# -- contrast -----------------------------------------------------------------------------

def test_contrast_charlot1_squire(db):
    obj = cli_json(db, "contrast", "charlot1", SQ)
    # the same decision = same position, kind, cube (1 here) and the decider's score before the game,
    # and for checker plays the same dice (3-1 for every fixture play); worst counted play of each:
    #   HOLD checker at 0-0: charlot1 m1 max(.020, .080) = .080 (error), Squire m2 .030 / m3 .000 -> .030
    #                        (under) -> gap 50 mpt; charlot1's HOLD plays at 0-2 (m2) and 1-0 (m5) differ
    #   BOAC response: charlot1 took at 4-0 (m1), Squire passed at 2-0 (m2): not the same decision
    #   OPEN at 0-0 .030 v .000 both under; PRIME at 0-0 .050 v .100 both errors -> left out
    #   RACE: charlot1 at 4-0, Squire at 2-0 and 0-4: never the same
    assert [(r["position_id"], r["kind"], r["dice"], r["cube"], r["score"]) for r in obj["rows"]] == [
        (P_HOLD, "checker", "3-1", 1, "0-0")]
    (hold,) = obj["rows"]
    assert (hold["a_worst_mpt"], hold["b_worst_mpt"], hold["gap_mpt"]) == (80.0, 30.0, 50.0)
    assert (hold["a_count"], hold["b_count"], hold["under"]) == (2, 2, SQ)
    assert len(hold["a_decision_ids"]) == 2
    assert obj["error_threshold_mpt"] == 50.0


def test_contrast_keys_checker_plays_by_dice_cube_and_score():
    """Rough edge: one position over different rolls, cubes or scores is
    not one decision (the opening position over 15 rolls was one row)."""
    from types import SimpleNamespace

    import numpy as np

    from gnubg_blunder.metrics.players import KIND_CLASS, decision_key
    from gnubg_blunder.metrics.counting import K_CHECKER, K_NO_DOUBLE

    dec = SimpleNamespace(position=np.array([7, 7, 7, 7, 7, 7]), dice=np.array([31, 42, 31, 31, 31, 53]),
                          cube_value=np.array([1, 1, 2, 1, 1, 1]), score_self=np.array([0, 0, 0, 3, 0, 0]),
                          score_opp=np.array([0, 0, 0, 1, 0, 0]), crawford=np.array([0, 0, 0, 0, 1, 0]))
    chk, cube = KIND_CLASS[K_CHECKER], KIND_CLASS[K_NO_DOUBLE]
    keys = [decision_key(dec, i, chk) for i in range(5)]
    assert len(set(keys)) == 5  # dice 31 v 42, cube 1 v 2, score 0-0 v 3-1, Crawford
    assert keys[0] == (7, chk, 31, 1, "0-0") and keys[4][4] == "0-0 C"
    # a cube decision is taken before the roll: the dice do not part it
    assert decision_key(dec, 0, cube) == decision_key(dec, 5, cube) == (7, cube, -1, 1, "0-0")


def test_contrast_charlot1_charlot2_and_decision_type(db):
    obj = cli_json(db, "contrast", "charlot1", "charlot2")
    # HOLD cube offer: charlot1 nd .100 (error, m2), charlot2 nd .000 (m1) -> gap 100;
    # BOAC: charlot1 took (response), charlot2 doubled (offer): not the same decision
    # checker: OPEN .030 v .010, RACE .000 v .040 both under; HOLD .120 v .060, PRIME .090 v .150 both errors
    assert [(r["position_id"], r["kind"], r["gap_mpt"]) for r in obj["rows"]] == [(P_HOLD, "cube offer", 100.0)]
    # checker positions only: nothing left
    assert cli_json(db, "contrast", "charlot1", "charlot2", "--decision-type", "checker")["rows"] == []
    obj = cli_json(db, "contrast", "charlot1", SQ, "--decision-type", "checker")
    assert [r["position_id"] for r in obj["rows"]] == [P_HOLD]
    # charlot1 v the hostile name: OPEN .030 (under) v .070 (error) -> gap 40
    obj = cli_json(db, "contrast", "charlot1", HOSTILE)
    assert [(r["position_id"], r["gap_mpt"], r["under"]) for r in obj["rows"]] == [(P_OPEN, 40.0, "charlot1")]


def test_contrast_text(db):
    text = cli("contrast", "charlot1", SQ, "--no-config", db=db).stdout
    lines = text.splitlines()
    assert any(P_HOLD in ln and "3-1" in ln and "0-0" in ln and "80.0" in ln and "50.0" in ln for ln in lines)
    assert P_BOAC not in text  # the take at 4-0 and the pass at 2-0 are not the same decision


# -- ranking ----------------------------------------------------------------------------------

def test_ranking(db):
    obj = cli_json(db, "ranking", "--min-decisions", "5")
    # PR: charlot2 17.00 (10), charlot1 20.83 (12), Squire 25.00 (7); the hostile name has 1 decision
    assert [(r["rank"], r["player"]) for r in obj["rows"]] == [(1, "charlot2"), (2, "charlot1"), (3, SQ)]
    assert obj["left_out"] == 1 and obj["min_decisions"] == 5
    assert obj["rows"][0]["pr"] == approx(17.0)
    obj = cli_json(db, "ranking", "--min-decisions", "8")
    assert [r["player"] for r in obj["rows"]] == ["charlot2", "charlot1"] and obj["left_out"] == 2
    obj = cli_json(db, "ranking")
    assert [r["player"] for r in obj["rows"]] == ["charlot2", "charlot1", SQ, HOSTILE]
    # by L7: hostile 5.35, charlot1 7.60, charlot2 8.25, Squire 9.48
    obj = cli_json(db, "ranking", "--metric", "mwc7")
    assert [r["player"] for r in obj["rows"]] == [HOSTILE, "charlot1", "charlot2", SQ]
    csv = cli("ranking", "--format", "csv", "--no-config", db=db).stdout
    assert csv.splitlines()[1].startswith("1,charlot2,17.0")


# -- head to head --------------------------------------------------------------------------------

def test_h2h_charlot1_charlot2(db):
    obj = cli_json(db, "h2h", "charlot1", "charlot2")
    # common matches: m1 (7 points, charlot1 7-0) and m4 (money, charlot2 2-1)
    assert obj["matches"] == 2 and [r["id"] for r in obj["rows"]] == [1, 4]
    assert obj["won"] == [1, 1] and obj["undecided"] == 0
    assert obj["points"] == [7 + 1, 0 + 2]
    a, b = obj["sides"]
    # charlot1: m1 (5, .100) + m4 (2, .120) -> 500 × .22 / 7 = 15.714
    assert a["decisions"] == 7 and a["pr"] == approx(500 * 0.22 / 7)
    # charlot2: m1 (5, .260) + m4 (2, .010) -> 500 × .27 / 7 = 19.286
    assert b["decisions"] == 7 and b["pr"] == approx(500 * 0.27 / 7)
    assert a["pr_ci"] is None  # two matches: no interval
    m1, m4 = obj["rows"]
    assert m1["pr"] == [approx(500 * 0.1 / 5), approx(500 * 0.26 / 5)] and m1["winner"] == "charlot1"
    assert m4["pr"] == [approx(500 * 0.12 / 2), approx(500 * 0.01 / 2)] and m4["winner"] == "charlot2"
    assert m4["score"] == [1, 2] and m4["length"] == 0
    # the other way round: the same, mirrored
    obj2 = cli_json(db, "h2h", "charlot2", "charlot1")
    assert obj2["won"] == [1, 1] and obj2["points"] == [2, 8] and obj2["sides"][0]["pr"] == approx(b["pr"])


def test_h2h_decision_type_and_no_common_match(db):
    obj = cli_json(db, "h2h", "charlot1", "charlot2", "--decision-type", "cube")
    # cube decisions in m1/m4: charlot1 take .000; charlot2 nd .000 + double .060
    assert obj["sides"][0]["pr"] == approx(0.0) and obj["sides"][1]["pr"] == approx(500 * 0.06 / 2)
    obj = cli_json(db, "h2h", "charlot2", HOSTILE)
    assert obj["matches"] == 0 and obj["rows"] == [] and obj["sides"][0]["pr"] is None


@pytest.mark.parametrize("view", [["h2h", "charlot1", "charlot2"], ["windows", "--months", "3"]])
@pytest.mark.parametrize("flag", [["--engine", "gnubg"], ["--min-depth", "2"]])
def test_h2h_and_windows_refuse_engine_depth(db, view, flag):
    res = cli(*view, *flag, "--no-config", db=db, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    assert "engine/depth" in res.stderr and "different engines" in res.stderr


# -- windows ----------------------------------------------------------------------------------------

def test_windows_three_months_everyone(db):
    obj = cli_json(db, "windows", "--months", "3")
    # dated matches: m1 2025-01-10, m2 02-15, m3 03-20, m4 04-05; m5 undated: left out and counted
    assert obj["undated"] == 1 and obj["months"] == 3 and obj["filter"]["player"] is None
    ws = obj["windows"]
    assert [(w["start"], w["end"]) for w in ws] == [
        ("2024-11-01", "2025-01-31"), ("2024-12-01", "2025-02-28"),
        ("2025-01-01", "2025-03-31"), ("2025-02-01", "2025-04-30")]
    assert [w["partial"] for w in ws] == [True, True, False, False]
    # both sides: m1 (10, .360), m2 (7, .500), m3 (6, .190), m4 (4, .130)
    assert [w["decisions"] for w in ws] == [10, 17, 23, 17]
    assert [w["pr"] for w in ws] == [approx(500 * 0.36 / 10), approx(500 * 0.86 / 17),
                                     approx(500 * 1.05 / 23), approx(500 * 0.82 / 17)]
    # Jan-Mar: units (.36,10) (.50,7) (.19,6), R = 1.05/23:
    #   residuals -.096522, .180435, -.083913; Σ² = .0489147; Var = 3/2 × .0489147 / 23² = .00013870
    #   R ± 1.96 × .011777 -> [.022569, .068735] × 500 = [11.28, 34.37]
    assert ws[2]["pr_ci"] == approx([11.2846, 34.3676], abs=1e-3)
    assert ws[0]["pr_ci"] is None  # one match


def test_windows_one_month_player(db):
    obj = cli_json(db, "windows", "--months", "1", "--player", "charlot1")
    ws = obj["windows"]
    assert obj["undated"] == 1  # m5 is charlot1's, undated
    assert [w["end"] for w in ws] == ["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"]
    # charlot1: Jan m1 (5, .100) -> 10.0; Feb m2 (3, .270) -> 45.0; Mar none -> —; Apr m4 (2, .120) -> 30.0
    assert [w["pr"] for w in ws] == [approx(10.0), approx(45.0), None, approx(30.0)]
    assert [w["decisions"] for w in ws] == [5, 3, 0, 2]
    text = cli("windows", "--months", "1", "--player", "charlot1", "--no-config", db=db).stdout
    assert "undated matches left out: 1" in text
    # March holds no match of charlot1's: the text leaves it out and says so (JSON above keeps it)
    assert not any(ln.startswith("2025-03-01") for ln in text.splitlines())
    assert "1 window without any match left out (JSON and CSV list every window)" in text


def test_windows_over_years_leave_the_empty_ones_out_of_the_text(tmp_path):
    """Match 1 moved to 2023-01-10 (fixture_db.YEARS_APART): one 3-month
    window ends at each month end from 2023-01 to 2025-04, 28 windows; those
    ending 2023-01, -02, -03 hold match 1, those ending 2025-02 (m2), 2025-03
    (m2, m3) and 2025-04 (m2, m3, m4) the others: 6 hold a match, 22 none.
    The text shows the 6 and says 22 are left out; JSON and CSV keep all 28."""
    from fixture_db import YEARS_APART, build_fixture_db

    db = build_fixture_db(tmp_path / "years.db", YEARS_APART)
    assert len(cli_json(db, "windows", "--months", "3")["windows"]) == 28
    csv = cli("windows", "--months", "3", "--format", "csv", "--no-config", db=db).stdout.splitlines()
    assert len(csv) == 1 + 28 and csv[2].startswith("2022-12-01,2023-02-28,True,1,")
    assert any(ln.startswith("2024-11-01,2025-01-31,False,0,0,,") for ln in csv)  # empty: counts 0, figures empty
    text = cli("windows", "--months", "3", "--no-config", db=db).stdout.splitlines()
    rows = [ln.split()[:4] for ln in text if ln[:4] in ("2022", "2023", "2024", "2025")]
    assert rows == [["2022-11-01", "…", "2023-01-31", "1"], ["2022-12-01", "…", "2023-02-28", "1"],
                    ["2023-01-01", "2023-03-31", "1", "10"], ["2024-12-01", "2025-02-28", "1", "7"],
                    ["2025-01-01", "2025-03-31", "2", "13"], ["2025-02-01", "2025-04-30", "3", "17"]]
    assert "22 windows without any match left out (JSON and CSV list every window)" in text


def test_windows_equal_stats_over_the_same_dates(db):
    ws = cli_json(db, "windows", "--months", "3", "--player", "charlot2")["windows"]
    for w in ws:
        stats = cli_json(db, "stats", "--player", "charlot2", "--from", w["start"], "--to", w["end"])
        assert (w["decisions"], w["pr"], w["pr_ci"]) == (stats["decisions"], stats["pr"], stats["pr_ci"])


def test_csv_on_every_table(db):
    for args in (["players"], ["compare", "charlot1", "charlot2"], ["contrast", "charlot1", SQ], ["ranking"],
                 ["h2h", "charlot1", "charlot2"], ["windows", "--months", "6"]):
        out = cli(*args, "--format", "csv", "--no-config", db=db).stdout
        assert len(out.splitlines()) >= 2, args
        assert "—" not in out, args  # unknown is an empty field in CSV


def test_inside_gnubg_same_words(db):
    import io

    from gnubg_blunder.commands import Context, run_line

    out = io.StringIO()
    err = io.StringIO()
    ctx = Context(db_path=str(db), out=out, err=err, use_config=False)
    assert run_line("players --format json --sort pr", ctx) == 0, err.getvalue()
    assert [r["player"] for r in json.loads(out.getvalue())["players"]][0] == "charlot2"


@pytest.mark.parametrize("command", ["players", "compare", "contrast", "ranking", "h2h", "windows"])
def test_help(command):
    res = cli(command, "--help")
    assert "--format" in res.stdout and "--player" in res.stdout


# -- end to end: a real separate process ------------------------------------------------

@pytest.mark.e2e
def test_e2e_players_json_as_in_process(db):
    """``python -m gnubg_blunder players --format json`` in its own process
    prints exactly what the in-process runner prints, and nothing on stderr."""
    args = ("players", "--format", "json", "--sort", "pr", "--no-config")
    proc = run_cli(*args, db=db)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == cli(*args, db=db).stdout
    assert [r["player"] for r in json.loads(proc.stdout)["players"]][0] == "charlot2"
