"""Difficulty d (SPEC §6): the rule's checks by hand, real gnubg matches
against gnubg's own candidate equities, XG's stored lists, the upgrade of a
database of the previous schema (v6) and the figures made of d."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import gnubg_match_dump, run_cli_inprocess
from gnubg_blunder.metrics.difficulty import TAU, cube_deltas, decision_difficulty, difficulties, soft_difficulty
from gnubg_blunder.codec.candidates import decode

FIXTURES = Path(__file__).resolve().parent / "fixtures"
XG = FIXTURES / "real" / "xg"
V6 = FIXTURES / "schema" / "v6.db"


# -- the rule, by hand ------------------------------------------------------------------

@pytest.mark.parametrize("delta", [0.001, 0.01, 0.02, 0.032, 0.05, 0.1, 0.3])
def test_two_options_delta_apart(delta):
    assert soft_difficulty([0.0, delta]) == pytest.approx(delta / (1 + math.exp(delta / TAU)), abs=1e-15)


def test_two_options_largest_near_0_032():
    xs = np.arange(1, 2001) * 1e-4  # 0.0001 .. 0.2
    ds = [soft_difficulty([0.0, x]) for x in xs]
    peak = xs[int(np.argmax(ds))]
    assert abs(peak - 0.032) < 0.0005, peak
    assert max(ds) == pytest.approx(0.00696, abs=1e-5)


def test_delta_0_1_gives_about_0_002():
    assert soft_difficulty([0.0, 0.1]) == pytest.approx(0.0018, abs=1e-4)
    assert round(soft_difficulty([0.0, 0.1]), 3) == 0.002


def test_five_options_spaced_0_01():
    d = soft_difficulty([0.0, 0.01, 0.02, 0.03, 0.04])
    assert abs(d - 0.012) < 0.001 and d == pytest.approx(0.012507, abs=1e-6)  # SPEC: ≈ 0.012


def test_checker_deltas_from_the_first_candidate_floored_at_zero():
    # a lower-depth tail scoring above the first candidate counts Δ = 0
    assert decision_difficulty("checker", [0.10, 0.12, 0.05], None, None, None) == pytest.approx(
        soft_difficulty([0.0, 0.0, 0.05]))


def test_a_forced_play_has_no_d():
    base = dict(kind="checker", error=0.0, n_candidates=1, equity_spread=0.0, xg_counted=None, nd=None, dt=None,
                dp=None, beaver_take=0, equities=[0.3])
    # one legal play; every legal play listed with the same equity; XG's verdict "not counted"
    forced = [dict(base, n_legal=1), dict(base, n_legal=2, n_candidates=2, equities=[0.3, 0.3]),
              dict(base, n_legal=4, xg_counted=0, equities=[0.3, 0.2])]
    assert difficulties(forced) == [(None, None)] * 3
    # unforced: d, and truncated when the list is shorter than the legal plays
    (d, t), = difficulties([dict(base, n_legal=3, n_candidates=2, equity_spread=0.02, equities=[0.3, 0.28])])
    assert d == pytest.approx(0.02 / (1 + math.exp(0.02 / TAU))) and t == 1
    # e unknown: no d
    assert difficulties([dict(base, error=None, n_legal=3, n_candidates=3, equity_spread=0.1,
                              equities=[0.3, 0.25, 0.2])]) == [(None, None)]


def test_d_of_many_decisions_at_once_is_the_rule_of_one():
    """``difficulty_columns`` (numpy, schema step 7 and every import) gives
    the d of :func:`soft_difficulty` over each list or cube's options, to
    1e-12, and no d where the rule gives none (unknown equity, empty list,
    not counted)."""
    import random

    rng = random.Random(7)
    rows = []
    for _ in range(3000):
        kind = rng.choice(["checker", "checker", "nodouble", "double", "take", "pass"])
        n = rng.choice([0, 1, 2, 5, 9, 20])
        eqs = [round(rng.uniform(-1, 1), 6) for _ in range(n)]
        if n and rng.random() < 0.05:
            eqs[rng.randrange(n)] = rng.choice([None, float("nan")])
        rows.append(dict(kind=kind, error=rng.choice([None, 0.0, 0.05]), n_legal=rng.choice([None, 1, 5, 20]),
                         n_candidates=n, equity_spread=rng.choice([None, 0.0, 0.3]),
                         xg_counted=rng.choice([None, 0, 1]), nd=rng.choice([None, rng.uniform(-1, 1.2)]),
                         dt=rng.uniform(-1, 1.5), dp=rng.choice([None, float("nan"), 1.0, rng.uniform(0.5, 1)]),
                         beaver_take=rng.choice([0, 0, 1, 2]), equities=eqs))
    got = difficulties(rows)
    seen = 0
    for r, (d, t) in zip(rows, got):
        one = None
        if r["kind"] == "checker":
            eqs = r["equities"]
            if eqs and all(q is not None and q == q for q in eqs):
                one = soft_difficulty([max(0.0, eqs[0] - q) for q in eqs])
        elif r["nd"] is not None:
            one = decision_difficulty(r["kind"], [], r["nd"], r["dt"], r["dp"])
        if d is None:
            assert t is None
            continue
        seen += 1
        assert d == pytest.approx(one, abs=1e-12)
        assert t == (int(r["n_legal"] is not None and len(r["equities"]) < r["n_legal"])
                     if r["kind"] == "checker" else 0)
    assert seen > 500


def test_step_7_reads_the_equities_of_stored_lists_as_json_does():
    """Schema step 7 reads the candidates' equities as text when the lists
    are as the store writes them, else with ``json.loads``: the same values
    either way (null as NaN, NaN, exponents, a string holding the key)."""
    from gnubg_blunder.store.schema import _stored_equities

    def lists(texts):
        flat, lens = _stored_equities(texts)
        out, k = [], 0
        for n in lens.tolist():
            out.append(flat[k:k + n].tolist())
            k += n
        return out

    def want(texts):
        return [[float("nan") if c.get("equity") is None else float(c.get("equity")) for c in json.loads(t)]
                if t else [] for t in texts]

    written = [json.dumps([{"move": f"m{k}", "equity": q, "position_id": "4HPwATDgc/ABMA", "probs": [0.5, 0.1],
                            "depth": "2-ply"} for k, q in enumerate(eqs)])
               for eqs in ([0.5, -0.25, 1e-07], [0], [-1.5e-05, 0.2], [])] + [None, ""]
    odd = [json.dumps([{"move": "m0", "equity": None}, {"equity": 0.1, "move": "m1"}]),
           json.dumps([{"move": 'x "equity": 9', "equity": 0.3}]),
           json.dumps([{"move": "m", "equity": float("nan")}, {"move": "n"}]),
           '[{"move":"m","equity":0.25}]']
    for texts in (written, written + odd[:1], written + odd[1:2], odd[2:3], odd[3:], odd):
        assert str(lists(texts)) == str(want(texts)), texts


def test_a_cube_decision_by_hand_owner_and_responder():
    # doubler's ND 0.62, DT 0.70, DP 1.00: R = min(DT, DP) = 0.70, B = max(ND, R) = 0.70
    nd, dt, dp = 0.62, 0.70, 1.00
    # owner: options ND (Δ = 0.08) and D (Δ = 0): d = 0.08 / (1 + e^(0.08/0.025))
    owner = 0.08 / (1 + math.exp(3.2))
    assert owner == pytest.approx(0.0031333, abs=1e-7)  # 0.08 / (1 + 24.5325)
    for kind in ("nodouble", "double"):
        assert cube_deltas(kind, nd, dt, dp) == pytest.approx([0.08, 0.0])
        assert decision_difficulty(kind, [], nd, dt, dp) == pytest.approx(owner, abs=1e-12)
    # responder: take (Δ = DT − R = 0) and pass (Δ = DP − R = 0.30): d = 0.3 / (1 + e^12)
    resp = 0.3 / (1 + math.exp(12))
    assert resp == pytest.approx(1.8432e-6, rel=1e-4)
    for kind in ("take", "pass"):
        assert cube_deltas(kind, nd, dt, dp) == pytest.approx([0.0, 0.30])
        assert decision_difficulty(kind, [], nd, dt, dp) == pytest.approx(resp, abs=1e-15)
    # a close pass: DT 1.02 > DP: R = 1, take costs 0.02, pass 0
    close = 0.02 / (1 + math.exp(0.8))
    assert decision_difficulty("pass", [], 0.9, 1.02, 1.0) == pytest.approx(close, abs=1e-12)
    # too good: ND 1.1 above DP: owner's D costs 0.1
    assert decision_difficulty("nodouble", [], 1.1, 1.3, 1.0) == pytest.approx(0.1 / (1 + math.exp(4)))


# -- real gnubg matches: Σd from gnubg's own equities --------------------------------------

MARKER = "@@MWC2EQ@@"
_MWC2EQ = r'''
import json, sys
import gnubg
out = []
for (mwc, cube, owner, mover, length, s0, s1, crawford) in ITEMS:
    out.append(gnubg.mwc2eq(mwc, gnubg.cubeinfo(cube, owner, mover, length, (s0, s1), crawford)))
sys.stdout.write("\n" + MARKER + "\n" + json.dumps(out) + "\n")
'''


def _gnubg_mwc2eq(items: list) -> list:
    """gnubg's own ``mwc2eq`` of each (mwc, cube, owner, mover, length,
    score0, score1, crawford), inside the real gnubg."""
    from gnubg_blunder.gnubg.process import run_python

    if not items:
        return []
    proc = run_python(f"ITEMS = {json.dumps(items)}\nMARKER = {MARKER!r}\n" + _MWC2EQ, timeout=300)
    assert MARKER in proc.stdout, proc.stderr[-2000:]
    return json.loads(proc.stdout.split(MARKER, 1)[1].strip().splitlines()[0])


def _micro(x: float) -> int:
    return int(math.floor(x * 1e6 + 0.5))


def gnubg_sides_difficulty(dump: dict) -> dict:
    """Σd per player (gnubg's "X" and "O") from ``gnubg.match(analysis=1)``
    records alone: every checker play whose candidate list gnubg analysed
    (its ``score``s, EMG, the first the best) and is not forced (one
    candidate, or all within 0.0005: gnubg lists every legal play); every
    double, take and pass judged on the double's ``nd``/``dt`` and every
    no double inside the window (ND > 0, ND − min(DT, DP) < 0.200), DP = +1;
    a beaver (a double answering a double) is its maker's take, raccoons and
    the take closing the chain are not decisions (SPEC §2).
    Equities are read at the 6 decimals gnubg writes to its SGF; match-play
    cube figures are MWC, normalised by gnubg's own ``mwc2eq`` at the
    decision's cube, owner, score and Crawford flag."""
    info = dump["match-info"]
    length = info["match-length"]
    crawford_rule = "Crawford" in (info.get("rules") or [])
    decisions, conversions = [], []
    crawford_done = False
    for game in dump["games"]:
        s = (game["info"]["score-X"], game["info"]["score-O"])
        one_away = [length and length - x == 1 for x in s]
        crawford = bool(crawford_rule and length and sum(one_away) == 1 and not crawford_done)
        if crawford:
            crawford_done = True
        cube, owner, pending, chain = 1, -1, None, 0
        for rec in game["game"]:
            who = rec.get("player")
            mover = 0 if who == "X" else 1
            an = rec.get("analysis") or {}
            action = rec["action"]

            def cube_figures():
                nd, dt = round(an["nd-cubeful-eq"], 6), round(an["dt-cubeful-eq"], 6)
                if not length:
                    return [nd, dt]
                k = len(conversions)
                conversions.extend([(nd, cube, owner, mover, length, s[0], s[1], int(crawford)),
                                    (dt, cube, owner, mover, length, s[0], s[1], int(crawford))])
                return ("mwc", k)

            if action == "move":
                if "nd-cubeful-eq" in an:
                    decisions.append((who, "nodouble", cube_figures()))
                moves = an.get("moves") or []
                scores = [round(m["score"], 6) for m in moves]
                if scores:  # gnubg puts the played move in its list: e is known
                    micro = [_micro(x) for x in scores]
                    if len(scores) > 1 and max(micro) - min(micro) >= 500:
                        decisions.append((who, "checker", scores))
            if action == "double" and chain == 0:
                pending = cube_figures()
                decisions.append((who, "double", pending))
            elif action == "double" and chain == 1:  # a beaver: the responder's take (SPEC §2)
                decisions.append((who, "take", pending))
            elif action in ("take", "drop") and chain == 1:
                decisions.append((who, "take" if action == "take" else "pass", pending))
            # raccoons and the take closing a beaver chain are no decisions
            if action == "take":
                cube, owner = cube * 2 ** chain, mover
            chain = chain + 1 if action == "double" else 0
    converted = _gnubg_mwc2eq(conversions)
    totals = {"X": 0.0, "O": 0.0}
    counted = {"X": 0, "O": 0}
    for who, kind, fig in decisions:
        if kind == "checker":
            d = soft_difficulty([max(0.0, fig[0] - q) for q in fig])
        else:
            nd, dt = (converted[fig[1]], converted[fig[1] + 1]) if isinstance(fig, tuple) else fig
            if kind == "nodouble" and not (nd > 0 and _micro(nd - min(dt, 1.0)) < 200_000):
                continue
            d = soft_difficulty(cube_deltas(kind, nd, dt, 1.0))
        totals[who] += d
        counted[who] += 1
    return {info[p]["name"]: (totals[p], counted[p]) for p in ("X", "O")}


@pytest.mark.parametrize("seed,length,plies", [(21, 7, 0), (22, 7, 0), (11, 5, 0), (23, 3, 0), (25, 0, 0),
                                               (31, 3, 2), (32, 5, 2)])
def test_sum_of_d_equals_gnubgs_own_candidates(seed, length, plies, selfplay, tmp_path):
    sgf = selfplay(seed, length, plies)
    dump = gnubg_match_dump(sgf)
    want = gnubg_sides_difficulty(dump)
    db = tmp_path / "d.db"
    run_cli_inprocess("import", sgf, db=db)
    side = {s["player"]: s for s in json.loads(run_cli_inprocess("matches", "--format", "json", db=db).stdout)
            ["matches"][0]["sides"]}
    for name, (total, n) in want.items():
        got = side[name]
        assert got["decisions"] == n, (name, got["decisions"], n)
        assert got["difficulty_emg"] == pytest.approx(total, abs=1e-6), (name, got["difficulty_emg"], total)
        assert got["difficulty_truncated"] == 0  # gnubg lists every legal play
        assert (got["difficulty"] is None) == (length == 0)
    assert sum(t for t, _ in want.values()) > 0.05  # the matches have hard decisions


# -- XG's stored candidate lists ---------------------------------------------------------------

XG_FILES = sorted(XG.glob("*.xg"))


def test_xg_reference_matches_d_from_xgs_stored_candidates(tmp_path):
    """Every counted decision of the XG reference matches has d, computed
    from XG's own candidate list (its first candidate the best) as stored,
    or from its cube figures; a list shorter than the legal plays (XG keeps
    up to 5 here) is flagged truncated, and the sides' counts say how many."""
    db = tmp_path / "xg.db"
    run_cli_inprocess("import", *XG_FILES, db=db)
    matches = json.loads(run_cli_inprocess("matches", "--format", "json", db=db).stdout)["matches"]
    c = sqlite3.connect(db)
    rows = c.execute("SELECT d.kind, d.difficulty, d.difficulty_truncated, d.n_legal, d.nd, d.dt, d.dp, "
                     "c.candidates FROM decisions d LEFT JOIN decision_candidates c ON c.decision_id = d.id "
                     "WHERE d.difficulty IS NOT NULL").fetchall()
    c.close()
    truncated = checker = 0
    for kind, d, trunc, n_legal, nd, dt, dp, cands in rows:
        if kind == "checker":
            eqs = decode(cands).equities()
            assert d == pytest.approx(soft_difficulty([max(0.0, eqs[0] - q) for q in eqs]), abs=1e-12)
            assert trunc == int(len(eqs) < n_legal)
            truncated += trunc
            checker += 1
        else:
            assert d == pytest.approx(soft_difficulty(cube_deltas(kind, nd, dt, dp)), abs=1e-12) and trunc == 0
    sides = [s for m in matches for s in m["sides"]]
    assert len(rows) == sum(s["decisions"] for s in sides)  # every counted decision has d
    assert sum(s["difficulty_truncated"] for s in sides) == truncated
    assert (len(XG_FILES), len(rows), checker, truncated) == XG_COUNTS
    for s in sides:
        assert s["difficulty"] > 0 and s["difficulty_emg"] > 0 and s["excess"] is not None


# (files, decisions with d, checker plays among them, truncated lists): measured on the reference files
XG_COUNTS = (3, 670, 579, 367)


# -- the upgrade of a database of the previous schema (v6) --------------------------------------

GNUBG_KEYS_SINCE = ("error_rate_mwc", "luck_emg", "luck_mwc")
DIFFICULTY_KEYS = ("difficulty", "difficulty_emg", "excess", "excess_emg", "ratio", "avoidable_errors",
                   "avoidable_errors_money", "difficulty_truncated")


def _difficulty_by_decision(conn) -> dict:
    """{(file name, game, move, kind): d}: by the file's name, not its path
    (the fixture database was written in another checkout)."""
    import os

    rows = conn.execute("SELECT a.source_path, d.game, d.seq, d.kind, d.difficulty "
                        "FROM decisions d JOIN analyses a ON a.id = d.analysis_id")
    return {(os.path.basename(os.fsdecode(p) if isinstance(p, bytes) else p), g, q, k): v for p, g, q, k, v in rows}



def test_a_v6_database_gets_d_without_reimport_and_keeps_its_figures(tmp_path):
    """Schema step 7 computes d from the stored candidate lists: the
    upgraded v6 fixture has d for every counted decision, equal to what a
    fresh import of the same files stores, and every other figure of
    ``matches --format json`` is what the code that wrote it (7463960)
    gives on the file before the upgrade."""
    import os
    import subprocess
    import sys

    sys.path.insert(0, str(FIXTURES / "schema"))
    import make

    old_db, db = tmp_path / "old.db", tmp_path / "v6.db"
    shutil.copyfile(V6, old_db)
    shutil.copyfile(V6, db)
    code = make.tree("7463960", tmp_path)
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=str(tmp_path / "config.yaml"),
               PYTHONPATH=str(code))
    before = json.loads(subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", str(old_db), "matches",
                                        "--format", "json"], env=env, cwd=tmp_path, capture_output=True,
                                       text=True, check=True).stdout)["matches"]
    after = json.loads(run_cli_inprocess("matches", "--format", "json", db=db).stdout)["matches"]
    c = sqlite3.connect(db)
    from gnubg_blunder.store.schema import SCHEMA_VERSION

    assert c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    with_d = c.execute("SELECT COUNT(*) FROM decisions WHERE difficulty IS NOT NULL").fetchone()[0]
    upgraded = _difficulty_by_decision(c)
    c.close()
    assert with_d == sum(s["decisions"] for m in after for s in m["sides"]) == 215
    assert len(after) == len(before) == 7
    for a, b in zip(after, before):
        for sa, sb in zip(a["sides"], b["sides"]):
            got = {k: v for k, v in sa.items() if k not in DIFFICULTY_KEYS}
            # the gnubg block has gained the figures of the "gnubg's own" line since 7463960
            got["gnubg"] = {k: v for k, v in got["gnubg"].items() if k not in GNUBG_KEYS_SINCE} \
                if got.get("gnubg") is not None else got.get("gnubg")
            assert got == sb
            assert sa["difficulty_emg"] is not None and sa["difficulty_emg"] >= 0
    # the same d as a fresh import of the same files
    fresh = tmp_path / "fresh.db"
    run_cli_inprocess("import", *make.FILES, db=fresh)
    c = sqlite3.connect(fresh)
    new = _difficulty_by_decision(c)
    c.close()
    assert upgraded.keys() == new.keys()
    for k, v in new.items():
        assert (v is None) == (upgraded[k] is None), k
        assert v is None or v == pytest.approx(upgraded[k], abs=1e-12), k


# -- the figures made of d, checked from the decisions `positions` lists -----------------------

@pytest.mark.parametrize("name", ["charlot1-charlot2_7p_2025-11-08-2305.xg", "match_with_comment.xg"])
def test_positions_show_d_and_every_figure_adds_up_from_them(name, tmp_path):
    """``positions`` gives d of each decision (JSON, CSV, text): the side's
    Σd, excess Σ(ℓ − d), ratio Σℓ/Σd, avoidable errors (e ≥ the error
    threshold and d ≤ ℓ/10) and truncated count are those of its rows."""
    db = tmp_path / "x.db"
    run_cli_inprocess("import", XG / name, db=db)
    sides = json.loads(run_cli_inprocess("matches", "--format", "json", db=db).stdout)["matches"][0]["sides"]
    for s in sides:
        p = s["player"]
        recs = json.loads(run_cli_inprocess("positions", "--player", p, "--limit", "0", "--format", "json",
                                            db=db).stdout)["decisions"]
        assert len(recs) == s["decisions"] and all(r["difficulty_mpt"] is not None for r in recs)
        d_mwc = sum(r["difficulty_mwc"] for r in recs)
        ell = sum(r["mwc_loss"] for r in recs)
        assert s["difficulty"] == pytest.approx(d_mwc, abs=1e-9)
        assert s["difficulty_emg"] == pytest.approx(sum(r["difficulty_mpt"] for r in recs) / 1000, abs=1e-9)
        assert s["excess"] == pytest.approx(ell - d_mwc, abs=1e-9)
        assert s["ratio"] == (pytest.approx(ell / d_mwc) if d_mwc >= 0.5 else None)
        assert s["avoidable_errors"] == sum(1 for r in recs if r["error"] and r["difficulty_mpt"] <= r["error_mpt"] / 10)
        assert s["difficulty_truncated"] == sum(r["difficulty_truncated"] for r in recs) > 0
        csv = run_cli_inprocess("positions", "--player", p, "--limit", "3", "--format", "csv", db=db).stdout
        assert ",difficulty_mpt,difficulty_mwc,difficulty_truncated," in csv.splitlines()[0] + ","
        text = run_cli_inprocess("positions", "--player", p, "--limit", "3", db=db).stdout
        assert "d mpt" in text and "d = difficulty" in text
    # the text tables of `matches` (difficulty, excess, ratio, avoidable) and `players` (excess, avoidable)
    # print the JSON's figures
    matches_text = run_cli_inprocess("matches", db=db).stdout.splitlines()
    players_text = run_cli_inprocess("players", db=db).stdout.splitlines()
    assert "difficulty  excess  ratio  avoidable" in matches_text[1] and "excess  avoidable" in players_text[1]
    for s in sides:
        row = next(line for line in matches_text if s["player"] in line).split()
        at = row.index(f"{s['excess']:.2f}")
        assert row[at - 1:at + 3] == [f"{s['difficulty']:.2f}", f"{s['excess']:.2f}",
                                      "—" if s["ratio"] is None else f"{s['ratio']:.2f}", str(s["avoidable_errors"])]
        row = next(line for line in players_text if s["player"] in line).split()
        at = row.index(f"{s['excess']:.2f}")
        assert row[at + 1] == str(s["avoidable_errors"])


def test_relabel_makes_d_again_from_the_stored_rows(tmp_path):
    """``relabel`` recomputes d with the labels, from the stored candidate
    lists: a d wiped in the rows comes back as it was."""
    from gnubg_blunder.database import SQLiteStore

    db = tmp_path / "x.db"
    run_cli_inprocess("import", XG / "match_with_comment.xg", db=db)
    c = sqlite3.connect(db)
    before = c.execute("SELECT id, difficulty, difficulty_truncated FROM decisions ORDER BY id").fetchall()
    c.execute("UPDATE decisions SET difficulty = NULL, difficulty_truncated = NULL")
    c.commit()
    c.close()
    with SQLiteStore(db) as st:
        st.relabel()
    c = sqlite3.connect(db)
    after = c.execute("SELECT id, difficulty, difficulty_truncated FROM decisions ORDER BY id").fetchall()
    c.close()
    assert after == before and sum(1 for _, d, _ in after if d is not None) > 100


# -- money's avoidable errors apart; the matches table's difficulty and ratio (issue 25) --------------

def test_money_avoidable_errors_are_kept_apart_and_said_in_emg(db):
    """Money has no MWC: its avoidable errors (d ≤ e/10 in EMG) are
    ``avoidable_errors_money``, not in ``avoidable_errors`` (match play,
    d ≤ ℓ/10 in MWC).  The fixture database (tests/fixture_db.py): a checker
    play of 5 candidates 0.075 EMG apart has d = 3.92956 mpt, a missed
    double ND 0.5 / DT 0.6 d = 0.1 / (1 + e⁴) = 1.80 mpt; every error of
    charlot1 is avoidable: match 1's 0.080, match 2's 0.050, 0.100 (the
    missed double) and 0.120 — 4 in match play — and the money session's
    0.090 — 1 money (EMG)."""
    def json_of(*args):
        return json.loads(run_cli_inprocess("--no-config", *args, "--format", "json", db=db).stdout)

    matches = {m["id"]: m for m in json_of("matches")["matches"]}
    money = {s["player"]: s for s in matches[4]["sides"]}
    assert (money["charlot1"]["avoidable_errors"], money["charlot1"]["avoidable_errors_money"]) == (None, 1)
    assert (money["charlot2"]["avoidable_errors"], money["charlot2"]["avoidable_errors_money"]) == (None, 0)
    first = matches[1]["sides"][0]
    assert (first["player"], first["avoidable_errors"], first["avoidable_errors_money"]) == ("charlot1", 1, None)
    stats = json_of("stats", "--player", "charlot1")
    assert (stats["avoidable_errors"], stats["avoidable_errors_money"]) == (4, 1)
    players = {p["player"]: p for p in json_of("players")["players"]}
    assert (players["charlot1"]["avoidable_errors"], players["charlot1"]["avoidable_errors_money"]) == (4, 1)
    assert (players["Squire/Jørgensen"]["avoidable_errors"], players["Squire/Jørgensen"]["avoidable_errors_money"]) \
        == (2, None)
    # the texts say the unit of money's, and their notes the rule
    stats_text = run_cli_inprocess("--no-config", "stats", "--player", "charlot1", db=db).stdout
    assert "avoidable errors: 4 + 1 money (EMG)" in stats_text and "d ≤ e/10 in EMG" in stats_text
    players_text = run_cli_inprocess("--no-config", "players", db=db).stdout
    row = next(line for line in players_text.splitlines() if line.startswith("charlot1 "))
    assert row.endswith("4 + 1 money (EMG)") and "d ≤ e/10 in EMG" in players_text
    matches_text = run_cli_inprocess("--no-config", "matches", db=db).stdout.splitlines()
    money_rows = [line for line in matches_text[3:-1] if "money (EMG)" in line]  # the rows, not the note
    assert len(money_rows) == 2 and "1 money (EMG)" in money_rows[0] and "0 money (EMG)" in money_rows[1]
    assert "d ≤ e/10 in EMG" in matches_text[-1]
    # the players CSV has the column
    csv_text = run_cli_inprocess("--no-config", "players", "--format", "csv", db=db).stdout
    assert "avoidable_errors,avoidable_errors_money" in csv_text.splitlines()[0]


def test_the_matches_table_shows_difficulty_and_ratio(db):
    """Fixture match 1, charlot1: ℓ = 5.00 % (e 0.100 EMG × 0.5 MWC per
    EMG), Σd = (4 × 3.92956 + 0.0018) mpt × 0.5 = 0.786 % (4 checker plays
    and the take), excess 4.21 %, ratio 5.00 / 0.786 = 6.36; match 2,
    charlot1: Σd = (2 × 3.92956 + 1.80) mpt × 0.5 = 0.48 % < 0.5 %: no
    ratio (—)."""
    obj = json.loads(run_cli_inprocess("--no-config", "matches", "--format", "json", db=db).stdout)
    first = obj["matches"][0]["sides"][0]
    assert first["difficulty"] == pytest.approx(0.78600, abs=1e-5) and first["ratio"] == pytest.approx(6.3613, abs=1e-4)
    assert obj["matches"][1]["sides"][0]["ratio"] is None
    text = run_cli_inprocess("--no-config", "matches", db=db).stdout.splitlines()
    assert text[1].split()[9:14] == ["L7", "difficulty", "excess", "ratio", "avoidable"]
    assert text[3].split()[-8:-4] == ["0.79", "4.21", "6.36", "1"]
    assert text[5].split()[-8:-4] == ["0.48", "13.02", "—", "3"]
