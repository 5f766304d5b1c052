"""Match IDs, XGIDs and eXtreme Gammon position/move arrays
(gnubg_blunder/board/ids.py), checked against the real gnubg 1.07, real XGIDs
published by eXtreme Gammon users and XG's sample files."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path

import pytest

from conftest import DATA, needs_gnubg, random_boards, side
from gnubg_blunder.board import Board, find_play, parse_move_notation
from gnubg_blunder.board.ids import (
    XGID,
    GameState,
    MatchState,
    board_from_xg,
    match_id,
    parse_xgid,
    play_from_xg_move,
    steps_from_xg_move,
    xg_from_board,
)
from gnubg_blunder.gnubg.process import run_python


def _key(mid: str) -> int:
    return int.from_bytes(base64.b64decode(mid), "little")


def random_states(seed: int, n: int) -> list:
    """Valid match states of every kind (money and match, any cube, any dice)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        length = rng.choice([0, 0, 1, 3, 5, 7, 11, 15, 25, 99, 32767])
        dice = (0, 0) if rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
        on_roll = rng.randint(0, 1)
        out.append(
            MatchState(
                cube=1 << rng.randint(0, 15),
                cube_owner=rng.choice([-1, 0, 1]),
                on_roll=on_roll,
                turn=rng.choice([on_roll, 1 - on_roll]),
                crawford=bool(length) and rng.random() < 0.2,
                game_state=rng.randint(0, 4),
                doubled=rng.random() < 0.2,
                resigned=rng.randint(0, 3),
                dice=dice,
                match_length=length,
                score=(rng.randint(0, length or 500), rng.randint(0, length or 500)),
                jacoby=rng.random() < 0.5,
            )
        )
    return out


# ---------------------------------------------------------------------------
# gnubg match IDs (pure)
# ---------------------------------------------------------------------------

def test_match_id_bit_layout():
    """Each field where gnubg's manual puts it (bit n of the manual = bit
    n-1 here), least significant bit first; bit 66 = 'no Jacoby'."""
    base = MatchState(cube_owner=0, game_state=GameState.NONE, jacoby=True)
    assert _key(match_id(base)) == 0
    cases = [
        (dict(cube=8), 3 << 0),
        (dict(cube=32768), 15 << 0),
        (dict(cube_owner=1), 1 << 4),
        (dict(cube_owner=-1), 3 << 4),
        (dict(on_roll=1, turn=0), 1 << 6),
        (dict(crawford=True, match_length=1), 1 << 7 | 1 << 21),
        (dict(game_state=GameState.DROPPED), 4 << 8),
        (dict(turn=1), 1 << 11),
        (dict(doubled=True), 1 << 12),
        (dict(resigned=3), 3 << 13),
        (dict(dice=(5, 2)), 5 << 15 | 2 << 18),
        (dict(match_length=32767), 32767 << 21),
        (dict(score=(32767, 0)), 32767 << 36),
        (dict(score=(0, 32767)), 32767 << 51),
        (dict(jacoby=False), 1 << 66),
    ]
    for change, bits in cases:
        fields = {**base.__dict__, **change}
        if "on_roll" not in change and "turn" not in change:
            fields["turn"] = 0
        state = MatchState(**fields)
        assert _key(state.match_id()) == bits, change
        assert MatchState.from_match_id(state.match_id()) == state


def test_match_id_known_values():
    """IDs gnubg 1.07 printed for these states (and the opening of a
    7-point match, 'cAn3AAAAAAAE': player 1 on roll with 6-5)."""
    assert match_id(MatchState(on_roll=1, dice=(6, 5), match_length=7)) == "cAn3AAAAAAAE"
    assert match_id(MatchState(on_roll=1, dice=(5, 3), jacoby=True)) == "cIkOAAAAAAAA"
    doubled = MatchState(on_roll=1, turn=0, doubled=True, jacoby=True)
    assert match_id(doubled) == "cBEAAAAAAAAA"
    resign = MatchState(cube=2, cube_owner=0, on_roll=1, turn=0, resigned=2, dice=(1, 1), jacoby=True)
    assert match_id(resign) == "QcEEAAAAAAAA"
    big = MatchState(cube=16, dice=(3, 1), match_length=25, score=(23, 24))
    assert match_id(big) == "NIElA3ABwAAE"
    assert MatchState.from_match_id("NIElA3ABwAAE") == big


def test_match_id_round_trip():
    for state in random_states(1, 3000):
        mid = match_id(state)
        assert len(mid) == 12
        assert MatchState.from_match_id(mid) == state
        assert MatchState.from_match_id(mid).match_id() == mid


def test_match_state_defaults_and_normalisation():
    s = MatchState()
    assert (s.cube, s.cube_owner, s.on_roll, s.turn, s.game_state, s.dice, s.score) == (
        1, -1, 0, 0, GameState.PLAYING, (0, 0), (0, 0))
    assert MatchState(on_roll=1).turn == 1
    assert MatchState(dice=(2, 5)).dice == (5, 2)  # gnubg writes the larger die first
    assert MatchState.from_match_id(MatchState(dice=(2, 5)).match_id()).dice == (5, 2)
    assert MatchState(doubled=1).doubled is True
    assert hash(MatchState()) == hash(MatchState(turn=0))
    swapped = MatchState(cube=2, cube_owner=0, on_roll=1, turn=0, score=(3, 5), match_length=7).swapped_players()
    assert (swapped.cube_owner, swapped.on_roll, swapped.turn, swapped.score) == (1, 0, 1, (5, 3))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(cube=3), dict(cube=0), dict(cube=1 << 16), dict(cube_owner=2), dict(on_roll=2), dict(turn=-1),
        dict(game_state=5), dict(resigned=4), dict(dice=(0, 3)), dict(dice=(7, 1)), dict(dice=(1,)),
        dict(match_length=-1), dict(match_length=1 << 15), dict(score=(1, -1)), dict(score=(1 << 15, 0)),
        dict(crawford=True), dict(cube=2.0), dict(on_roll=True),
    ],
)
def test_match_state_rejects(kwargs):
    with pytest.raises(ValueError):
        MatchState(**kwargs)


@pytest.mark.parametrize("mid", ["", "cAn3AAAAAAA", "cAn3AAAAAAAEA", "cAn3AAAAAAA=", "cAn3AAAAAA!E", 12])
def test_from_match_id_rejects_malformed(mid):
    with pytest.raises(ValueError):
        MatchState.from_match_id(mid)


def test_from_match_id_rejects_values_gnubg_never_writes():
    ok = _key(match_id(MatchState(jacoby=True)))
    for bad in (
        ok & ~(3 << 4) | 2 << 4,  # cube owner bits 10
        ok & ~(7 << 8) | 5 << 8,  # game state 5
        ok | 7 << 15 | 1 << 18,  # a die of 7
        ok | 3 << 15,  # one die rolled, not the other
        ok | 1 << 7,  # Crawford game in money play
    ):
        text = base64.b64encode(bad.to_bytes(9, "little")).decode()
        with pytest.raises(ValueError):
            MatchState.from_match_id(text)
    # the five bits after gnubg's 67 are ignored, as gnubg ignores them
    text = base64.b64encode((ok | 1 << 70).to_bytes(9, "little")).decode()
    assert MatchState.from_match_id(text) == MatchState(jacoby=True)


# ---------------------------------------------------------------------------
# XGIDs (pure): real ones published with eXtreme Gammon's own text export
# ---------------------------------------------------------------------------

# (xgid, page, facts printed beside it: bottom score, top score, bottom pips,
#  top pips, match length, cube value, cube owner (XG: 1 bottom, -1 top,
#  0 centred), player on roll (1 bottom, -1 top), dice)
REAL_XGIDS = [
    # http://usbgf.org/category/olm/match-07/  (USBGF OLM 2018-01-20, cube action)
    ("XGID=--aaB-C-C-ABdB---bbe---AA-:0:0:1:00:6:9:0:11:10", 6, 9, 155, 157, 11, 1, 0, 1, (0, 0)),
    # http://usbgf.org/category/olm/match-07/  (the same position, 54 to play)
    ("XGID=--aaB-C-C-ABdB---bbe---AA-:0:0:1:54:6:9:0:11:10", 6, 9, 155, 157, 11, 1, 0, 1, (5, 4)),
    # http://usbgf.org/category/olm/match-07/  (OLM 2018-01-19, 31 to play)
    ("XGID=-a--B-C-C-aBdC---bbe----B-:0:0:1:31:6:9:0:11:10", 6, 9, 159, 151, 11, 1, 0, 1, (3, 1)),
    # http://usbgf.org/category/olm/page/2/  (OLM 2017-10-10, 61 to play)
    ("XGID=----ABD-C--beC---bBbb-b---:0:0:1:61:3:2:0:11:10", 3, 2, 137, 137, 11, 1, 0, 1, (6, 1)),
    # http://bigmoneybill.blogspot.com/2012/03/cleveland.html  (bottom on roll, owns a 2-cube)
    ("XGID=---ABBA------------bbaa---:1:1:1:00:4:3:0:9:10", 4, 3, 27, 29, 9, 2, 1, 1, (0, 0)),
    # http://bigmoneybill.blogspot.com/2012/03/cleveland.html  (top on roll, owns the 4-cube)
    ("XGID=----AA--------------aa-a--:2:-1:-1:00:4:3:0:9:10", 4, 3, 9, 11, 9, 4, -1, -1, (0, 0)),
    # https://groups.google.com/g/rec.games.backgammon/c/9W8xJucvIKA  (X = bottom 4, O = top 0)
    ("XGID=-ABBBBBa-----Ba----cBb--h-:0:0:1:00:4:0:0:7:10", 4, 0, 107, 63, 7, 1, 0, 1, (0, 0)),
]


@pytest.mark.parametrize("row", REAL_XGIDS, ids=lambda r: r[0][5:31])
def test_real_xgids(row):
    text, s_bottom, s_top, pip_bottom, pip_top, length, cube, owner, turn, dice = row
    x = parse_xgid(text)
    assert str(x) == text
    assert (x.score_bottom, x.score_top, x.match_length, x.cube, x.cube_owner, x.turn, x.dice) == (
        s_bottom, s_top, length, cube, owner, turn, dice)
    assert Board(x.bottom, x.top).pip_counts() == (pip_bottom, pip_top)
    board = x.board()
    assert board.on_roll == (x.bottom if turn == 1 else x.top)
    state = x.match_state()
    assert state.score == (s_top, s_bottom)  # gnubg: top = player 0, bottom = player 1
    assert state.on_roll == (1 if turn == 1 else 0) == state.turn
    assert state.cube == cube and state.cube_owner == {0: -1, 1: 1, -1: 0}[owner]
    assert state.dice == tuple(sorted(dice, reverse=True)) and not state.doubled
    assert XGID.from_board(board, state) == x


def test_real_xgid_plays_read_in_the_right_direction():
    """The plays voted on those pages are legal from the decoded boards."""
    x = parse_xgid(REAL_XGIDS[3][0])  # 61 to play: "13/7 6/5" won the vote
    assert parse_move_notation(x.board(), 6, 1, "13/7 6/5") is not None
    x = parse_xgid(REAL_XGIDS[2][0])  # 31 to play: "24/23 13/10*", a hit on the 10-point
    play = parse_move_notation(x.board(), 3, 1, "24/23 13/10*")
    assert play is not None and play.hits == (10,)


def test_xgid_initial_position_and_layout():
    x = XGID(bottom=Board.initial().on_roll, top=Board.initial().opponent)
    assert str(x) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    # bars: character 0 = the top (lower-case) player's, 25 = the bottom's
    bar = XGID(bottom=side({25: 1, 6: 2}), top=side({25: 3, 24: 1}), turn=-1)
    assert bar.position[0] == "c" and bar.position[25] == "A" and bar.position[1] == "a"
    assert bar.position[6] == "B"
    assert parse_xgid(str(bar)) == bar
    assert bar.board() == Board(side({25: 3, 24: 1}), side({25: 1, 6: 2}))


def test_xgid_fields():
    x = parse_xgid("XGID=-b----E-C---eE---c-e----B-:3:-1:-1:D:2:4:1:7:8")
    assert (x.cube, x.cube_owner, x.turn, x.doubled, x.dice) == (8, -1, -1, True, (0, 0))
    assert (x.crawford, x.jacoby, x.beaver, x.match_length, x.max_cube) == (True, False, False, 7, 256)
    s = x.match_state()
    assert (s.on_roll, s.turn, s.doubled, s.cube_owner, s.score, s.crawford) == (0, 1, True, 0, (4, 2), True)
    assert str(XGID.from_board(x.board(), s, max_cube=256)) == str(x)
    money = parse_xgid("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10")  # no prefix
    assert (money.jacoby, money.beaver, money.match_state().jacoby) == (True, True, True)
    assert str(parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:10")).endswith(":2:0:10")
    assert parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0").max_cube == 1024


def test_xgid_round_trip_random():
    boards = random_boards(7, 400)
    rng = random.Random(8)
    for board in boards:
        length = rng.choice([0, 5, 7, 11, 25])
        on_roll = rng.randint(0, 1)
        doubled = rng.random() < 0.2
        state = MatchState(
            cube=1 << rng.randint(0, 6),
            cube_owner=rng.choice([-1, 0, 1]),
            on_roll=on_roll,
            turn=1 - on_roll if doubled else on_roll,
            crawford=bool(length) and rng.random() < 0.3,
            doubled=doubled,
            dice=(0, 0) if doubled or rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6)),
            match_length=length,
            score=(rng.randint(0, max(length - 1, 0) or 20), rng.randint(0, max(length - 1, 0) or 20)),
            jacoby=not length and rng.random() < 0.5,
        )
        x = XGID.from_board(board, state, beaver=not length and rng.random() < 0.5)
        back = parse_xgid(str(x))
        assert back == x
        assert back.board() == board
        assert back.match_state() == state


@pytest.mark.parametrize(
    "text",
    [
        "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10",  # 25 characters
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10:1",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0",
        "XGID=xb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
        "XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # bottom checker on the top bar
        "XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10",  # top checker on the bottom bar
        "XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10",  # 30 checkers for bottom
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10",  # beaver: not supported
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10",  # money rules in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10",
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:0:10",
        None,
    ],
)
def test_xgid_rejects(text):
    with pytest.raises(ValueError):
        parse_xgid(text)


def test_xgid_from_board_rejects_states_it_cannot_hold():
    b = Board.initial()
    for state in (
        MatchState(game_state=GameState.OVER),
        MatchState(resigned=1, turn=1),
        MatchState(on_roll=0, turn=1),  # someone to act who is neither on roll nor answering a double
    ):
        with pytest.raises(ValueError):
            XGID.from_board(b, state)


# ---------------------------------------------------------------------------
# gnubg itself: match IDs of real matches and of states made by commands,
# and gnubg's own XGID reader (`set xgid`)
# ---------------------------------------------------------------------------

PROBE = r'''
import gnubg, json, re
SGFS = %(sgfs)r
XGIDS = %(xgids)r
SCRIPT = %(script)r
rows = []
def snap(tag):
    ci = gnubg.cubeinfo(); pi = gnubg.posinfo()
    # the match ID's score is gnubg's anScore; cubeinfo() zeroes it in money play
    m = re.search(r'is: .*? (\d+), .*? (\d+) \(', gnubg.show('score'))
    rows.append(dict(tag=tag, mid=gnubg.matchid(), cube=ci['cube'], owner=ci['cubeowner'], move=ci['move'],
        matchto=ci['matchto'], score=[int(m.group(1)), int(m.group(2))], ci_score=list(ci['score']),
        crawford=ci['crawford'], jacoby=ci['jacoby'], dice=list(pi['dice']), turn=pi['turn'],
        resigned=pi['resigned'], doubled=pi['doubled'], gamestate=pi['gamestate']))
for c in ('set player 0 human', 'set player 1 human', 'set automatic roll off',
          'set automatic game off', 'set confirm new off', 'set display off'):
    gnubg.command(c)
for sgf in SGFS:
    gnubg.command('load match "%%s"' %% sgf)
    gnubg.navigate()
    while True:
        snap('nav ' + sgf.rsplit('/', 1)[-1])
        if gnubg.navigate(next=1) is not None and gnubg.navigate(game=1) is not None:
            break
for c in SCRIPT:
    gnubg.command(c)
    snap('cmd ' + c)
xg = []
for x in XGIDS:
    gnubg.command('set xgid ' + x)
    xg.append(dict(xgid=x, mid=gnubg.matchid(), pid=gnubg.positionid(), board=gnubg.board()))
print('JSON' + json.dumps(dict(rows=rows, xgids=xg)))
'''

_BEAR_OFF = Board(side({1: 1}), side({6: 5})).position_id()

# States made by gnubg's own commands (players both human, nothing automatic).
SCRIPT = [
    "new match 15", "set score 10 13", "set cube value 8", "set cube owner 0", "set cube owner 1",
    "set cube centre", "set turn 0", "set dice 5 2", "set turn 1", "set dice 6 6",
    "set score 14 3", "set crawford on", "set dice 4 1", "set crawford off", "set turn 0", "set dice 2 2",
    "new match 25", "set score 20 17", "set turn 1", "double", "take", "set turn 0", "double", "drop",
    "new match 25", "set score 24 22", "set crawford on", "set dice 3 5",
    "new session", "set turn 1", "double", "take", "set turn 0", "double", "take", "roll",
    "resign gammon", "reject", "new game", "resign normal", "reject",
    "set turn 0", "resign backgammon", "reject", "roll", "set turn 1", "double", "drop",
    "new game", "set turn 1", f"set board {_BEAR_OFF}", "set dice 2 1", "move 1/off",
    "set jacoby off", "new session", "set turn 0", "set dice 6 1", "set jacoby on",
]

# Money XGIDs with and without Jacoby/beavers, match XGIDs with the Crawford
# flag, either player on roll, dice or not (no 'D': see the test below).
def _probe_xgids() -> list:
    rng = random.Random(3)
    out = [row[0] for row in REAL_XGIDS]
    for i, board in enumerate(random_boards(11, 40)[::2]):
        length = [0, 0, 3, 7, 11, 25][i % 6]
        on_roll = rng.randint(0, 1)
        score = [rng.randint(0, max(length - 2, 0)), rng.randint(0, max(length - 2, 0))]
        crawford = bool(length) and i % 4 == 2
        if crawford:
            score[rng.randint(0, 1)] = length - 1
        state = MatchState(
            cube=1 if crawford else 1 << rng.randint(0, 3),
            cube_owner=-1 if crawford else rng.choice([-1, 0, 1]),
            on_roll=on_roll,
            crawford=crawford,
            dice=(0, 0) if i % 3 == 0 else (rng.randint(1, 6), rng.randint(1, 6)),
            match_length=length,
            score=tuple(score) if length else (0, 0),
            jacoby=not length and i % 2 == 0,
        )
        out.append(str(XGID.from_board(board, state, beaver=not length and i % 4 == 0)))
    return out


DOUBLED_XGIDS = [
    "XGID=----AA--------------aa-a--:2:-1:1:D:4:3:0:9:10",
    "XGID=--aaB-C-C-ABdB---bbe---AA-:0:0:1:D:6:9:0:11:10",
]


@pytest.fixture(scope="module")
def gnubg_probe(committed_selfplay):
    # committed: the states covered below (a resigned game, a cube of 16) are those of these matches
    sgfs = [str(Path(committed_selfplay(*m)).resolve()) for m in ((1, 7), (3, 0), (26, 11))]
    src = PROBE % dict(sgfs=sgfs, xgids=_probe_xgids() + DOUBLED_XGIDS, script=SCRIPT)
    proc = run_python(src, timeout=300)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("JSON")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(lines[-1][4:])


def _state(r: dict) -> MatchState:
    """The state gnubg reports through cubeinfo(), posinfo() and `show score`."""
    return MatchState(
        cube=r["cube"], cube_owner=r["owner"], on_roll=r["move"], turn=r["turn"], crawford=r["crawford"],
        game_state=r["gamestate"], doubled=r["doubled"], resigned=r["resigned"], dice=tuple(r["dice"]),
        match_length=r["matchto"], score=tuple(r["score"]), jacoby=r["jacoby"],
    )


@needs_gnubg
@pytest.mark.gnubg
def test_match_ids_equal_gnubg(gnubg_probe):
    rows = gnubg_probe["rows"]
    assert len(rows) > 250
    for r in rows:
        state = _state(r)
        assert state.match_id() == r["mid"], r
        assert MatchState.from_match_id(r["mid"]) == state, r
        if r["matchto"]:
            assert r["score"] == r["ci_score"]


@needs_gnubg
@pytest.mark.gnubg
def test_match_id_states_cover_every_kind(gnubg_probe):
    states = [_state(r) for r in gnubg_probe["rows"]]
    lengths = {s.match_length for s in states}
    assert {0, 7, 11, 15, 25} <= lengths
    assert any(s.crawford for s in states)
    assert any(  # post-Crawford: a player one away, Crawford game over
        s.match_length and not s.crawford and s.match_length - 1 in s.score and s.cube == 1 for s in states)
    assert any(s.doubled and s.match_length for s in states) and any(s.doubled and not s.match_length for s in states)
    assert any(s.dice != (0, 0) for s in states) and any(s.dice == (0, 0) for s in states)
    assert {-1, 0, 1} <= {s.cube_owner for s in states}
    assert {GameState.PLAYING, GameState.OVER, GameState.RESIGNED, GameState.DROPPED} <= {s.game_state for s in states}
    assert {1, 2, 3} <= {s.resigned for s in states}
    assert max(max(s.score) for s in states) >= 24 and max(s.cube for s in states) >= 16
    assert {True, False} <= {s.jacoby for s in states if not s.match_length}
    assert any(s.turn != s.on_roll for s in states)


@needs_gnubg
@pytest.mark.gnubg
def test_xgid_read_like_gnubg(gnubg_probe):
    """gnubg's `set xgid` gives our board and match state.  When the top
    player is on roll gnubg swaps the players so that the player on roll is
    at the bottom (player 1): its state is then ours with players swapped."""
    checked = 0
    for r in gnubg_probe["xgids"]:
        if r["xgid"] in DOUBLED_XGIDS:
            continue
        x = parse_xgid(r["xgid"])
        assert r["pid"] == x.board().position_id(), r
        assert Board.from_gnubg(r["board"]) == x.board(), r
        state = x.match_state()
        expected = state if x.turn == 1 else state.swapped_players()
        assert r["mid"] == expected.match_id(), (r, expected, MatchState.from_match_id(r["mid"]))
        checked += 1
    assert checked == len(REAL_XGIDS) + 20


@needs_gnubg
@pytest.mark.gnubg
def test_xgid_double_gnubg_keeps_no_double(gnubg_probe):
    """gnubg 1.07 reads 'D' (turn = the doubler) but its state afterwards has
    no double pending: everything else is as we read it."""
    for r in gnubg_probe["xgids"]:
        if r["xgid"] not in DOUBLED_XGIDS:
            continue
        x = parse_xgid(r["xgid"])
        ours = x.match_state()
        assert ours.doubled and ours.turn != ours.on_roll
        got = MatchState.from_match_id(r["mid"])
        assert got == MatchState(**{**ours.__dict__, "doubled": False, "turn": ours.on_roll})
        assert Board.from_gnubg(r["board"]) == x.board()


# ---------------------------------------------------------------------------
# XG position and move arrays
# ---------------------------------------------------------------------------

# HeaderGame.PosInit of XG's sample files: player 1's orientation.
XG_INITIAL = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)


def test_board_from_xg_initial():
    assert board_from_xg(XG_INITIAL) == Board.initial()
    assert board_from_xg(XG_INITIAL, -1) == Board.initial()
    assert xg_from_board(Board.initial()) == XG_INITIAL


def test_board_from_xg_signs_and_bars():
    # positive player: 2 on its bar (25), 3 on its 6-point; negative player:
    # 1 on its bar (index 0), 2 on its 24-point (index 1), 4 on its 5-point (index 20)
    arr = [0] * 26
    arr[25], arr[6], arr[0], arr[1], arr[20] = 2, 3, -1, -2, -4
    plus, minus = side({25: 2, 6: 3}), side({25: 1, 24: 2, 5: 4})
    assert board_from_xg(arr) == Board(plus, minus)
    assert board_from_xg(arr, -1) == Board(minus, plus)
    assert xg_from_board(Board(plus, minus)) == tuple(arr)
    assert xg_from_board(Board(minus, plus), -1) == tuple(arr)
    for bad in ([0] * 25, [1] + [0] * 25, [0] * 25 + [-1], [0.0] * 26):
        with pytest.raises(ValueError):
            board_from_xg(bad)
    with pytest.raises(ValueError):
        board_from_xg(arr, 0)
    with pytest.raises(ValueError):  # 16 checkers
        board_from_xg([0, 0, 0, 0, 0, 0, 16] + [0] * 19)


def test_xg_arrays_round_trip():
    for board in random_boards(5, 500):
        for on_roll in (1, -1):
            assert board_from_xg(xg_from_board(board, on_roll), on_roll) == board


def test_steps_from_xg_move():
    assert steps_from_xg_move((12, 8, 23, 22, -1, -1, -1, -1)) == ((13, 9), (24, 23))
    assert steps_from_xg_move((24, 18, 5, 4, -1, -1, -1, -1)) == ((25, 19), (6, 5))  # bar = 24
    assert steps_from_xg_move((1, -1, 1, -2, -1, -1, -1, -1)) == ((2, 0), (2, 0))  # off = to <= -1
    assert steps_from_xg_move((5, -1, 5, -1, 4, -2, 3, -3)) == ((6, 0), (6, 0), (5, 0), (4, 0))
    assert steps_from_xg_move((23, 13, -1, -1, -1, -1, -1, -1)) == ((24, 14),)  # one checker, both dice
    assert steps_from_xg_move((24, 15, -1, -1, -1, -1, -1, -1)) == ((25, 16),)
    assert steps_from_xg_move((-1,) * 8) == ()  # dance
    assert steps_from_xg_move((0,) * 8) is None  # no move written
    for bad in ((12, 12, -1, -1), (3, 5, -1, -1), (25, 20, -1, -1), (1, 2, 3), (), (23, -1) * 5, (1.0, 0.0)):
        with pytest.raises(ValueError):
            steps_from_xg_move(bad)


def test_play_from_xg_move_resolves_paths_and_hits():
    b = Board.initial()
    play = play_from_xg_move(b, 6, 4, (23, 13, -1, -1, -1, -1, -1, -1))  # 24/14
    assert play.notation == "24/14" and play.result.on_roll == side({14: 1, 24: 1, 13: 5, 8: 3, 6: 5})
    assert find_play(b, 6, 4, steps_from_xg_move((23, 13, -1, -1))) is None  # not single-die steps
    assert find_play(b, 6, 4, play.steps) == play
    # a blot on the mover's 18-point (the opponent's 7): one pair passes it,
    # two pairs split there hit it
    hit_board = Board(Board.initial().on_roll, side({6: 5, 8: 3, 13: 5, 7: 1, 24: 1}))
    past = play_from_xg_move(hit_board, 6, 4, (23, 13, -1, -1))
    assert past.hits == () and past.steps in (((24, 20), (20, 14)),)
    hit = play_from_xg_move(hit_board, 6, 4, (23, 17, 17, 13, -1, -1))
    assert hit.hits == (18,) and hit.result.opponent[24] == 1
    assert past.result.on_roll == hit.result.on_roll
    # dance: an empty or all-zero array is a Play with no steps
    closed = Board(side({25: 1, 13: 14}), side({p: 2 for p in range(1, 7)}))
    for arr in ((-1,) * 8, (0,) * 8):
        dance = play_from_xg_move(closed, 6, 6, arr)
        assert dance.steps == () and dance.result == closed
    assert play_from_xg_move(b, 6, 4, (0,) * 8) is None  # no move written for a playable roll
    assert play_from_xg_move(b, 3, 1, (-1,) * 8) is None  # no move for a playable roll
    assert play_from_xg_move(b, 4, 3, (13, 10, 7, 4, -1, -1)) is None  # 14/11 8/5 with 4-3: illegal


# ---------------------------------------------------------------------------
# XG's sample files: every played move and every analysed candidate
# ---------------------------------------------------------------------------

def _xg_records(path: Path):
    """temp.xg's 2560-byte records, read as ../shared/docs/xg-format.md says."""
    data = path.read_bytes()
    assert data[:4] == b"RGMH"
    header_size, _thumb_offset, thumb_size = struct.unpack_from("<iqi", data, 8)
    archive = data[header_size + thumb_size:]
    _crc, files, _ver, reg_size, arch_size, compressed = struct.unpack_from("<6i", archive, len(archive) - 36)
    reg_start = len(archive) - 36 - reg_size
    registry = archive[reg_start:len(archive) - 36]
    if compressed:
        registry = zlib.decompress(registry)
    base = reg_start - arch_size
    for i in range(files):
        rec = registry[i * 532:(i + 1) * 532]
        if rec[1:1 + rec[0]] == b"temp.xg":
            _osize, csize, start = struct.unpack_from("<3i", rec, 512)
            blob = archive[base + start:base + start + csize]
            blob = zlib.decompress(blob) if rec[528] == 0 else blob
            return [blob[k:k + 2560] for k in range(0, len(blob), 2560)]
    raise AssertionError("no temp.xg in " + str(path))


XG_SAMPLES = sorted((DATA / "xg").glob("*.xg"))


def test_xg_sample_files_replay():
    """In XG's own files: PositionI read with ActiveP equals the mover-view
    analysis position; the played move resolves to a legal play whose result
    is PositionEnd and which is the next record's PositionI; every analysed
    candidate resolves to its PosPlayed."""
    counts = dict(moves=0, played=0, unplayed=0, invalid=0, multi_die=0, candidates=0, follows=0)
    for path in XG_SAMPLES:
        prev = None
        for r in _xg_records(path):
            if r[8] == 1:  # a new game
                prev = None
            if r[8] != 3:
                continue
            counts["moves"] += 1
            pos_i = struct.unpack_from("<26b", r, 9)
            pos_end = struct.unpack_from("<26b", r, 35)
            active = struct.unpack_from("<i", r, 64)[0]
            move = struct.unpack_from("<8i", r, 68)
            d1, d2 = struct.unpack_from("<2i", r, 100)
            board = board_from_xg(pos_i, active)
            assert xg_from_board(board, active) == pos_i
            analysed = struct.unpack_from("<26b", r, 124)
            if any(analysed):
                assert board_from_xg(analysed) == board
            if prev is not None:
                assert prev.swapped() == board
                counts["follows"] += 1
            prev = None
            play = play_from_xg_move(board, d1, d2, move)
            if play is None:
                if steps_from_xg_move(move) is None:
                    counts["unplayed"] += 1  # the game was resigned after the roll
                else:
                    assert struct.unpack_from("<i", r, 2480)[0] == 2  # XG's own "invalid move" flag
                    counts["invalid"] += 1
                continue
            counts["played"] += 1
            assert play.result == board_from_xg(pos_end)
            if play.steps:
                assert find_play(board, d1, d2, play.steps) == play
                if find_play(board, d1, d2, steps_from_xg_move(move)) is None:
                    counts["multi_die"] += 1
            prev = play.result
            for k in range(min(struct.unpack_from("<i", r, 188)[0], 32)):
                cand = struct.unpack_from("<8b", r, 1024 + 8 * k)
                played = struct.unpack_from("<26b", r, 192 + 26 * k)
                cp = play_from_xg_move(board, d1, d2, cand)
                assert cp is not None and cp.result == board_from_xg(played)
                counts["candidates"] += 1
    assert counts["moves"] == counts["played"] + counts["unplayed"] + counts["invalid"]
    assert counts["played"] > 500 and counts["candidates"] > 3000 and counts["multi_die"] > 50
    assert counts["invalid"] <= 1 and counts["unplayed"] <= 10
