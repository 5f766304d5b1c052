"""Beavers (SPEC §2) on real gnubg money sessions with the Jacoby rule and
beavers on (``tests/tools/gnubg-selfplay``, LENGTH 0), committed with the
figures below (tests/fixtures/selfplay/): a session made again on another
processor may differ in the last digits, or in a bot's move.

The rule: a beaver answers a double and is the responder's take decision,
judged take vs pass on the double's analysis; the doubler's answer to the
beaver, and raccoons, are no decisions.  gnubg's own statistics file that
answer as a take of whoever made it: our gnubg cross-check block must still
equal gnubg's ``show statistics match`` screen.

The oracle is a hand count over gnubg's own records (``gnubg.match()``), with
rules simple enough to check by eye, and gnubg's screen (``.stats.txt``).
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import gnubg_match_dump, needs_gnubg, run_cli_inprocess as run_cli

pytestmark = needs_gnubg

# Money sessions with beavers.  Seed 42: the weak bot beavers once a game
# (game 2: beaver, raccoon, beaver again), 63 decisions without its beavers,
# 67 with them.  Seed 25: three beavers, one of them wrong (DT > DP: the
# beaverer's take error), two chains of three beaver/raccoon records.
SEEDS = (42, 25)


def hand_count(dump: dict) -> dict:
    """From gnubg's records, per side (X = 0, O = 1):

    * ``takes``: our take/pass decisions = the answers (take or drop) to a
      double that was not itself answering a double, plus the beavers (a
      double right after a double that was not itself answering one);
    * ``take_error``: their e, from the double's analysis (money: DT, DP = +1
      normalised): take or beaver DT − min(DT, 1), drop 1 − min(DT, 1);
    * ``beavers``, ``raccoons`` (a double answering a beaver or raccoon),
      ``beaver_answers`` (a take or drop right after a beaver or raccoon);
    * ``gnubg_takes``: what gnubg's screen calls Takes: every take record.
    """
    out = {k: [0, 0] for k in ("takes", "take_error", "beavers", "raccoons", "beaver_answers", "gnubg_takes")}
    for game in dump["games"]:
        recs = [r for r in game["game"] if r["action"] in ("move", "double", "take", "drop")]
        for i, rec in enumerate(recs):
            p = "XO".index(rec["player"])
            prev = recs[i - 1]["action"] if i >= 1 else None
            prev2 = recs[i - 2]["action"] if i >= 2 else None
            if rec["action"] == "double" and prev == "double":
                if prev2 == "double":
                    out["raccoons"][p] += 1
                    continue
                dt = recs[i - 1]["analysis"]["dt-cubeful-eq"]  # the double it answers
                out["beavers"][p] += 1
                out["takes"][p] += 1
                out["take_error"][p] += dt - min(dt, 1.0)
            elif rec["action"] in ("take", "drop"):
                out["gnubg_takes"][p] += rec["action"] == "take"
                if prev == "double" and prev2 == "double":
                    out["beaver_answers"][p] += 1
                    continue
                dt = recs[i - 1]["analysis"]["dt-cubeful-eq"]
                out["takes"][p] += 1
                out["take_error"][p] += (dt if rec["action"] == "take" else 1.0) - min(dt, 1.0)
    return out


def screen(text: str) -> dict:
    """gnubg's ``show statistics match`` screen: {(section, label): (first
    number of player 0's column, of player 1's)}."""
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("Player "))
    table, section = {}, None
    for line in lines[start + 1:]:
        if line.strip().endswith(" statistics"):
            section = line.split()[0]
            continue
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if not section or len(cells) != 2:
            continue
        values = cells[1]
        while re.search(r"\([^()]*\)", values):  # the bracketed figures (points, EMG of a count)
            values = re.sub(r"\([^()]*\)", " ", values)
        nums = re.findall(r"[-+]?\d+(?:\.\d+)?(?=\s|$)", values)
        if len(nums) == 2:
            table[section, cells[0]] = (float(nums[0]), float(nums[1]))
    return table


@pytest.fixture(scope="module")
def sessions(committed_selfplay, tmp_path_factory):
    """[(seed, gnubg's dump, gnubg's screen, our ``matches`` JSON)]."""
    out = []
    for seed in SEEDS:
        sgf = committed_selfplay(seed, 0)
        db = tmp_path_factory.mktemp("beavers") / "t.db"
        run_cli("import", sgf, db=db)
        ours = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
        assert len(ours) == 1
        stats = sgf.with_suffix(".stats.txt").read_text(encoding="utf-8", errors="replace")
        out.append((seed, gnubg_match_dump(sgf), screen(stats), ours[0]))
    return out


def test_the_sessions_are_money_with_jacoby_and_beavers(sessions):
    for seed, dump, _screen, ours in sessions:
        assert dump["match-info"]["match-length"] == 0 and ours["length"] == 0, seed
        assert "Jacoby" in dump["match-info"]["rules"], seed
        hand = hand_count(dump)
        assert sum(hand["beavers"]) >= 3 and sum(hand["beaver_answers"]) == sum(hand["beavers"]), seed
    assert sum(sum(hand_count(d)["raccoons"]) for _s, d, _t, _o in sessions) >= 2


def test_the_beaver_is_the_beaverers_take_and_its_answer_no_decision(sessions):
    for seed, dump, _screen, ours in sessions:
        hand = hand_count(dump)
        for p in (0, 1):
            side = ours["sides"][p]
            where = (seed, side["player"])
            assert side["take_decisions"] == hand["takes"][p], where
            assert side["take_error_emg"] == pytest.approx(hand["take_error"][p], abs=1e-5), where
            assert side["decisions"] == side["checker_decisions"] + side["double_decisions"] + \
                side["take_decisions"], where
    # seed 42, by hand from its records (S = Strongbot, W = Weakbot):
    #   game 1, 3, 4: S double, W beaver, S take
    #   game 2:       S double, W beaver, S raccoon, W beaver again, S take
    # W answers no plain double and beavers 4 times: 0 + 4 take decisions,
    # 63 decisions without them, 67 with; game 2's beaver is wrong (DT =
    # 1.518 > DP): e = 0.518, W's.  S answers each chain with a take: none of
    # them is a decision (0 takes), though gnubg's screen files game 2's as
    # S's wrong take.
    seed, dump, _screen, ours = sessions[0]
    weak, strong = ours["sides"]
    assert (weak["player"], strong["player"]) == ("Weakbot", "Strongbot")
    hand = hand_count(dump)
    assert hand["beavers"] == [4, 0] and hand["beaver_answers"] == [0, 4] and hand["raccoons"] == [1, 1]
    assert (weak["take_decisions"], weak["decisions"]) == (4, 67)
    assert weak["take_error_emg"] == pytest.approx(0.517965, abs=1e-5)
    assert strong["take_decisions"] == 0 and strong["error_emg"] == 0
    # seed 25: one of the weak bot's three beavers is wrong (DT 1.109 > DP):
    # its e, 0.109, is the weak bot's take error
    seed, dump, _screen, ours = sessions[1]
    weak = ours["sides"][0]
    assert weak["take_decisions"] == 3
    assert weak["take_error_emg"] == pytest.approx(0.109306, abs=1e-5)


def test_the_gnubg_block_still_equals_gnubgs_screen(sessions):
    """gnubg files the answer to a beaver as a take of whoever made it and
    sees no decision at the beaver: the cross-check keeps doing the same."""
    for seed, dump, scr, ours in sessions:
        hand = hand_count(dump)
        for p in (0, 1):
            g = ours["sides"][p]["gnubg"]
            st = dump["stats"]["XO"[p]]
            where = (seed, ours["sides"][p]["player"])
            # gnubg's Takes: plain takes and the answers to beavers, never a beaver
            assert scr["Cube", "Takes"][p] == st["cube"]["n-takes"] == hand["gnubg_takes"][p], where
            assert g["unforced"] == scr["Chequerplay", "Unforced moves"][p], where
            assert g["close_cube"] == scr["Cube", "Close or actual cube decisions"][p] == st["cube"]["close-cube"], where
            assert g["error_emg"] == pytest.approx(-scr["Overall", "Error total EMG (Points)"][p], abs=0.0015), where
            assert g["error_rate_memg"] == pytest.approx(-scr["Overall", "Error rate mEMG (Points)"][p], abs=0.06), where
            assert g["snowie_er"] == pytest.approx(-scr["Overall", "Snowie error rate"][p], abs=0.06), where
            assert g["mwc_loss"] is None, where
    # seed 42: the weak bot's wrong beaver (game 2) is, on gnubg's screen and
    # in the cross-check, the strong bot's wrong take
    seed, _dump, scr, ours = sessions[0]
    assert scr["Cube", "Wrong takes (EMG (Points))"] == (0, 1)
    assert ours["sides"][1]["gnubg"]["error_emg"] == pytest.approx(0.517965, abs=1e-5)
    assert ours["sides"][0]["take_error_emg"] == pytest.approx(0.517965, abs=1e-5)


def test_a_database_stored_before_gains_the_beavers(committed_selfplay, tmp_path):
    """Schema step 6: a database written before the beaver was a decision
    (no beaver rows) gets them back, equal to a fresh import's."""
    import sqlite3

    sgf = committed_selfplay(42, 0)
    fresh, old = tmp_path / "fresh.db", tmp_path / "old.db"
    for db in (fresh, old):
        run_cli("import", sgf, db=db)
    want = json.loads(run_cli("matches", "--format", "json", db=fresh).stdout)["matches"][0]["sides"]
    # the database as the code before wrote it: no beaver, the cache built from that
    with sqlite3.connect(old) as c:
        assert c.execute("DELETE FROM decisions WHERE beaver_take = 2").rowcount == 4
        c.execute("DELETE FROM analysis_arrays")
    before = json.loads(run_cli("matches", "--format", "json", db=old).stdout)["matches"][0]["sides"]
    assert [s["decisions"] for s in before] == [63, 104]
    with sqlite3.connect(old) as c:
        # schema 5 had no difficulty (step 7 adds it and computes d, the beavers' included)
        c.execute("ALTER TABLE decisions DROP COLUMN difficulty")
        c.execute("ALTER TABLE decisions DROP COLUMN difficulty_truncated")
        c.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    after = json.loads(run_cli("matches", "--format", "json", db=old).stdout)["matches"][0]["sides"]
    assert after == want and after[0]["decisions"] == 67
    cols = ("game, seq, player, kind, position_id, cube_value, cube_owner, score_self, score_opp, crawford, "
            "played_move, best_move, error, mwc_per_emg, nd, dt, dp, n_legal, n_candidates, beaver_take, "
            "gnubg_dead_cube, depth, phase, game_plan, theme")
    rows = []
    for db in (fresh, old):
        with sqlite3.connect(db) as c:
            rows.append(c.execute(f"SELECT {cols} FROM decisions WHERE beaver_take = 2 ORDER BY game, seq").fetchall())
    assert len(rows[0]) == 4 and rows[0] == rows[1]
