"""Study data: reference positions' other analyses, study actions,
collections, the decisions at a position (SPEC §10, §11; docs/collections.md)."""

from __future__ import annotations

import functools
import itertools
from typing import Optional

from . import candidates as candidate_lists, insert
from .connection import write_transaction
from ..study_log import STUDIED, utc_day
from .schema import StoreError
from ..game_record import GNUBG_SOURCES, gnubg_rows


def _nocase_order(a: bytes, b: bytes) -> int:
    """SQLite's NOCASE collation: the UTF-8 bytes compared with ASCII
    letters folded, up to the shorter length or a NUL of the first; then
    the shorter first."""
    fold = _ASCII_FOLD
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] != 0 and fold[a[i]] == fold[b[i]]:
        i += 1
    r = 0 if i == n else fold[a[i]] - fold[b[i]]
    return r or len(a) - len(b)


_ASCII_FOLD = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))


_NOCASE = functools.cmp_to_key(_nocase_order)


def _nocase_key(row: dict):
    return _NOCASE(str(row["name"]).encode("utf-8", "surrogatepass"))




class StudyData:
    """Study actions, collections and position reads (:class:`~.sqlite.SQLiteStore`'s fifth part)."""

    # -- reference positions and study actions (SPEC §10, §11) ------------------------
    def second_costs(self, decision_ids) -> dict:
        """{decision id: max(0, eq₁ − eq₂)} (EMG): what the second candidate
        of each checker play's stored list costs against the first (the
        analysis' second choice); decisions with fewer than two candidates
        with an equity are left out.  The lists' equities are read without
        resolving a play (codec/candidates.py)."""
        return candidate_lists.second_costs(self.conn, decision_ids)

    ANALYSIS_COLUMNS = ("id", "position_id", "kind", "dice", "length", "score_self", "score_opp", "crawford",
                        "cube_value", "cube_owner", "nd", "dt", "dp", "best_move", "depth", "engine",
                        "analysis_depth")

    def position_analyses(self, position_ids, decision_ids=(), every: bool = False) -> dict:
        """Every stored analysis of decisions at ``position_ids`` that can
        give a verdict other than the analysis read (SPEC §10 "unstable"):
        the cube decisions and the rollouts at those positions, in every
        analysis of every match, and the decisions ``decision_ids``
        themselves — as columns (``ANALYSIS_COLUMNS``; metrics/references.py
        ``stability``).  {} when the database holds one engine and depth and
        no rollout: no other verdict can exist (``every``: read them all the
        same, for the verified evaluations beside them, SPEC §16)."""
        kinds = self.conn.execute(
            "SELECT COUNT(DISTINCT engine || '|' || COALESCE(depth_label, '')), "
            "COALESCE(SUM(CASE WHEN depth_label LIKE 'rollout%' OR depth_label LIKE '%+' THEN 1 ELSE 0 END), 0) "
            "FROM analyses").fetchone()
        if kinds[0] <= 1 and not kinds[1] and not every:
            return {}
        pids = sorted(set(position_ids))
        ids = sorted({int(i) for i in decision_ids})
        select = ("SELECT d.id, d.position_id, d.kind, "
                  "COALESCE(MAX(d.dice1, d.dice2) * 10 + MIN(d.dice1, d.dice2), -1), m.length, d.score_self, "
                  "d.score_opp, d.crawford, d.cube_value, d.cube_owner, d.nd, d.dt, d.dp, d.best_move, d.depth, "
                  "a.engine, a.depth_label "
                  "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id ")
        rows = []
        for start in range(0, len(pids), 500):  # the cube decisions and the rollouts at those positions
            part = pids[start:start + 500]
            rows += self.conn.execute(
                select + f"WHERE d.position_id IN ({','.join('?' * len(part))}) AND (d.kind != 'checker' "
                "OR d.depth LIKE 'rollout%' OR a.depth_label LIKE 'rollout%')", part).fetchall()
        for start in range(0, len(ids), 500):  # the decisions themselves (a checker play's own verdict)
            part = ids[start:start + 500]
            rows += self.conn.execute(select + f"WHERE d.id IN ({','.join('?' * len(part))})", part).fetchall()
        rows = list({r[0]: r for r in rows}.values())
        return {name: [r[k] for r in rows] for k, name in enumerate(self.ANALYSIS_COLUMNS)}

    def add_study_action(self, position_id: str, action: str = "studied", grade=None, decision_id=None,
                         at: Optional[str] = None) -> str:
        """Store a study action on a position (now or at ``at``, UTC ISO
        8601); returns its time."""
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")
        at = at or insert.utc_now()
        with write_transaction(self.conn):
            self.conn.execute("INSERT INTO study_actions(position_id, action, grade, decision_id, at) "
                              "VALUES (?, ?, ?, ?, ?)", (position_id, action, grade, decision_id, at))
        return at

    def mark_studied(self, position_id: str) -> tuple:
        """``mark studied``: a "studied" study action at ``position_id``,
        now.  ``(at, True)`` when stored; ``(the earlier mark's at, False)``
        when the position has a mark of this UTC day already: nothing is
        stored (one mark a day; a family's study is dated by its day).
        ValueError when no stored decision is at the position: a mistyped
        ID, or another database's position, is not marked."""
        self._writable()
        at = insert.utc_now()
        with write_transaction(self.conn):
            if self.conn.execute("SELECT 1 FROM decisions WHERE position_id = ? LIMIT 1",
                                 (position_id,)).fetchone() is None:
                raise ValueError(f"position {position_id} is in no stored match: nothing marked "
                                 "(`references` and `positions --errors` list your positions)")
            today = utc_day(at)
            for (earlier,) in self.conn.execute("SELECT at FROM study_actions WHERE position_id = ? AND action = ? "
                                                "ORDER BY at, id", (position_id, STUDIED)).fetchall():
                if utc_day(earlier) == today:
                    return earlier, False
            self.conn.execute("INSERT INTO study_actions(position_id, action, grade, decision_id, at) "
                              "VALUES (?, ?, NULL, NULL, ?)", (position_id, STUDIED, at))
        return at, True

    def remove_study_actions(self, position_id: str, action: str = "studied") -> int:
        """Forget a position's ``action`` rows; how many there were."""
        if self.read_only:
            raise StoreError(f"cannot write into it: {self.read_only_reason}")
        with write_transaction(self.conn):
            return self.conn.execute("DELETE FROM study_actions WHERE position_id = ? AND action = ?",
                                     (position_id, action)).rowcount

    def study_actions(self) -> list:
        """Every study action, oldest first: ``id``, ``position_id``,
        ``action``, ``grade``, ``decision_id``, ``at``."""
        cur = self.conn.execute("SELECT id, position_id, action, grade, decision_id, at FROM study_actions "
                                "ORDER BY at, id")
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def studied_positions(self) -> dict:
        """{position ID: [why, ...]} of the positions already studied (SPEC
        §10): a study action ("studied", later a quiz answer, a review), a
        decision at it commented in its imported file ("comment"), filed in a
        collection ("collection NAME") or exported as an Anki note ("anki
        card").  Filing and exporting are no study actions (SPEC §11): they
        are not in ``study_actions``, only here."""
        out: dict = {}
        for pid, action in self.conn.execute("SELECT DISTINCT position_id, action FROM study_actions"):
            out.setdefault(pid, []).append(action)
        for (pid,) in self.conn.execute("SELECT DISTINCT position_id FROM decisions "
                                        "WHERE comment IS NOT NULL AND comment != '' AND position_id IS NOT NULL"):
            out.setdefault(pid, []).append("comment")
        for pid, name in self.conn.execute("SELECT p.position_id, c.name FROM collection_positions p "
                                           "JOIN collections c ON c.id = p.collection_id"):
            out.setdefault(pid, []).append(f"collection {name}")
        for (pid,) in self.conn.execute("SELECT DISTINCT position_id FROM anki_notes"):
            out.setdefault(pid, []).append("anki card")
        return {pid: sorted(set(why)) for pid, why in out.items()}

    # -- collections (docs/collections.md; schema step 9) ----------------------------------
    def collections(self) -> list:
        """Every collection, by name without case: ``name``, ``created_at``,
        ``positions`` (how many)."""
        cur = self.conn.execute(
            "SELECT c.name, c.created_at, COUNT(p.position_id) AS positions FROM collections c "
            "LEFT JOIN collection_positions p ON p.collection_id = c.id GROUP BY c.id")
        cols = [c[0] for c in cur.description]
        # sorted here, as SQLite's NOCASE orders them, on both engines (PostgreSQL would sort the stored form
        # of a name holding NUL: docs/postgres.md "Text")
        return sorted((dict(zip(cols, r)) for r in cur.fetchall()), key=_nocase_key)

    def collection(self, name: str) -> Optional[dict]:
        """The collection ``name`` (without case): ``id``, ``name`` (as it
        was created), ``created_at``; None when there is none."""
        row = self.conn.execute("SELECT id, name, created_at FROM collections WHERE lower(name) = lower(?)",
                                (str(name).strip(),)).fetchone()
        return {"id": row[0], "name": row[1], "created_at": row[2]} if row else None

    def collection_positions(self, name: str) -> Optional[list]:
        """The positions filed in ``name``, in the order they were filed:
        ``position_id``, ``decision_id`` (or None), ``added_at``; None when
        there is no such collection."""
        c = self.collection(name)
        if c is None:
            return None
        cur = self.conn.execute("SELECT position_id, decision_id, added_at FROM collection_positions "
                                "WHERE collection_id = ? ORDER BY added_at, rowid", (c["id"],))
        cols = [x[0] for x in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def add_to_collection(self, name: str, items) -> dict:
        """File ``items`` ((position ID, decision id or None), ...) into the
        collection ``name``, made when it does not exist; a position already
        in it stays as it was (its first decision and time).  One
        transaction.  Returns ``name`` (as stored), ``created`` (bool),
        ``added``, ``already`` (positions given that were in it), ``at``."""
        self._writable()
        name = str(name).strip()
        at = insert.utc_now()
        with write_transaction(self.conn):
            row = self.conn.execute("SELECT id, name FROM collections WHERE lower(name) = lower(?)", (name,)).fetchone()
            created = row is None
            if created:
                cid = self.conn.execute("INSERT INTO collections(name, created_at) VALUES (?, ?)",
                                        (name, at)).lastrowid
            else:
                cid, name = row
            seen, rows = set(), []
            for pid, did in items:
                if pid in seen:
                    continue
                seen.add(pid)
                rows.append((cid, pid, None if did is None else int(did), at))
            before = self.conn.total_changes
            self.conn.executemany("INSERT OR IGNORE INTO collection_positions(collection_id, position_id, "
                                  "decision_id, added_at) VALUES (?, ?, ?, ?)", rows)
            added = self.conn.total_changes - before
        return {"name": name, "created": created, "added": added, "already": len(rows) - added, "at": at}

    def remove_from_collection(self, name: str, position_id: Optional[str] = None) -> Optional[int]:
        """Forget a position of the collection ``name`` (``position_id``),
        or the whole collection (None): how many positions were forgotten;
        None when there is no such collection."""
        self._writable()
        with write_transaction(self.conn):
            row = self.conn.execute("SELECT id FROM collections WHERE lower(name) = lower(?)",
                                    (str(name).strip(),)).fetchone()
            if row is None:
                return None
            if position_id is not None:
                return self.conn.execute("DELETE FROM collection_positions WHERE collection_id = ? "
                                         "AND position_id = ?", (row[0], position_id)).rowcount
            n = self.conn.execute("DELETE FROM collection_positions WHERE collection_id = ?", (row[0],)).rowcount
            self.conn.execute("DELETE FROM collections WHERE id = ?", (row[0],))
            return n

    def decisions_at(self, position_ids) -> dict:
        """{position ID: [decision, ...]} of the stored decisions at each of
        ``position_ids`` (every analysis, in store order), each a dict:
        ``id``, ``match_id``, ``engine``, ``depth`` (the analysis' label),
        ``game`` and ``move`` (from 1), ``player`` and ``opponent`` (names as
        the match file writes them), ``side`` (0/1), ``kind``, ``dice``
        ([d1, d2] or None), ``cube_value``, ``cube_owner`` (-1 centred),
        ``score`` ([decider, opponent]), ``length``, ``crawford``,
        ``jacoby``, ``played``, ``best``, ``error`` (EMG or None), ``gnubg_row``
        (the row of gnubg's game record listing it, None unknown: :meth:`gnubg_rows`)."""
        out: dict = {}
        ids = list(dict.fromkeys(p for p in position_ids if p))
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            cur = self.conn.execute(
                "SELECT d.position_id, d.id, m.id, a.engine, a.depth_label, d.game, d.seq, m.player0, m.player1, "
                "d.player, d.kind, d.dice1, d.dice2, d.cube_value, d.cube_owner, d.score_self, d.score_opp, "
                "m.length, d.crawford, m.jacoby, d.played_move, d.best_move, d.error "
                "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id "
                f"WHERE d.position_id IN ({','.join('?' * len(part))}) ORDER BY d.id", part)
            for (pid, did, mid, engine, depth, game, seq, p0, p1, side, kind, d1, d2, cube, owner, me, opp, length,
                 crawford, jacoby, played, best, error) in cur:
                names = (p0, p1)
                out.setdefault(pid, []).append({
                    "id": did, "match_id": mid, "engine": engine, "depth": depth, "game": game + 1,
                    "move": seq + 1, "player": names[side], "opponent": names[1 - side], "side": side,
                    "kind": kind, "dice": [d1, d2] if d1 else None, "cube_value": cube, "cube_owner": owner,
                    "score": [me, opp], "length": length, "crawford": bool(crawford), "jacoby": bool(jacoby),
                    "played": played, "best": best, "error": error})
        places = self.gnubg_rows([d["id"] for decs in out.values() for d in decs])
        for decs in out.values():
            for d in decs:
                d["gnubg_row"] = places.get(d["id"])
        return out

    def gnubg_rows(self, decision_ids) -> dict:
        """{decision id: its row in gnubg's game record, or None} (the rule:
        game_record.gnubg_rows; None for an XG analysis, whose records are
        not gnubg's, and after a record the store does not keep).  Each
        game's records up to the last one asked for (a row depends only on
        the records before it), a hundred games a query: one query a game
        took 2 s of the report over 10,000 matches (15,000 games)."""
        ids = list(dict.fromkeys(int(i) for i in decision_ids))
        wanted = {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            cur = self.conn.execute(
                "SELECT d.id, d.analysis_id, d.game, d.seq, a.source FROM decisions d "
                f"JOIN analyses a ON a.id = d.analysis_id WHERE d.id IN ({','.join('?' * len(part))})", part)
            for did, aid, game, seq, source in cur:
                wanted[did] = (aid, game, seq, source in GNUBG_SOURCES)
        asked = {}  # (analysis, game): its decisions asked for
        for did, (aid, game, seq, gnubg) in wanted.items():
            if gnubg:
                asked.setdefault((aid, game), []).append((did, seq))
        out = dict.fromkeys(wanted)
        keys = list(asked)
        for start in range(0, len(keys), 100):
            part = keys[start:start + 100]
            last = [max(seq for _, seq in asked[key]) for key in part]
            where = " OR ".join(["(analysis_id = ? AND game = ? AND seq <= ?)"] * len(part))
            args = [x for key, top in zip(part, last) for x in (*key, top)]
            records = self.conn.execute(
                f"SELECT analysis_id, game, seq, player, 0 FROM rolls WHERE {where} UNION "
                f"SELECT analysis_id, game, seq, player, beaver_take FROM decisions WHERE {where} "
                "ORDER BY 1, 2, 3, 4, 5", args + args)
            for key, found in itertools.groupby(records, key=lambda r: (r[0], r[1])):
                rows = gnubg_rows(r[2:] for r in found)
                for did, seq in asked[key]:
                    out[did] = rows.get(seq)
        return out

