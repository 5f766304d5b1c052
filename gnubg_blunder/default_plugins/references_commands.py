"""Registers reference positions (SPEC §10): `references`, `mark studied`, their report section.  The view lives in ``views/references.py``."""

from __future__ import annotations
