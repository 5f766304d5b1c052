"""The filter is declared once (filters.py, issue 30): each criterion's flag,
YAML key, JSON key, words and drill-down flags come from its one field of
``Filter``; a criterion added to a copy of the declaration appears in all
of them, and filters.py stays below the metrics, views and store."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from gnubg_blunder import filters, user_config
from gnubg_blunder.commands import add_filter_arguments
from gnubg_blunder.filters import (Filter, command_flags, criterion, filter_keys, filter_words, flags_given,
                                   add_filter_options)
from gnubg_blunder.options import Option
from gnubg_blunder.formatting import scope_text
from gnubg_blunder.views.plan import filter_flags as plan_filter_flags

PACKAGE = Path(filters.__file__).parent

# each criterion as a user writes it: its flag, and the value argparse gives the filter
FLAGS = {"player": "--player", "date_from": "--from", "date_to": "--to", "lengths": "--length",
         "tournaments": "--tournament", "decision_type": "--decision-type", "engine": "--engine",
         "min_depth": "--min-depth", "family": "--family", "collection": "--collection"}


@dataclasses.dataclass
class WithOpponent(Filter):
    """A copy of the declaration with one criterion more."""

    opponent: Optional[str] = criterion(Option(("--opponent",), metavar="NAME", help="against NAME only"),
                                        words="opponent {}")


def _parser(cls=Filter, **kw):
    p = argparse.ArgumentParser(add_help=False)
    add_filter_options(p, cls=cls, **kw)
    return p


def test_the_flags_yaml_keys_and_json_keys_are_the_fields():
    names = [f.name for f in dataclasses.fields(Filter) if f.name != "saved_from"]
    assert list(filter_keys()) == names == list(FLAGS)
    assert user_config.FILTER_KEYS == tuple(names)
    assert list(Filter().to_json()) == names
    p = argparse.ArgumentParser(add_help=False)
    add_filter_arguments(p)
    by_dest = {a.dest: a.option_strings for a in p._actions}
    assert {k: by_dest[k] for k in names} == {k: [flag] for k, flag in FLAGS.items()}
    args = p.parse_args(["--from", "2024-01-01", "--length", "7", "--length", "0", "--decision-type", "cube"])
    assert flags_given(args) == {**dict.fromkeys(names), "date_from": "2024-01-01", "lengths": (7, 0),
                                 "decision_type": "cube"}
    assert user_config.filter_flags(args) == flags_given(args)


def test_a_view_without_decision_type_leaves_out_its_flag_only():
    p = argparse.ArgumentParser(add_help=False)
    add_filter_arguments(p, decision_type=False)
    dests = [a.dest for a in p._actions]
    assert "decision_type" not in dests
    assert [d for d in dests if d in FLAGS] == [k for k in FLAGS if k != "decision_type"]


def test_a_criterion_added_to_the_declaration_appears_everywhere():
    # the flag
    args = _parser(WithOpponent).parse_args(["--opponent", "Bot", "--player", "Me"])
    assert flags_given(args, WithOpponent)["opponent"] == "Bot"
    assert "--opponent" in _parser(WithOpponent).format_help()
    # the YAML key and the JSON key
    assert filter_keys(WithOpponent)[-1] == "opponent"
    flt = WithOpponent(player="Me", opponent="Bot")
    assert flt.to_json()["opponent"] == "Bot"
    # the words and the flags of another command
    assert filter_words(flt.to_json(), cls=WithOpponent) == ["player Me", "opponent Bot"]
    assert command_flags(flt.to_json(), cls=WithOpponent) == ["--player", "Me", "--opponent", "Bot"]
    # the filter itself knows nothing of it
    assert "opponent" not in filter_keys() and "--opponent" not in _parser().format_help()


def test_the_words_and_the_flags_of_every_criterion():
    flt = Filter(player="Ann", date_to="2024-12-31", lengths=[7, 0], tournaments=["Nordic", "Open"],
                 decision_type="cube", engine="gnubg", min_depth=2.0, family="HOLDING GAME/checker/too many blots",
                 collection=" drills ")
    f = flt.to_json()
    assert f["lengths"] == [7, 0] and f["family"] == "holding game/checker/too many blots" and f["collection"] == "drills"
    assert scope_text(f) == ("player Ann, tournaments Nordic, Open, dates … to 2024-12-31, lengths 7, money, "
                             "cube decisions, engine gnubg, depth ≥ 2, family holding game/checker/too many blots, "
                             "collection drills")
    assert scope_text(f, ("player", "decision_type")).startswith("tournaments Nordic, Open, dates")
    assert plan_filter_flags(f) == ["--player", "Ann", "--to", "2024-12-31", "--length", "7", "--length", "0",
                                    "--tournament", "Nordic", "--tournament", "Open", "--collection", "drills",
                                    "--decision-type", "cube", "--engine", "gnubg", "--min-depth", "2"]
    assert scope_text(Filter(min_depth=0.0).to_json()) == "depth ≥ 0, both sides"
    assert scope_text(Filter(date_from="2024-01-01").to_json()) == "dates 2024-01-01 to …, both sides"
    assert scope_text(Filter().to_json()) == "every stored match, both sides"
    assert plan_filter_flags(Filter(decision_type="all").to_json()) == []


def test_the_checks_keep_their_order():
    """Two refused values: the one checked first (as it always was) is named."""
    with pytest.raises(ValueError, match="is later than date to"):
        Filter(player=" ", date_from="2025-01-01", date_to="2024-01-01")
    with pytest.raises(ValueError, match="decision type 'x'"):
        Filter(player="A", decision_type="x", lengths=["a"])
    with pytest.raises(ValueError, match="date from 'x' is not a date"):
        Filter(date_from="x", date_to="y")
    with pytest.raises(ValueError, match="no family 'nonsense'"):
        Filter(family="nonsense")
    with pytest.raises(ValueError, match="collection: the name is empty"):
        Filter(collection="  ")


def _imports(path: Path) -> set:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("module", ["filters.py", "options.py", "families.py"])
def test_the_declaration_sits_below_metrics_views_and_store(module):
    got = _imports(PACKAGE / module)
    assert not [m for m in got if m.lstrip(".").split(".")[0] in ("metrics", "views", "store", "commands", "numpy")]


def test_a_family_is_checked_without_a_metric_rule_or_numpy():
    code = ("import sys; from gnubg_blunder.filters import Filter; Filter(family='holding game/checker/too many blots');"
            "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('gnubg_blunder.metrics', "
            "'gnubg_blunder.store', 'gnubg_blunder.views'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_store_has_one_rule_for_every_criterion():
    from gnubg_blunder.store.filter_sql import AFTER_QUERY, SQL_CONDITIONS

    names = [f.name for f in dataclasses.fields(Filter) if f.name != "saved_from"]
    assert not set(SQL_CONDITIONS) & set(AFTER_QUERY)  # one rule a criterion
    assert sorted([*SQL_CONDITIONS, *AFTER_QUERY]) == sorted(names)


def test_a_filter_compiles_to_one_condition_per_criterion_set():
    from gnubg_blunder.store.filter_sql import compile_filter

    flt = Filter(player="charlot1", date_from="2024-01-01", lengths=(7, 0), tournaments=("Aachen Open",),
                 engine="xg")
    got = compile_filter(flt, "match", [3, 5])
    assert got.where == ("kind = ?", "id IN (?,?)", "date >= ?", "length IN (?,?)", "lower(event) IN (?)")
    assert got.args == ("match", 3, 5, "2024-01-01", 7, 0, "aachen open")
    assert (got.player, got.any_analysis, got.family, got.collection) == ("charlot1", False, None, None)
    bare = compile_filter(Filter(), None)
    assert (bare.where, bare.args, bare.any_analysis) == ((), (), True)
    assert compile_filter(Filter(), "match", []).where == ("kind = ?", "id IN (NULL)")  # no id asked: no match
