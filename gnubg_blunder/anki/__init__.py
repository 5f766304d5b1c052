"""Anki: the decisions of a filter as Anki notes (``anki export``) and the
reviews of those notes read back as study actions (``anki sync``).
docs/anki.md.

- :mod:`.notes`: which decisions become notes (one per decision key:
  position, question, cube, score) and what each shows;
- :mod:`.apkg`: the note type, the deck and the ``.apkg`` (genanki);
- :mod:`.sync`: the review log of our notes, read from a copy of the
  user's collection;
- :mod:`.command`: the ``anki`` command (export | sync).
"""

# Fixed for ever: Anki recognises our deck and note type by these ids, and a
# note by its GUID (genanki.guid_for(GUID_SALT, note key)), so that a second
# export updates the notes a first one made instead of adding new ones.
DECK_ID = 1_734_090_112_501
DECK_NAME = "gnubg-blunder"
MODEL_ID = 1_734_090_112_502
MODEL_NAME = "gnubg-blunder decision"
GUID_SALT = "gnubg-blunder decision"
