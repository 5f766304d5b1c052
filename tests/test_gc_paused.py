"""The garbage collector kept out of a store's way (issue 29): no
collection runs while a match is stored, and the collector is as it was
afterwards — on after a store, off when it was off, on after a store that
failed.  Seen through Python's own ``gc.callbacks``; a real match and a
real database."""

from __future__ import annotations

import gc
import io
import sys

import pytest

from conftest import DATA
from gnubg_blunder.commands import Context
from gnubg_blunder.importers.sgf import read_match
from gnubg_blunder.pipeline import gc_paused, store_match

SGF = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"


def test_no_collection_during_a_store_and_the_collector_restored(tmp_path):
    match = read_match(SGF)
    ctx = Context(db_path=str(tmp_path / "gc.db"), out=io.StringIO(), err=io.StringIO(), use_config=False)
    runs = []

    def seen(phase, info):
        # a collection started while pipeline.store_match is on the stack: during a store
        if phase == "start":
            frame = sys._getframe()
            while frame is not None:
                if frame.f_code.co_name == "store_match" and frame.f_code.co_filename.endswith("pipeline.py"):
                    runs.append(info["generation"])
                    break
                frame = frame.f_back

    gc.callbacks.append(seen)
    try:
        assert gc.isenabled()
        ctx.store()  # the schema made first
        result = store_match(ctx, match)
        during = list(runs)
        assert result.match_id is not None and gc.isenabled()
        assert during == [], "collections ran during the store"
        gc.disable()
        try:
            store_match(ctx, match)  # already stored
            assert not gc.isenabled()  # off before: left off
        finally:
            gc.enable()
        with pytest.raises(ZeroDivisionError):
            with gc_paused():
                1 / 0
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(seen)
        ctx.close()
