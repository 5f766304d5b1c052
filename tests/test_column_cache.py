"""The array cache's bundles (store/column_cache.py): columns read lazily
give what the rows give, bundles merge by the size-class rule, a selection
copies runs, a damaged column is refused when it is read."""

import sqlite3

import numpy as np
import pytest

from gnubg_blunder.filters import Filter
from gnubg_blunder.arrays import DecisionArrays, RollArrays
from gnubg_blunder.database import open_store
from gnubg_blunder.store.check import DamagedDatabase
from gnubg_blunder.store.column_cache import (BUNDLE_DECISIONS, BlobSource, _Blobs, decode_columns,
                                              encode_columns, gather, merges, _take_runs)


def test_columns_round_trip_with_the_ids_as_differences():
    dt = np.dtype([("row_id", np.int64), ("error", np.float64), ("kind", np.int8), ("position", "S16")])
    r = np.zeros(4, dtype=dt)
    r["row_id"] = [10, 11, 12, 40]  # stored as 10, 1, 1, 28
    r["error"] = [0.1, np.nan, 0.0, 1.5]
    r["kind"] = [0, 1, -1, 4]
    r["position"] = [b"4HPwATDgc/ABMA", b"", b"x", b"4HPwATDgc/ABMA"]
    assert decode_columns(encode_columns(r), dt).tobytes() == r.tobytes()
    assert len(decode_columns(encode_columns(r[:0]), dt)) == 0
    blob = bytearray(encode_columns(r))
    blob[-1] ^= 0xFF  # the last column's payload
    with pytest.raises(ValueError, match="column position: its checksum differs"):
        decode_columns(bytes(blob), dt)


def test_merges_eight_of_a_size_class_at_a_time():
    # sizes in decisions; classes are powers of 8: 160 → class 2 (64..511), 600 → class 3 (512..4095)
    seven = {k: 160 for k in range(1, 8)}
    assert merges(seven) == []
    eight = {k: 160 for k in range(1, 9)}
    assert merges(eight) == [[1, 2, 3, 4, 5, 6, 7, 8]]  # one of 1,280 decisions (class 3)
    # eight of class 2 make one of class 3, which with seven of class 3 make eight: merged again
    mixed = {**eight, **{k: 600 for k in range(10, 17)}}
    assert merges(mixed) == [[1, 2, 3, 4, 5, 6, 7, 8], [10, 11, 12, 13, 14, 15, 16, 1]]
    # a bundle at the cap is never merged
    full = {k: BUNDLE_DECISIONS for k in range(1, 20)}
    assert merges(full) == []


def test_rows_taken_blob_by_blob_equal_the_rows_of_the_whole_column():
    """``gathered``: the runs of a selection taken from each blob as it is
    decompressed (in the blobs' order, across their bounds, or in any
    order) are the same rows as those of the column read end to end."""
    import io

    dt = np.dtype([("row_id", np.int64), ("error", np.float64), ("kind", np.int8)])
    rng = np.random.default_rng(13)
    blobs = []
    for n in (5, 7, 4, 9):
        r = np.zeros(n, dtype=dt)
        r["row_id"] = np.sort(rng.integers(0, 1000, n))
        r["error"], r["kind"] = rng.random(n), rng.integers(-1, 5, n)
        blob = encode_columns(r)
        blobs.append(BlobSource(blob, io.BytesIO(blob)))
    reader = _Blobs(blobs, dt)
    whole = {name: reader.column(name) for name in dt.names}
    assert len(whole["error"]) == 25
    cases = [[(0, 25)], [(3, 6), (6, 14)], [(4, 5), (12, 20), (24, 25)], [(16, 25)], [(20, 25), (0, 3), (9, 17)],
             [(5, 12)], []]
    for _ in range(200):
        cuts = np.sort(rng.choice(26, size=2 * int(rng.integers(1, 5)), replace=False))
        runs = [tuple(int(x) for x in cuts[i:i + 2]) for i in range(0, len(cuts), 2)]
        cases.append(runs if rng.random() < 0.5 else [runs[i] for i in rng.permutation(len(runs))])
    for runs in cases:
        for name in dt.names:
            want = _take_runs(whole[name], runs)
            assert reader.gathered(name, runs).tobytes() == want.tobytes(), (name, runs)


def test_gather_joins_runs_that_follow_one_another():
    assert gather([0, 5, 10], [5, 5, 3]) is None  # every row, in order
    assert gather([5, 0], [5, 5]) == [(5, 10), (0, 5)]
    assert gather([3, 9, 0], [2, 0, 3]) == [(3, 5), (0, 3)]  # an empty run is no break
    col = np.arange(20)
    assert _take_runs(col, [(5, 10), (0, 5)]).tolist() == [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
    many = [(k, k + 1) for k in range(0, 12000, 2)]  # above the slice limit: one index array
    assert _take_runs(np.arange(12000), many).tolist() == list(range(0, 12000, 2))


def _eager(store, flt=None):
    """Every column of a selection, read (the lazy columns forced)."""
    sel = store.select(flt)
    dec = {name: getattr(sel.decisions, name) for name in DecisionArrays.SPEC}
    rolls = {name: getattr(sel.rolls, name) for name in RollArrays.SPEC}
    return sel, dec, rolls


def _same(a, b):
    for name in a:
        x, y = a[name], b[name]
        if x.dtype == object:
            assert list(x) == list(y), name
        else:
            assert x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize("player", [None, "charlot1"])
def test_bundles_built_match_by_match_read_as_one_bundle_built_at_once(db_copy, player):
    """The fixture database was stored match by match (a bundle each,
    merged by the rule); its cache dropped and built again at once (one
    bundle): every column of every selection the same, and the same as the
    analyses' own records."""
    flt = Filter(player=player) if player else None
    store = open_store(db_copy)
    try:
        # stored match by match: no size class holds eight bundles (they would have been merged)
        sizes = {key: sum(man["decisions"]) for key, man in store._bundles().items()}
        assert sum(len(man["analyses"]) for man in store._bundles().values()) == \
            store.conn.execute("SELECT COUNT(*) FROM analyses").fetchone()[0]
        assert merges(sizes) == []
        sel, dec, rolls = _eager(store, flt)
        positions = list(sel.positions)
        # the analyses' records, read from their rows, in the selection's order
        rows = [store._pack_records(m.analysis_id) for m in sel.matches]
        assert dec["error"].tobytes() == np.concatenate([r[0]["error"] for r in rows]).tobytes()
        assert dec["row_id"].tolist() == np.concatenate([r[0]["row_id"] for r in rows]).tolist()
        assert [positions[p] if p >= 0 else "" for p in dec["position"]] == \
            [p.decode() for r in rows for p in r[0]["position"]]
        assert rolls["luck"].tobytes() == np.concatenate([r[1]["luck"] for r in rows]).tobytes()
        store.conn.execute("DELETE FROM analysis_arrays")
        again_sel, again_dec, again_rolls = _eager(store, flt)
        assert store.conn.execute("SELECT COUNT(*) FROM analysis_arrays").fetchone()[0] == 1
        _same(dec, again_dec)
        _same(rolls, again_rolls)
        assert list(again_sel.positions) == positions
    finally:
        store.close()


def test_a_damaged_column_is_refused_when_read(db_copy):
    """A byte of one column's payload changed (the seal over the headers
    intact): the selection opens, the other columns read, that column is
    refused (its own checksum)."""
    store = open_store(db_copy)
    key, blob = store.conn.execute("SELECT analysis_id, decisions FROM analysis_arrays ORDER BY "
                                   "length(decisions) DESC LIMIT 1").fetchone()
    store.close()
    con = sqlite3.connect(db_copy)
    with con:
        damaged = bytearray(blob)
        damaged[-3] ^= 0xFF  # inside the last column's payload (counted)
        con.execute("UPDATE analysis_arrays SET decisions = ? WHERE analysis_id = ?", (bytes(damaged), key))
    con.close()
    store = open_store(db_copy)
    try:
        sel = store.select()
        assert np.nansum(sel.decisions.error) > 0
        with pytest.raises(DamagedDatabase, match="column counted: its checksum differs"):
            sel.decisions.counted
    finally:
        store.close()


def test_a_selection_reads_while_another_connection_merges(db_copy):
    """A selection's blob handles keep the snapshot they opened in: the
    bundles merged and rewritten by another connection meanwhile, its
    columns are those of before; and this store still writes."""
    store = open_store(db_copy)
    other = open_store(db_copy)
    try:
        sel = store.select()
        other.conn.execute("DELETE FROM analysis_arrays")
        other._ensure_arrays([a for (a,) in other.conn.execute("SELECT id FROM analyses")])
        errors = sel.decisions.error  # read after the other connection rewrote the cache
        assert errors.tobytes() == other.select().decisions.error.tobytes()
        store.add_alias("charlot1", "charlot one")  # a write on the selecting store's connection
        assert store.aliases()
    finally:
        store.close()
        other.close()


def test_bundles_merged_give_the_same_selection(db_copy, monkeypatch):
    """The fixture's five one-analysis bundles (keys 1..5: 11, 8, 6, 4 and 3
    decisions) merged with the fan-out lowered to 2 (size classes: powers
    of 2): class 2 holds 4 and 6 → one of 10 (key 3, class 3); class 3 then
    holds 8, 10, 11 → the two smallest, 8+10 → 18 (key 2); left: 11 (key
    1), 18 (key 2), 3 (key 5), and every column as before."""
    import gnubg_blunder.store.column_cache as cc

    store = open_store(db_copy)
    try:
        _, dec, rolls = _eager(store)
        monkeypatch.setattr(cc, "MERGE_FANOUT", 2)
        assert merges({1: 11, 2: 8, 3: 6, 4: 4, 5: 3}) == [[4, 3], [2, 3]]
        store.conn.execute("BEGIN IMMEDIATE")
        store._merge_bundles()
        store.conn.execute("COMMIT")
        assert {k: sum(m["decisions"]) for k, m in store._bundles().items()} == {1: 11, 2: 18, 5: 3}
        _, again, again_rolls = _eager(store)
        _same(dec, again)
        _same(rolls, again_rolls)
    finally:
        store.close()


def test_a_selection_reads_its_columns_after_its_store_is_closed(db):
    """The columns of a selection are read from the file when first named:
    a selection kept after ``close`` (a caller's ``with open_store(...)``
    block ended) still reads them, through its own connection."""
    with open_store(db) as store:
        sel = store.select()
        error = store.select().decisions.error
    assert sel.decisions.error.tobytes() == error.tobytes()
    assert len(sel.positions) > 0


def test_the_cached_counted_flag_is_the_rule(db):
    """The array cache keeps SPEC §2's counted flag (built by the same rule
    as the figures apply to uncached columns): on the fixture's selection,
    the flag read from the cache equals the rule applied to the columns."""
    from gnubg_blunder.metrics.counting import counted, counted_by_rule

    store = open_store(db)
    try:
        dec = store.select().decisions
        carried = dec.counted
        assert len(carried) > 20 and set(np.unique(carried).tolist()) == {0, 1}
        assert (counted(dec) == counted_by_rule(dec)).all()
        assert counted(dec).sum() < len(dec)  # forced plays and clear no-doubles are out
    finally:
        store.close()


def test_distinct_positions_equal_numpy_unique():
    """The position IDs' sort by two 64-bit halves gives numpy's
    ``unique`` of the strings: the same IDs in the same order, the same
    inverse (empty IDs, IDs sharing their first 8 bytes, one ID alone)."""
    from gnubg_blunder.store.column_cache import _unique_ids, distinct_positions

    rng = np.random.default_rng(5)
    alphabet = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)
    pool = [bytes(alphabet[rng.integers(0, 64, 14)]) for _ in range(300)]
    pool += [b"4HPwATDgc/ABMA", b"4HPwATDgc/ABMB", b"4HPwATDgzzzzzz", b""]  # shared prefixes, and none
    for n in (0, 1, 7, 5000):
        ids = np.array([pool[k] for k in rng.integers(0, len(pool), n)], dtype="S16")
        want_u, want_inv = np.unique(ids, return_inverse=True)
        got_u, got_inv = _unique_ids(ids)
        assert got_u.tolist() == want_u.tolist() and got_inv.tolist() == want_inv.reshape(-1).tolist()
        index, names = distinct_positions(ids)
        assert [names[k] if k >= 0 else "" for k in index.tolist()] == [i.decode() for i in ids.tolist()]


def test_released_columns_are_read_again_the_same(db):
    """``Columns.release`` (between the report's sections) lets go of the
    lazy columns read so far; naming one again reads the same values."""
    store = open_store(db)
    try:
        dec = store.select().decisions
        error, kind = dec.error.copy(), dec.kind.copy()
        assert "error" in dec.__dict__
        dec.release()
        assert "error" not in dec.__dict__ and "kind" not in dec.__dict__
        assert np.array_equal(dec.error, error, equal_nan=True) and np.array_equal(dec.kind, kind)
    finally:
        store.close()


@pytest.mark.parametrize("one_player", [False, True])
def test_positions_and_a_few_rows_read_blob_by_blob_equal_the_whole_columns(db, one_player):
    """The distinct positions worked out blob by blob, and ``values_at`` of
    a few rows read from the blobs holding them, give what the whole
    columns give (the whole selection, and one player's: runs in several
    bundles), without reading the whole column into the selection."""
    from gnubg_blunder.store.column_cache import distinct_positions

    store = open_store(db)
    try:
        names = store.player_names()
        flt = Filter(player=names[0] if one_player else None)
        whole = store.select(flt).decisions
        ids = whole.position_id
        want_index, want_ids = distinct_positions(ids)
        sel = store.select(flt)
        assert sel.decisions.position.tolist() == want_index.tolist() and list(sel.positions) == want_ids
        rng = np.random.default_rng(3)
        rows = rng.integers(0, len(whole), 12)
        fresh = store.select(flt).decisions
        for name in ("row_id", "error", "game", "seq", "position_id", "kind", "match", "position"):
            got = fresh.values_at(name, rows)
            assert got.tobytes() == getattr(whole, name)[rows].tobytes(), name
            assert name not in fresh.__dict__  # read for those rows, not kept
    finally:
        store.close()
