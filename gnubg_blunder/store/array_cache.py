"""The array cache: each analysis' decisions and rolls as compressed columns,
in bundles of analyses (store/column_cache.py), built, merged and read."""

from __future__ import annotations

import sqlite3

import numpy as np

from ..arrays import BLOT_COLUMNS, KIND_CODES, LABELS, DecisionArrays, RollArrays
from .damage import CHECK_HINT, DamagedDatabase
from .column_cache import (BUNDLE_DECISIONS, CACHE_FORMAT, BlobSource, decode_bundle, encode_bundle, header_size,
                           merges, read_manifest, sealed)
from .connection import _rollback, write_transaction
from .boards import wrong_play_results


# The array cache's format: bump when the columns change.  2: the dice of
# each decision; 3: comments stay in their rows (the cache lists which), a
# checksum; 4: difficulty, its truncation, duration; 5: the blots of the boards
# each wrong checker play left and its best play leaves (``_pack_blots``);
# 6: column by column, each compressed, in bundles of analyses
# (store/column_cache.py); 7: decision ids stored as differences.
ARRAYS_FORMAT = CACHE_FORMAT


def _sql_text(text: str) -> str:
    """A SQL string literal (for label names in CASE expressions)."""
    return "'" + str(text).replace("'", "''") + "'"


def _close_sources(sources: dict, conn=None) -> None:
    """Close a read's blob handles, and ``conn``, its own connection."""
    for pair in sources.values():
        for src in pair:
            try:
                src.close()
            except sqlite3.Error:
                pass  # its connection closed already
    if conn is not None:
        conn.close()


def _counted_flags(records: np.ndarray, counted_by_rule) -> np.ndarray:
    """SPEC §2's counted flag of an analysis' cached decisions (1/0), kept
    beside them so that a view reads one small column instead of the ten
    the rule reads (``counted_by_rule``: the store's derived rule,
    store/derived.py, metrics/counting.py's)."""
    names = [n for n in records.dtype.names if n in DecisionArrays.SPEC and n not in ("position", "counted")]
    return counted_by_rule(DecisionArrays(**{n: records[n] for n in names})).astype(np.int8)


def _damaged_bundle(key) -> DamagedDatabase:
    """What a selection says of a bundle whose seal differs (read from its row or its blob handles)."""
    return DamagedDatabase(f"the array cache of analysis {key} is damaged (its checksum differs): "
                           f"no figure was computed from it. {CHECK_HINT}")


# {(file identity, bundle key): (the bundle's seal, its parsed manifest, its text)}: the array cache's manifests
# parsed once per process (SQLiteStore._sealed_manifests; every bdb.store() opens a new store).
_MANIFESTS: dict = {}



class ArrayCache:
    """The array cache of a store (:class:`~.sqlite.SQLiteStore`'s fourth part)."""

    # -- the array cache (store/column_cache.py) ------------------------------
    # (array column, SQL expression); integers never NULL in SQL, floats NULL -> NaN
    def _column_spec(self) -> list:
        def case(column, names):
            whens = " ".join(f"WHEN {_sql_text(n)} THEN {k}" for k, n in enumerate(names))
            return f"CASE {column} {whens} ELSE -1 END"

        return [
            ("game", "d.game"), ("seq", "d.seq"), ("player", "d.player"),
            ("kind", case("d.kind", list(KIND_CODES))), ("error", "d.error"),
            ("mwc_per_emg", "d.mwc_per_emg"), ("nd", "d.nd"), ("dt", "d.dt"), ("dp", "d.dp"),
            ("n_legal", "COALESCE(d.n_legal, -1)"), ("n_candidates", "d.n_candidates"),
            ("equity_spread", "d.equity_spread"), ("xg_counted", "COALESCE(d.xg_counted, -1)"),
            ("beaver_take", "d.beaver_take"), ("gnubg_dead_cube", "d.gnubg_dead_cube"), ("row_id", "d.id"),
            ("score_self", "d.score_self"), ("score_opp", "d.score_opp"), ("crawford", "d.crawford"),
            ("cube_value", "d.cube_value"),
            ("dice", "COALESCE(MAX(d.dice1, d.dice2) * 10 + MIN(d.dice1, d.dice2), -1)"), ("phase", case("d.phase", LABELS["phase"])),
            ("game_plan", case("d.game_plan", LABELS["game_plan"])), ("theme", case("d.theme", LABELS["theme"])),
            ("difficulty", "d.difficulty"), ("difficulty_truncated", "COALESCE(d.difficulty_truncated, -1)"),
            ("duration", "d.duration"),
        ]

    def _record_dtypes(self):
        spec = self._column_spec()
        dec = np.dtype([(name, DecisionArrays.SPEC[name][0]) for name, _ in spec] + [("position", "S16")]
                       + [(name, np.int8) for name in BLOT_COLUMNS] + [("counted", np.int8)])
        rol = np.dtype([(name, RollArrays.SPEC[name][0]) for name in ("game", "seq", "player", "luck", "mwc_per_emg")])
        return spec, dec, rol

    def _pack_records(self, analysis_id: int) -> tuple:
        """The analysis' cached decisions and rolls as record arrays, read
        from its rows, and the indices of its decisions that have a comment
        (a comment's text is stored once, in its decisions row: ``_arrays``
        reads it from there)."""
        spec, dec_dtype, roll_dtype = self._record_dtypes()
        rows = self.conn.execute(
            "SELECT " + ", ".join(e for _, e in spec) + ", COALESCE(d.position_id, ''), "
            "d.comment IS NOT NULL AND d.comment != '' "
            "FROM decisions d WHERE d.analysis_id = ? ORDER BY d.game, d.seq, d.id", (analysis_id,)
        ).fetchall()
        dec = np.zeros(len(rows), dtype=dec_dtype)
        if rows:
            cols = list(zip(*rows))
            for (name, _), values in zip(spec, cols):
                dtype = DecisionArrays.SPEC[name][0]
                dec[name] = np.array(values, dtype=np.float64 if dtype == np.float64 else dtype)
            dec["position"] = np.array(cols[-2], dtype="S16")
            comments = [k for k, has in enumerate(cols[-1]) if has]
            self._pack_blots(analysis_id, dec)
            dec["counted"] = _counted_flags(dec, self.rules.counted_by_rule)
        else:
            comments = []
        rrows = self.conn.execute(
            "SELECT game, seq, player, luck, mwc_per_emg FROM rolls WHERE analysis_id = ? ORDER BY game, seq",
            (analysis_id,),
        ).fetchall()
        rol = np.zeros(len(rrows), dtype=roll_dtype)
        if rrows:
            for name, values in zip(roll_dtype.names, zip(*rrows)):
                rol[name] = np.array(values, dtype=np.float64 if rol.dtype[name] == np.float64 else rol.dtype[name])
        return dec, rol, comments

    def _pack_blots(self, analysis_id: int, dec: np.ndarray) -> None:
        """The blots the analysis' wrong checker plays (e > 0) leave, for the
        blot bias (SPEC §12; counted by the store's derived rule, metrics/biases.py's): ``blots_played``, the
        blots of the player on roll on the board the played move left, -1
        where that board is not one of the candidates' (not reproduced) or
        unknown; ``blots_best``, on the board of the analysis' first
        candidate, -1 unknown; -1 for every other decision.  The boards are
        read as :func:`boards.checker_results` reads them (one query)."""
        for name in BLOT_COLUMNS:
            dec[name] = -1
        results = wrong_play_results(self.conn, analysis_id)
        if not results:
            return
        where = {int(r): k for k, r in enumerate(dec["row_id"].tolist())}
        idx = np.array([where[r] for r in results], dtype=np.int64)
        got = list(results.values())
        blots = self.rules.blots_on_roll([g[0] for g in got] + [g[2] for g in got])  # one decoding for both boards
        dec["blots_played"][idx] = np.where([g[1] for g in got], blots[:len(got)], -1)
        dec["blots_best"][idx] = blots[len(got):]

    # -- the array cache: bundles of analyses (store/column_cache.py) ------------
    def _bundles(self, conn=None) -> dict:
        """{key: manifest} of the cache's bundles of this format (a bundle
        whose manifest cannot be read covers nothing: rebuilt, ``check``
        names it)."""
        conn = conn or self.conn
        if self.opened_file is not None:  # a file's identity: SQLite's store, opened from a file
            return self._sealed_manifests(conn)
        out, seen = {}, self._manifests
        for key, text in conn.execute(
                "SELECT analysis_id, comments FROM analysis_arrays WHERE format = ?", (ARRAYS_FORMAT,)):
            if key in seen and seen[key][0] == text:  # parsed before (a select asks twice): the same text
                out[key] = seen[key][1]
                continue
            try:
                out[key] = read_manifest(text)
            except ValueError:
                continue
            seen[key] = (text, out[key])
        return out

    def _sealed_manifests(self, conn, wanted=None) -> dict:
        """:meth:`_bundles` of a file, its manifests parsed once per process:
        a manifest lies after its bundle's columns in the row, so reading it
        walks the whole row (every manifest: the cache's every byte, 26 ms
        at 10,000 matches, at each store and each selection: what grew with
        the file, issue 29).  Each bundle's seal — the first 4 bytes of its
        decisions blob, read through a blob handle from the row's first
        page, a CRC-32 over its headers and manifest — says whether the
        manifest parsed before is still the one stored; only the others are
        read.  The seal itself is checked when a bundle is read
        (:meth:`_read_bundles`).  With ``wanted`` (analysis ids), the other
        bundles are not read once the known ones hold them all (an analysis
        lies in one bundle): a store's summary and review find the bundle
        this process has just written (:meth:`_write_bundle`)."""
        keys = [k for (k,) in conn.execute("SELECT analysis_id FROM analysis_arrays WHERE format = ?",
                                           (ARRAYS_FORMAT,)).fetchall()]
        out, unread, seals = {}, [], {}
        for key in keys:
            try:
                with conn.blobopen("analysis_arrays", "decisions", key, readonly=True) as blob:
                    seals[key] = blob.read(4)
            except sqlite3.Error:
                seals[key] = None  # another process dropped it meanwhile, or no blob: read below
            known = _MANIFESTS.get((self.opened_file, key))
            if known is not None and seals[key] is not None and known[0] == seals[key]:
                out[key] = known[1]
            else:
                unread.append(key)
        if wanted is not None and unread:
            held = set().union(*(man["analyses"] for man in out.values())) if out else set()
            if held.issuperset(wanted):
                return out
        for start in range(0, len(unread), 900):
            part = unread[start:start + 900]
            for key, text in conn.execute(
                    f"SELECT analysis_id, comments FROM analysis_arrays WHERE format = ? AND analysis_id IN "
                    f"({','.join('?' * len(part))})", (ARRAYS_FORMAT, *part)):
                try:
                    out[key] = read_manifest(text)
                except ValueError:
                    continue
                if seals.get(key) is not None:
                    _MANIFESTS[(self.opened_file, key)] = (seals[key], out[key], text)
        return out

    def _bundles_holding(self, ids, conn=None) -> dict:
        """{key: manifest} of the bundles holding any of the analyses ``ids``."""
        wanted = set(ids)
        conn = conn or self.conn
        if self.opened_file is not None:
            found = self._sealed_manifests(conn, wanted)
        else:
            found = self._bundles(conn)
        return {key: man for key, man in found.items() if wanted.intersection(man["analyses"])}

    @staticmethod
    def _coverage(bundles: dict) -> dict:
        """{analysis id: (bundle key, its place in the bundle)}."""
        return {a: (key, i) for key, man in bundles.items() for i, a in enumerate(man["analyses"])}

    def _selection_order(self, ids=None) -> dict:
        """{analysis id: its place in the order ``select`` reads matches
        (date, import time, match id; then the analysis id)}: a bundle
        keeps its analyses in that order, and a bundle built from many
        analyses holds a stretch of it, so that a selection reads long runs
        of rows as they lie (column_cache.gather).  ``ids``: of those
        analyses only (a merge's: not every analysis' row at each store)."""
        sql = ("SELECT a.id, COALESCE(m.date, '9999'), m.imported_at, m.id, a.id FROM analyses a "
               "JOIN matches m ON m.id = a.match_id")
        if ids is None:
            return {a: key for a, *key in self.conn.execute(sql)}
        ids, out = sorted(set(ids)), {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            out.update((a, key) for a, *key in self.conn.execute(
                f"{sql} WHERE a.id IN ({','.join('?' * len(part))})", part))
        return out

    def _write_bundle(self, parts: list) -> int:
        """Store ``parts`` [(analysis id, decisions, rolls, commented)] as one
        bundle keyed by its smallest analysis id, the analyses in the order
        selections read them (:meth:`_selection_order`), inside the caller's
        transaction."""
        key = min(p[0] for p in parts)
        if len(parts) > 1:
            order = self._selection_order(p[0] for p in parts)
            parts = sorted(parts, key=lambda p: order.get(p[0], (p[0],)))
        dec, rol, manifest = encode_bundle(parts)
        self.conn.execute(
            "INSERT INTO analysis_arrays(analysis_id, format, decisions, rolls, comments) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(analysis_id) DO UPDATE SET format=excluded.format, decisions=excluded.decisions, "
            "rolls=excluded.rolls, comments=excluded.comments",
            (key, ARRAYS_FORMAT, dec, rol, manifest),
        )
        if self.opened_file is not None:
            # known to this process by its seal (_sealed_manifests): not read back by the next selection
            _MANIFESTS[(self.opened_file, key)] = (bytes(dec[:4]), read_manifest(manifest), manifest)
        return key

    def _store_arrays(self, analysis_id: int) -> None:
        """The cache of one analysis just stored (a bundle of its own), then
        small bundles merged (inside the caller's transaction)."""
        self._write_bundle([(analysis_id, *self._pack_records(analysis_id))])
        self._merge_bundles()

    def _merge_bundles(self) -> None:
        """Eight small bundles of one size class merged into one
        (column_cache.merges), inside the caller's transaction."""
        # each bundle's decisions, from its header (decision rows, uint32 after the seal): no manifest parsed
        if self.dialect.blob_reads_are_cheap:
            # 4 bytes read through a blob handle: substr() of a blob reads the whole blob (the cache's every
            # byte at each store: what grew with the file, issue 29)
            sizes = {}
            for (key,) in self.conn.execute("SELECT analysis_id FROM analysis_arrays WHERE format = ?",
                                            (ARRAYS_FORMAT,)).fetchall():
                with self.conn.blobopen("analysis_arrays", "decisions", key, readonly=True) as blob:
                    blob.seek(4)
                    sizes[key] = int.from_bytes(blob.read(4), "little")
        else:
            sizes = {key: int.from_bytes(rows, "little") for key, rows in self.conn.execute(
                "SELECT analysis_id, substr(decisions, 5, 4) FROM analysis_arrays WHERE format = ?",
                (ARRAYS_FORMAT,))}
        groups = merges(sizes)
        if not groups:
            return
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        for group in groups:
            parts = []
            for key in group:
                row = self.conn.execute("SELECT decisions, rolls, comments FROM analysis_arrays WHERE analysis_id = ?",
                                        (key,)).fetchone()
                try:
                    if row is None or not sealed(row[0], row[1], row[2], dec_dtype, roll_dtype):
                        raise ValueError("its seal differs")
                    parts += decode_bundle(*row, dec_dtype, roll_dtype)
                except ValueError:
                    parts = None  # damaged: left for the reader to refuse and `check` to repair
                    break
            if parts is None:
                continue
            self.conn.executemany("DELETE FROM analysis_arrays WHERE analysis_id = ?", [(k,) for k in group])
            self._write_bundle(parts)

    def _ensure_arrays(self, analysis_ids, progress=None) -> None:
        """Build the cache of analyses that have none (older databases, new
        formats, relabelled decisions): bundles of up to
        ``BUNDLE_DECISIONS`` decisions, in one transaction.  ``progress(n)``
        is told each bundle's number of analyses as it is written."""
        analysis_ids = list(analysis_ids)
        covered = self._coverage(self._bundles_holding(analysis_ids))
        if all(a in covered for a in analysis_ids):
            return
        with write_transaction(self.conn):
            self.conn.execute("DELETE FROM analysis_arrays WHERE format != ?", (ARRAYS_FORMAT,))
            covered = self._coverage(self._bundles())  # again: another process may have built them meanwhile
            def write(parts):
                self._write_bundle(parts)
                if progress is not None:
                    progress(len(parts))

            parts, size = [], 0
            order = self._selection_order()
            for a in sorted(set(analysis_ids) - set(covered), key=lambda a: order.get(a, (a,))):
                parts.append((a, *self._pack_records(a)))
                size += len(parts[-1][1])
                if size >= BUNDLE_DECISIONS:
                    write(parts)
                    parts, size = [], 0
            if parts:
                write(parts)
            self._merge_bundles()
        if self._compact_pending:
            self._compact_pending = False
            self.dialect.compact_after_upgrade(self)

    def _read_bundles(self, ids) -> tuple:
        """({key: manifest}, {key: (decisions source, rolls source)}, the
        connection to close with them or None) of the bundles holding the
        analyses ``ids``: their manifests and headers read and their seals
        checked, their columns left in the file behind open blob handles
        (:class:`column_cache.BlobSource`), all in one snapshot (a merge by
        another process is seen whole or not at all; the handles keep that
        snapshot until they are closed)."""
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        n, m = header_size(dec_dtype), header_size(roll_dtype)
        wanted = set(ids)
        conn, owned = self.dialect.snapshot_connection(self)
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")
        sources = {}
        try:
            mans = self._bundles_holding(wanted, conn)
            keys = sorted(mans)
            if self.dialect.blob_reads_are_cheap:
                self._open_bundles(conn, keys, mans, n, m, dec_dtype, roll_dtype, sources)
            else:  # PostgreSQL: each blob handle's read is a query; the headers come with the rows
                for start in range(0, len(keys), 900):
                    part = keys[start:start + 900]
                    for key, d, r, cm in conn.execute(
                        f"SELECT analysis_id, substr(decisions, 1, {4 + n}), substr(rolls, 1, {m}), comments "
                        f"FROM analysis_arrays WHERE analysis_id IN ({','.join('?' * len(part))}) AND format = ?",
                        part + [ARRAYS_FORMAT],
                    ):
                        if not sealed(d, r, cm, dec_dtype, roll_dtype):
                            raise _damaged_bundle(key)
                        sources[key] = (
                            BlobSource(d[4:], conn.blobopen("analysis_arrays", "decisions", key, readonly=True), 4),
                            BlobSource(r, conn.blobopen("analysis_arrays", "rolls", key, readonly=True)))
        except BaseException:
            if own:
                _rollback(conn)
            _close_sources(sources, conn if owned else None)
            raise
        if own:
            self.dialect.end_snapshot(self, conn, owned)
        return mans, sources, conn if owned else None

    def _open_bundles(self, conn, keys, mans, n, m, dec_dtype, roll_dtype, sources) -> None:
        """:meth:`_read_bundles`' blob handles on SQLite, into ``sources``:
        each bundle's headers read through its handles (``substr()`` of a
        blob reads the whole blob: every bundle's columns, 30-70 ms at
        10,000 matches, before a column was asked for), and its manifest's
        text from this process' parse of it when the seal read in this
        snapshot is the one parsed (:meth:`_sealed_manifests`: the
        manifest lies after the columns, and reading it walks the whole
        row); the others' read from the row.  The seal is checked as
        before, over the headers and the manifest's text."""
        texts = {}
        for key in keys:
            known = _MANIFESTS.get((self.opened_file, key)) if self.opened_file is not None else None
            if known is not None and known[1] is mans[key]:
                texts[key] = known[2]
        current = set()
        for start in range(0, len(keys), 900):
            part = keys[start:start + 900]
            args = part + [ARRAYS_FORMAT]
            marks = ",".join("?" * len(part))
            current.update(k for (k,) in conn.execute(
                f"SELECT analysis_id FROM analysis_arrays WHERE analysis_id IN ({marks}) AND format = ?", args))
            unread = [k for k in part if k not in texts]
            if unread:
                texts.update(conn.execute(
                    f"SELECT analysis_id, comments FROM analysis_arrays WHERE analysis_id IN "
                    f"({','.join('?' * len(unread))}) AND format = ?", unread + [ARRAYS_FORMAT]))
        for key in keys:
            if key not in current:
                continue  # dropped by another process meanwhile: not covered, read again (_arrays)
            dec = conn.blobopen("analysis_arrays", "decisions", key, readonly=True)
            try:
                rol = conn.blobopen("analysis_arrays", "rolls", key, readonly=True)
            except BaseException:
                dec.close()
                raise
            sources[key] = (BlobSource(b"", dec, 4), BlobSource(b"", rol))
            d, r = dec.read(4 + n), rol.read(m)
            if not sealed(d, r, texts.get(key), dec_dtype, roll_dtype):
                raise _damaged_bundle(key)
            sources[key][0].head, sources[key][1].head = d[4:], r

