"""``matches --format csv`` (views/matches.py, docs/commands.md): one row per
match side, every key of the side's JSON it names, on the hand-computed
fixture database (tests/fixture_db.py) and a match of the tests' own.
"""

from __future__ import annotations

import csv
import io
import json

from fixture_db import P_HOLD, build_matches

# A 1-point match whose one decision, charlot1's, is a 0.400 EMG error:
# ℓ = 0.400 × 0.5 = 0.200, L₇ = √7 × 0.200 / √1 = 0.529 > 0.49, so q =
# 0.5 − L₇ is clamped at 0.01 and the Elo, (2000/√7) × log₁₀(0.01/0.99) =
# −1508.56, is only a bound (SPEC §5): "≤ −1509" in text.
ONE_POINT_BLUNDER = dict(id=6, date="2025-05-01", event=None, length=1, players=("charlot1", "charlot2"),
                         games=[(1, 1)], decisions=[(0, 0, "checker", 0.400, P_HOLD, "too many blots", None)],
                         luck=(None, None))


def _rows(cli, db) -> list:
    return list(csv.DictReader(io.StringIO(cli("--no-config", "matches", "--format", "csv", db=db).stdout)))


def test_the_csv_says_when_an_elo_is_only_a_bound(db_copy, cli):
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(db_copy) as st:
        (match,) = build_matches(matches=[ONE_POINT_BLUNDER])
        st.add_match(match)
    side = next(r for r in _rows(cli, db_copy) if r["date"] == "2025-05-01" and r["player"] == "charlot1")
    assert round(float(side["l7"]), 4) == 52.915 and round(float(side["elo"]), 2) == -1508.56
    assert side["elo_bound"] == "True"
    (line,) = [ln for ln in cli("--no-config", "matches", db=db_copy).stdout.splitlines() if "2025-05-01" in ln]
    assert "≤ -1509" in line  # the text's bound
    # the JSON's key, the same value
    (obj,) = [m for m in json.loads(cli("--no-config", "matches", "--format", "json", db=db_copy).stdout)["matches"]
              if m["date"] == "2025-05-01"]
    assert [s["elo_bound"] for s in obj["sides"]] == [True, False]


def test_an_elo_that_is_a_figure_is_no_bound(db, cli):
    """Match 1 of the fixture, charlot1: ℓ = 0.100 × 0.5 = 0.05, L₇ = 5 %,
    Elo (2000/√7) × log₁₀(0.45/0.55) = −65.88, a figure; the money match
    (4) has no Elo (an empty cell) and no bound."""
    rows = _rows(cli, db)
    assert rows[0].keys() >= {"elo", "elo_bound"}
    first = next(r for r in rows if r["match_id"] == "1" and r["player"] == "charlot1")
    assert round(float(first["elo"]), 2) == -65.88 and first["elo_bound"] == "False"
    money = next(r for r in rows if r["match_id"] == "4" and r["player"] == "charlot1")
    assert money["elo"] == "" and money["elo_bound"] == "False"
