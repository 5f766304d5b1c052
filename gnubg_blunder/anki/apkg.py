"""The note type, the deck and the ``.apkg`` file (genanki).  docs/anki.md.

The boards are inline SVG in the fields (no media files): Anki draws its
cards in a web view (Qt WebEngine on the desktop, Android's WebView in
AnkiDroid, WKWebView in AnkiMobile), which draws an ``<svg>`` element like
any browser, as the HTML report's boards are drawn.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Optional

from . import DECK_ID, DECK_NAME, GUID_SALT, MODEL_ID, MODEL_NAME
from ..lazy import lazy

genanki = lazy("genanki")

# The note type's fields, in order.  Key is the sort field (the browser's
# column); PositionID and DecisionID let `anki sync` place a review of a
# note this database did not export.  Never reorder or rename: Anki keys
# the note type by MODEL_ID and would import a changed one as a new type.
FIELDS = ("Key", "Board", "Question", "Cube", "Score", "Best", "YourMove", "Cost", "Candidates", "BoardAfter",
          "Source", "PositionID", "DecisionID")

FRONT = """<div class="bgb">
<div class="bgb-board-box">{{Board}}</div>
<p class="bgb-q">{{Question}}</p>
<p class="bgb-state">{{Cube}} &middot; {{Score}}</p>
</div>"""

BACK = """{{FrontSide}}
<hr id="answer">
<div class="bgb">
<p>Best: <b>{{Best}}</b></p>
<p>Your move: {{YourMove}} &mdash; {{Cost}}</p>
{{Candidates}}
<div class="bgb-board-box">{{BoardAfter}}</div>
<p class="bgb-src">{{Source}}</p>
</div>"""

CSS = """.card { font-family: Verdana, Arial, sans-serif; font-size: 16px; text-align: center; }
.bgb svg { max-width: 100%; height: auto; }
.bgb-ask { font-weight: bold; }
.bgb-cands { margin: 0.5em auto; border-collapse: collapse; }
.bgb-cands td, .bgb-cands th { padding: 0.1em 0.6em; text-align: right; }
.bgb-cands td:first-child, .bgb-cands th:first-child { text-align: left; }
.bgb-played { font-weight: bold; }
.bgb-chances { margin: 0.5em auto; border-collapse: collapse; font-size: 14px; }
.bgb-chances td, .bgb-chances th { padding: 0.1em 0.3em; text-align: right; white-space: nowrap; }
.bgb-chances td:first-child { text-align: left; white-space: normal; }
.bgb-chances caption { font-size: 12px; color: #666; }
.bgb-src { font-size: 12px; color: #666; }"""


def model():
    return genanki.Model(
        MODEL_ID, MODEL_NAME,
        fields=[{"name": f} for f in FIELDS],
        templates=[{"name": "Decision", "qfmt": FRONT, "afmt": BACK}],
        css=CSS, sort_field_index=0)


def guid(key: str) -> str:
    """The note's GUID: from its decision key alone, so the same key always
    gives the same note."""
    return genanki.guid_for(GUID_SALT, key)


def content(fields: dict, tags) -> str:
    """A digest of what a note shows (its fields in ``FIELDS`` order and its
    tags): two exports of a note with the same digest hold the same note."""
    return hashlib.sha256(json.dumps([[fields.get(f, "") for f in FIELDS], sorted(tags or [])],
                                     ensure_ascii=False).encode()).hexdigest()


def _note_class():
    class Note(genanki.Note):
        """A note with its own modification time (``mtime``, epoch seconds):
        Anki updates its copy of a note only from a package whose note is
        newer, so an unchanged note keeps the time it last changed."""

        mtime: Optional[float] = None

        def write_to_db(self, cursor, timestamp, deck_id, id_gen):
            return super().write_to_db(cursor, timestamp if self.mtime is None else self.mtime, deck_id, id_gen)

    return Note


def write(path, notes: list, timestamp: Optional[float] = None) -> list:
    """Write ``notes`` ([{"key", "fields": {name: html}, "tags", "mtime"}])
    as one deck to ``path``; returns the GUIDs in order.  ``timestamp``: the
    modification time of the notes without an ``mtime`` of their own
    (default now; Anki updates an existing note from a package whose note
    is newer)."""
    Note = _note_class()
    m = model()
    deck = genanki.Deck(DECK_ID, DECK_NAME, description="Your decisions from gnubg-blunder: "
                        "the board, the dice, the cube and the score; your move, double, take or pass?")
    guids = []
    for rank, n in enumerate(notes):
        g = guid(n["key"])
        guids.append(g)
        note = Note(model=m, fields=[n["fields"].get(f, "") for f in FIELDS], tags=n.get("tags", []), guid=g,
                    due=rank)
        note.mtime = n.get("mtime")
        deck.add_note(note)
    genanki.Package(deck).write_to_file(str(path), timestamp=timestamp if timestamp is not None else time.time())
    return guids
