"""Match transcripts as other programs write them, made from a real .mat
in the test's folder (importers/transcript.py tells them by their lines)."""

from __future__ import annotations

from pathlib import Path


def backgammon_studio_txt(mat: Path, out: Path) -> Path:
    """The transcript of ``mat`` as Backgammon Studio exports it: a .txt
    with Backgammon Studio's header, then the same `` N point match``."""
    body = mat.read_text(encoding="utf-8")
    header = ('; [Site "Backgammon Studio"]\n; [Match ID "4242424242"]\n; [Player 1 "charlot1"]\n'
              '; [Player 2 "charlot2"]\n; [EventDate "2025.11.08"]\n\n')
    start = body.index(" point match") - 2  # " 7 point match": the length before it
    out.write_text(header + body[body.rindex("\n", 0, start) + 1:], encoding="utf-8")
    return out
