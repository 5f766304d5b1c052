"""The one query over the stored candidate lists the store makes; the lists'
form is :mod:`gnubg_blunder.codec.candidates`."""

from __future__ import annotations

from ..codec.candidates import second_cost


def second_costs(conn, decision_ids) -> dict:
    """{decision id: max(0, eq₁ − eq₂)} of the stored lists of
    ``decision_ids`` with two candidates with an equity (no play resolved).
    The ids are asked for in their order (a block of 900 a query: rows
    near one another in the table's pages, not 900 spread over the file;
    the references' 67,000 lists over 10,000 matches, 0.19 → 0.08 s of
    reading)."""
    ids = sorted({int(i) for i in decision_ids})
    out = {}
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        for did, blob in conn.execute(
                f"SELECT decision_id, candidates FROM decision_candidates WHERE decision_id IN "
                f"({','.join('?' * len(part))})", part):
            cost = second_cost(blob)
            if cost is not None:
                out[did] = cost
    return out
