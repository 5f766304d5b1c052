"""Reads of the boards a checker play leaves (for the blot bias, SPEC §12).

Kept beside ``sqlite.py`` (all SQL lives in ``store/``); a PostgreSQL engine
would answer the same question."""

from __future__ import annotations


def checker_results(store, analysis_ids) -> dict:
    """{decision id: (board left by the played move, board of the candidate
    the analysis judged as played, board of the analysis' first candidate)}
    for every checker play of the analyses, as position IDs (mover still on
    roll; None unknown).  The first is the roll's ``position_after`` (the
    replay of the move as the file records it), the other two come from the
    stored candidate list (``played_index`` and index 0)."""
    ids = [int(i) for i in analysis_ids]
    out: dict = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        rows = store.conn.execute(
            "SELECT d.id, r.position_after, "
            "json_extract(c.candidates, '$[' || d.played_index || '].position_id'), "
            "json_extract(c.candidates, '$[0].position_id') "
            "FROM decisions d "
            "LEFT JOIN rolls r ON r.analysis_id = d.analysis_id AND r.game = d.game AND r.seq = d.seq "
            "LEFT JOIN decision_candidates c ON c.decision_id = d.id "
            f"WHERE d.kind = 'checker' AND d.analysis_id IN ({','.join('?' * len(part))})",
            part,
        )
        for row_id, after, played, best in rows:
            out[row_id] = (after, played, best)
    return out
