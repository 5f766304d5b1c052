"""Selecting decisions: the matches a filter keeps, one analysis each, their
decisions and rolls as arrays for the metrics (SPEC §14)."""

from __future__ import annotations

import dataclasses
import weakref
from typing import Optional

import numpy as np

from ..filters import Filter
from ..arrays import DecisionArrays, LazyPositions, MatchInfo, RollArrays, Selection
from ..text import closest_names
from .array_cache import _close_sources
from .damage import CHECK_HINT, DamagedDatabase
from .filter_sql import compile_filter
from .column_cache import CacheReader
from .schema import StoreError


class DecisionSelection:
    """What a filter selects (:class:`~.sqlite.SQLiteStore`'s third part)."""

    # -- reading -------------------------------------------------------------
    def _analyses_by_match(self, match_ids=None) -> dict:
        """{match id: its analyses}; of ``match_ids`` only, when given (a
        selection of a few matches reads their rows, not the database's)."""
        out: dict = {}
        sql, args = "SELECT id, match_id, engine, depth, depth_label, source FROM analyses", []
        if match_ids is not None:
            sql += f" WHERE match_id IN ({','.join('?' * len(match_ids)) or 'NULL'})"
            args = list(match_ids)
        for row in self.conn.execute(sql + " ORDER BY id", args):
            out.setdefault(row[1], []).append(
                {"id": row[0], "engine": row[2], "depth": row[3], "depth_label": row[4], "source": row[5]}
            )
        return out

    @staticmethod
    def choose_analysis(analyses: list, flt: Filter) -> Optional[dict]:
        """SPEC §14: the engine/depth filter picks; without it, the deepest
        (the first imported among equals)."""
        ok = [
            a for a in analyses
            if (flt.engine is None or a["engine"] == flt.engine)
            and (flt.min_depth is None or (a["depth"] is not None and a["depth"] >= flt.min_depth))
        ]
        if not ok:
            return None
        return max(ok, key=lambda a: (a["depth"] if a["depth"] is not None else -1, -a["id"]))

    # -- selecting ------------------------------------------------------------
    def select(self, flt: Optional[Filter] = None, match_ids=None, kind: str = "match", keep=None,
               choose=None) -> Selection:
        """The matches kept by ``flt`` (and among ``match_ids`` if given) with
        all their decisions and rolls (one analysis each), as arrays for the
        metrics.  ``kind`` "match" leaves out one-position files.  Player
        names are merged through the aliases.  ``keep``: only the decisions
        it keeps and no rolls (:meth:`select_rows`).  ``choose(stored)``:
        which of a match's stored analyses (dicts ``id``, ``engine``,
        ``depth``, ``depth_label``, ``source``) to read, None to leave the
        match out, instead of :meth:`choose_analysis` (``agreement``)."""
        flt = flt or Filter()
        if not self.labels_current():
            self.relabel(only_if_stale=True)
        aliases = self.aliases()

        def canon(name):
            return aliases.get((name or "").lower(), name)

        compiled = compile_filter(flt, kind, match_ids)  # each field's one rule (store/filter_sql.py)
        sql = (
            "SELECT id, player0, player1, length, date, event, round, winner, final_score0, final_score1, "
            "source, imported_at FROM matches"
        )
        if compiled.where:
            sql += " WHERE " + " AND ".join(compiled.where)
        sql += " ORDER BY COALESCE(date, '9999'), imported_at, id"
        # a few matches asked for (a store's summary and review): their rows only, not the database's (issue 29)
        few = [int(i) for i in match_ids] if match_ids is not None and len(match_ids) <= 900 else None
        analyses = self._analyses_by_match(few)
        wanted = canon(compiled.player).lower() if compiled.player else None
        any_analysis = compiled.any_analysis
        infos, sides = [], []
        for row in self.conn.execute(sql, compiled.args).fetchall():
            mid = row[0]
            names = (canon(row[1]), canon(row[2])) if aliases else (row[1], row[2])
            if wanted is not None and wanted not in (names[0].lower(), names[1].lower()):
                continue
            stored = analyses.get(mid, [])
            if choose is not None:
                chosen = choose(stored)
            else:
                chosen = stored[0] if any_analysis and len(stored) == 1 else self.choose_analysis(stored, flt)
            if chosen is None:
                continue
            infos.append(
                MatchInfo(
                    id=mid, players=(row[1], row[2]), length=row[3], date=row[4], event=row[5], round=row[6],
                    winner=row[7], final_score=(row[8], row[9]), n_games=0,
                    source=row[10], analysis_id=chosen["id"], engine=chosen["engine"],
                    depth=chosen["depth"], depth_label=chosen["depth_label"],
                    analyses=[{"engine": a["engine"], "depth": a["depth_label"]} for a in stored],
                    start_score=None, names=names, imported_at=row[11], analysis_source=chosen.get("source"),
                )
            )
            if wanted is not None:
                sides.append([n.lower() == wanted for n in names])
        if infos:  # each match's number of games and the score of its first (none read when no match is chosen)
            games = self._first_games(few)
            for info in infos:
                info.n_games, info.start_score = games.get(info.id, (0, None))
        if wanted is None:
            sides = np.ones((len(infos), 2), dtype=bool)
        sel = self._arrays(infos, np.array(sides, dtype=bool).reshape(-1, 2),
                           compiled.player and canon(compiled.player), keep=keep)
        if compiled.family:  # --family: only that study-plan family's decisions (SPEC §9: the store's derived rule)
            sel = self.rules.restrict_to_family(sel, compiled.family)
        if compiled.collection:  # --collection: only decisions at a position filed in it
            sel = self._restrict_to_collection(sel, compiled.collection)
        return sel

    def _first_games(self, few) -> dict:
        """{match id: (its number of games, (score0, score1, crawford) of
        its first)} of the matches ``few`` (ids), or of every match.
        :meth:`select` asks only when it chose a match (``agreement``'s
        second analyses of a database of one engine and depth: two
        selections of nothing in every report, each 0.05 s of this query
        over 10,000 matches)."""
        only = "" if few is None else f" WHERE match_id IN ({','.join('?' * len(few)) or 'NULL'})"
        return {mid: (n, (s0, s1, bool(cr))) for mid, n, s0, s1, cr in self.conn.execute(
            "SELECT g.match_id, f.n, g.score0, g.score1, g.crawford FROM games g JOIN "
            f"(SELECT match_id, COUNT(*) AS n, MIN(game) AS first FROM games{only} GROUP BY match_id) f "
            "ON f.match_id = g.match_id AND g.game = f.first", few or [])}

    def _restrict_to_collection(self, sel: Selection, name: str) -> Selection:
        """The ``--collection`` filter: the same matches, rolls and sides,
        only the decisions whose position is in the collection ``name``."""
        filed = self.collection_positions(name)
        if filed is None:


            near = closest_names(name, [c["name"] for c in self.collections()])
            hint = f" (closest names: {', '.join(near)})" if near else ""
            raise StoreError(f"no collection '{name}'{hint}: `gnubg-blunder collection list` lists them")
        wanted = {r["position_id"] for r in filed}
        keep_pos = np.array([p in wanted for p in sel.positions], dtype=bool)
        dec = sel.decisions
        if not len(dec):
            return sel
        pos = np.asarray(dec.position, dtype=np.int64)
        ok = (pos >= 0) & (pos < len(keep_pos))
        mask = np.zeros(len(pos), dtype=bool)
        mask[ok] = keep_pos[pos[ok]]
        return dataclasses.replace(sel, decisions=dec.take(mask), whole_analyses=False)

    def select_rows(self, flt: Optional[Filter], keep) -> Selection:
        """:meth:`select` holding only the decisions ``keep(decisions)``
        keeps (a bool mask over the selection's lazy ``DecisionArrays``)
        and no rolls: ``keep`` reads the columns it names, and the other
        columns are read for the kept rows alone, so a view that needs a
        few decisions of 10,000 matches (the reference positions: the
        errors) holds only those."""
        return self.select(flt, keep=keep)

    def _arrays(self, infos: list, sides: np.ndarray, player: Optional[str], keep=None) -> Selection:
        """The decisions and rolls of the chosen analyses, from the array
        cache, read lazily: the bundles holding them are fetched (and their
        checksums checked) here, a column is decompressed when a metric
        first reads it (:class:`column_cache.CacheReader`).  Comments are
        read from their rows, by id (the manifest says which decisions have
        one).  ``keep``: only the decisions ``keep(decisions)`` keeps (a
        bool mask over the lazy columns), no rolls."""
        _spec, dec_dtype, roll_dtype = self._record_dtypes()
        ids = [m.analysis_id for m in infos]
        for _attempt in range(3):
            if not ids:  # no match chosen: no bundle to read, no connection of its own to open
                mans, rows, conn, coverage = {}, {}, None, {}
                break
            # another process may merge or drop bundles between the build and
            # the read (a relabel after a rules change): build what is missing again
            self._ensure_arrays(ids)
            mans, rows, conn = self._read_bundles(ids)
            coverage = self._coverage(mans)
            if all(a in coverage for a in ids):
                break
            _close_sources(rows, conn)
        else:
            raise StoreError("the array cache kept changing while it was read (other processes relabelling): "
                             "run the command again")
        keys = sorted(rows)
        # each selected analysis' first row in the bundles' columns end to end (bundles in key order) and its
        # number of rows, as arrays: the entries of every bundle, flat, and the selection's among them
        dec_n = [np.asarray(mans[key]["decisions"], dtype=np.int64) for key in keys]
        roll_n = [np.asarray(mans[key]["rolls"], dtype=np.int64) for key in keys]
        sizes = [len(x) for x in dec_n]
        base_of = dict(zip(keys, np.cumsum([0] + sizes)[:-1].tolist()))
        dec_n = np.concatenate(dec_n) if keys else np.zeros(0, dtype=np.int64)
        roll_n = np.concatenate(roll_n) if keys else np.zeros(0, dtype=np.int64)
        flat = np.fromiter((base_of[key] + i for key, i in map(coverage.__getitem__, ids)), dtype=np.int64,
                           count=len(ids))
        dec_runs = np.stack([(np.cumsum(dec_n) - dec_n)[flat], dec_n[flat]], axis=1)
        roll_runs = np.stack([(np.cumsum(roll_n) - roll_n)[flat], roll_n[flat]], axis=1)
        commented = []
        noted = {base_of[key] + int(i): ks for key in keys for i, ks in mans[key]["commented"].items() if ks}
        if noted:
            at = np.cumsum(dec_runs[:, 1]) - dec_runs[:, 1]  # each selected analysis' first decision
            for p in np.flatnonzero(np.isin(flat, np.fromiter(noted, dtype=np.int64, count=len(noted)))).tolist():
                commented += [int(at[p]) + k for k in noted[int(flat[p])]]
        try:
            reader = CacheReader([rows[k][0] for k in keys], [rows[k][1] for k in keys], dec_dtype, roll_dtype,
                                 dec_runs, roll_runs)
        except ValueError as exc:
            _close_sources(rows, conn)
            raise DamagedDatabase(f"the array cache is damaged ({exc}): no figure was computed from it. "
                                  f"{CHECK_HINT}") from None
        weakref.finalize(reader, _close_sources, rows, conn)  # the handles live as long as the columns may be read
        if commented:
            row_ids = reader.stored_decisions("row_id")
            texts = self._comment_texts([int(row_ids[k]) for k in commented])
            reader.comments = {k: texts.get(int(row_ids[k])) for k in commented}
        if keep is None:
            dec = DecisionArrays.lazy(reader.n_decisions, reader.decision_column, load_at=reader.decision_values_at)
            rolls = RollArrays.lazy(reader.n_rolls, reader.roll_column)
            positions = LazyPositions(reader.positions)
        else:
            whole = DecisionArrays.lazy(reader.n_decisions, reader.decision_column)
            kept = reader.subset(np.nonzero(keep(whole))[0])
            dec = DecisionArrays.lazy(kept.n_decisions, kept.decision_column, load_at=kept.decision_values_at)
            rolls = RollArrays()
            positions = LazyPositions(kept.positions)
        return Selection(matches=infos, decisions=dec, rolls=rolls, sides=sides, player_filter=player,
                         positions=positions, whole_analyses=keep is None)

    def _comment_texts(self, row_ids) -> dict:
        """{decision id: its comment} (stored once, in the decisions row)."""
        out = {}
        for start in range(0, len(row_ids), 900):
            part = row_ids[start:start + 900]
            out.update(self.conn.execute(
                f"SELECT id, comment FROM decisions WHERE id IN ({','.join('?' * len(part))})", part))
        return out

    def decision_rows(self, row_ids) -> list:
        """Full rows of decisions (for drill-down lists and reviews), with
        their candidate list (JSON text) as ``candidates``."""
        ids = [int(i) for i in row_ids]
        if not ids:
            return []
        out = []
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            q = (f"SELECT d.*, c.candidates FROM decisions d LEFT JOIN decision_candidates c "
                 f"ON c.decision_id = d.id WHERE d.id IN ({','.join('?' * len(part))})")
            cur = self.conn.execute(q, part)
            cols = [x[0] for x in cur.description]
            out += [dict(zip(cols, r)) for r in cur.fetchall()]
        order = {i: k for k, i in enumerate(ids)}
        return sorted(out, key=lambda r: order.get(r["id"], 0))

