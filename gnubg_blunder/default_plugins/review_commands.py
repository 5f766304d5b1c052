"""Registers ``review``: the match review (SPEC §8).  The view lives in
``views/review.py``."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import review


@hookimpl
def register_commands(registry):
    registry.add(review.VIEW)
