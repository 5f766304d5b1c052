"""Writing matches (one transaction a match; a match saved twice), players'
names and aliases, the derived labels.  docs/storage.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..codec.paths import stored_path
from ..model import Match, match_identity, match_moves, move_token, opening_keys
from ..codec import candidates as candidate_lists
from . import insert
from .damage import refuses_damage
from .connection import _rollback, write_transaction
from .insert import insert_analysis, insert_decisions
from .schema import StoreError
from ..labels import LABELS_VERSION, decision_labels


STORED = "stored"
ALREADY_STORED = "already stored"
ANALYSIS_ADDED = "analysis added"
EXTENDED = "extended"  # a later save of a stored match: the match made longer (docs/storage.md)


@dataclass
class StoreResult:
    status: str  # STORED, ALREADY_STORED, ANALYSIS_ADDED or EXTENDED
    match_id: int
    analysis_id: Optional[int]
    games_before: Optional[int] = None  # EXTENDED: the games the stored match had


class MatchRecords:
    """Matches, games, analyses and decisions written; identity, aliases, labels
    (:class:`~.sqlite.SQLiteStore`'s second part)."""

    # -- writing -------------------------------------------------------------
    @refuses_damage  # quick_check before this store's first write (store/check.py)
    def _stored(self, match: Match) -> tuple:
        """(the stored match's row or None, the stored analysis' row of the
        same engine and depth or None): what makes a store a no-op."""
        row = self.conn.execute("SELECT id FROM matches WHERE identity=?", (match_identity(match),)).fetchone()
        if not row:
            return None, None
        a = match.analysis
        return row, self.conn.execute("SELECT id FROM analyses WHERE match_id=? AND engine=? AND depth_label IS ?",
                                      (row[0], a.engine, a.depth_label)).fetchone()

    def analysis_stored(self, match: Match) -> bool:
        """Is this analysis of ``match`` (its engine and depth) stored?"""
        return self._stored(match)[1] is not None

    def stored_analysis(self, match: Match) -> Optional[StoreResult]:
        """What storing ``match`` would be when its analysis (engine and
        depth) is stored already: that "already stored" result, else None.
        ``analyse`` asks before gnubg analyses a file it has stored."""
        row, same = self._stored(match)
        if same:
            return StoreResult(ALREADY_STORED, row[0], same[0])
        if row is None:
            save = self._other_save(match)
            if save is not None and save[0] == "shorter":
                return StoreResult(ALREADY_STORED, save[1], None)
        return None

    def _other_save(self, match: Match) -> Optional[tuple]:
        """A stored match of which ``match`` is another save (docs/storage.md
        "A match saved twice"): the same length and starting score, and the
        moves of one begin with the other's.  ("longer", match id, its games)
        when ``match`` goes on from the stored one; ("shorter", match id,
        its games) when the stored one goes on from ``match``; else None.
        Found by the indexed opening key (``matches.opening``), then the
        candidates' moves compared."""
        own, earlier = opening_keys(match)
        if own is None:
            return None
        keys = sorted(set(earlier) | {own})
        candidates = [mid for (mid,) in self.conn.execute(
            f"SELECT id FROM matches WHERE opening IN ({','.join('?' * len(keys))}) AND kind = 'match' "
            "AND length = ? ORDER BY id", (*keys, match.length))]
        if not candidates:
            return None
        moves = match_moves(match)
        found = None
        for mid in candidates:
            stored, games = self._stored_moves(mid)
            if stored is None or stored == moves:
                continue
            if len(stored) < len(moves) and moves[:len(stored)] == stored:
                if found is None or found[0] != "longer" or games > found[2]:
                    found = ("longer", mid, games)  # the longest earlier save is extended
            elif len(moves) < len(stored) and stored[:len(moves)] == moves and found is None:
                found = ("shorter", mid, games)
        return found

    def _stored_moves(self, match_id: int) -> tuple:
        """(the stored match's moves as :func:`model.match_moves` makes them,
        its number of games); (None, 0) when its starting score is unknown.
        The rolls are the analysis' holding the most of them (an analysis of
        an earlier save, kept beside the longer one's, holds fewer)."""
        games = self.conn.execute("SELECT game, score0, score1 FROM games WHERE match_id = ? ORDER BY game",
                                  (match_id,)).fetchall()
        if not games:
            return None, 0
        row = self.conn.execute(
            "SELECT r.analysis_id FROM rolls r JOIN analyses a ON a.id = r.analysis_id WHERE a.match_id = ? "
            "GROUP BY r.analysis_id ORDER BY COUNT(*) DESC, r.analysis_id LIMIT 1", (match_id,)).fetchone()
        by_game: dict = {}
        if row is not None:
            for game, d1, d2, after in self.conn.execute(
                    "SELECT game, dice1, dice2, position_after FROM rolls WHERE analysis_id = ? ORDER BY game, seq",
                    (row[0],)):
                by_game.setdefault(game, []).append(move_token((d1, d2), after))
        moves = []
        for game, _s0, _s1 in games:
            moves.append(f"game={game}")
            moves += by_game.get(game, [])
        return moves, len(games)

    def add_match(self, match: Match) -> StoreResult:
        """Store a match in one transaction.  A match already stored is a
        no-op; a new analysis of a stored match is added beside the others;
        a later save of a stored match extends it, an earlier one is already
        stored (docs/storage.md "A match saved twice").  A match another
        writer stored first (its identity taken meanwhile: the dialect's
        ``unique_violation``, PostgreSQL's concurrent writers) is "already
        stored"."""
        try:
            return self._add_match(match)
        except self.dialect.unique_violation:
            row, same = self._stored(match)
            if row and same:
                return StoreResult(ALREADY_STORED, row[0], same[0])
            raise

    def _add_match(self, match: Match) -> StoreResult:
        if self.read_only:
            raise StoreError(f"cannot store into it: {self.read_only_reason}")
        self._follow_the_path()
        identity = match_identity(match)
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            row, same = self._stored(match)
            if row:
                match_id = row[0]
                if same:
                    c.execute("ROLLBACK")
                    return StoreResult(ALREADY_STORED, match_id, same[0])
                analysis_id = self._add_analysis(match_id, match)
                c.execute("COMMIT")
                return StoreResult(ANALYSIS_ADDED, match_id, analysis_id)
            save = self._other_save(match)
            if save is not None and save[0] == "shorter":
                c.execute("ROLLBACK")
                return StoreResult(ALREADY_STORED, save[1], None)
            if save is not None:
                result = self._extend(save[1], save[2], match, identity)
                c.execute("COMMIT")
                return result
            final = match.final_score()
            cur = c.execute(
                """INSERT INTO matches(identity, length, player0, player1, date, event, round, place,
                   annotator, comment, crawford_rule, jacoby, variation, rating0, rating1,
                   final_score0, final_score1, winner, source, imported_at, kind, opening)
                   VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                (
                    identity, match.length, match.players[0], match.players[1], match.date,
                    match.event, match.round, match.place, match.annotator, match.comment,
                    int(match.crawford_rule), int(match.jacoby), match.variation,
                    match.ratings[0], match.ratings[1], final[0], final[1], match.winner(),
                    match.source, insert.utc_now(), match.kind, opening_keys(match)[0],
                ),
            )
            match_id = cur.lastrowid
            self._insert_games(match_id, match)
            analysis_id = self._add_analysis(match_id, match)
            c.execute("COMMIT")
            return StoreResult(STORED, match_id, analysis_id)
        except BaseException:
            _rollback(c)  # never masks the error (a failed COMMIT may have rolled back already)
            raise

    def _insert_games(self, match_id: int, match: Match) -> None:
        self.conn.executemany(
            "INSERT INTO games(match_id, game, score0, score1, crawford, winner, points, resigned) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [(match_id, g.number, g.score[0], g.score[1], int(g.crawford), g.winner, g.points, int(g.resigned))
             for g in match.games])

    # the tables of study data that name a decision by its id (SPEC §10, §11, §16)
    DECISION_REFERENCES = ("study_actions", "collection_positions", "anki_notes")

    def _extend(self, match_id: int, games_before: int, match: Match, identity: str) -> StoreResult:
        """``match`` is a later save of the stored ``match_id`` (inside the
        caller's transaction; docs/storage.md "A match saved twice"): the
        match takes its identity, games and result (its id, names and
        import time stay; what it did not say, the file may say now); the
        stored analysis of the same engine and depth is replaced by the
        file's, under its id, and what names its decisions (study actions,
        collections, Anki notes, verified evaluations) follows each decision
        to the new row of the same game, move, kind and position; other
        analyses stay as they are."""
        c = self.conn
        final = match.final_score()
        c.execute(
            "UPDATE matches SET identity = ?, opening = ?, final_score0 = ?, final_score1 = ?, winner = ?, "
            "date = COALESCE(date, ?), event = COALESCE(event, ?), round = COALESCE(round, ?), "
            "place = COALESCE(place, ?), annotator = COALESCE(annotator, ?), comment = COALESCE(comment, ?), "
            "rating0 = COALESCE(rating0, ?), rating1 = COALESCE(rating1, ?) WHERE id = ?",
            (identity, opening_keys(match)[0], final[0], final[1], match.winner(), match.date, match.event,
             match.round, match.place, match.annotator, match.comment, match.ratings[0], match.ratings[1],
             match_id))
        c.execute("DELETE FROM games WHERE match_id = ?", (match_id,))
        self._insert_games(match_id, match)
        a = match.analysis
        same = c.execute("SELECT id FROM analyses WHERE match_id = ? AND engine = ? AND depth_label IS ?",
                         (match_id, a.engine, a.depth_label)).fetchone()
        if same is None:
            analysis_id = self._add_analysis(match_id, match)
            return StoreResult(EXTENDED, match_id, analysis_id, games_before)
        analysis_id = same[0]
        old = {(g, q, k, p): i for i, g, q, k, p in c.execute(
            "SELECT id, game, seq, kind, position_id FROM decisions WHERE analysis_id = ?", (analysis_id,))}
        last_old = max(old.values(), default=0)
        c.execute("DELETE FROM rolls WHERE analysis_id = ?", (analysis_id,))
        c.execute(
            "UPDATE analyses SET source = ?, source_path = ?, source_player0 = ?, source_player1 = ?, "
            "engine_version = ?, depth = ?, met = ?, met_assumed = ?, imported_at = ? WHERE id = ?",
            (match.source, stored_path(match.source_path), match.players[0], match.players[1], a.engine_version,
             a.depth, a.met, int(a.met_assumed), insert.utc_now(), analysis_id))
        self._insert_decisions(analysis_id, match)
        new = {(g, q, k, p): i for i, g, q, k, p in c.execute(
            "SELECT id, game, seq, kind, position_id FROM decisions WHERE analysis_id = ? AND id > ?",
            (analysis_id, last_old))}
        moved = [(new[key], i) for key, i in old.items() if key in new]
        gone = [(i,) for key, i in old.items() if key not in new]
        for table in self.DECISION_REFERENCES:
            c.executemany(f"UPDATE {table} SET decision_id = ? WHERE decision_id = ?", moved)
            c.executemany(f"UPDATE {table} SET decision_id = NULL WHERE decision_id = ?", gone)
        c.executemany("UPDATE verifications SET decision_id = ? WHERE decision_id = ?", moved)
        c.execute("DELETE FROM decisions WHERE analysis_id = ? AND id <= ?", (analysis_id, last_old))
        self._note_labels_version(analysis_id)
        self._rebuild_arrays_of(analysis_id)
        return StoreResult(EXTENDED, match_id, analysis_id, games_before)

    def _rebuild_arrays_of(self, analysis_id: int) -> None:
        """The cache of an analysis whose rows were replaced: the bundle
        holding it written again from the rows (its other analyses too),
        inside the caller's transaction."""
        where = self._coverage(self._bundles()).get(analysis_id)
        if where is None:
            self._store_arrays(analysis_id)
            return
        key = where[0]
        members = list(self._bundles()[key]["analyses"])
        self.conn.execute("DELETE FROM analysis_arrays WHERE analysis_id = ?", (key,))
        self._write_bundle([(a, *self._pack_records(a)) for a in members])

    def _note_labels_version(self, analysis_id: int) -> None:
        """A new match comes labelled by this version's rules.  A store with
        no other decisions takes this version; otherwise its version stays,
        and older labels are redone by ``relabel`` when the store is read."""
        if self.get_meta("labels_version") is None and not self.conn.execute(
            "SELECT 1 FROM decisions WHERE analysis_id != ? LIMIT 1", (analysis_id,)
        ).fetchone():
            self.set_meta("labels_version", LABELS_VERSION)

    def _add_analysis(self, match_id: int, match: Match) -> int:
        """A new analysis of a stored match, whole: its row, its decisions
        and rolls, the labels' version it was made with and its arrays in
        the cache (inside the caller's transaction)."""
        analysis_id = self._insert_analysis(match_id, match)
        self._insert_decisions(analysis_id, match)
        self._note_labels_version(analysis_id)
        self._store_arrays(analysis_id)
        return analysis_id

    def _insert_analysis(self, match_id: int, match: Match) -> int:
        return insert_analysis(self.conn, match_id, match)

    def _insert_decisions(self, analysis_id: int, match: Match) -> None:
        insert_decisions(self.conn, analysis_id, match, self.rules.difficulties)

    # -- players and aliases ------------------------------------------------
    def aliases(self) -> dict:
        """{alias (lower case): canonical name}."""
        return {a.lower(): c for a, c in self.conn.execute("SELECT alias, canonical FROM aliases")}

    def alias_pairs(self) -> list:
        """[(canonical, alias)], sorted: every alias as it was written."""
        return sorted(self.conn.execute("SELECT canonical, alias FROM aliases").fetchall())

    def add_alias(self, canonical: str, alias: str) -> None:
        """``alias`` is another spelling of ``canonical`` (SPEC §14: aliases merged)."""
        self._guard_write()
        if canonical.strip().lower() == alias.strip().lower():
            raise ValueError("a name is not an alias of itself")
        canonical = self.canonical_name(canonical)  # chains end at one name
        with write_transaction(self.conn):
            # the alias as first written stays (its case), its canonical name changes
            if not self.conn.execute("UPDATE aliases SET canonical=? WHERE lower(alias)=lower(?)",
                                     (canonical, alias.strip())).rowcount:
                self.conn.execute("INSERT INTO aliases(alias, canonical) VALUES (?, ?)", (alias.strip(), canonical))
            self.conn.execute("UPDATE aliases SET canonical=? WHERE lower(canonical)=lower(?)", (canonical, alias.strip()))

    def remove_alias(self, alias: str) -> bool:
        self._guard_write()
        with write_transaction(self.conn):
            return self.conn.execute("DELETE FROM aliases WHERE lower(alias) = lower(?)", (alias.strip(),)).rowcount > 0

    def canonical_name(self, name: str) -> str:
        row = self.conn.execute("SELECT canonical FROM aliases WHERE lower(alias) = lower(?)", (name.strip(),)).fetchone()
        return row[0] if row else name.strip()

    def player_names(self) -> list:
        """Every player of a stored match as the filter knows them (aliases
        merged), sorted without case."""
        aliases = self.aliases()
        names = {}
        for (name,) in self.conn.execute("SELECT player0 FROM matches WHERE kind = 'match' "
                                         "UNION SELECT player1 FROM matches WHERE kind = 'match'"):
            canonical = aliases.get((name or "").lower(), name or "")
            names.setdefault(canonical.lower(), canonical)
        return sorted(names.values(), key=str.casefold)

    # -- labels -------------------------------------------------------------
    def relabel(self, progress=None, only_if_stale: bool = False) -> int:
        """Recompute the derived labels of every decision (labels.py) and its
        difficulty d (SPEC §6, metrics/difficulty.py), and record the rules'
        version; returns the number of decisions.
        ``only_if_stale``: the automatic relabel after a rules change, which
        another process may have done while this one waited (then 0)."""
        self._guard_write()
        # one transaction: another process that opens the database meanwhile
        # waits, then finds the labels current (and the cache it reads whole)
        with write_transaction(self.conn):
            if only_if_stale and self.get_meta("labels_version") == LABELS_VERSION:
                return 0  # done by another process while this one waited
            rows = self.conn.execute(
                "SELECT d.id, d.kind, d.position_id, d.error, c.candidates, d.played_index, d.nd, d.dt, d.dp, "
                "d.n_legal, d.n_candidates, d.equity_spread, d.xg_counted, d.beaver_take, d.dice1, d.dice2 "
                "FROM decisions d LEFT JOIN decision_candidates c ON c.decision_id = d.id"
            ).fetchall()
            updates, hard_rows = [], []
            for rid, kind, pid, err, cands, pi, nd, dt, dp, n_legal, n_cands, spread, xg, beaver, d1, d2 in rows:
                cands = candidate_lists.decode(cands, pid, (d1, d2), notation=False)
                labels = decision_labels(kind, pid, err, cands, pi, nd, dt, dp)
                updates.append(labels + (rid,))
                hard_rows.append({"kind": kind, "error": err, "n_legal": n_legal, "n_candidates": n_cands,
                                  "equity_spread": spread, "xg_counted": xg, "nd": nd, "dt": dt, "dp": dp,
                                  "beaver_take": beaver, "equities": cands.equities()})
            # the difficulty of SPEC §6 is made again from the same rows (the store's derived rule, metrics/difficulty.py's)
            hard = self.rules.difficulties(hard_rows)
            updates = [u[:3] + h + u[3:] for u, h in zip(updates, hard)]
            self.conn.executemany("UPDATE decisions SET phase=?, game_plan=?, theme=?, difficulty=?, "
                                  "difficulty_truncated=? WHERE id=?", updates)
            self.conn.execute("DELETE FROM analysis_arrays")  # rebuilt with the new labels when read
            self.set_meta("labels_version", LABELS_VERSION)
        return len(updates)

    def labels_current(self) -> bool:
        if not self.conn.execute("SELECT 1 FROM decisions LIMIT 1").fetchone():
            return True
        return self.get_meta("labels_version") == LABELS_VERSION

    def count_matches(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]

    def match_players(self, match_id: int):
        """(player0, player1) of a stored match as stored, or None."""
        row = self.conn.execute("SELECT player0, player1 FROM matches WHERE id = ?", (match_id,)).fetchone()
        return tuple(row) if row else None
