"""Registers collections (docs/collections.md): the `collection` command.  The view lives in ``views/collections.py``;
``--collection NAME`` is part of the one filter (filters.py, commands.add_filter_arguments)."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..views import collections


@hookimpl
def register_commands(registry):
    registry.add(collections.collection_command())
