"""Registers ``agreement`` (two analyses of the same matches compared,
SPEC §17) and its report section.  The view lives in ``views/agreement.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import agreement

SECTION_ORDER = 57  # after the signed biases, before the players


@hookimpl
def register_commands(registry):
    registry.add(agreement.VIEW)


@hookimpl
def register_report_sections(register):
    register("agreement", agreement.agreement_section, SECTION_ORDER)
