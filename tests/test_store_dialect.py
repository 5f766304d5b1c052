"""The store's two engines are one store class given a dialect
(store/dialect.py; docs/architecture.md "The store"): ``SQLiteStore`` and
``PostgresStore`` override nothing of :class:`Store`, each only hands it
its dialect, and each dialect has every member of the protocol.  What
they do is checked on real databases: tests/test_store*.py on SQLite,
tests/test_postgres_*.py on a real PostgreSQL server."""

from __future__ import annotations

from typing import get_type_hints

from gnubg_blunder.store.connection import SQLiteDialect
from gnubg_blunder.store.dialect import Dialect
from gnubg_blunder.store.postgres import PostgresDialect, PostgresStore
from gnubg_blunder.store.sqlite import SQLiteStore, Store


def test_the_engines_store_is_the_one_store_with_a_dialect():
    for cls in (SQLiteStore, PostgresStore):
        assert cls.__bases__ == (Store,)
        assert sorted(n for n in vars(cls) if not n.startswith("__") or n == "__init__") == ["__init__"], cls


def test_each_dialect_has_the_protocols_members():
    members = set(get_type_hints(Dialect)) | {n for n in vars(Dialect) if not n.startswith("_")}
    assert {"open", "up_to_date_read_only", "snapshot_connection", "unique_violation", "guards_writes"} <= members
    sqlite, pg = SQLiteDialect(":memory:"), PostgresDialect("postgresql://ranking:S3cret@localhost:5432/club")
    for dialect in (sqlite, pg):
        assert {m for m in members if not hasattr(dialect, m)} == set(), dialect
    assert (sqlite.name, sqlite.guards_writes, sqlite.unique_violation) == ("sqlite", False, ())
    assert sqlite.blob_reads_are_cheap is True
    assert (pg.name, pg.guards_writes) == ("postgresql", True) and "S3cret" not in pg.shown_name
    assert pg.blob_reads_are_cheap is False


def test_a_store_given_the_sqlite_dialect_is_a_sqlite_store(tmp_path):
    from gnubg_blunder.metrics.derived import METRIC_RULES

    with Store(SQLiteDialect(tmp_path / "a.db"), rules=METRIC_RULES) as store:
        store.set_meta("note", "x")
        assert (store.engine, store.get_meta("note"), store.path) == ("sqlite", "x", str(tmp_path / "a.db"))


def test_a_postgresql_url_without_psycopg_is_one_line(tmp_path):
    """psycopg is an optional dependency (the extra ``postgres``): without
    it a postgresql:// URL is one line naming what to install, the URL's
    password hidden, exit status 1 — not a traceback.  (Run with psycopg
    made unimportable: ``sys.modules["psycopg"] = None``.)"""
    import os
    import subprocess
    import sys

    code = ("import sys; sys.modules['psycopg'] = None\n"
            "from gnubg_blunder.cli import main\n"
            "sys.argv = ['gnubg-blunder', '--db', 'postgresql://ranking:S3cret@localhost:1/club', 'matches']\n"
            "main()\n")
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_CONFIG=str(tmp_path / "none.yaml"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ("error: database postgresql://ranking:***@localhost:1/club: PostgreSQL needs psycopg: "
                        "pip install 'gnubg-blunder[postgres]'\n")
