"""Registers ``matches`` and ``stats``: every match with each side's
figures, and the figures of the filter (SPEC §14).  The views live in
``views/matches.py`` and ``views/stats.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import matches as matches_view
from ..views import stats as stats_view


@hookimpl
def register_commands(registry):
    registry.add(matches_view.VIEW)
    registry.add(stats_view.VIEW)
