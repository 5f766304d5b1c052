"""The PostgreSQL connection as the store sees it: SQLite's SQL in, PostgreSQL's out.

The store's queries (store/sqlite.py, insert.py, boards.py, candidates.py,
check.py) are written once, in the SQL both engines share, with ``?``
parameters.  :class:`PgConnection` gives them the ``sqlite3`` connection
calls they use (``execute``, ``executemany``, ``in_transaction``,
``total_changes``, ``lastrowid``, ``blobopen``) over psycopg 3, and
rewrites the few phrases where the dialects differ, each once per query
text (:func:`translate`).  What it rewrites, and why, is in
docs/postgres.md ("One store, two engines").

Text PostgreSQL cannot hold (NUL, lone surrogates from non-UTF-8 file
names) goes through :mod:`gnubg_blunder.codec.text` on the way in and out.
"""

from __future__ import annotations

import contextlib
import os
import re
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

from .pg_schema import ID_TABLES
from .schema import ConnectionLost, StoreError
from ..codec.text import MARK, decode_text, encode_text, needs_encoding

# The write lock every writer takes first (``BEGIN IMMEDIATE``): writers
# take turns as they do on SQLite, readers never wait (docs/postgres.md).
WRITE_LOCK = 0x6762_6462  # "gbdb"


_ASCII_LOWER = "translate({}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
_TWO_ARGS = r"\(\s*([\w.]+)\s*,\s*([\w.]+)\s*\)"


def _ascii_lower(match: re.Match) -> str:
    return _ASCII_LOWER.format(match.group(1))


def translate(sql: str) -> tuple:
    """(PostgreSQL text of ``sql``, whether it returns the new row's id).

    - ``?`` → ``%s`` (and a literal ``%`` doubled);
    - ``INSERT OR IGNORE`` → ``ON CONFLICT DO NOTHING``;
    - ``x IS ?`` → ``x IS NOT DISTINCT FROM %s`` (SQLite's ``IS`` compares NULLs);
    - the scalar ``MAX(a, b)`` / ``MIN(a, b)`` → ``GREATEST`` / ``LEAST``;
    - ``lower(x)`` and ``x COLLATE NOCASE`` → ASCII-only lower case, as
      SQLite folds (PostgreSQL's ``lower`` folds every script);
    - ``LIKE`` → ``ILIKE`` (SQLite's LIKE ignores ASCII case);
    - an INSERT into a table with ids → ``RETURNING id``."""
    s = sql.replace("%", "%%")
    s = re.sub(r"\bINSERT OR IGNORE INTO\b(.*?)\s*$", r"INSERT INTO\1 ON CONFLICT DO NOTHING", s, flags=re.S)
    s = re.sub(r"\bIS \?", "IS NOT DISTINCT FROM ?", s)
    s = re.sub(r"\bMAX" + _TWO_ARGS, r"GREATEST(\1, \2)", s)
    s = re.sub(r"\bMIN" + _TWO_ARGS, r"LEAST(\1, \2)", s)
    s = re.sub(r"([\w.]+) COLLATE NOCASE", _ascii_lower, s)
    s = re.sub(r"\blower\(([\w.]+|\?)\)", _ascii_lower, s)  # a column or a parameter: both sides alike
    s = re.sub(r"\b(NOT\s+)?LIKE\b", lambda m: (m.group(1) or "") + "ILIKE", s)
    s = s.replace("?", "%s")
    returning = bool(re.match(r"\s*INSERT INTO (%s)\b" % "|".join(ID_TABLES), s)) and "RETURNING" not in s \
        and "ON CONFLICT" not in s
    if returning:
        s = s.rstrip().rstrip(";") + " RETURNING id"
    return s, returning


_TRANSLATED: dict = {}


def _translated(sql: str) -> tuple:
    out = _TRANSLATED.get(sql)
    if out is None:
        out = _TRANSLATED[sql] = translate(sql)
    return out


def _params(args) -> tuple:
    """Parameters as PostgreSQL takes them: text it cannot hold encoded."""
    if args is None:
        return ()
    if isinstance(args, dict):
        raise TypeError("named parameters are not used by the store")
    return tuple(encode_text(a) if type(a) is str and needs_encoding(a) else a for a in args)


def _decoded(row):
    if row is None:
        return None
    for v in row:
        if type(v) is str and v[:1] == MARK:
            return tuple(decode_text(x) if type(x) is str else x for x in row)
    return row


def one_line(exc: BaseException) -> str:
    """PostgreSQL's message, first line, without the connection's password
    (psycopg names host, port, user and database, never the password)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class PgError(StoreError):
    """An error the server returned, as one line for the user."""


class PgUniqueViolation(PgError):
    """A row another writer stored first (a match's identity is unique)."""

    kind = "unique"


class PgConnectionLost(PgError, ConnectionLost):
    """The connection to the server is gone (the server stopped or crashed,
    the network or the server's machine stopped answering): nothing more
    can be done with this database in this run (docs/postgres.md)."""


# Connecting waits at most this long for the server's answer, unless the URL
# (``?connect_timeout=N``) or PGCONNECT_TIMEOUT says otherwise; an open
# connection whose server stops answering is lost after about
# KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_COUNT s of silence while
# idle, or TCP_USER_TIMEOUT ms of unacknowledged data (docs/postgres.md).
CONNECT_TIMEOUT = 10
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 10, 5, 4
TCP_USER_TIMEOUT = 30_000


def connection_defaults(dsn: str) -> dict:
    """The connection parameters we add to ``dsn``: those it does not set
    (the connect timeout: nor PGCONNECT_TIMEOUT)."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(dsn)
    defaults = {"connect_timeout": str(CONNECT_TIMEOUT), "keepalives": "1",
                "keepalives_idle": str(KEEPALIVE_IDLE), "keepalives_interval": str(KEEPALIVE_INTERVAL),
                "keepalives_count": str(KEEPALIVE_COUNT), "tcp_user_timeout": str(TCP_USER_TIMEOUT)}
    if os.environ.get("PGCONNECT_TIMEOUT"):
        del defaults["connect_timeout"]
    return {k: v for k, v in defaults.items() if k not in given}


def connect_timeout(dsn: str) -> str:
    """How long connecting to ``dsn`` waits for the server, in seconds."""
    from psycopg.conninfo import conninfo_to_dict

    return conninfo_to_dict(dsn).get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT") \
        or str(CONNECT_TIMEOUT)


def _lost(raw) -> bool:
    return raw.closed or raw.broken


@contextlib.contextmanager
def _one_line_errors(raw=None):
    """The server's errors as the store's: one line; a unique row another
    writer stored first apart (``PgUniqueViolation``), and a connection
    that is gone (``PgConnectionLost``)."""
    import psycopg

    try:
        yield
    except psycopg.errors.UniqueViolation as exc:
        raise PgUniqueViolation(one_line(exc)) from None
    except psycopg.Error as exc:
        if raw is not None and _lost(raw):
            raise PgConnectionLost(f"the connection to the server was lost ({one_line(exc)})") from None
        raise PgError(one_line(exc)) from None


class PgCursor:
    """The part of ``sqlite3.Cursor`` the store uses."""

    def __init__(self, cur, lastrowid=None):
        self._cur = cur
        self.lastrowid = lastrowid
        self.rowcount = cur.rowcount

    @property
    def description(self):
        return self._cur.description

    def fetchone(self):
        return _decoded(self._cur.fetchone())

    def fetchall(self):
        return [_decoded(r) for r in self._cur.fetchall()]

    def __iter__(self):
        for row in self._cur:
            yield _decoded(row)


class PgBlob:
    """``blobopen`` for a bytea column: ``seek``/``read`` fetch slices with
    ``substring`` inside the reading connection's snapshot (its REPEATABLE
    READ transaction stays open while the handles live: a merge by another
    writer meanwhile is not seen, as with SQLite's blob handles)."""

    def __init__(self, conn: "PgConnection", table: str, column: str, key: int):
        self.conn, self.key, self.at = conn, key, 0
        self.sql = f"SELECT substring({column} FROM %s FOR %s) FROM {table} WHERE analysis_id = %s"

    def seek(self, offset: int) -> None:
        self.at = offset

    def read(self, size: int) -> bytes:
        row = self.conn._run(self.sql, (self.at + 1, size, self.key)).fetchone()
        self.at += size
        return bytes(row[0]) if row and row[0] is not None else b""

    def close(self) -> None:
        pass


class PgConnection:
    """A psycopg 3 connection speaking the store's SQL (see module doc).

    Autocommit: transactions are the store's own ``BEGIN`` … ``COMMIT``.
    ``BEGIN IMMEDIATE`` (a write) takes the store's advisory write lock;
    a bare ``BEGIN`` (a read's snapshot) is REPEATABLE READ."""

    engine = "postgresql"

    def __init__(self, dsn: str):
        try:
            import psycopg
        except ImportError:  # an optional dependency (the extra "postgres" of pyproject.toml)
            raise StoreError("PostgreSQL needs psycopg: pip install 'gnubg-blunder[postgres]'") from None
        try:
            defaults = connection_defaults(dsn)
            self.raw = psycopg.connect(dsn, autocommit=True, application_name="gnubg-blunder", **defaults)
        except psycopg.Error as exc:
            # libpq quotes the part of a URL it cannot parse, which may be the password
            reason = scrubbed(one_line(exc), dsn)
            if "timeout expired" in reason:
                reason = (f"cannot connect: the server did not answer within {connect_timeout(dsn)} s ({reason}; "
                          "?connect_timeout=N in the URL waits N s)")
            raise PgError(reason) from None
        _register_types(self.raw)
        self.total_changes = 0
        self.closed = False

    @property
    def in_transaction(self) -> bool:
        """A transaction of ours is open (a lost connection has none: the
        server rolled it back, or never got it)."""
        from psycopg.pq import TransactionStatus

        if _lost(self.raw):
            return False
        return self.raw.info.transaction_status not in (TransactionStatus.IDLE, TransactionStatus.UNKNOWN)

    def _cursor(self):
        with _one_line_errors(self.raw):
            return self.raw.cursor()

    def _run(self, sql: str, params=()):
        with _one_line_errors(self.raw):
            cur = self.raw.cursor()
            cur.execute(sql, params)
        return cur

    def execute(self, sql: str, args=()) -> PgCursor:
        word = sql.lstrip()[:16].upper()
        if word.startswith("BEGIN"):
            if "IMMEDIATE" in word:
                self._run("BEGIN")
                self._run("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            else:
                self._run("BEGIN ISOLATION LEVEL REPEATABLE READ")
            return PgCursor(self._cursor())
        text, returning = _translated(sql)
        cur = self._run(text, _params(args))
        lastrowid = None
        if returning:
            row = cur.fetchone()
            lastrowid = row[0] if row else None
        elif word.startswith(("INSERT", "UPDATE", "DELETE")) and cur.rowcount > 0:
            self.total_changes += cur.rowcount
        return PgCursor(cur, lastrowid)

    def executemany(self, sql: str, rows) -> PgCursor:
        text, returning = _translated(sql)
        if returning:
            text = text[: -len(" RETURNING id")]
        rows = [_params(r) for r in rows]
        cur = self._cursor()
        if not rows:
            return PgCursor(cur)
        with _one_line_errors(self.raw):
            cur.executemany(text, rows)
        if cur.rowcount > 0:
            self.total_changes += cur.rowcount
        return PgCursor(cur)

    def copy_rows(self, table: str, columns: list, rows) -> int:
        """Rows written with PostgreSQL's COPY (bulk loads: ``copy``)."""
        cols = ", ".join(columns)
        n = 0
        with _one_line_errors(self.raw), self.raw.cursor().copy(f"COPY {table} ({cols}) FROM STDIN") as cp:
            for row in rows:
                cp.write_row(_params(row))
                n += 1
        self.total_changes += n
        return n

    def blobopen(self, table: str, column: str, key: int, readonly: bool = True) -> PgBlob:
        return PgBlob(self, table, column, key)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.raw.close()
            except Exception:
                pass


def _register_types(conn) -> None:
    """Python values as SQLite gives them: booleans stored as 0/1 integers
    (the schema's flags are integers), sums of integers as int (PostgreSQL
    sums bigints to numeric), bytea as bytes."""
    from psycopg.adapt import Loader
    from psycopg.types.numeric import IntDumper

    class BoolAsInt(IntDumper):
        def dump(self, obj):
            return b"1" if obj else b"0"

    class NumericAsNumber(Loader):
        def load(self, data):
            text = bytes(data).decode()
            if "." in text or "e" in text.lower() or text in ("NaN", "Infinity", "-Infinity"):
                return float(text)
            return int(text)

    conn.adapters.register_dumper(bool, BoolAsInt)
    conn.adapters.register_loader("numeric", NumericAsNumber)


def redacted(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``: how a
    PostgreSQL database is named in every line, JSON and page we print."""
    return _password_replaced(url, "***")


def without_password(url: str) -> str:
    """``url`` with no password at all: the same database whether its
    password is written in the URL or not (the key of its saved filter in
    the user's config file, which keeps no secret)."""
    return _password_replaced(url, None)


def _password_replaced(url: str, mark) -> str:
    """``url`` with its password, in the user part and in ``?password=``,
    written ``mark`` (None: left out)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://***"
    if parts.password is None and "password=" not in (parts.query or ""):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        user_info, _, host = netloc.rpartition("@")
        user = user_info.split(":", 1)[0]
        netloc = f"{user}@{host}" if mark is None else f"{user}:{mark}@{host}"
    if mark is None:
        query = "&".join(p for p in (parts.query or "").split("&") if p and not p.startswith("password="))
    else:
        query = re.sub(r"(^|&)password=[^&]*", rf"\1password={mark}", parts.query or "")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrubbed(text: str, url: str) -> str:
    """``text`` with the URL and its password (as written and decoded,
    from the user part or ``?password=``) replaced: a message about ``url``
    that may be shown."""
    secrets = set()
    try:
        parts = urlsplit(url)
        if parts.password:
            secrets.update({parts.password, unquote(parts.password)})
        for value in parse_qs(parts.query or "").get("password", []):
            secrets.update({value, unquote(value)})
    except ValueError:
        pass
    user_info = url.split("://", 1)[-1].split("/", 1)[0].rpartition("@")[0]
    if ":" in user_info:
        raw = user_info.split(":", 1)[1]
        secrets.update({raw, unquote(raw)})
    text = text.replace(url, redacted(url))
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
