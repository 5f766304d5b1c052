"""The PostgreSQL engine when its server goes away (issue 14, "Must show",
6.; the rest of that issue's checks: tests/test_postgres_reliability.py),
on a real server of this file's own (tests/pg_cluster.py) with real
processes: the server stopped (``pg_ctl stop -m immediate``) in the middle
of an import (after 0, 1 and 2 of 4 files), of an analyse, of a watch and
of a copy: one line naming the database and the lost connection, the
summary with the files not tried, exit 1, and the rerun completes the set;
a listener that never answers: one line within the connect timeout (10 s
by default).
"""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
import sys
import threading
import time

import pytest

from conftest import DATA, FIXTURES, needs_gnubg, without_progress
from pg_processes import signature
from test_postgres_reliability import (CHARLOT_SGF, MONEY_SGF, SMALL_SGF, STORED_LINE, _cli_env, _figures,
                                       _importer, _matches_json)


# -- 6. the server lost, or never answering ------------------------------------------------

LOST_FILES = [CHARLOT_SGF, MONEY_SGF, SMALL_SGF, DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"]


@pytest.fixture(scope="module")
def lost_server(pg_server):
    """A PostgreSQL server of this file's own, to be stopped in the middle
    of its tests (``pg_server``: the binaries and psycopg are there); made
    once (initdb and a start: ~5 s) for the tests of section 6, each in
    databases of its own, each starting it again after stopping it."""
    from pg_cluster import PostgresServer

    server = PostgresServer(pg_server.bin_dir)
    try:
        server.start()
        # a commit is kept when the server is stopped at once (the test cluster's
        # synchronous_commit = off would lose the last ones, as a server may by design)
        server.execute("ALTER SYSTEM SET synchronous_commit = on")
        server.execute("SELECT pg_reload_conf()")
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_server(lost_server):
    """The server the test stops (:func:`lost_server`), running when the
    test starts (a test that failed before starting it again left it
    stopped)."""
    if not lost_server._running:
        lost_server.resume()
    yield lost_server
    if not lost_server._running:
        lost_server.resume()


@pytest.fixture(scope="module")
def lost_clean(lost_server):
    """The clean import of LOST_FILES into a database of the lost server:
    (its URL, its signature, its matches' figures), the reference of each
    test_the_server_lost_in_the_middle_of_an_import."""
    if not lost_server._running:
        lost_server.resume()
    clean = lost_server.admin_url(lost_server.create_database())
    p = _importer(clean, LOST_FILES)
    out, err = p.communicate(timeout=300)
    assert (p.returncode, without_progress(err)) == (0, ""), err
    return clean, signature(clean), _figures(_matches_json(clean))


def _until(what, test, p, deadline: float):
    """Wait until ``test()`` (the importer ``p`` still running), at most
    until ``deadline``: generous, only a hung run reaches it."""
    while not test():
        if p.poll() is not None:
            pytest.fail(f"the importer ended while waiting for {what}: {p.communicate()}")
        if time.monotonic() > deadline:
            pytest.fail(f"still waiting for {what}")
        time.sleep(0.02)


def _stored_matches(server, dbname: str) -> int:
    if server.execute("SELECT to_regclass('matches') IS NULL", dbname=dbname)[0][0]:
        return 0
    return server.execute("SELECT COUNT(*) FROM matches", dbname=dbname)[0][0]


def _stopped_while_waiting(srv, db: str, argv: list, env: dict, moment) -> tuple:
    """Run ``argv`` (a writer of database ``db`` on server ``srv``) while the
    test holds the write lock, handing it to the writer for one write
    transaction at a time (a session of the test queues behind it each
    time), until ``moment()`` is true while the writer waits for the lock:
    then stop the server at once.  (stdout, stderr, the process)."""
    import psycopg

    from gnubg_blunder.store.pg_sql import WRITE_LOCK

    url = srv.admin_url(db)

    def take():
        """A session of the test asking for the lock (granted when its thread ends)."""
        conn = psycopg.connect(url, autocommit=True)
        thread = threading.Thread(target=conn.execute, args=("SELECT pg_advisory_lock(%s)", (WRITE_LOCK,)))
        thread.start()
        return conn, thread

    def waiting(n):
        return lambda: srv.execute("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                                   "AND database = (SELECT oid FROM pg_database WHERE datname = %s)",
                                   params=(db,))[0][0] == n

    deadline = time.monotonic() + 120
    held, thread = take()
    thread.join(timeout=60)
    assert not thread.is_alive()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        while True:
            _until("the writer waiting for the lock", waiting(1), p, deadline)
            if moment():
                break
            following, thread = take()
            _until("the test's session queued behind the writer", waiting(2), p, deadline)
            held.close()  # the writer's turn, then the following session's
            thread.join(timeout=max(1.0, deadline - time.monotonic()))
            assert not thread.is_alive()
            held = following
        srv.halt()
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        held.close()
    return out, err, p


def _lost_writer(srv, db: str, argv: list, moment) -> tuple:
    """:func:`_stopped_while_waiting` of a writer given time to wait for the
    lock, and what every such run must show: exit 1, no traceback, the
    password nowhere.  (stdout, the lines of stderr but progress)."""
    out, err, p = _stopped_while_waiting(srv, db, argv, _cli_env(GNUBG_BLUNDER_BUSY_TIMEOUT="600"), moment)
    assert p.returncode == 1, (out, err)
    assert "Traceback" not in out + err and srv.admin_password not in out + err
    return out, without_progress(err).splitlines()


@pytest.mark.parametrize("stored_before", [0, 1, 2])
def test_the_server_lost_in_the_middle_of_an_import(own_server, lost_clean, stored_before):
    """The server stopped (``pg_ctl stop -m immediate``) while the importer
    waits for its write lock inside its transaction, after 0, 1 and 2 of
    4 files were stored (the test's own sessions hand the lock to the
    importer for one write transaction at a time, so the moment depends on
    no speed): one line naming the database and the lost connection, the
    summary with the files not tried, exit 1, no traceback; started again,
    the same import completes the set, equal to a clean import."""
    from gnubg_blunder.store.pg_sql import redacted

    srv = own_server
    clean, want, clean_figures = lost_clean
    db = srv.create_database()
    url = srv.admin_url(db)
    assert want["tables"]["matches"] == 4

    out, errors = _lost_writer(srv, db, [  # the importer waits for the test's sessions
        sys.executable, "-m", "gnubg_blunder", "--db", url, "import", "--jobs", "1", *map(str, LOST_FILES)],
        lambda: _stored_matches(srv, db) == stored_before)
    assert len(errors) == 1, errors
    assert redacted(url) in errors[0]
    assert "the connection to the server was lost" in errors[0]
    lines = out.splitlines()
    assert len(lines) == stored_before + 1, out
    assert all(STORED_LINE.search(line) for line in lines[:-1]), out
    if stored_before:  # the file stored at the moment: its line, the others not tried
        assert errors[0].startswith(f"{LOST_FILES[stored_before]}: error: not stored: database "), errors
        assert lines[-1] == (f"4 files: {stored_before} stored, 0 analyses added, 0 already stored, 1 failed, "
                             f"{3 - stored_before} not tried (the database cannot be used)")
    else:  # the tables being made: the database's line, no file tried
        assert errors[0].startswith("error: database "), errors
        assert lines[-1] == ("4 files: 0 stored, 0 analyses added, 0 already stored, 0 failed, "
                             "4 not tried (the database cannot be used)")

    # what was stored stays whole; the server started again, the rerun completes the set
    srv.resume()
    p = _importer(url, LOST_FILES)
    out, err = p.communicate(timeout=300)
    assert (p.returncode, without_progress(err)) == (0, ""), err
    assert sum(": already stored (" in line for line in out.splitlines()) == stored_before, out
    assert signature(url) == want
    assert _figures(_matches_json(url)) == clean_figures


ANALYSED_FILES = [SMALL_SGF, MONEY_SGF, FIXTURES / "selfplay" / "m23-3.sgf"]


@needs_gnubg
def test_the_server_lost_in_the_middle_of_an_analyse(own_server):
    """``analyse`` as ``import``: the server stopped while the match of the
    second of 3 files waits for the write lock (gnubg analysed it): that
    file's one line naming the database and the lost connection, the
    summary with the third file not tried, exit 1, no traceback.  Before,
    each file after it was a line of its own, the lost connection again."""
    from gnubg_blunder.store.pg_sql import redacted

    srv = own_server
    db = srv.create_database()
    url = srv.admin_url(db)
    argv = [sys.executable, "-m", "gnubg_blunder", "--db", url, "analyse", "--plies", "0", *map(str, ANALYSED_FILES)]
    out, errors = _lost_writer(srv, db, argv, lambda: _stored_matches(srv, db) == 1)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"[2/3] {ANALYSED_FILES[1]}: error: not stored: database {redacted(url)}: "
                                "the connection to the server was lost"), errors
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"[1/3] {ANALYSED_FILES[0]}: analysed (0-ply)"), out
    assert lines[-1] == ("3 files: 1 stored, 0 analyses added, 0 already stored, 1 failed, "
                         "1 not tried (the database cannot be used)")
    srv.resume()
    assert _stored_matches(srv, db) == 1


def test_the_server_lost_in_the_middle_of_a_watch(own_server, tmp_path):
    """``watch`` as ``import``: the server stopped while the second of 3
    files found at start-up waits for the write lock: that file's one line,
    the watch ends (exit 1) with its summary, the file waiting not tried.
    Before, the watch ended on the database's line alone, no file named."""
    from gnubg_blunder.store.pg_sql import redacted

    srv = own_server
    db = srv.create_database()
    url = srv.admin_url(db)
    folder = tmp_path / "matches"
    folder.mkdir()
    for f in ANALYSED_FILES:
        shutil.copy(f, folder / f.name)
    argv = [sys.executable, "-m", "gnubg_blunder", "--db", url, "watch", str(folder), "--settle", "0.2"]
    out, errors = _lost_writer(srv, db, argv, lambda: _stored_matches(srv, db) == 1)
    assert len(errors) == 1, errors
    assert re.match(rf"{re.escape(str(folder))}/[^:]+\.sgf: error: not stored: database {re.escape(redacted(url))}: "
                    "the connection to the server was lost", errors[0]), errors
    assert out.splitlines()[-1] == ("watch stopped: 1 stored, 0 analyses added, 0 already stored, 0 refused, "
                                    "1 not stored (the connection to the database was lost), "
                                    "1 not tried (the database cannot be used)"), out
    srv.resume()


def test_the_server_lost_in_the_middle_of_a_copy(own_server, tmp_path):
    """``copy --to postgresql://…`` whose server is stopped while the copy
    waits for the write lock of its first batch: one line naming the
    database and the lost connection, and what was copied, exit 1, no
    traceback; started again, the same copy completes and checks."""
    from conftest import run_cli_inprocess
    from gnubg_blunder.store.pg_sql import redacted

    srv = own_server
    src = tmp_path / "src.db"
    run_cli_inprocess("import", *map(str, LOST_FILES), db=src)
    db = srv.create_database()
    url = srv.admin_url(db)
    run_cli_inprocess("check", db=url)  # the tables made: the copy's first write is its first batch
    argv = [sys.executable, "-m", "gnubg_blunder", "copy", "--from", str(src), "--to", url]
    _out, lines = _lost_writer(srv, db, argv, lambda: True)
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"error: copy from {src} into {redacted(url)} stopped: "
                               "the connection to the server was lost ("), lines
    assert lines[1] == (f"0 matches and 0 analyses were copied whole into {redacted(url)} before it (a match is "
                        "written whole or not at all): run the same copy again to go on")
    srv.resume()
    assert _stored_matches(srv, db) == 0
    res = subprocess.run(argv, capture_output=True, text=True, env=_cli_env(), timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1].startswith("checked: the 4 matches of "), res.stdout


def test_connecting_waits_10_s_by_default_and_the_url_may_change_it(pg_url, monkeypatch):
    """The connection's own parameters: connect_timeout 10 by default, the
    URL's (or PGCONNECT_TIMEOUT's) when given; TCP keepalives and a TCP
    user timeout, so that a server gone quiet after the connection opened
    is a lost connection (docs/postgres.md)."""
    from gnubg_blunder.store.pg_sql import PgConnection

    def parameters(url):
        conn = PgConnection(url)
        try:
            return conn.raw.info.get_parameters()
        finally:
            conn.close()

    got = parameters(pg_url)
    assert got["connect_timeout"] == "10"
    assert (got["keepalives"], got["keepalives_idle"], got["keepalives_interval"], got["keepalives_count"],
            got["tcp_user_timeout"]) == ("1", "10", "5", "4", "30000")
    assert parameters(pg_url + "?connect_timeout=3&keepalives_idle=60")["connect_timeout"] == "3"
    assert parameters(pg_url + "?connect_timeout=3&keepalives_idle=60")["keepalives_idle"] == "60"
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "7")
    assert parameters(pg_url).get("connect_timeout", "7") == "7"  # libpq's variable: its value, not ours


class _SilentListener:
    """A port on 127.0.0.1 that accepts connections and never answers (a
    thread of the test): ``port``, ``accepted`` (the connections taken)."""

    def __init__(self):
        import socket

        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.accepted = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                self.accepted.append(self.server.accept()[0])
            except OSError:  # closed at the end
                return

    def close(self):
        import socket

        try:
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the thread's accept() (close alone does not, on Linux)
        except OSError:
            pass
        self.server.close()
        for conn in self.accepted:
            conn.close()
        self.thread.join(timeout=10)


NEVER_ANSWERS = [("?connect_timeout=2", 2), ("", 10)]


class _NeverAnswered:
    """``gnubg-blunder --db URL import`` of two files, URL a listener that
    never answers (with ``query`` after the database's name), a real
    process started at once and waited for by a thread: its output and
    how long it ran (``started``, ``ended``)."""

    def __init__(self, query: str):
        self.listener = _SilentListener()
        self.secret = "S3cret-" + secrets.token_hex(4)
        self.url = f"postgresql://member:{self.secret}@127.0.0.1:{self.listener.port}/club{query}"
        self.result = None
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gnubg_blunder", "--db", self.url, "import", str(SMALL_SGF), str(MONEY_SGF)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_cli_env())
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()

    def _wait(self):
        try:
            out, err = self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        self.ended = time.monotonic()
        self.result = subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)

    def wait(self):
        self.thread.join(timeout=120)
        return self.result

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.thread.join(timeout=60)
        self.listener.close()


@pytest.fixture(scope="module", autouse=True)
def never_answered():
    """{query: _NeverAnswered}: the imports of
    test_a_server_that_never_answers_is_one_line_within_the_timeout,
    started when this file's first test starts, so that their waits (2 s
    and the default 10 s, nothing but waiting) pass while the file's other
    tests run; the test reads what they did."""
    runs = {query: _NeverAnswered(query) for query, _ in NEVER_ANSWERS}
    yield runs
    for run in runs.values():
        run.close()


@pytest.mark.parametrize("query, wait", NEVER_ANSWERS)
def test_a_server_that_never_answers_is_one_line_within_the_timeout(never_answered, query, wait):
    """A server that accepts the connection and never answers: the import
    ends within the connect timeout (the URL's, else the default 10 s; 60 s
    is the test's generous bound) with one line naming the database, its
    password hidden, and the summary with the files not tried, exit 1.
    (The import ran while this file's other tests did: never_answered.)"""
    from gnubg_blunder.store.pg_sql import redacted

    run = never_answered[query]
    res = run.wait()
    assert res is not None and run.ended - run.started < 60
    assert run.listener.accepted  # the server took the connection: the wait was for its answer
    assert res.returncode == 1, res
    assert without_progress(res.stderr).splitlines() == [
        f"error: database {redacted(run.url)}: cannot connect: the server did not answer within {wait} s "
        "(connection timeout expired; ?connect_timeout=N in the URL waits N s)"]
    assert res.stdout.splitlines() == [
        "2 files: 0 stored, 0 analyses added, 0 already stored, 0 failed, 2 not tried (the database cannot be used)"]
    assert run.secret not in res.stdout + res.stderr
