"""Writing a match's analysis rows: the analysis, its decisions with their
candidate lists, its rolls.  Called by :meth:`SQLiteStore.add_match` inside
its one transaction per match (store/sqlite.py)."""

from __future__ import annotations

import datetime as _dt

from ..codec.paths import stored_path
from ..model import LazyCandidates, Match
from ..codec.candidates import encode_many, probs_text


def utc_now() -> str:
    """The import time stored with matches, analyses and study actions (UTC, seconds)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def insert_analysis(conn, match_id: int, match: Match) -> int:
    a = match.analysis
    cur = conn.execute(
        """INSERT INTO analyses(match_id, source, source_path, source_player0, source_player1,
           engine, engine_version, depth, depth_label, met, met_assumed, imported_at)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?)""",
        (
            match_id, match.source, stored_path(match.source_path), match.players[0], match.players[1],
            a.engine, a.engine_version, a.depth, a.depth_label, a.met, int(a.met_assumed), utc_now(),
        ),
    )
    return cur.lastrowid

def insert_decisions(conn, analysis_id: int, match: Match, difficulties) -> None:
    """The match's decisions, each with its difficulty d (``difficulties``:
    the store's derived rule, store/derived.py, SPEC §6), their candidate
    lists."""
    cols = ("analysis_id, game, seq, player, kind, position_id, cube_value, cube_owner, score_self, "
            "score_opp, crawford, dice1, dice2, played_move, best_move, error, mwc_per_emg, nd, dt, dp, "
            "n_legal, n_candidates, equity_spread, played_index, xg_counted, beaver_take, gnubg_dead_cube, "
            "depth, comment, duration, phase, game_plan, theme, difficulty, difficulty_truncated, cube_probs")
    sql = f"INSERT INTO decisions({cols}) VALUES ({','.join('?' * (cols.count(',') + 1))})"
    decisions = list(match.decisions())
    hard = difficulties([{
        "kind": d.kind, "error": d.error, "n_legal": d.n_legal, "n_candidates": d.n_candidates,
        "equity_spread": d.equity_spread, "xg_counted": d.xg_counted, "nd": d.nd, "dt": d.dt, "dp": d.dp,
        "beaver_take": d.beaver_take, "equities": d.equities,
    } for d in decisions])
    conn.executemany(sql, [(
        analysis_id, d.game, d.seq, d.player, d.kind, d.position_id, d.cube_value,
        d.cube_owner, d.score_self, d.score_opp, int(d.crawford),
        d.dice[0] if d.dice else None, d.dice[1] if d.dice else None,
        d.played_move, d.best_move, d.error, d.mwc_per_emg, d.nd, d.dt, d.dp,
        d.n_legal, d.n_candidates, d.equity_spread, d.played_index,
        None if d.xg_counted is None else int(d.xg_counted), int(d.beaver_take),
        int(d.gnubg_dead_cube), d.depth, d.comment, d.duration,
        d.phase, d.game_plan, d.theme, hard_d, hard_truncated, probs_text(d.cube_probs),
    ) for d, (hard_d, hard_truncated) in zip(decisions, hard)])
    # Inside this transaction the new rows took consecutive ids ending at
    # the largest one: each decision's id, for its candidate list.
    last = conn.execute("SELECT MAX(id) FROM decisions").fetchone()[0] or 0
    first = last - len(decisions) + 1
    with_lists = [(first + k, d.candidates) for k, d in enumerate(decisions) if d.candidates]
    blobs = encode_many([_columns(c) for _, c in with_lists])
    cands_rows = [(row_id, blob) for (row_id, _), blob in zip(with_lists, blobs)]
    conn.executemany("INSERT INTO decision_candidates(decision_id, candidates) VALUES (?, ?)", cands_rows)
    conn.executemany(
        """INSERT INTO rolls(analysis_id, game, seq, player, dice1, dice2, position_id,
           position_after, cube_value, luck, mwc_per_emg) VALUES (?,?,?,?,?,?,?,?,?,?,?)""",
        [
            (analysis_id, r.game, r.seq, r.player, r.dice[0], r.dice[1], r.position_id,
             r.position_after, r.cube_value, r.luck, r.mwc_per_emg)
            for r in match.rolls()
        ],
    )


def _columns(cands) -> tuple:
    """The columns ``candidates.encode_many`` stores: an importer's list as
    read (letters, no board: they are worked out from the steps when shown),
    or resolved candidates (their notation and boards)."""
    if isinstance(cands, LazyCandidates):
        return cands.letters, False, cands.equities(), cands.probs, None, cands.depths
    return ([c.move for c in cands], True, [c.equity for c in cands], [c.probs for c in cands],
            [c.position_id for c in cands], [c.depth for c in cands])
