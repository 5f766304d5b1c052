"""Moves: rule edges on hand-set positions, then whole real gnubg matches.

The gnubg part dumps every move record of real analysed matches (one gnubg
process per match) and checks: the number of legal plays equals the length
of gnubg's candidate list; replaying the played moves reproduces gnubg's
position IDs; every candidate is found and distinct; gnubg's notation is
reproduced and read back; replaying the SGF move letters gives the same
positions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import needs_gnubg, side
from gnubg_blunder.board import (
    Board,
    IllegalMove,
    apply_step,
    apply_steps,
    count_legal_plays,
    find_play,
    format_move,
    legal_plays,
    parse_move_notation,
)
from gnubg_blunder.gnubg.process import run_python


def parse_sgf_move(value: str, player: int):
    """An SGF move value as (d1, d2, steps), through the SGF importer's parser."""
    from gnubg_blunder.importers.sgf_values import parse_move

    if player not in (0, 1):
        raise ValueError(f"player {player!r}")
    mv = parse_move(value, "WB"[player])
    if mv.kind != "move":
        raise ValueError(f"not a move: {value!r}")
    return mv.dice[0], mv.dice[1], mv.steps


def board(me: dict, opp: dict) -> Board:
    """``me`` in the mover's numbering, ``opp`` in the opponent's own numbering
    (the opponent's point p is the mover's point 25 - p)."""
    return Board(side(me), side(opp))


def notations(b: Board, d1: int, d2: int) -> set:
    return {p.notation for p in legal_plays(b, d1, d2)}


CLOSED = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}


# ---------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------

def test_apply_step_and_hit():
    b = board({13: 2, 6: 2}, {16: 1, 10: 2})  # opponent blot on the mover's 9
    after = apply_step(b, 13, 9)
    assert after.on_roll == side({13: 1, 9: 1, 6: 2})
    assert after.opponent == side({25: 1, 10: 2})  # hit blot on the opponent's bar
    assert apply_steps(b, [(13, 9), (9, 7)]).opponent == side({25: 1, 10: 2})
    assert apply_steps(b, []) == b
    entered = apply_step(board({25: 1}, {}), 25, 20)
    assert entered.on_roll == side({20: 1})
    off = apply_step(board({3: 1, 2: 1}, {}), 3, 0)
    assert off.on_roll == side({2: 1}) and off.checkers_off()[0] == 14


@pytest.mark.parametrize(
    "me, opp, step, message",
    [
        ({13: 1}, {}, (12, 10), "no checker"),
        ({13: 1}, {16: 2}, (13, 9), "blocked"),
        ({25: 1, 13: 1}, {}, (13, 9), "bar must enter first"),
        ({7: 1, 3: 1}, {}, (3, 0), "not all checkers"),
        ({13: 1}, {}, (13, 0), "home board"),
        ({13: 1}, {}, (13, 13), "1..6 pips"),
        ({13: 1}, {}, (13, 14), "1..6 pips"),
        ({13: 1}, {}, (13, 5), "1..6 pips"),
        ({13: 1}, {}, (26, 20), "from must be"),
    ],
)
def test_illegal_steps(me, opp, step, message):
    with pytest.raises(IllegalMove, match=message):
        apply_step(board(me, opp), *step)
    assert issubclass(IllegalMove, ValueError)


# ---------------------------------------------------------------------------
# Legal plays: rule edges
# ---------------------------------------------------------------------------

def test_initial_counts():
    b = Board.initial()
    assert count_legal_plays(b, 2, 1) == 15  # gnubg lists 15 candidates
    assert count_legal_plays(b, 1, 2) == 15
    assert "24/23 13/11" in notations(b, 2, 1)
    assert "8/5(2) 6/3(2)" in notations(b, 3, 3)
    assert "24/18(2) 13/7(2)" in notations(b, 6, 6)
    for p in legal_plays(b, 4, 2):
        assert p.result.swapped().on_roll == b.opponent  # not swapped: same mover
        assert sum(p.result.on_roll) == 15


def test_dance_bar_blocked():
    b = board({25: 1, 6: 5}, CLOSED)
    assert legal_plays(b, 6, 5) == [] and count_legal_plays(b, 6, 5) == 0
    assert count_legal_plays(b, 6, 6) == 0
    assert find_play(b, 6, 5, []) is None


def test_bar_entry_with_one_die_only():
    # Opponent holds its 2..6 points (the mover's 19..23); only a 1 enters.
    opp = {2: 2, 3: 2, 4: 2, 5: 2, 6: 2}
    b = board({25: 1, 13: 2, 6: 3}, opp)
    assert notations(b, 4, 1) == {"bar/24 13/9", "bar/24 6/2"}
    assert all(p.steps[0] == (25, 24) for p in legal_plays(b, 4, 1))
    # Two on the bar: only one enters and the 4 cannot be played.
    b2 = board({25: 2, 13: 2, 6: 3}, opp)
    (only,) = legal_plays(b2, 4, 1)
    assert only.steps == ((25, 24),) and only.notation == "bar/24"
    assert count_legal_plays(b2, 4, 4) == 0


def test_only_one_die_playable():
    # The 6 (13/7) is blocked; 13/8 then 8/2 is blocked: only the 5.
    b = board({13: 1}, {18: 2, 23: 2})
    (only,) = legal_plays(b, 6, 5)
    assert only.steps == ((13, 8),)


def test_larger_die_rule():
    # Either die alone can be played, not both (13/2 is blocked): the 6 must be.
    b = board({13: 1}, {23: 2})
    (only,) = legal_plays(b, 6, 5)
    assert only.steps == ((13, 7),) and only.notation == "13/7"
    assert find_play(b, 6, 5, [(13, 8)]) is None
    # Neither die can be played (the mover's 7 and 8 are blocked).
    assert legal_plays(board({13: 1}, {18: 2, 17: 2}), 6, 5) == []


def test_both_dice_when_one_order_allows_it():
    # 13/7 is blocked but 13/8/2 is open: both dice must be played.
    b = board({13: 1}, {18: 2})
    (only,) = legal_plays(b, 6, 5)
    assert only.steps == ((13, 8), (8, 2)) and only.notation == "13/2"


def test_bear_off_rules():
    # A die larger than the highest point bears off from the highest point.
    b = board({4: 1, 2: 1}, {})
    (only,) = legal_plays(b, 6, 5)
    assert only.notation == "4/off 2/off" and only.result.checkers_off()[0] == 15
    # With a checker above, a larger die may not bear off a lower checker.
    b = board({6: 1, 2: 1}, {})
    assert notations(b, 5, 4) == {"6/1 2/off", "6/off"}
    # Not all home: a checker must come home before bearing off.
    b = board({7: 1, 2: 1}, {})
    assert notations(b, 6, 1) == {"7/1 2/1", "7/off"}
    assert find_play(b, 6, 1, [(2, 0), (7, 1)]) is None
    # Exact bear-off with one die, higher-die rule with the other.
    b = board({5: 2, 1: 1}, {})
    assert notations(b, 6, 5) == {"5/off(2)"}


def test_doubles_partly_playable():
    # 20/17/14 then 14/11 is blocked; the checker on 24 is stuck (21 blocked).
    b = board({20: 1, 24: 1}, {14: 2, 4: 2})
    (only,) = legal_plays(b, 3, 3)
    assert only.steps == ((20, 17), (17, 14)) and only.notation == "20/14"
    # Three of four: bar/19/13/7, then 7/1 is blocked and 7 is not home.
    b = board({25: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 24: 2})
    (only,) = legal_plays(b, 6, 6)
    assert only.steps == ((25, 19), (19, 13), (13, 7)) and only.notation == "bar/7"
    # One of four: 13/12, then the mover's 11 is blocked.
    b = board({13: 1}, {14: 2})
    assert [p.steps for p in legal_plays(b, 1, 1)] == [((13, 12),)]


def test_hits_and_notation():
    b = board({13: 2, 6: 2}, {16: 1, 10: 2})  # blot on the mover's 9
    assert notations(b, 4, 2) == {
        "13/11 13/9*", "13/9*/7", "13/9* 6/4", "13/11 6/2", "6/4 6/2", "13/7",
    }
    hit_through = find_play(b, 4, 2, [(13, 9), (9, 7)])
    assert hit_through.notation == "13/9*/7" and hit_through.hits == (9,)
    assert find_play(b, 4, 2, [(13, 11), (11, 7)]).notation == "13/7"
    assert find_play(b, 4, 2, [(13, 11), (11, 7)]).hits == ()
    # Entering with a hit; two checkers landing on one hit point get one star.
    b = board({25: 1, 8: 1, 6: 1}, {3: 1})  # blot on the mover's 22
    assert {"bar/22*/21", "bar/22* 8/7", "bar/21"} <= notations(b, 3, 1)
    b = board({8: 1, 6: 1}, {20: 1})  # blot on the mover's 5
    assert "8/5* 6/5" in notations(b, 3, 1)
    assert format_move(Board.initial(), [(8, 6), (6, 3)]) == "8/3"


def test_find_play_same_result_any_path():
    b = Board.initial()
    a = find_play(b, 3, 2, [(8, 6), (6, 3)])
    c = find_play(b, 3, 2, [(8, 5), (5, 3)])
    assert a is not None and a == c and a.notation == "8/3"
    assert find_play(b, 3, 2, [(6, 3), (8, 6)]) == a  # given out of order
    assert find_play(b, 3, 2, [(8, 5)]) is None  # must use both dice
    assert find_play(b, 3, 2, [(7, 4), (6, 4)]) is None  # no checker on 7
    assert find_play(b, 3, 2, [(8, 4)]) is None  # not a single step


def test_legal_plays_distinct_and_cached():
    b = Board.initial()
    plays = legal_plays(b, 1, 1)
    assert len({p.result for p in plays}) == len(plays)
    plays.clear()  # callers get their own list
    assert count_legal_plays(b, 1, 1) == len(legal_plays(b, 1, 1)) > 0
    assert legal_plays(b, 5, 3)[0] is legal_plays(b, 3, 5)[0]
    with pytest.raises(ValueError):
        legal_plays(b, 0, 3)
    with pytest.raises(ValueError):
        legal_plays(b, 7, 3)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

def test_parse_sgf_move():
    assert parse_sgf_move("21fddc", 0) == (2, 1, ((6, 4), (4, 3)))
    assert parse_sgf_move("41ablp", 1) == (4, 1, ((24, 23), (13, 9)))
    assert parse_sgf_move("41lpab", 1) == (4, 1, ((13, 9), (24, 23)))
    assert parse_sgf_move("31yxxu", 0) == (3, 1, ((25, 24), (24, 21)))
    assert parse_sgf_move("31yaxu", 1) == (3, 1, ((25, 24), (1, 4)))
    assert parse_sgf_move("65fzez", 0) == (6, 5, ((6, 0), (5, 0)))
    assert parse_sgf_move("65szrz", 1) == (6, 5, ((6, 0), (7, 0)))
    assert parse_sgf_move("52", 0) == (5, 2, ())
    assert parse_sgf_move("66djdjjpjp", 1) == (6, 6, ((21, 15), (21, 15), (15, 9), (15, 9)))
    for bad in ("double", "take", "", "7", "71ab", "21abc", "21a!"):
        with pytest.raises(ValueError):
            parse_sgf_move(bad, 0)
    with pytest.raises(ValueError):
        parse_sgf_move("21ab", 2)


def test_parse_move_notation():
    b = Board.initial()
    assert parse_move_notation(b, 6, 6, "13/7(2) 24/18(2)").notation == "24/18(2) 13/7(2)"
    assert parse_move_notation(b, 2, 1, "24/23 13/11").steps in (
        ((24, 23), (13, 11)), ((13, 11), (24, 23)))
    assert parse_move_notation(b, 3, 2, "8/3") == find_play(b, 3, 2, [(8, 5), (5, 3)])
    assert parse_move_notation(b, 3, 2, "8/5 6/3") is None  # two 3s
    assert parse_move_notation(b, 6, 5, "24/13") is not None
    assert parse_move_notation(b, 6, 5, "Bar/20") is None
    assert parse_move_notation(b, 6, 5, "13/2").steps == ((13, 7), (7, 2))
    assert parse_move_notation(b, 6, 5, "24/14") is None  # not a legal play
    assert parse_move_notation(b, 6, 5, "") is None
    hit = board({13: 2, 6: 2}, {16: 1, 10: 2})
    assert parse_move_notation(hit, 4, 2, "13/9*/7").hits == (9,)
    assert parse_move_notation(hit, 4, 2, "13/7").hits == ()
    assert parse_move_notation(hit, 4, 2, "13/9*/7") != parse_move_notation(hit, 4, 2, "13/7")
    assert parse_move_notation(hit, 4, 2, "13/9* 9/7") == parse_move_notation(hit, 4, 2, "13/9*/7")
    bar = board({25: 1, 8: 1}, {})
    assert parse_move_notation(bar, 5, 3, "bar/20 8/5").steps[0] == (25, 20)
    assert parse_move_notation(bar, 5, 3, "25/20 8/5") is not None
    off = board({6: 1, 3: 1}, {})
    assert parse_move_notation(off, 6, 3, "6/off 3/off").result.checkers_off()[0] == 15
    with pytest.raises(ValueError):
        parse_move_notation(b, 3, 1, "8/5 6/x")
    with pytest.raises(ValueError):
        parse_move_notation(b, 3, 1, "8")


# ---------------------------------------------------------------------------
# Real gnubg matches
# ---------------------------------------------------------------------------

DUMP = r'''
import gnubg, json
gnubg.command('load match "%s"')
m = gnubg.match(analysis=1, boards=1)
games = []
for g in m['games']:
    recs = []
    for r in g['game']:
        d = {'action': r['action'], 'player': r.get('player')}
        if 'board' in r:
            d['board'] = r['board']
        if r['action'] == 'move':
            d['dice'] = r['dice']
            d['move'] = r['move']
            cands = [c['move'] for c in r.get('analysis', {}).get('moves', ())]
            b = gnubg.positionfromid(r['board'])
            d['cands'] = cands
            d['gnubg_board'] = b
            d['notes'] = [gnubg.movetupletostring(c, b) for c in cands]
        recs.append(d)
    games.append(recs)
print('JSON' + json.dumps(games))
'''

MATCHES = [(1, 7), (2, 7), (3, 0)]  # two 7-point matches and a money session


@pytest.fixture(scope="module", params=MATCHES, ids=lambda p: f"m{p[0]}-{p[1]}")
def real_match(request, selfplay):
    sgf = Path(selfplay(*request.param))
    proc = run_python(DUMP % str(sgf).replace("\\", "/"), timeout=300)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("JSON")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    games = json.loads(lines[-1][4:])
    assert games and all(g for g in games)
    return sgf, games


def _move_records(game):
    return [r for r in game if r["action"] == "move"]


def _tuple_steps(move):
    return tuple(tuple(s) for s in move)


@needs_gnubg
@pytest.mark.gnubg
def test_replay_matches_gnubg_position_ids(real_match):
    """(b) Replaying the played moves gives gnubg's `board` before every move
    (and before every double), from the mover's side."""
    _, games = real_match
    checked = 0
    for game in games:
        b = Board.initial()
        last = None
        for rec in game:
            if rec["action"] == "double":
                assert rec["board"] == b.position_id()
            if rec["action"] != "move":
                continue
            assert rec["player"] != last
            last = rec["player"]
            assert b.position_id() == rec["board"]
            assert Board.from_position_id(rec["board"]) == b
            assert Board.from_gnubg(rec["gnubg_board"]) == b
            b = apply_steps(b, _tuple_steps(rec["move"])).swapped()
            checked += 1
    assert checked > 50


@needs_gnubg
@pytest.mark.gnubg
def test_counts_and_candidates_match_gnubg(real_match):
    """(a) count_legal_plays == len(analysis['moves']); (c) every candidate is
    found, distinct candidates give distinct results; the played move is one
    of them; gnubg's notation is reproduced and parsed back."""
    _, games = real_match
    positions = 0
    for game in games:
        for rec in _move_records(game):
            b = Board.from_position_id(rec["board"])
            d1, d2 = rec["dice"]
            move = _tuple_steps(rec["move"])
            if not move:  # a dance: gnubg lists no candidates
                assert rec["cands"] == []
                assert count_legal_plays(b, d1, d2) == 0
                continue
            positions += 1
            assert count_legal_plays(b, d1, d2) == len(rec["cands"]), rec["board"]
            found = []
            for cand, note in zip(rec["cands"], rec["notes"]):
                play = find_play(b, d1, d2, _tuple_steps(cand))
                assert play is not None, (rec["board"], rec["dice"], cand)
                assert format_move(b, _tuple_steps(cand)) == note
                assert parse_move_notation(b, d1, d2, note) == play, (rec["board"], note)
                found.append(play.result)
            assert len(set(found)) == len(found)
            played = find_play(b, d1, d2, move)
            assert played is not None and played.result in found
    assert positions > 50


SGF_MOVE = re.compile(r";\s*([WB])\[((?:[^\]\\]|\\.)*)\]")


def sgf_move_values(text: str):
    """Per game, the (colour, value) of each W/B node of a gnubg SGF file."""
    return [SGF_MOVE.findall(";" + tree) for tree in text.split("(;")[1:]]


@needs_gnubg
@pytest.mark.gnubg
def test_replay_sgf_letters(real_match):
    """(d) Replaying the SGF file's move letters gives gnubg's position IDs
    and exactly gnubg's move tuples (proves the letter mapping)."""
    sgf, games = real_match
    sgf_games = sgf_move_values(sgf.read_text(encoding="utf-8"))
    assert len(sgf_games) == len(games)
    for values, game in zip(sgf_games, games):
        moves = [(c, v) for c, v in values if v[:1].isdigit()]
        records = _move_records(game)
        assert len(moves) == len(records)
        b = Board.initial()
        for (colour, value), rec in zip(moves, records):
            assert {"W": "X", "B": "O"}[colour] == rec["player"]
            d1, d2, steps = parse_sgf_move(value, 0 if colour == "W" else 1)
            assert sorted((d1, d2)) == sorted(rec["dice"])
            assert steps == _tuple_steps(rec["move"])
            assert b.position_id() == rec["board"]
            assert find_play(b, d1, d2, steps) is not None or steps == ()
            b = apply_steps(b, steps).swapped()
