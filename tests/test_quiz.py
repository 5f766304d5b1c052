"""The quiz (issue 12, the "Decision" exercise, docs/quiz.md), driven as a
person would: ``gnubg-blunder quiz`` in a terminal (a pty), answered at its
prompt; and inside the real gnubg, ``bdb.quiz()`` / ``bdb.answer()``.

The store: the two bundled XG matches (Squire/Jørgensen v Harmand/Unger,
charlot1 v charlot2), imported once for the module.  With ``--player
Squire/Jørgensen --seed 1`` the first questions are (read from the store,
checked below):

1. decision 378, 4-2, played bar/21* 10/8 (71.9 mpt); best bar/21* 7/5.
2. decision 78, 5-5, played 13/8(3) 10/5 (55.4 mpt); best 7/2(2) 6/1*(2).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA, gnubg_available

XG = DATA / "xg"
FILES = [XG / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg", XG / "charlot1-charlot2_7p_2025-11-08-2305.xg"]
PLAYER = "Squire/Jørgensen"


@pytest.fixture(scope="module")
def store_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("quiz") / "quiz.db"
    from conftest import run_cli_inprocess

    run_cli_inprocess("import", *FILES, db=path)
    return path


@pytest.fixture
def quiz_db(store_db, tmp_path) -> Path:
    import shutil

    return Path(shutil.copy(store_db, tmp_path / "quiz.db"))


def _actions(db) -> list:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT position_id, action, grade, decision_id, at FROM study_actions "
                           "ORDER BY id").fetchall()
    finally:
        con.close()


class Terminal:
    """``gnubg-blunder ARGS`` on a pseudo-terminal: what a person sees and types."""

    def __init__(self, *args):
        self.master, slave = pty.openpty()
        env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "gnubg_blunder", *map(str, args)], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""
        self.pos = 0  # what was read up to (a match's end)

    def read_until(self, text: str, timeout: float = 20) -> str:
        """Everything shown until ``text`` appears (after what was read before)."""
        start = self.pos
        end = time.time() + timeout
        while text not in self.seen[start:]:
            left = end - time.time()
            if left <= 0:
                raise AssertionError(f"{text!r} not shown; the screen: {self.seen[start:][-2000:]}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"ended before {text!r}: {self.seen[start:][-2000:]}")
                self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        cut = self.seen.index(text, start) + len(text)
        self.pos = cut
        return self.seen[start:cut]

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            rc = self.proc.wait(timeout=20)
        finally:
            os.close(self.master)
        return rc


def test_quiz_at_the_terminal(quiz_db):
    t = Terminal("--db", quiz_db, "--no-config", "quiz", "--player", PLAYER, "--seed", "1", "--count", "3")
    first = t.read_until("answer> ")
    # the question: board, dice, cube, score — never the answer
    assert "Question 1/3" in first and "to play 4-2" in first and "Position ID: vJzBCDDM7k0AQA" in first
    assert "Squire/Jørgensen 4, Harmand/Unger 6" in first and "cube 2 owned by Harmand/Unger" in first
    assert "bar/21*" not in first and "10/8" not in first  # neither the best nor the played move
    # 1. the right move (the analysis' first): 0 mpt
    t.type("bar/21* 7/5")
    shown = t.read_until("answer> ")
    assert "right, the best (error 0 mpt, 0.00 % MWC)" in shown  # the review's unit beside mpt
    # the best's gap over the runner-up, which is not named (the player sees the best and their answer)
    assert "71.9 mpt ahead of the next best play" in shown and "10/8" not in shown
    assert "Position ID: PM5gBFjM3U0ABA" in shown  # the board after the best move
    assert "Question 2/3" in shown and "to play 5-5" in shown
    # 2. an illegal move: one line, a new try; then an unreadable one; then the wrong move played in the match
    t.type("13/7 8/7")
    assert "13/7 8/7 is not a legal move with 5-5" in t.read_until("answer> ")
    t.type("13/x")
    assert "cannot read" in t.read_until("answer> ")
    t.type("13/8(3) 10/5")
    shown = t.read_until("answer> ")
    assert re.search(r"error 55 mpt, \d+\.\d\d % MWC\. Best: 7/2\(2\) 6/1\*\(2\)\.", shown)  # as stored
    assert "Question 3/3" in shown
    # q quits with the score so far: 2 graded answers, Σe = 0 + 55 mpt (the grades as stored),
    # quiz PR = 500 × 0.055 / 2 = 13.75 -> 13.8 (shown to a decimal), as `training` reads the stored grades
    t.type("q")
    shown = t.read_until("(500 × Σe / N)")
    assert "2 graded answers, error 55.0 mpt in all, quiz PR 13.8" in shown
    assert t.close() == 0
    rows = _actions(quiz_db)
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("vJzBCDDM7k0AQA", "quiz", 0, 378), ("Ns7CESDYdsQBMA", "quiz", 55, 78)]
    assert all(r[4].endswith("+00:00") for r in rows)  # UTC


def test_quiz_cube_answers_at_the_terminal(quiz_db):
    """Cube questions: the counted cube decisions of Harmand/Unger's side
    (--all-decisions --decision-type cube).  Answers judged on the stored
    ND, DT, DP (SPEC §1)."""
    t = Terminal("--db", quiz_db, "--no-config", "quiz", "--player", "Harmand/Unger", "--all-decisions",
                 "--decision-type", "cube", "--seed", "4", "--count", "2")
    graded = []
    for k in (1, 2):
        shown = t.read_until("answer> ")
        assert f"Question {k}/2" in shown
        responds = "take or pass?" in shown
        # a no double, then a pass; a double of the player's own cube asked as a redouble
        ask = "redouble or no redouble?" if "owned by Harmand/Unger" in shown else "double or no double?"
        assert responds == (k == 2) and (responds or ask in shown)
        t.type("13/7 8/7")  # a move to a cube question: one line, a new try
        assert "a cube decision: answer" in t.read_until("answer> ")
        t.type("take" if responds else "no double")
        graded.append(t.read_until("mpt"))
    t.read_until("(500 × Σe / N)")
    assert t.close() == 0
    rows = _actions(quiz_db)
    assert len(rows) == 2 and {r[1] for r in rows} == {"quiz"}
    # each stored grade is the error of that answer computed from the decision's own row
    con = sqlite3.connect(quiz_db)
    for (pid, _a, grade_mpt, did, _at) in rows:
        kind, nd, dt, dp, dpos = con.execute("SELECT kind, nd, dt, dp, position_id FROM decisions WHERE id = ?",
                                             (did,)).fetchone()
        assert pid == dpos
        r = min(dt, dp)
        e = dt - r if kind in ("take", "pass") else max(nd, r) - nd  # take, or no double
        assert grade_mpt == int((round(e * 1e6) + 500) // 1000)
    con.close()


def test_grading_rules():
    """Grade in-process: a legal move the analysis did not list is not
    graded; a lower-depth candidate above the first counts 0."""
    from gnubg_blunder.quiz.core import Item, Session, grade

    item = Item(decision_id=1, match_id=1, game=0, kind="checker", position_id="4HPwATDgc/ABMA", dice=(3, 1),
                cube_value=1, cube_owner="centred", score_self=0, score_opp=0, crawford=False, length=7,
                you="charlot1", opponent="charlot2",
                candidates=[{"move": "8/5 6/5", "equity": 0.150, "position_id": "4HPwATDgc/ABMA", "depth": "2-ply"},
                            {"move": "24/21 6/5", "equity": 0.010, "position_id": None, "depth": "2-ply"},
                            {"move": "13/10 24/23", "equity": 0.200, "position_id": None, "depth": "0-ply"}])
    from gnubg_blunder.board import Board, parse_move_notation

    b = Board.initial()
    for c in item.candidates:
        c["position_id"] = parse_move_notation(b, 3, 1, c["move"]).result.position_id()
    s = Session()
    g = grade(item, "8/5 6/5")
    assert g.graded and g.error == 0 and g.best == "8/5 6/5" and abs(g.best_gap - 0.140) < 1e-12
    s.add(g)
    g = grade(item, "24/21 6/5")
    assert g.graded and abs(g.error - 0.140) < 1e-12
    s.add(g)
    g = grade(item, "24/23 13/10")  # the 0-ply tail ranked above the first: 0, not negative
    assert g.graded and g.error == 0
    s.add(g)
    g = grade(item, "13/9")  # legal, not listed
    assert g.status == "not graded"
    s.add(g)
    assert grade(item, "6/off").retry and grade(item, "24/18").retry and grade(item, "double").retry
    # PR = 500 × (0 + 0.140 + 0) / 3 = 23.33 (the not-graded answer leaves the count)
    assert abs(s.pr - 500 * 0.140 / 3) < 1e-9 and s.not_graded == 1


GNUBG_SCRIPT = r'''
import sys, json
sys.path[:0] = %(paths)r
from gnubg_blunder.gnubg.console import Bdb
import gnubg
bdb = Bdb(%(db)r)
gnubg.command('load match "%(sgf)s"')
loaded = [gnubg.matchid(), gnubg.positionid(), len(gnubg.match()["games"])]
print("@@ stored", bdb.store())
n = bdb.quiz("--player 'Squire/Jørgensen' --seed 1 --count 2 --no-config")
first = {"pid": gnubg.positionid(), "mid": gnubg.matchid(), "dice": list(gnubg.posinfo()["dice"]),
         "cube": gnubg.cubeinfo()["cube"], "owner": gnubg.cubeinfo()["cubeowner"],
         "score": list(gnubg.cubeinfo()["score"]), "turn": gnubg.posinfo()["turn"]}
names = gnubg.match(analysis=0, boards=0)["match-info"]
names = [names["X"]["name"], names["O"]["name"]]
e1 = bdb.answer("13/7 8/7")      # illegal with 4-2: a new try
e2 = bdb.answer("bar/21* 10/8")   # the move of the match
second = {"pid": gnubg.positionid(), "dice": list(gnubg.posinfo()["dice"])}
e3 = bdb.answer("7/2(2) 6/1*(2)")
back = [gnubg.matchid(), gnubg.positionid(), len(gnubg.match()["games"])]
cube = []
bdb.quiz("--player Harmand/Unger --all-decisions --decision-type cube --seed 4 --count 2 --no-config")
for k in range(2):
    item = bdb._quiz["items"][bdb._quiz["k"]]
    cube.append([gnubg.positionid(), gnubg.matchid(), list(gnubg.posinfo()["dice"])])
    bdb.answer("take" if item.responds else "no double")
bdb.quiz("--player 'Squire/Jørgensen' --seed 1 --count 2 --no-config")
bdb.answer("q")  # quit at the first question
quit_back = [gnubg.matchid(), gnubg.positionid(), len(gnubg.match()["games"])]
print("@@" + json.dumps({"loaded": loaded, "back": back, "quit_back": quit_back, "names": names, "cube": cube, "n": n, "first": first, "second": second, "e": [e1, e2, e3]}))
'''


@pytest.mark.skipif(not gnubg_available(), reason="needs gnubg")
def test_quiz_inside_gnubg(quiz_db):
    """One gnubg process: bdb.quiz() puts the position on gnubg's board
    (gnubg's own position ID, match ID and dice are ours) and bdb.answer()
    grades and stores."""
    import site

    from gnubg_blunder.board import MatchState
    from gnubg_blunder.gnubg.process import run_python

    paths = [str(Path(__file__).resolve().parent.parent)] + site.getsitepackages()
    sgf = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
    res = run_python(GNUBG_SCRIPT % {"paths": paths, "db": str(quiz_db), "sgf": sgf}, timeout=120)
    out = res.stdout
    assert "Traceback" not in out + res.stderr, out[-3000:] + res.stderr[-2000:]
    line = next(x for x in out.splitlines() if x.startswith("@@{"))
    got = json.loads(line[2:])
    # the match loaded before the quiz is back at its end, and after a quiz quit (docs/quiz.md)
    assert got["back"] == got["loaded"] and got["quit_back"] == got["loaded"]
    assert out.count("the match you had loaded is back on gnubg's board") == 3
    # the stored match's names on gnubg's board, the player asked at the bottom (gnubg's player 1)
    assert got["names"] == ["Harmand/Unger", "Squire/Jørgensen"]
    assert "@@ stored 2" in out  # the gnubg analysis of the bundled match, beside XG's (match 2)
    assert got["n"] == 2
    # question 1: Squire/Jørgensen (gnubg's player 1) to play 4-2 at 4-6 in a 7-point match, cube 2 owned by
    # Harmand/Unger (gnubg's player 0)
    want = MatchState(cube=2, cube_owner=0, on_roll=1, dice=(4, 2), match_length=7, score=(6, 4))
    assert got["first"] == {"pid": "vJzBCDDM7k0AQA", "mid": want.match_id(), "dice": [4, 2], "cube": 2, "owner": 0,
                            "score": [6, 4], "turn": 1}
    assert "is not a legal move with 4-2" in out and "error 72 mpt" in out  # the grade as stored
    assert got["e"] == [None, 71.942, 0.0]  # mpt to the analyser's 6 decimals of EMG
    assert got["second"] == {"pid": "Ns7CESDYdsQBMA", "dice": [5, 5]}
    assert "quiz PR 18.0" in out  # 500 × (0.072 + 0) / 2 = 18.0, the stored grades
    assert [(r[2], r[3]) for r in _actions(quiz_db)][:2] == [(72, 378), (0, 78)]
    # cube questions on gnubg's board: the player asked on roll before rolling (no dice); a take/pass
    # question as the doubler's position before the double (gnubg 1.07 keeps no double pending)
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.quiz.core import choose
    from gnubg_blunder.quiz.gnubg_board import target
    from gnubg_blunder.database import open_store

    st = open_store(str(quiz_db))
    items = choose(st, Filter(player="Harmand/Unger", decision_type="cube"), thresholds_for(st), count=2, seed=4,
                   errors_only=False)
    st.close()
    assert [(i.kind, i.cube_owner) for i in items] == [("nodouble", "you"), ("pass", "centred")]
    want = [[target(i)[1], target(i)[0].match_id(), [0, 0]] for i in items]
    assert got["cube"] == want
    assert len(_actions(quiz_db)) == 4


def test_plan_top_picks_the_plan_families(tmp_path, cli):
    """--plan-top N: only the members of the plan's first N families
    (tests/test_plan.py's worked example), in the study half's cost: under
    the default pr, 1st holding game/checker/too many blots, 7 members, 2nd
    priming game/checker/point not made, 10; under --metric mwc the other
    order."""
    from test_plan import P_HOLD, P_PRIME, plan_matches

    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.quiz.core import choose
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path / "plan.db"
    with SQLiteStore(path) as st:
        for m in plan_matches():
            st.add_match(m)
        one = choose(st, Filter(), thresholds_for(st), count=0, plan_top=1)
        one_mwc = choose(st, Filter(), thresholds_for(st), count=0, plan_top=1, metric="mwc")
        two = choose(st, Filter(), thresholds_for(st), count=0, plan_top=2, seed=4)
        again = choose(st, Filter(), thresholds_for(st), count=0, plan_top=2, seed=4)
    assert len(one) == 7 and {i.position_id for i in one} == {P_HOLD}
    assert len(one_mwc) == 10 and {i.position_id for i in one_mwc} == {P_PRIME}
    assert len(two) == 17 and {i.position_id for i in two} == {P_PRIME, P_HOLD}
    assert [i.decision_id for i in two] == [i.decision_id for i in again]  # --seed: the same quiz
    res = cli("--no-config", "quiz", "--plan-top", "1", "--count", "3", "--seed", "1", db=path, input="q\n")
    assert "Quiz: 3 questions (both sides)" in res.stdout and "quiz PR —" in res.stdout
    res = cli("--no-config", "quiz", "--plan-top", "1", "--metric", "mwc", "--count", "0", db=path, input="q\n")
    assert "Quiz: 10 questions (both sides)" in res.stdout
    bad = cli("--no-config", "quiz", "--player", "charlot1", "--tournament", "Nowhere", db=path, check=False)
    assert bad.returncode == 2 and "no counted error in this selection" in bad.stderr


def test_quiz_command_inside_gnubg_points_to_bdb_quiz(quiz_db, capsys, monkeypatch):
    """bdb("quiz") would read gnubg's own input: one line pointing to bdb.quiz()."""
    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    from gnubg_blunder.gnubg.console import Bdb

    Bdb(str(quiz_db))("quiz --player charlot1")
    out = capsys.readouterr().out
    assert 'inside gnubg the quiz is bdb.quiz("OPTIONS")' in out and "Traceback" not in out
    assert Bdb(str(quiz_db)).answer("13/7 8/7") is None
    assert "no quiz in progress: bdb.quiz() starts one" in capsys.readouterr().out


def test_take_question_names_the_doubler_on_roll_and_the_taker(tmp_path):
    """A take/pass question of the committed 3-point self-play match m23-3
    (Strongbot doubles to 2 at game 1, Weakbot takes), Weakbot's quiz: the
    question says who doubles and who answers, the doubler is the side on
    roll on the text board, the taker (X, at the bottom) is not labelled on
    roll nor "(doubled)"; a cube question never ends with "your move?"."""
    from conftest import committed_selfplay_file, run_cli_inprocess
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.quiz.core import choose, question_text
    from gnubg_blunder.database import SQLiteStore

    db = tmp_path / "q.db"
    run_cli_inprocess("--no-config", "import", committed_selfplay_file(23, 3), db=db)
    with SQLiteStore(db, upgrade=False) as st:
        items = choose(st, Filter(player="Weakbot", decision_type="cube"), thresholds_for(st), count=0, seed=1,
                       errors_only=False)
    take = [i for i in items if i.responds and i.game == 0]
    assert len(take) == 1 and take[0].kind == "take" and take[0].cube_value == 1
    text = question_text(take[0], 1, 1)
    lines = text.splitlines()
    assert lines[-1] == "Strongbot doubles to 2 — Weakbot (X) to take or pass?"
    assert "(doubled)" not in text and "your move" not in text.lower()
    # The text board: the doubler (O, top) on roll, the taker (X, bottom) to answer.
    assert "O Strongbot (on roll, doubles to 2): " in lines[1]
    assert "X Weakbot (to take or pass): " in lines[13] and "on roll" not in lines[13]
    assert text.count("on roll") == 1
    # No counted double/no double of Weakbot's in this match: the same board asked as one.
    import dataclasses

    for item in (dataclasses.replace(take[0], kind=k) for k in ("nodouble", "double")):
        q = question_text(item).splitlines()
        assert q[-1] == "Weakbot (X) on roll, before rolling: double or no double?"
        assert "your move" not in "\n".join(q).lower()


def test_feedback_names_only_seen_moves_suggests_a_legal_play_and_prints_the_stored_grade(quiz_db):
    """Issue 26: the hint "e.g. 13/7 8/7" was shown for any roll (illegal
    with 6-3); "The best is … ahead of X" named the runner-up; the printed
    errors (0.1 mpt) gave another PR than the stored grades (whole mpt)."""
    from gnubg_blunder.board import parse_move_notation
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.study import quiz_error
    from gnubg_blunder.metrics.kernel import rate
    from gnubg_blunder.quiz.core import Session, choose, feedback_text, grade, record
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(quiz_db, upgrade=False) as st:
        items = [i for i in choose(st, Filter(player=PLAYER, decision_type="checker"), thresholds_for(st),
                                   count=0, seed=1) if len(i.candidates) >= 3][:6]
        assert items
        s = Session()
        for item in items:
            hint = grade(item, "").message
            example = hint.split("e.g. ")[1].rsplit("), or q", 1)[0]
            assert parse_move_notation(item.board, *item.dice, example) is not None, (item.dice, example)
            assert "13/7 8/7" not in hint or parse_move_notation(item.board, *item.dice, "13/7 8/7")
            for cand in item.candidates[:3]:
                g = grade(item, cand["move"])
                if not g.graded:
                    continue
                text = feedback_text(item, g)
                others = {c["move"] for c in item.candidates} - {g.best, g.answer}
                assert not any(f" {m}." in text or f" {m}:" in text for m in others), text
                assert "% MWC" in text
                s.add(g)
                record(st, item, g)
        rows = st.conn.execute("SELECT grade FROM study_actions WHERE action = 'quiz'").fetchall()
    stored = [quiz_error(r[0]) for r in rows]
    assert len(stored) == len(s.errors) and rate(sum(stored), len(stored)) == s.pr
