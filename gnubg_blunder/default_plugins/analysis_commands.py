"""Registers ``errors``, ``breakdowns`` and ``biases``: where the errors come from, and
the PR split by phase, game plan, #tag and score (SPEC §14).  The views
live in ``views/``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import biases, breakdowns, errors


@hookimpl
def register_commands(registry):
    registry.add(errors.VIEW)
    registry.add(breakdowns.VIEW)
    registry.add(biases.VIEW)
