"""Registers ``verify``: the depth check (SPEC §16).  The command lives in ``views/verify.py``, the gnubg run in
``gnubg/verify.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import verify


@hookimpl
def register_commands(registry):
    registry.add(verify.COMMAND)
