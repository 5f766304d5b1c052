"""The SQLite store: all SQL of the project lives here.

One transaction per match (a match is stored whole or not at all), WAL so
that gnubg and the command line can share the database, schema migrated by
numbered steps (:mod:`.schema`).  Figures are never computed here: the store
selects decisions and hands arrays to :mod:`gnubg_blunder.metrics`.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from ..filters import Filter
from ..metrics.arrays import KIND_CODES, LABEL_CODES, DecisionArrays, MatchInfo, RollArrays, Selection
from ..model import Match, match_identity
from .schema import migrate

STORED = "stored"
ALREADY_STORED = "already stored"
ANALYSIS_ADDED = "analysis added"


@dataclass
class StoreResult:
    status: str  # STORED, ALREADY_STORED or ANALYSIS_ADDED
    match_id: int
    analysis_id: Optional[int]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class SQLiteStore:
    """Storage behind one interface: ``add_match``, ``matches``, ``select``,
    ``get_meta``/``set_meta``.  A PostgreSQL engine would implement the same."""

    def __init__(self, path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.conn.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

    def _migrate(self):
        # migrate() manages its own transactions
        self.conn.isolation_level = ""
        try:
            migrate(self.conn)
        finally:
            self.conn.isolation_level = None

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- metadata ------------------------------------------------------------
    def get_meta(self, key: str, default=None):
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_meta(self, key: str, value) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, None if value is None else str(value)),
        )

    # -- writing -------------------------------------------------------------
    def add_match(self, match: Match) -> StoreResult:
        """Store a match in one transaction.  A match already stored is a
        no-op; a new analysis of a stored match is added beside the others."""
        identity = match_identity(match)
        a = match.analysis
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            row = c.execute("SELECT id FROM matches WHERE identity=?", (identity,)).fetchone()
            if row:
                match_id = row[0]
                same = c.execute(
                    "SELECT id FROM analyses WHERE match_id=? AND engine=? AND depth_label IS ?",
                    (match_id, a.engine, a.depth_label),
                ).fetchone()
                if same:
                    c.execute("ROLLBACK")
                    return StoreResult(ALREADY_STORED, match_id, same[0])
                analysis_id = self._insert_analysis(match_id, match)
                self._insert_decisions(analysis_id, match)
                self._note_labels_version(analysis_id)
                c.execute("COMMIT")
                return StoreResult(ANALYSIS_ADDED, match_id, analysis_id)
            final = match.final_score()
            cur = c.execute(
                """INSERT INTO matches(identity, length, player0, player1, date, event, round, place,
                   annotator, comment, crawford_rule, jacoby, variation, rating0, rating1,
                   final_score0, final_score1, winner, source, imported_at, kind)
                   VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                (
                    identity, match.length, match.players[0], match.players[1], match.date,
                    match.event, match.round, match.place, match.annotator, match.comment,
                    int(match.crawford_rule), int(match.jacoby), match.variation,
                    match.ratings[0], match.ratings[1], final[0], final[1], match.winner(),
                    match.source, _now(), match.kind,
                ),
            )
            match_id = cur.lastrowid
            c.executemany(
                "INSERT INTO games(match_id, game, score0, score1, crawford, winner, points, resigned) "
                "VALUES (?,?,?,?,?,?,?,?)",
                [
                    (match_id, g.number, g.score[0], g.score[1], int(g.crawford), g.winner, g.points,
                     int(g.resigned))
                    for g in match.games
                ],
            )
            analysis_id = self._insert_analysis(match_id, match)
            self._insert_decisions(analysis_id, match)
            self._note_labels_version(analysis_id)
            c.execute("COMMIT")
            return StoreResult(STORED, match_id, analysis_id)
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _note_labels_version(self, analysis_id: int) -> None:
        """A new match comes labelled by this version's rules.  A store with
        no other decisions takes this version; otherwise its version stays,
        and older labels are redone by ``relabel`` when the store is read."""
        from ..labels import LABELS_VERSION

        if self.get_meta("labels_version") is None and not self.conn.execute(
            "SELECT 1 FROM decisions WHERE analysis_id != ? LIMIT 1", (analysis_id,)
        ).fetchone():
            self.set_meta("labels_version", LABELS_VERSION)

    def _insert_analysis(self, match_id: int, match: Match) -> int:
        a = match.analysis
        cur = self.conn.execute(
            """INSERT INTO analyses(match_id, source, source_path, source_player0, source_player1,
               engine, engine_version, depth, depth_label, met, met_assumed, imported_at)
               VALUES (?,?,?,?,?,?,?,?,?,?,?,?)""",
            (
                match_id, match.source, match.source_path, match.players[0], match.players[1],
                a.engine, a.engine_version, a.depth, a.depth_label, a.met, int(a.met_assumed), _now(),
            ),
        )
        return cur.lastrowid

    def _insert_decisions(self, analysis_id: int, match: Match) -> None:
        rows = []
        for d in match.decisions():
            cands = [
                {"move": c.move, "equity": c.equity, "position_id": c.position_id,
                 "probs": list(c.probs) if c.probs else None, "depth": c.depth}
                for c in d.candidates
            ]
            rows.append((
                analysis_id, d.game, d.seq, d.player, d.kind, d.position_id, d.cube_value,
                d.cube_owner, d.score_self, d.score_opp, int(d.crawford),
                d.dice[0] if d.dice else None, d.dice[1] if d.dice else None,
                d.played_move, d.best_move, d.error, d.mwc_per_emg, d.nd, d.dt, d.dp,
                d.n_legal, d.n_candidates, d.equity_spread, d.played_index,
                None if d.xg_counted is None else int(d.xg_counted), int(d.beaver_take),
                int(d.gnubg_dead_cube), d.depth,
                json.dumps(cands) if cands else None, d.comment, d.duration,
                d.phase, d.game_plan, d.theme,
            ))
        self.conn.executemany(
            """INSERT INTO decisions(analysis_id, game, seq, player, kind, position_id, cube_value,
               cube_owner, score_self, score_opp, crawford, dice1, dice2, played_move, best_move,
               error, mwc_per_emg, nd, dt, dp, n_legal, n_candidates, equity_spread, played_index,
               xg_counted, beaver_take, gnubg_dead_cube, depth, candidates, comment, duration,
               phase, game_plan, theme)
               VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
            rows,
        )
        self.conn.executemany(
            """INSERT INTO rolls(analysis_id, game, seq, player, dice1, dice2, position_id,
               position_after, cube_value, luck, mwc_per_emg) VALUES (?,?,?,?,?,?,?,?,?,?,?)""",
            [
                (analysis_id, r.game, r.seq, r.player, r.dice[0], r.dice[1], r.position_id,
                 r.position_after, r.cube_value, r.luck, r.mwc_per_emg)
                for r in match.rolls()
            ],
        )

    # -- reading -------------------------------------------------------------
    def _analyses_by_match(self) -> dict:
        out: dict = {}
        for row in self.conn.execute(
            "SELECT id, match_id, engine, depth, depth_label, source FROM analyses ORDER BY id"
        ):
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

    # -- players and aliases ------------------------------------------------
    def aliases(self) -> dict:
        """{alias (lower case): canonical name}."""
        return {a.lower(): c for a, c in self.conn.execute("SELECT alias, canonical FROM aliases")}

    def add_alias(self, canonical: str, alias: str) -> None:
        """``alias`` is another spelling of ``canonical`` (SPEC §14: aliases merged)."""
        if canonical.strip().lower() == alias.strip().lower():
            raise ValueError("a name is not an alias of itself")
        canonical = self.canonical_name(canonical)  # chains end at one name
        with self.conn:
            self.conn.execute("INSERT INTO aliases(alias, canonical) VALUES (?, ?) "
                              "ON CONFLICT(alias) DO UPDATE SET canonical=excluded.canonical", (alias.strip(), canonical))
            self.conn.execute("UPDATE aliases SET canonical=? WHERE lower(canonical)=lower(?)", (canonical, alias.strip()))

    def remove_alias(self, alias: str) -> bool:
        with self.conn:
            return self.conn.execute("DELETE FROM aliases WHERE alias = ?", (alias.strip(),)).rowcount > 0

    def canonical_name(self, name: str) -> str:
        row = self.conn.execute("SELECT canonical FROM aliases WHERE alias = ?", (name.strip(),)).fetchone()
        return row[0] if row else name.strip()

    # -- labels -------------------------------------------------------------
    def relabel(self, progress=None) -> int:
        """Recompute the derived labels of every decision (labels.py) and
        record the rules' version; returns the number of decisions."""
        from ..labels import LABELS_VERSION, decision_labels

        rows = self.conn.execute(
            "SELECT id, kind, position_id, error, candidates, played_index, nd, dt, dp FROM decisions"
        ).fetchall()
        updates = []
        for rid, kind, pid, err, cands, pi, nd, dt, dp in rows:
            labels = decision_labels(kind, pid, err, json.loads(cands) if cands else [], pi, nd, dt, dp)
            updates.append(labels + (rid,))
        with self.conn:
            self.conn.executemany("UPDATE decisions SET phase=?, game_plan=?, theme=? WHERE id=?", updates)
            self.set_meta("labels_version", LABELS_VERSION)
        return len(updates)

    def labels_current(self) -> bool:
        from ..labels import LABELS_VERSION

        if not self.conn.execute("SELECT 1 FROM decisions LIMIT 1").fetchone():
            return True
        return self.get_meta("labels_version") == LABELS_VERSION

    # -- selecting ------------------------------------------------------------
    def select(self, flt: Optional[Filter] = None, match_ids=None, kind: str = "match") -> Selection:
        """The matches kept by ``flt`` (and among ``match_ids`` if given) with
        all their decisions and rolls (one analysis each), as arrays for the
        metrics.  ``kind`` "match" leaves out one-position files.  Player
        names are merged through the aliases."""
        flt = flt or Filter()
        if not self.labels_current():
            self.relabel()
        aliases = self.aliases()

        def canon(name):
            return aliases.get((name or "").lower(), name)

        where, args = [], []
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if match_ids is not None:
            ids = [int(i) for i in match_ids]
            where.append(f"id IN ({','.join('?' * len(ids)) or 'NULL'})")
            args.extend(ids)
        if flt.date_from:
            where.append("date >= ?")
            args.append(flt.date_from)
        if flt.date_to:
            where.append("date <= ?")
            args.append(flt.date_to)
        if flt.lengths is not None:
            where.append(f"length IN ({','.join('?' * len(flt.lengths))})")
            args.extend(flt.lengths)
        if flt.tournaments:
            where.append(f"lower(event) IN ({','.join('?' * len(flt.tournaments))})")
            args.extend(t.lower() for t in flt.tournaments)
        sql = (
            "SELECT id, player0, player1, length, date, event, round, winner, final_score0, final_score1, "
            "source, imported_at FROM matches"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY COALESCE(date, '9999'), imported_at, id"
        analyses = self._analyses_by_match()
        games = {}
        for mid, g, s0, s1, cr in self.conn.execute(
            "SELECT match_id, game, score0, score1, crawford FROM games ORDER BY match_id, game"
        ):
            games.setdefault(mid, []).append((s0, s1, bool(cr)))
        wanted = canon(flt.player).lower() if flt.player else None
        infos, sides = [], []
        for row in self.conn.execute(sql, args).fetchall():
            mid = row[0]
            names = (canon(row[1]), canon(row[2]))
            if wanted is not None and wanted not in (names[0].lower(), names[1].lower()):
                continue
            chosen = self.choose_analysis(analyses.get(mid, []), flt)
            if chosen is None:
                continue
            infos.append(
                MatchInfo(
                    id=mid, players=(row[1], row[2]), length=row[3], date=row[4], event=row[5], round=row[6],
                    winner=row[7], final_score=(row[8], row[9]), n_games=len(games.get(mid, [])),
                    source=row[10], analysis_id=chosen["id"], engine=chosen["engine"],
                    depth=chosen["depth"], depth_label=chosen["depth_label"],
                    analyses=[{"engine": a["engine"], "depth": a["depth_label"]} for a in analyses.get(mid, [])],
                    game_scores=games.get(mid, []), names=names, imported_at=row[11],
                )
            )
            sides.append([n.lower() == wanted for n in names] if wanted is not None else [True, True])
        return self._arrays(infos, np.array(sides, dtype=bool).reshape(-1, 2), flt.player and canon(flt.player))

    def _arrays(self, infos: list, sides: np.ndarray, player: Optional[str]) -> Selection:
        index = {m.analysis_id: i for i, m in enumerate(infos)}
        c = self.conn
        c.execute("CREATE TEMP TABLE IF NOT EXISTS chosen(analysis_id INTEGER PRIMARY KEY, pos INTEGER)")
        c.execute("DELETE FROM chosen")
        c.executemany("INSERT INTO chosen VALUES (?, ?)", list(index.items()))
        names = ["match", "game", "seq", "player", "kind", "error", "mwc_per_emg", "nd", "dt", "dp",
                 "n_legal", "n_candidates", "equity_spread", "xg_counted", "beaver_take", "gnubg_dead_cube",
                 "row_id", "score_self", "score_opp", "crawford", "cube_value", "position", "phase",
                 "game_plan", "theme", "comment"]
        kinds = KIND_CODES
        codes = LABEL_CODES
        positions: dict = {}
        rows = []
        for r in c.execute(
            """SELECT ch.pos, d.game, d.seq, d.player, d.kind, d.error, d.mwc_per_emg, d.nd, d.dt, d.dp,
                      d.n_legal, d.n_candidates, d.equity_spread, d.xg_counted, d.beaver_take,
                      d.gnubg_dead_cube, d.id, d.score_self, d.score_opp, d.crawford, d.cube_value,
                      d.position_id, d.phase, d.game_plan, d.theme, d.comment
               FROM decisions d JOIN chosen ch ON ch.analysis_id = d.analysis_id
               ORDER BY ch.pos, d.game, d.seq, d.id"""
        ):
            pid = r[21]
            pkey = positions.setdefault(pid, len(positions)) if pid else None
            rows.append(r[:4] + (kinds[r[4]],) + r[5:21] + (
                pkey,
                codes["phase"].get(r[22]),
                codes["game_plan"].get(r[23]),
                codes["theme"].get(r[24]),
                r[25],
            ))
        dec = DecisionArrays.from_rows(rows, names)
        rrows = c.execute(
            """SELECT ch.pos, r.game, r.player, r.luck, r.mwc_per_emg
               FROM rolls r JOIN chosen ch ON ch.analysis_id = r.analysis_id
               ORDER BY ch.pos, r.game, r.seq"""
        ).fetchall()
        rolls = RollArrays.from_rows(rrows, ["match", "game", "player", "luck", "mwc_per_emg"])
        return Selection(matches=infos, decisions=dec, rolls=rolls, sides=sides, player_filter=player,
                         positions=list(positions))

    def decision_rows(self, row_ids) -> list:
        """Full rows of decisions (for drill-down lists and reviews)."""
        ids = [int(i) for i in row_ids]
        if not ids:
            return []
        q = f"SELECT * FROM decisions WHERE id IN ({','.join('?' * len(ids))})"
        cur = self.conn.execute(q, ids)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def count_matches(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
