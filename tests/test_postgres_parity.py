"""The PostgreSQL engine gives every view the same figures as SQLite
(issue 14, "Parity"): the same files imported in the same order into a
SQLite file and into a PostgreSQL database on a real server (tests/pg_cluster.py),
then every registered view's ``--format json`` compared byte for byte.

The files: the real gnubg SGF and XG matches, the SGF and XG fixtures
(money sessions, beavers, rollouts, one-position files, resignations,
clocks), and the hand-computed fixture matches (hostile names).  The import
time is the one thing the two imports would not share: both take it from
one clock that ticks a second per match (the order of undated matches
follows it)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from conftest import FIXTURES

HERE = Path(__file__).resolve().parent

FILES = sorted((FIXTURES / "real" / "sgf").glob("*.sgf")) + sorted((FIXTURES / "real" / "xg").glob("*.xg")) \
    + sorted((FIXTURES / "sgf").glob("*.sgf")) + sorted((FIXTURES / "xg").glob("*.xg")) \
    + sorted((FIXTURES / "xg").glob("*.xgp"))


def _registry_views() -> dict:
    """Every registered view, with the arguments that make it show rows
    (test_command_kit's table; a view it does not name runs bare)."""
    from test_command_kit import VIEWS

    from gnubg_blunder.commands import get_registry

    names = sorted(n for n, c in get_registry().commands.items() if c.view is not None)
    return {n: VIEWS.get(n, ()) for n in names}


def use_one_clock(monkeypatch) -> None:
    """Import times from a clock that ticks a second a call, from
    2026-01-01: two imports of the same files into two databases get the
    same times (and the same order of undated matches)."""
    from gnubg_blunder.store import insert

    ticks = itertools.count()

    def clock():
        t = next(ticks)
        return f"2026-01-01T{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}+00:00"

    monkeypatch.setattr(insert, "utc_now", clock)


def _fill(target, cli, monkeypatch) -> None:
    """The files, then the fixture matches, into ``target``, on one clock."""
    from fixture_db import build_matches

    from gnubg_blunder.database import open_store

    use_one_clock(monkeypatch)
    for f in FILES:
        cli("import", f, db=target, check=False)
    with open_store(str(target)) as store:
        for match in build_matches():
            store.add_match(match)


@pytest.fixture(scope="module")
def engines(pg_server, tmp_path_factory):
    """(SQLite path, PostgreSQL URL) holding the same matches."""
    from conftest import run_cli_inprocess

    mp = pytest.MonkeyPatch()
    mp.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    try:
        sqlite_path = tmp_path_factory.mktemp("parity") / "parity.db"
        _fill(sqlite_path, run_cli_inprocess, mp)
        url = pg_server.admin_url(pg_server.create_database())
        _fill(url, run_cli_inprocess, mp)
    finally:
        mp.undo()
    return sqlite_path, url


def test_same_matches_in_both(engines, cli):
    sqlite_path, url = engines
    a = cli("matches", "--format", "json", db=sqlite_path).stdout
    b = cli("matches", "--format", "json", db=url).stdout
    assert a == b
    assert a.count('"id"') >= 12  # the files and fixture matches were stored


@pytest.mark.parametrize("view", sorted(_registry_views()))
def test_every_view_gives_the_same_json(view, engines, cli):
    sqlite_path, url = engines
    args = _registry_views()[view]
    a = cli(view, *args, "--format", "json", db=sqlite_path, check=False)
    b = cli(view, *args, "--format", "json", db=url, check=False)
    assert (a.returncode, a.stdout) == (b.returncode, b.stdout)
    assert a.returncode == 0 and len(a.stdout) > 200, a.stderr
    assert a.stderr.replace(str(sqlite_path), "DB") == b.stderr.replace(url, "DB")


def test_the_report_is_the_same_page(engines, cli, tmp_path):
    """The HTML report of every match, on both engines: the same page, but
    for the minute it was made."""
    sqlite_path, url = engines
    pages = []
    for target, name in ((sqlite_path, "sqlite.html"), (url, "postgres.html")):
        cli("report", "--html", tmp_path / name, db=target)
        text = (tmp_path / name).read_text(encoding="utf-8")
        pages.append(re.sub(r" on \d{4}-\d\d-\d\d \d\d:\d\d\. ", " on TIME. ", text, count=1))
    assert pages[0] == pages[1]
    assert pages[0].count("<svg") > 5


def test_names_fold_case_as_sqlite_does(pg_url, tmp_path, cli, monkeypatch):
    """Aliases and collection names are found without case as SQLite finds
    them: ASCII letters folded, other letters as written, on both sides of
    the comparison (a name from the XG file, written in capitals)."""
    xg = FIXTURES / "real" / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
    outs = []
    for target in (tmp_path / "a.db", pg_url):
        use_one_clock(monkeypatch)  # the collection's time: the same on both
        cli("import", xg, db=target)
        cli("alias", "add", "Squire/Jørgensen", "SQUIRE-JØRGENSEN", db=target)
        cli("collection", "add", "Ørsted", "--position", "4HPwATDgc/ABMA", db=target)
        outs.append([cli(*args, db=target, check=False) for args in (
            ("stats", "--player", "SQUIRE-JØRGENSEN", "--format", "json"),
            ("stats", "--player", "squire-jØrgensen", "--format", "json"),
            ("alias", "list"),
            ("collection", "show", "ØRSTED"),
            ("collection", "show", "Ørsted"),
        )])
    for a, b in zip(*outs):
        assert (a.returncode, a.stdout, a.stderr.replace(str(tmp_path / "a.db"), "DB")) == \
            (b.returncode, b.stdout, b.stderr.replace(pg_url, "DB"))
    assert '"decisions": 0' not in outs[0][1].stdout  # the capitals' alias found the player
