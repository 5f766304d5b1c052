"""The built-in store step: write each imported match to the store."""

from __future__ import annotations

from ..hookspecs import hookimpl


@hookimpl(trylast=True)
def store_match(store, match):
    return store.add_match(match)
