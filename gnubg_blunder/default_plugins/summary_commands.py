"""Registers the ``summary``, ``progression`` and ``positions`` views
(SPEC §14): the same words on the command line and in gnubg
(``>bdb("summary")``).  The views live in ``views/``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import positions, progression, summary


@hookimpl
def register_commands(registry):
    registry.add(summary.VIEW)
    registry.add(progression.VIEW)
    registry.add(positions.VIEW)
