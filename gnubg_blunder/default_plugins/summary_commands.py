"""Registers the ``summary``, ``progression`` and ``positions`` views
(SPEC §14): the same words on the command line and in gnubg
(``>bdb("summary")``), and the summary's built-in cards (signed biases,
the study plan, progress with study).  The views live in ``views/``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import plan, positions, progression, study, summary


@hookimpl
def register_commands(registry):
    registry.add(summary.VIEW)
    registry.add(progression.VIEW)
    registry.add(positions.VIEW)


@hookimpl
def register_summary_cards(register):
    register("biases", summary.biases_card, summary.biases_card_text, summary.biases_card_html, order=10)
    register("plan", plan.plan_card, plan.plan_card_text, plan.plan_card_html, order=20)
    register("study", study.study_card, study.study_card_text, study.study_card_html, order=30)
