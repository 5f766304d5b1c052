"""The luck of the rolls (SPEC §4) as a metric: a built-in plugin that gives
``stats`` its luck through ``register_metrics``, the hook a third-party
metric uses.

``stats`` shows the metric named ``luck`` in its own line (``Luck: +0.123
EMG over 94 rolls (+1.3 mpt a roll)``) and its own keys (``luck_emg``,
``luck_rolls``, ``luck_per_roll_mpt``: ``views.stats.OWN_METRICS``), not
as a plugin's; a plugin that registers ``luck`` replaces it there
(hookspecs.register_metrics)."""

from __future__ import annotations

from .hookspecs import hookimpl
from .lazy import lazy

_metrics_figures = lazy("gnubg_blunder.metrics.figures")


def luck(selection, thresholds, decision_type) -> dict:
    """SPEC §4 over the selected sides' rolls (``metrics.figures.luck_figures``):
    luck is not skill, so the thresholds and the decision type change nothing."""
    return dict(_metrics_figures.luck_figures(selection))


@hookimpl
def register_metrics(register):
    register("luck", luck)
