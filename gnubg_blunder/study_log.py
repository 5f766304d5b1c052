"""The study log's words and times (the ``study_actions`` table, SPEC
§11): the actions a player's study leaves (a position marked studied, a
quiz answer, an Anki review) and the UTC time and day of a stored time.
Below the store, which writes them (``mark studied``: one mark a UTC day),
and the metrics, which read them (metrics/study.py)."""

from __future__ import annotations

import datetime as _dt
from typing import Optional

STUDIED, QUIZ = "studied", "quiz"
# the actions ``anki sync`` stores (store/anki_notes.py REVIEW_ACTIONS: Anki's review log kinds)
ANKI_REVIEW, ANKI_LEARN, ANKI_RELEARN, ANKI_CRAM = "anki review", "anki learn", "anki relearn", "anki cram"
ANKI_ACTIONS = (ANKI_REVIEW, ANKI_LEARN, ANKI_RELEARN, ANKI_CRAM)
STUDY_ACTIONS = (STUDIED, QUIZ) + ANKI_ACTIONS  # SPEC §11; a card created or a collection is not one
REVIEW_ACTIONS = (QUIZ,) + ANKI_ACTIONS  # "positions reviewed" of study vs play


def utc_time(at: str) -> Optional[_dt.datetime]:
    """A stored time (ISO 8601; without an offset it is UTC) as an aware
    UTC datetime; None when it does not read."""
    try:
        t = _dt.datetime.fromisoformat(str(at).replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        return t.replace(tzinfo=_dt.timezone.utc)
    return t.astimezone(_dt.timezone.utc)


def utc_day(at: str) -> Optional[str]:
    """The UTC day (YYYY-MM-DD) of a stored time; None when it does not read."""
    t = utc_time(at)
    return None if t is None else t.date().isoformat()
