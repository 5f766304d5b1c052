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
one member not quantified (the money error).
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
    from gnubg_blunder.store import SQLiteStore

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
    obj = _json(cli, "plan", db=plan_db)
    assert set(obj) == {"filter", "families", "outside"}
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


def test_plan_follows_the_filter(plan_db, cli):
    # one side: charlot1 made the even-numbered decisions of the match
    obj = _json(cli, "plan", "--player", "charlot1", db=plan_db)
    fams = {f["family"]: f for f in obj["families"]}
    assert fams[PRIME_POINT]["members"] == 5 and fams[HOLD_BLOTS]["members"] == 3 + 1  # + the money error
    # cube only: the missed doubles
    obj = _json(cli, "plan", "--decision-type", "cube", db=plan_db)
    assert [f["family"] for f in obj["families"]] == [HOLD_MISSED]
    assert obj["outside"] == {"no_theme": 0, "not_quantified": 0}
    # money only: members, none quantified, no R
    obj = _json(cli, "plan", "--length", "0", db=plan_db)
    assert obj["families"] == [{"family": HOLD_BLOTS, "game_plan": "holding game", "nature": "checker",
                                "theme": "too many blots", "members": 1, "quantified": 0, "recoverable": None,
                                "recoverable_ci": None, "status": "to confirm"}]
    assert obj["outside"]["not_quantified"] == 1


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
    assert text.splitlines()[0] == "Study plan — scope: player charlot1"
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

    rows = list(csv.reader(io.StringIO(cli("--no-config", "plan", "--format", "csv", db=plan_db).stdout)))
    assert rows[0][:3] == ["status", "family", "game_plan"]
    assert [r[1] for r in rows[1:]] == [PRIME_POINT, HOLD_BLOTS, BOAC_POINT, HOLD_MISSED]


def test_report_links_each_count_to_its_list(plan_db, cli, tmp_path):
    from lxml import html as lxml_html

    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, db=plan_db)
    page = lxml_html.fromstring(out.read_text(encoding="utf-8"))
    section = page.get_element_by_id("plan")
    links = section.xpath(".//table[1]//a")
    assert [a.text_content() for a in links] == ["10", "7", "4", "5"]
    for a in links:
        target = page.get_element_by_id(a.get("href")[1:])  # an anchor of the same file
        assert target.tag == "h3" and target.text_content().endswith(f": {a.text_content()} members")
    # the list of "holding game/checker/too many blots": 7 rows, the six at ℓ − d = +5.00 %, the money one
    # (not quantified) last
    rows = page.get_element_by_id(links[1].get("href")[1:]).getnext().xpath(".//tr[td]")
    assert [r.xpath("td")[11].text_content() for r in rows] == ["+5.00"] * 6 + ["—"]
    assert not page.xpath("//script")


def test_report_lists_are_bounded(plan_db, cli, monkeypatch, tmp_path):
    from gnubg_blunder.views import plan as plan_view

    monkeypatch.setattr(plan_view, "LIST_ROWS", 3)
    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, db=plan_db)
    text = out.read_text(encoding="utf-8")
    assert "The 3 with the largest ℓ − d of 10 (7 more)" in text


def test_summary_card(plan_db, cli):
    obj = _json(cli, "summary", db=plan_db)
    card = obj["plan"]
    assert [f["family"] for f in card["top"]] == [PRIME_POINT, HOLD_BLOTS]
    assert card["top"][1]["recoverable"] == pytest.approx(30.0)
    assert (card["in_plan"], card["to_confirm"]) == (2, 2)
    text = cli("--no-config", "summary", db=plan_db).stdout
    line = next(x for x in text.splitlines() if x.startswith("Study plan:"))
    assert f"1. {PRIME_POINT} R +22.02 [+8.37, +35.67] % MWC" in line and "2 to confirm" in line


def test_plan_is_a_view_inside_gnubg_too(plan_db, cli):
    from gnubg_blunder.commands import get_registry

    view = get_registry().commands["plan"].view
    assert view is not None and view.table is not None and view.html is not None


# -- real files ----------------------------------------------------------------------------------------

def _check_every_family(cli, db, *flags):
    obj = _json(cli, "plan", *flags, db=db)
    assert obj["families"], f"no family on real files {flags}"
    for fam in obj["families"]:
        listed = _json(cli, "positions", *flags, "--family", fam["family"], "--errors", "--limit", "0", db=db)
        assert listed["total"] == fam["members"], fam["family"]
        quantified = [r for r in listed["decisions"]
                      if r["mwc_loss"] is not None and r["difficulty_mwc"] is not None]
        assert len(quantified) == fam["quantified"], fam["family"]
        if fam["recoverable"] is None:
            assert not quantified
        else:
            total = sum(r["mwc_loss"] - r["difficulty_mwc"] for r in quantified)
            assert total == pytest.approx(fam["recoverable"], abs=1e-9), fam["family"]
    return obj


def test_real_xg_and_gnubg_files(cli, tmp_path):
    db = tmp_path / "real.db"
    cli("import", *sorted((DATA / "xg").glob("*.xg")), DATA / "sgf", db=db)
    obj = _check_every_family(cli, db)
    _check_every_family(cli, db, "--player", "Kévin UNGER")
    _check_every_family(cli, db, "--decision-type", "cube")
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
