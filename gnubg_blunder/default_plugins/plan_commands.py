"""Registers the study plan (SPEC §9): `plan`, its report section.  The view lives in ``views/plan.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import plan

SECTION_ORDER = 45  # after the errors (40), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(plan.VIEW)


@hookimpl
def register_report_sections(register):
    register("plan", plan.plan_section, SECTION_ORDER)
