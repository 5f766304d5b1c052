"""Registers the tournament review (SPEC §13): `tournament`, its report section.  The view lives in ``views/tournament.py``."""

from __future__ import annotations
