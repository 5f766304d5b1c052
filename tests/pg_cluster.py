"""A real, throwaway PostgreSQL server for the test session (a pytest plugin,
loaded by ``pytest_plugins = ["pg_cluster"]`` in tests/conftest.py).

* ``pg_server`` (session): one cluster for the whole session, started only
  when a test asks for it, stopped (``pg_ctl stop -m immediate``) and its
  folder removed at the end of the session.  See :class:`PostgresServer`.
* ``pg_url`` (function): the URL, with the admin's user and password, of a
  fresh empty database for that test (dropped after it).

Debian's binaries are used: the newest ``/usr/lib/postgresql/*/bin``, or the
folder in ``PG_BIN``.  The cluster lives in a new temporary folder; it listens
on 127.0.0.1 at a free port and on a unix socket inside that folder, so a
cluster that Debian's package may have started (port 5432, socket in
/var/run/postgresql) is never touched.  Authentication: the unix socket
trusts everyone (the fixture's own admin connections), TCP asks for a
password (scram-sha-256), so tests can check passwords given in URLs,
``PGPASSWORD`` or ``~/.pgpass``.

The server refuses to run as root: as root, the folder is given to the
``postgres`` user (made by Debian's postgresql package) and initdb / pg_ctl
run through ``runuser -u postgres --`` (or ``setpriv``).

When the binaries or psycopg (3) are missing the fixtures skip, except when
the environment variable ``CI`` is set: there they fail, so that CI never
silently skips the PostgreSQL tests (.ci/setup --with-postgres installs them).
"""

from __future__ import annotations

import atexit
import glob
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import pytest

START_TIMEOUT = 30.0  # seconds for the server to accept connections
PORT_TRIES = 5  # a port taken between our probe and the server's bind: try another

# A throwaway cluster: nothing is made durable, little memory.
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "100",
    "shared_buffers": "64MB",
    "password_encryption": "scram-sha-256",
    "max_wal_senders": "0",
    "wal_level": "minimal",
    "log_min_messages": "warning",
    "log_connections": "off",
}


def _unavailable(reason: str):
    """Skip, or fail under CI (CI must never silently skip these tests)."""
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _version_key(path: str):
    """Sort key for /usr/lib/postgresql/<version>/bin: 9.6 < 10 < 15."""
    version = Path(path).parent.name
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.]", version))


def find_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: ``PG_BIN``, or the
    newest /usr/lib/postgresql/*/bin.  None when there is none."""
    needed = ("initdb", "pg_ctl", "postgres")

    def complete(folder: Path) -> bool:
        return all(os.access(folder / name, os.X_OK) for name in needed)

    env = os.environ.get("PG_BIN")
    if env:
        folder = Path(env)
        return folder if complete(folder) else None
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True):
        if complete(Path(folder)):
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One running cluster.  Attributes: ``host`` (127.0.0.1), ``port``,
    ``socket_dir``, ``admin_user``, ``admin_password``, ``log_path``,
    ``data_dir``, ``bin_dir``, ``version`` (server_version_num, e.g. 150012)."""

    host = "127.0.0.1"
    admin_user = "postgres"

    def __init__(self, bin_dir: Path):
        import psycopg  # noqa: F401  (checked by the fixture before)

        self.bin_dir = bin_dir
        self.admin_password = secrets.token_urlsafe(18)
        self.port: int | None = None
        self.version: int | None = None
        self._run_as: list[str] = []
        self._owner: tuple[int, int] | None = None
        self._running = False
        self._counter = 0
        self.folder = self._make_folder()
        self.data_dir = self.folder / "data"
        self.socket_dir = self.folder
        self.log_path = self.folder / "server.log"

    # -- set-up ------------------------------------------------------------

    def _make_folder(self) -> Path:
        if os.geteuid() != 0:
            return Path(tempfile.mkdtemp(prefix="gnubg-blunder-pg-"))
        import pwd

        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("running as root, and there is no 'postgres' user to run the server as "
                         "(Debian's postgresql package makes it: sh .ci/setup --with-postgres)")
        self._owner = (pw.pw_uid, pw.pw_gid)
        if shutil.which("runuser"):
            self._run_as = ["runuser", "-u", "postgres", "--"]
        elif shutil.which("setpriv"):
            self._run_as = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", "--"]
        else:
            _unavailable("running as root, and neither runuser nor setpriv is there to run the server as 'postgres'")
        # The postgres user must reach the folder: a TMPDIR under /root would not do.
        for parent in (None, "/tmp"):
            folder = Path(tempfile.mkdtemp(prefix="gnubg-blunder-pg-", dir=parent))
            os.chown(folder, *self._owner)
            if self._as_server_user(["test", "-w", str(folder)], check=False).returncode == 0:
                return folder
            shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError("no temporary folder that the postgres user can write to")

    def _as_server_user(self, argv: list, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
        # cwd: the folder, since the caller's (e.g. /root) may be closed to postgres.
        cwd = getattr(self, "folder", None) or "/"
        result = subprocess.run(self._run_as + [str(a) for a in argv], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv))} failed ({result.returncode}):\n{result.stdout}")
        return result

    def _initdb(self) -> None:
        # a UTF-8 locale, as servers have: there PostgreSQL's lower() folds every script (in "C" only ASCII)
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.admin_password + "\n")
        os.chmod(pwfile, 0o600)
        if self._owner:
            os.chown(pwfile, *self._owner)
        try:
            self._as_server_user([
                self.bin_dir / "initdb", "-D", self.data_dir, "-U", self.admin_user, f"--pwfile={pwfile}",
                "-A", "scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
            ])
        finally:
            pwfile.unlink()
        conf = "".join(f"{key} = '{value}'\n" for key, value in SETTINGS.items())
        conf += f"unix_socket_directories = '{self.socket_dir}'\n"
        with open(self.data_dir / "postgresql.conf", "a") as f:
            f.write("\n# tests/pg_cluster.py: a throwaway test cluster\n" + conf)

    def start(self) -> None:
        started = time.monotonic()
        self._initdb()
        last_error = ""
        for _ in range(PORT_TRIES):
            port = _free_port()
            log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
            result = self._as_server_user([
                self.bin_dir / "pg_ctl", "-D", self.data_dir, "-l", self.log_path, "-w",
                "-t", str(int(START_TIMEOUT)), "-o", f"-p {port}", "start",
            ], check=False, timeout=START_TIMEOUT + 30)
            if result.returncode == 0:
                self.port = port
                self._running = True
                break
            last_error = result.stdout
            with open(self.log_path, errors="replace") as f:
                f.seek(log_start)
                this_try = f.read()
            if "could not bind" not in this_try and "could not create any TCP/IP sockets" not in this_try:
                break  # not the port: trying another would not help
        if not self._running:
            raise RuntimeError(f"the PostgreSQL server did not start:\n{last_error}\n"
                               f"--- {self.log_path} ---\n{self.log_tail()}")
        self._wait_ready(started + START_TIMEOUT + 5)

    def _wait_ready(self, deadline: float) -> None:
        """Until a TCP connection with the admin's password works."""
        import psycopg

        while True:
            try:
                with psycopg.connect(self.admin_url(), connect_timeout=5) as conn:
                    self.version = conn.info.server_version
                    return
            except psycopg.OperationalError as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the PostgreSQL server does not accept connections: {e}\n"
                                       f"--- {self.log_path} ---\n{self.log_tail()}") from e
                time.sleep(0.1)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Stop the server at once and remove its folder.  Safe to call twice."""
        if self._running:
            self._running = False
            try:
                self._as_server_user([self.bin_dir / "pg_ctl", "-D", self.data_dir, "-m", "immediate", "-w", "stop"],
                                     check=False, timeout=60)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def halt(self) -> None:
        """Stop the server at once (``pg_ctl stop -m immediate``, as a
        crash: every connection cut, nothing shut down cleanly), keeping
        its folder for :meth:`resume`."""
        self._as_server_user([self.bin_dir / "pg_ctl", "-D", self.data_dir, "-m", "immediate", "-w", "stop"],
                             timeout=60)
        self._running = False

    def resume(self) -> None:
        """Start a halted server again, on the same port (its crash recovery
        runs first)."""
        started = time.monotonic()
        self._as_server_user([
            self.bin_dir / "pg_ctl", "-D", self.data_dir, "-l", self.log_path, "-w",
            "-t", str(int(START_TIMEOUT)), "-o", f"-p {self.port}", "start",
        ], timeout=START_TIMEOUT + 30)
        self._running = True
        self._wait_ready(started + START_TIMEOUT + 5)

    # -- the API for the tests ---------------------------------------------

    def url(self, dbname: str, user: str | None = None, password: str | None = None) -> str:
        """``postgresql://user:password@127.0.0.1:port/dbname`` (user defaults
        to the admin; no password part when password is None)."""
        user = self.admin_user if user is None else user
        auth = quote(user, safe="")
        if password is not None:
            auth += ":" + quote(password, safe="")
        return f"postgresql://{auth}@{self.host}:{self.port}/{quote(dbname, safe='')}"

    def admin_url(self, dbname: str = "postgres") -> str:
        """The admin's URL over TCP, password included."""
        return self.url(dbname, self.admin_user, self.admin_password)

    def _admin_connect(self, dbname: str):
        """The admin over the unix socket (trusted), autocommit."""
        import psycopg

        return psycopg.connect(host=str(self.socket_dir), port=self.port, user=self.admin_user,
                               dbname=dbname, autocommit=True)

    def execute(self, sql, dbname: str = "postgres", params=None):
        """Run one statement as the admin (autocommit); its rows when it has
        any (a list of tuples), else None.  ``sql``: a string or a
        psycopg.sql object."""
        with self._admin_connect(dbname) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description is not None else None

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (owned by the admin, from template0, UTF8);
        its name, unique unless given."""
        from psycopg import sql

        if name is None:
            self._counter += 1
            name = f"test_{self._counter}_{secrets.token_hex(4)}"
        self.execute(sql.SQL("CREATE DATABASE {} OWNER {} TEMPLATE template0 ENCODING 'UTF8'").format(
            sql.Identifier(name), sql.Identifier(self.admin_user)))
        return name

    def drop_database(self, name: str) -> None:
        """Drop a database, ending its connections first."""
        from psycopg import sql

        self.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def create_role(self, name: str, password: str | None, login: bool = True) -> str:
        """A new role with that password (None: none); returns its name."""
        from psycopg import sql

        self.execute(sql.SQL("CREATE ROLE {} {} PASSWORD {}").format(
            sql.Identifier(name), sql.SQL("LOGIN" if login else "NOLOGIN"),
            sql.Literal(password) if password is not None else sql.SQL("NULL")))
        return name

    def __repr__(self) -> str:
        return f"<PostgresServer {self.version} {self.host}:{self.port} {self.folder}>"


@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL server (started on first use)."""
    try:
        import psycopg  # noqa: F401
    except ImportError as e:
        _unavailable(f"psycopg (3) is not installed ({e}): pip install -e '.[test]'")
    bin_dir = find_bin_dir()
    if bin_dir is None:
        where = f"PG_BIN={os.environ['PG_BIN']}" if os.environ.get("PG_BIN") else "/usr/lib/postgresql/*/bin"
        _unavailable(f"no PostgreSQL server binaries (initdb, pg_ctl, postgres) in {where}: "
                     "sh .ci/setup --with-postgres")
    server = PostgresServer(bin_dir)
    atexit.register(server.stop)  # also when the session ends abruptly
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    try:
        yield server
    finally:
        server.stop()
        atexit.unregister(server.stop)


@pytest.fixture
def pg_url(pg_server):
    """The admin's URL of a fresh empty database, dropped after the test."""
    name = pg_server.create_database()
    yield pg_server.admin_url(name)
    try:
        pg_server.drop_database(name)
    except Exception:  # a cluster that is thrown away anyway
        pass
