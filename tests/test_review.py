"""The match review (SPEC §8, docs/review.md): ``review [MATCH_ID|last]``.

The luck-adjusted result of real gnubg matches (self-play, analysed by the
real gnubg, 1 to 25 points) against the "Luck adjusted result" line of
gnubg's own ``show statistics match`` of the same file; the choice of the
three decisions on hand-made arrays; money and unfinished matches give the
reason, not a number; gnubg files say "no durations".
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import needs_gnubg
from gnubg_screen import parse_statistics

# (seed, length): match play from 1 to 25 points, and a money session
MATCHES = [(61, 1), (63, 2), (23, 3), (11, 5), (21, 7), (26, 11), (62, 25), (24, 0)]


@pytest.fixture(scope="module")
def reviewed(selfplay, tmp_path_factory):
    """[(length, gnubg's screen, our review JSON, our matches JSON entry, review text)]."""
    from conftest import run_cli_inprocess as cli

    db = tmp_path_factory.mktemp("review") / "t.db"
    out = []
    for seed, length in MATCHES:
        sgf = selfplay(seed, length)
        res = cli("--no-config", "import", sgf, db=db)
        mid = int(res.stdout.split("stored as match ")[1].split()[0])
        screen = parse_statistics(sgf.with_suffix(".stats.txt").read_text(encoding="utf-8", errors="replace"))
        obj = json.loads(cli("--no-config", "review", mid, "--format", "json", db=db).stdout)
        text = cli("--no-config", "review", mid, db=db).stdout
        matches = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"]
        out.append((length, screen, obj, next(m for m in matches if m["id"] == mid), text))
    return out, db


@needs_gnubg
def test_luck_adjusted_result_equals_gnubgs_line(reviewed):
    """Every side of every match-play match: A equal to gnubg's "Luck
    adjusted result" to 0.01 % (its screen prints two decimals), the error
    difference L_opp − L_own of the counted decisions beside it."""
    seen = set()
    for length, screen, obj, match, text in reviewed[0]:
        if length == 0:
            continue
        assert len(obj["sides"]) == 2  # no main player: both sides
        for k, side in enumerate(obj["sides"]):
            ref = screen[side["player"]]["overall:Luck adjusted result"]
            assert side["luck_adjusted"] == pytest.approx(ref, abs=0.01 + 1e-9), (length, side["player"])
            assert side["luck_adjusted_reason"] is None
            own, opp = match["sides"][k]["mwc_loss"], match["sides"][1 - k]["mwc_loss"]
            assert side["error_difference"] == pytest.approx(opp - own, abs=1e-9)
            assert side["luck_coverage"] == 1.0  # gnubg's analysis: luck on every roll
            won = obj["winner"] == side["player"]
            assert side["luck_reading"] == {(True, True): "won by play", (True, False): "won by the dice",
                                            (False, True): "lost to the dice",
                                            (False, False): "lost by play"}[won, side["luck_adjusted"] > 0]
            from gnubg_blunder.formatting import num  # its rule: a value that rounds to 0 prints 0.00

            assert (f"Luck-adjusted result {num(side['luck_adjusted'], signed=True)} % MWC, {side['luck_reading']} "
                    f"(difference of errors, opponent's minus own: {num(side['error_difference'], signed=True)} "
                    "%)") in text
        seen.add(length)
    assert seen == {1, 2, 3, 5, 7, 11, 25}


@needs_gnubg
def test_money_gives_the_reason_and_gnubg_no_durations(reviewed):
    for length, screen, obj, match, text in reviewed[0]:
        for side in obj["sides"]:
            assert side["pace"] is None and side["pace_reason"] == "no durations"
        assert text.count("Hasty vs considered: no durations") == 2
        if length:
            continue
        for side in obj["sides"]:
            assert side["luck_adjusted"] is None and side["error_difference"] is None
            assert side["luck_adjusted_reason"].startswith("money session")
            for r in side["review"]:  # money: e − d in EMG, no MWC
                assert r["mwc_loss"] is None and r["difficulty"] is None and r["error_emg"] > 0
        assert "Luck-adjusted result: none (money session" in text


@needs_gnubg
def test_unfinished_match_gives_the_reason(selfplay, tmp_path, cli):
    """The first game of a 7-point match alone: unfinished, no A, the reason."""
    sgf = selfplay(21, 7)
    games = [g for g in sgf.read_text(encoding="utf-8").split("\n(;")]
    cut = tmp_path / "unfinished.sgf"
    cut.write_text(games[0] + "\n", encoding="utf-8")
    db = tmp_path / "u.db"
    cli("--no-config", "import", cut, db=db)
    match = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"][0]
    assert match["winner"] is None and match["games"] == 1
    obj = json.loads(cli("--no-config", "review", "--format", "json", db=db).stdout)
    for side in obj["sides"]:
        assert side["luck_adjusted"] is None
        assert side["luck_adjusted_reason"] == "unfinished match: no final result"
        assert side["error_difference"] is not None  # the errors are known
    assert "Luck-adjusted result: none (unfinished match" in cli("--no-config", "review", db=db).stdout


@needs_gnubg
def test_review_lists_the_costliest_errors_beyond_difficulty(reviewed, cli):
    """Against the stored decisions (``positions --errors``): the side's
    errors with ℓ − d > 0, ℓ − d descending, at most three."""
    results, db = reviewed
    for length, screen, obj, match, text in results:
        if not length:
            continue
        for side in obj["sides"]:
            listed = json.loads(cli("--no-config", "positions", "--errors", "--limit", "0", "--player",
                                    side["player"], "--length", length, "--format", "json", db=db).stdout)
            mine = [d for d in listed["decisions"] if d["match_id"] == obj["match_id"]]
            assert len(side["review"]) <= min(3, len(mine))
            if any(d["mwc_loss"] > 0 for d in mine) and all(r["difficulty"] is None for r in side["review"]):
                assert len(side["review"]) == min(3, len(mine))  # d unknown counts 0: every error qualifies
            keys = [r["mwc_loss"] - (r["difficulty"] or 0.0) for r in side["review"]]
            assert all(k > 0 for k in keys) and keys == sorted(keys, reverse=True)
            assert {(r["game"], r["move"]) for r in side["review"]} <= {(d["game"], d["move"]) for d in mine}
            for r in side["review"]:
                assert r["played"] and r["best"] and r["position_id"]
                assert (f"game {r['game']}, move {r['move']} (gnubg row {r['gnubg_row']}, {side['player']}),"
                            in text) and r["position_id"] in text


def _arrays(rows):
    """A one-match Selection of checker decisions of player 0: rows of
    (error EMG, MWC per EMG, d EMG or NaN)."""
    from gnubg_blunder.arrays import DecisionArrays, MatchInfo, RollArrays, Selection

    n = len(rows)
    dec = DecisionArrays(match=[0] * n, game=[0] * n, seq=list(range(n)), player=[0] * n, kind=[0] * n,
                         error=[r[0] for r in rows], mwc_per_emg=[r[1] for r in rows], n_legal=[20] * n,
                         n_candidates=[20] * n, equity_spread=[0.5] * n, row_id=list(range(n)))
    dec.difficulty = np.array([r[2] for r in rows], dtype=np.float64)  # with or without the stored column
    m = MatchInfo(id=1, players=("A", "B"), length=7, date=None, event=None,
                  winner=0, final_score=(7, 0), n_games=1, source="sgf", analysis_id=1, engine="gnubg",
                  depth=0, depth_label="0-ply")
    return Selection([m], dec, RollArrays(match=[], game=[], player=[], luck=[], mwc_per_emg=[]),
                     np.array([[True, True]]))


def test_the_three_decisions_rule():
    """ℓ − d descending; unknown d counts 0; ℓ − d ≤ 0 and non-errors left
    out; ties: larger ℓ, then match order; three at most."""
    from gnubg_blunder.metrics.counting import counted
    from gnubg_blunder.metrics.review import review_indices

    nan = float("nan")
    rows = [
        (0.200, 0.10, 0.150),  # 0: ℓ 0.020, d 0.015 -> 0.005
        (0.100, 0.10, nan),    # 1: ℓ 0.010, d unknown -> 0.010
        (0.300, 0.10, 0.300),  # 2: ℓ − d = 0: left out
        (0.040, 0.10, 0.0),    # 3: below the error threshold (0.050): left out
        (0.150, 0.10, 0.050),  # 4: ℓ 0.015 − 0.005 = 0.010, larger ℓ than 1: before it
        (0.100, 0.10, 0.0),    # 5: 0.010, ℓ 0.010 like 1: after 1 (match order)
        (0.060, 0.10, 0.0),    # 6: 0.006
    ]
    sel = _arrays(rows)
    assert counted(sel.decisions).all()
    assert review_indices(sel, 0, 0) == [4, 1, 5]
    assert review_indices(sel, 0, 0, size=10) == [4, 1, 5, 6, 0]
    assert review_indices(sel, 0, 1) == []  # fewer when fewer qualify
    # money: e − d in EMG
    money = _arrays([(0.200, nan, 0.150), (0.100, nan, nan), (0.120, nan, 0.010)])
    money.matches[0].length = 0
    assert review_indices(money, 0, 0) == [2, 1, 0]


def test_review_last_player_and_main_player(db, cli):
    """``last`` = the most recently stored match the filter keeps; --player
    picks that side; the main player is the default side; a player who did
    not play the match is refused."""
    obj = json.loads(cli("--no-config", "review", "--format", "json", db=db).stdout)
    matches = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"]
    import sqlite3

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    latest = con.execute("SELECT id FROM matches WHERE kind = 'match' ORDER BY imported_at DESC, id DESC").fetchone()[0]
    con.close()
    assert obj["match_id"] == latest
    assert len(obj["sides"]) == 2
    name = obj["players"][1]
    one = json.loads(cli("--no-config", "review", obj["match_id"], "--player", name, "--format", "json",
                         db=db).stdout)
    assert [s["player"] for s in one["sides"]] == [name]
    other = [m for m in matches if name not in m["players"]]
    if other:
        res = cli("--no-config", "review", other[0]["id"], "--player", name, db=db, check=False)
        assert res.returncode == 2 and "did not play this match" in res.stderr
    res = cli("--no-config", "review", "9999", db=db, check=False)
    assert res.returncode == 2 and "no stored match has this ID" in res.stderr
    res = cli("--no-config", "review", "x", db=db, check=False)
    assert res.returncode == 2 and "give a match ID" in res.stderr


def test_main_player_is_the_default_side(db_copy, cli):
    obj = json.loads(cli("--no-config", "review", "--format", "json", db=db_copy).stdout)
    name = obj["players"][0]
    cli("--no-config", "main-player", name, db=db_copy)
    again = json.loads(cli("--no-config", "review", "--format", "json", db=db_copy).stdout)
    assert [s["player"] for s in again["sides"]] == [name]


@needs_gnubg
def test_transcript_cumulative_equals_each_sides_figures(reviewed, cli):
    """``review --transcript``: every decision in match order; the last
    cumulative MWC lost (and EMG) of each side is that side's MWC lost (and
    error) of ``matches``; the CSV holds the same rows."""
    import csv
    import io

    results, db = reviewed
    for length, screen, obj, match, text in results:
        t = json.loads(cli("--no-config", "review", obj["match_id"], "--transcript", "--format", "json",
                           db=db).stdout)
        rows = t["transcript"]
        assert [(r["game"], r["move"]) for r in rows] == sorted((r["game"], r["move"]) for r in rows)
        assert sum(r["counted"] for r in rows) == sum(s["decisions"] for s in match["sides"])
        for k, side in enumerate(match["sides"]):
            assert rows[-1]["cum_error_emg"][k] == pytest.approx(side["error_emg"], abs=1e-9)
            if length:
                assert rows[-1]["cum_mwc_loss"][k] == pytest.approx(side["mwc_loss"], abs=1e-9)
            else:
                assert rows[-1]["cum_mwc_loss"] is None
        out = cli("--no-config", "review", obj["match_id"], "--transcript", "--format", "csv", db=db).stdout
        table = list(csv.reader(io.StringIO(out)))
        assert len(table) == len(rows) + 1 and table[0][:4] == ["game", "move", "player", "kind"]
        shown = cli("--no-config", "review", obj["match_id"], "--transcript", db=db).stdout
        assert f"Transcript: {len(rows)} decisions" in shown


def test_pace_splits_at_the_median_by_hand():
    """Hasty = below the side's median duration of that type, considered =
    at or above it; PR of each part; no duration at all: None."""
    from gnubg_blunder.metrics.review import pace

    nan = float("nan")
    sel = _arrays([(0.100, 0.1, nan), (0.000, 0.1, nan), (0.050, 0.1, nan), (0.020, 0.1, nan),
                   (0.200, 0.1, nan)])
    assert pace(sel, 0, 0) is None  # no durations (gnubg files)
    sel.decisions.duration = np.array([3.0, 10.0, 5.0, 20.0, nan])  # the last without a duration
    p = pace(sel, 0, 0)
    # durations 3, 10, 5, 20: median 7.5; hasty 3 and 5 (e 0.100, 0.050), considered 10 and 20 (0, 0.020)
    assert p["checker"]["median_s"] == 7.5
    assert p["checker"]["hasty"] == {"n": 2, "pr": pytest.approx(500 * 0.150 / 2)}
    assert p["checker"]["considered"] == {"n": 2, "pr": pytest.approx(500 * 0.020 / 2)}
    assert p["cube"] is None
    assert pace(sel, 0, 1) is None


def test_a_difficulty_no_analyser_can_carry_is_zero(tmp_path, cli):
    """charlot2's wrong pass in tests/fixtures/sgf/analysed_eval.sgf (take
    best by DP − DT = 1.505035 EMG): d = 1.505035 / (1 + e^(1.505035 /
    0.025)) = 1.08·10⁻²⁶ EMG, under 10⁻¹²: the review and its transcript
    give 0 (docs/figures.md), not 1.0774643724271735e-26; ℓ stays as it was."""
    from conftest import FIXTURES

    db = tmp_path / "eval.db"
    cli("import", FIXTURES / "sgf" / "analysed_eval.sgf", db=db)
    rows = cli("--no-config", "review", "--format", "csv", db=db).stdout.splitlines()
    assert any(r.startswith("charlot2,1,1,8,pass,pass,take,1.5050354599952698,22.266998668969862,0.0,0.0,4DnxAFjEZ/DBAA,")
               for r in rows)
    t = json.loads(cli("--no-config", "review", "--transcript", "--format", "json", db=db).stdout)["transcript"]
    (wrong_pass,) = [r for r in t if r["kind"] == "pass"]
    assert (wrong_pass["difficulty"], wrong_pass["difficulty_emg"]) == (0.0, 0.0)
    assert wrong_pass["mwc_loss"] == 22.266998668969862


# -- the reading of A in words, the side's excess (SPEC §8) ------------------------------------

def test_the_reading_of_the_luck_adjusted_result():
    """Seed 000 §8: lost with A > 0 = lost to the dice, A < 0 = lost by
    play; won with A < 0 = won by the dice, A > 0 = won by play.  A = 0
    (the play even, to float noise): the dice made the result."""
    from gnubg_blunder.metrics.review import luck_reading

    assert luck_reading(False, 10.0) == "lost to the dice"
    assert luck_reading(False, -0.01) == "lost by play"
    assert luck_reading(True, -10.0) == "won by the dice"
    assert luck_reading(True, 0.01) == "won by play"
    assert luck_reading(False, 0.0) == "lost to the dice" and luck_reading(True, 0.0) == "won by the dice"
    assert luck_reading(True, 1e-14) == "won by the dice" and luck_reading(False, -1e-14) == "lost to the dice"


def _luck_db(path):
    """Two 5-point matches of charlot1 v charlot2, both won 5-0 by charlot2
    in two games, 0.5 MWC per EMG (tests/fixture_db.py's arithmetic):
    - match 1: charlot1's luck −1.2 EMG (−0.6 MWC), charlot2's 0:
      A(charlot1) = 100 × [(0 − 0.5) − (−0.6 − 0)] = +10 (lost to the dice),
      A(charlot2) = 100 × [(1 − 0.5) − (0 + 0.6)] = −10 (won by the dice);
    - match 2: charlot1's luck −1.0 EMG (−0.5 MWC): A = 0 on both sides
      (lost to the dice, won by the dice)."""
    from fixture_db import P_HOLD, P_OPEN, build_matches
    from gnubg_blunder.database import SQLiteStore

    def match(mid, luck):
        return dict(id=mid, date=f"2025-05-0{mid}", event=None, length=5, players=("charlot1", "charlot2"),
                    games=[(1, 3), (1, 2)],
                    decisions=[(0, 0, "checker", 0.080, P_HOLD, "too many blots", None),
                               (0, 1, "checker", 0.000, P_OPEN, None, None)],
                    luck=luck)

    with SQLiteStore(path) as st:
        for m in build_matches(matches=[match(1, (-1.2, 0.0)), match(2, (-1.0, 0.0))]):
            st.add_match(m)
    return path


def test_the_review_says_the_reading_beside_a_in_text_json_and_the_match_page(tmp_path, cli):
    db = _luck_db(tmp_path / "luck.db")
    expected = {1: {"charlot1": (10.0, "lost to the dice"), "charlot2": (-10.0, "won by the dice")},
                2: {"charlot1": (0.0, "lost to the dice"), "charlot2": (0.0, "won by the dice")}}
    for mid, sides in expected.items():
        obj = json.loads(cli("--no-config", "review", mid, "--format", "json", db=db).stdout)
        got = {s["player"]: (s["luck_adjusted"], s["luck_reading"]) for s in obj["sides"]}
        assert {k: (pytest.approx(a, abs=1e-9), r) for k, (a, r) in expected[mid].items()} == got
        text = cli("--no-config", "review", mid, db=db).stdout
        page = tmp_path / f"m{mid}.html"
        cli("--no-config", "report", "--match", mid, "--html", page, db=db)
        html = page.read_text(encoding="utf-8")
        for name, (a, reading) in sides.items():
            shown = f"{a:+.2f}" if round(a, 2) else "0.00"  # a value that rounds to 0 has no sign (formatting.num)
            line = f"Luck-adjusted result {shown} % MWC, {reading} (difference of errors"
            assert line in text and line in html, (mid, name)
    # the fixture's matches: every A is won or lost by play (match 1: charlot1 +30.00, charlot2 -30.00)
    obj = json.loads(cli("--no-config", "review", 1, "--format", "json", db=_fixture(tmp_path)).stdout)
    assert [(s["player"], round(s["luck_adjusted"], 9), s["luck_reading"]) for s in obj["sides"]] == [
        ("charlot1", 30.0, "won by play"), ("charlot2", -30.0, "lost by play")]
    # no A, no reading: money, unfinished
    for mid in (4, 5):
        obj = json.loads(cli("--no-config", "review", mid, "--format", "json", db=_fixture(tmp_path)).stdout)
        assert all(s["luck_adjusted"] is None and s["luck_reading"] is None for s in obj["sides"])


def _fixture(tmp_path):
    from fixture_db import build_fixture_db

    path = tmp_path / "fixture.db"
    return path if path.exists() else build_fixture_db(path)


def test_the_review_shows_the_sides_excess_in_its_unit(db, cli):
    """Σ(ℓ − d) of the side's counted decisions in % MWC (= matches'
    ``excess``); money: Σ(e − d) in EMG.  Fixture match 1, charlot1: e
    0 + 0.020 + 0.080 + 0 (race) + the take's 0 = 0.100 EMG, ℓ = 5.00 %;
    d of 4 checker plays of 5 candidates 0.075 apart, 3.92956 mpt each, and
    of the take (0.3 / (1 + e¹²) EMG): Σd = 0.015720 EMG = 0.786 %; excess
    4.2140 %.  Money match 4, charlot1: e 0.030 + 0.090 − 2 × 0.00392956 =
    +0.11214 EMG."""
    obj = json.loads(cli("--no-config", "review", 1, "--format", "json", db=db).stdout)
    side = obj["sides"][0]
    assert side["player"] == "charlot1" and side["excess_unit"] == "% MWC"
    assert side["excess"] == pytest.approx(4.213995, abs=1e-6)
    matches = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"]
    assert side["excess"] == matches[0]["sides"][0]["excess"]
    assert "Excess Σ(ℓ − d): +4.21 % MWC" in cli("--no-config", "review", 1, db=db).stdout
    money = json.loads(cli("--no-config", "review", 4, "--format", "json", db=db).stdout)["sides"][0]
    assert money["player"] == "charlot1" and money["excess_unit"] == "EMG"
    assert money["excess"] == pytest.approx(0.112141, abs=1e-6)
    assert "Excess Σ(e − d): +0.112 EMG" in cli("--no-config", "review", 4, db=db).stdout


def test_owned_cube_and_played_move_on_the_review_boards(committed_selfplay, tmp_path, cli):
    """The committed 3-point self-play match m23-3: Strongbot doubles to 2 at
    game 1, move 7, Weakbot takes (move 8). The review JSON gives each
    decision's cube owner (the stored decision's): centred up to the take,
    Weakbot's after it; the match page's review board of Weakbot's checker
    play at move 10 (cube 2, Weakbot's) draws the cube on Weakbot's side
    (the bottom: Weakbot is on roll), labelled "Cube 2 owned by Weakbot",
    and the played move bar/23 24/21 as two arrows."""
    import re

    from lxml import etree

    db = tmp_path / "t.db"
    cli("--no-config", "import", committed_selfplay(23, 3), db=db)
    t = json.loads(cli("--no-config", "review", "1", "--transcript", "--format", "json", db=db).stdout)
    game1 = [r for r in t["transcript"] if r["game"] == 1]
    take = next(k for k, r in enumerate(game1) if r["kind"] == "take")
    assert (game1[take - 1]["player"], game1[take - 1]["kind"]) == ("Strongbot", "double")
    assert game1[take]["player"] == "Weakbot"
    assert all(r["cube_owner"] is None for r in game1[:take + 1])  # centred until the take
    after = game1[take + 1:]
    redouble = next((k for k, r in enumerate(after) if r["kind"] == "double"), len(after))
    assert after and all(r["cube_owner"] == "Weakbot" for r in after[:redouble + 1])

    obj = json.loads(cli("--no-config", "review", "1", "--player", "Weakbot", "--format", "json", db=db).stdout)
    recs = {(r["game"], r["move"]): r for r in obj["sides"][0]["review"]}
    r = recs[(1, 10)]
    assert (r["kind"], r["cube_value"], r["cube_owner"], r["cube_side"]) == ("checker", 2, "Weakbot", 0)
    assert r["played"] == "bar/23 24/21" and r["played_steps"] == [[25, 23], [24, 21]]
    for rec in recs.values():  # every record says where its cube is
        assert rec["cube_side"] == (-1 if rec["cube_owner"] is None else 0 if rec["cube_owner"] == "Weakbot" else 1)

    page = tmp_path / "m.html"
    cli("--no-config", "report", "--match", "1", "--player", "Weakbot", "--html", page, db=db)
    html = page.read_text(encoding="utf-8")
    review = html[html.index('<section id="review">'):]
    svgs = [s for s in (etree.fromstring(m.encode()) for m in re.findall(r"<svg\b.*?</svg>", review, re.S))
            if "game 1, move 10 (gnubg row 6, Weakbot)." in s.get("aria-label", "")]
    assert len(svgs) == 1, "one board of game 1, move 10 (gnubg's row 6, Weakbot's column) in the page's review"
    svg = svgs[0]
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert "Cube 2 owned by Weakbot." in svg.get("aria-label")
    assert "Cube centred" not in svg.get("aria-label")
    assert "Move shown: bar/23 24/21." in svg.get("aria-label")
    cube = svg.find(".//s:g[@class='bgb-cube']", ns)
    assert cube.get("data-owner") == "on roll"
    assert cube.find("s:text", ns).text == "2"
    # In the bottom half (Weakbot's, on roll): below the dice, which sit at the board's middle.
    die = svg.find(".//s:g[@class='bgb-dice']/s:rect", ns)
    assert float(cube.find("s:rect", ns).get("y")) > float(die.get("y")) + float(die.get("height"))
    assert len(svg.findall(".//s:g[@class='bgb-arrow']", ns)) == 2


def test_gnubg_rows_end_at_a_record_the_store_does_not_keep():
    """docs/review.md, "gnubg's game record": the rule over stored (seq,
    player, beaver) records — a double by the first player shares its row
    with the take; after a beaver the missing seqs are raccoons in turn; any
    other missing record ends the rows (row —)."""
    from gnubg_blunder.game_record import gnubg_rows, place_text
    from gnubg_blunder.model import BEAVER

    # 0: second player's roll (row 1, right); 1: first player's (row 2, left); 2: second's (row 2, right);
    # 3: first doubles (row 3, left), 4: second takes (row 3, right); 5: first rolls (row 4, left)
    assert gnubg_rows([(0, 1, 0), (1, 0, 0), (2, 1, 0), (3, 0, 0), (4, 1, 0), (5, 0, 0)]) == \
        {0: 1, 1: 2, 2: 2, 3: 3, 4: 3, 5: 4}
    # 0: first doubles (1 left), 1: second beavers (1 right), 2-3 not stored: raccoons by the first (2 left)
    # and the second (2 right), 4: the first takes (3 left), 5: the first's roll (4 left)
    assert gnubg_rows([(0, 0, 0), (1, 1, BEAVER), (4, 0, 1), (5, 0, 0)]) == {0: 1, 1: 1, 4: 3, 5: 4}
    # seq 2 is not stored and follows no beaver (a "set" record): the rows end there
    assert gnubg_rows([(0, 0, 0), (1, 1, 0), (3, 0, 0), (4, 1, 0)]) == {0: 1, 1: 1}
    assert place_text(None, None) == "row —" and place_text(10, "Weakbot") == "row 10, Weakbot"


def test_gnubg_rows_of_many_games_at_once_are_the_rule_s():
    """game_record.gnubg_rows_of_records (the report's rows from its arrays)
    gives each record gnubg_rows' row (0: none), for the worked games above
    and for random ones (gaps, beavers, several records of one seq, out of
    order), each game under any integer key."""
    import random

    from gnubg_blunder.game_record import gnubg_rows, gnubg_rows_of_records
    from gnubg_blunder.model import BEAVER

    worked = [[(0, 1, 0), (1, 0, 0), (2, 1, 0), (3, 0, 0), (4, 1, 0), (5, 0, 0)],
              [(0, 0, 0), (1, 1, BEAVER), (4, 0, 1), (5, 0, 0)], [(0, 0, 0), (1, 1, 0), (3, 0, 0), (4, 1, 0)]]
    rng = random.Random(29)
    for trial in range(300):
        games = worked if trial == 0 else [
            [(seq, rng.choice((0, 1)), rng.choice((0, 0, 0, 1, BEAVER)))
             for seq in range(rng.randint(0, 14)) if rng.random() > 0.08 for _ in range(rng.choice((1, 1, 2)))]
            for _ in range(rng.randint(1, 6))]
        keys = rng.sample(range(-50, 10_000), len(games))
        records = [(key, *r) for key, game in zip(keys, games) for r in game]
        rng.shuffle(records)
        got = gnubg_rows_of_records(*(list(col) for col in zip(*records))) if records else []
        want = {key: gnubg_rows(sorted(game)) for key, game in zip(keys, games)}
        assert [int(x) for x in got] == [want[key].get(seq, 0) for key, seq, _, _ in records], games


def test_an_xg_match_has_no_gnubg_row(cli, tmp_path):
    """gnubg reads no XG file: an XG analysis' decisions print `row —` (JSON null)."""
    from conftest import FIXTURES

    db = tmp_path / "xg.db"
    cli("import", FIXTURES / "real" / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", db=db)
    rows = json.loads(cli("--no-config", "review", "--transcript", "--format", "json", db=db).stdout)["transcript"]
    assert len(rows) > 100 and all(r["gnubg_row"] is None and r["gnubg_column"] is None for r in rows)
    from gnubg_blunder.game_record import selection_gnubg_rows
    from gnubg_blunder.database import SQLiteStore

    store = SQLiteStore(db)
    try:  # the report's rows, from its arrays: none either
        sel = store.select()
        assert sel.whole_analyses and set(selection_gnubg_rows(store, sel, range(len(sel.decisions))).values()) == {None}
    finally:
        store.close()
    positions = cli("--no-config", "positions", "--limit", "3", db=db).stdout
    assert "gnubg row" in positions and " — " in positions
