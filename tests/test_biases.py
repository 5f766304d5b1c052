"""Signed biases (SPEC §12, issue 10): ``gnubg-blunder biases``.

- take/pass and double biases of real gnubg matches equal a count made by
  hand from gnubg's own per-decision records (``gnubg.match()`` dumped inside
  the real gnubg, not our parser);
- the interval and the verdict at the edges (N = 19 vs 20, B = 0, all P,
  all M);
- blots: the played move of every counted checker play with contact is
  found by the board it leaves (share not reproduced = 0 on gnubg files).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import gnubg_match_dump, needs_gnubg, run_cli_inprocess as run_cli
from gnubg_blunder.met import default_met
from gnubg_blunder.metrics.biases import bias, signed_interval, verdict
from gnubg_blunder.codec.candidates import decode

# real gnubg self-play (seed, length): match play of 3 to 11 points and a money session
MATCHES = ((21, 7), (22, 7), (23, 3), (26, 11), (11, 5), (24, 0))
WINDOW = 0.200  # SPEC §2: a no double counts while ND - min(DT, DP) < 0.200 EMG


# -- the interval and the verdict at the edges ------------------------------------------

def test_interval_and_verdict_at_the_edges():
    # all P: B = 1, no spread: no interval (SPEC §7: never a zero-width one); the verdict reads B itself,
    # 19 decisions are too few, 20 give it
    assert signed_interval(19, 0, 19) is None
    assert verdict(19, None, 1.0) == "insufficient"
    assert verdict(20, signed_interval(20, 0, 20), 1.0) == "too much"
    # all M: too little
    assert signed_interval(0, 20, 20) is None and verdict(20, None, -1.0) == "too little"
    # B = 0 with spread: balanced, symmetric interval
    lo, hi = signed_interval(5, 5, 20)
    half = 1.96 * np.sqrt((10 / 20) / 20)
    assert lo == pytest.approx(-half) and hi == pytest.approx(half) and verdict(20, [lo, hi]) == "balanced"
    # B = 0 without a wrong decision: no interval, balanced from 20
    assert signed_interval(0, 0, 20) is None and verdict(20, None, 0.0) == "balanced"
    assert verdict(19, None, 0.0) == "insufficient"
    # the closed form: P = 8, M = 2, N = 20: B = 0.3, Var = (0.5 - 0.09)/20
    lo, hi = signed_interval(8, 2, 20)
    sd = np.sqrt((0.5 - 0.09) / 20)
    assert lo == pytest.approx(0.3 - 1.96 * sd) and hi == pytest.approx(0.3 + 1.96 * sd)
    assert verdict(20, [lo, hi]) == "too much"  # 0.3 - 0.28 > 0
    # clamped to [-1, 1]: a difference of two rates
    assert signed_interval(19, 0, 20)[1] == 1.0
    assert signed_interval(0, 0, 0) is None and verdict(0, None) == "insufficient"
    # under 3 decisions no interval even with spread (P = 1, M = 1, N = 2: Var = 1/2 > 0)
    assert signed_interval(1, 1, 2) is None and signed_interval(1, 1, 3) is not None


def test_bias_of_hand_made_sets():
    x = np.array([1] * 19)
    e = np.full(19, 0.010)
    r = bias(x, e)
    assert (r["n"], r["p"], r["m"], r["b"], r["verdict"]) == (19, 19, 0, 1.0, "insufficient")
    assert r["cost_p_mpt"] == pytest.approx(190.0) and r["cost_m_mpt"] == 0.0
    r = bias(np.array([1] * 20), np.full(20, 0.010))
    assert r["verdict"] == "too much" and r["ci"] is None and r["ci_note"] == "no interval: no spread"
    r = bias(np.zeros(20, dtype=np.int8), np.zeros(20))
    assert (r["b"], r["ci"], r["ci_note"], r["verdict"]) == (0.0, None, "no interval: no spread", "balanced")
    r = bias(np.array([1, -1]), np.array([0.02, 0.05]))
    assert (r["ci"], r["ci_note"]) == (None, "no interval: 2 decisions")
    r = bias(np.array([1, -1] * 10 + [0] * 5), np.array([0.02, 0.05] * 10 + [0.0] * 5))
    assert (r["n"], r["p"], r["m"], r["b"], r["verdict"]) == (25, 10, 10, 0.0, "balanced")
    assert r["cost_p_mpt"] == pytest.approx(200.0) and r["cost_m_mpt"] == pytest.approx(500.0)
    r = bias(np.zeros(0, dtype=np.int8), np.zeros(0))
    assert (r["n"], r["b"], r["ci"], r["verdict"]) == (0, None, None, "insufficient")


# -- real matches: the count made by hand from gnubg's records ------------------------------

def hand_count(dump: dict) -> dict:
    """Per player name, from gnubg's records only: take/pass (n, p, m) and
    doubles (n, p, m, and per (away, opp_away) cell).

    gnubg's cube figures of match play are MWC of the player on roll (the
    doubler for a double, take and drop); DP is his MWC after the opponent
    passes, read from the match equity table gnubg uses (Kazaross-XG2, the
    table only), so every comparison is done in MWC; the window of a counted
    no double (0.200 EMG, SPEC §2) is converted with the same table.  Money:
    normalised equities, DP = +1.  A wrong decision disagrees with the best
    (strict inequality): a take when DT > DP, a pass when DT < DP, a double
    when ND > min(DT, DP), no double when min(DT, DP) > ND."""
    met = default_met()
    length = dump["match-info"]["match-length"]
    names = {s: dump["match-info"][s]["name"] for s in "XO"}
    out = {n: {"tp": [0, 0, 0], "d": [0, 0, 0], "cells": {}} for n in names.values()}
    for game in dump["games"]:
        info = game["info"]
        score = {"X": info["score-X"], "O": info["score-O"]}
        crawford = bool(info.get("crawford"))
        cube = 1
        recs = [r for r in game["game"] if r["action"] in ("move", "double", "take", "drop")]
        for i, rec in enumerate(recs):
            p = rec["player"]
            o = "O" if p == "X" else "X"
            a = rec.get("analysis") or {}

            def scale(player, c):
                """(win, lose) MWC of ``player`` at cube c; money: (1, -1) (normalised)."""
                if not length:
                    return 1.0, -1.0
                return met.win_lose_mwc(length, score[player], score["O" if player == "X" else "X"], c, crawford)

            if rec["action"] in ("take", "drop"):
                d = recs[i - 1]
                if d["action"] != "double" or (i >= 2 and recs[i - 2]["action"] == "double"):
                    continue  # an answer to a beaver or raccoon: not a decision
                dt = d["analysis"]["dt-cubeful-eq"]
                dp = scale(o, cube)[0]
                wrong_take, wrong_pass = dt > dp, dt < dp
                t = out[names[p]]["tp"]
                t[0] += 1
                t[1] += rec["action"] == "take" and wrong_take
                t[2] += rec["action"] == "drop" and wrong_pass
                if rec["action"] == "take":
                    cube *= 2
                continue
            if rec["action"] == "double" and i >= 1 and recs[i - 1]["action"] == "double":
                # a beaver (money): the responder's take
                d = recs[i - 1]
                dt = d["analysis"]["dt-cubeful-eq"]
                t = out[names[p]]["tp"]
                t[0] += 1
                t[1] += dt > 1.0
                continue
            if "nd-cubeful-eq" not in a:
                continue
            nd, dt = a["nd-cubeful-eq"], a["dt-cubeful-eq"]
            win, lose = scale(p, cube)
            dp = win
            best_double = min(dt, dp)
            away, opp_away = (length - score[p], length - score[o]) if length else (0, 0)
            if rec["action"] == "double":
                sign = 1 if nd > best_double else 0
            else:
                # a no double counts while ND > 0 and ND - min(DT, DP) < 0.200 EMG
                half = (win - lose) / 2
                nd_emg = (nd - (win + lose) / 2) / half
                if not (nd_emg > 0 and (nd - best_double) / half < WINDOW):
                    continue
                sign = -1 if best_double > nd else 0
            dd = out[names[p]]["d"]
            cell = out[names[p]]["cells"].setdefault((away, opp_away), [0, 0, 0])
            for row in (dd, cell):
                row[0] += 1
                row[1] += sign > 0
                row[2] += sign < 0
    return out


@pytest.fixture(scope="module")
def real(selfplay, tmp_path_factory):
    """[(dump, {player: our biases JSON}, both sides' JSON)] over real analysed matches."""
    out = []
    for seed, length in MATCHES:
        sgf = selfplay(seed, length)
        db = tmp_path_factory.mktemp("biases") / "t.db"
        run_cli("import", sgf, db=db)
        dump = gnubg_match_dump(sgf)
        ours = {}
        for side in "XO":
            name = dump["match-info"][side]["name"]
            ours[name] = json.loads(run_cli("--no-config", "biases", "--player", name, "--format", "json",
                                            db=db).stdout)
        both = json.loads(run_cli("--no-config", "biases", "--format", "json", db=db).stdout)
        out.append(((seed, length), dump, ours, both, db))
    return out


@needs_gnubg
def test_take_pass_and_doubles_equal_a_count_by_hand(real):
    totals = {"tp": [0, 0, 0], "d": [0, 0, 0]}
    for key, dump, ours, both, _db in real:
        hand = hand_count(dump)
        for name, h in hand.items():
            tp, d = ours[name]["take_pass"], ours[name]["doubles"]
            assert [tp["n"], tp["p"], tp["m"]] == h["tp"], (key, name)
            assert [d["n"], d["p"], d["m"]] == h["d"], (key, name)
            cells = {(c["away"], c["opp_away"]): [c["n"], c["p"], c["m"]] for c in d["cells"]}
            assert cells == h["cells"], (key, name)
            for k in range(3):
                totals["tp"][k] += h["tp"][k]
                totals["d"][k] += h["d"][k]
        # without a player: both sides pooled
        assert both["take_pass"]["n"] == sum(h["tp"][0] for h in hand.values()), key
        assert both["doubles"]["m"] == sum(h["d"][2] for h in hand.values()), key
    # the matches hold takes, passes and doubles, and wrong ones (a test that can fail)
    assert totals["tp"][0] >= 5 and totals["d"][0] >= 100, totals
    assert totals["d"][1] + totals["d"][2] >= 3, totals


@needs_gnubg
def test_every_played_move_is_reproduced_on_gnubg_files(real):
    seen = 0
    for key, _dump, _ours, both, _db in real:
        b = both["blots"]
        assert b["not_reproduced"] == 0 and b["not_reproduced_share"] == 0.0, key
        assert b["n"] > 0 and b["p"] + b["m"] <= b["n"], key
        seen += b["n"]
    assert seen > 300


@needs_gnubg
def test_the_played_move_is_found_by_its_board_for_every_checker_play(real):
    """Every checker play of the matches: the board the played move leaves
    (the roll's ``position_after``) is one of the candidates' boards, and
    the store's read (``store/boards.py``, text, no JSON parse) gives the
    same played-found flag and first board as parsing the stored list."""
    import sqlite3

    from gnubg_blunder.database import open_store
    from gnubg_blunder.store.boards import checker_results

    plays = 0
    for key, _dump, _ours, _both, db in real:
        con = sqlite3.connect(db)
        rows = con.execute(
            "SELECT d.id, r.position_after, c.candidates, d.error, d.position_id, d.dice1, d.dice2 FROM decisions d "
            "JOIN rolls r ON r.analysis_id = d.analysis_id AND r.game = d.game AND r.seq = d.seq "
            "LEFT JOIN decision_candidates c ON c.decision_id = d.id WHERE d.kind = 'checker'").fetchall()
        con.close()
        with open_store(db) as store:
            read = checker_results(store, [r[0] for r in rows])
        for row_id, after, cands, error, pid, d1, d2 in rows:
            cands = decode(cands, pid, (d1, d2))
            boards = [c["position_id"] for c in cands]
            assert after in boards, (key, row_id)  # found by the board it leaves
            assert error is not None, (key, row_id)
            assert read[row_id] == (after, True, boards[0]), (key, row_id)
            plays += 1
    assert plays > 500


def _cached_and_read_blots_agree(db):
    """On the store's selection, the blots its array cache keeps (the
    decision columns ``blots_played``/``blots_best``) give the figures of
    the boards read row by row (store/boards.py), for every decision type,
    and the view gives them."""
    from gnubg_blunder.metrics.biases import biases, blot_rows
    from gnubg_blunder.database import open_store
    from gnubg_blunder.store.boards import checker_results
    from gnubg_blunder.views.biases import compute

    with open_store(db) as store:
        sel = store.select()
        for decision_type in ("all", "checker", "cube"):
            read = biases(sel, checker_results(store, blot_rows(sel, decision_type)), decision_type)
            assert biases(sel, None, decision_type) == read, decision_type
        scope = type("Scope", (), {"selection": sel, "store": store, "filter_json": {},
                                   "filter": type("F", (), {"decision_type": None})()})()
        got = compute(scope)
        got.pop("filter")
        assert got == biases(sel)
        return biases(sel)


def test_the_cached_blots_are_the_boards_read_by_row(db_copy):
    b = _cached_and_read_blots_agree(db_copy)["blots"]
    assert b["n"] > 0


@needs_gnubg
def test_the_cached_blots_are_the_boards_read_by_row_on_real_matches(real):
    leaning = 0
    for key, _dump, _ours, _both, db in real:
        b = _cached_and_read_blots_agree(db)["blots"]
        assert b["not_reproduced"] == 0, key
        leaning += b["p"] + b["m"]
    assert leaning > 0


@needs_gnubg
def test_blot_signs_by_hand_on_a_real_match(real, tmp_path):
    """x = sign(blots after played - blots after best) of every wrong checker
    play with contact of one real match, counted from gnubg's records with
    our board engine only applying the moves gnubg lists."""
    from gnubg_blunder.board.features import blots, has_contact
    from gnubg_blunder.board.moves import find_play
    from gnubg_blunder.board.position import Board

    key, dump, ours, both, _db = real[0]
    p = m = 0
    for game in dump["games"]:
        for rec in game["game"]:
            a = rec.get("analysis") or {}
            if rec["action"] != "move" or len(a.get("moves") or ()) < 2 or "imove" not in a:
                continue
            board = Board.from_position_id(rec["board"])
            if not has_contact(board):
                continue
            d1, d2 = rec["dice"]
            moves = a["moves"]
            played = moves[a["imove"]]
            if not moves[0]["score"] > played["score"]:
                continue  # not wrong
            if round((moves[0]["score"] - played["score"]) * 1e6) <= 0:
                continue
            after = find_play(board, d1, d2, tuple(map(tuple, played["move"]))).result
            best = find_play(board, d1, d2, tuple(map(tuple, moves[0]["move"]))).result
            diff = blots(after.on_roll) - blots(best.on_roll)
            p += diff > 0
            m += diff < 0
    assert (both["blots"]["p"], both["blots"]["m"]) == (p, m), key
    assert p + m > 0


# -- the summary card and the report section -------------------------------------------------

def test_summary_card_is_the_biases_view(db, cli):
    """``summary`` carries the three families of ``biases`` (without the
    score cells) and names them in its text and HTML."""
    from gnubg_blunder.views.summary import summary_html

    both = json.loads(cli("--no-config", "biases", "--format", "json", db=db).stdout)
    summ = json.loads(cli("--no-config", "summary", "--format", "json", db=db).stdout)
    for fam in ("take_pass", "doubles", "blots"):
        mine = {k: v for k, v in both[fam].items() if k != "cells"}
        assert summ["biases"][fam] == mine, fam
    assert summ["biases"]["take_pass"]["n"] > 0 and summ["biases"]["doubles"]["n"] > 0
    text = cli("--no-config", "summary", db=db).stdout
    tp = both["take_pass"]
    assert f"take/pass B {tp['b']:+.2f} {tp['verdict']} (N {tp['n']})" in text
    assert 'id="biases-card"' in summary_html(summ)


def test_biases_by_player_split_the_pooled_figures(db, cli):
    """Each side's N, P and M add up to the pooled figures (no decision counted twice or lost)."""
    both = json.loads(cli("--no-config", "biases", "--format", "json", db=db).stdout)
    names = [m["players"] for m in json.loads(cli("--no-config", "matches", "--format", "json",
                                                      db=db).stdout)["matches"]]
    players = sorted({n for pair in names for n in pair})
    sums = {fam: [0, 0, 0] for fam in ("take_pass", "doubles")}
    for name in players:
        one = json.loads(cli("--no-config", "biases", "--player", name, "--format", "json", db=db).stdout)
        for fam in sums:
            for k, key in enumerate(("n", "p", "m")):
                sums[fam][k] += one[fam][key]
    for fam in sums:
        assert sums[fam] == [both[fam]["n"], both[fam]["p"], both[fam]["m"]], fam


@needs_gnubg
def test_blots_decoded_at_once_equal_the_board_engine(real):
    """``blots_on_roll`` (every ID decoded at once) gives the board engine's
    count on every board of the matches and every board their candidates
    leave; what is no position ID is -1."""
    import sqlite3

    from gnubg_blunder.board.features import blots
    from gnubg_blunder.board.position import Board
    from gnubg_blunder.metrics.biases import blots_on_roll

    pids = set()
    for _key, dump, _ours, _both, db in real:
        pids |= {r["board"] for g in dump["games"] for r in g["game"] if r.get("board")}
        con = sqlite3.connect(db)
        for cands, pid, d1, d2 in con.execute("SELECT c.candidates, d.position_id, d.dice1, d.dice2 FROM "
                                              "decision_candidates c JOIN decisions d ON d.id = c.decision_id"):
            pids |= {c["position_id"] for c in decode(cands, pid, (d1, d2)) if c.get("position_id")}
        con.close()
    pids = sorted(pids)
    assert len(pids) > 5000
    assert blots_on_roll(pids).tolist() == [blots(Board.from_position_id(p).on_roll) for p in pids]
    assert blots_on_roll(["synthetic-1-2-3", None, "4HPwATDgc/AB!A", ""]).tolist() == [-1] * 4
