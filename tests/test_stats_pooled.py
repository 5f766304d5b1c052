"""``stats`` without --player pools both sides: it says so before any
figure (the line after the scope, every view's first line), and how to set
a main player when none is set (issue 26)."""

from __future__ import annotations


def test_stats_says_first_that_both_sides_are_pooled(cli, db_copy):
    first = cli("--no-config", "stats", db=db_copy).stdout.splitlines()[1]
    assert first.startswith("Both sides pooled:")
    assert "`gnubg-blunder main-player NAME` (no main player is set)" in first
    cli("main-player", "charlot2", db=db_copy)
    first = cli("--no-config", "stats", db=db_copy).stdout.splitlines()[1]
    assert first.startswith("Both sides pooled:") and "main-player" not in first and "--player NAME" in first


def test_a_players_stats_say_nothing_of_pooling(cli, db):
    out = cli("--no-config", "stats", "--player", "charlot1", db=db).stdout
    assert "pooled" not in out.splitlines()[1] and out.startswith("Scope: player charlot1")


def test_the_reports_headline_says_it_too(cli, db, tmp_path):
    page = tmp_path / "r.html"
    cli("--no-config", "report", "--html", page, db=db)
    head = page.read_text(encoding="utf-8").split('<section id="headline">', 1)[1].split("</section>", 1)[0]
    assert "Both sides pooled: these figures are both players&#x27; of every match together" in head
