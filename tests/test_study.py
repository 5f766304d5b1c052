"""Study against play (SPEC §11, §14; metrics/study.py, views/study.py,
views/training.py, docs/study.md): before / after study, training, study
vs play, on a hand-made store whose every number is computed by hand below.

The study store (tests/fixture_db.py's style; thresholds the default 0.050 /
0.100 EMG).  Four 7-point matches charlot1 v charlot2, every decision
charlot1's (player 0), ``mwc_per_emg`` 0.5 (ℓ = e/2), every checker play
counted (5 legal plays, 2 candidates listed), every error e = 0.100
(ℓ = 0.05):

- BEFORE, 2025-03-09 (a Sunday, ISO week from Monday 2025-03-03):
  holding game ×30 (4 "too many blots", 3 "too passive", 23 without error),
  playing against a back game ×30 (no error), bear-off against contact ×29
  (3 "point not made"), opening ×1 (no error): N 90, Σe 1.0.
- DAY, 2025-03-10 (the study day, a Monday): holding game ×10, all "too many
  blots": N 10, Σe 1.0 — in neither window of §11.
- AFTER, 2025-03-11: holding game ×30 (no error), playing against a back game
  ×30 (4 "point not made"), bear-off against contact ×30 (no error): N 90,
  Σe 0.4.
- UNDATED: holding game ×10, all "too passive" — in no window.

Study log (``store.add_study_action``):

1. "anki card" on P_PRIME, 2025-03-01 09:00Z: not a study action (a card
   created), ignored;
2. quiz P_OPEN grade 0, 2025-03-04 10:00Z; 3. quiz P_OPEN grade 40, 2025-03-05;
4. "studied" P_HOLD, 2025-03-10T23:59:59+00:00 → UTC day 2025-03-10;
5. quiz P_PRIME grade 10, 2025-03-11T01:00:00+02:00 = 2025-03-10 23:00 UTC →
   day 2025-03-10 (its local date, 03-11, would put the AFTER match on the day);
6. anki review P_BOAC ease 1, 2025-03-10 12:00Z; 7. anki review P_BOAC ease 3,
   2025-03-12; 8. anki learn P_HOLD ease 1, 2025-03-12;
9. quiz P_HOLD grade 100, 2025-03-18; 10. anki review P_PRIME ease 2, 2025-03-18.

Every family is studied from 2025-03-10: before = the BEFORE match, after =
the AFTER match.  r in MWC % points per 100 decisions = 10⁴ Σℓ / N:

- bear-off against contact/checker/point not made: N_b 29, Σℓ 0.15 → r_b =
  1500/29 = 51.724; N_a 30, r_a 0: **insufficient** (29 < 30).
- holding game/checker/too many blots: N_b 30, Σℓ 4 × 0.05 = 0.2 → r_b =
  66.667; r_a 0 (N_a 30); Δ = 66.667; Var = 10⁸ × 4 × 0.05² / 30² =
  1111.11, √ = 33.333, × 1.96 = 65.333: [1.333, 132.000] → **improving**
  (lower bound just above 0).
- holding game/checker/too passive: 3 errors, r_b = 50; Var = 10⁸ × 0.0075 /
  900 = 833.33, √ = 28.868, × 1.96 = 56.580: [−6.580, 106.580] →
  **undetermined** (lower bound just below 0).
- playing against a back game/checker/point not made: r_b 0, r_a 66.667: Δ −66.667,
  [−132.000, −1.333] → **regressing**.

Those are the figures of ``--metric mwc`` (c = ℓ).  Under the default cost
``pr`` (c = e in EMG, mpt per 100 decisions: 10⁵ Σe / N) every error costs
e = 0.100 = 2 × ℓ and every r is 20 × the mwc one: blots r_b = 10⁵ × 0.4 /
30 = 1333.33, Var = 10¹⁰ × 4 × 0.01 / 900 = 444444.4, √ = 666.67, × 1.96 =
1306.67: [26.67, 2640.00], improving; the same verdicts.  Beside r, the
errors per 100 decisions: blots 4 / 30 → 13.33 before, 0 after.
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from fixture_db import P_BOAC, P_HOLD, P_OPEN, P_PRIME
from gnubg_blunder.metrics import study
from gnubg_blunder.model import Analysis, Candidate, Decision, Game, Match, Roll

BLOTS, PASSIVE, POINT = "too many blots", "too passive", "point not made"
F_BOAC = "bear-off against contact/checker/point not made"
F_BLOTS = "holding game/checker/too many blots"
F_PASSIVE = "holding game/checker/too passive"
F_PRIME = "playing against a back game/checker/point not made"
MWC = "mwc"  # the cost the hand-made figures below are written in (SPEC §9: the seed's rule)


def _checker(seq, error, position, theme):
    from fixture_db import LABELS

    phase, plan = LABELS[position]
    return Decision(kind="checker", player=0, game=0, seq=seq, position_id=position, cube_value=1, cube_owner=-1,
                    score_self=0, score_opp=0, crawford=False, dice=(3, 1), played_move="b" if error else "a",
                    best_move="a", error=error, mwc_per_emg=0.5, n_legal=5, played_index=1 if error else 0,
                    candidates=[Candidate(move="a", equity=0.3, position_id=position),
                                Candidate(move="b", equity=0.3 - max(error, 0.2), position_id=position)],
                    phase=phase, game_plan=plan, theme=theme)


def _block(position, n, errors=()):
    """n decisions at ``position``: first the errors (theme per error), then no error."""
    out = [(0.100, position, theme) for theme in errors]
    return out + [(0.0, position, None)] * (n - len(errors))


MATCHES = [
    ("2025-03-09", _block(P_HOLD, 30, [BLOTS] * 4 + [PASSIVE] * 3) + _block(P_PRIME, 30)
     + _block(P_BOAC, 29, [POINT] * 3) + _block(P_OPEN, 1)),
    ("2025-03-10", _block(P_HOLD, 10, [BLOTS] * 10)),
    ("2025-03-11", _block(P_HOLD, 30) + _block(P_PRIME, 30, [POINT] * 4) + _block(P_BOAC, 30)),
    (None, _block(P_HOLD, 10, [PASSIVE] * 10)),
]

ACTIONS = [
    (P_PRIME, "anki card", None, "2025-03-01T09:00:00+00:00"),
    (P_OPEN, "quiz", 0, "2025-03-04T10:00:00+00:00"),
    (P_OPEN, "quiz", 40, "2025-03-05T10:00:00+00:00"),
    (P_HOLD, "studied", None, "2025-03-10T23:59:59+00:00"),
    (P_PRIME, "quiz", 10, "2025-03-11T01:00:00+02:00"),
    (P_BOAC, "anki review", 1, "2025-03-10T12:00:00+00:00"),
    (P_BOAC, "anki review", 3, "2025-03-12T08:00:00+00:00"),
    (P_HOLD, "anki learn", 1, "2025-03-12T09:00:00+00:00"),
    (P_HOLD, "quiz", 100, "2025-03-18T10:00:00+00:00"),
    (P_PRIME, "anki review", 2, "2025-03-18T11:00:00+00:00"),
]


def study_matches() -> list:
    out = []
    for k, (date, decisions) in enumerate(MATCHES):
        game = Game(number=0, score=(0, 0), winner=0, points=7)
        game.decisions.extend(_checker(seq, e, pos, theme) for seq, (e, pos, theme) in enumerate(decisions))
        game.rolls.append(Roll(player=0, game=0, seq=1000, dice=(k + 1, 1), position_id=P_OPEN,
                               position_after=f"study-{k}", cube_value=1, luck=None, mwc_per_emg=0.5))
        out.append(Match(players=("charlot1", "charlot2"), length=7, source="sgf", games=[game],
                         analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date=date,
                         event="Study cup"))
    return out


@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path_factory.mktemp("study") / "study.db"
    with SQLiteStore(path) as st:
        for m in study_matches():
            st.add_match(m)
        for pid, action, grade, at in ACTIONS:
            st.add_study_action(pid, action, grade=grade, at=at)
    return path


def _json(cli, db, *args):
    return json.loads(cli("--no-config", *args, "--format", "json", db=db).stdout)


def close(a, b, tol=1e-3):
    return a is not None and math.isclose(a, b, abs_tol=tol)


# -- the rules, one at a time --------------------------------------------------------------------

def test_the_utc_day_of_a_study_action():
    assert study.utc_day("2025-03-10T23:59:59+00:00") == "2025-03-10"
    assert study.utc_day("2025-03-11T01:00:00+02:00") == "2025-03-10"  # 23:00 UTC the day before
    assert study.utc_day("2025-03-10T22:30:00-03:00") == "2025-03-11"
    assert study.utc_day("2025-03-10T12:00:00") == "2025-03-10"  # no offset: UTC
    assert study.utc_day("yesterday") is None


def test_first_study_action_by_utc_time_and_only_study_actions():
    fams = {P_HOLD: {1}, P_PRIME: {2}}
    actions = [
        {"id": 1, "position_id": P_HOLD, "action": "anki card", "at": "2025-03-01T00:00:00+00:00"},  # not one
        {"id": 2, "position_id": P_HOLD, "action": "studied", "at": "2025-03-10T23:59:59+00:00"},
        {"id": 3, "position_id": P_HOLD, "action": "quiz", "at": "2025-03-11T00:30:00+02:00"},  # 22:30 UTC: first
        {"id": 4, "position_id": P_PRIME, "action": "collection", "at": "2025-03-02T00:00:00+00:00"},  # not one
    ]
    days = study.study_days(actions, fams)
    assert days == {1: {"day": "2025-03-10", "action": "quiz", "position_id": P_HOLD,
                        "at": "2025-03-11T00:30:00+02:00"}}


def test_change_and_each_verdict_at_its_edge():
    # 4 errors of ℓ 0.05 in 30 decisions before, none in 30 after: [1.333, 132.0] (module docstring)
    ch = study.change(0.2, 4 * 0.0025, 30, 0.0, 0.0, 30, MWC)
    assert close(ch["r_before"], 66.6667) and ch["r_after"] == 0.0 and close(ch["delta"], 66.6667)
    assert close(ch["delta_ci"][0], 1.3333) and close(ch["delta_ci"][1], 132.0)
    assert ch["verdict"] == "improving"
    # the same with 29 decisions in one window: insufficient, whatever the interval
    assert study.change(0.2, 0.01, 29, 0.0, 0.0, 30, MWC)["verdict"] == "insufficient"
    assert study.change(0.2, 0.01, 30, 0.0, 0.0, 29, MWC)["verdict"] == "insufficient"
    # 3 errors: lower bound 50 − 56.580 = −6.580 < 0: undetermined
    ch = study.change(0.15, 3 * 0.0025, 30, 0.0, 0.0, 30, MWC)
    assert close(ch["delta_ci"][0], -6.5803) and ch["verdict"] == "undetermined"
    # mirrored: regressing when the upper bound < 0
    ch = study.change(0.0, 0.0, 30, 0.2, 0.01, 30, MWC)
    assert close(ch["delta_ci"][1], -1.3333) and ch["verdict"] == "regressing"
    # the bounds exactly: lower bound 0 is not > 0
    assert study.verdict_of(30, 30, [0.0, 1.0]) == "undetermined"
    assert study.verdict_of(30, 30, [1e-9, 1.0]) == "improving"
    assert study.verdict_of(30, 30, [-1.0, -1e-9]) == "regressing"
    # no decision in a window: no r, no Δ
    ch = study.change(0.1, 0.01, 30, 0.0, 0.0, 0, MWC)
    assert ch["r_after"] is None and ch["delta"] is None and ch["verdict"] == "insufficient"
    # the default cost, pr: Σe 0.4 (4 errors of e 0.100) in 30 decisions, r in mpt per 100 decisions
    ch = study.change(0.4, 4 * 0.01, 30, 0.0, 0.0, 30)
    assert close(ch["r_before"], 1333.3333) and close(ch["delta_ci"][0], 26.6667) and close(ch["delta_ci"][1], 2640)
    assert ch["verdict"] == "improving"
    assert study.per_100(4, 30) == pytest.approx(13.3333, abs=1e-4) and study.per_100(0, 0) is None


# -- progress-study -------------------------------------------------------------------------------

def test_progress_study_by_hand(study_db, cli):
    obj = _json(cli, study_db, "progress-study", "--metric", "mwc")
    assert (obj["metric"], obj["unit"], obj["cost_unit"]) == ("mwc", "% MWC per 100 decisions", "% MWC")
    fams = {f["family"]: f for f in obj["families"]}
    assert list(fams) == [F_BOAC, F_BLOTS, F_PASSIVE, F_PRIME]  # by name
    assert obj["not_studied"] == [] and obj["not_measured"] == 0
    assert "not an effect" in obj["note"]
    for f in fams.values():
        assert f["studied_from"] == "2025-03-10"
        # the day itself (the DAY match) and the UNDATED match are in neither window
        assert f["before"]["matches"] == 1 and f["after"]["matches"] == 1
    assert fams[F_BLOTS]["first_action"] == "studied" and fams[F_PRIME]["first_action"] == "quiz"
    assert fams[F_BOAC]["first_action"] == "anki review"

    b = fams[F_BOAC]
    assert (b["before"]["decisions"], b["before"]["errors"], b["after"]["decisions"]) == (29, 3, 30)
    assert close(b["before"]["r"], 1500 / 29) and b["after"]["r"] == 0.0 and b["verdict"] == "insufficient"
    assert close(b["before"]["cost"], 15.0)  # Σℓ: 3 × 5 % points

    f = fams[F_BLOTS]
    assert (f["before"]["decisions"], f["before"]["errors"], f["after"]["decisions"], f["after"]["errors"]) == (30, 4, 30, 0)
    assert close(f["delta"], 66.6667) and close(f["delta_ci"][0], 1.3333) and close(f["delta_ci"][1], 132.0)
    assert f["verdict"] == "improving"
    # beside Δ, the errors per 100 decisions: 4 of 30 before, none after (a count, the same in every cost)
    assert close(f["before"]["errors_per_100"], 13.3333) and f["after"]["errors_per_100"] == 0.0

    f = fams[F_PASSIVE]
    assert f["before"]["errors"] == 3 and close(f["before"]["r"], 50.0)
    assert close(f["delta_ci"][0], 50 - 1.96 * math.sqrt(1e8 * 0.0075 / 900)) and f["verdict"] == "undetermined"

    f = fams[F_PRIME]
    assert f["before"]["r"] == 0.0 and close(f["after"]["r"], 66.6667) and f["after"]["errors"] == 4
    assert close(f["delta_ci"][1], -1.3333) and f["verdict"] == "regressing"


def test_progress_study_in_the_default_cost_pr_and_in_mwc7(study_db, cli):
    """The module docstring: under pr, c = e in mpt per 100 decisions, 20 ×
    the mwc figures (10⁵ Σe/N against 10⁴ Σℓ/N, ℓ = e/2); under mwc7 the
    mwc figures (7-point matches: √(7/7) = 1)."""
    mwc = {f["family"]: f for f in _json(cli, study_db, "progress-study", "--metric", "mwc")["families"]}
    obj = _json(cli, study_db, "progress-study")
    assert (obj["metric"], obj["unit"], obj["cost_unit"]) == ("pr", "mpt per 100 decisions", "mpt")
    fams = {f["family"]: f for f in obj["families"]}
    f = fams[F_BLOTS]
    assert close(f["before"]["r"], 1333.3333) and close(f["before"]["cost"], 400.0)  # Σe: 4 × 100 mpt
    assert close(f["delta_ci"][0], 26.6667) and close(f["delta_ci"][1], 2640.0) and f["verdict"] == "improving"
    for name, m in mwc.items():
        p = fams[name]
        assert p["verdict"] == m["verdict"] and (p["before"]["errors"], p["after"]["errors"]) == (
            m["before"]["errors"], m["after"]["errors"])
        assert close(p["before"]["r"], 20 * m["before"]["r"]) and close(p["after"]["r"], 20 * m["after"]["r"])
        assert p["before"]["errors_per_100"] == m["before"]["errors_per_100"]
    seven = {f["family"]: f for f in _json(cli, study_db, "progress-study", "--metric", "mwc7")["families"]}
    for name, m in mwc.items():
        assert close(seven[name]["before"]["r"], m["before"]["r"]) and seven[name]["verdict"] == m["verdict"]
    text = cli("--no-config", "progress-study", db=study_db).stdout
    assert "r, Δ and its interval in mpt per 100 decisions" in text and "errors /100 before" in text
    assert "% MWC per 100 decisions" in cli("--no-config", "progress-study", "--metric", "mwc", db=study_db).stdout


def test_the_study_clock_starts_only_on_a_members_position(tmp_path, cli):
    """SPEC §11, the issue's case: a "studied" mark on a position of a
    checker blunder, where the same player's no double of 45 mpt (a cube
    "missed double", under the 50-mpt error threshold: no member) was also
    played.  The checker family is studied from the mark; the cube family,
    whose members (three missed doubles of 100 mpt) are at another position,
    is not — until a study action on one of its members' positions."""
    from fixture_db import LABELS
    from gnubg_blunder.database import SQLiteStore

    phase, plan = LABELS[P_HOLD]
    missed = f"{plan}/cube/missed double"
    blots = f"{plan}/checker/too many blots"

    def no_double(seq, position, error, theme):
        return Decision(kind="nodouble", player=0, game=0, seq=seq, position_id=position, cube_value=1,
                        cube_owner=-1, score_self=0, score_opp=0, crawford=False, error=error, mwc_per_emg=0.5,
                        nd=0.5, dt=0.5 + error if error else 0.45, dp=1.0, played_move="no double",
                        best_move="double/take" if error else "no double", phase=phase, game_plan=plan,
                        theme=theme)

    def match(date, with_errors):
        game = Game(number=0, score=(0, 0), winner=0, points=7)
        decs = [_checker(k, 0.5 if with_errors and k == 0 else 0.0, P_HOLD, BLOTS if with_errors and k == 0 else None)
                for k in range(30)]
        decs.append(no_double(30, P_HOLD, 0.045 if with_errors else 0.0, "missed double" if with_errors else None))
        # the cube family's members: at P_OPEN, labelled with P_HOLD's game plan (the labels are the store's)
        decs += [no_double(31 + k, P_OPEN, 0.1 if with_errors and k < 3 else 0.0,
                           "missed double" if with_errors and k < 3 else None) for k in range(30)]
        for d in decs:
            d.phase, d.game_plan = phase, plan
        game.decisions.extend(decs)
        return Match(players=("charlot1", "charlot2"), length=7, source="sgf", games=[game],
                     analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date=date, event="Clock cup")

    path = tmp_path / "clock.db"
    with SQLiteStore(path) as st:
        st.add_match(match("2025-03-09", True))
        st.add_match(match("2025-03-11", False))
        st.add_study_action(P_HOLD, "studied", at="2025-03-10T12:00:00+00:00")
    obj = _json(cli, path, "progress-study")
    assert [f["family"] for f in obj["families"]] == [blots] and obj["families"][0]["studied_from"] == "2025-03-10"
    assert obj["not_studied"] == [missed]  # the 45 mpt no double at P_HOLD is no member: no clock
    before_quiz = obj["families"]
    with SQLiteStore(path) as st:
        st.add_study_action(P_OPEN, "quiz", grade=0, at="2025-03-10T13:00:00+00:00")  # a member's position
    obj = _json(cli, path, "progress-study")
    fams = {f["family"]: f for f in obj["families"]}
    assert set(fams) == {blots, missed} and obj["not_studied"] == [] and before_quiz[0] == fams[blots]
    f = fams[missed]
    assert (f["studied_from"], f["first_action"], f["first_position"]) == ("2025-03-10", "quiz", P_OPEN)
    # 3 members of 100 mpt among the 31 counted no doubles of the game plan before (the 45 mpt one counts in N)
    assert (f["before"]["decisions"], f["before"]["errors"]) == (31, 3)
    assert close(f["before"]["r"], 1e5 * 0.3 / 31) and close(f["before"]["errors_per_100"], 300 / 31)


def test_progress_study_text_csv_and_family_filter(study_db, cli):
    text = cli("--no-config", "progress-study", db=study_db).stdout
    assert text.startswith("Before / after study — scope: every stored match, both sides")
    assert "A change, not an effect" in text and "improving" in text and "regressing" in text
    rows = list(csv.DictReader(io.StringIO(cli("--no-config", "progress-study", "--format", "csv",
                                               db=study_db).stdout)))
    assert [r["family"] for r in rows] == [F_BOAC, F_BLOTS, F_PASSIVE, F_PRIME]
    assert rows[1]["decisions_before"] == "30" and rows[1]["verdict"] == "improving"
    assert float(rows[1]["errors_per_100_before"]) == pytest.approx(400 / 30) and float(rows[1]["cost_before"]) == 400
    assert {r["unit"] for r in rows} == {"mpt per 100 decisions"}
    # --family keeps that family, but N still counts every holding-game checker play
    obj = _json(cli, study_db, "progress-study", "--family", F_BLOTS)
    assert [f["family"] for f in obj["families"]] == [F_BLOTS]
    assert obj["families"][0]["before"]["decisions"] == 30 and obj["families"][0]["verdict"] == "improving"


def test_a_family_without_study_is_listed_as_not_studied(tmp_path, cli):
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path / "s.db"
    with SQLiteStore(path) as st:
        for m in study_matches():
            st.add_match(m)
        st.add_study_action(P_PRIME, "anki card", at="2025-03-01T09:00:00+00:00")  # a card is not a study action
    obj = _json(cli, path, "progress-study")
    assert obj["families"] == [] and obj["not_studied"] == [F_BOAC, F_BLOTS, F_PASSIVE, F_PRIME]


# -- training --------------------------------------------------------------------------------------

def test_training_per_week_by_hand(study_db, cli):
    """Week 2025-03-03: quiz 0 and 40 mpt → 500 × 0.040 / 2 = 10.0; BEFORE
    match 500 × 1.0 / 90 = 5.556; no Anki review.  Week 2025-03-10: quiz 10
    mpt (the answer at 23:00 UTC on the 10th) → 5.0; DAY + AFTER matches
    500 × 1.4 / 100 = 7.0; Anki reviews ease 1 and 3 → 1 of 2 retained (the
    "anki learn" is not a review of a learned card).  Week 2025-03-17: quiz
    100 → 50.0; no match; review ease 2 → 1 of 1."""
    obj = _json(cli, study_db, "training")
    w = obj["windows"]
    assert [x["from"] for x in w] == ["2025-03-03", "2025-03-10", "2025-03-17"]
    assert w[0]["to"] == "2025-03-09"
    assert close(w[0]["quiz_pr"], 10.0) and w[0]["quiz_answers"] == 2
    assert close(w[0]["match_pr"], 500 / 90) and w[0]["match_decisions"] == 90 and w[0]["matches"] == 1
    assert w[0]["anki_retention"] is None and w[0]["anki_reviews"] == 0
    assert close(w[1]["quiz_pr"], 5.0) and close(w[1]["match_pr"], 7.0) and w[1]["matches"] == 2
    assert w[1]["anki_retention"] == 0.5 and w[1]["anki_learned_reviews"] == 2
    assert w[1]["anki_reviews"] == 3  # the reviews read: the "anki learn" too
    assert close(w[2]["quiz_pr"], 50.0) and w[2]["match_pr"] is None and w[2]["match_decisions"] == 0
    assert w[2]["anki_retention"] == 1.0
    # quiz PR by game plan, worst first: holding 50.0 (1), opening 10.0 (2), against a back game 5.0 (1)
    plans = [(p["game_plan"], p["quiz_answers"], round(p["quiz_pr"], 3)) for p in obj["quiz_by_game_plan"]]
    assert plans == [("holding game", 1, 50.0), ("opening", 2, 10.0), ("playing against a back game", 1, 5.0)]
    text = cli("--no-config", "training", db=study_db).stdout
    assert "—" in text and "50.0 %" in text and "100.0 %" in text


def test_training_per_month_and_the_filter_restricts_matches_only(study_db, cli):
    """March 2025: quiz 150 mpt over 4 → 18.75; matches 500 × 2.4 / 190 =
    6.316; reviews 2 of 3 retained.  --player charlot2 (who made no
    decision here): no match PR, the same quiz PR and retention."""
    w = _json(cli, study_db, "training", "--by", "month")["windows"]
    assert len(w) == 1 and w[0]["from"] == "2025-03-01" and w[0]["to"] == "2025-03-31"
    assert close(w[0]["quiz_pr"], 18.75) and close(w[0]["match_pr"], 1200 / 190) and w[0]["match_decisions"] == 190
    assert close(w[0]["anki_retention"], 2 / 3) and w[0]["anki_learned_reviews"] == 3 and w[0]["anki_reviews"] == 4
    w = _json(cli, study_db, "training", "--by", "month", "--player", "charlot2")["windows"]
    assert w[0]["match_pr"] is None and close(w[0]["quiz_pr"], 18.75) and close(w[0]["anki_retention"], 2 / 3)


def test_training_over_years_leaves_the_empty_windows_out_of_the_text(tmp_path, cli):
    """tests/fixture_db.py with match 1 moved to Tuesday 2023-01-10
    (YEARS_APART) and one quiz answer of 30 mpt on Wednesday 2024-06-05:
    ISO weeks from Monday 2023-01-09 to Monday 2025-03-31 (match 4,
    2025-04-05), 812 days = 117 weeks.  Five hold something: 2023-01-09 (m1,
    10 decisions, Σe .360: match PR 18.00), 2024-06-03 (the quiz: 500 × .030 =
    15.00), 2025-02-10 (m2: 7, .500 → 35.71), 2025-03-17 (m3: 6, .190 →
    15.83), 2025-03-31 (m4: 4, .130 → 16.25); 112 nothing.  By month: 2023-01
    to 2025-04, 28 months, 5 with something, 23 left out.  JSON and CSV keep
    every window."""
    from fixture_db import YEARS_APART, build_fixture_db
    from gnubg_blunder.database import SQLiteStore

    db = build_fixture_db(tmp_path / "years.db", YEARS_APART)
    with SQLiteStore(db) as st:
        st.add_study_action(P_OPEN, "quiz", grade=30, at="2024-06-05T10:00:00+00:00")
    assert len(_json(cli, db, "training")["windows"]) == 117
    assert len(cli("--no-config", "training", "--format", "csv", db=db).stdout.splitlines()) == 1 + 117
    text = cli("--no-config", "training", db=db).stdout.splitlines()
    rows = [ln.split()[:5] for ln in text if ln[:2] == "20"]
    assert rows == [["2023-01-09", "2023-01-15", "—", "0", "18.00"], ["2024-06-03", "2024-06-09", "15.00", "1", "—"],
                    ["2025-02-10", "2025-02-16", "—", "0", "35.71"], ["2025-03-17", "2025-03-23", "—", "0", "15.83"],
                    ["2025-03-31", "2025-04-06", "—", "0", "16.25"]]
    assert "112 weeks without any match or study left out (JSON and CSV list every week)" in text
    assert len(_json(cli, db, "training", "--by", "month")["windows"]) == 28
    text = cli("--no-config", "training", "--by", "month", db=db).stdout
    assert [ln[:10] for ln in text.splitlines() if ln[:2] == "20"] == [
        "2023-01-01", "2024-06-01", "2025-02-01", "2025-03-01", "2025-04-01"]
    assert "23 months without any match or study left out (JSON and CSV list every month)" in text


# -- study vs play -----------------------------------------------------------------------------------

def test_study_vs_play_by_hand(study_db, cli):
    """--days 8 --today 2025-03-17: the window is 2025-03-10 to 03-17.
    Reviewed in it: P_PRIME (quiz 23:00 UTC on the 10th), P_BOAC (two
    reviews, one position), P_HOLD (anki learn); the P_OPEN quizzes (03-04,
    03-05) and the 03-18 actions are outside.  PR before = BEFORE match,
    since = DAY + AFTER: holding 500 × 0.7 / 30 = 11.667 and 500 × 1.0 / 40 =
    12.5; against a back game 0.0 and 500 × 0.4 / 30 = 6.667; bear-off against
    contact 500 × 0.3 / 29 = 5.172 and 0.0; opening: 1 decision before → —."""
    obj = _json(cli, study_db, "list", "--type", "study", "--days", "8", "--today", "2025-03-17")
    assert (obj["from"], obj["to"], obj["days"]) == ("2025-03-10", "2025-03-17", 8)
    rows = {r["game_plan"]: r for r in obj["game_plans"]}
    assert set(rows) == {"holding game", "playing against a back game", "bear-off against contact", "opening"}
    assert [rows[p]["positions_reviewed"] for p in ("holding game", "playing against a back game",
                                                     "bear-off against contact", "opening")] == [1, 1, 1, 0]
    assert close(rows["holding game"]["pr_before"], 500 * 0.7 / 30) and close(rows["holding game"]["pr_since"], 12.5)
    back = rows["playing against a back game"]
    assert back["pr_before"] == 0.0 and close(back["pr_since"], 500 * 0.4 / 30)
    assert close(rows["bear-off against contact"]["pr_before"], 150 / 29)
    assert rows["opening"]["pr_before"] is None and rows["opening"]["decisions_before"] == 1
    # three numbers per game plan, no fourth: the CSV
    out = cli("--no-config", "list", "--type", "study", "--days", "8", "--today", "2025-03-17", "--format", "csv",
              db=study_db).stdout
    assert out.splitlines()[0] == "game_plan,positions_reviewed,pr_before,pr_since"
    # --days 30 from 03-20: every review but none of the matches is before the window
    obj = _json(cli, study_db, "list", "--type", "study", "--days", "30", "--today", "2025-03-20")
    rows = {r["game_plan"]: r for r in obj["game_plans"]}
    assert rows["opening"]["positions_reviewed"] == 1 and rows["holding game"]["pr_before"] is None
    assert close(rows["holding game"]["pr_since"], 500 * 1.7 / 70)  # 30 + 10 + 30 decisions, Σe 0.7 + 1.0


# -- the summary's card and the report ------------------------------------------------------------

def test_summary_card(study_db, cli):
    card = _json(cli, study_db, "summary")["study"]
    assert {f["family"]: f["verdict"] for f in card["families"]} == {
        F_BOAC: "insufficient", F_BLOTS: "improving", F_PASSIVE: "undetermined", F_PRIME: "regressing"}
    assert card["not_studied"] == 0 and "not an effect" in card["note"]
    assert (card["metric"], card["unit"]) == ("pr", "mpt per 100 decisions")
    text = cli("--no-config", "summary", db=study_db).stdout
    assert "Before / after study:" in text and "(Δ in mpt per 100 decisions)" in text
    card = _json(cli, study_db, "summary", "--metric", "mwc")["study"]
    assert card["unit"] == "% MWC per 100 decisions" and close(
        {f["family"]: f for f in card["families"]}[F_BLOTS]["delta"], 66.6667)


def test_the_report_renders_the_sections(study_db, cli, tmp_path):
    import re

    path = tmp_path / "r.html"
    cli("--no-config", "report", "--html", path, db=study_db)
    html = path.read_text(encoding="utf-8")
    for ident in ("study", "training", "study-vs-play"):
        assert f'<section id="{ident}">' in html, ident
    assert "could not be made" not in html
    start = html.index('<section id="study">')
    section = html[start:html.index("</section>", start)]
    assert "A change, not an effect" in section and "improving" in section and "<svg" in section
    start = html.index('<section id="training">')
    assert "<svg" in html[start:html.index("</section>", start)]
    assert 'id="study-card"' in html
    assert "<script" not in html.lower() and not re.search(r"\bon[a-z]+\s*=", html, re.IGNORECASE)
    # as a real browser builds it: the practice sections and the study sections, their charts inline
    from test_report import CHROMIUM, CHROMIUM_FLAGS

    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    import subprocess

    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                          path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    for ident in ("study", "training", "study-vs-play", "plan", "references"):
        assert f'<section id="{ident}">' in dom, ident
    start = dom.index('<section id="study">')
    assert "<svg" in dom[start:dom.index("</section>", start)] and "A change, not an effect" in dom


@pytest.mark.parametrize("args", [("progress-study",), ("training",), ("training", "--by", "month"),
                                  ("list", "--type", "study", "--days", "8", "--today", "2025-03-17")])
def test_csv_and_html_hold_the_json_numbers(study_db, cli, args):
    """As tests/test_command_kit.py checks every view: the CSV's numbers are
    the JSON's, the HTML table is the CSV's, the JSON carries its filter."""
    from lxml import html as lxml_html

    from gnubg_blunder.commands import get_registry

    obj = _json(cli, study_db, *args, "--from", "2025-01-01")
    assert obj["filter"]["date_from"] == "2025-01-01"

    def numbers(x):
        if isinstance(x, bool) or x is None:
            return []
        if isinstance(x, (int, float)):
            return [float(x)]
        if isinstance(x, dict):
            return [n for v in x.values() for n in numbers(v)]
        if isinstance(x, list):
            return [n for v in x for n in numbers(v)]
        return []

    found = numbers(obj)
    rows = list(csv.reader(io.StringIO(cli("--no-config", *args, "--from", "2025-01-01", "--format", "csv",
                                           db=study_db).stdout)))
    assert len(rows) >= 2
    for row in rows[1:]:
        for cell in row:
            try:
                x = float(cell)
            except ValueError:
                continue
            if cell.strip().lower() in ("nan", "inf", "-inf"):
                continue
            assert any(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for y in found), (args, cell)
    view = get_registry().commands[args[0]].view
    page = lxml_html.fromstring(view.table(obj).html())
    cells = [[td.text_content() for td in tr.findall("td")] for tr in page.iter("tr") if tr.findall("td")]
    assert cells == [[("—" if c == "" else c) for c in r] for r in rows[1:]]
