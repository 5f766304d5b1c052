"""A PNG of one exported Anki card as Anki renders it (front, or the back
with the answer), drawn by headless Chromium: the package imported into a
new collection by Anki's own backend (the `anki` package), the card's HTML
from ``card.question()`` / ``card.answer()``, its note type's CSS, in a
page of a phone-like width.

    python tests/tools/anki_card_image.py DECK.apkg DECISION_ID OUT.png [--front] [--width 480]

DECISION_ID is the note's DecisionID field (`anki export --format json`
lists each note's decision_id).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_height import screenshot  # noqa: E402


def card_html(apkg: Path, decision_id: int, front: bool = False) -> str:
    """The card of the note showing ``decision_id`` as one HTML page."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    with tempfile.TemporaryDirectory() as tmp:
        col = Collection(str(Path(tmp) / "collection.anki2"))
        try:
            col.import_anki_package(ImportAnkiPackageRequest(
                package_path=str(apkg), options=ImportAnkiPackageOptions(with_scheduling=False)))
            for nid in col.find_notes(""):
                note = col.get_note(nid)
                if note["DecisionID"] == str(decision_id):
                    card = note.cards()[0]
                    body = card.question() if front else card.answer()
                    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                            f'<body class="card">{body}</body></html>')
        finally:
            col.close()
    raise SystemExit(f"{apkg}: no note shows decision {decision_id}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("apkg", type=Path)
    p.add_argument("decision_id", type=int)
    p.add_argument("png", type=Path)
    p.add_argument("--front", action="store_true", help="the front (the question) instead of the back")
    p.add_argument("--width", type=int, default=480)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "card.html"
        page.write_text(card_html(args.apkg, args.decision_id, args.front), encoding="utf-8")
        screenshot(page, args.png, width=args.width)
    print(args.png)


if __name__ == "__main__":
    main()
