"""A built-in metric through ``register_metrics``: the luck (SPEC §4) is
registered by the built-in plugin ``luck_metric`` as a third-party metric
is, and ``stats`` shows the metrics it names itself (``OWN_METRICS``) in
their own line and keys; a plugin registering one of those names replaces
that figure there (hookspecs.register_metrics)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from gnubg_blunder.hookspecs import hookimpl
from gnubg_blunder.plugins import metrics, plugin_list
from gnubg_blunder.views import stats

LUCK_KEYS = list(stats.OWN_METRICS["luck"])


def charlot1(cli, db) -> dict:
    """stats --player charlot1 (of tests/fixture_db.py): its JSON, text lines and CSV header."""
    args = ("--no-config", "stats", "--player", "charlot1")
    return {"json": json.loads(cli(*args, "--format", "json", db=db).stdout),
            "lines": cli(*args, db=db).stdout.splitlines(),
            "csv": next(csv.reader(io.StringIO(cli(*args, "--format", "csv", db=db).stdout)))}


def test_the_luck_is_a_builtin_plugins_metric():
    from gnubg_blunder import luck_metric

    assert metrics()["luck"] is luck_metric.luck
    row = {r["name"]: r for r in plugin_list()}["gnubg_blunder.luck_metric"]
    assert row["builtin"] is True and row["hooks"] == ["register_metrics"]


def test_stats_luck_is_the_metrics_hand_computed(cli, db):
    """charlot1's sides of the fixture: luck +0.30, −0.20, +0.10 EMG over two
    rolls each (match 5 has none): +0.200 EMG over 6 rolls, +33.3 mpt a roll;
    in stats' own line and keys, not as a plugin's."""
    got = charlot1(cli, db)
    obj = got["json"]
    assert obj["luck_emg"] == pytest.approx(0.20, abs=1e-12)
    assert obj["luck_rolls"] == 6
    assert obj["luck_per_roll_mpt"] == pytest.approx(1000 * 0.20 / 6, abs=1e-9)
    assert "plugin_metrics" not in obj
    assert "Luck: +0.200 EMG over 6 rolls (+33.3 mpt a roll)" in got["lines"]
    assert not any("(plugin)" in line for line in got["lines"])
    keys = list(obj)
    assert keys[keys.index("blunders") + 1:keys.index("blunders") + 4] == LUCK_KEYS  # where the figures put it
    assert [h for h in got["csv"] if h.startswith("luck")] == LUCK_KEYS


def test_a_plugin_registering_luck_replaces_it_in_place(cli, db, register_plugin):
    before = charlot1(cli, db)

    class Luckier:
        @hookimpl
        def register_metrics(self, register):
            register("luck", lambda selection, thresholds, decision_type: {
                "luck_emg": 1.5, "luck_rolls": int(selection.roll_side_mask().sum()), "luck_per_roll_mpt": 12.25,
                "not shown": 7})

    register_plugin(Luckier(), "luckier")
    got = charlot1(cli, db)
    obj = got["json"]
    assert list(obj) == list(before["json"]) and got["csv"] == before["csv"]  # the same keys, in the same places
    assert (obj["luck_emg"], obj["luck_per_roll_mpt"]) == (1.5, 12.25)
    assert obj["luck_rolls"] == 8  # all charlot1's rolls, match 5's of no known luck too: the replacement's count
    assert {k: v for k, v in obj.items() if not k.startswith("luck")} == \
        {k: v for k, v in before["json"].items() if not k.startswith("luck")}
    assert "Luck: +1.500 EMG over 8 rolls (+12.2 mpt a roll)" in got["lines"]
    assert not any("(plugin)" in line or "not shown" in line for line in got["lines"])


def test_an_own_metric_without_a_key_shows_it_unknown(cli, db, register_plugin):
    class Partial:
        @hookimpl
        def register_metrics(self, register):
            register("luck", lambda selection, thresholds, decision_type: {"luck_emg": -0.25})

    register_plugin(Partial(), "partial")
    got = charlot1(cli, db)
    assert got["json"]["luck_rolls"] is None and got["json"]["luck_per_roll_mpt"] is None
    assert "Luck: -0.250 EMG over — rolls" in got["lines"]


def test_other_names_stay_plugin_metrics(cli, db, register_plugin):
    class Other:
        @hookimpl
        def register_metrics(self, register):
            register("streak", lambda selection, thresholds, decision_type: {"longest": 3})

    register_plugin(Other(), "other")
    got = charlot1(cli, db)
    assert got["json"]["plugin_metrics"] == {"streak": {"longest": 3}}
    assert got["json"]["luck_rolls"] == 6  # the built-in's
    assert "streak (plugin): longest 3" in got["lines"]
    assert "streak.longest" in got["csv"]
