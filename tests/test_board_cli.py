"""``gnubg-blunder board ...`` and played-move recognition across notations."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import gnubg_match_dump, needs_gnubg, run_cli
from gnubg_blunder.board.ids import play_from_xg_move
from gnubg_blunder.board.moves import find_play, legal_plays, parse_move_notation
from gnubg_blunder.board.position import Board


@needs_gnubg
def test_batch_counts_equal_gnubgs_move_lists(selfplay, tmp_path):
    """(position, dice) pairs of real gnubg matches through the batch command,
    one process: every count equals the length of gnubg's own move list."""
    pairs = []
    for seed, length in ((21, 7), (22, 7), (24, 0), (26, 11), (25, 0), (11, 5)):
        dump = gnubg_match_dump(selfplay(seed, length))
        for g in dump["games"]:
            for rec in g["game"]:
                moves = (rec.get("analysis") or {}).get("moves")
                if rec["action"] == "move" and moves:
                    pairs.append((rec["board"], rec["dice"][0], rec["dice"][1], len(moves)))
    pairs = pairs[:880]
    assert len(pairs) == 880
    stdin = "".join(f"{b} {d1} {d2}\n" for b, d1, d2, _n in pairs)
    res = subprocess.run([sys.executable, "-m", "gnubg_blunder", "board", "moves"], input=stdin,
                         capture_output=True, text=True, timeout=300,
                         env={"GNUBG_BLUNDER_NO_PLUGINS": "1", "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 880
    for (b, d1, d2, n), line in zip(pairs, lines):
        obj = json.loads(line)
        assert obj["position_id"] == b and obj["dice"] == [d1, d2]
        assert obj["count"] == n == len(obj["plays"]), (b, d1, d2)
        assert len({p["position_id"] for p in obj["plays"]}) == n


def test_batch_reports_bad_lines_and_goes_on():
    stdin = "4HPwATDgc/ABMA 2 1\nnot-an-id 2 1\n4HPwATDgc/ABMA 9 1\n4HPwATDgc/ABMA 6 6\n"
    res = subprocess.run([sys.executable, "-m", "gnubg_blunder", "board", "moves"], input=stdin,
                         capture_output=True, text=True, timeout=60)
    out = [json.loads(line) for line in res.stdout.splitlines()]
    assert res.returncode == 1
    assert [o.get("count") for o in out] == [15, None, None, 11]
    assert out[1]["line"] == 2 and "not-an-id" in out[1]["error"]


def test_single_position_text_and_json(tmp_path):
    res = run_cli("board", "moves", "--position-id", "4HPwATDgc/ABMA", "--dice", "2", "1", "--format", "json")
    obj = json.loads(res.stdout)
    assert obj["count"] == 15
    # the results as gnubg's next record shows them: the opponent on roll
    after = Board.from_position_id(obj["plays"][0]["position_id"]).swapped()
    assert any(p.result == after for p in legal_plays(Board.initial(), 2, 1))
    text = run_cli("board", "moves", "--position-id", "4HPwATDgc/ABMA", "--dice", "2", "1").stdout
    assert text.startswith("15 legal plays for 21")
    bad = run_cli("board", "moves", "--position-id", "4HPwATDgc/ABMA", "--dice", "7", "1", check=False)
    assert bad.returncode == 2 and "dice" in bad.stderr and "Traceback" not in bad.stderr
    svg = tmp_path / "b.svg"
    shown = run_cli("board", "show", "4HPwATDgc/ABMA", "--svg", svg).stdout
    assert "Position ID: 4HPwATDgc/ABMA" in shown and svg.read_text().startswith("<svg")
    cls = json.loads(run_cli("board", "classify", "4HPwATDgc/ABMA", "--format", "json").stdout)
    assert (cls["phase"], cls["on_roll"]["pips"], cls["opponent"]["pips"]) == ("opening", 167, 167)


@pytest.mark.parametrize("dice, notation, tuples, xg", [
    # from the start: gnubg's notation, gnubg's move tuples and XG's move array
    ((6, 6), "24/18(2) 13/7(2)", ((24, 18), (24, 18), (13, 7), (13, 7)), (23, 17, 23, 17, 12, 6, 12, 6)),
    ((6, 4), "24/14", ((24, 18), (18, 14)), (23, 13, -1, -1, -1, -1, -1, -1)),
    ((2, 1), "13/11 6/5", ((13, 11), (6, 5)), (12, 10, 5, 4, -1, -1, -1, -1)),
])
def test_played_move_recognition_from_the_start(dice, notation, tuples, xg):
    b = Board.initial()
    by_notation = parse_move_notation(b, *dice, notation)
    by_tuples = find_play(b, *dice, tuples)
    by_xg = play_from_xg_move(b, *dice, xg)
    assert by_notation is not None and by_notation == by_tuples == by_xg
    assert by_notation.notation == notation


def test_hit_on_the_way_in_every_notation():
    """"8/5*/4": a checker hits on 5 and goes on to 4 (3-1)."""
    me = [0] * 25
    me[7], me[5], me[12] = 2, 5, 8  # 8, 6 and 13 points
    opp = [0] * 25
    opp[19] = 1  # a blot on the mover's 5 point (opponent's 20)
    opp[0], opp[12], opp[5] = 2, 5, 7
    b = Board(me, opp)
    a = parse_move_notation(b, 3, 1, "8/5*/4")
    assert a is not None and a.hits == (5,)
    assert a == find_play(b, 3, 1, [(8, 5), (5, 4)]) == find_play(b, 1, 3, [(5, 4), (8, 5)])
    assert a.notation == "8/5*/4"
    # XG writes a path split where it hits
    assert a == play_from_xg_move(b, 3, 1, (7, 4, 4, 3, -1, -1, -1, -1))
    # without the star it is the other play, 8/7/4, which hits nothing
    other = parse_move_notation(b, 3, 1, "8/4")
    assert other != a and other.hits == () and other.steps == ((8, 7), (7, 4))
