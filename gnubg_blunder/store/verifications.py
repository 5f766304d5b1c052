"""The depth check's rows (SPEC §16, docs/verify.md): a decision evaluated
again by gnubg, stored beside the match's analysis (``verifications``,
schema step 11), one row a decision and depth, each written in its own
transaction (a kill leaves every stored evaluation whole).  Functions of
the store (its ``conn``); SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import datetime, timezone

from .connection import write_transaction

COLUMNS = ("decision_id", "plies", "engine", "engine_version", "met", "error", "best_move", "nd", "dt", "dp",
           "difficulty", "played_index", "candidates", "verified_at")

# What a decision needs to be evaluated again: its state and its first analysis.
_TARGET_SQL = (
    "SELECT d.id, d.kind, d.player, d.game, d.seq, d.position_id, d.cube_value, d.cube_owner, d.score_self, "
    "d.score_opp, d.crawford, d.dice1, d.dice2, d.played_move, d.best_move, d.error, d.mwc_per_emg, d.nd, d.dt, "
    "d.dp, d.played_index, d.depth, m.id, m.length, m.jacoby, m.player0, m.player1, a.met, a.engine, "
    "a.depth_label, c.candidates "
    "FROM decisions d JOIN analyses a ON a.id = d.analysis_id JOIN matches m ON m.id = a.match_id "
    "LEFT JOIN decision_candidates c ON c.decision_id = d.id ")
TARGET_COLUMNS = ("id", "kind", "player", "game", "seq", "position_id", "cube_value", "cube_owner", "score_self",
                  "score_opp", "crawford", "dice1", "dice2", "played_move", "best_move", "error", "mwc_per_emg", "nd",
                  "dt", "dp", "played_index", "depth", "match_id", "length", "jacoby", "player0", "player1", "met",
                  "engine", "depth_label", "candidates")


def _in_parts(conn, sql: str, ids, tail: str = "") -> list:
    ids = [int(i) for i in ids]
    rows = []
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        rows += conn.execute(sql + f"({','.join('?' * len(part))})" + tail, part).fetchall()
    return rows


def targets(store, decision_ids) -> list:
    """The decisions ``decision_ids`` as dicts (``TARGET_COLUMNS``), in
    that order."""
    rows = _in_parts(store.conn, _TARGET_SQL + "WHERE d.id IN ", decision_ids)
    by_id = {r[0]: dict(zip(TARGET_COLUMNS, r)) for r in rows}
    return [by_id[int(i)] for i in decision_ids if int(i) in by_id]


def has_any(store) -> bool:
    """Whether the database holds any verified evaluation (none: the study
    half reads the match analyses alone, at no cost)."""
    return store.conn.execute("SELECT EXISTS (SELECT 1 FROM verifications)").fetchone()[0] == 1


def verified(store, decision_ids) -> dict:
    """{decision id: [row dicts (``COLUMNS``), deepest first]}."""
    if not decision_ids:
        return {}
    rows = _in_parts(store.conn, f"SELECT {', '.join(COLUMNS)} FROM verifications WHERE decision_id IN ",
                     decision_ids, " ORDER BY decision_id, plies DESC")
    out: dict = {}
    for r in rows:
        out.setdefault(int(r[0]), []).append(dict(zip(COLUMNS, r)))
    return out


def deepest(store, decision_ids) -> dict:
    """{decision id: its deepest verified evaluation (a row dict)}."""
    return {k: v[0] for k, v in verified(store, decision_ids).items()}


def write(store, row: dict) -> bool:
    """Store one verified evaluation in its own transaction; False when
    that decision is verified at that depth already (a rerun: nothing
    written).  Never over the match's analysis: another table."""
    store._writable()
    values = dict(row)
    values.setdefault("verified_at", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    with write_transaction(store.conn) as conn:
        if conn.execute("SELECT 1 FROM verifications WHERE decision_id = ? AND plies = ?",
                        (int(values["decision_id"]), int(values["plies"]))).fetchone():
            return False
        conn.execute(f"INSERT INTO verifications({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                     [values.get(c) for c in COLUMNS])
    return True


def done_at(store, decision_ids, plies_of: dict) -> set:
    """The decisions among ``decision_ids`` verified already at the depth
    ``plies_of[id]`` asks for."""
    rows = _in_parts(store.conn, "SELECT decision_id, plies FROM verifications WHERE decision_id IN ", decision_ids)
    return {int(d) for d, p in rows if plies_of.get(int(d)) == int(p)}


def overlay_rows(store, rows: dict) -> dict:
    """Decision rows (``store.decision_rows`` dicts by id) with each
    verified decision's best move, candidate list (checker) or cube
    equities at its deepest evaluation, and ``verified_plies`` (SPEC §16:
    what a quiz grades and an Anki card shows).  A database without
    verifications: the rows as they are, no key added."""
    if not rows or not has_any(store):
        return rows
    deep = deepest(store, list(rows))
    for rid, r in rows.items():
        v = deep.get(int(rid))
        r["verified_plies"] = None if v is None else int(v["plies"])
        if v is None:
            continue
        if r.get("kind") == "checker" and v.get("candidates") is not None:
            r["candidates"] = v["candidates"]
            r["played_index"] = v.get("played_index")  # the played move's place in that list
        elif v.get("nd") is not None:
            r["nd"], r["dt"], r["dp"] = v["nd"], v["dt"], v["dp"]
            r["cube_probs"] = None  # the depth check keeps no cube chances: none at that depth
        r["best_move"] = v["best_move"]
    return rows
