"""Column filters and sorting (views/table_filters.py) on hand-made rows."""

from __future__ import annotations

import pytest

from gnubg_blunder.views.table_filters import (
    Column,
    FilterError,
    apply_filters,
    find_column,
    parse_filter,
    parse_sort,
    parse_where,
    sort_rows,
)

COLUMNS = (
    Column("player", "player", "text", aliases=("name",)),
    Column("decisions", "decisions", digits=0),
    Column("pr", "PR", digits=2),
    Column("checker_pr", "checker PR", digits=2),
    Column("luck_per_roll", "luck/roll", digits=1, aliases=("luck",)),
)

ROWS = [
    {"player": "charlot1", "decisions": 500, "pr": 2.5, "checker_pr": 2.0, "luck_per_roll": -3.0},
    {"player": "charlot2", "decisions": 499, "pr": 2.4999, "checker_pr": None, "luck_per_roll": 1.25},
    {"player": "Squire/Jørgensen", "decisions": 501, "pr": 7.0, "checker_pr": 6.99, "luck_per_roll": None},
    {"player": "<script>alert(1)</script>", "decisions": 3, "pr": 3.0, "checker_pr": 5.0, "luck_per_roll": 0.0},
    {"player": "nobody", "decisions": 0, "pr": None, "checker_pr": None, "luck_per_roll": None},
]


def names(rows):
    return [r["player"] for r in rows]


def keep(where):
    return names(apply_filters(ROWS, [parse_where(where, COLUMNS)]))


# -- every filter form ---------------------------------------------------------

def test_greater_or_equal():
    # 500 and 501 pass; 499, 3, 0 do not
    assert keep("decisions=>=500") == ["charlot1", "Squire/Jørgensen"]


def test_greater():
    assert keep("decisions=>500") == ["Squire/Jørgensen"]


def test_less():
    # PR 2.4999 is shown 2.50: compared as shown, it is not < 2.5; None passes no bound
    assert keep("pr=<2.5") == []
    assert keep("pr=<3") == ["charlot1", "charlot2"]


def test_less_or_equal():
    assert keep("pr=<=2.5") == ["charlot1", "charlot2"]
    assert keep("decisions=<=3") == ["<script>alert(1)</script>", "nobody"]


def test_inclusive_range():
    # 3-7 keeps 3.0 and 7.0 (both ends), 2.5 not; None never
    assert keep("pr=3-7") == ["Squire/Jørgensen", "<script>alert(1)</script>"]
    assert keep("decisions=499-501") == ["charlot1", "charlot2", "Squire/Jørgensen"]


def test_negative_range_and_bound():
    # luck -3.0 is in -5--1; 0.0 and 1.25 are not
    assert keep("luck=-5--1") == ["charlot1"]
    assert keep("luck=<0") == ["charlot1"]
    assert keep("luck=-3-2") == ["charlot1", "charlot2", "<script>alert(1)</script>"]


def test_exact_at_the_precision_written():
    assert keep("decisions=500") == ["charlot1"]
    # "7" keeps what rounds to 7: 7.0 and 6.99
    assert keep("checker_pr=7") == ["Squire/Jørgensen"]
    # "6.99" at two decimals: only 6.99
    assert keep("checker_pr=6.99") == ["Squire/Jørgensen"]
    assert keep("checker_pr=7.0") == ["Squire/Jørgensen"]  # 6.99 rounds to 7.0 at one decimal
    assert keep("checker_pr=7.00") == []
    # 0 is a value, not "never measured"
    assert keep("luck=0") == ["<script>alert(1)</script>"]
    assert keep("decisions=0") == ["nobody"]


def test_name_fragment_without_case():
    assert keep("player=CHARLOT") == ["charlot1", "charlot2"]
    assert keep("name=jør") == ["Squire/Jørgensen"]
    assert keep("player=<script>") == ["<script>alert(1)</script>"]
    # on a text column, ">=5" is a fragment like any other
    assert keep("player=>=5") == []


def test_operator_without_equals_sign_and_spaces():
    assert keep("decisions>=500") == keep("decisions=>=500")
    assert keep("  decisions  >=  500 ") == ["charlot1", "Squire/Jørgensen"]
    assert keep("pr<=2.5") == ["charlot1", "charlot2"]
    assert keep("pr≤2.5") == ["charlot1", "charlot2"]


def test_never_measured_passes_no_bound():
    for where in ("checker_pr=>=0", "checker_pr=<100", "checker_pr=0-100", "checker_pr=<=1000"):
        kept = keep(where)
        assert "charlot2" not in kept and "nobody" not in kept, where


def test_several_filters_all_pass():
    fs = [parse_where("decisions=>=3", COLUMNS), parse_where("pr=<5", COLUMNS)]
    assert names(apply_filters(ROWS, fs)) == ["charlot1", "charlot2", "<script>alert(1)</script>"]


def test_column_names_are_forgiving():
    assert find_column("Checker-PR", COLUMNS).key == "checker_pr"
    assert find_column("checker pr", COLUMNS).key == "checker_pr"
    assert find_column("LUCK", COLUMNS).key == "luck_per_roll"
    assert find_column("luck/roll", COLUMNS).key == "luck_per_roll"


# -- unreadable filters are errors, never ignored -----------------------------

@pytest.mark.parametrize("where", [
    "pr=abc", "pr=>=", "pr=>=x", "pr=5..2", "pr=1-2-3", "pr=", "pr=  ", "pr=>>5", "pr=5%",
    "decisions=1e3", "pr=7-3", "nocolumn=5", "=5", "pr", "",
])
def test_unreadable_filter_is_an_error(where):
    with pytest.raises(FilterError) as exc:
        parse_where(where, COLUMNS)
    assert "\n" not in str(exc.value)


def test_reversed_range_says_how_to_write_it():
    with pytest.raises(FilterError, match="low bound first"):
        parse_filter("7-3", COLUMNS[2])


# -- sorting -------------------------------------------------------------------

def test_sort_ascending_never_measured_last():
    col, desc = parse_sort("checker_pr", COLUMNS)
    assert not desc
    # 2.0, 5.0, 6.99, then the two "—" by name (charlot2, nobody)
    assert names(sort_rows(ROWS, col, desc, tiebreak=COLUMNS[0])) == [
        "charlot1", "<script>alert(1)</script>", "Squire/Jørgensen", "charlot2", "nobody"]


def test_sort_descending_never_measured_last():
    col, desc = parse_sort("checker_pr:desc", COLUMNS)
    assert desc
    assert names(sort_rows(ROWS, col, desc, tiebreak=COLUMNS[0])) == [
        "Squire/Jørgensen", "<script>alert(1)</script>", "charlot1", "charlot2", "nobody"]


def test_sort_text_without_case_and_ties_by_name():
    col, desc = parse_sort("player", COLUMNS)
    assert names(sort_rows(ROWS, col, desc)) == [
        "<script>alert(1)</script>", "charlot1", "charlot2", "nobody", "Squire/Jørgensen"]
    rows = [{"player": "b", "pr": 1.0}, {"player": "a", "pr": 1.0}, {"player": "c", "pr": None}]
    for d in (False, True):
        assert names(sort_rows(rows, COLUMNS[2], d, tiebreak=COLUMNS[0])) == ["a", "b", "c"]


def test_zero_is_a_value_not_missing():
    col, _ = parse_sort("luck", COLUMNS)
    # -3.0 < 0.0 < 1.25; None (Squire, nobody) last
    assert names(sort_rows(ROWS, col, False, tiebreak=COLUMNS[0])) == [
        "charlot1", "<script>alert(1)</script>", "charlot2", "nobody", "Squire/Jørgensen"]


@pytest.mark.parametrize("spec", ["pr:up", "nocolumn", "pr:desc:x", ":desc"])
def test_bad_sort_is_an_error(spec):
    with pytest.raises(FilterError):
        parse_sort(spec, COLUMNS)
