"""The throwaway PostgreSQL server of tests/pg_cluster.py, checked for real:
passwords over TCP (in the URL, PGPASSWORD, ~/.pgpass), no trust on TCP,
fresh databases, and a server that does not run as root."""

from __future__ import annotations

import os
from pathlib import Path

from urllib.parse import unquote, urlsplit

import pytest

try:
    import psycopg
except ImportError:  # the pg_server fixture skips (fails under CI) and says why
    psycopg = None


@pytest.fixture
def no_ambient_password(monkeypatch, tmp_path):
    """No password from the environment or the user's own ~/.pgpass."""
    for var in ("PGPASSWORD", "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGUSER", "PGHOST", "PGPORT"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _pgpass_field(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def test_url_with_the_right_password_connects_over_tcp(pg_server, no_ambient_password):
    url = pg_server.admin_url()
    assert url == (f"postgresql://{pg_server.admin_user}:{pg_server.admin_password}"
                   f"@127.0.0.1:{pg_server.port}/postgres")
    with psycopg.connect(url) as conn:
        assert conn.info.host == "127.0.0.1"  # TCP, not the unix socket
        assert conn.execute("SELECT current_user").fetchone()[0] == pg_server.admin_user
        assert conn.execute("SELECT inet_server_addr() IS NOT NULL").fetchone()[0]


def test_a_wrong_password_is_refused(pg_server, no_ambient_password):
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(pg_server.url("postgres", password=pg_server.admin_password + "x"))


def test_no_password_over_tcp_is_refused(pg_server, no_ambient_password):
    url = pg_server.url("postgres")
    assert url == f"postgresql://{pg_server.admin_user}@127.0.0.1:{pg_server.port}/postgres"
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(url)


def test_a_role_whose_password_needs_quoting_in_the_url(pg_server, no_ambient_password):
    password = "p@ss:w/rd%?#& é"
    pg_server.create_role("quoting_role", password)
    url = pg_server.url("postgres", user="quoting_role", password=password)
    parts = urlsplit(url)
    assert (unquote(parts.username), unquote(parts.password)) == ("quoting_role", password)
    assert (parts.hostname, parts.port, parts.path) == ("127.0.0.1", pg_server.port, "/postgres")
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "quoting_role"
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(pg_server.url("postgres", user="quoting_role", password="p@ss"))


def test_create_database_gives_distinct_empty_databases(pg_server, no_ambient_password):
    a, b = pg_server.create_database(), pg_server.create_database()
    assert a != b
    with psycopg.connect(pg_server.admin_url(a), autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (1)")
    for name in (b, pg_server.create_database()):
        tables = pg_server.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
            dbname=name)
        assert tables == [(0,)]
    rows = pg_server.execute("SELECT datname, pg_encoding_to_char(encoding), pg_get_userbyid(datdba) "
                             "FROM pg_database WHERE datname = %s", params=(b,))
    assert rows == [(b, "UTF8", pg_server.admin_user)]
    assert pg_server.create_database("named_one") == "named_one"
    assert pg_server.execute("SELECT 1 FROM pg_database WHERE datname = 'named_one'") == [(1,)]


def test_pg_url_is_a_fresh_database(pg_url, pg_server, no_ambient_password):
    with psycopg.connect(pg_url) as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]
        assert name.startswith("test_")
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
    assert pg_url == pg_server.admin_url(name)


def test_the_server_does_not_run_as_root(pg_server):
    data_dir = pg_server.execute("SELECT current_setting('data_directory')")[0][0]
    owner = os.stat(data_dir).st_uid
    assert owner == os.stat(pg_server.socket_dir).st_uid
    if os.geteuid() == 0:
        assert owner != 0
    else:
        assert owner == os.geteuid()
    backend = pg_server.execute("SELECT pg_backend_pid()")[0][0]
    status = Path(f"/proc/{backend}/status")
    if status.exists():
        uid = int(next(line for line in status.read_text().splitlines() if line.startswith("Uid:")).split()[1])
        assert uid == owner and uid != 0
    assert pg_server.log_path.exists()


def test_password_from_pgpassword(pg_server, no_ambient_password, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", pg_server.admin_password)
    with psycopg.connect(pg_server.url("postgres")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_password_from_pgpass_in_home(pg_server, no_ambient_password):
    password = "with:colon\\and backslash"
    pg_server.create_role("pgpass_role", password)
    pgpass = no_ambient_password / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{pg_server.port}:*:pgpass_role:{_pgpass_field(password)}\n")
    pgpass.chmod(0o600)
    with psycopg.connect(pg_server.url("postgres", user="pgpass_role")) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "pgpass_role"


def test_password_from_pgpassfile(pg_server, no_ambient_password, monkeypatch, tmp_path):
    pgpass = tmp_path / "elsewhere.pgpass"
    pgpass.write_text(f"*:*:*:{pg_server.admin_user}:{_pgpass_field(pg_server.admin_password)}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    with psycopg.connect(pg_server.url("postgres")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
