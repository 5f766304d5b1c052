"""XG (and SGF) matches written as files gnubg loads: its SGF and Jellyfish .mat.

The checks are made by the real gnubg 1.07: our SGF of the charlot match
(read from its ``.xg``) loads into the same records, dice, boards and final
match ID as gnubg's own SGF of that match; the Squire match (XG only, names
in UTF-8, one move XG flags invalid) loads with our rolls' boards and XG's
final score; gnubg's ``import mat`` of our ``.mat`` files gives the same
records as the SGF route.  The ``.mat`` layout is compared with what gnubg's
own ``export match mat`` wrote (the real charlot ``.mat``, and a money
session with a beaver and a raccoon exported by gnubg 1.07, below).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from conftest import DATA, FIXTURES, needs_gnubg, run_cli_inprocess as run_cli
from conftest import run_cli as run_cli_subprocess
from gnubg_blunder import __version__
from gnubg_blunder.pipeline import ConvertError
from gnubg_blunder.pipeline import read_one_match as read_match_file
from gnubg_blunder.exporters import ExportError, mat_text, sgf_text, write_mat, write_sgf
from gnubg_blunder.importers.xg import read_match as read_xg_match
from gnubg_blunder.importers.xg_format import read_xg

sys.path.insert(0, str(FIXTURES / "xg"))
import xg_build  # noqa: E402
from xg_container import build_xg_bytes  # noqa: E402

XG_DIR = DATA / "xg"
CHARLOT_XG = XG_DIR / "charlot1-charlot2_7p_2025-11-08-2305.xg"
SQUIRE_XG = XG_DIR / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
COMMENTED_XG = XG_DIR / "match_with_comment.xg"
CHARLOT_SGF = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"  # written by gnubg 1.08
CHARLOT_MAT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"  # = gnubg 1.07's `export match mat`

# A money session played in gnubg 1.07 (human players, `set jacoby on`,
# `set beavers 3`): a beaver, a redouble, a resignation; a drop; a raccoon and
# a resigned gammon.  `save match` wrote SESSION_SGF (GS removed; the names
# then set to those of the bundled files), gnubg 1.07's `load match` of it and
# `export match mat` wrote SESSION_MAT.
SESSION_SGF = r"""(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:0][ws:0][bs:0]PW[Kévin UNGER]PB[charlot2 \]x[]DT[2026-11-30]RU[Jacoby]RE[B+8R]
;W[31hefe]
;B[42qusu]
;W[double]
;B[double]
;W[take]
;W[65xrrm]
;B[double]
;W[take]
;B[65aggl])
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:1][ws:0][bs:8]PW[Kévin UNGER]PB[charlot2 \]x[]RU[Jacoby]RE[B+1]
;W[61mghg]
;B[double]
;W[drop])
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:2][ws:0][bs:9]PW[Kévin UNGER]PB[charlot2 \]x[]RU[Jacoby]RE[W+16R]
;B[52lqln]
;W[double]
;B[double]
;W[double]
;B[take]
;W[66xrxrmgmg])
"""
SESSION_MAT = """\
; [EventDate "2026.11.30"]

 0 point match

 Game 1
 Kévin UNGER : 0               charlot2 ]x[ : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4 
  2)  Doubles => 2                Beavers => 4
  3) 65: 24/18 18/13              Doubles => 8
  4)  Takes                      65: 24/18 18/13 
                                  Wins 8 points

 Game 2
 Kévin UNGER : 0               charlot2 ]x[ : 8
  1) 61: 13/7 8/7                 Doubles => 2
  2)  Drops                       Wins 1 point 

 Game 3
 Kévin UNGER : 0               charlot2 ]x[ : 9
  1)                             52: 13/8 13/11 
  2)  Doubles => 2                Beavers => 4
  3)  Beavers => 8                 
  4) 66: 24/18 24/18 13/7 13/7   
      Wins 16 points

"""


@pytest.fixture(scope="module")
def samples(shared_data):
    return {"charlot": read_xg_match(CHARLOT_XG), "squire": read_xg_match(SQUIRE_XG)}


@pytest.fixture(scope="module")
def session_sgf(tmp_path_factory):
    p = tmp_path_factory.mktemp("session") / "session.sgf"
    p.write_text(SESSION_SGF, encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def files(tmp_path_factory, samples, session_sgf):
    """Our SGF and .mat of each match, written through the API."""
    d = tmp_path_factory.mktemp("converted")
    out = {}
    matches = dict(samples, session=read_match_file(session_sgf))
    for name, m in matches.items():
        out[name + ".sgf"] = d / f"{name}.sgf"
        out[name + ".mat"] = d / f"{name}.mat"
        write_sgf(m, out[name + ".sgf"])
        write_mat(m, out[name + ".mat"])
    return out


# ---------------------------------------------------------------------------
# The SGF text
# ---------------------------------------------------------------------------

def _roots(text):
    return [line for line in text.splitlines() if line.startswith("(;")]


def test_sgf_roots(samples):
    m = samples["squire"]
    text = sgf_text(m)
    roots = _roots(text)
    assert len(roots) == len(m.games) == 8
    assert roots[0].startswith(
        f"(;FF[4]GM[6]CA[UTF-8]AP[gnubg-blunder:{__version__}]MI[length:7][game:0][ws:0][bs:0]"
        "PW[Squire/Jørgensen]PB[Harmand/Unger]DT[2024-08-18]EV[World Doubles Championship]"
    )
    for g, root in zip(m.games, roots):
        assert f"MI[length:7][game:{g.number}][ws:{g.score[0]}][bs:{g.score[1]}]" in root
        assert ("RU[Crawford:CrawfordGame]" if g.crawford else "RU[Crawford]") in root
        assert root.endswith(f"RE[{'WB'[g.winner]}+{g.points}{'R' if g.resigned else ''}]")
        if g.number:
            assert "DT[" not in root and "EV[" not in root  # match information on the first game only
    assert not re.search(r"(?<![A-Z])(A|DA|LU|GS|MR)\[", text)  # no analysis


def test_sgf_money_rules(session_sgf):
    roots = _roots(sgf_text(read_match_file(session_sgf)))
    assert len(roots) == 3
    assert all("MI[length:0]" in r and "RU[Jacoby]" in r and "Crawford" not in r for r in roots)


def test_sgf_of_gnubgs_session_is_gnubgs_own(session_sgf):
    """Beavers, a raccoon, a drop and resignations come out as gnubg wrote them."""
    ours = sgf_text(read_match_file(session_sgf))
    assert ours == SESSION_SGF.replace("AP[GNU Backgammon:1.07.001]", f"AP[gnubg-blunder:{__version__}]")


def test_sgf_comments_escaped_and_kept(tmp_path):
    m = read_xg_match(COMMENTED_XG)
    commented = [d for d in m.decisions() if d.comment]
    assert commented
    commented[0].comment = "a ] b \\ c\nline 2"
    text = sgf_text(m)
    assert "C[a \\] b \\\\ c\nline 2]" in text
    path = tmp_path / "c.sgf"
    write_sgf(m, path)
    back = read_match_file(path)
    assert back.players == ("Nicolas HARMAND", "Kévin UNGER")
    assert [d.comment for d in back.decisions() if d.comment] == [d.comment for d in commented]


def test_sgf_round_trip_keeps_every_roll_and_cube_action(samples, files):
    # the Squire match holds XG's invalid 4-3 (14/11 8/5): read back as a
    # roll without a decision, as gnubg loads it
    for name in ("charlot", "squire"):
        m, back = samples[name], read_match_file(files[name + ".sgf"])
        assert back.players == m.players and back.length == m.length and len(back.games) == len(m.games)
        for g, h in zip(m.games, back.games):
            assert (h.score, h.crawford, h.winner, h.points, h.resigned) == \
                   (g.score, g.crawford, g.winner, g.points, g.resigned)
            assert [(r.player, r.dice, r.position_id, r.position_after) for r in h.rolls] == \
                   [(r.player, r.dice, r.position_id, r.position_after) for r in g.rolls]
            cube = ("double", "take", "pass")
            assert [(d.kind, d.player, d.cube_value) for d in h.decisions if d.kind in cube] == \
                   [(d.kind, d.player, d.cube_value) for d in g.decisions if d.kind in cube]


def test_an_edited_board_is_a_set_board_node(samples, tmp_path):
    """A roll that does not start where the last move left the board (an
    edited position) gets gnubg's set-board node before it; .mat refuses."""
    import copy

    from gnubg_blunder.board import Board, legal_plays

    m = copy.deepcopy(samples["charlot"])
    g = m.games[0]
    r = g.rolls[10]
    b = Board.from_position_id(r.position_id)
    mine = list(b.on_roll)
    k = max(k for k in range(1, 24) if mine[k] and not b.opponent[24 - k])  # a checker with a free point below
    mine[k] -= 1  # moved one pip by hand
    mine[k - 1] += 1
    edited = Board(mine, b.opponent)
    r.position_id = edited.position_id()
    r.position_after = legal_plays(edited, *r.dice)[0].result.position_id()
    g.rolls = g.rolls[:11]
    g.decisions = [d for d in g.decisions if d.seq <= r.seq]
    g.winner = g.points = None
    m.games = [g]
    text = sgf_text(m)
    assert len(re.findall(r"\n;PL\[[WB]\]AE\[a:y\]AW(\[[a-y]\])+AB(\[[a-y]\])+\n", text)) == 1
    path = tmp_path / "edited.sgf"
    path.write_text(text, encoding="utf-8")
    back = read_match_file(path)
    assert [(x.position_id, x.position_after) for x in back.games[0].rolls] == \
           [(x.position_id, x.position_after) for x in g.rolls]
    with pytest.raises(ExportError, match="edited"):
        mat_text(m)


def test_writers_accept_files_and_refuse_positions(samples, tmp_path):
    import io

    m = samples["charlot"]
    buf = io.StringIO()
    write_sgf(m, buf)
    raw = io.BytesIO()
    write_mat(m, raw)
    assert buf.getvalue() == sgf_text(m) and raw.getvalue().decode("utf-8") == mat_text(m)
    xgp = tmp_path / "p.xgp"
    xgp.write_bytes(build_xg_bytes(xg_build.position_members("move")))
    position = read_xg_match(xgp)
    with pytest.raises(ExportError, match="position"):
        sgf_text(position)
    with pytest.raises(ConvertError, match=r"\.xgp.*not a match"):
        read_match_file(xgp)


# ---------------------------------------------------------------------------
# The .mat layout, against gnubg's own export
# ---------------------------------------------------------------------------

_CELL = re.compile(r"(\d\d: (?:\d+/\d+\*? ?){0,4})|( (?:Doubles|Beavers) => \d+)|( Takes)|( Drops)|(Wins \d+ points?)")


def _net(cell: str) -> str:
    """A move cell by what it does (dice, net checker movement, hits): gnubg
    and we may write one play by different steps (10/9 9/6 = 10/7 7/6)."""
    dice, _, steps = cell.partition(": ")
    moved = Counter()
    for tok in steps.split():
        a, b = tok.rstrip("*").split("/")
        moved[int(a)] -= 1
        moved[int(b)] += 1
    stars = steps.count("*")
    return f"{dice}: {sorted(moved.elements())} {sorted((-moved)[k] * (k,) for k in (-moved))} {stars}*"


def mat_layout(text: str) -> list:
    """Each line: as it is (headers, names, blank lines), or its cells with
    their columns and move cells by what they do."""
    out = []
    for line in text.splitlines():
        if line.startswith("; [Site"):
            continue  # the XG file knows the place, gnubg's SGF did not
        cells = [(m.start(), _net(m.group(1)) if m.group(1) else m.group(0)) for m in _CELL.finditer(line)]
        numbered = re.match(r"^ *(\d+)\) ", line)
        if numbered or line.lstrip().startswith("Wins"):
            out.append((numbered.group(1) if numbered else "", cells))
        else:
            out.append(line)
    return out


def test_mat_layout_is_gnubgs(samples, files, shared_data):
    ours = files["charlot.mat"].read_text(encoding="utf-8")
    theirs = CHARLOT_MAT.read_text(encoding="utf-8")
    assert mat_layout(ours) == mat_layout(theirs)
    assert ours.startswith('; [Site "Gammon Empire/Play65"]\n; [EventDate "2025.11.08"]\n\n 7 point match\n\n Game 1\n'
                           " charlot1 : 0                   charlot2 : 0\n"
                           "  1)                             41: 13/9 24/23 \n")
    assert "\n 22)  Doubles => 4                Drops\n      Wins 2 points\n\n Game 3\n" in ours
    assert ours.endswith("      Wins 3 points\n\n")


def test_mat_of_gnubgs_session_is_gnubgs_export(files):
    ours = files["session.mat"].read_text(encoding="utf-8")
    assert mat_layout(ours) == mat_layout(SESSION_MAT)
    # lines without moves, byte for byte (names padded in UTF-8 bytes, as gnubg pads them)
    keep = [line for line in SESSION_MAT.splitlines() if not re.search(r"\d\d: \d", line)]
    assert [line for line in ours.splitlines() if not re.search(r"\d\d: \d", line)] == keep


# ---------------------------------------------------------------------------
# gnubg loads what we write
# ---------------------------------------------------------------------------

_GNUBG_VIEW = r"""
import gnubg, json
def view(cmd):
    gnubg.command(cmd)
    m = gnubg.match(analysis=0, boards=1)
    n = len(m["games"])
    gnubg.navigate()              # the start of the match,
    gnubg.navigate(game=n - 1)    # the last game,
    gnubg.navigate(next=100000)   # its last record
    recs = [[[r.get("action"), r.get("player"), r.get("dice"), r.get("board")] for r in g["game"]]
            for g in m["games"]]
    info = m["match-info"]
    return dict(players=[info["X"]["name"], info["O"]["name"]], length=info["match-length"],
                games=[g["info"] for g in m["games"]], records=recs, matchid=gnubg.matchid())
out = {}
for key, cmd in JOBS:
    out[key] = view(cmd)
with open(OUT, "w", encoding="utf-8") as fh:
    json.dump(out, fh, ensure_ascii=False)
"""


@pytest.fixture(scope="module")
def gnubg_views(files, session_sgf, tmp_path_factory):
    """What the real gnubg sees in each file (one gnubg run for all)."""
    from gnubg_blunder.gnubg.process import run_python

    jobs = [
        ("charlot gnubg", f'load match "{CHARLOT_SGF}"'),
        ("session gnubg", f'load match "{session_sgf}"'),
    ]
    for name in ("charlot", "squire", "session"):
        jobs.append((f"{name} sgf", f'load match "{files[name + ".sgf"]}"'))
        jobs.append((f"{name} mat", f'import mat "{files[name + ".mat"]}"'))
    out = tmp_path_factory.mktemp("gnubg") / "views.json"
    source = f"JOBS = {jobs!r}\nOUT = {str(out)!r}\n" + _GNUBG_VIEW
    res = run_python(source, timeout=120)
    if not out.exists():
        raise AssertionError(f"gnubg wrote nothing: {res.stdout[-800:]} {res.stderr[-800:]}")
    return json.loads(out.read_text(encoding="utf-8"))


@needs_gnubg
def test_charlot_sgf_loads_as_gnubgs_own(gnubg_views):
    ours, ref = gnubg_views["charlot sgf"], gnubg_views["charlot gnubg"]
    assert ours["players"] == ref["players"] == ["charlot1", "charlot2"]
    assert ours["length"] == ref["length"] == 7
    assert len(ours["games"]) == len(ref["games"]) == 4
    assert ours["games"] == ref["games"]  # scores, Crawford, winners, points, resignations
    for g_ours, g_ref in zip(ours["records"], ref["records"]):
        assert g_ours == g_ref  # action, player, dice and board of every record, in order
    assert sum(r[0] == "move" for g in ours["records"] for r in g) == 189
    assert ours["matchid"] == ref["matchid"]


@needs_gnubg
def test_squire_sgf_loads_with_unicode_names_and_our_boards(samples, gnubg_views):
    m, seen = samples["squire"], gnubg_views["squire sgf"]
    assert seen["players"] == ["Squire/Jørgensen", "Harmand/Unger"]
    assert seen["length"] == 7 and len(seen["games"]) == 8
    for g, recs in zip(m.games, seen["records"]):
        moves = [(r[3], tuple(r[2]), r[1]) for r in recs if r[0] == "move"]
        # every roll, the invalid 4-3 (14/11 8/5) of game 7 included
        assert moves == [(r.position_id, tuple(r.dice), "XO"[r.player]) for r in g.rolls]
    footer = read_xg(SQUIRE_XG).footer
    from gnubg_blunder.board import MatchState

    state = MatchState.from_match_id(seen["matchid"])
    assert state.score == (footer.Score1m, footer.Score2m) == (7, 6)
    assert state.match_length == 7


@needs_gnubg
@pytest.mark.parametrize("name", ["charlot", "squire", "session"])
def test_mat_imports_as_the_sgf_route(name, gnubg_views):
    sgf, mat = gnubg_views[f"{name} sgf"], gnubg_views[f"{name} mat"]
    assert mat["players"] == sgf["players"]  # UTF-8 names read back as written
    assert mat["length"] == sgf["length"]
    assert mat["records"] == sgf["records"]
    assert mat["games"] == sgf["games"]  # scores, Crawford game, winner, points, resigned
    assert mat["matchid"] == sgf["matchid"]


@needs_gnubg
def test_session_sgf_loads_as_gnubgs_own(gnubg_views):
    assert gnubg_views["session sgf"]["records"] == gnubg_views["session gnubg"]["records"]
    assert gnubg_views["session sgf"]["matchid"] == gnubg_views["session gnubg"]["matchid"]


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def test_convert_command(tmp_path, shared_data):
    sgf, mat = tmp_path / "squire.sgf", tmp_path / "squire.mat"
    res = run_cli("convert", SQUIRE_XG, sgf)
    assert res.stdout.strip() == (f"wrote {sgf} (gnubg SGF): Squire/Jørgensen vs Harmand/Unger, 7-point match, "
                                  f"8 games, from {SQUIRE_XG}")
    assert sgf.read_text(encoding="utf-8") == sgf_text(read_xg_match(SQUIRE_XG))
    res = run_cli("convert", SQUIRE_XG, mat)
    assert res.stdout.startswith(f"wrote {mat} (Jellyfish .mat): Squire/Jørgensen")
    assert mat.read_text(encoding="utf-8") == mat_text(read_xg_match(SQUIRE_XG))
    cmat = tmp_path / "charlot.mat"
    res = run_cli("convert", CHARLOT_SGF, cmat)  # gnubg's SGF as input
    assert res.stdout.startswith(f"wrote {cmat} (Jellyfish .mat): charlot1 vs charlot2, 7-point match, 4 games")
    assert mat_layout(cmat.read_text(encoding="utf-8")) == mat_layout(CHARLOT_MAT.read_text(encoding="utf-8"))


def _refused(res, name):
    assert res.returncode != 0
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and str(name) in lines[0] and "Traceback" not in res.stderr
    return lines[0]


def test_convert_refuses_positions_unknown_suffixes_and_bad_files(tmp_path, shared_data):
    xgp = tmp_path / "pos.xgp"
    xgp.write_bytes(build_xg_bytes(xg_build.position_members("move")))
    line = _refused(run_cli("convert", xgp, tmp_path / "p.sgf", check=False), xgp)
    assert "position" in line and "not a match" in line
    assert not (tmp_path / "p.sgf").exists()
    out = tmp_path / "m.txt"
    line = _refused(run_cli("convert", SQUIRE_XG, out, check=False), out)
    assert "unknown output format '.txt'" in line and not out.exists()
    _refused(run_cli("convert", tmp_path / "missing.xg", tmp_path / "m.sgf", check=False), tmp_path / "missing.xg")
    broken = tmp_path / "broken.xg"
    broken.write_bytes(b"not an xg file at all")
    _refused(run_cli("convert", broken, tmp_path / "m.sgf", check=False), broken)
    odd = tmp_path / "m.gam"
    odd.write_text("x")
    assert "cannot read .gam files" in _refused(run_cli("convert", odd, tmp_path / "m.sgf", check=False), odd)


def test_convert_needs_no_analysis(tmp_path):
    """An XG match never analysed (the importers refuse it for the store)."""
    recs = [bytes(xg_build.header_match(32, match_length=3)), bytes(xg_build.header_game()),
            bytes(xg_build.cube(err_cube=-1000.0)),
            bytes(xg_build.move(err_move=-1000.0, err_luck=-1000.0, comment=-1)),
            bytes(xg_build.footer_game()), bytes(xg_build.footer_match())]
    src = tmp_path / "plain.xg"
    src.write_bytes(build_xg_bytes(xg_build.match_members(32, recs)))
    out = tmp_path / "plain.sgf"
    res = run_cli("convert", src, out)
    assert "Ünïcode Øne vs Jørgensen Ωmega, 3-point match, 1 game" in res.stdout
    assert ";W[31mjfe])" in out.read_text(encoding="utf-8")


@pytest.fixture
def plugin_importer(monkeypatch):
    """Registers a plugin's importer of ``.foo`` files (made by the test) in
    a plugin manager of the built-in plugins; yields a list of its calls."""
    from gnubg_blunder import plugins
    from gnubg_blunder.hookspecs import hookimpl

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    plugins.reset_plugin_manager()
    calls = []

    def use(importer):
        importer.name, importer.extensions = "foo-reader", (".foo",)

        class Plugin:
            @hookimpl
            def register_importers(self, register):
                register(importer)

        plugins.get_plugin_manager().register(Plugin(), name="foo-plugin")
        return calls

    yield use
    plugins.reset_plugin_manager()


def test_convert_reads_with_an_importer_that_takes_no_require_analysis(plugin_importer, tmp_path):
    """A plugin's importer written before ``require_analysis`` (``read(path)``)
    is called without it, once (its signature says so)."""
    charlot = read_xg_match(CHARLOT_XG)

    class OldImporter:
        def read(self, path):
            calls.append(path)
            return [charlot]

    calls = plugin_importer(OldImporter())
    src = tmp_path / "m.foo"
    src.write_text("x")
    assert read_match_file(src) is charlot and calls == [src]


def test_convert_does_not_retry_an_importer_whose_own_code_raises_type_error(plugin_importer, tmp_path):
    """An importer that takes ``require_analysis`` and raises ``TypeError``
    inside (its own bug) is called once, with the keyword; its error is the
    file's one line, not hidden by a second call without the keyword."""

    class BuggyImporter:
        def read(self, path, require_analysis=True):
            calls.append(require_analysis)
            return len(None)  # TypeError inside the importer

    calls = plugin_importer(BuggyImporter())
    src = tmp_path / "m.foo"
    src.write_text("x")
    with pytest.raises(ConvertError):
        read_match_file(src)
    assert calls == [False]


# ---------------------------------------------------------------------------
# bdb.open_xg inside gnubg, as a user types it
# ---------------------------------------------------------------------------

@needs_gnubg
def test_open_xg_in_gnubg(tmp_path, gnubg_views, shared_data):
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    (home / ".gnubg" / "gnubgrc").write_text("set sound enable off\n")
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    env.pop("GNUBG_BLUNDER_DB", None)
    run_cli_subprocess("install-gnubg", env=env)  # a whole environment: a real process
    session = "\n".join([
        f'>bdb.open_xg("{SQUIRE_XG}")',
        '>import gnubg; i = gnubg.match(0,0,0,0)["match-info"]; '
        'print("SEEN", i["X"]["name"], "|", i["O"]["name"], "|", i["match-length"], "|", gnubg.matchid())',
        f'>bdb.open_xg("{tmp_path / "missing.xg"}")',
        ">bdb.open_xg(42)",
        "",
    ])
    res = subprocess.run(["/usr/games/gnubg", "-t"], input=session, capture_output=True, text=True, env=env,
                         timeout=120)
    out = res.stdout
    assert "gnubg-blunder loaded" in out
    assert (f"gnubg-blunder: opened {SQUIRE_XG}: Squire/Jørgensen vs Harmand/Unger, 7-point match, 8 games"
            in out)
    seen = next(line for line in out.splitlines() if line.startswith("SEEN "))
    assert seen == f"SEEN Squire/Jørgensen | Harmand/Unger | 7 | {gnubg_views['squire sgf']['matchid']}"
    assert f"gnubg-blunder: {tmp_path / 'missing.xg'}: no such file" in out
    assert "gnubg-blunder: 42: not an XG match file (.xg)" in out
    assert "Traceback" not in out + res.stderr
