"""Registers ``verify``: the depth check (SPEC §16).  The command lives in ``gnubg/depth_check.py``, the gnubg
run in ``gnubg/verify.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..gnubg import depth_check as verify


@hookimpl
def register_commands(registry):
    registry.add(verify.COMMAND)
