"""Our figures against gnubg's own, on real gnubg-analysed matches.

Matches are made by the real gnubg (``gnubg-selfplay``: a noisy bot against
a clean one, analysed by gnubg, saved as SGF); the oracle is gnubg's own
statistics of the same file (``gnubg.match(statistics=1)``) and, for the
XG-rule figures, an independent computation run inside gnubg from its own
per-decision analysis (``gnubg_scripts/xg_rules_oracle.py``).
"""

from __future__ import annotations

import json
import math
import os

import pytest

from conftest import gnubg_match_dump, needs_gnubg, run_cli_inprocess as run_cli

pytestmark = needs_gnubg

# (seed, length, analysis plies): match play of several lengths, two money
# sessions (beavers happen there), one deeper analysis.
MATCHES = [(11, 5, 0), (21, 7, 0), (23, 3, 0), (26, 11, 0), (24, 0, 0), (25, 0, 0), (31, 7, 1)]


@pytest.fixture(scope="module")
def analysed(selfplay, tmp_path_factory):
    """[(sgf path, gnubg's dump, our matches JSON)] for every match."""
    out = []
    for seed, length, plies in MATCHES:
        sgf = selfplay(seed, length, plies)
        db = tmp_path_factory.mktemp("db") / "t.db"
        run_cli("import", sgf, db=db)
        ours = json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
        assert len(ours) == 1
        out.append((sgf, gnubg_match_dump(sgf), ours[0]))
    return out


def gnubg_side_figures(dump: dict, side: str) -> dict:
    """gnubg's statistics screen figures for one side, from its own stats."""
    st = dump["stats"][side]
    other = dump["stats"]["O" if side == "X" else "X"]
    cube = st["cube"]
    cube_err = sum(v for k, v in cube.items() if k.startswith("err-") and k.endswith("-skill"))
    cube_cost = sum(v for k, v in cube.items() if k.startswith("err-") and k.endswith("-cost"))
    err = st["moves"]["error-skill"] + cube_err
    cost = st["moves"]["error-cost"] + cube_cost
    unforced, close = st["moves"]["unforced-moves"], cube["close-cube"]
    total_moves = st["moves"]["total-moves"] + other["moves"]["total-moves"]
    return {
        "unforced": unforced,
        "close_cube": close,
        "error_emg": err,
        "mwc_loss": 100 * cost,
        "error_rate_memg": 1000 * err / (unforced + close) if unforced + close else 0.0,
        "snowie_er": 1000 * err / total_moves,
        "luck": st["dice"]["luck"],
        "luck_cost": st["dice"]["luck-cost"],
    }


def test_gnubg_cross_check_equals_gnubg_statistics(analysed):
    checked = 0
    for sgf, dump, ours in analysed:
        money = dump["match-info"]["match-length"] == 0
        for p, side in enumerate("XO"):
            ref = gnubg_side_figures(dump, side)
            s = ours["sides"][p]
            g = s["gnubg"]
            where = f"{sgf.name} {s['player']}"
            assert g["unforced"] == ref["unforced"], where
            assert g["close_cube"] == ref["close_cube"], where
            assert g["error_emg"] == pytest.approx(ref["error_emg"], abs=0.0015), where
            assert g["error_rate_memg"] == pytest.approx(ref["error_rate_memg"], abs=0.06), where
            assert g["snowie_er"] == pytest.approx(ref["snowie_er"], abs=0.06), where
            assert s["luck_emg"] == pytest.approx(ref["luck"], abs=0.0015), where
            if money:
                assert g["mwc_loss"] is None and s["mwc_loss"] is None and s["luck_mwc"] is None, where
                assert s["l7"] is None and s["elo"] is None, where
            else:
                assert g["mwc_loss"] == pytest.approx(ref["mwc_loss"], abs=0.006), where
                assert s["luck_mwc"] == pytest.approx(100 * ref["luck_cost"], abs=0.006), where
            # our own figures: PR from e and N; Snowie with factor 500
            assert s["pr"] == pytest.approx(500 * s["error_emg"] / s["decisions"]), where
            assert 2 * s["snowie_er"] == pytest.approx(g["snowie_er"]), where
            checked += 1
    assert checked == 2 * len(MATCHES)


def test_some_matches_have_cube_errors_beavers_and_luck(analysed):
    """The sample is not trivial: errors of every kind, beavers, real luck."""
    cube_errors = beaver_takes = 0
    for _sgf, dump, ours in analysed:
        for side in "XO":
            c = dump["stats"][side]["cube"]
            cube_errors += c["missed-double-below-cp"] + c["missed-double-above-cp"] + c["wrong-take"] + \
                c["wrong-drop"] + c["wrong-double-below-dp"] + c["wrong-double-above-tg"]
        for g in dump["games"]:
            recs = g["game"]
            beaver_takes += sum(1 for a, b in zip(recs, recs[1:]) if a["action"] == b["action"] == "double")
    assert cube_errors >= 5
    assert beaver_takes >= 1
    assert all(s["luck_emg"] not in (None, 0) for _s, _d, o in analysed for s in o["sides"])


def test_xg_rule_figures_equal_an_independent_computation(analysed, tmp_path):
    from gnubg_blunder.gnubg.process import run_python

    script = (os.path.dirname(__file__) + "/gnubg_scripts/xg_rules_oracle.py")
    source = open(script, encoding="utf-8").read()
    for sgf, dump, ours in analysed:
        out = tmp_path / (sgf.stem + ".oracle.json")
        env = dict(os.environ, ORACLE_SGF=str(sgf.resolve()), ORACLE_OUT=str(out))
        res = run_python(source, env=env, timeout=300)
        assert out.exists(), res.stdout[-800:] + res.stderr[-800:]
        oracle = json.loads(out.read_text())
        for p in (0, 1):
            s, o = ours["sides"][p], oracle[p]
            where = f"{sgf.name} {s['player']}"
            assert s["decisions"] == o["decisions"], where
            assert s["checker_decisions"] == o["checker"], where
            assert s["double_decisions"] == o["double"], where
            assert s["take_decisions"] == o["take"], where
            assert s["error_emg"] == pytest.approx(o["error"], abs=1e-5), where
            for key in ("pr", "checker_pr", "cube_pr"):
                if o[key] is None:
                    assert s[key] is None, where
                else:
                    assert s[key] == pytest.approx(o[key], abs=1e-4), (where, key)
            if o["mwc_loss"] is None:
                assert s["mwc_loss"] is None and s["l7"] is None and s["elo"] is None
            else:
                assert s["mwc_loss"] == pytest.approx(o["mwc_loss"], abs=1e-4), where
                assert s["l7"] == pytest.approx(o["l7"], abs=1e-4), where
                assert s["elo"] == pytest.approx(o["elo"], abs=0.01), where


def test_live_match_and_sgf_give_the_same_decisions(analysed):
    """(a) gnubg.match() inside gnubg and (b) the SGF file: same decisions."""
    from gnubg_blunder.importers.gnubg_match import match_from_dict
    from gnubg_blunder.importers.sgf import read_match

    for sgf, dump, _ours in analysed:
        live, filed = match_from_dict(dump), read_match(sgf)
        assert live.players == filed.players and live.length == filed.length
        a, b = list(live.decisions()), list(filed.decisions())
        assert len(a) == len(b) > 0, sgf.name
        for x, y in zip(a, b):
            where = (sgf.name, x.game, x.seq, x.kind)
            assert (x.kind, x.player, x.game, x.position_id, x.dice, x.played_move, x.best_move, x.n_legal,
                    x.cube_value, x.cube_owner, x.score_self, x.score_opp, x.crawford, x.played_index,
                    x.beaver_take, x.gnubg_dead_cube) == \
                   (y.kind, y.player, y.game, y.position_id, y.dice, y.played_move, y.best_move, y.n_legal,
                    y.cube_value, y.cube_owner, y.score_self, y.score_opp, y.crawford, y.played_index,
                    y.beaver_take, y.gnubg_dead_cube), where
            for f in ("error", "nd", "dt", "mwc_per_emg"):
                u, v = getattr(x, f), getattr(y, f)
                assert (u is None) == (v is None), (where, f)
                if u is not None:
                    assert u == pytest.approx(v, abs=2e-6), (where, f)
            assert [c.position_id for c in x.candidates] == [c.position_id for c in y.candidates], where
        ra, rb = list(live.rolls()), list(filed.rolls())
        assert [(r.player, r.dice, r.position_id, r.position_after) for r in ra] == \
               [(r.player, r.dice, r.position_id, r.position_after) for r in rb]
        assert all(math.isclose(r.luck, s.luck, abs_tol=2e-5) for r, s in zip(ra, rb))


def test_position_ids_are_gnubgs(analysed):
    """The board before every decision is gnubg's own position ID."""
    from gnubg_blunder.importers.sgf import read_match

    for sgf, dump, _ours in analysed:
        ours = [r.position_id for r in read_match(sgf).rolls()]
        theirs = [rec["board"] for g in dump["games"] for rec in g["game"] if rec["action"] == "move"]
        assert ours == theirs, sgf.name


def test_aggregate_is_sum_over_sum_of_the_match_sides(analysed, tmp_path):
    """``stats`` over several matches = Σ/Σ of the ``matches`` sides (SPEC §3),
    L₇ = √7 ΣL / Σ√N (SPEC §5), intervals with matches as units (SPEC §7),
    computed here by hand from the per-side figures."""
    db = tmp_path / "all.db"
    run_cli("import", *[sgf for sgf, _d, _o in analysed], db=db)
    sides = [(m, s) for m in json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]
             for s in m["sides"] if s["player"] == "Weakbot"]
    agg = json.loads(run_cli("stats", "--player", "Weakbot", "--format", "json", db=db).stdout)
    n = sum(s["decisions"] for _m, s in sides)
    e = sum(s["error_emg"] for _m, s in sides)
    assert agg["decisions"] == n and agg["matches"] == len(sides)
    assert agg["pr"] == pytest.approx(500 * e / n)
    units_e = [s["error_emg"] for _m, s in sides]
    units_n = [s["decisions"] for _m, s in sides]
    g = len(sides)
    r = sum(units_e) / sum(units_n)
    var = g / (g - 1) * sum((eu - r * nu) ** 2 for eu, nu in zip(units_e, units_n)) / sum(units_n) ** 2
    assert agg["pr_ci"] == pytest.approx([500 * max(0, r - 1.96 * math.sqrt(var)), 500 * (r + 1.96 * math.sqrt(var))])
    mp = [(m, s) for m, s in sides if m["length"]]
    l7 = math.sqrt(7) * sum(s["mwc_loss"] / 100 for _m, s in mp) / sum(math.sqrt(m["length"]) for m, _s in mp)
    assert agg["l7"] == pytest.approx(100 * l7)
    assert agg["mwc_loss"] == pytest.approx(sum(s["mwc_loss"] for _m, s in mp))
    assert agg["wins"] + agg["losses"] == len(sides)
    assert agg["filter"]["player"] == "Weakbot"
