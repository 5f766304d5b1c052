"""The metric vocabulary: PR, MWC lost and MWC-7, named once (SPEC §3, §5,
§14).  ``--metric`` choices, labels in every view, ranking and progression
keys, goals and the interval shown beside a figure all read this table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Metric:
    key: str  # the word of --metric and of goals
    figure: str  # the figures' dict key (metrics/kernel.py)
    label: str  # in words
    short: str  # a column head
    unit: str  # appended to a value in text ("" or " % points")
    interval: Optional[str]  # the figures' key of its 95 % interval, if any
    help: str


METRICS = (
    Metric("pr", "pr", "PR", "PR", "", "pr_ci",
           "PR = 500 × Σ error / counted decisions (lower is better)"),
    Metric("mwc", "mwc_loss", "MWC lost", "MWC", " % points", None,
           "MWC lost, summed over the decisions, in % points (match play only; a sum, not a share: a "
           "match's total can exceed 100)"),
    Metric("mwc7", "l7", "MWC-7 (L7)", "L7", " % points", "l7_ci",
           "MWC-7 (L7): MWC lost scaled to a 7-point match, % points (match play only; a sum too: can "
           "exceed 100)"),
)
BY_KEY = {m.key: m for m in METRICS}
# figure names accepted where a metric is named (goals written "L7 < 4")
ALIASES = {"mwc_loss": "mwc", "l7": "mwc7"}
CHOICES = tuple(m.key for m in METRICS)
DEFAULT = "pr"


def metric(key: str) -> Metric:
    """The metric named ``key`` (a --metric word or a figure name)."""
    k = ALIASES.get(key, key)
    if k not in BY_KEY:
        raise ValueError(f"unknown metric {key!r}: choose one of {', '.join(CHOICES)}")
    return BY_KEY[k]


def option_help() -> str:
    """The help of ``--metric`` (argparse: % escaped)."""
    text = "; ".join(f"{m.key}: {m.help}" for m in METRICS) + f" (default {DEFAULT})"
    return text.replace("%", "%%")
