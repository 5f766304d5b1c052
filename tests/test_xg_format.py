"""The XG reader (``gnubg_blunder.importers.xg_format``).

On the real samples (``tests/fixtures/real/xg/``, file versions 30 and 32): names,
match length, version, games, scores, record counts, the played-move and
ErrMove rules, XG's own decision counts, comments.

On files built from the documented layout (``tests/fixtures/xg/``, made by
``xg_build.py``): the version branches no sample has (1..40) and ``.xgp``
position files. Then one test per error the reader reports.
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from collections import Counter

import numpy as np
import pytest

from conftest import DATA, FIXTURES
from gnubg_blunder.importers.xg_format import (
    MAX_VERSION,
    MIN_VERSION,
    NOT_ANALYSED,
    Cube,
    FooterGame,
    HeaderGame,
    HeaderMatch,
    Move,
    XgFormatError,
    move_pairs,
    parse_xg_bytes,
    read_xg,
    rtf_to_text,
    tdatetime_to_iso,
)

XG_FIXTURES = FIXTURES / "xg"
sys.path.insert(0, str(XG_FIXTURES))
import xg_build  # noqa: E402
from xg_container import build_xg_bytes  # noqa: E402

SAMPLES_DIR = DATA / "xg"
SQUIRE = "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
CHARLOT = "charlot1-charlot2_7p_2025-11-08-2305.xg"
COMMENTED = "match_with_comment.xg"

# What each sample holds, read off XG's own header texts (RichGameHeader
# SaveName: "<p1> vs. <p2>, N point match<s1>-<s2>") and counted on the files.
SAMPLES = {
    SQUIRE: dict(
        version=30, p1="Squire/Jørgensen", p2="Harmand/Unger", length=7, date="2024-08-18",
        games=8, moves=337, cubes=339, records=694, final=(7, 6), winner=1,
        scores=[(0, 0), (0, 2), (2, 2), (2, 4), (3, 4), (3, 6), (4, 6), (6, 6)],
        comments=0, members=["temp.xg", "temp.xgi"],
    ),
    CHARLOT: dict(
        version=32, p1="charlot1", p2="charlot2", length=7, date="2025-11-08",
        games=4, moves=189, cubes=192, records=391, final=(7, 2), winner=1,
        scores=[(0, 0), (0, 2), (2, 2), (6, 2)],
        comments=0, members=["temp.xg", "temp.xgi"],
    ),
    COMMENTED: dict(
        version=32, p1="Nicolas HARMAND", p2="Kévin UNGER", length=9, date="2024-10-24",
        games=8, moves=179, cubes=184, records=381, final=(4, 10), winner=-1,
        scores=[(0, 0), (2, 0), (3, 0), (3, 1), (3, 3), (4, 3), (4, 4), (4, 6)],
        comments=2, members=["temp.xg", "temp.xgi", "temp.xgc"],
    ),
}


@pytest.fixture(scope="module")
def samples(shared_data):
    return {name: read_xg(shared_data / "xg" / name) for name in SAMPLES}


# ---------------------------------------------------------------------------
# Real samples
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_match_header(samples, name):
    x, want = samples[name], SAMPLES[name]
    m = x.match
    assert x.kind == "match"
    assert x.version == m.Version == want["version"]
    assert m.Magic == 0x494C4D44
    assert (m.player1_name, m.player2_name) == (want["p1"], want["p2"])
    assert (m.Player1, m.Player2) == (want["p1"], want["p2"])  # v24 Unicode names
    assert m.MatchLength == want["length"] and not m.is_money
    assert m.Date == want["date"]
    assert m.Crawford is True
    assert m.CubeLimit == 10  # v8 field present
    assert m.TimeSetting is not None and m.TimeSetting.ClockType == 0  # v25, no clock
    assert m.TotTimeDelayMove == 0  # v26
    assert m.Transcriber is not None  # v30
    assert [mb.name for mb in x.members] == want["members"]
    assert x.archive_version == 1
    assert x.header.Magic == b"RGMH" and x.header.HeaderSize == 8232
    assert x.header.ThumbnailOffset == 0 and x.header.ThumbnailSize > 0
    # XG's own summary line in the RichGameHeader agrees with the records
    s1, s2 = want["final"]
    assert x.header.SaveName == f"{want['p1']} vs. {want['p2']}, {want['length']} point match{s1}-{s2}"


def test_squire_unicode_names_and_texts(samples):
    m = samples[SQUIRE].match
    assert m.Player1 == "Squire/Jørgensen"
    assert m.SPlayer1 == "Squire/Jørgensen"  # the ANSI string[40], code page 1252
    assert m.Transcriber == "Anna Sofía Jørgensen"
    assert m.Event == "World Doubles Championship" == m.SEvent
    assert m.Location == "Reihstrasse 13 - Aachen - Germany"
    assert m.DateTime == "2024-08-18T23:36:00"
    c = samples[COMMENTED].match
    assert c.Player2 == "Kévin UNGER" and c.SLocation == "Café Jussieu, Paris" == c.Location


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_games_and_records(samples, name):
    x, want = samples[name], SAMPLES[name]
    kinds = Counter(type(r).__name__ for r in x.records)
    assert len(x.records) == want["records"]
    assert kinds == Counter(
        HeaderMatch=1, HeaderGame=want["games"], FooterGame=want["games"], FooterMatch=1,
        Move=want["moves"], Cube=want["cubes"],
    )
    assert [r.index for r in x.records] == list(range(want["records"]))
    assert len(x.games) == want["games"]
    assert len(x.moves) == want["moves"] and len(x.cubes) == want["cubes"]
    assert sum(len(g.records) for g in x.games) == want["moves"] + want["cubes"]
    assert [(g.header.Score1, g.header.Score2) for g in x.games] == want["scores"]
    assert [g.header.GameNumber for g in x.games] == list(range(1, want["games"] + 1))
    # each game's footer score is the next game's starting score
    after = [(g.footer.Score1g, g.footer.Score2g) for g in x.games]
    assert after[:-1] == want["scores"][1:]
    assert after[-1] == want["final"] == (x.footer.Score1m, x.footer.Score2m)
    assert x.footer.WinnerM == want["winner"]
    assert x.footer.Datem is None  # 0 in all samples
    # the Crawford game is the first one with a player one point away
    n = want["length"]
    crawford = [g.header.CrawfordApply for g in x.games]
    first = next((k for k, s in enumerate(want["scores"]) if n - 1 in s), None)
    assert crawford == [k == first for k in range(len(crawford))]
    # game records alternate Cube, Move (a Cube record before each roll)
    for g in x.games:
        assert isinstance(g.records[0], Cube)
        assert all(isinstance(r, Cube) for r in g.records[0::2])
        assert all(isinstance(r, Move) for r in g.records[1::2])


def _joined(pairs):
    """Pairs with bear-offs as -1 and one checker's consecutive steps joined."""
    ps = [(a, max(b, -1)) for a, b in pairs]
    joined = True
    while joined:
        joined = False
        for i, (a, b) in enumerate(ps):
            j = next((j for j, (c, _) in enumerate(ps) if j != i and b >= 0 and c == b), None)
            if j is not None:
                ps[i] = (a, ps[j][1])
                del ps[j]
                joined = True
                break
    return sorted(ps)


def _diff32(m: Move, k: int) -> float:
    ev = m.DataMoves.Eval
    return float(np.float32(ev[k][6]) - np.float32(ev[0][6]))


# Analysed moves where ErrMove is 0 although Eval[played][6] - Eval[0][6] is
# not: (InvalidM != 0) or a difference under 1e-4 (XG rounds it away).
ERRMOVE_EXCEPTIONS = {SQUIRE: (1, 0), CHARLOT: (0, 1), COMMENTED: (0, 4)}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_played_move_and_errmove(samples, name):
    x = samples[name]
    analysed = [m for m in x.moves if m.ErrMove != NOT_ANALYSED]
    assert analysed
    invalid = tiny = 0
    for m in analysed:
        dm = m.DataMoves
        assert m.Played
        assert 0 < dm.NMoves <= 32 and m.NMoveEval == dm.NMoves
        k = m.played_index
        assert k is not None, f"record {m.index}: no candidate equals PositionEnd"
        # exactly one candidate is the played one
        assert sum(dm.PosPlayed[j] == m.PositionEnd for j in range(dm.NMoves)) == 1
        # its move list is the played move, in another notation: the candidate
        # lists each die's step (bear-off "to" = from - die), the record joins a
        # checker's steps (24/18/13 as 24/13) and bears off "to" -1
        assert _joined(move_pairs(dm.Moves[k])) == _joined(m.moves)
        d = _diff32(m, k)
        if m.ErrMove == d:
            assert m.ErrMove <= 0
            continue
        assert m.ErrMove == 0.0
        if m.InvalidM != 0:
            invalid += 1
        else:
            assert abs(d) < 1e-4, f"record {m.index}: ErrMove 0 but difference {d}"
            tiny += 1
    assert (invalid, tiny) == ERRMOVE_EXCEPTIONS[name]


@pytest.mark.parametrize("name", list(SAMPLES))
def test_unplayed_moves_before_resignation(samples, name):
    """Moves with ErrMove -1000 are the rolls before a resignation."""
    x = samples[name]
    for m in x.moves:
        if m.ErrMove == NOT_ANALYSED:
            assert not m.Played and m.moves == () and m.played_index is None
            assert m.PositionEnd == (0,) * 26 and m.Moves == (0,) * 8
            nxt = x.records[m.index + 1]
            assert isinstance(nxt, FooterGame) and nxt.Termination >= 100


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_semantics(samples, name):
    x = samples[name]
    for m in x.moves:
        dm = m.DataMoves
        if m.ActiveP == 1:
            assert m.PositionI == dm.Pos  # both player-1 view when player 1 moves
        for k in range(dm.n_candidates):
            assert dm.Eval[k][2] + dm.Eval[k][3] == pytest.approx(1.0, abs=1e-5)  # Win + Lose = 1
        if m.Played:
            assert sorted(m.Dice) == sorted(dm.Dice)  # the same roll, maybe in another order
    for c in x.cubes:
        assert c.Double in (-2, -1, 0, 1)
        assert c.isValid == 0
        assert c.Edited is False and c.NumberOfAutoDouble == 0 and (c.TimeBot, c.TimeTop) == (0, 0)
        if c.Doubled.Level > 0:
            assert c.Doubled.equDrop == 1.0
            assert c.Doubled.Eval[2] + c.Doubled.Eval[3] == pytest.approx(1.0, abs=1e-5)
        if c.DiceRolled == "77":
            continue
        assert len(c.DiceRolled) == 2 and all(ch in "123456" for ch in c.DiceRolled)


def _counted(x):
    """XG's decision counting as the facts give it: by player (1 / -1)."""
    out = Counter()
    for m in x.moves:
        if m.ErrMove != NOT_ANALYSED and m.DataMoves.Unused == 0 and m.InvalidM == 0:
            out["checker", m.ActiveP] += 1
    for c in x.cubes:
        d = c.Doubled
        if c.Double == 1 or (d.Level > 0 and d.equB > 0 and d.equB - min(d.equDouble, d.equDrop) < 0.20):
            out["double", c.ActiveP] += 1
        if c.Double == 1 and c.ErrTake != NOT_ANALYSED:
            out["take", -c.ActiveP] += 1
    return out


@pytest.mark.parametrize(
    "name,reference", [(SQUIRE, "aachen-squire-7pt.xg-reference.json"), (CHARLOT, "charlot1-charlot2.xg-reference.json")]
)
def test_fields_reproduce_xg_decision_counts(samples, shared_data, name, reference):
    """Unused, InvalidM, ActiveP, the cube equities and ErrTake, read at the
    documented offsets, give XG's own statistics-window counts exactly."""
    ref = json.loads((shared_data / "xg" / reference).read_text(encoding="utf-8"))["xg"]
    got = _counted(samples[name])
    for player, side in (("player1", 1), ("player2", -1)):
        assert got["checker", side] == ref[player]["checker_unforced"]
        assert got["double", side] == ref[player]["double_decisions"]
        assert got["take", side] == ref[player]["take_decisions"] + ref[player]["pass_decisions"]


def test_sample_comments(samples):
    x = samples[COMMENTED]
    assert [c.index for c in x.comments] == [0, 1]
    assert [c.text for c in x.comments] == [
        "coup assez difficile",
        "les double 66 sont toujpurs difficiles à trouver",
    ]
    for c in x.comments:
        assert c.rtf.startswith("{\\rtf1") and c.rtf.endswith("}")
        assert "\r\n" in c.rtf and "\x01" not in c.rtf  # #1#2 turned back into CRLF
    # every comment index in the records is -1 or points at a comment
    refs = []
    for r in x.records:
        for field in ("CommentHeaderMatch", "CommentFooterMatch", "CommentHeaderGame", "CommentFooterGame",
                      "CommentCube", "CommentMove"):
            v = getattr(r, field, None)
            if v is not None and v != -1:
                assert 0 <= v < len(x.comments)
                refs.append((type(r).__name__, r.index, v))
    assert refs == [("Move", 7, 0), ("Move", 11, 1)]
    assert sorted(v for _, _, v in refs) == [c.index for c in x.comments]  # each comment used once
    assert x.comment(x.records[7].CommentMove).text == "coup assez difficile"
    assert x.comment(-1) is None and x.comment(2) is None
    for name in (SQUIRE, CHARLOT):
        assert samples[name].comments == ()
        assert all(getattr(r, "CommentMove", -1) == -1 and getattr(r, "CommentCube", -1) == -1
                   for r in samples[name].records)


def test_parse_bytes_equals_read(samples, shared_data):
    data = (shared_data / "xg" / CHARLOT).read_bytes()
    x = parse_xg_bytes(data, "upload")
    assert x.source == "upload" and x.kind == "match"
    assert x.records == samples[CHARLOT].records


# ---------------------------------------------------------------------------
# Files built from the layout: every version branch, .xgp
# ---------------------------------------------------------------------------


def _expect_version_fields(x, v):
    m = x.match
    assert m.Version == v
    assert m.CubeLimit == (10 if v >= 8 else None)
    assert m.AutoDoubleMax == (3 if v >= 8 else None)
    if v >= 24:
        assert (m.Player1, m.Player2) == ("Ünïcode Øne", "Jørgensen Ωmega")
        assert (m.player1_name, m.player2_name) == ("Ünïcode Øne", "Jørgensen Ωmega")
        assert (m.Event, m.Location, m.Round, m.Transcribed) == ("Événement", "Zürich", "Finale ½", True)
        assert (m.event_name, m.location_name, m.round_name) == ("Événement", "Zürich", "Finale ½")
    else:
        assert (m.Player1, m.Player2, m.Event, m.Location, m.Round, m.Transcribed) == (None,) * 6
        assert (m.player1_name, m.player2_name) == ("Ansi One", "Ansi Two")  # the ANSI fallback
        assert (m.event_name, m.location_name, m.round_name) == ("Ansi Event", "Café Ansi", "Round A")
    if v >= 25:
        ts = m.TimeSetting
        assert (ts.ClockType, ts.PerGame, ts.Time1, ts.Time2, ts.Penalty, ts.TimeLeft1, ts.TimeLeft2,
                ts.PenaltyMoney) == (2, True, 300, 420, 5, 250, 360, 7)
    else:
        assert m.TimeSetting is None
    tot = (m.TotTimeDelayMove, m.TotTimeDelayCube, m.TotTimeDelayMoveDone, m.TotTimeDelayCubeDone)
    assert tot == ((11, 12, 13, 14) if v >= 26 else (None,) * 4)
    assert m.Transcriber == ("Anna Sofía Jørgensen" if v >= 30 else None)
    (c,) = x.cubes
    assert c.Edited == (True if v >= 24 else None)
    assert (c.TimeDelayCube, c.TimeDelayCubeDone) == ((True, True) if v >= 26 else (None, None))
    assert c.NumberOfAutoDouble == (2 if v >= 27 else None)
    assert (c.TimeBot, c.TimeTop) == ((300, 280) if v >= 28 else (None, None))
    (mv,) = x.moves
    assert mv.Edited == (True if v >= 24 else None)
    assert (mv.TimeDelayMove, mv.TimeDelayMoveDone) == ((5, 6) if v >= 26 else (None, None))
    assert mv.NumberOfAutoDouble == (4 if v >= 27 else None)


def _expect_fixed_fields(x):
    m = x.match
    assert (m.SPlayer1, m.SPlayer2) == ("Ansi One", "Ansi Two")
    assert (m.Crawford, m.Jacoby, m.Beaver, m.AutoDouble) == (True, False, False, False)
    assert (m.Elo1, m.Elo2) == (1612.5, 1587.25)
    assert (m.Date, m.DateTime) == ("2024-08-18", "2024-08-18T23:36:00")
    assert (m.CompLevel1, m.CompLevel2, m.GameId, m.SiteId) == (-1, 5, 123456, -1)
    assert (m.CommentHeaderMatch, m.CommentFooterMatch) == (0, -1)
    assert x.comment(m.CommentHeaderMatch).text == xg_build.COMMENT_TEXTS[0]
    (g,) = x.games
    assert (g.header.Score1, g.header.Score2, g.header.GameNumber) == (0, 0, 1)
    assert g.header.PosInit == xg_build.START
    c, mv = g.records
    assert (c.ActiveP, c.Double, c.Take, c.CubeB, c.DiceRolled) == (1, 0, -1, 0, "31")
    d = c.Doubled
    assert (d.Level, d.Score, d.Cube, d.CubePos) == (3, (3, 3), 1, 0)
    assert (d.equB, d.equDouble, d.equDrop) == (0.0625, -0.25, 1.0)
    assert d.Eval == (0.0, 0.0, 0.5, 0.5, 0.125, 0.0, 0.0625) and d.EvalDouble[6] == -0.125
    assert (c.ErrCube, c.ErrTake) == (0.0, NOT_ANALYSED)
    assert mv.PositionI == xg_build.START and mv.PositionEnd == xg_build.AFTER_31_ALT
    assert mv.Dice == (3, 1) and mv.moves == ((12, 9), (5, 4))
    dm = mv.DataMoves
    assert dm.NMoves == 2 and mv.played_index == 1
    assert dm.EvalLevel[:2] == ((3, False), (3, False))
    assert move_pairs(dm.Moves[0]) == ((7, 4), (5, 4))
    assert mv.ErrMove == dm.Eval[1][6] - dm.Eval[0][6] == -0.125
    assert (mv.ErrLuck, mv.InitEq, mv.InvalidM, dm.Unused) == (0.125, 0.0625, 0, 0)
    assert x.comment(mv.CommentMove).text == "A move comment"
    assert (g.footer.Score1g, g.footer.Winner, g.footer.PointsWon, g.footer.Termination) == (1, 1, 1, 101)
    assert g.footer.Eval[3] == 1.0 and g.footer.EvalLevel == 3
    f = x.footer
    assert (f.Score1m, f.Score2m, f.WinnerM, f.Elo1m, f.Exp1m) == (1, 0, 1, 1620.0, 1)
    assert (f.Datem, f.DatemRaw) == ("2024-08-19", xg_build.DATEM)
    assert [cm.text for cm in x.comments] == list(xg_build.COMMENT_TEXTS)


@pytest.mark.parametrize("version", xg_build.FIXTURE_VERSIONS)
def test_fixture_file(version):
    path = XG_FIXTURES / f"v{version:02d}.xg"
    x = read_xg(path)
    assert x.kind == "match" and x.source == str(path)
    _expect_version_fields(x, version)
    _expect_fixed_fields(x)
    assert x.match.is_money == (version == 7)
    assert x.header.GameName == f"fixture v{version}"
    if version == 40:
        assert x.rollouts == (xg_build.rollout_record(),)
    else:
        assert x.rollouts == ()


@pytest.mark.parametrize("version", range(MIN_VERSION, MAX_VERSION + 1))
def test_every_version_branch(version):
    x = parse_xg_bytes(build_xg_bytes(xg_build.match_members(version)), f"v{version}.xg")
    _expect_version_fields(x, version)
    _expect_fixed_fields(x)


def test_fixture_files_are_what_the_builder_makes():
    for name, data in xg_build.fixtures().items():
        stored = read_xg(XG_FIXTURES / name)
        built = parse_xg_bytes(data, name)
        assert stored.records == built.records and stored.comments == built.comments
        assert stored.header == built.header and stored.rollouts == built.rollouts


def test_position_file_with_a_move():
    x = read_xg(XG_FIXTURES / "position_move.xgp")
    assert x.kind == "position" and x.version == 32
    assert [type(r) for r in x.records] == [HeaderMatch, HeaderGame, Move]
    assert x.footer is None and len(x.games) == 1 and x.games[0].footer is None
    (mv,) = x.games[0].records
    assert mv.played_index == 1 and mv.moves == ((12, 9), (5, 4))
    assert (x.games[0].header.Score1, x.games[0].header.Score2, x.match.MatchLength) == (2, 1, 5)
    assert x.comments == ()


def test_position_file_with_a_cube():
    x = read_xg(XG_FIXTURES / "position_cube.xgp")
    assert x.kind == "position"
    assert [type(r) for r in x.records] == [HeaderMatch, HeaderGame, Cube]
    (c,) = x.cubes
    assert (c.Double, c.Take, c.ActiveP) == (-1, -1, -1)
    assert x.moves == ()


def test_kind_from_suffix_argument_or_content():
    data = (XG_FIXTURES / "position_move.xgp").read_bytes()
    assert parse_xg_bytes(data, "upload").kind == "position"  # from the records
    assert parse_xg_bytes(data, "x.XGP").kind == "position"
    assert parse_xg_bytes(data, "x.xg").kind == "match"  # the caller decides what to accept
    assert parse_xg_bytes(data, "x.xg", kind="position").kind == "position"
    match = (XG_FIXTURES / "v28.xg").read_bytes()
    assert parse_xg_bytes(match, "upload").kind == "match"
    with pytest.raises(XgFormatError, match=r"^m\.xgp: a position file holds HeaderMatch, HeaderGame and one"):
        parse_xg_bytes(match, "m.xgp")
    with pytest.raises(XgFormatError, match="kind must be"):
        parse_xg_bytes(match, "m", kind="game")


def test_unfinished_match_groups_open_games():
    recs = xg_build.match_records(30)
    # header, game 1 (cube, move, footer), game 2 (cube) without footers
    body = recs[:5] + [bytes(xg_build.header_game(score=(1, 0), number=2)), bytes(xg_build.cube())]
    x = parse_xg_bytes(build_xg_bytes({"temp.xg": b"".join(body)}), "open.xg")
    assert [g.footer is None for g in x.games] == [False, True]
    assert x.footer is None and len(x.games[1].records) == 1
    # a HeaderGame without a footer before the next one
    body = recs[:4] + [bytes(xg_build.header_game(number=2)), bytes(xg_build.move())]
    x = parse_xg_bytes(build_xg_bytes({"temp.xg": b"".join(body)}), "open.xg")
    assert [len(g.records) for g in x.games] == [2, 1] and x.games[0].footer is None


def test_uncompressed_member_and_registry():
    members = xg_build.match_members(30)
    data = build_xg_bytes(members)
    prefix, area, registry, _ = xg_build.take_apart(data)
    # store temp.xg uncompressed: flag 1, csize = osize, its bytes in the area
    body = members["temp.xg"]
    osize, csize, start = struct.unpack_from("<iii", registry, 512)
    area = area[:start] + body + area[start + csize:]
    struct.pack_into("<iiiIB", registry, 512, osize, osize, start, zlib.crc32(body), 1)
    shift = osize - csize
    for k in range(1, len(registry) // 532):
        s = struct.unpack_from("<i", registry, k * 532 + 520)[0]
        struct.pack_into("<i", registry, k * 532 + 520, s + shift)
    x = parse_xg_bytes(xg_build.put_together(prefix, area, registry, compress_registry=False), "plain.xg")
    assert x.members[0].compressed is False
    assert x.records == parse_xg_bytes(data, "z.xg").records


# ---------------------------------------------------------------------------
# Small pure helpers
# ---------------------------------------------------------------------------


def test_rtf_to_text():
    assert rtf_to_text(r"{\rtf1\ansi{\fonttbl{\f0 Arial;}}{\colortbl;\red0;}\f0 Hello\par World\par}") == "Hello\nWorld"
    assert rtf_to_text(r"{\rtf1 caf\'e9 \'80}") == "café €"
    assert rtf_to_text(r"{\rtf1\ansicpg1251 \'e0}") == "а"  # Cyrillic code page
    assert rtf_to_text(r"{\rtf1\uc1 \u8364?\u-4064?}") == "€\uf020"
    assert rtf_to_text(r"{\rtf1\uc1 \u55357?\u56832?}") == "😀"  # a surrogate pair
    assert rtf_to_text(r"{\rtf1\uc1 \u55357? x}") == "\ufffd x"  # a lone surrogate
    assert rtf_to_text(r"{\rtf1\uc2 \u233\'65\'65e}") == "ée"
    assert rtf_to_text(r"{\rtf1 a\{b\}c\\d}") == "a{b}c\\d"
    assert rtf_to_text(r"{\rtf1 {\*\generator Wine;}text\tab x}") == "text\tx"
    assert rtf_to_text(r"{\rtf1 \emdash\lquote x\rquote}") == "\u2014\u2018x\u2019"
    assert rtf_to_text("plain text, no rtf") == "plain text, no rtf"
    for broken in ("", "{", "}}}", "\\", "{\\", "\\'", "\\'zz", "\\u", "\\u99999999999999", "{" * 5000 + "x",
                   "\\" + "a" * 100, "\\uc-5 x", "\\ansicpg99999 \\'e9"):
        assert isinstance(rtf_to_text(broken), str)


def test_tdatetime():
    assert tdatetime_to_iso(0.0) is None
    assert tdatetime_to_iso(1.0) == "1899-12-31"
    assert tdatetime_to_iso(45522.98333333333, with_time=True) == "2024-08-18T23:36:00"
    for bad in (float("nan"), float("inf"), -float("inf"), 1e300, -1e300, 3e6):
        assert tdatetime_to_iso(bad) is None


def test_move_pairs():
    assert move_pairs((7, 4, 5, 4, -1, -1, -1, -1)) == ((7, 4), (5, 4))
    assert move_pairs((24, 20, 5, -1, -1, 0, 0, 0)) == ((24, 20), (5, -1))
    assert move_pairs((1, 2, 3, 4, 5, 6, 7, 8)) == ((1, 2), (3, 4), (5, 6), (7, 8))
    assert move_pairs(()) == ()
    assert move_pairs((0,) * 8) == ()  # the candidate row of a dance (v30, v32)
    assert move_pairs((-1,) * 8) == ()


# ---------------------------------------------------------------------------
# Errors: one class, one line naming the file and the problem
# ---------------------------------------------------------------------------


def _raises(data, problem, source="bad.xg"):
    with pytest.raises(XgFormatError) as info:
        parse_xg_bytes(data, source)
    err = info.value
    msg = str(err)
    assert "\n" not in msg and msg.startswith(source + ": ")
    assert err.source == source and msg == f"{source}: {err.problem}"
    assert problem in msg, msg
    assert "unexpected" not in msg
    return msg


@pytest.fixture(scope="module")
def good():
    return build_xg_bytes(xg_build.match_members(28))


def _with_records(records, **members):
    return build_xg_bytes({"temp.xg": b"".join(records), **members})


def test_error_is_a_value_error():
    import pickle

    assert issubclass(XgFormatError, ValueError)
    err = pickle.loads(pickle.dumps(XgFormatError("f.xg", "bad\nthing")))
    assert str(err) == "f.xg: bad thing" and err.source == "f.xg"


def test_wrong_magic(good):
    _raises(b"PK\x03\x04" + good[4:], "wrong magic b'PK\\x03\\x04' (expected b'RGMH')")
    _raises(b"{\\rtf1 not an xg file}", "wrong magic")


def test_truncated_header(good):
    _raises(good[:2], "truncated header: 2 bytes")
    _raises(good[:8000], "truncated header: 8000 bytes, the RichGameHeader needs 8232")
    _raises(b"", "truncated header: 0 bytes")


def test_header_sizes(good):
    _raises(good[:8] + struct.pack("<i", 9000) + good[12:], "header size 9000")
    _raises(good[:20] + struct.pack("<i", -5) + good[24:], "sizes do not add up: thumbnail size -5")
    # a thumbnail larger than what lies before the archive
    _raises(good[:20] + struct.pack("<i", 10**6) + good[24:], "truncated archive: the trailer declares")


def test_truncated_archive(good):
    _raises(good[:8232 + 20], "truncated archive: 20 bytes after the header")
    _raises(good[:8232] + good[-36:], "truncated archive: the trailer declares")
    # the file cut short: its trailer is gone, whatever the end holds now is refused
    for cut in (1, 36, 100, 500, len(good) - 8300):
        with pytest.raises(XgFormatError, match=r"^bad\.xg: "):
            parse_xg_bytes(good[: len(good) - cut], "bad.xg")


def test_trailer_counts(good):
    _raises(xg_build.set_trailer(good, filecount=0), "trailer gives 0 archive members")
    _raises(xg_build.set_trailer(good, filecount=10**6), "archive members")
    _raises(xg_build.set_trailer(good, registrysize=-1), "registry size -1")
    _raises(xg_build.set_trailer(good, archivesize=-7), "archive size -7")
    _raises(xg_build.fix_archive_crc(xg_build.set_trailer(good, filecount=5)),
            "sizes do not add up: registry holds")


def test_bad_archive_crc(good):
    data = bytearray(good)
    data[-40] ^= 0x55  # inside the compressed registry
    _raises(bytes(data), "bad archive CRC: stored")
    _raises(xg_build.set_trailer(good, crc=0x12345678), "bad archive CRC: stored 12345678")


def test_bad_member_crc(good):
    _raises(xg_build.set_registry(good, 0, 524, "<I", 0xDEADBEEF),
            "bad CRC of member 0 ('temp.xg'): stored deadbeef")
    _raises(xg_build.set_registry(good, 2, 524, "<I", 1), "bad CRC of member 2 ('temp.xgc')")


def test_member_sizes(good):
    _raises(xg_build.set_registry(good, 0, 512, "<i", 5), "member 0 ('temp.xg') unpacks to more than 5 bytes")
    _raises(xg_build.set_registry(good, 0, 512, "<i", 10**9), "claims 1000000000 bytes")
    _raises(xg_build.set_registry(good, 0, 512, "<i", -1), "sizes do not add up")
    osize = len(xg_build.match_members(28)["temp.xg"])
    _raises(xg_build.set_registry(good, 0, 512, "<i", osize + 10),
            "sizes do not add up: member 0 ('temp.xg') unpacks to %d bytes, registry says %d" % (osize, osize + 10))
    _raises(xg_build.set_registry(good, 0, 520, "<i", 10**6), "truncated member: member 0 ('temp.xg') spans")
    _raises(xg_build.set_registry(good, 1, 0, "<B7s", 7, b"temp.xg"), "member 1 ('temp.xg') appears twice")
    _raises(xg_build.set_registry(good, 2, 512, "<i", 9 * 2**20),
            "member 2 ('temp.xgc') claims 9437184 bytes (limit 8388608)")


def test_truncated_member_stream(good):
    prefix, area, registry, _ = xg_build.take_apart(good)
    osize, csize, start = struct.unpack_from("<iii", registry, 512)
    struct.pack_into("<i", registry, 516, csize - 10)  # the stream loses its end
    _raises(xg_build.put_together(prefix, area, registry), "truncated member 0 ('temp.xg'): its compressed stream ends early")


def test_decompression_error(good):
    prefix, area, registry, _ = xg_build.take_apart(good)
    start = struct.unpack_from("<i", registry, 520)[0]
    area = bytearray(area)
    area[start] ^= 0xFF  # the zlib header of temp.xg; CRCs recomputed around it
    _raises(xg_build.put_together(prefix, bytes(area), registry), "cannot decompress member 0 ('temp.xg'): Error -3")
    t = xg_build.TRAILER.unpack_from(good, len(good) - 36)
    reg_at = len(good) - 36 - t[3]
    broken = bytearray(good)
    broken[reg_at] ^= 0xFF  # the zlib header of the registry
    _raises(xg_build.fix_archive_crc(bytes(broken)), "cannot decompress the registry")


def test_member_missing():
    members = xg_build.match_members(28)
    del members["temp.xg"]
    _raises(build_xg_bytes(members), "member temp.xg missing from the archive")


def test_truncated_record():
    recs = xg_build.match_records(28)
    _raises(_with_records(recs[:3] + [recs[3][:100]]), "truncated record: temp.xg is 7780 bytes, record 3 has 100 of 2560")
    _raises(_with_records([]), "temp.xg holds no record")


def test_unknown_record_type():
    recs = xg_build.match_records(28)
    for t in (6, 7, 200):
        bad = bytearray(recs[3])
        bad[8] = t
        _raises(_with_records(recs[:3] + [bytes(bad)] + recs[4:]),
                f"record 3: unknown record type (EntryType {t}, expected 0-5)")


def test_first_record_and_magic_and_version():
    recs = xg_build.match_records(28)
    _raises(_with_records(recs[1:]), "record 0 is EntryType 1 (HeaderGame), expected 0 (HeaderMatch)")
    _raises(_with_records([bytes(xg_build.header_match(28, magic=0x12345678))] + recs[1:]),
            "bad HeaderMatch magic 0x12345678")
    for v in (0, -3, MAX_VERSION + 1, 1000):
        _raises(_with_records([bytes(xg_build.header_match(v))] + recs[1:]),
                f"file version {v} outside the known range {MIN_VERSION}..{MAX_VERSION}")


def test_record_order():
    recs = xg_build.match_records(28)
    hm, hg, cu, mv, fg, fm = recs
    _raises(_with_records([hm, cu, hg]), "record 1: Cube outside a game")
    _raises(_with_records([hm, hg, fg, mv]), "record 3: Move outside a game")
    _raises(_with_records([hm, fg]), "record 1: FooterGame outside a game")
    _raises(_with_records([hm, hg, fg, fm, hg]), "record 4: HeaderGame after the FooterMatch")
    _raises(_with_records([hm, hg, hm]), "record 2: a second HeaderMatch")


def test_rollout_member_size():
    members = xg_build.match_members(40)
    members["temp.xgr"] += b"\0" * 10
    _raises(build_xg_bytes(members), "sizes do not add up: temp.xgr is 2194 bytes")


def test_position_file_structure():
    pos = xg_build.position_members("move")["temp.xg"]
    recs = [pos[k:k + 2560] for k in range(0, len(pos), 2560)]
    _raises(_with_records(recs + [bytes(xg_build.cube())]), "found HeaderMatch, HeaderGame, Move, Cube", "p.xgp")
    _raises(_with_records(recs[:2]), "found HeaderMatch, HeaderGame", "p.xgp")


def test_read_xg_missing_file(tmp_path):
    path = tmp_path / "nope.xg"
    with pytest.raises(XgFormatError, match=r"nope\.xg: cannot read the file: No such file"):
        read_xg(path)
    with pytest.raises(XgFormatError, match="cannot read the file"):
        read_xg(tmp_path)  # a directory
    with pytest.raises(XgFormatError, match="not a file path"):
        read_xg(3)  # type: ignore[arg-type]  (an int would be a file descriptor to open())


def test_not_bytes():
    with pytest.raises(XgFormatError, match="data is not bytes"):
        parse_xg_bytes(12.5, "x")  # type: ignore[arg-type]
