"""The Anki notes exported and the reviews read back (docs/anki.md).

Functions over a :class:`~gnubg_blunder.store.sqlite.SQLiteStore`: its
connection, every write in one ``write_transaction`` (docs/reliability.md).
The tables are schema step 9's ``anki_notes`` and step 8's
``study_actions``; this module adds none.

A review is stored as a study action (SPEC §11) whose ``action`` says the
review's kind in Anki's review log — ``anki learn``, ``anki review``,
``anki relearn``, ``anki cram`` (:data:`REVIEW_ACTIONS`) — with its grade
(Anki's ease: 1 Again, 2 Hard, 3 Good, 4 Easy) and its UTC time to the
millisecond (the review log's id is its time in epoch milliseconds).  The
same review read twice is stored once: a row with the same position, action
and time is that review (two reviews of one collection never share a
millisecond: the log's ids are unique)."""

from __future__ import annotations

from typing import Iterable, Optional

from .schema import StoreError
from .connection import write_transaction

# Anki's revlog.type -> the study action's name (0 learn, 1 review, 2 relearn, 3 filtered deck)
REVIEW_ACTIONS = {0: "anki learn", 1: "anki review", 2: "anki relearn", 3: "anki cram"}
GRADES = {1: "again", 2: "hard", 3: "good", 4: "easy"}


def _writable(store) -> None:
    if getattr(store, "read_only", False):
        raise StoreError(f"cannot write into it: {store.read_only_reason}")


def record_notes(store, notes: Iterable[dict], deck: Optional[str], at: str) -> int:
    """Store (or update) one ``anki_notes`` row per exported note:
    ``guid``, ``note_key``, ``position_id``, ``decision_id`` (the decision
    whose analysis the note shows), the deck, ``exported_at`` (the last
    export), ``content`` (the digest of its fields and tags) and
    ``changed_at`` (the export that last changed them: the note's
    modification time); one transaction.  Returns how many rows were
    written."""
    _writable(store)
    rows = [(n["guid"], n["note_key"], n["position_id"], n.get("decision_id"), deck, at, n.get("content"),
             n.get("changed_at") or at) for n in notes]
    with write_transaction(store.conn) as conn:
        for row in rows:
            # a key exported before keeps its row (same key, same GUID); what changed is updated
            conn.execute("DELETE FROM anki_notes WHERE note_key = ? AND guid != ?", (row[1], row[0]))
            conn.execute(
                "INSERT INTO anki_notes(guid, note_key, position_id, decision_id, deck, exported_at, content, "
                "changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(guid) DO UPDATE SET "
                "note_key = excluded.note_key, position_id = excluded.position_id, "
                "decision_id = excluded.decision_id, deck = excluded.deck, exported_at = excluded.exported_at, "
                "content = excluded.content, changed_at = excluded.changed_at", row)
    return len(rows)


def notes(store) -> dict:
    """{guid: {guid, note_key, position_id, decision_id, deck, exported_at,
    content, changed_at}} of every note exported from this database
    (content and changed_at None for a note exported before schema step 13)."""
    cur = store.conn.execute("SELECT guid, note_key, position_id, decision_id, deck, exported_at, content, "
                             "changed_at FROM anki_notes")
    cols = [c[0] for c in cur.description]
    return {r[0]: dict(zip(cols, r)) for r in cur.fetchall()}


def add_reviews(store, reviews: Iterable[dict]) -> tuple:
    """Store each review (``position_id``, ``action``, ``grade``,
    ``decision_id``, ``at``) once, as a study action; one transaction.
    A review whose (position, action, time) is already stored is skipped.
    Returns (added, already stored)."""
    _writable(store)
    added = skipped = 0
    with write_transaction(store.conn) as conn:
        for r in reviews:
            if conn.execute("SELECT 1 FROM study_actions WHERE position_id = ? AND action = ? AND at = ?",
                            (r["position_id"], r["action"], r["at"])).fetchone():
                skipped += 1
                continue
            conn.execute("INSERT INTO study_actions(position_id, action, grade, decision_id, at) "
                         "VALUES (?, ?, ?, ?, ?)",
                         (r["position_id"], r["action"], r.get("grade"), r.get("decision_id"), r["at"]))
            added += 1
    return added, skipped


def reviews(store) -> list:
    """The Anki reviews stored (study actions named ``anki …``), oldest first."""
    cur = store.conn.execute("SELECT id, position_id, action, grade, decision_id, at FROM study_actions "
                             "WHERE action LIKE 'anki %' ORDER BY at, id")
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]
