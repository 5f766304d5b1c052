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
:meth:`gnubg_blunder.metrics.arrays.Columns.lazy`).  Why bundles: a column
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

CACHE_FORMAT = 7  # 6: the first column layout; 7: row ids stored as differences
BUNDLE_DECISIONS = 200_000  # bundles are not merged beyond about this many decisions
MERGE_FANOUT = 8  # eight bundles of one size class make one of the next
# columns stored as the difference from the row before (the first as it is):
# decision ids run 1 by 1 within an analysis, which then compress to nothing
DELTA_COLUMNS = frozenset({"row_id"})


def _stored_bytes(name: str, col: np.ndarray) -> bytes:
    col = np.ascontiguousarray(col)
    if name in DELTA_COLUMNS and len(col):
        col = np.diff(col, prepend=col.dtype.type(0))
    return col.tobytes()


def _column_values(name: str, raw, dtype) -> np.ndarray:
    col = np.frombuffer(raw, dtype=dtype)
    return np.cumsum(col, dtype=dtype) if name in DELTA_COLUMNS else col
_HEAD = struct.Struct("<IH")  # rows, columns


def encode_columns(records: np.ndarray) -> bytes:
    """A record array as one blob: header, then each field compressed apart."""
    names = records.dtype.names
    payloads = [lz4.block.compress(_stored_bytes(n, records[n])) for n in names]
    return (_HEAD.pack(len(records), len(names)) + struct.pack(f"<{len(names)}I", *map(len, payloads))
            + b"".join(payloads))


def _layout(blob) -> tuple:
    """(rows, offsets of each column's payload, one past the last)."""
    rows, k = _HEAD.unpack_from(blob)
    lengths = struct.unpack_from(f"<{k}I", blob, _HEAD.size)
    offsets = np.cumsum((_HEAD.size + 4 * k,) + lengths)
    if offsets[-1] != len(blob):
        raise ValueError(f"a cache blob of {len(blob)} bytes declares {int(offsets[-1])}")
    return rows, offsets


def decode_columns(blob, dtype: np.dtype) -> np.ndarray:
    """The record array :func:`encode_columns` made (ValueError when the
    blob is not one of ``dtype``'s: another layout, truncated, garbled)."""
    blob = memoryview(blob)
    try:
        rows, offsets = _layout(blob)
        if len(offsets) - 1 != len(dtype.names):
            raise ValueError(f"{len(offsets) - 1} columns, the format has {len(dtype.names)}")
        out = np.zeros(rows, dtype=dtype)
        for name, lo, hi in zip(dtype.names, offsets, offsets[1:]):
            raw = lz4.block.decompress(blob[lo:hi])
            if len(raw) != rows * dtype[name].itemsize:
                raise ValueError(f"column {name}: {len(raw)} bytes for {rows} rows")
            out[name] = _column_values(name, raw, dtype[name])
    except (struct.error, lz4.block.LZ4BlockError) as exc:
        raise ValueError(str(exc)) from None
    return out


def checksum(dec, rol, comments) -> int:
    crc = zlib.crc32(rol, zlib.crc32(dec))
    return zlib.crc32((comments or "").encode(), crc)


def seal(dec: bytes, rol: bytes, comments) -> bytes:
    """The decisions blob as stored: the CRC-32 of the analysis' whole
    cache (decision columns, roll columns, the list of commented decisions)
    ahead of the columns, so that a damaged cache is refused, never
    computed from."""
    return checksum(dec, rol, comments).to_bytes(4, "little") + dec


def unseal(dec, rol, comments) -> Optional[memoryview]:
    """The decision columns of a stored cache, or None when its checksum differs."""
    view = memoryview(dec)
    if len(view) < 4 or int.from_bytes(view[:4], "little") != checksum(view[4:], rol, comments):
        return None
    return view[4:]


def encode_bundle(parts: list) -> tuple:
    """The stored row of a bundle: (sealed decisions blob, rolls blob,
    manifest) from ``parts`` [(analysis id, decision records, roll records,
    indices of its commented decisions)], in that order."""
    dec = encode_columns(np.concatenate([p[1] for p in parts]))
    rol = encode_columns(np.concatenate([p[2] for p in parts]))
    manifest = json.dumps({
        "analyses": [int(p[0]) for p in parts],
        "decisions": [len(p[1]) for p in parts],
        "rolls": [len(p[2]) for p in parts],
        "commented": {str(i): [int(k) for k in p[3]] for i, p in enumerate(parts) if len(p[3])},
    }, separators=(",", ":"))
    return seal(dec, rol, manifest), rol, manifest


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
    when it cannot be read; the checksum is not checked here: ``unseal``)."""
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
    uniq, inverse = np.unique(ids, return_inverse=True)
    has_empty = bool(len(uniq)) and uniq[0] == b""
    return (inverse.astype(np.int32).reshape(-1) - (1 if has_empty else 0),
            [p.decode() for p in (uniq[1:] if has_empty else uniq)])


class _Blobs:
    """Blobs of one layout (every analysis' decisions, or rolls), in the
    selection's order: each column decompressed on demand, end to end."""

    def __init__(self, blobs: list, dtype: np.dtype):
        self.blobs, self.dtype = blobs, dtype
        k = len(dtype.names)
        head = np.dtype([("rows", "<u4"), ("k", "<u2"), ("lengths", "<u4", (k,))])  # packed: 6 + 4k bytes
        heads = np.frombuffer(b"".join(bytes(b[:head.itemsize]) for b in blobs), dtype=head) if blobs else \
            np.zeros(0, dtype=head)
        sizes = np.array([len(b) for b in blobs], dtype=np.int64)
        if len(heads) != len(blobs) or np.any(heads["k"] != k):
            raise ValueError(f"a cache blob of another layout (the format has {k} columns)")
        self.rows = heads["rows"].astype(np.int64)
        self.offsets = np.zeros((len(blobs), k + 1), dtype=np.int64)
        self.offsets[:, 0] = head.itemsize
        np.cumsum(heads["lengths"], axis=1, out=self.offsets[:, 1:])
        self.offsets[:, 1:] += head.itemsize
        if np.any(self.offsets[:, -1] != sizes):
            raise ValueError("a cache blob's size differs from what its header declares")
        self.column_of = {name: j for j, name in enumerate(dtype.names)}

    def column(self, name: str) -> np.ndarray:
        j = self.column_of[name]
        dtype = self.dtype[name]
        decompress = lz4.block.decompress
        parts = [decompress(b[lo:hi]) for b, lo, hi
                 in zip(self.blobs, self.offsets[:, j].tolist(), self.offsets[:, j + 1].tolist())]
        if sum(map(len, parts)) != int(self.rows.sum()) * dtype.itemsize:
            raise ValueError(f"column {name}: {sum(map(len, parts))} bytes for {int(self.rows.sum())} rows")
        if name in DELTA_COLUMNS:  # each blob's differences start from 0
            return np.concatenate([_column_values(name, p, dtype) for p in parts]) if parts else \
                np.zeros(0, dtype=dtype)
        return np.frombuffer(bytearray().join(parts), dtype=dtype)


def gather(starts, counts) -> Optional[np.ndarray]:
    """The row indices of runs (``starts``, ``counts``) end to end; None
    when that is every row in order (no copy needed)."""
    starts, counts = np.asarray(starts, dtype=np.int64), np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    ends = np.cumsum(counts)
    if len(starts) and np.array_equal(starts, ends - counts):
        return None  # the runs are consecutive from 0: every row, in order (the caller checks the total)
    return np.repeat(starts - (ends - counts), counts) + np.arange(total, dtype=np.int64)


class CacheReader:
    """The cached columns of the analyses of a selection (one per match, in
    the selection's order), read column by column from the bundles holding
    them.  ``decision_column`` and ``roll_column`` give the columns
    :class:`DecisionArrays` and :class:`RollArrays` name: ``match`` (index
    of the analysis), ``position`` (index into :meth:`positions`),
    ``comment`` (the texts of ``comments``, {index of a decision: its
    text}, which the store reads from the rows) and the stored ones.
    ``dec_runs``/``roll_runs``: (first row in the bundles' columns end to
    end, number of rows) of each selected analysis."""

    def __init__(self, dec_blobs: list, roll_blobs: list, dec_dtype, roll_dtype, dec_runs, roll_runs):
        self._dec = _Blobs(dec_blobs, dec_dtype)
        self._rolls = _Blobs(roll_blobs, roll_dtype)
        self._dec_counts = np.array([n for _, n in dec_runs], dtype=np.int64)
        self._roll_counts = np.array([n for _, n in roll_runs], dtype=np.int64)
        self._dec_gather = gather([s for s, _ in dec_runs], self._dec_counts)
        self._roll_gather = gather([s for s, _ in roll_runs], self._roll_counts)
        self.n_decisions = int(self._dec_counts.sum())
        self.n_rolls = int(self._roll_counts.sum())
        self.comments = {}
        self._positions = None

    def decision_starts(self) -> list:
        """Index of each analysis' first decision, and one past the last."""
        return [0] + np.cumsum(self._dec_counts).tolist()

    def _stored(self, blobs, gathered, n, name):
        col = blobs.column(name)
        return col[gathered] if gathered is not None else col[:n]

    def stored_decisions(self, name: str) -> np.ndarray:
        return self._stored(self._dec, self._dec_gather, self.n_decisions, name)

    def _distinct_positions(self):
        if self._positions is None:
            self._positions = distinct_positions(self.stored_decisions("position"))
        return self._positions

    def positions(self) -> list:
        return self._distinct_positions()[1]

    def decision_column(self, name: str) -> np.ndarray:
        if name == "match":
            return np.repeat(np.arange(len(self._dec_counts), dtype=np.int32), self._dec_counts)
        if name == "position":
            return self._distinct_positions()[0]
        if name == "comment":
            col = np.empty(self.n_decisions, dtype=object)
            for k, text in self.comments.items():
                col[k] = text
            return col
        return self.stored_decisions(name)

    def roll_column(self, name: str) -> np.ndarray:
        if name == "match":
            return np.repeat(np.arange(len(self._roll_counts), dtype=np.int32), self._roll_counts)
        return self._stored(self._rolls, self._roll_gather, self.n_rolls, name)

    def subset(self, rows: np.ndarray) -> "SubsetReader":
        return SubsetReader(self, rows)


class SubsetReader:
    """The decisions ``rows`` of a :class:`CacheReader` (no rolls), with
    their own distinct positions: a view that keeps the errors of 10,000
    matches sorts the positions of those alone."""

    def __init__(self, parent: CacheReader, rows: np.ndarray):
        self._parent, self._rows = parent, rows
        self.n_decisions = len(rows)
        self._positions = None

    def _distinct_positions(self):
        if self._positions is None:
            self._positions = distinct_positions(self._parent.stored_decisions("position")[self._rows])
        return self._positions

    def positions(self) -> list:
        return self._distinct_positions()[1]

    def decision_column(self, name: str) -> np.ndarray:
        if name == "position":
            return self._distinct_positions()[0]
        return self._parent.decision_column(name)[self._rows]
