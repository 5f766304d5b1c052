"""The summary's cards are plugins of ``register_summary_cards``
(hookspecs.py): the built-in signed biases, study plan and progress cards
are registered as a plugin's would be, and a plugin's card is computed over
the summary's scope and written in its text, its JSON and the report's
summary section, in its order."""

from __future__ import annotations

import json

import pytest

from gnubg_blunder import hookimpl


class MatchesCard:
    """A third party's card: how many matches the scope holds, after the
    built-in cards (order 40)."""

    @hookimpl
    def register_summary_cards(self, register):
        register("matches_card", lambda scope: {"matches": scope.selection.n_matches},
                 lambda card: f"Matches card: {card['matches']}",
                 lambda card: f'<p id="matches-card">{card["matches"]} matches</p>', order=40)


@pytest.fixture
def with_card(register_plugin):
    register_plugin(MatchesCard(), "matches-card")


def test_the_built_in_cards_are_registered_in_order(monkeypatch):
    from gnubg_blunder.views.summary import summary_cards

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    assert [(c.name, c.order) for c in summary_cards()] == [("biases", 10), ("plan", 20), ("study", 30)]


def test_a_plugins_card_is_in_the_summary_text_json_and_report(with_card, cli, db, tmp_path):
    # charlot1 played matches 1, 2, 4 and 5 of tests/fixture_db.py
    got = json.loads(cli("summary", "--player", "charlot1", "--format", "json", db=db).stdout)
    assert got["matches_card"] == {"matches": 4}
    assert list(got).index("matches_card") == list(got).index("study") + 1
    lines = cli("summary", "--player", "charlot1", db=db).stdout.splitlines()
    assert "Matches card: 4" in lines
    counts = next(i for i, line in enumerate(lines) if line.startswith("Counts:"))
    assert lines.index("Matches card: 4") > counts
    page = tmp_path / "r.html"
    cli("report", "--player", "charlot1", "--html", page, db=db)
    html = page.read_text(encoding="utf-8")
    section = html[html.index('<section id="summary">'):]
    assert '<p id="matches-card">4 matches</p>' in section[:section.index("</section>")]
