"""Registers the quiz (issue 12, the Decision exercise): `quiz`.  The code lives in ``gnubg_blunder/quiz/``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..quiz import terminal


@hookimpl
def register_commands(registry):
    registry.add(terminal.command())
