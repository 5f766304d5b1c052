"""Registers `anki export` and `anki sync` (docs/anki.md).  The code lives in ``gnubg_blunder/anki/``."""

from __future__ import annotations

from ..hookspecs import hookimpl


@hookimpl
def register_commands(registry):
    from ..anki.command import anki_command

    registry.add(anki_command())
