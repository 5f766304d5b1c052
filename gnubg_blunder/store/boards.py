"""Reads of the boards a checker play leaves (for the blot bias, SPEC §12).

Kept beside ``sqlite.py`` (all SQL lives in ``store/``); a PostgreSQL engine
would answer the same question.  The array cache keeps the blots of those
boards for the wrong plays (``sqlite._pack``): ``biases`` reads no board row
by row on a selection the store made."""

from __future__ import annotations

# the key as the store writes each candidate (json.dumps: ", " and ": ")
_KEY = '"position_id": '


def _select(where: str) -> str:
    """(decision id, board the played move left, that board is among the
    stored candidates', the first candidate's value as text) of the checker
    plays ``where`` picks."""
    key, key_str = _KEY, _KEY + '"'
    return ("SELECT d.id, r.position_after, "
            f"instr(c.candidates, '{key_str}' || r.position_after || '\"') > 0, "
            f"substr(c.candidates, instr(c.candidates, '{key}') + {len(key)}, 41) "
            "FROM decisions d "
            "LEFT JOIN rolls r ON r.analysis_id = d.analysis_id AND r.game = d.game AND r.seq = d.seq "
            "LEFT JOIN decision_candidates c ON c.decision_id = d.id "
            f"WHERE d.kind = 'checker' AND {where}")


def _result(after, found, best) -> tuple:
    # the first candidate's value: a quoted ID, or null (no board)
    best = best.split('"', 2)[1] if best and best.startswith('"') and best.count('"') >= 2 else None
    return after, bool(found), best


def checker_results(store, row_ids) -> dict:
    """{decision id: (board left by the played move, that board is one of
    the analysis' candidates' boards, board of the analysis' first
    candidate)} for the checker plays ``row_ids``, as position IDs (mover
    still on roll; None unknown).  The first is the roll's
    ``position_after`` (the replay of the move the file records); the played
    move is recognised by that board among the stored candidates' boards,
    never by its notation; the first candidate's board is the first
    ``position_id`` of the stored list (read as text: no JSON parse)."""
    ids = sorted(int(i) for i in row_ids)  # in key order: neighbouring pages
    out: dict = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        rows = store.conn.execute(_select(f"d.id IN ({','.join('?' * len(part))})"), part)
        for row_id, after, found, best in rows.fetchall():
            out[row_id] = _result(after, found, best)
    return out


def wrong_play_results(conn, analysis_id: int) -> dict:
    """:func:`checker_results` of the analysis' checker plays with e > 0
    (the plays whose boards the blot bias reads; a superset of those wrong
    in micro-EMG), one query: for the array cache (``sqlite._pack``)."""
    rows = conn.execute(_select("d.analysis_id = ? AND d.error > 0"), (analysis_id,))
    return {row_id: _result(after, found, best) for row_id, after, found, best in rows.fetchall()}
