"""Damage, as the store's writes refuse it: is the database file whole
before this process first writes into it, and did SQLite find damage while
writing?  (``gnubg-blunder check [--repair]``, which says what is damaged
and rebuilds what can be, is store/check.py.)

What writes refuse: the store's ``add_match`` runs ``PRAGMA quick_check``
before the first write into a file **once per process** (an ``import`` or
``analyse`` run, a gnubg session however many ``bdb.store()`` it makes): the
files found whole are remembered by their identity (device, inode and the mark
a ``check --repair`` leaves in the file it rebuilds), so a file replaced by
another one at its path, or rebuilt in place by a repair, is checked again.  An SQLITE_CORRUPT /
SQLITE_NOTADB raised while writing is the same refusal
(:class:`DamagedDatabase`) and makes the file be checked again.  quick_check
reads the whole file, so it is not run when a store is merely opened or read.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from typing import Optional

from .schema import StoreError

# SQLITE_CORRUPT, SQLITE_NOTADB (primary result codes)
_DAMAGE_CODES = {11, 26}
CHECK_HINT = "`gnubg-blunder check` says what is damaged; `gnubg-blunder check --repair` rebuilds what can be rebuilt"


class DamagedDatabase(StoreError):
    """The database file is damaged: nothing is written into it."""


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite raised because the file is damaged (SQLITE_CORRUPT,
    SQLITE_NOTADB), rather than busy, read-only, full..."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _DAMAGE_CODES
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def _problems(conn, pragma: str) -> list:
    """The lines a ``PRAGMA integrity_check``/``quick_check`` prints, [] when
    it says ok; SQLite raising SQLITE_CORRUPT mid-check is one problem."""
    try:
        rows = conn.execute(f"PRAGMA {pragma}").fetchall()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return [f"{pragma.split('(')[0]} stopped: {exc}"]
    lines = [line.strip() for (text,) in rows for line in str(text).splitlines()]
    lines = [line for line in lines if line and not line.startswith("*** in database")]
    return [] if lines == ["ok"] else lines


def quick_check(conn, limit: int = 20) -> list:
    """``PRAGMA quick_check``: the file's pages and b-trees (not the indexes'
    content against their tables).  [] = whole.  It reads every page: a
    fraction of a second for a few MB, seconds for a GB."""
    return _problems(conn, f"quick_check({int(limit)})")


def integrity_check(conn, limit: int = 100) -> list:
    """``PRAGMA integrity_check``: quick_check and every index against its
    table.  [] = whole."""
    return _problems(conn, f"integrity_check({int(limit)})")


def damaged_message(problems: list, action: str = "nothing was written") -> str:
    """One line: what SQLite found, that the file was left alone, and ``check``."""
    first = problems[0] if problems else "SQLite reports damage"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"the database file is damaged: {first}{more}; {action}. {CHECK_HINT}"


def assert_whole(conn) -> None:
    """Raise :class:`DamagedDatabase` if ``PRAGMA quick_check`` finds damage."""
    problems = quick_check(conn, limit=5)
    if problems:
        raise DamagedDatabase(damaged_message(problems))


# The files this process found whole before writing into them: {file identity: the file's size when last
# seen}, the identity (device, inode, rebuilt mark) of :func:`store_identity`.  quick_check reads the whole
# file (750-870 ms at 10,000 matches), so it runs once per file and process, not once per opened store
# (every bdb.store() opens one).  A file moved or copied over the path has another inode, and one rebuilt in
# place by `check --repair` (written back through SQLite's backup API: the same inode) carries a new mark
# (REBUILT_KEY): either is checked again.  A file deleted and made again at the path may be given the same
# inode number: one smaller than when last seen is checked again (a database only shrinks when compacted,
# which costs one more check); one of the same inode that is not smaller is not looked for
# (docs/reliability.md).
_FOUND_WHOLE: dict = {}

# The meta key `check --repair` sets in the file it rebuilds (a new value each repair): the file is another
# one for this process's caches (the check above, the array cache's manifests, store/sqlite.py), though
# its inode is the same.
REBUILT_KEY = "file_rebuilt"


def file_identity(path) -> Optional[tuple]:
    """(device, inode) of a database file; None for ``:memory:`` or a file
    that cannot be stat'ed."""
    if not path or str(path) == ":memory:":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def rebuilt_mark(conn) -> Optional[str]:
    """The mark of the last ``check --repair`` that rebuilt this file (None:
    never rebuilt, or no meta table yet)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (REBUILT_KEY,)).fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def store_identity(path, conn) -> Optional[tuple]:
    """(device, inode, rebuilt mark) of the file ``conn`` has open at
    ``path``: what this process's caches of a file are keyed by."""
    where = file_identity(path)
    return None if where is None else (*where, rebuilt_mark(conn))


def _size(path) -> Optional[int]:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _known_whole(path, identity) -> bool:
    """Found whole before in this process, and not smaller since."""
    seen, now = _FOUND_WHOLE.get(identity), _size(path)
    if seen is None or now is None or now < seen:
        return False
    _FOUND_WHOLE[identity] = now
    return True


def forget_whole(path) -> None:
    """The file at ``path`` is checked again before this process's next write."""
    where = file_identity(path)
    for identity in [k for k in _FOUND_WHOLE if k[:2] == where]:
        del _FOUND_WHOLE[identity]


def refuses_damage(write):
    """Decorate a store's write method (``add_match``): before the first
    write into a file in this process, ``PRAGMA quick_check`` (it reads the
    whole file: once per file and process, ``_FOUND_WHOLE``);
    SQLITE_CORRUPT / SQLITE_NOTADB raised while writing is the same refusal.
    Either way :class:`DamagedDatabase`, nothing written."""
    @functools.wraps(write)
    def checked(store, *args, **kwargs):
        identity = getattr(store, "opened_file", None)
        if identity is not None:
            now = store_identity(store.path, store.conn)
            if now is None or now[:2] != identity[:2]:
                identity = None  # the path names another file than the one opened: checked, not remembered
            elif now != identity:  # rebuilt in place by a repair since it was opened: another file, checked
                store.opened_file, identity, store._found_whole, store._damage = now, now, False, None
        if not getattr(store, "_found_whole", False):
            if identity is None or not _known_whole(store.path, identity):
                # found damaged once: refused again without reading the file again
                problems = getattr(store, "_damage", None) or quick_check(store.conn, limit=5)
                if problems:
                    store._damage = problems
                    raise DamagedDatabase(damaged_message(problems))
                if identity is not None:
                    _FOUND_WHOLE[identity] = _size(store.path) or 0
            store._found_whole = True
        try:
            return write(store, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                store._found_whole, store._damage = False, [f"SQLite: {exc}"]
                forget_whole(getattr(store, "path", None))
                raise DamagedDatabase(damaged_message(store._damage)) from exc
            raise

    return checked
