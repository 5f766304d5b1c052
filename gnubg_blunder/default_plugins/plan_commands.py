"""Registers the study plan (SPEC §9): `plan`, its report section.  The view lives in ``views/plan.py``."""

from __future__ import annotations
