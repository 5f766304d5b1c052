"""Store reads for the study views (SPEC §11, §14: before / after study,
training, study vs play).  Functions of the store (its ``conn``), kept apart
from ``store/sqlite.py``: they only read.  docs/study.md."""

from __future__ import annotations


def position_labels(store, position_ids) -> list:
    """The distinct ``(position_id, kind, game_plan, theme)`` of every
    stored decision at ``position_ids`` (every match, both sides, every
    analysis): what gives a position its game plan (metrics/study.py
    ``position_game_plans``; a family's positions are its members',
    ``member_positions``)."""
    pids = sorted({p for p in position_ids if p})
    out = []
    for start in range(0, len(pids), 500):
        part = pids[start:start + 500]
        out += self_rows(store, "SELECT DISTINCT position_id, kind, game_plan, theme FROM decisions "
                         f"WHERE position_id IN ({','.join('?' * len(part))})", part)
    return out


def self_rows(store, sql: str, args) -> list:
    return [tuple(r) for r in store.conn.execute(sql, list(args)).fetchall()]
