"""``matches --last N``: the scope's N most recent matches, with the same
figures as the whole list (a side's figures are its own decisions'), and the
report's matches section, which lists its most recent matches this way."""

from __future__ import annotations

import json
import re

import pytest


def _matches(cli, db, *args) -> dict:
    return json.loads(cli("--no-config", "matches", "--format", "json", *args, db=db).stdout)


def test_the_last_matches_are_the_whole_lists_tail(cli, db):
    whole = _matches(cli, db)
    n = len(whole["matches"])
    assert n >= 4
    assert "last" not in whole and "in_scope" not in whole
    for last in (1, 2, n - 1, n, n + 5):
        part = _matches(cli, db, "--last", str(last))
        assert part["matches"] == whole["matches"][-last:]  # every figure of every side, identical
        assert (part["last"], part["in_scope"]) == (last, n)
        assert part["filter"] == whole["filter"]
    assert _matches(cli, db, "--last", "0") == whole


def test_the_last_matches_of_a_players_scope(cli, db):
    whole = _matches(cli, db, "--player", "charlot1")
    part = _matches(cli, db, "--player", "charlot1", "--last", "1")
    assert part["matches"] == whole["matches"][-1:]
    assert part["in_scope"] == len(whole["matches"])


def test_the_text_says_how_many_are_shown(cli, db):
    n = len(_matches(cli, db)["matches"])
    out = cli("--no-config", "matches", "--last", "1", db=db).stdout
    assert f"The 1 most recent of the scope's {n} matches (--last 0 for all)." in out
    assert "most recent" not in cli("--no-config", "matches", "--last", str(n), db=db).stdout


@pytest.mark.parametrize("value", ["x", "-1", "1.5"])
def test_a_bad_count_is_one_line(cli, db, value):
    res = cli("--no-config", "matches", "--last", value, db=db, check=False)
    assert res.returncode != 0
    assert res.stderr.strip().count("\n") == 0 and "--last" in res.stderr


def test_the_reports_matches_section_counts_the_left_out(cli, db, tmp_path, monkeypatch):
    from gnubg_blunder.views import report

    whole = _matches(cli, db)
    n = len(whole["matches"])
    monkeypatch.setattr(report, "MATCHES_SHOWN", 2)
    out = tmp_path / "report.html"
    cli("--no-config", "report", "--html", out, db=db)
    section = re.search(r'<section id="matches">.*?</section>', out.read_text(encoding="utf-8"), re.S).group(0)
    assert f"The 2 most recent matches of the scope; {n - 2} earlier ones are left out" in section
    shown_ids = [int(x) for x in re.findall(r'<tr><td class="l">(\d+)</td>', section)]
    assert shown_ids == [m["id"] for m in whole["matches"][-2:]]
