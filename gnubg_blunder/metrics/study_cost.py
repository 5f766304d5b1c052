"""The study half's one cost (SPEC §9): what an error costs in the study
plan (§9: R, its interval, the order, "to confirm"), the reference
positions (§10: excess(p), the gain) and before / after study (§11: r, Δ).
docs/plan.md ("Which cost").

``--metric`` of ``plan``, ``references``, ``progress-study``, ``summary``,
``report`` and ``quiz --plan-top`` picks one of:

- ``pr`` (the default): e − d in EMG, shown in mpt; money sessions included;
- ``mwc``: ℓ − d in MWC (the seed's rule), shown in % MWC; money outside;
- ``mwc7``: ℓ₇ − d₇, x₇ = x × √(7/N) for an N-point match (SPEC §5), shown
  in % MWC-7; money outside.

:func:`cost_terms` is the one place a decision's terms come from: its loss
(e, ℓ or ℓ₇) and its difficulty (d in the same unit), NaN where the cost
does not know them.  Pure numpy: no SQL, no I/O (numpy a lazy entry, imported where a
function needs it: a command's --help names the costs without it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import vocabulary
from ..stash import StashKey, cached
from ..lazy import lazy

_metrics_elo = lazy("gnubg_blunder.metrics.elo")
_metrics_kernel = lazy("gnubg_blunder.metrics.kernel")
np = lazy("numpy")

if TYPE_CHECKING:
    from ..arrays import Selection

PER_100 = 100  # before / after: a rate per 100 decisions


@dataclass(frozen=True)
class StudyCost:
    key: str  # the word of --metric
    unit: str  # the unit a value is shown in
    scale: float  # the terms' unit (EMG or a fraction of MWC) to ``unit``
    decimals: int  # a value in text
    loss: str  # the loss term's symbol in the rules' text
    difficulty: str  # the difficulty term's symbol
    money: bool  # money sessions are priced
    loss_words: str  # the loss term in words
    help: str

    @property
    def rule(self) -> str:
        """The cost in words, without the money clause."""
        return self.help.split(" (")[0]

    @property
    def excess(self) -> str:
        """The cost of one error in symbols: "e − d", "ℓ − d", "ℓ₇ − d₇"."""
        return f"{self.loss} − {self.difficulty}"

    def shown(self, x) -> float:
        """A value in the terms' unit (EMG, fraction of MWC) in ``unit``."""
        return self.scale * float(x)

    def text(self, x, signed: bool = False) -> str:
        """A shown value (already in ``unit``) with its decimals, no unit."""
        return f"{x:+.{self.decimals}f}" if signed else f"{x:.{self.decimals}f}"

    @property
    def rate_unit(self) -> str:
        """Before / after's unit (SPEC §11): the cost's unit per 100 decisions."""
        return f"{self.unit} per {PER_100} decisions"


COSTS = (
    StudyCost("pr", "mpt", 1000.0, 1, "e", "d", True, "the error in EMG",
              "e − d in EMG, shown in mpt (money sessions included)"),
    StudyCost("mwc", "% MWC", 100.0, 2, "ℓ", "d", False, "the MWC loss",
              "ℓ − d in MWC, % points (the seed's rule; money sessions outside)"),
    StudyCost("mwc7", "% MWC-7", 100.0, 2, "ℓ₇", "d₇", False, "the MWC loss × √(7/N) for an N-point match",
              "ℓ₇ − d₇ = (ℓ − d) × √(7/N) for an N-point match, % points of a 7-point match (money outside)"),
)
BY_KEY = {c.key: c for c in COSTS}
DEFAULT = vocabulary.DEFAULT  # "pr"
assert tuple(BY_KEY) == vocabulary.CHOICES and DEFAULT in BY_KEY  # the one --metric vocabulary


def study_cost(key=None) -> StudyCost:
    """The cost named ``key`` (a --metric word, a figure name such as
    "l7", or a StudyCost); None: the default."""
    if isinstance(key, StudyCost):
        return key
    return BY_KEY[vocabulary.metric(key or DEFAULT).key]


def option_help() -> str:
    """The help of the study half's ``--metric`` (argparse: % escaped)."""
    text = ("the study half's cost of an error: " + "; ".join(f"{c.key}: {c.help}" for c in COSTS)
            + f" (default {DEFAULT})")
    return text.replace("%", "%%")


COST_TERMS: StashKey[tuple] = StashKey("study cost")  # .at(the cost's key)
EXCESS_TERMS: StashKey[np.ndarray] = StashKey("study excess")  # .at(the cost's key)


def cost_terms(sel: Selection, metric=None) -> tuple:
    """(loss, difficulty) of each decision under ``metric`` (SPEC §9), in
    EMG (``pr``) or fractions of MWC (``mwc``, ``mwc7``), NaN where unknown:

    - ``pr``: e and d as stored (EMG); money included;
    - ``mwc``: e × (MWC per EMG) and d × (MWC per EMG) (SPEC §1, §6): NaN in
      money sessions and without a conversion factor;
    - ``mwc7``: the ``mwc`` terms × √(7/N), N the match length (SPEC §5).

    Once per selection and metric (read-only arrays)."""
    cost = study_cost(metric)
    return cached(sel, COST_TERMS.at(cost.key), lambda: _cost_terms(sel, cost.key))


def _cost_terms(sel: Selection, key: str) -> tuple:
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0), np.zeros(0)
    if key == "pr":  # the stored columns themselves (views, made read-only by the stash), not copies
        return np.asarray(dec.error, dtype=np.float64).view(), np.asarray(dec.difficulty, dtype=np.float64).view()
    factor = np.array(dec.mwc_per_emg, dtype=np.float64)
    factor[_metrics_kernel.money_matches(sel)[dec.match]] = np.nan  # money play has no MWC
    if key == "mwc7":  # SPEC §5's one-side L₇ = L × √7 / √N (kernel.l7_of), applied to each decision

        lengths = np.array([max(m.length, 0) for m in sel.matches], dtype=np.float64)
        root_n = np.sqrt(np.where(lengths > 0, lengths, np.nan))
        factor = factor * (_metrics_elo.SQRT7 / root_n)[dec.match]
    return dec.error * factor, dec.difficulty * factor


def excess_terms(sel: Selection, metric=None) -> np.ndarray:
    """loss − difficulty of each decision (:func:`cost_terms`), NaN where
    either is unknown: the cost of an error in the plan and the reference
    positions."""
    cost = study_cost(metric)

    def compute():
        loss, difficulty = cost_terms(sel, cost.key)
        return loss - difficulty

    return cached(sel, EXCESS_TERMS.at(cost.key), compute)
