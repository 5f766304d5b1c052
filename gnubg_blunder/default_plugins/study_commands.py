"""Registers study against play (SPEC §11, §14): ``progress-study``,
``training``, ``list --type study`` and their report sections.  The views
live in ``views/study.py`` and ``views/training.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import study, training

SECTION_ORDER = 46  # after the study plan (45), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(study.VIEW)
    registry.add(training.TRAINING)
    registry.add(training.LIST)


@hookimpl
def register_report_sections(register):
    register("study", study.study_section, SECTION_ORDER)
    register("training", training.training_section, SECTION_ORDER + 1)
    register("study-vs-play", training.list_section, SECTION_ORDER + 2)
