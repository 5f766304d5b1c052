"""Durations from XG's clock (docs/xg-reader.md, "Durations from the
clock"; docs/review.md, "Hasty vs considered").

XG (file version 28 and later) stores on each turn's Cube record the clock
time left of both players (``TimeBot`` = XG's player 1, ``TimeTop`` =
player 2).  A turn's seconds are the mover's clock drop to the game's next
Cube record, plus the increment (Fischer) or plus the delay (delay clock;
a drop of 0 means "within the delay" and is stored as the delay); a take or
pass gets the responder's drop over the same turn.

The clocked files are built field by field by ``tests/fixtures/xg/xg_build.py``
(``clocked_match_records``): a 5-point match of two games, 7 + 2 turns.  The
real samples (clock all zero) and gnubg files have no durations.  No gnubg
is needed.
"""

from __future__ import annotations

import json
import statistics
import sys

import pytest

from conftest import DATA, FIXTURES
from conftest import run_cli_inprocess as cli
from gnubg_blunder.importers.xg import match_clock, read_match, turn_durations
from gnubg_blunder.importers.xg_format import parse_xg_bytes

XG_FIXTURES = FIXTURES / "xg"
sys.path.insert(0, str(XG_FIXTURES))
import xg_build  # noqa: E402
from xg_container import build_xg_bytes  # noqa: E402

P1, P2 = "Ünïcode Øne", "Jørgensen Ωmega"  # XG's player 1 (our 0) and player 2 (our 1)

# The seconds each player really used, turn by turn (what the snapshots of
# xg_build.CLOCKS were made from):
#   game 1: P1 20 | P2 5 | P1 doubles + moves 45, P2 takes in 30 | P2 27 |
#           P1 12 | P2 100 | (placeholder Cube record: the game's end)
#   game 2: P2 40 | P1 doubles, P2 passes (the game ends: no later snapshot)

# --- delay clock: ClockType 1, delay Time2 = 12 s; clock charged max(0, t - 12)
#   snapshot (P1, P2): (600, 600) (592, 600) (592, 600) (559, 582) (559, 567) (559, 567) (559, 479)
#                      | game 2: (559, 479) (559, 451)
DELAY = {
    # (game, record, kind): seconds
    (0, 0, "checker"): (600 - 592) + 12,  # 20: P1's drop 8 > 0, plus the delay
    (0, 1, "nodouble"): 12,  # P2's drop 600 - 600 = 0: within the delay, stored as the delay (<= 12)
    (0, 1, "checker"): 12,  # the same turn: the cube decision and the move share it
    (0, 2, "double"): (592 - 559) + 12,  # 45: P1's turn (double, then the move after the take)
    (0, 3, "take"): (600 - 582) + 12,  # 30: the responder's drop over the same turn
    (0, 4, "checker"): (592 - 559) + 12,  # 45
    (0, 5, "nodouble"): (582 - 567) + 12,  # 27
    (0, 5, "checker"): (582 - 567) + 12,  # 27
    (0, 6, "checker"): 12,  # P1's drop 559 - 559 = 0: within the delay (really 12 s)
    (0, 7, "nodouble"): (567 - 479) + 12,  # 100: closed by the placeholder Cube record
    (0, 7, "checker"): (567 - 479) + 12,  # 100
    (1, 0, "checker"): (479 - 451) + 12,  # 40 (game 2's first snapshot to its second)
    (1, 1, "double"): None,  # the pass ends the game: no later snapshot
    (1, 2, "pass"): None,
}

# --- increment clock: ClockType 2, increment Time2 = 10 s, credited to the mover after the move
#   snapshot (P1, P2): (600, 600) (590, 600) (590, 605) (555, 575) (555, 558) (553, 558) (553, 468)
#                      | game 2: (553, 468) (553, 438)
INCREMENT = {
    (0, 0, "checker"): (600 - 590) + 10,  # 20
    (0, 1, "nodouble"): (600 - 605) + 10,  # 5: the clock went up by 5 (10 credited, 5 used)
    (0, 1, "checker"): (600 - 605) + 10,  # 5
    (0, 2, "double"): (590 - 555) + 10,  # 45
    (0, 3, "take"): 605 - 575,  # 30: no increment for answering a double
    (0, 4, "checker"): (590 - 555) + 10,  # 45
    (0, 5, "nodouble"): (575 - 558) + 10,  # 27
    (0, 5, "checker"): (575 - 558) + 10,  # 27
    (0, 6, "checker"): (555 - 553) + 10,  # 12
    (0, 7, "nodouble"): (558 - 468) + 10,  # 100
    (0, 7, "checker"): (558 - 468) + 10,  # 100
    (1, 0, "checker"): (468 - 438) + 10,  # 40
    (1, 1, "double"): None,
    (1, 2, "pass"): None,
}

# e (EMG) of every counted decision, as xg_build.CLOCK_GAMES writes the equities
ERROR = {
    (0, 0, "checker"): 0.25 - 0.125,
    (0, 1, "nodouble"): 0.0, (0, 1, "checker"): 0.0 - (-0.125),
    (0, 2, "double"): 0.0, (0, 3, "take"): 0.0, (0, 4, "checker"): 0.0,
    (0, 5, "nodouble"): 0.5625 - 0.5, (0, 5, "checker"): 0.0,
    (0, 6, "checker"): 0.125 - 0.09375,
    (0, 7, "nodouble"): 0.0, (0, 7, "checker"): 0.0625 - 0.03125,
    (1, 0, "checker"): 0.25 - 0.0,
    (1, 1, "double"): 0.0, (1, 2, "pass"): 0.0,
}
PLAYER = {(0, 0): 0, (0, 1): 1, (0, 2): 0, (0, 3): 1, (0, 4): 0, (0, 5): 1, (0, 6): 0, (0, 7): 1,
          (1, 0): 1, (1, 1): 0, (1, 2): 1}


def durations_of(match) -> dict:
    return {(g.number, d.seq, d.kind): d.duration for g in match.games for d in g.decisions}


@pytest.mark.parametrize("name, expected", [("clock_delay.xg", DELAY), ("clock_increment.xg", INCREMENT)])
def test_durations_by_hand(name, expected):
    m = read_match(XG_FIXTURES / name)
    assert durations_of(m) == expected
    assert {(g.number, d.seq, d.kind): d.error for g in m.games for d in g.decisions} == pytest.approx(ERROR)


def test_the_clock_is_read_as_documented():
    delay = parse_xg_bytes((XG_FIXTURES / "clock_delay.xg").read_bytes(), "clock_delay.xg")
    inc = parse_xg_bytes((XG_FIXTURES / "clock_increment.xg").read_bytes(), "clock_increment.xg")
    assert (delay.version, inc.version) == (28, 32)
    assert (match_clock(delay)[0].kind, match_clock(delay)[0].extra) == ("delay", 12)
    assert (match_clock(inc)[0].kind, match_clock(inc)[0].extra) == ("increment", 10)
    # per game, per Cube record: (mover, responder)
    assert turn_durations(inc) == [
        [(20, None), (5, None), (45, 30), (27, None), (12, None), (100, None), (None, None)],
        [(40, None), (None, None)],
    ]


def pace_by_hand(expected: dict, player: int) -> dict:
    """The split of docs/review.md: per type the median of the side's
    counted decisions with a duration; hasty < median <= considered."""
    out = {}
    for name, kinds in (("checker", {"checker"}), ("cube", {"nodouble", "double", "take", "pass"})):
        rows = [(s, ERROR[k]) for k, s in expected.items()
                if s is not None and k[2] in kinds and PLAYER[k[:2]] == player]
        if not rows:
            out[name] = None
            continue
        med = statistics.median(s for s, _ in rows)
        parts = {}
        for part, keep in (("hasty", lambda s: s < med), ("considered", lambda s: s >= med)):
            e = [err for s, err in rows if keep(s)]
            parts[part] = {"n": len(e), "pr": 500 * sum(e) / len(e) if e else None}
        out[name] = {"median_s": med, **parts}
    return out


def test_pace_by_hand_written_out():
    """The by-hand split, written out once (delay clock)."""
    # P1 checker: 20, 45, 12 -> median 20; hasty {12 (e 0.03125)}, considered {20 (0.125), 45 (0)}
    # P1 cube: the double of game 1 only (45) -> median 45; considered {45 (0)}
    # P2 checker: 12, 27, 100, 40 -> median 33.5; hasty {12 (0.125), 27 (0)}, considered {100 (0.03125), 40 (0.25)}
    # P2 cube: no doubles 12, 27, 100 and the take 30 -> median 28.5;
    #          hasty {12 (0), 27 (0.0625)}, considered {30 (0), 100 (0)}; the pass has no duration
    assert pace_by_hand(DELAY, 0) == {
        "checker": {"median_s": 20, "hasty": {"n": 1, "pr": 500 * 0.03125},
                    "considered": {"n": 2, "pr": 500 * 0.125 / 2}},
        "cube": {"median_s": 45, "hasty": {"n": 0, "pr": None}, "considered": {"n": 1, "pr": 0.0}},
    }
    assert pace_by_hand(DELAY, 1) == {
        "checker": {"median_s": 33.5, "hasty": {"n": 2, "pr": 500 * 0.125 / 2},
                    "considered": {"n": 2, "pr": 500 * 0.28125 / 2}},
        "cube": {"median_s": 28.5, "hasty": {"n": 2, "pr": 500 * 0.0625 / 2},
                 "considered": {"n": 2, "pr": 0.0}},
    }


def rounded(x):
    """Numbers to 1e-9 inside nested dicts (the errors are float32 values)."""
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    return round(x, 9) if isinstance(x, float) else x


def review_json(db, *files) -> dict:
    for f in files:
        cli("--no-config", "import", f, db=db)
    return json.loads(cli("--no-config", "review", "last", "--format", "json", db=db).stdout)


@pytest.mark.parametrize("name, expected", [("clock_delay.xg", DELAY), ("clock_increment.xg", INCREMENT)])
def test_review_pace_equals_the_split_by_hand(tmp_path, name, expected):
    obj = review_json(tmp_path / "t.db", XG_FIXTURES / name)
    assert [s["player"] for s in obj["sides"]] == [P1, P2]
    for p, side in enumerate(obj["sides"]):
        assert side["pace_reason"] is None
        assert rounded(side["pace"]) == rounded(pace_by_hand(expected, p)), side["player"]


def test_importing_twice_is_a_no_op(tmp_path):
    db = tmp_path / "t.db"
    first = review_json(db, XG_FIXTURES / "clock_delay.xg")
    again = cli("--no-config", "import", XG_FIXTURES / "clock_delay.xg", db=db)
    assert "already stored" in again.stdout
    assert review_json(db) == first
    assert len(json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)["matches"]) == 1


@pytest.mark.parametrize("path", sorted((DATA / "xg").glob("*.xg")) + sorted((DATA / "sgf").glob("*.sgf")),
                         ids=lambda p: p.name)
def test_real_samples_and_gnubg_files_have_no_durations(tmp_path, path):
    """The real XG samples (v30/v32, every TimeBot/TimeTop 0, ClockType 0)
    and gnubg files: pace null, "no durations"."""
    obj = review_json(tmp_path / "t.db", path)
    assert obj["sides"]
    for side in obj["sides"]:
        assert side["pace"] is None and side["pace_reason"] == "no durations"
    if path.suffix == ".xg":
        assert all(d.duration is None for d in read_match(path).decisions())


def _built(tmp_path, records, name="built.xg"):
    f = tmp_path / name
    f.write_bytes(build_xg_bytes({"temp.xg": b"".join(records), "temp.xgi": records[0]}))
    return f


def _with_time_setting(records, **fields):
    """The records with some TimeSetting fields (HeaderMatch @1912) changed."""
    import struct

    offsets = {"ClockType": 1912, "Time1": 1920, "Time2": 1924, "Penalty": 1928}
    hm = bytearray(records[0])
    for k, v in fields.items():
        struct.pack_into("<i", hm, offsets[k], v)
    return [bytes(hm)] + list(records[1:])


@pytest.mark.parametrize("change, reason", [
    (dict(ClockType=0), "no clock"),
    (dict(Time1=0), "no clock"),
    (dict(ClockType=3), "unknown clock type 3"),
    (dict(ClockType=-1), "unknown clock type -1"),
    (dict(Penalty=1), "a penalty clock"),
    (dict(Time2=-5), "a clock setting below zero"),
])
def test_no_usable_clock_no_durations(tmp_path, change, reason):
    recs = _with_time_setting(xg_build.clocked_match_records(30, "delay"), **change)
    f = _built(tmp_path, recs)
    assert match_clock(parse_xg_bytes(f.read_bytes(), "built.xg"))[1].startswith(reason)
    assert all(d.duration is None for d in read_match(f).decisions())


def test_before_version_28_no_durations(tmp_path):
    # a v26 file has a TimeSetting (v25) but no clock time left on the Cube records
    f = _built(tmp_path, xg_build.clocked_match_records(26, "delay"))
    assert match_clock(parse_xg_bytes(f.read_bytes(), "built.xg"))[1].startswith("file version 26")
    assert all(d.duration is None for d in read_match(f).decisions())


def test_clock_zero_everywhere_no_durations(tmp_path, monkeypatch):
    zero = tuple(tuple((0, 0) for _ in game) for game in xg_build.CLOCKS["delay"][1])
    monkeypatch.setitem(xg_build.CLOCKS, "delay", (xg_build.CLOCKS["delay"][0], zero))
    f = _built(tmp_path, xg_build.clocked_match_records(30, "delay"))
    assert match_clock(parse_xg_bytes(f.read_bytes(), "built.xg"))[1].startswith("the clock time left is zero")
    assert all(d.duration is None for d in read_match(f).decisions())
    obj = review_json(tmp_path / "t.db", f)
    assert [(s["pace"], s["pace_reason"]) for s in obj["sides"]] == [(None, "no durations")] * 2


def test_time_outs_give_none_for_that_turn(tmp_path, monkeypatch):
    """Negative time left or a clock at 0 (it ran out): those turns have no
    duration; the other turns keep theirs."""
    (setting, (g1, g2)) = xg_build.CLOCKS["delay"]
    g1 = list(g1)
    g1[1] = (-3, 600)  # turn 1 (P1) ends and turn 2 (P2) starts below zero: both unknown
    g1[6] = (559, 0)  # turn 6 (P2) ends with P2's clock at 0: it ran out, the rest is not measured
    monkeypatch.setitem(xg_build.CLOCKS, "delay", (setting, (tuple(g1), g2)))
    f = _built(tmp_path, xg_build.clocked_match_records(30, "delay"))
    got = durations_of(read_match(f))
    unknown = {(0, 0, "checker"), (0, 1, "nodouble"), (0, 1, "checker"), (0, 7, "nodouble"), (0, 7, "checker"),
               (1, 1, "double"), (1, 2, "pass")}
    assert got == {k: (None if k in unknown else v) for k, v in DELAY.items()}


@pytest.mark.parametrize("turn, snapshot", [
    (4, (559, 560)),  # P2's clock goes 560 -> 567 in P1's turn 5, with no double to answer
    (3, (600, 582)),  # P1's delay clock goes up 592 -> 600 in P1's turn 3
])
def test_a_clock_that_contradicts_the_rule_gives_no_durations_at_all(tmp_path, monkeypatch, turn, snapshot):
    """A turn the rule cannot explain (the opponent's clock moving without a
    double to answer, a delay clock going up) means the file's clock is not
    what the rule assumes (another clock type, TimeBot/TimeTop the other way
    round): the whole match has no durations rather than wrong ones."""
    (setting, (g1, g2)) = xg_build.CLOCKS["delay"]
    g1 = list(g1)
    g1[turn] = snapshot
    monkeypatch.setitem(xg_build.CLOCKS, "delay", (setting, (tuple(g1), g2)))
    f = _built(tmp_path, xg_build.clocked_match_records(30, "delay"))
    assert all(d.duration is None for d in read_match(f).decisions())


def test_swapped_clocks_give_no_durations(tmp_path, monkeypatch):
    """Were TimeBot player 2's clock, the turns without a double would show
    the opponent's clock moving: no duration at all, rather than wrong ones."""
    (setting, games) = xg_build.CLOCKS["delay"]
    swapped = tuple(tuple((b, a) for a, b in game) for game in games)
    monkeypatch.setitem(xg_build.CLOCKS, "delay", (setting, swapped))
    f = _built(tmp_path, xg_build.clocked_match_records(30, "delay"))
    assert all(d.duration is None for d in read_match(f).decisions())
    x = parse_xg_bytes(f.read_bytes(), "built.xg")
    assert match_clock(x)[0] is not None and turn_durations(x) == [[(None, None)] * 7, [(None, None)] * 2]
