"""The store derives its columns by the rules it is given (store/derived.py),
never by a metric it imports: what it writes and selects follows the rules
object handed to it, and ``gnubg_blunder.database`` hands it the metrics'
own (docs/architecture.md "Layers")."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import DATA
from gnubg_blunder import store
from gnubg_blunder.database import METRIC_RULES, open_store
from gnubg_blunder.filters import Filter
from gnubg_blunder.importers.xg import read_match
from gnubg_blunder.store.derived import DerivedRules

XG = DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg"  # its wrong plays' boards are known (blots)
RULE_NAMES = ("difficulties", "difficulty_columns", "counted_by_rule", "blots_on_roll", "restrict_to_family")


class Recording:
    """The metrics' rules, each call counted; ``difficulty`` (when given)
    replaces SPEC §6's d of every decision that has one."""

    def __init__(self, difficulty=None):
        self.calls = dict.fromkeys(RULE_NAMES, 0)
        self.difficulty = difficulty

    def __getattr__(self, name):
        rule = getattr(METRIC_RULES, name)

        def counted_call(*args, **kwargs):
            self.calls[name] += 1
            out = rule(*args, **kwargs)
            if name == "difficulties" and self.difficulty is not None:
                out = [(None if d is None else self.difficulty, t) for d, t in out]
            return out
        return counted_call


def test_the_metrics_rules_are_what_a_store_asks_for():
    assert isinstance(METRIC_RULES, DerivedRules)
    assert isinstance(Recording(), DerivedRules)


def test_a_store_opened_without_rules_is_refused(tmp_path):
    with pytest.raises(TypeError, match="rules"):
        store.open_store(tmp_path / "a.db")
    with pytest.raises(TypeError, match="rules"):
        store.SQLiteStore(tmp_path / "b.db")


def test_the_store_derives_by_the_rules_it_is_given(tmp_path):
    match = read_match(XG)
    with open_store(tmp_path / "metrics.db") as own:
        own.add_match(match)
        want = own.conn.execute("SELECT id, difficulty, difficulty_truncated FROM decisions ORDER BY id").fetchall()
        sel = own.select(Filter())
        family = sel.matches and own.select(Filter(family="holding game/checker/too many blots"))
    assert sum(d is not None for _, d, _ in want) > 10  # the match has counted decisions with d

    rules = Recording()
    with store.open_store(tmp_path / "recorded.db", rules=rules) as given:
        given.add_match(read_match(XG))
        assert given.conn.execute("SELECT id, difficulty, difficulty_truncated FROM decisions "
                                  "ORDER BY id").fetchall() == want
        got = given.select(Filter())
        assert rules.calls["difficulties"] == 1  # at insert, once for the match
        assert rules.calls["counted_by_rule"] >= 1 and rules.calls["blots_on_roll"] >= 1  # the array cache
        assert np.array_equal(got.decisions.counted, sel.decisions.counted)
        assert np.array_equal(got.decisions.blots_played, sel.decisions.blots_played)
        assert rules.calls["restrict_to_family"] == 0
        only = given.select(Filter(family="holding game/checker/too many blots"))
        assert rules.calls["restrict_to_family"] == 1
        assert len(only.decisions) == len(family.decisions) < len(got.decisions)

    # a rule of its own is followed, not the metrics': every d the rule gives is 0.25
    with store.open_store(tmp_path / "other.db", rules=Recording(difficulty=0.25)) as other:
        other.add_match(read_match(XG))
        ds = [d for (d,) in other.conn.execute("SELECT difficulty FROM decisions")]
    assert {d for d in ds if d is not None} == {0.25}
    assert [d is None for d in ds] == [d is None for _, d, _ in want]
