"""Registers reference positions (SPEC §10): `references`, `mark studied`, their report section.  The view lives in ``views/references.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import references

SECTION_ORDER = 47  # after the study plan (45), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(references.VIEW)
    registry.add(references.mark_command())


@hookimpl
def register_report_sections(register):
    register("references", references.references_section, SECTION_ORDER)
