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
