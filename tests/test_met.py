"""The match equity table against the real GNU Backgammon.

One gnubg process (``gnubg -t -q -r -p``) loads the bundled Kazaross-XG2
table, dumps its extended tables (``gnubg.met(64)``) and evaluates
``gnubg.eq2mwc`` / ``gnubg.mwc2eq`` over a grid of match lengths, scores,
cubes, movers and Crawford flags; pytest compares every value with
``gnubg_blunder.met``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from conftest import needs_gnubg
from gnubg_blunder.met import BUNDLED_MET, MAXSCORE, MatchEquityTable, default_met

TOL = 1e-6

LENGTHS = (1, 2, 3, 4, 5, 7, 9, 11, 13, 17, 25, 26, 31, 45, 64)
EQUITIES = (-1.0, -0.37, 0.0, 0.5, 1.2)
MWCS = (0.0, 0.13, 0.5, 0.81, 1.0)
MARKER = "@@MET-JSON@@"


def _scores(length: int):
    """Every score pair up to 25 points; for longer matches every score
    near either end of the match and a spread in between."""
    if length <= 25:
        values = range(length)
    else:
        near = set(range(0, 4)) | set(range(length - 6, length))
        values = sorted(near | set(range(0, length, 5)))
    return [(a, b) for a in values for b in values]


def _cubes(length: int):
    cubes = [1, 2, 4, 8]
    c = 16
    while c <= 64 and c < 2 * length:  # gnubg segfaults from cube 256 on
        cubes.append(c)
        c *= 2
    return cubes


def _grid():
    """(length, score_X, score_O, cube, owner, mover, crawford) points."""
    grid = []
    for length in LENGTHS:
        for sx, so in _scores(length):
            one_away = (length - sx == 1) + (length - so == 1)
            # Crawford only when exactly one player is 1-away; when one is,
            # crawford=0 is the post-Crawford game at that score.
            flags = (0, 1) if one_away == 1 else (0,)
            for cube in _cubes(length):
                for mover in (0, 1):
                    for crawford in flags:
                        owner = (-1, 0, 1)[(sx + so + cube) % 3]
                        grid.append((length, sx, so, cube, owner, mover, crawford))
    return grid


GNUBG_SCRIPT = r'''
import json, sys
import gnubg
gnubg.command("set matchequitytable " + MET_PATH)
out = {"met": gnubg.met(64), "eq2mwc": [], "mwc2eq": []}
for (length, sx, so, cube, owner, mover, crawford) in GRID:
    ci = gnubg.cubeinfo(cube, owner, mover, length, (sx, so), crawford)
    out["eq2mwc"].append([gnubg.eq2mwc(e, ci) for e in EQUITIES])
    out["mwc2eq"].append([gnubg.mwc2eq(m, ci) for m in MWCS])
sys.stdout.write("\n" + MARKER + "\n" + json.dumps(out) + "\n")
sys.stdout.flush()
'''


@pytest.fixture(scope="module")
def gnubg_values():
    from gnubg_blunder.gnubg.process import run_python

    grid = _grid()
    source = (
        f"MET_PATH = {str(BUNDLED_MET)!r}\n"
        f"GRID = {json.dumps(grid)}\n"
        f"EQUITIES = {list(EQUITIES)!r}\n"
        f"MWCS = {list(MWCS)!r}\n"
        f"MARKER = {MARKER!r}\n" + GNUBG_SCRIPT
    )
    proc = run_python(source, timeout=300)
    assert MARKER in proc.stdout, f"gnubg failed (rc {proc.returncode}): {proc.stderr[-2000:]}"
    data = json.loads(proc.stdout.split(MARKER, 1)[1].strip().splitlines()[0])
    assert len(data["eq2mwc"]) == len(grid)
    return grid, data


def _same(ours: float, theirs: float, tol: float = TOL) -> bool:
    if not (math.isfinite(ours) and math.isfinite(theirs)):
        return ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    return abs(ours - theirs) <= tol


# ---------------------------------------------------------------------------
# against gnubg


@needs_gnubg
def test_extended_tables_equal_gnubg(gnubg_values):
    _, data = gnubg_values
    met = default_met()
    pre = np.array(data["met"][0], dtype=np.float64)
    post = np.array(data["met"][1:], dtype=np.float64)
    assert pre.shape == (MAXSCORE, MAXSCORE) and post.shape == (2, MAXSCORE)
    # Bit-identical, not just close: gnubg's float32 values survive JSON.
    assert np.array_equal(pre, met.pre_crawford.astype(np.float64))
    assert np.array_equal(post, met.post_crawford_by_player.astype(np.float64))


@needs_gnubg
def test_conversions_equal_gnubg_on_grid(gnubg_values):
    grid, data = gnubg_values
    met = default_met()
    n_points = 0
    worst = {"eq2mwc": 0.0, "mwc2eq": 0.0}
    failures = []
    for point, g_eq, g_mwc in zip(grid, data["eq2mwc"], data["mwc2eq"]):
        length, sx, so, cube, _owner, mover, crawford = point
        me, opp = (sx, so) if mover == 0 else (so, sx)
        args = (length, me, opp, cube, bool(crawford))
        for e, theirs in zip(EQUITIES, g_eq):
            ours = met.eq2mwc(e, *args, player=mover)
            n_points += 1
            if not _same(ours, theirs):
                failures.append(("eq2mwc", point, e, ours, theirs))
            elif math.isfinite(theirs):
                worst["eq2mwc"] = max(worst["eq2mwc"], abs(ours - theirs))
        for m, theirs in zip(MWCS, g_mwc):
            ours = met.mwc2eq(m, *args, player=mover)
            n_points += 1
            if not _same(ours, theirs):
                failures.append(("mwc2eq", point, m, ours, theirs))
            elif math.isfinite(theirs):
                worst["mwc2eq"] = max(worst["mwc2eq"], abs(ours - theirs))
    assert not failures, f"{len(failures)} of {n_points} differ, e.g. {failures[:5]}"
    # The float32 arithmetic reproduces gnubg's to the bit.
    assert worst == {"eq2mwc": 0.0, "mwc2eq": 0.0}
    assert n_points > 100_000


@needs_gnubg
def test_default_player_close_to_gnubg(gnubg_values):
    """Without gnubg's player index (player=0 for everybody) eq2mwc and the
    MWC per EMG still agree with gnubg to 1e-6."""
    grid, data = gnubg_values
    met = default_met()
    for point, g_eq in zip(grid, data["eq2mwc"]):
        length, sx, so, cube, _owner, mover, crawford = point
        me, opp = (sx, so) if mover == 0 else (so, sx)
        args = (length, me, opp, cube, bool(crawford))
        for e, theirs in zip(EQUITIES, g_eq):
            assert abs(met.eq2mwc(e, *args) - theirs) <= TOL, (point, e)
        slope = (g_eq[EQUITIES.index(0.5)] - g_eq[EQUITIES.index(0.0)]) / 0.5
        assert abs(met.mwc_per_emg(*args) - slope) <= 4 * TOL, point


# ---------------------------------------------------------------------------
# hand checks (no gnubg needed)


def _xml_values():
    root = etree.parse(str(BUNDLED_MET)).getroot()
    pre = [[float(x.text) for x in row.findall("me")] for row in root.findall("pre-crawford-table/row")]
    post = [float(x.text) for x in root.findall("post-crawford-table/row/me")]
    return pre, post


def test_load_and_cache():
    met = MatchEquityTable.load()
    assert met is MatchEquityTable.load(BUNDLED_MET)
    assert default_met() is default_met()
    assert met.name == "Kazaross XG2 25 point MET"
    assert met.stored_length == 25
    assert met.pre_crawford.shape == (64, 64)
    assert met.post_crawford.shape == (64,)
    with pytest.raises(ValueError):
        met.pre_crawford[0, 0] = 0.1  # read-only


def test_stored_entries_match_xml():
    met = default_met()
    pre, post = _xml_values()
    assert np.array_equal(met.pre_crawford[:25, :25], np.array(pre, dtype=np.float32))
    # 24 stored post-Crawford entries are used; the 25th is recomputed.
    assert np.array_equal(met.post_crawford[:24], np.array(post[:24], dtype=np.float32))
    assert len(post) == 25
    assert met.post_crawford[24] == np.float32(
        np.float32(0.125) * met.post_crawford[20] + np.float32(0.375) * met.post_crawford[22]
    )
    assert met.post_crawford[24] != np.float32(post[24])


def test_hand_values():
    met = default_met()
    assert met.mwc(1, 1) == 0.5
    assert met.mwc(1, 1, post_crawford=True) == 0.5
    assert met.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803, abs=1e-7)
    assert met.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803, abs=1e-7)
    assert met.mwc(1, 2) == pytest.approx(0.67736, abs=1e-7)  # Crawford game start
    assert met.mwc(7, 7) == 0.5
    assert met.mwc(0, 3) == 1.0 and met.mwc(3, -2) == 0.0
    # Extended part: complementary and monotone.
    for a in (26, 40, 64):
        for b in (1, 5, 30, 64):
            assert met.mwc(a, b) + met.mwc(b, a) == pytest.approx(1.0, abs=1e-7)
    assert met.mwc(64, 1) < met.mwc(63, 1) < met.mwc(30, 1) < met.mwc(25, 1)
    with pytest.raises(ValueError):
        met.mwc(65, 3)
    with pytest.raises(ValueError):
        met.mwc(3, 4, post_crawford=True)


def test_score_rule():
    met = default_met()
    # Pre-Crawford game reaching 1-away: the pre-Crawford 1-away entry.
    win, lose = met.win_lose_mwc(5, 2, 2, 2, False)
    assert win == met.mwc(1, 3) and lose == met.mwc(3, 1)
    # Crawford game (opponent 1-away): result read post-Crawford.
    win, lose = met.win_lose_mwc(5, 2, 4, 1, True)
    assert win == met.mwc(2, 1, post_crawford=True) and lose == 0.0
    # The same score post-Crawford converts identically.
    assert met.win_lose_mwc(5, 2, 4, 1, False) == (win, lose)
    # Crawford leader: losing leaves 1-away vs 2-away, post-Crawford.
    win, lose = met.win_lose_mwc(5, 4, 2, 1, True)
    assert win == 1.0 and lose == met.mwc(1, 2, post_crawford=True)
    # Cube bigger than needed: win ends the match.
    assert met.win_lose_mwc(7, 0, 0, 8, False) == (1.0, 0.0)
    # eq2mwc / mwc2eq are inverse linear maps between (-1, +1) and (L, W).
    w, l = met.win_lose_mwc(11, 3, 6, 2, False)
    assert met.eq2mwc(1.0, 11, 3, 6, 2, False) == pytest.approx(w, abs=1e-7)
    assert met.eq2mwc(-1.0, 11, 3, 6, 2, False) == pytest.approx(l, abs=1e-7)
    assert met.mwc2eq(met.eq2mwc(0.3, 11, 3, 6, 2, False), 11, 3, 6, 2, False) == pytest.approx(0.3, abs=1e-5)
    assert met.mwc_per_emg(11, 3, 6, 2, False) == pytest.approx((w - l) / 2)


def test_money_and_errors():
    met = default_met()
    assert met.eq2mwc(0.5, 0, 0, 0, 4, False) == 2.0
    assert met.mwc2eq(2.0, 0, 0, 0, 4, False) == 0.5
    assert met.mwc_per_emg(0, 0, 0, 1, False) is None
    with pytest.raises(ValueError):
        met.eq2mwc(0.0, 5, 0, 0, 1, True)  # Crawford needs a player 1-away
    with pytest.raises(ValueError):
        met.eq2mwc(0.0, 65, 0, 0, 1, False)
    with pytest.raises(ValueError):
        met.eq2mwc(0.0, 5, 5, 0, 1, False)
    with pytest.raises(ValueError):
        met.eq2mwc(0.0, 5, 0, 0, 0, False)


def test_load_other_path(tmp_path: Path):
    copy = tmp_path / "k.xml"
    copy.write_bytes(BUNDLED_MET.read_bytes())
    other = MatchEquityTable.load(copy)
    assert other is not default_met()
    assert np.array_equal(other.pre_crawford, default_met().pre_crawford)
