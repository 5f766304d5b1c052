"""The study plan (SPEC §9; metrics/plan.py, views/plan.py, docs/plan.md).

A hand-made store (below, in tests/fixture_db.py's style) whose every figure
is computed by hand in the comments; then real files (the XG reference
matches, the gnubg-analysed SGF and a gnubg self-play match): every family
the plan lists has R = Σ(ℓ − d) over ``positions --family F --errors``.

The plan store (thresholds: the default 0.050 / 0.100 EMG).  One 7-point
match (``mwc_per_emg`` 0.5: ℓ = e/2) and one money session.  A checker play
has 5 legal plays and two candidates Δ apart:

- Δ = 1.0: d = 1/(1 + e^40) ≈ 4e-18 EMG — nil;
- Δ = 0.05: d = 0.05/(1 + e²) = 0.05/8.389056 = 0.0059601 EMG, in MWC
  0.0029801 (× 0.5).

A missed double (ND 0.5, DT 0.5 + e, DP 1): the owner's options cost e (no
double) and 0 (double): d = e/(1 + e^(e/0.025)).

Families (fractions of MWC; R and its interval in % points):

1. "playing against a back game/checker/point not made": 10 errors, e = 0.050 (the
   threshold itself), Δ = 0.05: ℓ − d = 0.025 − 0.0029801 = 0.0220199 each.
   R = 0.220199 = 22.02 %; √Σx² = 0.0220199 × √10 = 0.0696331; × 1.96 =
   0.136481: [8.372, 35.668] %.  In the plan, first: lower bound 8.37.
2. "holding game/checker/too many blots": 6 errors, e = 0.100, Δ = 1:
   x = 0.05 each.  R = 30 %; √Σx² = 0.05 × √6 = 0.122474; × 1.96 = 0.240050:
   [5.995, 54.005] %.  In the plan, second (lower bound 5.995 < 8.372 although
   its R is larger).  One more member in the money session (e = 0.090: no ℓ,
   not quantified) — 7 members, 6 quantified; a decision of the family under
   the threshold (e = 0.040) is not a member.
3. "bear-off against contact/checker/point not made": 4 errors, e = 0.200,
   Δ = 1: x = 0.1 each; R = 40 %, half-width 1.96 × 0.1 × 2 = 0.392:
   [0.8, 79.2] %.  Lower bound > 0 but only 4 quantified: to confirm.
4. "holding game/cube/missed double": 5 missed doubles e = 0.300, 0.060 ×4.
   d(0.300) = 0.3/(1 + e^12) = 1.8e-6; d(0.060) = 0.06/(1 + e^2.4) =
   0.06/12.023176 = 0.0049904; x = 0.15 − 0.0000009 = 0.1499991 and
   0.03 − 0.0024952 = 0.0275048 ×4.  R = 0.2600183 = 26.00 %;
   Σx² = 0.0224997 + 4 × 0.00075651 = 0.0255258, √ = 0.159768, × 1.96 =
   0.313145: [−5.31, 57.32] %.  Five quantified members but a lower bound
   ≤ 0: to confirm.

To confirm families are listed after the plan by name: "bear-off against
contact/..." before "holding game/...".  Outside: two counted errors without
a theme ("theme not determined", e = 0.080; no theme at all, e = 0.070) and
one member not quantified (the money error).  These are the figures of
``--metric mwc`` (the seed's rule, SPEC §9).

The default cost, ``pr`` (e − d in EMG, shown in mpt; money included):

1. "playing against a back game/checker/point not made": x = 50 − 5.9601 = 44.0399 mpt
   each; R = 440.399; half-width 1.96 × 44.0399 × √10 = 272.961:
   [167.438, 713.360].
2. "holding game/checker/too many blots": 6 × 100 mpt and the money member,
   90 mpt (quantified under pr: e and d known): 7 quantified, R = 690;
   Σx² = 60000 + 8100 = 68100, √ = 260.960, × 1.96 = 511.481:
   [178.519, 1201.481].  Its lower bound is now the larger: **first**.
3. "bear-off against contact/...": 4 × 200: R = 800, [16, 1584]: to confirm
   (4 quantified).
4. the missed doubles: 300 − 0.0018 and 4 × (60 − 4.9904) mpt: R =
   520.037, half-width 1.96 × √102103.1 = 626.29: [−106.25, 1146.33]: to
   confirm.

Outside: the same two errors without a theme; none not quantified.
"""

from __future__ import annotations

import json
import math
import shlex

import pytest

from conftest import DATA
from fixture_db import P_BOAC, P_HOLD, P_OPEN, P_PRIME
from gnubg_blunder.metrics import plan as plan_metrics
from gnubg_blunder.model import Analysis, Candidate, Decision, Game, Match

TAU = 0.025
HOLD_BLOTS = "holding game/checker/too many blots"
PRIME_POINT = "playing against a back game/checker/point not made"
BOAC_POINT = "bear-off against contact/checker/point not made"
HOLD_MISSED = "holding game/cube/missed double"


def _two_options(delta: float) -> float:
    """d of two options Δ apart (SPEC §6): Δ/(1 + e^(Δ/τ))."""
    return delta / (1 + math.exp(delta / TAU))


def _checker(seq, player, error, position, theme, delta=1.0, mpe=0.5):
    return Decision(kind="checker", player=player, game=0, seq=seq, position_id=position, cube_value=1,
                    cube_owner=-1, score_self=0, score_opp=0, crawford=False, dice=(3, 1), played_move="b",
                    best_move="a", error=error, mwc_per_emg=mpe, n_legal=5, played_index=1,
                    candidates=[Candidate(move="a", equity=0.3, position_id=position),
                                Candidate(move="b", equity=0.3 - delta, position_id=position)],
                    game_plan=None, theme=theme)


def _missed_double(seq, player, error, position):
    return Decision(kind="nodouble", player=player, game=0, seq=seq, position_id=position, cube_value=1,
                    cube_owner=-1, score_self=0, score_opp=0, crawford=False, error=error, mwc_per_emg=0.5,
                    nd=0.5, dt=0.5 + error, dp=1.0, played_move="no double", best_move="double/take",
                    theme="missed double")


def _labelled(decisions):
    from fixture_db import LABELS

    for d in decisions:
        d.phase, d.game_plan = LABELS[d.position_id]
    return decisions


def plan_matches() -> list:
    match_play = []
    for _ in range(10):
        match_play.append((0.050, P_PRIME, "point not made", 0.05))
    for _ in range(6):
        match_play.append((0.100, P_HOLD, "too many blots", 1.0))
    match_play.append((0.040, P_HOLD, "too many blots", 1.0))  # under the threshold: not a member
    for _ in range(4):
        match_play.append((0.200, P_BOAC, "point not made", 1.0))
    match_play.append((0.080, P_PRIME, "theme not determined", 1.0))  # outside: no theme
    match_play.append((0.070, P_OPEN, None, 1.0))  # outside: no theme
    decisions = [_checker(k, k % 2, e, pos, theme, delta) for k, (e, pos, theme, delta) in enumerate(match_play)]
    for k, e in enumerate((0.300, 0.060, 0.060, 0.060, 0.060)):
        decisions.append(_missed_double(len(decisions), k % 2, e, P_HOLD))
    money = [_checker(0, 0, 0.090, P_HOLD, "too many blots", mpe=None)]  # a member without ℓ
    out = []
    for players, length, date, decs in ((("charlot1", "charlot2"), 7, "2025-05-01", decisions),
                                        (("charlot1", "charlot2"), 0, "2025-05-02", money)):
        game = Game(number=0, score=(0, 0), winner=0, points=length or 1)
        game.decisions.extend(_labelled(decs))
        out.append(Match(players=players, length=length, source="sgf", games=[game],
                         analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date=date,
                         event="Plan cup"))
    return out


@pytest.fixture(scope="module")
def plan_db(tmp_path_factory):
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path_factory.mktemp("plan") / "plan.db"
    with SQLiteStore(path) as st:
        for m in plan_matches():
            st.add_match(m)
    return path


def _json(cli, *args, db):
    return json.loads(cli("--no-config", *args, "--format", "json", db=db).stdout)


# -- the names ------------------------------------------------------------------------------------

def test_family_names_one_spelling():
    assert plan_metrics.family_name("holding game", "checker", "too many blots") == HOLD_BLOTS
    assert plan_metrics.FAMILY_SEPARATOR == "/"
    # every game plan × (4 seed + 10 mechanical checker themes + 4 cube themes); "theme not determined" is no
    # family
    assert len(plan_metrics.FAMILY_NAMES) == len(plan_metrics.ALL_GAME_PLANS) * 18
    assert "holding game/checker/hit or not" in plan_metrics.FAMILY_NAMES
    assert not any("theme not determined" in n for n in plan_metrics.FAMILY_NAMES)
    assert plan_metrics.parse_family(" Holding Game / checker /too many  BLOTS") == (
        "holding game", "checker", "too many blots")
    with pytest.raises(ValueError, match="closest: holding game/checker/too many blots"):
        plan_metrics.parse_family("holding/checker/too many blot")
    with pytest.raises(ValueError):  # a cube theme is no checker family
        plan_metrics.parse_family("holding game/checker/missed double")


# -- the rule, by hand ------------------------------------------------------------------------------

def test_plan_by_hand(plan_db, cli):
    obj = _json(cli, "plan", "--metric", "mwc", db=plan_db)
    assert set(obj) == {"filter", "metric", "unit", "families", "outside"}
    assert (obj["metric"], obj["unit"]) == ("mwc", "% MWC")
    fams = {f["family"]: f for f in obj["families"]}
    # the order: the plan by lower bound (8.37 before 5.995), then to confirm by name
    assert [f["family"] for f in obj["families"]] == [PRIME_POINT, HOLD_BLOTS, BOAC_POINT, HOLD_MISSED]
    assert [f["status"] for f in obj["families"]] == ["plan", "plan", "to confirm", "to confirm"]
    assert set(fams[HOLD_BLOTS]) == {"family", "game_plan", "nature", "theme", "members", "quantified",
                                     "recoverable", "recoverable_ci", "status"}
    assert (fams[HOLD_BLOTS]["game_plan"], fams[HOLD_BLOTS]["nature"], fams[HOLD_BLOTS]["theme"]) == (
        "holding game", "checker", "too many blots")

    # 1. ten members at x = 0.025 − 0.05/(1 + e²)/2
    x = 0.025 - _two_options(0.05) * 0.5
    assert x == pytest.approx(0.0220199, abs=1e-7)
    f = fams[PRIME_POINT]
    assert (f["members"], f["quantified"]) == (10, 10)
    assert f["recoverable"] == pytest.approx(22.0199, abs=1e-4)
    assert f["recoverable_ci"] == pytest.approx([22.0199 - 13.6481, 22.0199 + 13.6481], abs=1e-4)
    # 2. six at 0.05 (30 %, half-width 1.96 × 0.05 × √6 = 24.005 %), one money member not quantified
    f = fams[HOLD_BLOTS]
    assert (f["members"], f["quantified"]) == (7, 6)
    assert f["recoverable"] == pytest.approx(30.0, abs=1e-9)
    assert f["recoverable_ci"] == pytest.approx([5.99500, 54.00500], abs=1e-5)
    # 3. four quantified members: to confirm although the lower bound 0.8 > 0
    f = fams[BOAC_POINT]
    assert (f["members"], f["quantified"], f["status"]) == (4, 4, "to confirm")
    assert f["recoverable"] == pytest.approx(40.0) and f["recoverable_ci"] == pytest.approx([0.8, 79.2])
    assert f["recoverable_ci"][0] > 0
    # 4. five quantified members, lower bound ≤ 0
    f = fams[HOLD_MISSED]
    xs = [0.15 - _two_options(0.3) * 0.5] + [0.03 - _two_options(0.06) * 0.5] * 4
    assert xs[1] == pytest.approx(0.0275048, abs=1e-7)
    assert (f["members"], f["quantified"], f["status"], f["nature"]) == (5, 5, "to confirm", "cube")
    assert f["recoverable"] == pytest.approx(26.00183, abs=1e-4)
    half = 1.96 * math.sqrt(sum(v * v for v in xs)) * 100
    assert half == pytest.approx(31.3145, abs=1e-3)
    assert f["recoverable_ci"] == pytest.approx([26.00183 - half, 26.00183 + half], abs=1e-4)
    assert f["recoverable_ci"][0] <= 0
    # outside: "theme not determined" and no theme; the money member
    assert obj["outside"] == {"no_theme": 2, "not_quantified": 1}


def test_plan_by_hand_in_the_default_cost_pr(plan_db, cli):
    """The module docstring's pr figures: e − d in mpt, the money member
    quantified, the two plan families in the other order."""
    obj = _json(cli, "plan", db=plan_db)
    assert (obj["metric"], obj["unit"]) == ("pr", "mpt")
    assert [f["family"] for f in obj["families"]] == [HOLD_BLOTS, PRIME_POINT, BOAC_POINT, HOLD_MISSED]
    assert [f["status"] for f in obj["families"]] == ["plan", "plan", "to confirm", "to confirm"]
    fams = {f["family"]: f for f in obj["families"]}
    x = 1000 * (0.050 - _two_options(0.05))
    assert x == pytest.approx(44.0399, abs=1e-4)
    f = fams[PRIME_POINT]
    assert (f["members"], f["quantified"]) == (10, 10)
    assert f["recoverable"] == pytest.approx(10 * x)
    half = 1.96 * x * math.sqrt(10)
    assert half == pytest.approx(272.961, abs=1e-3)
    assert f["recoverable_ci"] == pytest.approx([10 * x - half, 10 * x + half])
    f = fams[HOLD_BLOTS]
    assert (f["members"], f["quantified"]) == (7, 7)  # the money error is quantified under pr
    assert f["recoverable"] == pytest.approx(690.0)
    half = 1.96 * math.sqrt(6 * 100 ** 2 + 90 ** 2)
    assert half == pytest.approx(511.481, abs=1e-3)
    assert f["recoverable_ci"] == pytest.approx([690 - half, 690 + half])
    f = fams[BOAC_POINT]
    assert f["recoverable"] == pytest.approx(800.0) and f["recoverable_ci"] == pytest.approx([16.0, 1584.0])
    f = fams[HOLD_MISSED]
    xs = [1000 * (0.3 - _two_options(0.3))] + [1000 * (0.06 - _two_options(0.06))] * 4
    assert xs[1] == pytest.approx(55.0096, abs=1e-4)
    assert f["recoverable"] == pytest.approx(sum(xs)) and f["recoverable"] == pytest.approx(520.037, abs=1e-3)
    assert f["recoverable_ci"][0] == pytest.approx(sum(xs) - 1.96 * math.sqrt(sum(v * v for v in xs)))
    assert f["recoverable_ci"][0] == pytest.approx(-106.25, abs=1e-2)
    assert obj["outside"] == {"no_theme": 2, "not_quantified": 0}
    # the text names the cost and its unit
    text = cli("--no-config", "plan", db=plan_db).stdout
    assert "R mpt" in text and f"1  {HOLD_BLOTS}" in text and "+690.0" in text and "% MWC" not in text
    assert "R % MWC" in cli("--no-config", "plan", "--metric", "mwc", db=plan_db).stdout


def test_plan_by_hand_in_mwc7(plan_db, cli):
    """mwc7: ℓ₇ − d₇ = (ℓ − d) × √(7/N), N = 7 here: the mwc figures
    exactly (the money member outside, as under mwc)."""
    mwc = _json(cli, "plan", "--metric", "mwc", db=plan_db)
    obj = _json(cli, "plan", "--metric", "mwc7", db=plan_db)
    assert (obj["metric"], obj["unit"]) == ("mwc7", "% MWC-7")
    assert [f["family"] for f in obj["families"]] == [f["family"] for f in mwc["families"]]
    for a, b in zip(obj["families"], mwc["families"]):
        assert a["recoverable"] == pytest.approx(b["recoverable"])
        assert a["recoverable_ci"] == pytest.approx(b["recoverable_ci"])
    assert obj["outside"] == mwc["outside"]


def test_plan_follows_the_filter(plan_db, cli):
    # one side: charlot1 made the even-numbered decisions of the match
    obj = _json(cli, "plan", "--player", "charlot1", db=plan_db)
    fams = {f["family"]: f for f in obj["families"]}
    assert fams[PRIME_POINT]["members"] == 5 and fams[HOLD_BLOTS]["members"] == 3 + 1  # + the money error
    # cube only: the missed doubles
    obj = _json(cli, "plan", "--decision-type", "cube", db=plan_db)
    assert [f["family"] for f in obj["families"]] == [HOLD_MISSED]
    assert obj["outside"] == {"no_theme": 0, "not_quantified": 0}
    # money only, under mwc: members, none quantified, no R
    obj = _json(cli, "plan", "--length", "0", "--metric", "mwc", db=plan_db)
    assert obj["families"] == [{"family": HOLD_BLOTS, "game_plan": "holding game", "nature": "checker",
                                "theme": "too many blots", "members": 1, "quantified": 0, "recoverable": None,
                                "recoverable_ci": None, "status": "to confirm"}]
    assert obj["outside"]["not_quantified"] == 1
    # under pr the money error is priced: e − d = 90 mpt (d ≈ 0), one quantified member: to confirm
    obj = _json(cli, "plan", "--length", "0", db=plan_db)
    f = obj["families"][0]
    assert (f["members"], f["quantified"], f["status"]) == (1, 1, "to confirm")
    assert f["recoverable"] == pytest.approx(90.0) and obj["outside"]["not_quantified"] == 0


def test_positions_family_lists_the_members(plan_db, cli):
    obj = _json(cli, "positions", "--family", HOLD_BLOTS, "--errors", "--limit", "0", db=plan_db)
    assert obj["filter"]["family"] == HOLD_BLOTS
    assert obj["total"] == 7  # the members
    # the family filter keeps the family's decisions; --errors its members (the one under 50 mpt goes)
    assert _json(cli, "positions", "--family", HOLD_BLOTS, "--limit", "0", db=plan_db)["total"] == 8
    quantified = [r for r in obj["decisions"] if r["mwc_loss"] is not None and r["difficulty_mwc"] is not None]
    assert len(quantified) == 6
    assert sum(r["mwc_loss"] - r["difficulty_mwc"] for r in quantified) == pytest.approx(30.0)
    # any view takes it: stats of the family's decisions (8, one of them money)
    stats = _json(cli, "stats", "--family", HOLD_BLOTS, db=plan_db)
    assert stats["decisions"] == 8 and stats["filter"]["family"] == HOLD_BLOTS
    # the text says how to list the members
    text = cli("--no-config", "positions", "--family", HOLD_BLOTS, db=plan_db).stdout
    assert text.splitlines()[0] == f"Scope: family {HOLD_BLOTS}, both sides" and "add --errors" in text
    assert "add --errors" not in cli("--no-config", "positions", "--family", HOLD_BLOTS, "--errors", db=plan_db).stdout
    # written as the user likes: the filter keeps the one spelling
    obj = _json(cli, "positions", "--family", "HOLDING GAME/Checker/Too many blots", db=plan_db)
    assert obj["filter"]["family"] == HOLD_BLOTS


def test_unknown_family_is_one_line_with_the_closest(plan_db, cli):
    res = cli("--no-config", "plan", "--family", "holding/checker/too many blot", db=plan_db, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    assert "no family 'holding/checker/too many blot'" in res.stderr
    assert "holding game/checker/too many blots" in res.stderr


def test_text_prints_the_command_of_each_list(plan_db, cli):
    text = cli("--no-config", "plan", "--player", "charlot1", db=plan_db).stdout
    assert text.splitlines()[0] == "Study plan — scope: player charlot1; cost e − d in mpt"
    assert "In the plan, largest lower bound first: 1 family" in text
    assert "To confirm (unranked, by name): 3 families" in text
    assert "Outside the plan: 1 counted error without a theme" in text
    commands = [line.split(": ", 1)[1] for line in text.splitlines() if "gnubg-blunder positions" in line]
    assert len(commands) == 4
    for command in commands:
        words = shlex.split(command)
        assert words[:2] == ["gnubg-blunder", "positions"] and "--player" in words
        family = words[words.index("--family") + 1]
        listed = _json(cli, *words[1:], db=plan_db)
        member = {f["family"]: f for f in _json(cli, "plan", "--player", "charlot1", db=plan_db)["families"]}[family]
        assert listed["total"] == member["members"]


def test_csv_rows_are_the_families(plan_db, cli):
    import csv
    import io

    rows = list(csv.reader(io.StringIO(cli("--no-config", "plan", "--metric", "mwc", "--format", "csv",
                                           db=plan_db).stdout)))
    assert rows[0][:3] == ["status", "family", "game_plan"] and rows[0][-1] == "unit"
    assert [r[1] for r in rows[1:]] == [PRIME_POINT, HOLD_BLOTS, BOAC_POINT, HOLD_MISSED]
    assert {r[-1] for r in rows[1:]} == {"% MWC"}
    rows = list(csv.reader(io.StringIO(cli("--no-config", "plan", "--format", "csv", db=plan_db).stdout)))
    assert [r[1] for r in rows[1:]] == [HOLD_BLOTS, PRIME_POINT, BOAC_POINT, HOLD_MISSED]
    assert {r[-1] for r in rows[1:]} == {"mpt"}


def test_report_links_each_count_to_its_list(plan_db, cli, tmp_path):
    from lxml import html as lxml_html

    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, "--metric", "mwc", db=plan_db)
    page = lxml_html.fromstring(out.read_text(encoding="utf-8"))
    section = page.get_element_by_id("plan")
    assert "R % MWC" in section.xpath(".//table[1]//th")[5].text_content()
    links = section.xpath(".//table[1]//a")
    assert [a.text_content() for a in links] == ["10", "7", "4", "5"]
    for a in links:
        target = page.get_element_by_id(a.get("href")[1:])  # an anchor of the same file
        assert target.tag == "h3" and target.text_content().endswith(f": {a.text_content()} members")
    # the list of "holding game/checker/too many blots": 7 rows, the six at ℓ − d = +5.00 %, the money one
    # (not quantified) last
    rows = page.get_element_by_id(links[1].get("href")[1:]).getnext().xpath(".//tr[td]")
    assert [r.xpath("td")[12].text_content() for r in rows] == ["+5.00"] * 6 + ["—"]
    assert not page.xpath("//script")
    # the report's default cost, pr: e − d in mpt, the money member priced (90.0) and listed last
    cli("--no-config", "report", "--html", out, db=plan_db)
    page = lxml_html.fromstring(out.read_text(encoding="utf-8"))
    links = page.get_element_by_id("plan").xpath(".//table[1]//a")
    assert [a.text_content() for a in links] == ["7", "10", "4", "5"]
    table = page.get_element_by_id(links[0].get("href")[1:]).getnext()
    assert table.xpath(".//th")[12].text_content() == "e − d mpt"
    assert [r.xpath("td")[12].text_content() for r in table.xpath(".//tr[td]")] == ["+100.0"] * 6 + ["+90.0"]


def test_report_lists_are_bounded(plan_db, cli, monkeypatch, tmp_path):
    from gnubg_blunder.views import plan as plan_view

    monkeypatch.setattr(plan_view, "LIST_ROWS", 3)
    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, db=plan_db)
    text = out.read_text(encoding="utf-8")
    assert "The 3 with the largest e − d of 10 (7 more)" in text


def test_summary_card(plan_db, cli):
    obj = _json(cli, "summary", "--metric", "mwc", db=plan_db)
    card = obj["plan"]
    assert (card["metric"], card["unit"]) == ("mwc", "% MWC")
    assert [f["family"] for f in card["top"]] == [PRIME_POINT, HOLD_BLOTS]
    assert card["top"][1]["recoverable"] == pytest.approx(30.0)
    assert (card["in_plan"], card["to_confirm"]) == (2, 2)
    text = cli("--no-config", "summary", "--metric", "mwc", db=plan_db).stdout
    line = next(x for x in text.splitlines() if x.startswith("Study plan:"))
    assert f"1. {PRIME_POINT} R +22.02 [+8.37, +35.67] % MWC" in line and "2 to confirm" in line
    # the summary's default, pr: the card in mpt
    card = _json(cli, "summary", db=plan_db)["plan"]
    assert (card["metric"], card["unit"]) == ("pr", "mpt")
    assert [f["family"] for f in card["top"]] == [HOLD_BLOTS, PRIME_POINT]
    text = cli("--no-config", "summary", db=plan_db).stdout
    line = next(x for x in text.splitlines() if x.startswith("Study plan:"))
    assert f"1. {HOLD_BLOTS} R +690.0 [+178.5, +1201.5] mpt" in line


def test_plan_is_a_view_inside_gnubg_too(plan_db, cli):
    from gnubg_blunder.commands import get_registry

    view = get_registry().commands["plan"].view
    assert view is not None and view.table is not None and view.html is not None


# -- real files ----------------------------------------------------------------------------------------

def _member_cost(r: dict, metric: str):
    """A listed member's cost under ``metric`` (SPEC §9) from its figures
    as `positions` lists them; None where not quantified."""
    if metric == "pr":
        known = r["error_mpt"] is not None and r["difficulty_mpt"] is not None
        return r["error_mpt"] - r["difficulty_mpt"] if known else None
    if r["mwc_loss"] is None or r["difficulty_mwc"] is None:
        return None
    x = r["mwc_loss"] - r["difficulty_mwc"]
    return x * math.sqrt(7 / r["length"]) if metric == "mwc7" else x


def _check_every_family(cli, db, *flags, metric="mwc"):
    """Every family's R is Σ(cost) of the members `positions --family F
    --errors` lists (SPEC §9; under mwc: Σ(ℓ − d), the seed's rule)."""
    obj = _json(cli, "plan", *flags, "--metric", metric, db=db)
    assert obj["families"], f"no family on real files {flags}"
    for fam in obj["families"]:
        listed = _json(cli, "positions", *flags, "--family", fam["family"], "--errors", "--limit", "0", db=db)
        assert listed["total"] == fam["members"], fam["family"]
        costs = [c for c in (_member_cost(r, metric) for r in listed["decisions"]) if c is not None]
        assert len(costs) == fam["quantified"], fam["family"]
        if fam["recoverable"] is None:
            assert not costs
        else:
            # the list rounds e to 0.001 mpt (a cube error, a difference of equities, has more decimals)
            tolerance = 0.0005 * len(costs) + 1e-9 if metric == "pr" else 1e-9
            assert sum(costs) == pytest.approx(fam["recoverable"], abs=tolerance), fam["family"]
    return obj


def test_real_xg_and_gnubg_files(cli, tmp_path):
    db = tmp_path / "real.db"
    cli("import", *sorted((DATA / "xg").glob("*.xg")), DATA / "sgf", db=db)
    obj = _check_every_family(cli, db)
    _check_every_family(cli, db, "--player", "Kévin UNGER")
    _check_every_family(cli, db, "--decision-type", "cube")
    _check_every_family(cli, db, metric="pr")
    _check_every_family(cli, db, "--player", "Kévin UNGER", metric="mwc7")
    statuses = {f["status"] for f in obj["families"]}
    assert statuses <= {"plan", "to confirm"}
    # the plan first, by lower bound; then to confirm, by name
    plan = [f for f in obj["families"] if f["status"] == "plan"]
    confirm = [f for f in obj["families"] if f["status"] == "to confirm"]
    assert obj["families"] == plan + confirm
    assert [f["recoverable_ci"][0] for f in plan] == sorted((f["recoverable_ci"][0] for f in plan), reverse=True)
    assert [f["family"] for f in confirm] == sorted(f["family"] for f in confirm)


def test_real_gnubg_selfplay(cli, tmp_path, selfplay):
    db = tmp_path / "selfplay.db"
    cli("import", selfplay(21, 7), db=db)
    _check_every_family(cli, db)
    _check_every_family(cli, db, metric="pr")


# -- tests/fixture_db.py in each cost ------------------------------------------------------------------

def _five_candidates_d() -> float:
    """d of a fixture checker play (5 candidates 0.075 apart, SPEC §6):
    Σ pᵢΔᵢ, pᵢ ∝ e^(−Δᵢ/τ) — 0.0039296 EMG."""
    deltas = [0.075 * i for i in range(5)]
    w = [math.exp(-x / TAU) for x in deltas]
    return sum(p * x for p, x in zip(w, deltas)) / sum(w)


def test_fixture_db_in_pr_mwc_and_mwc7(db, cli):
    """tests/fixture_db.py, both sides (every family "to confirm": fewer
    than 5 members).  The blots of the holding game: charlot1's 80 mpt
    (match 1, 7 points) and 120 mpt (match 2, 5 points), d = 3.9296 mpt each:

    - pr: (80 − 3.9296) + (120 − 3.9296) = 192.1408 mpt;
    - mwc (ℓ = e/2): 3.80352 + 5.80352 = 9.60704 % MWC;
    - mwc7: 3.80352 × √(7/7) + 5.80352 × √(7/5) = 3.80352 + 6.86682 =
      10.67034 % MWC-7.

    The holding game's missed double (match 2, e = 100 mpt, d = 0.1/(1 +
    e⁴) = 1.7986 mpt): pr 98.2014 mpt; mwc 4.91007 %; mwc7 × 1.183216 =
    5.80967 %.  The money session's blot (charlot1, 90 mpt, the priming
    game): priced under pr only (86.0704 mpt), a member without cost under
    mwc and mwc7."""
    from fixture_db import LABELS, P_HOLD as F_HOLD, P_PRIME as F_PRIME

    d = _five_candidates_d()
    assert d == pytest.approx(0.0039296, abs=1e-7)
    hold, prime = LABELS[F_HOLD][1], LABELS[F_PRIME][1]
    blots, missed = f"{hold}/checker/too many blots", f"{hold}/cube/missed double"
    money_blots = f"{prime}/checker/too many blots"
    d_missed = _two_options(0.1)
    root = math.sqrt(7 / 5)
    want = {
        "pr": {blots: 1000 * (0.08 - d + 0.12 - d), missed: 1000 * (0.1 - d_missed), money_blots: 1000 * (0.09 - d)},
        "mwc": {blots: 50 * (0.08 - d) + 50 * (0.12 - d), missed: 50 * (0.1 - d_missed), money_blots: None},
        "mwc7": {blots: 50 * (0.08 - d) + 50 * (0.12 - d) * root, missed: 50 * (0.1 - d_missed) * root,
                 money_blots: None},
    }
    assert want["pr"][blots] == pytest.approx(192.1408, abs=1e-4)
    assert want["mwc"][blots] == pytest.approx(9.60704, abs=1e-5)
    assert want["mwc7"][blots] == pytest.approx(10.67034, abs=1e-5)
    assert want["mwc7"][missed] == pytest.approx(5.80967, abs=1e-5)
    for metric, unit in (("pr", "mpt"), ("mwc", "% MWC"), ("mwc7", "% MWC-7")):
        obj = _json(cli, "plan", "--metric", metric, db=db)
        assert obj["unit"] == unit
        fams = {f["family"]: f for f in obj["families"]}
        for name, r in want[metric].items():
            f = fams[name]
            assert f["status"] == "to confirm", (metric, name)
            if r is None:
                assert (f["quantified"], f["recoverable"]) == (0, None), (metric, name)
            else:
                assert f["recoverable"] == pytest.approx(r, abs=1e-6), (metric, name)
    # the money member is outside R under mwc and mwc7 only
    assert _json(cli, "plan", db=db)["outside"]["not_quantified"] == 0
    assert _json(cli, "plan", "--metric", "mwc7", db=db)["outside"]["not_quantified"] == 1
