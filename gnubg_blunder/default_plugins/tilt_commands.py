"""Registers tilt (SPEC §18): `tilt`, its report section.  The view lives in ``views/tilt.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import tilt

REPORT_ORDER = 57  # after the biases (55), before the players (60)


@hookimpl
def register_commands(registry):
    registry.add(tilt.VIEW)


@hookimpl
def register_report_sections(register):
    register("tilt", tilt.report_section, REPORT_ORDER)
