"""Registers ``errors`` and ``breakdowns``: where the errors come from, and
the PR split by phase, game plan, #tag and score (SPEC §14).  The views
live in ``views/``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import breakdowns, errors


@hookimpl
def register_commands(registry):
    registry.add(errors.VIEW)
    registry.add(breakdowns.VIEW)
