"""A built-in metric through ``register_metrics``: the luck (SPEC §4) is
registered by the built-in plugin ``luck_metric`` as a third-party metric
is, and ``stats`` shows the metrics it names itself (``OWN_METRICS``) in
their own line and keys; a plugin registering one of those names replaces
that figure there (hookspecs.register_metrics)."""

from __future__ import annotations

import argparse
import json

import pytest

from gnubg_blunder.database import open_store
from gnubg_blunder.db_settings import thresholds_for
from gnubg_blunder.filters import Filter
from gnubg_blunder.hookspecs import hookimpl
from gnubg_blunder.plugins import metrics, plugin_list
from gnubg_blunder.views import stats
from gnubg_blunder.commands import Scope


def stats_of(db, **filter_fields) -> dict:
    store = open_store(str(db))
    try:
        flt = Filter(**filter_fields)
        return stats.compute(Scope.over(argparse.Namespace(), store, flt, store.select(flt), thresholds_for(store)))
    finally:
        store.close()


def test_the_luck_is_a_builtin_plugins_metric():
    from gnubg_blunder import luck_metric

    assert metrics()["luck"] is luck_metric.luck
    row = {r["name"]: r for r in plugin_list()}["gnubg_blunder.luck_metric"]
    assert row["builtin"] is True and row["hooks"] == ["register_metrics"]


def test_stats_luck_is_the_metrics_hand_computed(db):
    """charlot1's sides of the fixture: luck +0.30, −0.20, +0.10 EMG over two
    rolls each (match 5 has none): +0.200 EMG over 6 rolls, +33.3 mpt a roll;
    in stats' own line and keys, not as a plugin's."""
    obj = stats_of(db, player="charlot1")
    assert obj["luck_emg"] == pytest.approx(0.20, abs=1e-12)
    assert obj["luck_rolls"] == 6
    assert obj["luck_per_roll_mpt"] == pytest.approx(1000 * 0.20 / 6, abs=1e-9)
    assert "plugin_metrics" not in obj
    text = stats.stats_text(obj)
    assert "Luck: +0.200 EMG over 6 rolls (+33.3 mpt a roll)" in text.splitlines()
    assert "(plugin)" not in text
    keys = list(obj)
    assert keys.index("blunders") + 1 == keys.index("luck_emg")  # where the figures put it
    assert set(stats.OWN_METRICS["luck"]) <= set(keys)


def test_a_plugin_registering_luck_replaces_it_in_place(db, register_plugin):
    before = stats_of(db, player="charlot1")

    class Luckier:
        @hookimpl
        def register_metrics(self, register):
            register("luck", lambda selection, thresholds, decision_type: {
                "luck_emg": 1.5, "luck_rolls": int(selection.roll_side_mask().sum()), "luck_per_roll_mpt": 12.25,
                "not shown": 7})

    register_plugin(Luckier(), "luckier")
    obj = stats_of(db, player="charlot1")
    assert list(obj) == list(before)  # the same keys, in the same places: the three replaced
    assert (obj["luck_emg"], obj["luck_per_roll_mpt"]) == (1.5, 12.25)
    assert obj["luck_rolls"] == 8  # all charlot1's rolls, match 5's of no known luck too: the replacement's count
    assert {k: v for k, v in obj.items() if not k.startswith("luck")} == \
        {k: v for k, v in before.items() if not k.startswith("luck")}
    text = stats.stats_text(obj)
    assert "Luck: +1.500 EMG over 8 rolls (+12.2 mpt a roll)" in text.splitlines()
    assert "(plugin)" not in text and "not shown" not in text
    assert [h for h in stats.stats_table(obj).headers if h.startswith("luck")] == list(stats.OWN_METRICS["luck"])


def test_an_own_metric_without_a_key_shows_it_unknown(db, register_plugin):
    class Partial:
        @hookimpl
        def register_metrics(self, register):
            register("luck", lambda selection, thresholds, decision_type: {"luck_emg": -0.25})

    register_plugin(Partial(), "partial")
    obj = stats_of(db, player="charlot1")
    assert obj["luck_rolls"] is None and obj["luck_per_roll_mpt"] is None
    assert "Luck: -0.250 EMG over — rolls" in stats.stats_text(obj).splitlines()
    assert json.loads(json.dumps(obj, default=str))["luck_rolls"] is None


def test_other_names_stay_plugin_metrics(db, register_plugin):
    class Other:
        @hookimpl
        def register_metrics(self, register):
            register("streak", lambda selection, thresholds, decision_type: {"longest": 3})

    register_plugin(Other(), "other")
    obj = stats_of(db, player="charlot1")
    assert obj["plugin_metrics"] == {"streak": {"longest": 3}}
    assert obj["luck_rolls"] == 6  # the built-in's
    assert "streak (plugin): longest 3" in stats.stats_text(obj).splitlines()
