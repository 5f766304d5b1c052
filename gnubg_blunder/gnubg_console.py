"""Kept for start-up hooks copied to ``~/.gnubg/`` by ``install-gnubg``
before the ``gnubg/`` package (0.1.0): they import ``Bdb`` from here.  Running
``gnubg-blunder install-gnubg`` again copies the hook that imports
:mod:`gnubg_blunder.gnubg.console`."""

from .gnubg.console import Bdb  # noqa: F401
