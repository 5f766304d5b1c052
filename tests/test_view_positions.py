"""``positions``: the decisions behind a count, on tests/fixture_db.py.

Expected lists by hand from the fixture's MATCHES (counted decisions only:
the forced play of match 1 and the no double outside the window of match 2
are never listed).  Order: costliest first (e, then MWC loss, then match
order); game and move count from 1 (move = the record's number in its
game, the fixture's seq + 1).
"""

import json

import pytest

from conftest import run_cli_inprocess as cli
from fixture_db import HOSTILE
from gnubg_blunder.metrics.summary import tags_of


def positions(db, *args):
    return json.loads(cli("--no-config", "positions", "--format", "json", *args, db=db).stdout)


def key(obj):
    return [(d["match_id"], d["game"], d["move"], d["error_mpt"]) for d in obj["decisions"]]


def test_blunders_everyone(db):
    p = positions(db, "--blunders")
    assert p["filter"]["player"] is None and p["criteria"]["severity"] == "blunders"
    # e ≥ 100 mpt: .200 pass (match 2), .150 (match 1), .120 (match 2), .100 no double (match 2),
    # .100 (match 3): the two 100s have equal MWC (.05): match order
    assert key(p) == [(2, 2, 4, 200.0), (1, 1, 5, 150.0), (2, 2, 1, 120.0), (2, 1, 2, 100.0), (3, 1, 3, 100.0)]
    assert p["total"] == p["shown"] == 5
    first = p["decisions"][0]
    assert (first["player"], first["kind"], first["played"], first["best"]) == ("Squire/Jørgensen", "pass",
                                                                                 "pass", "take")
    assert first["position_id"] == "mAcM8EY73icAAA" and first["date"] == "2025-02-15"
    assert first["mwc_loss"] == pytest.approx(10.0)  # .200 × .5 × 100


def test_errors_charlot1_are_the_summary_count(db):
    p = positions(db, "--errors", "--player", "charlot1")
    s = json.loads(cli("--no-config", "summary", "--player", "charlot1", "--format", "json", db=db).stdout)
    assert p["total"] == s["errors"] == 5
    assert [d["error_mpt"] for d in p["decisions"]] == [120.0, 100.0, 90.0, 80.0, 50.0]
    money = p["decisions"][2]
    assert money["match_id"] == 4 and money["length"] == 0 and money["mwc_loss"] is None


def test_every_counted_decision_of_a_player(db):
    p = positions(db, "--player", "charlot1", "--limit", "0")
    # the 12 counted decisions, Σe = 500 mpt (PR 20.83 = 500 × .5 / 12)
    assert p["total"] == p["shown"] == 12 and p["limit"] is None
    assert sum(d["error_mpt"] for d in p["decisions"]) == pytest.approx(500.0)


@pytest.mark.parametrize("tag", ["blitz", "#blitz", "BLITZ"])
def test_tag(db, tag):
    # "#blitz look at this" (match 1, .080) and "#blitz" (match 2, .120)
    assert key(positions(db, "--tag", tag)) == [(2, 2, 1, 120.0), (1, 1, 3, 80.0)]


def test_other_tags(db):
    assert key(positions(db, "--tag", "cube")) == [(2, 1, 2, 100.0)]
    assert key(positions(db, "--tag", "race")) == [(1, 2, 3, 40.0)]
    assert positions(db, "--tag", "script")["total"] == 0  # a comment without "#" holds no tag


def test_tags_of():
    assert tags_of("#blitz look at this") == {"blitz"}
    assert tags_of("#Race, #back-game and #x_y; not#this? 1#") == {"race", "back-game", "x_y"}
    assert tags_of(None) == set() and tags_of("# nothing") == set()


def test_theme(db):
    p = positions(db, "--theme", "too-many-blots")
    assert p["criteria"]["theme"] == "too many blots"
    assert key(p) == [(2, 2, 1, 120.0), (4, 2, 1, 90.0), (1, 1, 3, 80.0)]


def test_phase_and_game_plan(db):
    # position uPuREADNAgAAAA is bear-off / bear-off (one reading): match 1 g2 moves 1 (0) and 3 (.040),
    # match 2 g2 move 3 (0), match 3 g2 move 2 (.020); the forced play of match 1 is not counted
    expected = [(1, 2, 3, 40.0), (3, 2, 2, 20.0), (1, 2, 1, 0.0), (2, 2, 3, 0.0)]
    assert key(positions(db, "--phase", "bear-off")) == expected
    assert key(positions(db, "--game-plan", "bear-off")) == expected
    assert key(positions(db, "--game-plan", "race")) == key(positions(db, "--phase", "race")) == []
    # bear-off against contact: the premature double (.060), its take (0), the wrong pass (.200)
    assert key(positions(db, "--game-plan", "bear-off against contact")) == [
        (2, 2, 4, 200.0), (1, 2, 4, 60.0), (1, 2, 5, 0.0)]


def test_kind_and_decision_type(db):
    # counted no doubles: match 2's missed double (.100) and match 1's right one (0); not the one far out
    assert key(positions(db, "--kind", "nodouble")) == [(2, 1, 2, 100.0), (1, 1, 6, 0.0)]
    assert key(positions(db, "--kind", "take", "--player", "charlot1")) == [(1, 2, 5, 0.0)]
    # cube errors: pass .200, no double .100, double .060
    assert key(positions(db, "--errors", "--decision-type", "cube")) == [
        (2, 2, 4, 200.0), (2, 1, 2, 100.0), (1, 2, 4, 60.0)]


def test_limit(db):
    # 11 errors in all: 80, 150, 60 | 50, 100, 120, 200 | 100, 60 | 90 | 70
    p = positions(db, "--errors", "--limit", "2")
    assert (p["total"], p["shown"], p["limit"]) == (11, 2, 2)
    assert key(p) == [(2, 2, 4, 200.0), (1, 1, 5, 150.0)]
    text = cli("--no-config", "positions", "--errors", "--limit", "2", db=db).stdout
    assert "11 decisions, 2 shown" in text and "--limit 0 for all" in text


def test_csv(db):
    out = cli("--no-config", "positions", "--player", "charlot1", "--errors", "--format", "csv", db=db).stdout
    lines = out.splitlines()
    assert lines[0] == ("position_id,match_id,date,game,move,player,kind,played,best,error_mpt,mwc_loss,"
                        "difficulty_mpt,difficulty_mwc,difficulty_truncated,gnubg_row")
    assert len(lines) == 6
    # d of a no double 0.1 from the double: 0.1 / (1 + e^4) = 1.8 mpt (SPEC §6)
    assert lines[2] == ("w+bBAyDgOTiCFQ,2,2025-02-15,1,2,charlot1,nodouble,no double,double/take,100.0,5.0,"
                        "1.7986209962091568,0.08993104981045784,False,2")
    assert ",90.0,," in lines[3] and ",,False," in lines[3]  # money: MWC unknown, an empty field, never 0


def test_text(db):
    text = cli("--no-config", "positions", "--player", HOSTILE, db=db).stdout
    assert "1 decision" in text and HOSTILE in text and "sOfgASiwZ/ABMA" in text
    text = cli("--no-config", "positions", "--player", "charlot1", "--errors", db=db).stdout
    lines = text.splitlines()  # scope, title, header, rule, then 120, 100, 90 (money) ...
    assert lines[0] == "Scope: player charlot1"
    assert lines[6].split()[0] == "4" and "—" in lines[6]  # the money error's MWC
    assert "position ID" in text and "(blunder)" in text


@pytest.mark.parametrize("args", [("--phase", "endgame"), ("--theme", "bad luck"), ("--limit", "-1"),
                                  ("--limit", "many"), ("--kind", "beaver")])
def test_bad_criteria_are_one_line_errors(db, args):
    res = cli("--no-config", "positions", *args, db=db, check=False)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_a_difficulty_no_analyser_can_carry_is_zero_not_float_noise(tmp_path):
    """The wrong pass of tests/fixtures/sgf/analysed_eval.sgf: gnubg's take
    is best by DP − DT = 1.505035 EMG, so d = 1.505035 / (1 + e^(1.505035 /
    0.025)) = 1.08·10⁻²⁶ EMG (SPEC §6) — the rule's exact value, but far under
    10⁻¹² EMG (a millionth of gnubg's last decimal): CSV and JSON give 0, not
    1.0774643724271735e-23 mpt.  e and ℓ stay as they were, to the digit."""
    from conftest import FIXTURES

    db = tmp_path / "eval.db"
    cli("import", FIXTURES / "sgf" / "analysed_eval.sgf", db=db)
    lines = cli("--no-config", "positions", "--kind", "pass", "--format", "csv", db=db).stdout.splitlines()
    assert lines[1:] == ["4DnxAFjEZ/DBAA,1,2025-11-08,1,8,charlot2,pass,pass,take,1505.035,22.266998668969862,"
                         "0.0,0.0,False,4"]
    (record,) = positions(db, "--kind", "pass")["decisions"]
    assert (record["difficulty_mpt"], record["difficulty_mwc"]) == (0.0, 0.0)
