"""Where gnubg's GUI lists a decision in its game record (docs/review.md,
"gnubg's game record").

gnubg's game-record window numbers its rows, two columns a row (the match's
first player on the left, the second on the right); our move index (the
decision's record in its game, ``seq + 1``) counts every record and is not
that number.  This module gives gnubg's row from what the store keeps of a
game: the ``seq`` and player of each of its records (the rolls and the cube
actions, a no double sharing its roll's record).

gnubg 1.07's rule (its game list, read from the real gnubg's widget in
tests/test_game_record_rows.py): each record shown goes into the last row,
unless there is no row yet, or the last row's right-hand cell is filled, or
the record is the first player's and the left-hand cell is filled: then
into a new row.  The first record of a game is row 1 (the game's
information has no row).  A double and its take or drop share a row when
the first player doubled (left, then right); after the second player's
double the answer opens the next row.
"""

from __future__ import annotations

from typing import Iterable, Optional

from .model import BEAVER
from .lazy import lazy

np = lazy("numpy")
_ordering = lazy("gnubg_blunder.ordering")

GNUBG_SOURCES = ("sgf", "gnubg")  # XG files: gnubg's import of them lists records of its own making


def gnubg_rows(records: Iterable[tuple]) -> dict:
    """{seq: gnubg's row (from 1)} for one game's stored records, given as
    (seq, player, beaver) triples (several of one record count once;
    ``beaver``: the record is a beaver, model.BEAVER).

    The records the store does not keep are found from the gaps in ``seq``.
    Those after a beaver, up to the take or drop closing its chain, are
    raccoons (gnubg lists them as doubles), made by the two players in turn,
    the beaverer's opponent first.  Any other gap (a "set" record of the
    file) ends the rows: gnubg lists that record and the store cannot say in
    which cell, so the records after it have no row."""
    by_seq: dict = {}
    for seq, player, beaver in records:
        by_seq.setdefault(int(seq), (int(player), int(beaver) == BEAVER))
    rows: dict = {}
    row = 0
    filled = [False, False]
    raccoon = None  # the player of the next unstored record after a beaver
    for seq in range(max(by_seq, default=-1) + 1):
        if seq in by_seq:
            player, beaver = by_seq[seq]
            raccoon = 1 - player if beaver else None
        elif raccoon is not None:
            player, raccoon = raccoon, 1 - raccoon
        else:
            break
        if row == 0 or filled[1] or (player == 0 and filled[0]):
            row += 1
            filled = [False, False]
        filled[player] = True
        if seq in by_seq:
            rows[seq] = row
    return rows


def place_text(row: Optional[int], column: Optional[str]) -> str:
    """A decision's place in gnubg's game record, as a player looks it up:
    ``row 10, Weakbot``; ``row —`` when the store cannot give it."""
    if row is None:
        return "row —"
    return f"row {row}, {column}"


def gnubg_rows_of_records(game, seq, player, beaver):
    """:func:`gnubg_rows` of many games at once, for records given as equal
    arrays (``game``: any integer naming the record's game): each record's
    row, 0 where it has none.  Over 10,000 matches the report asks for the
    rows of 15,000 games (500,000 records), which :func:`gnubg_rows` record
    by record took most of a second.

    A game whose records run seq 0, 1, 2 ... without a gap, by players 0
    and 1, has its rows in closed form: the rule above opens a new row for
    the game's first record, for every record of the first player (one of
    the cells is filled already), and for a record of the second player
    after another of the second player's (the right-hand cell is filled).
    The other games (a gap: raccoons, a "set" record) go through
    :func:`gnubg_rows` itself.  Several records of one seq count once, the
    first in (seq, player, beaver) order, as there."""
    game, seq, player, beaver = (np.asarray(col) for col in (game, seq, player, beaver))
    out = np.zeros(len(game), dtype=np.int64)
    if not len(game):
        return out
    order = _ordering.lexsort_order((game, seq, player, beaver))
    g, s = game[order], seq[order]
    counted = np.ones(len(g), dtype=bool)  # the record counted for its (game, seq)
    counted[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    kept = np.nonzero(counted)[0]
    kg, ks, kp, kb = g[kept], s[kept], player[order][kept], beaver[order][kept]
    opens = np.ones(len(kg), dtype=bool)  # a game's first record
    opens[1:] = kg[1:] != kg[:-1]
    starts = np.nonzero(opens)[0]
    which = np.cumsum(opens) - 1  # the record's game, 0, 1, ... in order
    irregular = (ks != np.arange(len(kg)) - starts[which]) | ((kp != 0) & (kp != 1))
    irregular_game = np.add.reduceat(irregular.astype(np.int64), starts) > 0
    new_row = opens | (kp == 0)
    new_row[1:] |= kp[:-1] == 1
    opened = np.cumsum(new_row)
    rows = opened - (opened[starts] - 1)[which]
    ends = np.append(starts[1:], len(kg))
    for k in np.nonzero(irregular_game)[0].tolist():
        a, b = int(starts[k]), int(ends[k])
        found = gnubg_rows(zip(ks[a:b].tolist(), kp[a:b].tolist(), kb[a:b].tolist()))
        rows[a:b] = [found.get(x, 0) for x in ks[a:b].tolist()]
    out[order] = rows[np.cumsum(counted) - 1]
    return out


ROWS_BLOCK = 100_000  # records a block of selection_gnubg_rows


def selection_gnubg_rows(store, sel, idx) -> dict:
    """{decision index of ``sel``: its row in gnubg's game record, or None}
    for the decisions ``idx`` (the rule: :func:`gnubg_rows`; None for an
    analysis whose records are not gnubg's).  From the selection's own
    game, seq, player and beaver columns of decisions and rolls when it
    holds every record of its analyses (``Selection.whole_analyses``: the
    report over 10,000 matches read 500,000 records of SQLite for them),
    else from the store (``gnubg_rows``)."""
    idx = np.asarray(idx, dtype=np.int64)
    if not len(idx):
        return {}
    dec = sel.decisions
    if not sel.whole_analyses:
        ids = dec.values_at("row_id", idx).tolist()
        places = store.gnubg_rows(ids)
        return {i: places.get(r) for i, r in zip(idx.tolist(), ids)}
    rolls = sel.rolls
    gnubg = np.array([m.analysis_source in GNUBG_SOURCES for m in sel.matches], dtype=bool)
    games = int(max(dec.game.max(initial=0), rolls.game.max(initial=0))) + 1
    asked = idx[gnubg[dec.match[idx]]]
    wanted = np.zeros(len(sel.matches) * games, dtype=bool)  # by match * games + game
    wanted[dec.match[asked].astype(np.int64) * games + dec.game[asked]] = True

    def records_of(part, beaver):
        """The records of ``part`` (decisions or rolls) in the games asked
        for: their rows, match, game key, seq, player and beaver, each
        column read for those rows alone (not kept)."""
        rows = np.nonzero(wanted[part.match.astype(np.int64) * games + part.game])[0]
        match = part.match[rows]
        return (rows, match, match.astype(np.int64) * games + part.game[rows], part.values_at("seq", rows),
                part.values_at("player", rows),
                part.values_at("beaver_take", rows) if beaver else np.zeros(len(rows), dtype=np.int8))

    dec_records, roll_records = records_of(dec, True), records_of(rolls, False)
    found = np.zeros(len(asked), dtype=np.int64)
    asked_rows = np.searchsorted(dec_records[0], asked)
    asked_match = dec.match[asked]
    # a block of matches at a time: the sort's arrays of 1 M records took 100 MB at the report's peak
    counts = np.bincount(np.concatenate([dec_records[1], roll_records[1]]), minlength=len(sel.matches))
    bounds = np.searchsorted(np.cumsum(counts), np.arange(ROWS_BLOCK, int(counts.sum()), ROWS_BLOCK), "right")
    for low, high in zip([0, *bounds.tolist()], [*bounds.tolist(), len(sel.matches)]):
        in_dec = np.nonzero((dec_records[1] >= low) & (dec_records[1] < high))[0]
        in_roll = np.nonzero((roll_records[1] >= low) & (roll_records[1] < high))[0]
        here = np.nonzero((asked_match >= low) & (asked_match < high))[0]
        if not len(here):
            continue
        rows = gnubg_rows_of_records(*(np.concatenate([d[in_dec], r[in_roll]])
                                       for d, r in zip(dec_records[2:], roll_records[2:])))
        found[here] = rows[np.searchsorted(in_dec, asked_rows[here])]
    out = dict.fromkeys(idx.tolist())
    for i, row in zip(asked.tolist(), found.tolist()):
        out[i] = row or None
    return out
