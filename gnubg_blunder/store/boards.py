"""Reads of the boards a checker play leaves (for the blot bias, SPEC §12).

Kept beside ``sqlite.py`` (all SQL lives in ``store/``); a PostgreSQL engine
would answer the same question.  The array cache keeps the blots of those
boards for the wrong plays (``sqlite._pack``): ``biases`` reads no board row
by row on a selection the store made."""

from __future__ import annotations

from ..codec.candidates import decode


def _select(where: str) -> str:
    """(decision id, board the played move left, the stored candidate list,
    the decision's board, dice and played index) of the checker plays
    ``where`` picks."""
    return ("SELECT d.id, r.position_after, c.candidates, d.position_id, d.dice1, d.dice2, d.played_index "
            "FROM decisions d "
            "LEFT JOIN rolls r ON r.analysis_id = d.analysis_id AND r.game = d.game AND r.seq = d.seq "
            "LEFT JOIN decision_candidates c ON c.decision_id = d.id "
            f"WHERE d.kind = 'checker' AND {where}")


def _result(after, blob, pid, d1, d2, played_index) -> tuple:
    """(after, found among the candidates' boards, the first candidate's
    board).  A list stored as steps resolves the played candidate first (by
    the import, the first whose board is ``after``), then the others only
    when that one is not it (boards only: their steps applied, no notation)."""
    cands = decode(blob, pid, (d1, d2))
    n = len(cands)
    if not n:
        return after, False, None
    best = cands.board(0)
    found = False
    if after is not None:
        if played_index is not None and 0 <= played_index < n and cands.board(played_index) == after:
            found = True
        else:
            found = any(cands.board(k) == after for k in range(n))
    return after, found, best


def checker_results(store, row_ids) -> dict:
    """{decision id: (board left by the played move, that board is one of
    the analysis' candidates' boards, board of the analysis' first
    candidate)} for the checker plays ``row_ids``, as position IDs (mover
    still on roll; None unknown).  The first is the roll's
    ``position_after`` (the replay of the move the file records); the played
    move is recognised by that board among the stored candidates' boards,
    never by its notation."""
    ids = sorted(int(i) for i in row_ids)  # in key order: neighbouring pages
    out: dict = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        rows = store.conn.execute(_select(f"d.id IN ({','.join('?' * len(part))})"), part)
        for row_id, *rest in rows.fetchall():
            out[row_id] = _result(*rest)
    return out


def wrong_play_results(conn, analysis_id: int) -> dict:
    """:func:`checker_results` of the analysis' checker plays with e > 0
    (the plays whose boards the blot bias reads; a superset of those wrong
    in micro-EMG), one query: for the array cache (``sqlite._pack``)."""
    rows = conn.execute(_select("d.analysis_id = ? AND d.error > 0"), (analysis_id,))
    return {row_id: _result(*rest) for row_id, *rest in rows.fetchall()}
