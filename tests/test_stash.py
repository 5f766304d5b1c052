"""The one cache (stash.py): typed keys compared by identity, values
kept by their owner (a selection, its decision arrays, a scope, a report)
and gone with it, what the metrics keep read-only, and the report's
``forget(keep=)`` between sections keeping the shared terms alone."""

from __future__ import annotations

import gc
import weakref
from types import MappingProxyType

import numpy as np
import pytest

from gnubg_blunder.stash import Stash, StashKey, cached, compute_once, forget, read_only


def _selection(n_matches: int = 6, per_match: int = 40, seed: int = 0):
    """A selection of checker plays and cube decisions, half of the matches money."""
    from gnubg_blunder.arrays import DecisionArrays, MatchInfo, RollArrays, Selection

    rng = np.random.default_rng(seed)
    n = n_matches * per_match
    match = np.repeat(np.arange(n_matches), per_match)
    dec = DecisionArrays(match=match, game=np.zeros(n), seq=np.tile(np.arange(per_match), n_matches),
                         player=np.tile([0, 1], n // 2), kind=rng.integers(0, 5, n),
                         error=rng.exponential(0.03, n) * rng.integers(0, 2, n), mwc_per_emg=np.full(n, 0.6),
                         xg_counted=np.ones(n), n_legal=np.full(n, 5), n_candidates=np.full(n, 5),
                         equity_spread=np.full(n, 0.3), difficulty=rng.exponential(0.01, n),
                         position=rng.integers(0, 50, n))
    matches = [MatchInfo(id=i + 1, players=("a", "b"), length=(0, 7)[i % 2], date=None, event=None, winner=0,
                         final_score=(0, 0), n_games=1, source="sgf", analysis_id=i + 1, engine="gnubg", depth=2.0,
                         depth_label="2-ply") for i in range(n_matches)]
    return Selection(matches=matches, decisions=dec, rolls=RollArrays(), sides=np.ones((n_matches, 2), dtype=bool))


# -- keys and the stash -------------------------------------------------------------------------

def test_keys_are_compared_by_identity_and_parameters():
    a, also_a = StashKey("same name"), StashKey("same name")
    stash = Stash()
    stash[a] = 1
    assert a in stash and also_a not in stash  # a name is no key: two modules never share a value by it
    assert a.at(1, "all") == a.at(1, "all") and hash(a.at(1, "all")) == hash(a.at(1, "all"))
    assert a.at(1) != a.at(2) and a.at(1) != also_a.at(1) and a.at(1) != a
    assert a.at(1).at("x") == a.at(1, "x") and a.at(1).root is a
    assert repr(a.at(3)) == "StashKey('same name').at(3,)"


def test_stash_maps_keys_to_values():
    key, other = StashKey[int]("an int"), StashKey[list]("a list")
    stash = Stash()
    with pytest.raises(KeyError):
        stash[key]
    assert stash.get(key) is None and stash.get(key, 7) == 7 and key not in stash
    assert stash.setdefault(key, 3) == 3 and stash.setdefault(key, 4) == 3 and stash[key] == 3
    stash[other] = [1]
    assert len(stash) == 2
    del stash[key]
    assert key not in stash and other in stash and len(stash) == 1
    with pytest.raises(KeyError):
        del stash[key]


def test_compute_once_computes_once_and_keeps_the_value_as_it_is():
    key, calls = StashKey[dict]("a view's object"), []
    stash = Stash()
    first = compute_once(stash, key, lambda: calls.append(1) or {"a": [1]})
    again = compute_once(stash, key, lambda: calls.append(1) or {"a": [2]})
    assert first is again and calls == [1] and type(first) is dict  # JSON-ready: not frozen


# -- read-only results --------------------------------------------------------------------------

def test_cached_values_are_read_only():
    """What a metric keeps cannot be changed in place by a caller: an array,
    the arrays of a tuple and of a dataclass, a dict as a read-only mapping."""
    from gnubg_blunder.metrics import kernel

    sel = _selection()
    key, calls = StashKey[np.ndarray]("an array"), []
    first = cached(sel, key, lambda: calls.append(1) or np.arange(3))
    again = cached(sel, key, lambda: calls.append(1) or np.arange(3))
    assert first is again and calls == [1]
    with pytest.raises(ValueError):
        first[0] = 5
    pair = cached(sel, StashKey[tuple]("two arrays"), lambda: (np.zeros(2), np.ones(2)))
    assert not pair[0].flags.writeable and not pair[1].flags.writeable
    masks = cached(sel, StashKey[dict]("masks"), lambda: {"x": (np.zeros(2, bool), np.ones(2, bool))})
    assert isinstance(masks, MappingProxyType) and not masks["x"][1].flags.writeable
    with pytest.raises(TypeError):
        masks["y"] = None
    sums = kernel.sums(sel, np.ones(len(sel.decisions), bool), None, 1, thresholds=None)
    assert read_only(sums) is sums and not sums.e.flags.writeable
    assert read_only(3) == 3 and read_only("x") == "x"


def test_the_metrics_keep_read_only_arrays_and_hand_out_copies_where_they_say_so():
    from gnubg_blunder.metrics import counting, kernel, study_cost, tilt
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.metrics.figures import whole_sums

    sel = _selection()
    ell = kernel.mwc_loss_of(sel)
    assert not ell.flags.writeable and kernel.mwc_loss_of(sel) is ell
    assert sel.stash[kernel.ELL] is ell
    side = kernel.side_mask(sel)  # a fresh copy each call, the kept mask read-only
    assert side.flags.writeable and not sel.stash[kernel.SIDE].flags.writeable
    counted = counting.counted(sel.decisions)  # kept by the decision arrays themselves
    assert counted.flags.writeable and counting.COUNTED in sel.decisions.stash
    loss, difficulty = study_cost.cost_terms(sel, "pr")
    assert not loss.flags.writeable and not difficulty.flags.writeable
    assert sel.decisions.error.flags.writeable  # the stored column itself is not frozen by its read-only view
    masks = tilt.condition_masks(sel, Thresholds())
    assert isinstance(masks, MappingProxyType) and tilt.CONDITION_MASKS.at(Thresholds()) in sel.stash
    assert whole_sums(sel, Thresholds(), "all") is whole_sums(sel, Thresholds(), "all")


def test_a_selection_made_from_another_starts_with_an_empty_stash():
    import dataclasses

    from gnubg_blunder.metrics import kernel

    sel = _selection()
    kernel.mwc_loss_of(sel)
    other = dataclasses.replace(sel, decisions=sel.decisions.take(np.arange(10)))
    assert kernel.ELL in sel.stash and kernel.ELL not in other.stash and len(other.decisions.stash) == 0
    assert other == dataclasses.replace(sel, decisions=other.decisions)  # the stash is no field


# -- freed with the owner ----------------------------------------------------------------------

def test_what_a_selection_keeps_is_freed_with_it():
    """No module holds a selection's values: once the selection goes, its
    arrays go too, by reference counting alone (no cycle through its stash)."""
    from gnubg_blunder.metrics import counting, kernel, plan, tilt
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.metrics.figures import whole_sums

    sel = _selection()
    kernel.classified(sel, Thresholds())
    whole_sums(sel, Thresholds(), "all")
    tilt.condition_masks(sel, Thresholds())
    plan.family_codes(sel)
    counting.counted(sel.decisions)
    ell = kernel.mwc_loss_of(sel)
    refs = [weakref.ref(sel), weakref.ref(sel.decisions), weakref.ref(sel.stash[kernel.FLAGS.at(Thresholds())]),
            weakref.ref(sel.decisions.stash[counting.COUNTED])]
    gc.disable()
    try:
        del sel
        assert all(ref() is None for ref in refs)
    finally:
        gc.enable()
    assert len(ell) == 240 and not ell.flags.writeable  # a value a caller still holds stays as it was


def test_a_selection_read_by_a_view_is_freed_with_it(db):
    """The views' objects kept with the store's selection (biases, plan,
    progress-study) go with it too."""
    from gnubg_blunder.commands import Scope
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import open_store
    from gnubg_blunder.views import biases, plan, report, study

    with open_store(db) as store:
        flt = Filter()
        sel = store.select(flt)
        for view in (biases.VIEW, plan.VIEW, study.VIEW):
            view.evaluate(Scope.over(report._view_args(view, {}), store, flt, sel, thresholds_for(store)))
        assert biases.BIASES_OBJECT.at("all") in sel.stash
        ref = weakref.ref(sel)
        del sel
        gc.collect()
        assert ref() is None


# -- forget(keep=) between the report's sections -----------------------------------------------

def test_forget_keeps_the_keys_asked_for_with_their_parameters():
    kept, dropped = StashKey[int]("kept"), StashKey[int]("dropped")
    sel = _selection()
    sel.stash[kept.at(1)] = sel.stash[kept.at(2)] = sel.stash[kept] = 1
    sel.stash[dropped] = sel.stash[dropped.at(1)] = 2
    forget(sel, keep=(kept,))
    assert kept in sel.stash and kept.at(1) in sel.stash and kept.at(2) in sel.stash
    assert dropped not in sel.stash and dropped.at(1) not in sel.stash
    forget(sel)
    assert len(sel.stash) == 0
    forget(object())  # an owner without a stash: nothing to forget


def test_the_report_forgets_a_sections_arrays_but_the_shared_ones():
    """After each section the report keeps the kernel's terms of the whole
    selection and the views' shared objects, and lets the rest go (the
    report's peak memory, benchmarks/README.md)."""
    from gnubg_blunder.metrics import counting, kernel, tilt
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.metrics.figures import WHOLE_SUMS, whole_sums
    from gnubg_blunder.views import biases, report

    sel = _selection()
    t = Thresholds()
    kernel.classified(sel, t)
    kernel.mwc_loss_of(sel)
    whole_sums(sel, t, "all")
    counting.counted(sel.decisions)
    tilt.condition_masks(sel, t)
    sel.stash[biases.BIASES_OBJECT.at("all")] = {"kept": True}
    report._release_columns(sel)
    for key in (kernel.FLAGS.at(t), kernel.BASE_FLAGS, kernel.ELL, WHOLE_SUMS.at(t, "all"),
                biases.BIASES_OBJECT.at("all")):
        assert key in sel.stash, key
    assert counting.COUNTED in sel.decisions.stash
    assert tilt.CONDITION_MASKS.at(t) not in sel.stash  # the tilt section's own
    assert set(report.shared_keys()) >= {kernel.MONEY, kernel.SIDE, kernel.D_MWC, kernel.ERROR_MICRO}


def test_the_report_context_keeps_what_sections_share():
    from gnubg_blunder.views.report import ReportContext

    from gnubg_blunder.views.plan import PLAN_LISTS

    ctx = ReportContext(store=None, filter=None, selection=None, thresholds=None)
    calls = []
    assert ctx.once(PLAN_LISTS, lambda: calls.append(1) or {"a": 1}) == {"a": 1}
    assert ctx.once(PLAN_LISTS, lambda: calls.append(1) or {"a": 2}) == {"a": 1} and calls == [1]
    assert PLAN_LISTS in ctx.stash  # one cache: the report's stash, by typed key
    # a plugin's section of the older API names its value: kept apart from every typed key
    assert ctx.once("plan-lists", lambda: 5) == 5 and ctx.once("plan-lists", lambda: 6) == 5
    assert ctx.once(PLAN_LISTS, lambda: 7) == {"a": 1}


def test_a_kept_view_object_is_read_only_and_the_same_json():
    """``kept_object``: computed once, JSON byte for byte as the object it
    was made from, every change refused; a copy is the reader's own."""
    import copy
    import json

    from gnubg_blunder.stash import ReadOnlyDict, ReadOnlyList, kept_object

    made = {"unit": "mpt", "families": [{"family": "Racing: checker", "n": 3, "ci": [-1.5, 2.0]}], "none": None,
            "pair": (1, [2])}
    stash, key = Stash(), StashKey("a view's object")
    kept = kept_object(stash, key, lambda: made)
    assert kept_object(stash, key, lambda: 1 / 0) is kept  # once
    assert isinstance(kept, ReadOnlyDict) and isinstance(kept["families"], ReadOnlyList)
    assert isinstance(kept["pair"][1], ReadOnlyList)
    assert json.dumps(kept) == json.dumps(made) and json.dumps(kept, indent=2) == json.dumps(made, indent=2)
    changes = [lambda: kept.__setitem__("unit", "%"), lambda: kept.setdefault("filter", {}), lambda: kept.pop("none"),
               lambda: kept.update(unit="%"), lambda: kept.__delitem__("unit"), lambda: kept.clear(),
               lambda: kept["families"].append({}), lambda: kept["families"].sort(),
               lambda: kept["families"][0].update(n=4), lambda: kept["families"][0]["ci"].__setitem__(0, 0.0)]
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert json.dumps(kept) == json.dumps(made)
    for mine in (copy.deepcopy(kept), json.loads(json.dumps(kept))):
        mine["families"][0]["n"] = 4
        mine["families"].append({})
        assert type(mine) is dict and type(mine["families"]) is list
    shallow = dict(kept)
    shallow["unit"] = "%"
    assert (kept["unit"], type(copy.copy(kept)), type(list(kept["families"]))) == ("mpt", dict, list)


def test_the_views_hand_out_their_kept_objects_read_only(db):
    """The plan and the biases of a selection, as the summary's cards and
    the report read them again: the same kept parts, which no reader can
    change."""
    from gnubg_blunder.commands import Scope
    from gnubg_blunder.database import open_store
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.views import biases, plan, report

    with open_store(db) as store:
        flt = Filter()
        sel = store.select(flt)
        for view, part in ((plan.VIEW, "families"), (biases.VIEW, "take_pass")):
            scope = Scope.over(report._view_args(view, {}), store, flt, sel, thresholds_for(store))
            first, again = view.evaluate(scope), view.evaluate(scope)
            assert first[part] is again[part], view.name
            with pytest.raises(TypeError, match="read-only"):
                first[part].clear()
