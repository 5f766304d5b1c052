"""Tilt (SPEC §18, docs/tilt.md): one condition's figures computed by hand
on a small database, the edge rules of the three conditions, the verdict,
and the command's text, JSON, CSV, list and report section.

The database (Alice v Bob; every decision a counted checker play with the
fixture's five candidates 0.075 EMG apart, so d is the same for all,
d = Σ pᵢΔᵢ with pᵢ ∝ exp(−3i), Δᵢ = 0.075 i: 3.9296 mpt; ``!`` marks a
roll of the decider with luck −0.3 EMG, every other roll +0.01):

=====  ======  ====  ==========================================================
match  length  game  decisions in play order (player e)
=====  ======  ====  ==========================================================
1      7       0     A .000, B .200, A .150, B .000, A .020, A .040, A .000
1      7       1     A .010, B .000, A .030
2      5       0     B .150, A .120, A .060, B .010, A .000
2      5       1     A .000 !, A .050
3      money   0     A .010, A .020 !, A .000, A .030
3      money   1     A .100, then eleven A .010
=====  ======  ====  ==========================================================

Alice after her own blunder (e ≥ 0.100): match 1 .020 .040 .000 (after
.150; the game ends), match 2 .060 .000 (after .120; Bob's .150 before it
opens no window of hers; game 2 is another game), match 3 ten .010 (after
.100; the eleventh is outside K = 10).  Condition: 15 decisions, Σe 0.220;
rest: 13, Σe 0.530.  Δ = 0.220/15 − 0.530/13 = 14.667 − 40.769 =
−26.103 mpt (d cancels).  Per match z_u = (Σe_c − R_c n_c)/15 − (Σe_r − R_r
n_r)/13: −1.0043, −1.6242, +2.6285 (× 10⁻³); Var = 3/2 Σ z² = 1.5834 ×
10⁻⁵, Δ ± 1.96 √Var = [−33.902, −18.303] mpt.
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from fixture_db import P_HOLD, _decision
from gnubg_blunder.model import Analysis, Game, Match, Roll

GAMES = {
    1: (7, [[(0, .000), (1, .200), (0, .150), (1, .000), (0, .020), (0, .040), (0, .000)],
            [(0, .010), (1, .000), (0, .030)]]),
    2: (5, [[(1, .150), (0, .120), (0, .060), (1, .010), (0, .000)],
            [(0, .000, "!"), (0, .050)]]),
    3: (0, [[(0, .010), (0, .020, "!"), (0, .000), (0, .030)],
            [(0, .100)] + [(0, .010)] * 11]),
}
D_MPT = 1000 * sum(math.exp(-3 * i) * 0.075 * i for i in range(5)) / sum(math.exp(-3 * i) for i in range(5))


def _matches() -> list:
    out = []
    for mid, (length, games) in GAMES.items():
        m = {"id": mid, "length": length}
        built = []
        for g, rows in enumerate(games):
            game = Game(number=g, score=(0, 0), winner=0, points=1)
            for seq, row in enumerate(rows):
                player, e = row[0], row[1]
                game.decisions.append(_decision(m, g, seq, player, "checker", e, P_HOLD, None, None, (0, 0)))
                game.rolls.append(Roll(player=player, game=g, seq=seq, dice=(3, 1), position_id=P_HOLD,
                                       position_after=f"t-{mid}-{g}-{seq}", cube_value=1,
                                       luck=-0.3 if len(row) > 2 else 0.01,
                                       mwc_per_emg=0.5 if length else None))
            built.append(game)
        out.append(Match(players=("Alice", "Bob"), length=length, source="sgf", games=built,
                         analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"),
                         date=f"2025-0{mid}-01", event=None))
    return out


@pytest.fixture(scope="module")
def tilt_db(tmp_path_factory):
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path_factory.mktemp("tilt") / "tilt.db"
    with SQLiteStore(path) as st:
        for match in _matches():
            st.add_match(match)
    return path


def _selection(path, player=None):
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import SQLiteStore

    st = SQLiteStore(path)
    return st.select(Filter(player=player))


def _condition(obj, player, name):
    (p,) = [p for p in obj["players"] if p["player"] == player]
    (c,) = [c for c in p["conditions"] if c["condition"] == name]
    return c


def test_after_a_blunder_by_hand(tilt_db):
    from gnubg_blunder.metrics.tilt import tilt

    obj = tilt(_selection(tilt_db))
    c = _condition(obj, "Alice", "after-blunder")
    assert (c["n_condition"], c["n_rest"], c["matches"]) == (15, 13, 3)
    assert c["mean_condition_mpt"] == pytest.approx(220 / 15 - D_MPT)
    assert c["mean_rest_mpt"] == pytest.approx(530 / 13 - D_MPT)
    assert c["delta_mpt"] == pytest.approx(-26.10256, abs=1e-4)
    assert c["delta_ci"] == pytest.approx([-33.90175, -18.30338], abs=1e-4)
    assert c["verdict"] is None and c["why"] == "fewer than 200 decisions on a side"
    # Bob: his own blunders' windows, never Alice's decisions
    b = _condition(obj, "Bob", "after-blunder")
    assert (b["n_condition"], b["n_rest"]) == (2, 3)  # .000 after .200, .010 after .150
    assert b["delta_mpt"] == pytest.approx(10 / 2 - 350 / 3)
    assert b["delta_ci"] is None  # 2 matches: no interval (SPEC §7)


def _es(sel, idx):
    return [round(float(e), 3) for e in sel.decisions.error[idx]]


def test_the_decisions_behind_each_condition(tilt_db):
    from gnubg_blunder.metrics.tilt import condition_decisions

    sel = _selection(tilt_db, "Alice")
    assert _es(sel, condition_decisions(sel, "after-blunder")) == [.02, .04, 0, .06, 0] + [.01] * 10
    # after a bad roll: from the record after that roll's own play, in its game only
    assert _es(sel, condition_decisions(sel, "after-bad-roll")) == [.05, 0, .03]
    # the last third (⌊7/3⌋ = 2 of match 1, ⌊5/3⌋ = 1 of match 2); the money session is in neither side
    assert _es(sel, condition_decisions(sel, "late-in-match")) == [.01, .03, .05]


def test_late_in_match_leaves_money_out(tilt_db):
    from gnubg_blunder.metrics.tilt import tilt

    c = _condition(tilt(_selection(tilt_db)), "Alice", "late-in-match")
    assert (c["n_condition"], c["n_rest"], c["matches"]) == (3, 9, 2)
    assert c["delta_mpt"] == pytest.approx(90 / 3 - 390 / 9)
    assert c["delta_ci"] is None and c["why"] == "fewer than 200 decisions on a side"


def test_overlapping_windows_are_one():
    """Two blunders 3 decisions apart: the second is in the first's window
    and opens its own; a decision is in the condition once."""
    import numpy as np

    from gnubg_blunder.metrics.tilt import _windows

    group = np.zeros(20, dtype=np.int64)
    group[15:] = 1  # a second game from position 15
    covered = _windows(20, group, np.array([1, 4]), np.array([0, 0]))
    assert np.nonzero(covered)[0].tolist() == list(range(1, 14))
    # a window stops at its game's end; a start past the game's end opens nothing
    covered = _windows(20, group, np.array([10, 15]), np.array([0, 0]))
    assert np.nonzero(covered)[0].tolist() == list(range(10, 15))


def test_the_verdict():
    from gnubg_blunder.metrics.tilt import verdict

    assert verdict(200, 200, [0.1, 2.0]) == ("worse", None)
    assert verdict(200, 5000, [-3.0, -0.1]) == ("better", None)
    assert verdict(300, 300, [-1.0, 2.0]) == ("no effect found", None)
    assert verdict(199, 5000, [0.1, 2.0]) == (None, "fewer than 200 decisions on a side")
    assert verdict(0, 5000, None) == (None, "no decision in the condition")
    assert verdict(200, 200, None) == (None, "no interval")


def test_difference_interval_needs_three_units_and_spread():
    import numpy as np

    from gnubg_blunder.metrics.tilt import difference_interval

    units = np.array([0, 0, 1, 1, 2, 2])
    cond = np.array([True, False] * 3)
    delta, ci, g = difference_interval(units, np.array([0.1, 0.0] * 3), cond)
    assert (delta, ci, g) == (pytest.approx(0.1), None, 3)  # every unit the same: no spread, no interval
    delta, ci, g = difference_interval(units[:4], np.array([0.1, 0.0, 0.3, 0.0]), cond[:4])
    assert ci is None and g == 2


def test_the_command_text_json_csv_and_list(tilt_db, cli):
    obj = json.loads(cli("--no-config", "tilt", "--format", "json", db=tilt_db).stdout)
    assert obj["filter"]["player"] is None and obj["rule"]["window"] == 10
    assert [p["player"] for p in obj["players"]] == ["Alice", "Bob"]
    assert _condition(obj, "Alice", "after-blunder")["delta_mpt"] == pytest.approx(-26.10256, abs=1e-4)
    text = cli("--no-config", "tilt", "--player", "Alice", db=tilt_db).stdout
    assert "Scope: player Alice" in text and "an association, not a cause" in text.lower()
    line = next(s for s in text.splitlines() if "after a blunder" in s and s.startswith("Alice"))
    assert "-26.1" in line and "[-33.9, -18.3]" in line and "fewer than 200 decisions" in line
    assert "no interval" in next(s for s in text.splitlines() if s.startswith("Alice") and "last third" in s)
    rows = list(csv.DictReader(io.StringIO(cli("--no-config", "tilt", "--format", "csv", db=tilt_db).stdout)))
    alice = next(r for r in rows if r["player"] == "Alice" and r["condition"] == "after-blunder")
    assert (alice["n_condition"], alice["n_rest"]) == ("15", "13")
    assert float(alice["delta_ci_low_mpt"]) == pytest.approx(-33.90175, abs=1e-4)
    late = next(r for r in rows if r["player"] == "Alice" and r["condition"] == "late-in-match")
    assert late["delta_ci_low_mpt"] == "" and late["verdict"] == ""
    listed = json.loads(cli("--no-config", "tilt", "--player", "Alice", "--list", "after-bad-roll",
                            "--format", "json", db=tilt_db).stdout)
    assert listed["total"] == 3 and [(d["match_id"], d["game"], d["move"]) for d in listed["decisions"]] == \
        [(2, 2, 2), (3, 1, 3), (3, 1, 4)]
    assert listed["filter"]["player"] == "Alice" and listed["condition"] == "after-bad-roll"
    text = cli("--no-config", "tilt", "--list", "after-blunder", "--limit", "2", db=tilt_db).stdout
    assert "17 decisions, 2 shown" in text  # Alice's 15 and Bob's 2


def test_the_report_has_a_tilt_section(tilt_db, cli, tmp_path):
    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, db=tilt_db)
    page = out.read_text(encoding="utf-8")
    assert '<section id="tilt">' in page and "association, not a cause" in page
    # each condition's N links to its decisions in the page (every player's, play order)
    assert '<a href="#tilt-after-blunder">15</a>' in page and '<a href="#tilt-after-blunder">2</a>' in page
    assert 'id="tilt-after-blunder"' in page and 'id="tilt-late-in-match"' in page
    section = page[page.index('<section id="tilt">'):]
    section = section[:section.index("</section>")]
    assert section.count("<tr>") - section.count("<tr><th") >= 15 + 2 + 3 + 3


def test_a_cube_blunder_opens_a_window_over_the_checker_plays(tmp_path):
    """--decision-type narrows the decisions compared, not the windows: a
    premature double of 0.150 (a cube blunder) opens a window over the
    checker plays after it."""
    from gnubg_blunder.metrics.tilt import tilt
    from gnubg_blunder.database import SQLiteStore

    m = {"id": 9, "length": 7}
    game = Game(number=0, score=(0, 0), winner=0, points=1)
    for seq, (kind, e) in enumerate([("checker", .030), ("double", .150), ("checker", .010), ("checker", .020)]):
        game.decisions.append(_decision(m, 0, seq, 0, kind, e, P_HOLD, None, None, (0, 0)))
    match = Match(players=("Alice", "Bob"), length=7, source="sgf", games=[game],
                  analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date="2025-05-01", event=None)
    path = tmp_path / "cube.db"
    with SQLiteStore(path) as st:
        st.add_match(match)
    sel = _selection(path)
    c = _condition(tilt(sel, decision_type="checker"), "Alice", "after-blunder")
    assert (c["n_condition"], c["n_rest"]) == (2, 1)  # .010 and .020 after the double; .030 before it
    c = _condition(tilt(sel, decision_type="cube"), "Alice", "after-blunder")
    assert (c["n_condition"], c["n_rest"]) == (0, 1)  # the double itself: not in its own window
