"""The depth check (SPEC §16, docs/verify.md): gnubg evaluates again the
costliest errors; its numbers are gnubg's own (compared with what ``gnubg
-t`` prints for the same position at the same settings, never pinned);
stored beside the match's analysis; the study half reads them, the match
figures do not; a rerun adds nothing; a kill leaves the store whole."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import needs_gnubg, run_cli

from gnubg_blunder.metrics.counting import Thresholds
from gnubg_blunder.metrics.verify import REDUCED, REVERSED, CONFIRMED, checker_outcome, verdict

pytestmark = needs_gnubg


# -- the rules, by hand ---------------------------------------------------------------------

def test_verdicts_are_exclusive_by_the_threshold_and_half_the_cost():
    t = Thresholds()  # error from 50 mpt
    assert verdict(0.100, 0.049, 0.040, t) == REVERSED  # below the threshold, whatever the cost
    assert verdict(0.100, 0.0495, 0.040, t) == REDUCED  # 49.5 rounds to 50 mpt: an error still, 0.040 < 0.050
    assert verdict(0.100, 0.060, 0.0499, t) == REDUCED
    assert verdict(0.100, 0.060, 0.050, t) == CONFIRMED  # exactly half: not "less than half"
    assert verdict(0.100, 0.300, 0.290, t) == CONFIRMED
    assert verdict(0.100, None, None, t) is None


def test_the_error_is_against_the_deeper_evaluations_own_best():
    plays = [  # gnubg's list: two plays at 2 plies, the played one among them, a 0-ply tail scoring higher
        {"move": "a", "equity": 0.10, "plies": 2, "probs": [0] * 5, "after": "A"},
        {"move": "c", "equity": 0.30, "plies": 0, "probs": [0] * 5, "after": "C"},
        {"move": "b", "equity": 0.25, "plies": 2, "probs": [0] * 5, "after": "B"},
    ]
    got = checker_outcome(plays, 2, "A")
    assert got["best_move"] == "b" and got["played_index"] == 1
    assert got["error"] == pytest.approx(0.15)  # 0.25 − 0.10: the 0-ply 0.30 is not the deeper best
    assert [p["move"] for p in got["plays"]] == ["b", "a", "c"]
    assert checker_outcome(plays, 2, "C") is None  # the played move not evaluated at depth: no verdict


# -- against gnubg itself ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def verified_db(tmp_path_factory, committed_selfplay):
    """An 11-point match and a money session (0-ply analyses), their 8
    costliest errors verified at 2 plies."""
    db = tmp_path_factory.mktemp("verify") / "v.db"
    run_cli("import", committed_selfplay(26, 11), committed_selfplay(25, 0), db=db)
    before = {c: run_cli(c, "--format", "json", db=db).stdout for c in ("stats", "matches", "players")}
    plan_before = json.loads(run_cli("plan", "--format", "json", db=db).stdout)
    res = run_cli("verify", "--top", "8", "--plies", "2", "--format", "json", db=db)
    return db, json.loads(res.stdout), before, plan_before


def _task(db, decision_id, plies):
    from gnubg_blunder.gnubg.verify import task_of
    from gnubg_blunder.store.verifications import targets

    class _S:
        conn = sqlite3.connect(db)

    return targets(_S, [decision_id])[0], task_of(targets(_S, [decision_id])[0], plies)


def _gnubg_hint(task, wide=False):
    from gnubg_blunder.gnubg.process import run_commands
    from gnubg_blunder.gnubg.verify import hint_commands, parse_hint

    return parse_hint(run_commands(hint_commands(task, wide)).stdout)


def test_verified_numbers_are_what_gnubg_prints(verified_db):
    from gnubg_blunder.codec import candidates

    db, obj, _before, _plan = verified_db
    assert obj["chosen"] == 8 and obj["evaluated_now"] == 8 and obj["failed"] == 0
    assert sum(obj["counts"].values()) == 8
    con = sqlite3.connect(db)
    kinds = set()
    for d in obj["decisions"]:
        row, task = _task(db, d["decision_id"], 2)
        v = con.execute("SELECT error, best_move, nd, dt, dp, candidates, played_index FROM verifications "
                        "WHERE decision_id = ? AND plies = 2", (d["decision_id"],)).fetchone()
        kinds.add((row["kind"] == "checker", row["length"] == 0))
        if row["kind"] == "checker":
            ours = list(candidates.decode(v[5], row["position_id"], (row["dice1"], row["dice2"])))
            printed = _gnubg_hint(task)["plays"]
            deep_printed = {m: eq for m, p, eq in printed if p == 2}
            # (gnubg's filter may leave one play, then evaluated no deeper: the widened list has them all)
            ours_deep = {c["move"]: c["equity"] for c in ours if c["depth"] == "2-ply"}
            for move, eq in deep_printed.items():  # every play gnubg's own filter kept, to its 3 decimals
                assert round(ours_deep[move], 3) == pytest.approx(eq, abs=1e-9), move
            wide = {m: eq for m, p, eq in _gnubg_hint(task, wide=True)["plays"] if p == 2}
            played = ours[v[6]]
            assert round(played["equity"], 3) == pytest.approx(wide[played["move"]], abs=1e-9)
            best = max(c["equity"] for c in ours if c["depth"] == "2-ply")
            assert v[0] == pytest.approx(best - played["equity"])
        else:
            printed = _gnubg_hint(task)["cube"]
            assert round(v[2], 3) == pytest.approx(printed["No double"], abs=1e-9)
            assert round(v[3], 3) == pytest.approx(printed["Double, take"], abs=1e-9)
            assert round(v[4], 3) == pytest.approx(printed["Double, pass"], abs=1e-9)
    assert (True, False) in kinds  # a checker play of the match among them


def test_the_match_figures_keep_the_match_analysis_and_the_study_half_takes_the_deeper(verified_db):
    db, obj, before, plan_before = verified_db
    for c, text in before.items():
        assert run_cli(c, "--format", "json", db=db).stdout == text, c
    plan = json.loads(run_cli("plan", "--format", "json", db=db).stdout)
    assert plan["verification"]["verified"] >= 1 and plan["verification"]["plies"] == [2]
    assert "verification" not in plan_before
    members = sum(f["members"] for f in plan["families"])
    assert plan["verification"]["members"] == members
    text = run_cli("plan", db=db).stdout
    assert "confirmed at 2 plies" in text and "not verified" in text
    refs = json.loads(run_cli("references", "--format", "json", "--limit", "0", db=db).stdout)
    notes = {p["verification"] for p in refs["positions"]}
    assert notes <= {"confirmed at 2 plies", "not verified"} and "confirmed at 2 plies" in notes
    verified_ids = {d["decision_id"]: d for d in obj["decisions"] if d["deep"]}
    seen = 0
    for p in refs["positions"]:
        for e in p["errors"]:
            if e["row_id"] in verified_ids:  # the error as the depth check measured it, not the file's
                seen += 1
                d = verified_ids[e["row_id"]]
                assert e["error_mpt"] == pytest.approx(d["deep"]["error_mpt"], abs=0.05)
                assert d["deep"]["error_mpt"] != d["first"]["error_mpt"]
    assert seen >= 1


def test_a_rerun_evaluates_nothing_again(verified_db):
    db, obj, _before, _plan = verified_db
    rows = sqlite3.connect(db).execute("SELECT * FROM verifications ORDER BY decision_id, plies").fetchall()
    again = json.loads(run_cli("verify", "--top", "8", "--plies", "2", "--format", "json", db=db).stdout)
    assert again["evaluated_now"] == 0 and again["already_verified"] == 8
    assert again["counts"] == obj["counts"]
    assert sqlite3.connect(db).execute("SELECT * FROM verifications ORDER BY decision_id, plies").fetchall() == rows


def _verify_children() -> list:
    out = subprocess.run(["pgrep", "-f", "verify_in_gnubg.py"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_a_kill_leaves_every_evaluation_whole_and_the_rerun_completes(tmp_path, committed_selfplay):
    db = tmp_path / "k.db"
    run_cli("import", committed_selfplay(26, 11), db=db)
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1", "TMPDIR": str(tmp_path / "tmp")}
    proc = subprocess.Popen([sys.executable, "-m", "gnubg_blunder", "--db", str(db), "verify", "--top", "12",
                             "--plies", "2", "--jobs", "1"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            stored = sqlite3.connect(db, timeout=30).execute("SELECT COUNT(*) FROM verifications").fetchone()[0]
        except sqlite3.OperationalError:  # the table is made by the run's first open
            stored = 0
        if stored >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "verify ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(200):  # its gnubg ends with it (PR_SET_PDEATHSIG)
        if not _verify_children():
            break
        time.sleep(0.05)
    assert not _verify_children()
    left = list((tmp_path / "tmp").glob("gnubg-blunder-*/pid*/verify-*"))
    assert left  # the killed run's tasks and outputs (its own folder): the next run removes them
    assert "whole" in run_cli("check", db=db).stdout
    kept = sqlite3.connect(db).execute("SELECT COUNT(*) FROM verifications").fetchone()[0]
    assert 2 <= kept < 12
    res = run_cli("verify", "--top", "12", "--plies", "2", "--format", "json", db=db,
                  env={"TMPDIR": str(tmp_path / "tmp")})
    assert "removed what a killed gnubg-blunder" in res.stderr and not any(p.exists() for p in left)
    again = json.loads(res.stdout)
    assert again["already_verified"] == kept and again["evaluated_now"] == 12 - kept
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM verifications").fetchone()[0] == 12


def _comparable(obj: dict) -> dict:
    obj = dict(obj, seconds=None)
    for d in obj["decisions"]:
        if d["deep"]:
            d["deep"]["verified_at"] = None
    return obj


def test_postgresql_stores_and_reads_the_same(pg_server, tmp_path, committed_selfplay):
    url = pg_server.admin_url(pg_server.create_database())
    db = tmp_path / "same.db"
    got = []
    for target in (db, url):
        run_cli("import", committed_selfplay(23, 3), db=target)
        got.append(_comparable(json.loads(run_cli("verify", "--top", "4", "--plies", "1", "--format", "json",
                                                  db=target).stdout)))
        again = json.loads(run_cli("verify", "--top", "4", "--plies", "1", "--format", "json", db=target).stdout)
        assert again["evaluated_now"] == 0 and again["already_verified"] == got[-1]["chosen"] >= 2
    # gnubg's numbers of one run and the other equal (the same program, position and settings, deterministic)
    assert got[0] == got[1]
    assert run_cli("plan", "--format", "json", db=db).stdout == run_cli("plan", "--format", "json", db=url).stdout


def test_verify_inside_gnubg(tmp_path, committed_selfplay):
    """``>bdb("verify …")`` in gnubg's own console: the evaluations run in
    child gnubg processes (the user's match stays loaded), the report is
    printed there."""
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    env.pop("GNUBG_BLUNDER_DB", None)
    env.pop("XDG_DATA_HOME", None)
    run_cli("install-gnubg", env=env)
    sgf = committed_selfplay(26, 11)
    session = "\n".join([f'load match "{sgf}"', ">bdb.store()", '>bdb("verify --top 3 --plies 1")',
                         '>print("MATCH", gnubg.match(analysis=0)["match-info"]["match-length"])', ""])
    from gnubg_blunder.gnubg.process import find_gnubg

    out = subprocess.run([find_gnubg(), "-t", "-q"], input=session, capture_output=True, text=True, env=env,
                         timeout=300).stdout
    assert "Depth check: the 3 costliest errors" in out and "3 evaluated now" in out and "Traceback" not in out
    assert "MATCH 11" in out  # the user's match is still the one loaded


def test_copy_takes_the_verified_evaluations_along(verified_db, tmp_path):
    db, obj, _before, _plan = verified_db
    dst = tmp_path / "copy.db"
    out = run_cli("copy", "--from", db, "--to", dst).stdout
    assert "verified evaluations (docs/verify.md): 8 copied, 0 already there" in out
    assert "0 copied, 8 already there" in run_cli("copy", "--from", db, "--to", dst).stdout
    again = json.loads(run_cli("verify", "--top", "8", "--plies", "2", "--format", "json", db=dst).stdout)
    assert again["evaluated_now"] == 0 and again["already_verified"] == 8 and again["counts"] == obj["counts"]


def test_anki_cards_and_quiz_take_the_deeper_evaluation(verified_db, tmp_path):
    """An exported card (imported by Anki's own backend) shows the depth
    check's best and says which analysis it shows; a quiz question on a
    verified decision carries gnubg's deeper list."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    db, obj, _before, _plan = verified_db
    apkg = tmp_path / "v.apkg"
    run_cli("anki", "export", "--errors", apkg, db=db)
    col = Collection(str(tmp_path / "col.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(apkg),
                                                         options=ImportAnkiPackageOptions(with_scheduling=False)))
        cards = {int(col.get_note(n)["DecisionID"]): dict(col.get_note(n).items()) for n in col.find_notes("")}
    finally:
        col.close()
    deep = {d["decision_id"]: d["deep"] for d in obj["decisions"] if d["deep"]}
    shown = [rid for rid in cards if rid in deep]
    assert shown, "no verified decision among the cards"
    for rid in shown:
        assert "gnubg's evaluation at 2 plies (depth check)" in cards[rid]["Source"]
        assert cards[rid]["Best"].replace("&#x27;", "'") == deep[rid]["best"]
        # the chances and depth are the depth check's, and the card says so (docs/anki.md)
        chances = cards[rid]["Candidates"][cards[rid]["Candidates"].index('<table class="bgb-chances">'):]
        assert "<caption>chances in % (cubeless) and depth — depth check: confirmed at 2 plies</caption>" in chances
        assert "<td>2-ply</td>" in chances
    assert any("not verified (the file's analysis)" in c["Source"] for rid, c in cards.items() if rid not in deep)

    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.quiz.core import choose
    from gnubg_blunder.database import open_store

    with open_store(str(db)) as store:
        items = choose(store, Filter(), Thresholds(), count=0, row_ids=list(deep))
    assert {i.decision_id for i in items} <= set(deep) and items
    from gnubg_blunder.quiz.core import chances_lines, grade

    for item in items:
        assert item.verified_plies == 2
        answer = item.candidates[0]["move"] if item.kind == "checker" else ("take" if item.responds else "double")
        line = chances_lines(item, grade(item, answer))[0]
        assert line.startswith("Chances (cubeless) and depth, depth check: confirmed at 2 plies: ") and "2-ply" in line
        if item.kind == "checker":
            assert item.candidates[0]["move"] == deep[item.decision_id]["best"]
            assert item.candidates[0]["depth"] == "2-ply"
        else:
            assert item.nd == pytest.approx(deep[item.decision_id]["nd"])
