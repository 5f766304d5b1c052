"""Registers the report's built-in sections, the ``report`` command and the
automatic report after each stored match.  They live in ``views/report.py``
(each section renders its view's object with the view's ``html``)."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import report


@hookimpl
def register_report_sections(register):
    for name, function, order in report.BUILT_IN_SECTIONS:
        register(name, function, order)


@hookimpl
def register_commands(registry):
    registry.add(report.command())


@hookimpl
def post_analysis(store, match, result, context):
    """The optional automatic report (``report --auto FILE``)."""
    report.auto_report(store, context)
