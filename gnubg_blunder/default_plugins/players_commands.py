"""Registers the players views (SPEC §14 "Players" and "Corpus"):
``players``, ``compare``, ``contrast``, ``ranking``, ``h2h`` and
``windows``.  The views live in ``views/players.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views.players import VIEWS


@hookimpl
def register_commands(registry):
    for view in VIEWS:
        registry.add(view)
