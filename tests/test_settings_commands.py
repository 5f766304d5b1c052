"""The commands that set things (settings_commands.py), run in-process:
aliases, the main player, the goal, the thresholds, the saved filter."""

from __future__ import annotations

import io
from pathlib import Path

import pytest



@pytest.fixture()
def db(db_copy):
    """These tests write (aliases, goals, the main player): the shared
    fixture database's copy of the test's own."""
    return db_copy


@pytest.fixture()
def cli(monkeypatch, tmp_path):
    """``cli(*words, db=PATH) -> (status, out, err)``: the command line in this
    process, plugins off, a saved filter of this test only."""
    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    monkeypatch.setenv("GNUBG_BLUNDER_CONFIG", str(tmp_path / "config.yaml"))
    from gnubg_blunder import plugins
    from gnubg_blunder.commands import Context, run

    plugins.reset_plugin_manager()

    def call(*words, db=None):
        out, err = io.StringIO(), io.StringIO()
        argv = (["--db", str(db)] if db is not None else []) + [str(w) for w in words]
        status = run(argv, Context(out=out, err=err))
        return status, out.getvalue(), err.getvalue()

    yield call
    plugins.reset_plugin_manager()


def test_alias_add_list_remove(cli, db):
    assert cli("alias", "add", "charlot1", "Charlot One", db=db)[0] == 0
    status, out, _ = cli("alias", "list", db=db)
    assert status == 0 and "charlot1" in out and "Charlot One" in out
    assert cli("alias", "remove", "Charlot One", db=db)[0] == 0
    assert cli("alias", "list", db=db)[1].strip() == "No aliases."
    status, _, err = cli("alias", "remove", "Charlot One", db=db)
    assert status == 2 and err.count("\n") == 1


def test_goal_set_show_clear(cli, db):
    status, out, _ = cli("goal", "set", "PR < 5", "--weeks", "12", db=db)
    assert status == 0 and out.startswith("goal: PR < 5 by ")
    assert "set on" in cli("goal", "show", db=db)[1]
    assert cli("goal", "clear", db=db)[1].strip() == "goal cleared"
    assert cli("goal", "show", db=db)[1].strip() == "no goal set"


def test_thresholds(cli, db):
    assert "error from 0.050" in cli("thresholds", db=db)[1]
    assert "error from 0.040 EMG" in cli("thresholds", "0.04", "0.09", db=db)[1]
    status, _, err = cli("thresholds", "0.2", "0.1", db=db)
    assert status == 2 and err.startswith("error: thresholds")


def test_filter_set_show_reset(cli):
    status, out, _ = cli("filter", "set", "--player", "charlot1", "--length", "7")
    assert status == 0 and "player charlot1" in out
    assert "player charlot1" in cli("filter", "show")[1]
    out = cli("filter", "reset")[1]
    assert "player charlot1" in out and "lengths" not in out
    # the saved player is forgotten only when asked (`filter set --player ""` is refused)
    out = cli("filter", "reset", "--player")[1]
    assert "player" not in out.split(":", 1)[1] and "every match, both sides" in out
    assert "every match, both sides" in cli("filter", "show")[1]


def _one_line_error(result, *words):
    status, out, err = result
    assert status == 2, (status, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for w in words:
        assert w in err, err
    return err


# -- the date range ------------------------------------------------------------


def test_from_later_than_to_is_refused(cli, db):
    _one_line_error(cli("stats", "--from", "2025-05-01", "--to", "2025-01-01", db=db), "2025-05-01", "2025-01-01")
    assert cli("stats", "--from", "2025-01-01", "--to", "2025-01-01", db=db)[0] == 0  # one day is a range


def test_from_later_than_to_is_refused_across_the_saved_filter(cli, db):
    assert cli("filter", "set", "--from", "2025-05-01", db=db)[0] == 0
    err = _one_line_error(cli("stats", "--to", "2025-01-01", db=db), "later")
    assert err.endswith(f" (from the saved filter of {db}; --no-config ignores it)\n"), err
    _one_line_error(cli("filter", "set", "--to", "2025-01-01", db=db), "later")
    assert "date to" not in cli("filter", "show", db=db)[1]  # nothing saved


def test_filter_refuses_from_later_than_to():
    from gnubg_blunder.filters import Filter

    with pytest.raises(ValueError, match="later"):
        Filter(date_from="2025-02-01", date_to="2025-01-31")


# -- each database has its own saved filter (issue 23) -----------------------------


@pytest.fixture()
def bot_db(tmp_path, selfplay, cli):
    """my.db: one real gnubg bot match, Weakbot against Strongbot."""
    path = tmp_path / "my.db"
    status, _, err = cli("import", selfplay(1, 7), db=path)
    assert status == 0, err
    return path


def test_a_saved_filter_applies_to_its_own_database_only(cli, bot_db, db, monkeypatch):
    """`--db my.db filter set --player Weakbot`, then `--db example.db
    stats`: was `error: no player 'Weakbot' in any stored match`, exit 2."""
    monkeypatch.chdir(bot_db.parent)
    assert cli("filter", "set", "--player", "Weakbot", db="my.db")[0] == 0
    status, out, err = cli("stats", db=db)
    assert (status, err) == (0, "") and out.startswith("Scope: every stored match, both sides\n"), (out, err)
    for name in ("my.db", "./my.db", bot_db):  # one database, however its path is written
        assert cli("stats", db=name)[1].startswith("Scope: player Weakbot\n")
    mine, other = cli("filter", "show", db=bot_db)[1], cli("filter", "show", db=db)[1]
    assert mine.startswith(f"saved filter of {bot_db.resolve()} (") and mine.endswith("): player Weakbot\n"), mine
    assert other.startswith(f"saved filter of {db.resolve()} (") and other.endswith(
        "): none (every match, both sides)\n"), other


def test_a_saved_value_refused_names_the_saved_filter_it_came_from(cli, db, monkeypatch):
    monkeypatch.chdir(db.parent)
    assert cli("filter", "set", "--player", "Weakbot", db=db.name)[0] == 0
    assert _one_line_error(cli("stats", db=db.name)) == (
        "error: no player 'Weakbot' in any stored match (from the saved filter of fixture-copy.db; "
        "--no-config ignores it)\n")
    assert cli("--no-config", "stats", db=db.name)[0] == 0
    # given for this run, the same name is the run's own mistake
    assert _one_line_error(cli("stats", "--player", "Weakbot", db=db.name)) == (
        "error: no player 'Weakbot' in any stored match\n")
    assert cli("filter", "reset", "--player", db=db.name)[0] == 0
    assert cli("filter", "set", "--collection", "nope", db=db.name)[0] == 0
    assert _one_line_error(cli("positions", db=db.name)).endswith(
        "(from the saved filter of fixture-copy.db; --no-config ignores it)\n")
    assert cli("filter", "reset", db=db.name)[0] == 0
    assert cli("filter", "set", "--engine", "gnubg", db=db.name)[0] == 0
    assert _one_line_error(cli("h2h", "charlot1", "charlot2", db=db.name), "engine/depth").endswith(
        "(from the saved filter of fixture-copy.db; --no-config ignores it)\n")


def test_an_old_global_saved_filter_stays_the_default_database_s_only(cli, db, tmp_path, monkeypatch):
    """A config written before filters were per database has one `filter`:
    it is the default database's until that database saves its own."""
    import shutil

    import yaml

    default = Path(shutil.copy(db, tmp_path / "default.db"))
    monkeypatch.setenv("GNUBG_BLUNDER_DB", str(default))
    config = tmp_path / "config.yaml"
    config.write_text("filter:\n  player: charlot2\n  lengths: [7]\nreport:\n  auto: report.html\n")
    assert cli("stats")[1].startswith("Scope: player charlot2, lengths 7\n")
    assert cli("stats", db=default)[1].startswith("Scope: player charlot2, lengths 7\n")
    assert cli("stats", db=db)[1].startswith("Scope: every stored match, both sides\n")
    shown = cli("filter", "show")[1]
    assert shown.startswith(f"saved filter of {default.resolve()} (") and "saved before" in shown
    assert shown.endswith("): player charlot2, lengths [7]\n"), shown
    assert cli("filter", "set", "--length", "5", db=db)[0] == 0  # another database's: the old one stays
    assert yaml.safe_load(config.read_text())["filter"] == {"player": "charlot2", "lengths": [7]}
    assert cli("filter", "set", "--length", "5")[0] == 0  # the default database's own replaces it
    assert yaml.safe_load(config.read_text()) == {
        "filters": {str(default.resolve()): {"player": "charlot2", "lengths": [5]},
                    str(db.resolve()): {"lengths": [5]}},
        "report": {"auto": "report.html"}}
    assert "saved before" not in cli("filter", "show")[1]


def test_a_postgresql_database_is_keyed_by_its_url_without_the_password(cli):
    import yaml

    url = "postgresql://me:SECRET@127.0.0.1:5432/games?sslmode=disable&password=SECRET"
    status, out, _ = cli("filter", "set", "--player", "charlot1", db=url)  # no server asked
    assert status == 0 and "SECRET" not in out
    assert out.startswith("saved filter of postgresql://me@127.0.0.1:5432/games?sslmode=disable (")
    from gnubg_blunder.user_config import config_path

    assert "SECRET" not in config_path().read_text()
    assert yaml.safe_load(config_path().read_text())["filters"] == {
        "postgresql://me@127.0.0.1:5432/games?sslmode=disable": {"player": "charlot1"}}
    # the same database without the password in its URL (a password file gives it): the same filter
    assert "player charlot1" in cli("filter", "show", db="postgresql://me@127.0.0.1:5432/games?sslmode=disable")[1]


# -- an empty player name -------------------------------------------------------


def test_filter_set_refuses_an_empty_player(cli):
    assert cli("filter", "set", "--player", "charlot1")[0] == 0
    _one_line_error(cli("filter", "set", "--player", ""), "player")
    _one_line_error(cli("filter", "set", "--player", "  "), "player")
    assert "player charlot1" in cli("filter", "show")[1]  # the saved one is kept


# -- the main player ------------------------------------------------------------


def test_main_player_set_show_and_clear(cli, db):
    assert cli("main-player", db=db)[1].strip() == "main player: —"
    assert cli("main-player", "CHARLOT1", db=db)[1].strip() == "main player: charlot1"  # the stored spelling
    assert cli("main-player", db=db)[1].strip() == "main player: charlot1"
    status, out, _ = cli("main-player", "--clear", db=db)
    assert status == 0 and out.strip() == "main player: —"
    assert cli("main-player", db=db)[1].strip() == "main player: —"
    _one_line_error(cli("main-player", "charlot1", "--clear", db=db), "--clear")


def test_main_player_through_an_alias(cli, db):
    assert cli("alias", "add", "charlot2", "Charly", db=db)[0] == 0
    assert cli("main-player", "charly", db=db)[1].strip() == "main player: charlot2"


def test_main_player_refuses_a_name_with_no_stored_match(cli, db):
    err = _one_line_error(cli("main-player", "charlot", db=db), "'charlot'", "charlot1", "charlot2")
    assert "closest" in err
    _one_line_error(cli("main-player", "zzzzzz", db=db), "no player 'zzzzzz'")
    assert cli("main-player", db=db)[1].strip() == "main player: —"  # nothing was set


def test_main_player_on_an_empty_database(cli, tmp_path):
    _one_line_error(cli("main-player", "me", db=tmp_path / "empty.db"), "no player 'me'", "no stored match yet")


def test_main_player_refuses_an_empty_name(cli, db):
    _one_line_error(cli("main-player", "", db=db), "empty")
