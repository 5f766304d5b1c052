"""The array cache, stored column by column in bundles of analyses (formats 6, 7).

A row of ``analysis_arrays`` holds a *bundle*: the cached decisions and
rolls of one or more analyses, end to end, keyed by the first analysis'
id.  Its ``comments`` column holds the bundle's manifest (JSON: the
analyses in order, each one's number of decisions and rolls, and which
of its decisions have a comment); its two blobs hold the columns one
after the other, each compressed apart (LZ4 block format), behind a small
header::

    rows (uint32) | columns (uint16) | compressed length of each column (uint32 ...) | payloads

The decisions blob starts with the CRC-32 of the bundle's whole cache
(``seal``).  Why columns: a view reads a handful of the thirty columns of
1.6 M decisions (issue 13: over 10,000 matches the time is reading, not
computing), and only those are decompressed (:class:`CacheReader`,
:meth:`gnubg_blunder.arrays.Columns.lazy`).  Why bundles: a column
of 10,000 analyses is then a dozen decompressions, not 10,000.  Why
compressed: the cache is a third of its raw size (a column of unknowns is a
few bytes), and LZ4 decompresses faster than SQLite reads pages.  A stored
match makes a bundle of one analysis; small bundles are merged, eight of a
size class at a time, up to ``BUNDLE_DECISIONS`` (:func:`merges`), so that
each decision is rewritten a few times in all.

The rows stay the source of truth: the cache is rebuilt from them
(``SQLiteStore._pack_records``, ``gnubg-blunder check --repair``).
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from typing import Optional

import lz4.block
import numpy as np

from .damage import CHECK_HINT, DamagedDatabase

CACHE_FORMAT = 10  # 6: the first column layout; 7: row ids as differences; 8: a checksum per column; 9: counted;
# 10: the rolls' seq (tilt, SPEC §18)
BUNDLE_DECISIONS = 200_000  # bundles are not merged beyond about this many decisions
MERGE_FANOUT = 8  # eight bundles of one size class make one of the next
# columns stored as the difference from the row before (the first as it is):
# decision ids run 1 by 1 within an analysis, which then compress to nothing
DELTA_COLUMNS = frozenset({"row_id"})
_HEAD = struct.Struct("<IH")  # rows, columns; then each column's compressed length, then each one's CRC-32


def header_size(dtype: np.dtype) -> int:
    """Bytes of the header of a blob of ``dtype``'s columns."""
    return _HEAD.size + 8 * len(dtype.names)


def _stored_bytes(name: str, col: np.ndarray) -> bytes:
    col = np.ascontiguousarray(col)
    if name in DELTA_COLUMNS and len(col):
        col = np.diff(col, prepend=col.dtype.type(0))
    return col.tobytes()


def _column_values(name: str, raw, dtype) -> np.ndarray:
    col = np.frombuffer(raw, dtype=dtype)
    return np.cumsum(col, dtype=dtype) if name in DELTA_COLUMNS else col


def encode_columns(records: np.ndarray) -> bytes:
    """A record array as one blob: header, then each field compressed apart."""
    names = records.dtype.names
    payloads = [lz4.block.compress(_stored_bytes(n, records[n])) for n in names]
    k = len(names)
    return (_HEAD.pack(len(records), k) + struct.pack(f"<{k}I", *map(len, payloads))
            + struct.pack(f"<{k}I", *(zlib.crc32(p) for p in payloads)) + b"".join(payloads))


def _header(blob, dtype) -> tuple:
    """(rows, offsets of each column's payload and one past the last, CRC-32 of each)."""
    k = len(dtype.names)
    rows, k_stored = _HEAD.unpack_from(blob)
    if k_stored != k:
        raise ValueError(f"{k_stored} columns, the format has {k}")
    lengths = struct.unpack_from(f"<{k}I", blob, _HEAD.size)
    crcs = struct.unpack_from(f"<{k}I", blob, _HEAD.size + 4 * k)
    return rows, np.cumsum((header_size(dtype),) + lengths), crcs


def _payload_values(name, payload, crc, rows, dtype) -> np.ndarray:
    if zlib.crc32(payload) != crc:
        raise ValueError(f"column {name}: its checksum differs")
    try:
        raw = lz4.block.decompress(payload, return_bytearray=True)  # writable, as the metrics' columns are
    except lz4.block.LZ4BlockError as exc:
        raise ValueError(f"column {name}: {exc}") from None
    if len(raw) != rows * dtype.itemsize:
        raise ValueError(f"column {name}: {len(raw)} bytes for {rows} rows")
    return _column_values(name, raw, dtype)


def decode_columns(blob, dtype: np.dtype) -> np.ndarray:
    """The record array :func:`encode_columns` made (ValueError when the
    blob is not one of ``dtype``'s: another layout, truncated, garbled)."""
    blob = memoryview(blob)
    try:
        rows, offsets, crcs = _header(blob, dtype)
    except struct.error as exc:
        raise ValueError(str(exc)) from None
    if offsets[-1] != len(blob):
        raise ValueError(f"a cache blob of {len(blob)} bytes declares {int(offsets[-1])}")
    out = np.zeros(rows, dtype=dtype)
    for j, name in enumerate(dtype.names):
        out[name] = _payload_values(name, blob[offsets[j]:offsets[j + 1]], crcs[j], rows, dtype[name])
    return out


def checksum(dec_head, rol_head, manifest) -> int:
    """CRC-32 of a bundle's headers (which hold each column's CRC-32) and manifest."""
    crc = zlib.crc32(rol_head, zlib.crc32(dec_head))
    return zlib.crc32((manifest or "").encode(), crc)


def seal(dec: bytes, rol: bytes, manifest, dec_dtype, roll_dtype) -> bytes:
    """The decisions blob as stored: the CRC-32 of the bundle's headers and
    manifest ahead of the columns; with each column's own CRC-32 in the
    header, a damaged cache is refused, never computed from, and a reader
    checks only what it reads (the headers, and the columns it
    decompresses)."""
    crc = checksum(dec[:header_size(dec_dtype)], rol[:header_size(roll_dtype)], manifest)
    return crc.to_bytes(4, "little") + dec


def sealed(dec_head, rol_head, manifest, dec_dtype, roll_dtype) -> bool:
    """Does a stored bundle's seal hold (``dec_head``: the decisions blob's
    first bytes, the seal included; ``rol_head``: the rolls blob's)?"""
    n, m = header_size(dec_dtype), header_size(roll_dtype)
    head = memoryview(dec_head)
    return (len(head) >= 4 + n and len(rol_head) >= m
            and int.from_bytes(head[:4], "little") == checksum(head[4:4 + n], memoryview(rol_head)[:m], manifest))


def encode_bundle(parts: list) -> tuple:
    """The stored row of a bundle: (sealed decisions blob, rolls blob,
    manifest) from ``parts`` [(analysis id, decision records, roll records,
    indices of its commented decisions)], in that order."""
    dec_records, roll_records = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
    dec, rol = encode_columns(dec_records), encode_columns(roll_records)
    manifest = json.dumps({
        "analyses": [int(p[0]) for p in parts],
        "decisions": [len(p[1]) for p in parts],
        "rolls": [len(p[2]) for p in parts],
        "commented": {str(i): [int(k) for k in p[3]] for i, p in enumerate(parts) if len(p[3])},
    }, separators=(",", ":"))
    return seal(dec, rol, manifest, dec_records.dtype, roll_records.dtype), rol, manifest


def read_manifest(text) -> dict:
    """A bundle's manifest (ValueError when it is not one)."""
    try:
        man = json.loads(text)
        ids, dec, rol = man["analyses"], man["decisions"], man["rolls"]
        if not (len(ids) == len(dec) == len(rol)) or not isinstance(man["commented"], dict):
            raise ValueError("its lists differ in length")
    except (TypeError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"unreadable manifest ({exc.__class__.__name__})") from None
    return man


def decode_bundle(dec_blob, rol_blob, manifest_text, dec_dtype, roll_dtype) -> list:
    """:func:`encode_bundle`'s ``parts`` back from a stored row (ValueError
    when it cannot be read, a column's checksum included; the seal is not
    checked here: :func:`sealed`)."""
    man = read_manifest(manifest_text)
    dec = decode_columns(memoryview(dec_blob)[4:], dec_dtype)
    rol = decode_columns(rol_blob, roll_dtype)
    if len(dec) != sum(man["decisions"]) or len(rol) != sum(man["rolls"]):
        raise ValueError("its manifest counts other rows than its columns hold")
    d0, r0, parts = np.cumsum([0] + man["decisions"]), np.cumsum([0] + man["rolls"]), []
    for i, a in enumerate(man["analyses"]):
        parts.append((a, dec[d0[i]:d0[i + 1]], rol[r0[i]:r0[i + 1]], man["commented"].get(str(i), [])))
    return parts


def merges(sizes: dict) -> list:
    """Which bundles to merge, from {key: its decisions}: eight of the
    smallest size class (powers of eight) make one, as long as the result
    stays under ``BUNDLE_DECISIONS``; again until no class holds eight."""
    def size_class(n):
        return int(math.log(max(n, 1), MERGE_FANOUT))

    groups, sizes = [], dict(sizes)
    while True:
        by_class: dict = {}
        for key, n in sorted(sizes.items(), key=lambda kv: (kv[1], kv[0])):
            if n < BUNDLE_DECISIONS:
                by_class.setdefault(size_class(n), []).append(key)
        full = [keys for _c, keys in sorted(by_class.items()) if len(keys) >= MERGE_FANOUT]
        if not full:
            return groups
        group = full[0][:MERGE_FANOUT]
        groups.append(group)
        sizes[min(group)] = sum(sizes.pop(k) for k in group)


def distinct_positions(ids: np.ndarray) -> tuple:
    """(index of each decision's position in the list, the distinct
    position IDs sorted; -1 and no entry for a decision without one)."""
    uniq, inverse = _unique_ids(np.asarray(ids, dtype="S16"))
    has_empty = bool(len(uniq)) and uniq[0] == b""
    return (inverse.astype(np.int32).reshape(-1) - (1 if has_empty else 0),
            [p.decode() for p in (uniq[1:] if has_empty else uniq)])


def _unique_ids(ids: np.ndarray) -> tuple:
    """``np.unique(ids, return_inverse=True)`` of 16-byte strings, sorted
    as two big-endian 64-bit halves (the same order as the bytes'): two
    stable integer sorts instead of one of strings, about a third faster
    over 1.6 M decisions."""
    if not len(ids):
        return ids[:0], np.zeros(0, dtype=np.int64)
    halves = np.ascontiguousarray(ids).view(np.dtype(">u8")).reshape(-1, 2)
    # one 8-byte key alive at a time beside the order (memory: 1.6 M decisions are 13 MB a key)
    key = halves[:, 1].astype(np.uint64)
    order = np.argsort(key, kind="stable")
    key = halves[:, 0].astype(np.uint64)[order]
    order = order[np.argsort(key, kind="stable")]
    del key
    new = np.empty(len(order), dtype=bool)
    new[0] = True
    for half in (0, 1):
        part = halves[order, half]
        if half:
            new[1:] |= part[1:] != part[:-1]
        else:
            new[1:] = part[1:] != part[:-1]
        del part
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ids[order[new]], inverse


class BlobSource:
    """A stored columns blob read in place: its header, and ``read(offset,
    size)`` of the bytes after ``skip`` (the seal of a decisions blob)
    through SQLite's incremental blob I/O, so that only the columns a view
    reads leave the file.  An open handle keeps the snapshot it was opened
    in (another process merging bundles meanwhile is not seen)."""

    def __init__(self, head: bytes, handle, skip: int = 0):
        self.head, self.handle, self.skip = head, handle, skip

    def read(self, offset: int, size: int) -> bytes:
        self.handle.seek(self.skip + offset)
        return self.handle.read(size)

    def close(self) -> None:
        self.handle.close()


class _Blobs:
    """Stored blobs of one layout (the bundles' decisions, or their rolls):
    each column read, checked and decompressed on demand, end to end."""

    def __init__(self, sources: list, dtype: np.dtype):
        self.sources, self.dtype = sources, dtype
        heads = [_header(src.head, dtype) for src in sources]
        self.rows = np.array([h[0] for h in heads], dtype=np.int64)
        self.offsets = [h[1] for h in heads]
        self.crcs = [h[2] for h in heads]
        self.column_of = {name: j for j, name in enumerate(dtype.names)}

    def _part(self, k: int, name: str) -> np.ndarray:
        """Column ``name`` of blob ``k``, checked and decompressed."""
        j = self.column_of[name]
        off = self.offsets[k]
        try:
            return _payload_values(name, self.sources[k].read(int(off[j]), int(off[j + 1] - off[j])),
                                   self.crcs[k][j], int(self.rows[k]), self.dtype[name])
        except ValueError as exc:
            raise DamagedDatabase(f"the array cache is damaged ({exc}): no figure was computed from it. "
                                  f"{CHECK_HINT}") from None

    def column(self, name: str, per_blob=None) -> np.ndarray:
        """Column ``name`` end to end; ``per_blob(k, values)``: what to keep
        of blob ``k``'s values instead of them (one row each)."""
        per_blob = per_blob or _as_read
        parts = [per_blob(k, self._part(k, name)) for k in range(len(self.sources))]
        if not parts:
            return np.zeros(0, dtype=self.dtype[name])
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def gathered(self, name: str, runs: list, per_blob=None) -> np.ndarray:
        """The rows ``runs`` (:func:`gather`) of column ``name``, taken from
        each blob as it is decompressed: one copy, not the column end to end
        and then its rows; a blob no run touches is not read.  Runs in
        ascending order (bundles keep the selection's order); others are
        taken from the whole column."""
        per_blob = per_blob or _as_read
        if not runs:
            return np.zeros(0, dtype=self.dtype[name])
        ranges = np.asarray(runs, dtype=np.int64)
        bounds = np.concatenate([[0], np.cumsum(self.rows)])
        if len(ranges) > 1 and (ranges[1:, 0] < ranges[:-1, 1]).any():
            return self._gathered_in_any_order(name, ranges, bounds, per_blob)
        pieces = []
        for k in range(len(self.sources)):
            lo, hi = int(bounds[k]), int(bounds[k + 1])
            first, last = np.searchsorted(ranges[:, 1], lo, side="right"), np.searchsorted(ranges[:, 0], hi)
            if first >= last:
                continue
            inside = np.clip(ranges[first:last], lo, hi) - lo
            inside = inside[inside[:, 1] > inside[:, 0]]
            if len(inside) == 1 and inside[0, 0] == 0 and inside[0, 1] == hi - lo:
                pieces.append(per_blob(k, self._part(k, name)))  # the whole blob: no copy
            elif len(inside):
                pieces.append(_take_runs(per_blob(k, self._part(k, name)), inside.tolist()))
        if not pieces:
            return np.zeros(0, dtype=self.dtype[name])
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)


    def _gathered_in_any_order(self, name: str, ranges: np.ndarray, bounds: np.ndarray, per_blob) -> np.ndarray:
        """:meth:`gathered` for runs out of the blobs' order (a selection
        ordered otherwise than the bundles): the result made once, each blob
        some run touches decompressed in turn and its spans copied in place
        (the peak is the result and one blob, not every blob and a copy of
        them).  Where the spans lie is worked out once for all the columns
        (a date-ordered selection of 10,000 matches is thousands of runs)."""
        pieces = self._pieces(ranges, bounds)
        out = None
        for k, spans in pieces["blobs"]:
            part = per_blob(k, self._part(k, name))
            if out is None:
                out = np.empty(pieces["n"], dtype=part.dtype)
            for lo, hi, at in spans:  # slices: a few thousand a column, each a copy at memory speed
                out[at:at + hi - lo] = part[lo:hi]
            del part
        return out if out is not None else np.zeros(0, dtype=self.dtype[name])

    def _pieces(self, ranges: np.ndarray, bounds: np.ndarray) -> dict:
        """Where the rows of ``ranges`` lie: for each blob they touch, its
        spans (first row, past the last, where they go in the result), each
        run cut at the blobs' bounds.  Kept for the last ``ranges`` (every
        column of a selection has the same runs)."""
        key = (ranges.shape, ranges.tobytes())
        if getattr(self, "_pieces_key", None) == key:
            return self._pieces_of
        a, b = ranges[:, 0], ranges[:, 1]
        first = np.searchsorted(bounds, a, side="right") - 1
        last = np.searchsorted(bounds, b - 1, side="right") - 1
        count = last - first + 1
        run = np.repeat(np.arange(len(ranges)), count)
        k = first[run] + (np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count))
        lo, hi = np.maximum(a[run], bounds[k]), np.minimum(b[run], bounds[k + 1])
        dst = np.cumsum(hi - lo) - (hi - lo)  # pieces in the runs' order, end to end
        order = np.argsort(k, kind="stable")
        k, lo, hi, dst = k[order], lo[order] - bounds[k[order]], hi[order] - bounds[k[order]], dst[order]
        blobs = {}
        for kk, l, h, d in zip(k.tolist(), lo.tolist(), hi.tolist(), dst.tolist()):
            blobs.setdefault(kk, []).append((l, h, d))
        self._pieces_key = key
        self._pieces_of = {"n": int((b - a).sum()), "blobs": list(blobs.items())}
        return self._pieces_of


def _as_read(_k: int, values: np.ndarray) -> np.ndarray:
    return values


def gather(starts, counts) -> Optional[list]:
    """The runs (``starts``, ``counts``) of rows to read end to end, the
    runs that follow one another joined: [(start, stop)...]; None when that
    is every row in order (nothing to copy).  Bundles keep their analyses
    in the selections' order, so a selection of everything is a run a
    bundle, and a player's matches a few thousand runs, not 1.6 M
    indices."""
    starts, counts = np.asarray(starts, dtype=np.int64), np.asarray(counts, dtype=np.int64)
    keep = counts > 0
    starts, stops = starts[keep], starts[keep] + counts[keep]
    if not len(starts):
        return []
    breaks = np.nonzero(starts[1:] != stops[:-1])[0] + 1
    first = np.concatenate([[0], breaks])
    last = np.concatenate([breaks - 1, [len(starts) - 1]])
    runs = list(zip(starts[first].tolist(), stops[last].tolist()))
    return None if len(runs) == 1 and runs[0][0] == 0 else runs


def _take_runs(col: np.ndarray, runs: list) -> np.ndarray:
    if len(runs) < 5000:  # slices: a copy at memory speed
        return np.concatenate([col[a:b] for a, b in runs]) if runs else col[:0].copy()
    lengths = np.array([b - a for a, b in runs], dtype=np.int64)
    begins = np.array([a for a, _ in runs], dtype=np.int64)
    ends = np.cumsum(lengths)
    return col[np.repeat(begins - (ends - lengths), lengths) + np.arange(int(ends[-1]), dtype=np.int64)]


class _DistinctPositions:
    """The distinct positions of a reader's decisions, sorted once, when a
    metric first names ``position`` or the selection's positions."""

    _positions = None

    def _distinct_positions(self) -> tuple:
        if self._positions is None:
            self._positions = distinct_positions(self._position_ids())
        return self._positions

    def positions(self) -> list:
        return self._distinct_positions()[1]


class CacheReader(_DistinctPositions):
    """The cached columns of the analyses of a selection (one per match, in
    the selection's order), read column by column from the bundles holding
    them.  ``decision_column`` and ``roll_column`` give the columns
    :class:`DecisionArrays` and :class:`RollArrays` name: ``match`` (index
    of the analysis), ``position`` (index into :meth:`positions`),
    ``comment`` (the texts of ``comments``, {index of a decision: its
    text}, which the store reads from the rows) and the stored ones.
    ``dec_runs``/``roll_runs``: (first row in the bundles' columns end to
    end, number of rows) of each selected analysis (pairs, or an array of
    shape (analyses, 2))."""

    def __init__(self, dec_sources: list, roll_sources: list, dec_dtype, roll_dtype, dec_runs, roll_runs):
        self._dec = _Blobs(dec_sources, dec_dtype)
        self._rolls = _Blobs(roll_sources, roll_dtype)
        dec_runs = np.asarray(dec_runs, dtype=np.int64).reshape(-1, 2)
        roll_runs = np.asarray(roll_runs, dtype=np.int64).reshape(-1, 2)
        self._dec_counts, self._roll_counts = dec_runs[:, 1].copy(), roll_runs[:, 1].copy()
        self._dec_gather = gather(dec_runs[:, 0], self._dec_counts)
        self._roll_gather = gather(roll_runs[:, 0], self._roll_counts)
        self.n_decisions = int(self._dec_counts.sum())
        self.n_rolls = int(self._roll_counts.sum())
        self.comments = {}

    def decision_starts(self) -> list:
        """Index of each analysis' first decision, and one past the last."""
        return [0] + np.cumsum(self._dec_counts).tolist()

    def _stored(self, blobs, runs, n, name, per_blob=None):
        return blobs.gathered(name, runs, per_blob) if runs is not None else blobs.column(name, per_blob)[:n]

    def stored_decisions(self, name: str) -> np.ndarray:
        return self._stored(self._dec, self._dec_gather, self.n_decisions, name)

    def _position_ids(self) -> np.ndarray:
        return self.stored_decisions("position")

    def _distinct_positions(self) -> tuple:
        """:func:`distinct_positions` of the selection's decisions, worked
        out blob by blob as each is decompressed: each blob's distinct IDs
        and its rows' indices among them (int32), then those lists merged;
        never the 16-byte IDs of every decision at once (25 MB at 1.6 M
        decisions, and the sort's keys beside them) when the selection holds
        most of the bundles' rows.  The same two results."""
        if self._positions is not None:
            return self._positions
        if 2 * self.n_decisions < int(self._dec.rows.sum()):
            # a few of the bundles' rows (a player's matches): their IDs are small; sorting every row
            # of the blobs holding them would cost more than it saves
            self._positions = distinct_positions(self._position_ids())
            return self._positions
        uniques, offsets = [], [0]

        def local(_k, ids):
            uniq, inverse = _unique_ids(np.asarray(ids, dtype="S16"))
            uniques.append(uniq)
            offsets.append(offsets[-1] + len(uniq))
            return (inverse + offsets[-2]).astype(np.int32)

        at = self._stored(self._dec, self._dec_gather, self.n_decisions, "position", local)
        if not uniques:
            self._positions = distinct_positions(np.zeros(0, dtype="S16"))
            return self._positions
        joined = np.concatenate(uniques)
        used = np.zeros(len(joined), dtype=bool)
        used[at] = True  # a blob's IDs of rows outside the selection are not the selection's
        ids, remap = _unique_ids(joined[used])
        index = np.full(len(joined), -1, dtype=np.int64)
        index[np.flatnonzero(used)] = remap
        has_empty = bool(len(ids)) and ids[0] == b""
        self._positions = ((index[at] - (1 if has_empty else 0)).astype(np.int32),
                           [p.decode() for p in (ids[1:] if has_empty else ids)])
        return self._positions

    def decision_column(self, name: str) -> np.ndarray:
        if name == "match":
            return np.repeat(np.arange(len(self._dec_counts), dtype=np.int32), self._dec_counts)
        if name == "position":
            return self._distinct_positions()[0]
        if name == "position_id":
            return self.stored_decisions("position")
        if name == "comment":
            col = np.empty(self.n_decisions, dtype=object)
            for k, text in self.comments.items():
                col[k] = text
            return col
        return self.stored_decisions(name)

    def decision_values_at(self, name: str, rows) -> np.ndarray:
        """``decision_column(name)[rows]`` read from the blobs holding those
        rows alone, one blob decompressed at a time: a list of a few
        decisions does not make a whole column (a stored ID is 16 bytes a
        decision)."""
        rows = np.asarray(rows, dtype=np.int64)
        stored = "position" if name == "position_id" else name  # "position": the index of the distinct IDs
        if name in ("position", "match", "comment") or stored not in self._dec.column_of or not len(rows):
            return self.decision_column(name)[rows]
        at = rows
        if self._dec_gather is not None:  # the selection's rows among the bundles' rows end to end
            runs = np.asarray(self._dec_gather, dtype=np.int64).reshape(-1, 2)
            lengths = runs[:, 1] - runs[:, 0]
            starts = np.concatenate([[0], np.cumsum(lengths)])
            j = np.searchsorted(starts, rows, side="right") - 1
            at = runs[j, 0] + rows - starts[j]
        bounds = np.concatenate([[0], np.cumsum(self._dec.rows)])
        blob = np.searchsorted(bounds, at, side="right") - 1
        out = None
        for k in np.flatnonzero(np.bincount(blob)).tolist():  # np.unique would import numpy.ma (7 ms)
            here = blob == k
            part = self._dec._part(k, stored)
            if out is None:
                out = np.empty(len(rows), dtype=part.dtype)
            out[here] = part[at[here] - bounds[k]]
            del part
        return out

    def roll_column(self, name: str) -> np.ndarray:
        if name == "match":
            return np.repeat(np.arange(len(self._roll_counts), dtype=np.int32), self._roll_counts)
        return self._stored(self._rolls, self._roll_gather, self.n_rolls, name)

    def subset(self, rows: np.ndarray) -> "SubsetReader":
        return SubsetReader(self, rows)


class SubsetReader(_DistinctPositions):
    """The decisions ``rows`` of a :class:`CacheReader` (no rolls), with
    their own distinct positions: a view that keeps the errors of 10,000
    matches sorts the positions of those alone."""

    def __init__(self, parent: CacheReader, rows: np.ndarray):
        self._parent, self._rows = parent, rows
        self.n_decisions = len(rows)

    def _position_ids(self) -> np.ndarray:
        return self._parent.stored_decisions("position")[self._rows]

    def decision_column(self, name: str) -> np.ndarray:
        if name == "position":
            return self._distinct_positions()[0]
        return self._parent.decision_column(name)[self._rows]

    def decision_values_at(self, name: str, rows) -> np.ndarray:
        if name == "position":
            return self._distinct_positions()[0][rows]
        return self._parent.decision_values_at(name, self._rows[np.asarray(rows, dtype=np.int64)])
