"""Registers the tournament review (SPEC §13): `tournament`, its report section.  The view lives in ``views/tournament.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import tournament

REPORT_ORDER = 35  # after the progression (30), before the errors (40)


@hookimpl
def register_commands(registry):
    registry.add(tournament.VIEW)


@hookimpl
def register_report_sections(register):
    register("tournament", tournament.report_section, REPORT_ORDER)
