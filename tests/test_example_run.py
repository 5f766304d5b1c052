"""The bundled example (``sh examples/run``) shows what the tool is for: a
match with real errors, its figures and its review.

The gnubg-blunder commands of ``examples/run`` are run as written, against a
database of the test's own, with the real gnubg's analysis at 0 plies (the
script uses gnubg's default settings, 2 plies: about 25 s, the same
decisions)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from conftest import needs_gnubg

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "examples" / "run"

pytestmark = needs_gnubg


def example_commands() -> list:
    """The argument lists of examples/run's ``gnubg-blunder --db "$DB" ...`` lines."""
    out = []
    for line in RUN.read_text(encoding="utf-8").splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0].endswith("/gnubg-blunder"):
            assert words[1:3] == ["--db", "$DB"], line
            out.append(words[3:])
    return out


def test_the_example_shows_errors_figures_and_the_review(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    commands = example_commands()
    assert [c[0] for c in commands] == ["analyse", "matches", "stats", "review"]
    db = tmp_path / "example.db"
    outputs = {}
    for args in commands:
        if args[0] == "analyse":
            args = ["analyse", "--plies", "0", *args[1:]]
        outputs[args[0]] = cli(*args, db=db).stdout
    assert "1 file: 1 stored" in outputs["analyse"], outputs["analyse"]
    sides = json.loads(cli("matches", "--format", "json", db=db).stdout)["matches"][0]["sides"]
    assert [s["player"] for s in sides] == ["Squire/Jørgensen", "Harmand/Unger"]
    # real errors on both sides (XG puts them at PR 3.13 and 3.07), shown in the text
    for s in sides:
        assert s["errors"] > 0 and s["pr"] > 1, s
        row = next(line for line in outputs["matches"].splitlines() if s["player"] in line and "%.2f" % s["pr"] in line)
        assert f"{s['decisions']}" in row, row
    review = outputs["review"]
    assert review.count("Decisions to review (3, ") == 2, review
    assert review.count("Luck-adjusted result ") == 2, review
    assert "PR" in outputs["stats"]


def test_the_second_run_finds_the_match_stored(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    db = tmp_path / "example.db"
    cli("analyse", "--plies", "0", "examples/matches", db=db)
    again = cli("analyse", "--plies", "0", "examples/matches", db=db).stdout
    assert "1 already stored" in again.splitlines()[-1], again
