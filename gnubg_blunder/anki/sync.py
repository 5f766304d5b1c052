"""The reviews of our notes, read from the user's Anki collection (never
written).  docs/anki.md.

The collection file (and its ``-wal``, where Anki keeps what it has not yet
written into the file) is copied into this run's temporary folder
(run_files.run_folder: a killed sync's copy is removed by the next run) and
the copy is read with sqlite3.  Our notes are those whose GUID this database exported
(``anki_notes``) or whose note type is ours (``MODEL_ID``; their position is
read from the note's PositionID field).
"""

from __future__ import annotations

import datetime as _dt
import shutil
import sqlite3
import tempfile
from pathlib import Path

from . import MODEL_ID
from ..errors import UserError
from .apkg import FIELDS
from ..run_files import run_folder
from ..store.anki_notes import REVIEW_ACTIONS

CLOSE_ANKI = "close Anki (or wait until it has saved) and run `anki sync` again"


class CollectionError(UserError):
    """The collection cannot be read (one line for the user)."""


def _utc(ms: int) -> str:
    t = _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.timezone.utc)
    return t.isoformat(timespec="milliseconds")


def _unicase(a: str, b: str) -> int:
    a, b = a.casefold(), b.casefold()
    return (a > b) - (a < b)


def _refuse_a_package(src: Path) -> None:
    """An Anki package (.apkg/.colpkg: a zip file) holds no review of
    yours: the reviews are in the collection file.  Said plainly, not as
    "close Anki" (which the copy of a zip would end in)."""
    try:
        with open(src, "rb") as fh:
            zipped = fh.read(4) == b"PK\x03\x04"
    except OSError:
        return
    if zipped or src.suffix.lower() in (".apkg", ".colpkg"):
        raise CollectionError(f"{src}: an Anki package, not a collection: `anki sync` reads your reviews from "
                              "Anki's collection file, collection.anki2 in your Anki profile's folder "
                              "(e.g. ~/.local/share/Anki2/User 1/collection.anki2)")


def read_reviews(path, our_notes: dict, say=None) -> dict:
    """The reviews of our notes in the collection at ``path``:
    {"reviews": [{"position_id", "decision_id", "action", "grade", "at",
    "revlog_id", "guid"}], "anki_open": bool (a -wal file was beside it),
    "skipped": reviews of our notes that are no answer (Anki's manual
    reschedules, grade 0)}.  ``our_notes``: {guid: {"position_id",
    "decision_id"}} (``store.anki_notes.notes``).  ``say``: where the line
    of a killed run's leftovers removed goes (standard error by default)."""
    src = Path(path)
    if not src.is_file():
        raise CollectionError(f"{path}: no such file (Anki's collection is collection.anki2 in your profile folder)")
    _refuse_a_package(src)
    wal = Path(str(src) + "-wal")
    try:
        folder = run_folder(say)
    except OSError as exc:
        raise CollectionError(f"{path}: no temporary folder to copy it into ({exc.strerror or exc})") from None
    with tempfile.TemporaryDirectory(prefix="anki-", dir=folder) as tmp:
        copy = Path(tmp) / "collection.anki2"
        try:
            shutil.copyfile(src, copy)
            if wal.exists():
                shutil.copyfile(wal, Path(str(copy) + "-wal"))
        except OSError as exc:
            raise CollectionError(f"{path}: cannot copy it ({exc.strerror or exc}): {CLOSE_ANKI}") from None
        conn = sqlite3.connect(str(copy))
        try:
            conn.create_collation("unicase", _unicase)
            try:
                ok = conn.execute("PRAGMA quick_check").fetchone()[0]
                if ok != "ok":
                    raise CollectionError(f"{path}: the copy read is not whole ({ok}): {CLOSE_ANKI}")
                pos_field = FIELDS.index("PositionID")
                dec_field = FIELDS.index("DecisionID")
                cur = conn.execute(
                    "SELECT r.id, r.ease, r.type, n.guid, n.mid, n.flds FROM revlog r "
                    "JOIN cards c ON c.id = r.cid JOIN notes n ON n.id = c.nid ORDER BY r.id")
                reviews, skipped = [], 0
                for rid, ease, rtype, guid, mid, flds in cur:
                    known = our_notes.get(guid)
                    if known is None and mid != MODEL_ID:
                        continue
                    if known is None:
                        parts = flds.split("\x1f")
                        pid = parts[pos_field] if len(parts) > pos_field else ""
                        did = parts[dec_field] if len(parts) > dec_field else ""
                        known = {"position_id": pid.strip(), "decision_id": int(did) if did.strip().isdigit()
                                 else None}
                        if not known["position_id"]:
                            continue
                    if not ease or rtype not in REVIEW_ACTIONS:
                        skipped += 1  # a manual reschedule, not an answer
                        continue
                    reviews.append({"position_id": known["position_id"], "decision_id": known.get("decision_id"),
                                    "action": REVIEW_ACTIONS[rtype], "grade": int(ease), "at": _utc(rid),
                                    "revlog_id": int(rid), "guid": guid})
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "no such table" in str(exc):
                    raise CollectionError(f"{path}: not an Anki collection ({exc})") from None
                raise CollectionError(f"{path}: the copy cannot be read ({exc}): {CLOSE_ANKI}") from None
        finally:
            conn.close()
    return {"reviews": reviews, "anki_open": wal.exists(), "skipped": skipped}
