"""The tournament review (SPEC §13, docs/tournament.md): ``tournament [EVENT]``.

A store of dated matches built here, in tests/fixture_db.py's style (every
figure by hand below).  Every match is 7 points (money where said), one game;
``mwc_per_emg`` is 0.5 (fixture_db), so ℓ = e / 2 and, every side weighing
√7, L₇ of a set of matches = √7 ΣL / (k √7) = mean L per match.

The tournament "Spring Open" starts 2025-06-10 (D), so its usual window is
2024-06-10 (D − 365) to 2025-06-09 (D − 1), both included.

====  ==========  ===========  ======  ==============  ======================================
id    date        event        length  players         charlot1's counted decisions (errors EMG)
====  ==========  ===========  ======  ==============  ======================================
U1    2024-06-10  —            7       charlot1 v charlot2     5: 0.02 (at DMP), 0 ×4
U2    2024-09-01  —            7       charlot1 v Squire/Jørgensen   5: 0.04, 0 ×4
U3    2024-12-01  Winter Cup   7       charlot1 v Harmand/Unger    5: 0.02, 0 ×4
U4    2025-02-01  —            7       charlot2 v charlot1     5: 0.04, 0 ×4  (charlot1 is player 1)
U5    2025-04-01  —            7       charlot1 v erin    5: 0.02, 0 ×4
U6    2025-06-09  —            7       charlot1 v charlot2     5: 0.04, 0 ×4
O1    2024-06-09  —            7       charlot1 v charlot2     5: 0.50 ×5     (D − 366: outside)
O2    2025-03-01  —            money   charlot1 v Squire/Jørgensen   5: 0.30 ×5     (money: not the usual level)
O3    2025-06-10  Friendly     7       charlot1 v Harmand/Unger    5: 0.40 ×5     (on D, not before it)
O4    2025-08-01  —            7       charlot1 v charlot2     5: 0.40 ×5     (after the tournament)
O5    2025-01-01  —            7       charlot2 v Squire/Jørgensen     charlot1 absent
T0    2025-06-10  Spring Open  7       charlot2 v Squire/Jørgensen     charlot1 absent
T1    2025-06-10  Spring Open  7       charlot1 v charlot2     8: 0.16 (DMP), 0 (Crawford), 0 (post-Crawford), 0 ×5
T2    2025-06-11  Spring Open  7       Squire/Jørgensen v charlot1   8: 0.24, 0 ×7  (charlot1 is player 1)
T3    2025-06-12  Spring Open  7       charlot1 v Harmand/Unger    8: 0.32, 0 ×7  (round "Final" stored)
L1    2025-10-01  Long Cup     7       charlot1 v erin    35: 0 ×30 then 0.01 ×5; durations 1..35 s
====  ==========  ===========  ======  ==============  ======================================

Every opponent side has 3 counted decisions of 0.05 (never charlot1's figures).
charlot1's errors in T1, T2, T3 and O4 carry a theme (``THEMES``: the study-plan
families); the scores of a few decisions are set (``SCORES``).
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from fixture_db import P_HOLD, _decision
from gnubg_blunder.model import Analysis, Game, Match, Roll

D = "2025-06-10"
WINDOW = ("2024-06-10", "2025-06-09")

# (key, date, event, length, players, charlot1's side, charlot1's errors, round)
MATCHES = [
    ("U1", "2024-06-10", None, 7, ("charlot1", "charlot2"), 0, [0.02, 0, 0, 0, 0], None),
    ("U2", "2024-09-01", None, 7, ("charlot1", "Squire/Jørgensen"), 0, [0.04, 0, 0, 0, 0], None),
    ("U3", "2024-12-01", "Winter Cup", 7, ("charlot1", "Harmand/Unger"), 0, [0.02, 0, 0, 0, 0], None),
    ("U4", "2025-02-01", None, 7, ("charlot2", "charlot1"), 1, [0.04, 0, 0, 0, 0], None),
    ("U5", "2025-04-01", None, 7, ("charlot1", "erin"), 0, [0.02, 0, 0, 0, 0], None),
    ("U6", "2025-06-09", None, 7, ("charlot1", "charlot2"), 0, [0.04, 0, 0, 0, 0], None),
    ("O1", "2024-06-09", None, 7, ("charlot1", "charlot2"), 0, [0.5] * 5, None),
    ("O2", "2025-03-01", None, 0, ("charlot1", "Squire/Jørgensen"), 0, [0.3] * 5, None),
    ("O3", "2025-06-10", "Friendly", 7, ("charlot1", "Harmand/Unger"), 0, [0.4] * 5, None),
    ("O4", "2025-08-01", None, 7, ("charlot1", "charlot2"), 0, [0.4] * 5, None),
    ("O5", "2025-01-01", None, 7, ("charlot2", "Squire/Jørgensen"), None, [], None),
    ("T0", "2025-06-10", "Spring Open", 7, ("charlot2", "Squire/Jørgensen"), None, [], None),
    ("T1", "2025-06-10", "Spring Open", 7, ("charlot1", "charlot2"), 0, [0.16] + [0] * 7, None),
    ("T2", "2025-06-11", "Spring Open", 7, ("Squire/Jørgensen", "charlot1"), 1, [0.24] + [0] * 7, None),
    ("T3", "2025-06-12", "Spring Open", 7, ("charlot1", "Harmand/Unger"), 0, [0.32] + [0] * 7, "Final"),
    ("L1", "2025-10-01", "Long Cup", 7, ("charlot1", "erin"), 0, [0] * 30 + [0.01] * 5, None),
]
# charlot1's decisions at a special score: (match key, decision number) -> (score_self, score_opp, crawford)
SCORES = {("U1", 0): (6, 6, False), ("T1", 0): (6, 6, False), ("T1", 1): (6, 3, True), ("T1", 2): (3, 6, False)}
# themes of charlot1's errors (the study-plan families; position P_HOLD: holding game, checker)
THEMES = {("T1", 0): "too many blots", ("T2", 0): "point not made", ("T3", 0): "too passive",
          ("O4", 0): "too many blots"}


def _match(n, key, date, event, length, players, side, errors, round_):
    m = {"length": length}
    game = Game(number=0, score=(0, 0), winner=0, points=length or 1)
    seq = 0
    sides = [(side, e, k) for k, e in enumerate(errors)] if side is not None else []
    for p in (0, 1):
        if p != side:
            sides += [(p, 0.05, None)] * 3
    for p, e, k in sides:
        score, crawford = (0, 0), False
        if (key, k) in SCORES:
            a, b, crawford = SCORES[(key, k)]
            score = (a, b) if p == 0 else (b, a)
        d = _decision(m, 0, seq, p, "checker", e, P_HOLD, THEMES.get((key, k)) if p == side else None, None,
                      score)
        d.crawford = crawford
        if key == "L1" and p == side:
            d.duration = float(k + 1)
        game.decisions.append(d)
        seq += 1
    for p in (0, 1):
        game.rolls.append(Roll(player=p, game=0, seq=500 + p, dice=(n % 6 + 1, p + 1), position_id=P_HOLD,
                               position_after=f"tournament-{key}-{p}", cube_value=1, luck=None,
                               mwc_per_emg=0.5 if length else None))
    return Match(players=players, length=length, source="sgf", games=[game],
                 analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date=date, event=event,
                 round=round_)


def build_store(path):
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(path) as st:
        for n, row in enumerate(MATCHES):
            st.add_match(_match(n, *row))
    return path


@pytest.fixture(scope="module")
def tdb(tmp_path_factory):
    return build_store(tmp_path_factory.mktemp("tournament") / "tournament.db")


def _json(cli, db, *args):
    return json.loads(cli("--no-config", *args, "--format", "json", db=db).stdout)


# -- the usual window, Δ and σ by hand ------------------------------------------------------

def test_usual_window_and_figures_by_hand(tdb, cli):
    obj = _json(cli, tdb, "tournament", "spring open")
    assert obj["event"] == "Spring Open" and obj["date"] == D and obj["player"] == "charlot1"
    u, t = obj["usual"], obj["tournament"]
    # the window: D − 365 (U1 included) to D − 1 (U6 included); O1 (D − 366), O3 (on D), O4 (after),
    # the money session O2 and the tournament itself are not in it
    assert (u["from"], u["to"]) == WINDOW
    ids = {key: i + 1 for i, (key, *_rest) in enumerate(MATCHES)}  # store ids in insertion order
    assert u["match_ids"] == [ids[k] for k in ("U1", "U2", "U3", "U4", "U5", "U6")]
    assert u["money_left_out"] == 1
    assert t["match_ids"] == [ids[k] for k in ("T1", "T2", "T3")] and t["matches"] == 3
    # usual: Σe = 3 × 0.02 + 3 × 0.04 = 0.18 over 30 decisions → PR = 500 × 0.18 / 30 = 3.0
    # units (matches): e_u − R n_u = ±0.01 (R = 0.006, n_u = 5) → Σ² = 6 × 0.0001 = 0.0006
    # Var R = 6/5 × 0.0006 / 30² = 8e-7, sd 0.000894427 → σu(PR) = 500 × sd = 0.4472136
    assert u["decisions"] == 30 and u["matches"] == 6 and u["pr"] == pytest.approx(3.0)
    assert (u["pr_ci"][1] - u["pr"]) / 1.96 == pytest.approx(0.4472136, rel=1e-6)
    # tournament: Σe = 0.16 + 0.24 + 0.32 = 0.72 over 24 → PR 15.0; R = 0.03, n_u = 8:
    # e_u − R n_u = −0.08, 0, +0.08 → Σ² = 0.0128; Var R = 3/2 × 0.0128 / 24² = 3.3333e-5,
    # sd 0.0057735 → σt(PR) = 2.8867513
    assert t["decisions"] == 24 and t["pr"] == pytest.approx(15.0)
    assert (t["pr_ci"][1] - t["pr"]) / 1.96 == pytest.approx(2.8867513, rel=1e-6)
    # Δ PR = 15 − 3 = 12; σ = √(2.8867513² + 0.4472136²) = √(8.333333 + 0.2) = 2.9211869
    # Δ ± 1.96σ = 12 ± 5.7255 = [6.2745, 17.7255]: above 0 → "worse"
    assert obj["delta_pr"] == pytest.approx(12.0)
    assert obj["sigma_pr"] == pytest.approx(2.9211869, rel=1e-6)
    assert obj["delta_pr_ci"] == pytest.approx([6.2744737, 17.7255263], rel=1e-6)
    assert obj["verdict_pr"] == "worse" and obj["why_pr"] is None
    # L7 (every side 7 points: L7 = mean L per match, ℓ = e/2): usual L per match 0.01 / 0.02 →
    # 1.5 % points; σu = √(6/5 × 6 × 0.005²) / 6 = 0.0022361 → 0.2236068 pp.
    # Tournament L per match 0.08, 0.12, 0.16 → 12 pp; σt = √(3/2 × 2 × 0.04²) / 3 = 0.0230940 → 2.3094011 pp.
    # Δ L7 = 10.5; σ = √(5.333333 + 0.05) = 2.3202011; 10.5 ± 4.5476 = [5.9524, 15.0476] → "worse"
    assert u["l7"] == pytest.approx(1.5) and t["l7"] == pytest.approx(12.0)
    assert (u["l7_ci"][1] - u["l7"]) / 1.96 == pytest.approx(0.2236068, rel=1e-6)
    assert (t["l7_ci"][1] - t["l7"]) / 1.96 == pytest.approx(2.3094011, rel=1e-6)
    assert obj["delta_l7"] == pytest.approx(10.5)
    assert obj["sigma_l7"] == pytest.approx(2.3202011, rel=1e-6)
    assert obj["delta_l7_ci"] == pytest.approx([5.9524, 15.0476], abs=1e-4)
    assert obj["verdict_l7"] == "worse"


def test_figures_equal_those_of_stats(tdb, cli):
    """The tournament's figures are ``stats --tournament EVENT --player P``'s.
    The usual level's are ``stats --player P --from D-365 --to D-1 --length 7``'s:
    the window ends the day before the tournament's first match, so no
    match of the tournament can be in it ("minus the tournament" is empty by
    construction: a tournament's date is its earliest match's); ``--length 7``
    (every match-play length of the window) leaves out the money session O2,
    as the usual level does.  Another tournament inside the window (Winter
    Cup, U3) is part of both."""
    obj = _json(cli, tdb, "tournament", "Spring Open")
    t = _json(cli, tdb, "stats", "--tournament", "Spring Open", "--player", "charlot1")
    u = _json(cli, tdb, "stats", "--player", "charlot1", "--from", WINDOW[0], "--to", WINDOW[1], "--length", "7")
    for mine, theirs in ((obj["tournament"], t), (obj["usual"], u)):
        for key in ("matches", "decisions", "pr", "pr_ci", "l7", "l7_ci"):
            assert mine[key] == pytest.approx(theirs[key], rel=1e-12), key
    # without --length 7 the money session joins stats' selection, not the usual level
    money = _json(cli, tdb, "stats", "--player", "charlot1", "--from", WINDOW[0], "--to", WINDOW[1])
    assert money["matches"] == 7 and obj["usual"]["matches"] == 6


# -- the verdict rule ---------------------------------------------------------------------

def test_compare_by_hand():
    from gnubg_blunder.metrics.tournament import compare

    # σt = (19.8 − 15) / 1.96 = 2.4489796, σu = (3.98 − 3) / 1.96 = 0.5; σ = √(5.997501 + 0.25) = 2.4994999
    c = compare(15.0, [10.2, 19.8], 24, 3.0, [2.02, 3.98], 30)
    assert c["sigma"] == pytest.approx(2.4994999, rel=1e-6)
    assert c["delta_ci"] == pytest.approx([12 - 4.8990198, 12 + 4.8990198], rel=1e-6) and c["verdict"] == "worse"
    # better: Δ = 2 − 8 = −6, σt = 1, σu = 1 → σ = √2 = 1.4142136, upper bound −6 + 2.7718586 < 0
    c = compare(2.0, [0.04, 3.96], 40, 8.0, [6.04, 9.96], 40)
    assert c["verdict"] == "better" and c["delta_ci"][1] == pytest.approx(-3.2281414, rel=1e-6)
    # as usual: Δ = 1, same σ: [−1.77, 3.77] holds 0
    assert compare(9.0, [7.04, 10.96], 40, 8.0, [6.04, 9.96], 40)["verdict"] == "as usual"
    # the lower bound is floored at 0 in an interval: σ comes from the upper half-width
    c = compare(1.0, [0.0, 2.96], 40, 1.0, [0.0, 2.96], 40)
    assert c["sigma"] == pytest.approx(math.sqrt(2), rel=1e-9)
    # insufficient: 19 decisions on a side, no interval on a side, under 5 usual matches — Δ still given
    c = compare(15.0, [10.2, 19.8], 19, 3.0, [2.02, 3.98], 30)
    assert c["verdict"] == "insufficient" and c["delta"] == pytest.approx(12.0) and "20 decisions" in c["why"]
    assert compare(15.0, [10.2, 19.8], 24, 3.0, [2.02, 3.98], 19)["verdict"] == "insufficient"
    c = compare(15.0, None, 24, 3.0, [2.02, 3.98], 30)
    assert c["verdict"] == "insufficient" and c["delta_ci"] is None and "interval" in c["why"]
    c = compare(15.0, [10.2, 19.8], 24, 3.0, [2.02, 3.98], 30, usual_ok=False)
    assert c["verdict"] == "insufficient" and "5 usual matches" in c["why"]


def test_insufficient_under_5_usual_matches(tdb):
    """U1 and U2 left out of the selection: 4 usual matches (20 decisions,
    intervals on both sides) — "insufficient", the figures still there."""
    from gnubg_blunder.metrics.tournament import tournament_review
    from gnubg_blunder.database import SQLiteStore

    keep = [i + 1 for i, row in enumerate(MATCHES) if row[0] not in ("U1", "U2")]
    with SQLiteStore(tdb) as st:
        sel = st.select(match_ids=keep)
    r = tournament_review(sel, "Spring Open")
    assert r["usual"]["matches"] == 4 and r["usual"]["decisions"] == 20
    assert r["usual"]["pr_ci"] and r["tournament"]["pr_ci"]
    assert r["verdict_pr"] == r["verdict_l7"] == "insufficient" and "5 usual matches" in r["why_pr"]
    # U3..U6: Σe = 0.02 + 0.04 + 0.02 + 0.04 = 0.12 over 20 → PR 3.0; Δ = 12 still shown
    assert r["usual"]["pr"] == pytest.approx(3.0) and r["delta_pr"] == pytest.approx(12.0)


def test_insufficient_under_20_decisions(tdb, cli):
    """Long Cup: one match (35 decisions) — no interval on its side (1 unit)
    and, per round, the cells of the tournament under 20 decisions."""
    obj = _json(cli, tdb, "tournament", "Long Cup")
    assert obj["tournament"]["decisions"] == 35 and obj["tournament"]["pr_ci"] is None
    assert obj["verdict_pr"] == "insufficient"
    # the 31–60 band: 5 tournament decisions, none in the usual level
    band = obj["by_decision_index"][1]
    assert band["cell"] == "31–60" and band["tournament"]["decisions"] == 5 and band["usual"]["decisions"] == 0
    assert band["verdict_pr"] == "insufficient" and "20 decisions" in band["why"]


# -- the player, the default tournament, the errors ----------------------------------------

def test_player_rule_and_default_event(tdb, tmp_path, cli):
    import shutil

    # no main player: the latest tournament by date is Long Cup (2025-10-01)
    assert _json(cli, tdb, "tournament")["event"] == "Long Cup"
    # charlot1 has most matches in Spring Open (3; charlot2 and Squire/Jørgensen 2)
    assert _json(cli, tdb, "tournament", "Spring Open")["player"] == "charlot1"
    db = shutil.copy(tdb, tmp_path / "main.db")
    cli("main-player", "charlot2", db=db)
    obj = _json(cli, db, "tournament")  # charlot2's latest tournament
    assert obj["event"] == "Spring Open" and obj["player"] == "charlot2" and obj["player_rule"] == "the main player"
    # charlot2: T0 and T1 (3 decisions of 0.05 each) → PR = 500 × 0.3 / 6 = 25
    assert obj["tournament"]["matches"] == 2 and obj["tournament"]["pr"] == pytest.approx(25.0)
    # the main player absent (Long Cup: charlot1 v erin): the player of most matches, then decisions
    assert _json(cli, db, "tournament", "Long Cup")["player"] == "charlot1"
    # the filter's player, and a player who did not play in it
    assert _json(cli, db, "tournament", "Spring Open", "--player", "Squire/Jørgensen")["player"] == "Squire/Jørgensen"
    res = cli("--no-config", "tournament", "Long Cup", "--player", "charlot2", db=db, check=False)
    assert res.returncode == 2 and "did not play" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_unknown_event_names_the_closest(tdb, cli):
    res = cli("--no-config", "tournament", "Spring Opn", db=tdb, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "Spring Open" in res.stderr and "closest event names" in res.stderr


# -- the breakdowns --------------------------------------------------------------------------

def test_rounds(tdb, cli):
    obj = _json(cli, tdb, "tournament", "Spring Open")
    rounds = obj["rounds"]
    assert [r["round"] for r in rounds] == ["1", "2", "Final"]
    assert [r["round_source"] for r in rounds] == ["order", "order", "stored"]
    assert [r["opponent"] for r in rounds] == ["charlot2", "Squire/Jørgensen", "Harmand/Unger"]
    # T2: 500 × 0.24 / 8 = 15; against the usual overall PR 3.0
    assert [r["pr"] for r in rounds] == pytest.approx([10.0, 15.0, 20.0])
    assert all(r["usual_pr"] == pytest.approx(3.0) for r in rounds)
    assert rounds[1]["delta_pr"] == pytest.approx(12.0)
    # one game a match: no interval (games are the units of one match), so "insufficient"
    assert all(r["pr_ci"] is None and r["verdict_pr"] == "insufficient" for r in rounds)


def test_score_and_index_cells(tdb, cli):
    obj = _json(cli, tdb, "tournament", "Spring Open")
    cells = {c["cell"]: c for c in obj["by_score"]}
    assert list(cells) == ["DMP", "Crawford game", "post-Crawford", "other"]
    # T1's first three: DMP (0.16), Crawford game (0), post-Crawford (0); U1's first: DMP (0.02)
    assert cells["DMP"]["tournament"]["decisions"] == 1 and cells["DMP"]["tournament"]["pr"] == pytest.approx(80.0)
    assert cells["DMP"]["usual"]["decisions"] == 1 and cells["DMP"]["usual"]["pr"] == pytest.approx(10.0)
    assert cells["Crawford game"]["tournament"]["decisions"] == 1 and cells["Crawford game"]["usual"]["decisions"] == 0
    assert cells["post-Crawford"]["tournament"]["decisions"] == 1
    # other: 24 − 3 = 21 decisions, Σe = 0.24 + 0.32 = 0.56 → 500 × 0.56 / 21 = 13.333
    assert cells["other"]["tournament"]["decisions"] == 21
    assert cells["other"]["tournament"]["pr"] == pytest.approx(500 * 0.56 / 21)
    assert cells["other"]["usual"]["decisions"] == 29
    # one band (8 decisions a match), equal to the overall figures
    (band,) = obj["by_decision_index"]
    assert band["cell"] == "1–30" and band["tournament"]["pr"] == pytest.approx(15.0)
    assert band["usual"]["pr"] == pytest.approx(3.0) and band["delta_pr"] == pytest.approx(12.0)
    assert obj["by_pace"] == {"durations": False, "note": "no durations", "median_s": None,
                              "usual_median_s": None, "cells": []}
    assert "no durations" in cli("--no-config", "tournament", "Spring Open", db=tdb).stdout


def test_decision_index_bands_and_pace(tdb, cli):
    obj = _json(cli, tdb, "tournament", "Long Cup")
    first, second = obj["by_decision_index"]
    # decisions 1–30 cost 0; 31–35 cost 0.01 each → 500 × 0.05 / 5 = 5
    assert (first["tournament"]["decisions"], first["tournament"]["pr"]) == (30, 0.0)
    assert (second["tournament"]["decisions"], second["tournament"]["pr"]) == (5, pytest.approx(5.0))
    # durations 1..35 s: median 18; below (1..17) cost 0, at or above (18..35) 0.05 over 18
    pace = obj["by_pace"]
    assert pace["durations"] and pace["median_s"] == 18.0 and pace["note"] == "no durations in the usual level"
    below, above = pace["cells"]
    assert below["tournament"]["decisions"] == 17 and below["tournament"]["pr"] == 0.0
    assert above["tournament"]["decisions"] == 18 and above["tournament"]["pr"] == pytest.approx(500 * 0.05 / 18)


def test_families_of_the_tournament(tdb, cli):
    """The study plan over charlot1's decisions of the tournament only: three
    one-member families (each "to confirm": under 5 quantified members),
    ordered by recoverable R descending, in the study half's default cost
    pr (e − d in mpt): e = 320, 240, 160 mpt (T3, T2, T1), less their d;
    O4's "too many blots" error is not the tournament's."""
    obj = _json(cli, tdb, "tournament", "Spring Open")
    fams = obj["families"]
    assert [f["family"] for f in fams] == ["holding game/checker/too passive", "holding game/checker/point not made",
                                          "holding game/checker/too many blots"]
    assert all(f["status"] == "to confirm" and f["members"] == 1 for f in fams)
    assert obj["families_unit"] == "mpt"
    assert fams[0]["recoverable"] < 320.0 and fams[0]["recoverable"] > fams[1]["recoverable"] > fams[2]["recoverable"]
    text = cli("--no-config", "tournament", "Spring Open", db=tdb).stdout
    assert "holding game/checker/too passive: 1 member(s)" in text and f"{fams[0]['recoverable']:.2f} mpt" in text


def test_at_most_three_families_plan_first():
    from gnubg_blunder.metrics.tournament import families_of

    rows = [{"family": "a", "status": "to confirm", "recoverable": 1.0},
            {"family": "b", "status": "to confirm", "recoverable": None},
            {"family": "c", "status": "plan", "recoverable": 0.5},
            {"family": "d", "status": "to confirm", "recoverable": 3.0},
            {"family": "e", "status": "plan", "recoverable": 0.2}]
    out = families_of(None, None, None, lambda sel, mask, thr: {"families": rows, "outside": {"no_theme": 2}})
    assert [f["family"] for f in out["families"]] == ["c", "e", "d"] and out["families_outside"] == {"no_theme": 2}
    assert families_of(None, None, None, lambda *a: {"families": []})["families_note"]


# -- the formats ---------------------------------------------------------------------------

def test_text_json_csv_html_agree(tdb, cli):
    from gnubg_blunder.commands import get_registry

    obj = _json(cli, tdb, "tournament", "Spring Open")
    assert obj["filter"]["player"] is None
    for key in ("filter", "event", "player", "usual", "tournament", "delta_pr", "delta_pr_ci", "verdict_pr",
                "delta_l7", "delta_l7_ci", "verdict_l7", "rounds", "by_decision_index", "by_score", "by_pace",
                "families"):
        assert key in obj, key
    text = cli("--no-config", "tournament", "Spring Open", db=tdb).stdout
    assert text.splitlines()[0].startswith("Tournament review — scope")
    assert "Δ PR: +12.00 [+6.27, +17.73] → worse" in text and "Δ L7: +10.50 [+5.95, +15.05] → worse" in text
    rows = list(csv.reader(io.StringIO(cli("--no-config", "tournament", "Spring Open", "--format", "csv",
                                           db=tdb).stdout)))
    assert rows[0][:4] == ["section", "cell", "match_id", "metric"]
    sections = [r[0] for r in rows[1:]]
    assert sections == ["overall"] * 2 + ["round"] * 3 + ["decision_index"] + ["score"] * 4
    numbers = []

    def walk(v):
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, (int, float)):
            numbers.append(float(v))
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(obj)
    for row in rows[1:]:
        for cell in row:
            try:
                x = float(cell)
            except ValueError:
                continue
            assert any(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for y in numbers), cell
    view = get_registry().commands["tournament"].view
    page = view.render(obj, "html")
    assert page.startswith('<section id="tournament">') and "worse" in page and "Spring Open" in page


def test_report_has_the_section(tdb, tmp_path, cli):
    out = tmp_path / "report.html"
    cli("--no-config", "report", "--html", out, "--tournament", "Spring Open", db=tdb)
    page = out.read_text(encoding="utf-8")
    assert '<section id="tournament">' in page and "Tournament review: <bdi>Spring Open</bdi>" in page  # the event isolated
