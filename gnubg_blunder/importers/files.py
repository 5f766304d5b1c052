"""Opening a match file safely: any path the OS gives, only regular files,
a size limit checked before reading (docs/reliability.md).

``check_match_file(path)`` says in one line why a path is not a match file
to read (missing, a symbolic link loop, a FIFO, a device, too large, not
permitted); ``read_match_bytes(path)`` opens without ever blocking (a FIFO
would wait for a writer forever), checks the open file again and reads at
most :data:`MAX_MATCH_FILE_SIZE` bytes.  Both importers read through it, and
``import`` checks every file with it before an importer (a plugin's too) is
called.
"""

from __future__ import annotations

import errno
import os
import stat

from ..codec.paths import shown_path, stored_path  # noqa: F401  (the importers' names for them)
from ..errors import BlunderError

# Real match files are kilobytes to a few megabytes (an XG file with long
# comments, a gnubg SGF with rollouts); 256 MiB is far above any of them and
# keeps a hostile file from being read into memory.
MAX_MATCH_FILE_SIZE = 256 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotAMatchFile(OSError, BlunderError):
    """A path that is not read as a match file; ``strerror`` is the one-line reason."""

    def __init__(self, reason: str):
        super().__init__(errno.EINVAL, reason)

    def __str__(self):
        return self.strerror


def size_text(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.0f} MiB" if n % (1024 * 1024) == 0 else f"{n / (1024 * 1024):.1f} MiB"
    return f"{n} bytes"


def _refusal(st: os.stat_result, limit: int):
    """Why a file of this status is not read, or None."""
    mode = st.st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), None)
        return f"not a regular file: {kind}" if kind else "not a regular file"
    if st.st_size > limit:
        return (f"too large: {size_text(st.st_size)}, above the limit of {size_text(limit)} for a match file "
                "(not read)")
    return None


def os_reason(exc: OSError, path=None) -> str:
    """One line for an OSError met opening or reading ``path``."""
    if isinstance(exc, NotAMatchFile):
        return exc.strerror
    code = exc.errno
    if code == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    if code == errno.ENOENT:
        if path is not None and os.path.islink(path):
            return f"a symbolic link to a missing file ({shown_path(os.readlink(path))})"
        return "no such file"
    if code in (errno.EACCES, errno.EPERM):
        return "cannot read the file: permission denied"
    return f"cannot read the file: {exc.strerror or exc}"


def check_match_file(path, limit: int = MAX_MATCH_FILE_SIZE) -> os.stat_result:
    """The status of a match file to read; raises :class:`NotAMatchFile`
    (with a one-line reason) for anything else.  Nothing is opened."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise NotAMatchFile(os_reason(exc, path)) from None
    reason = _refusal(st, limit)
    if reason:
        raise NotAMatchFile(reason)
    if not os.access(path, os.R_OK):
        raise NotAMatchFile("cannot read the file: permission denied")
    return st


def _open_regular(path, limit: int) -> int:
    """A file descriptor of ``path`` opened without ever blocking (O_NONBLOCK:
    a FIFO has no writer to wait for), checked again once open (the path may
    have changed since it was checked).  Raises :class:`NotAMatchFile` or
    the OSError met."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        reason = _refusal(os.fstat(fd), limit)
    except BaseException:
        os.close(fd)
        raise
    if reason:
        os.close(fd)
        raise NotAMatchFile(reason)
    return fd


def read_match_bytes(path, limit: int = MAX_MATCH_FILE_SIZE) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, opened by
    :func:`_open_regular`; no more than ``limit`` + 1 bytes are ever read (a
    file growing while it is read).  Raises :class:`NotAMatchFile` or the
    OSError met."""
    fd = _open_regular(path, limit)
    try:
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise NotAMatchFile(f"too large: above the limit of {size_text(limit)} for a match file")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_match_head(path, size: int) -> bytes:
    """At most the first ``size`` bytes of a match file, opened as
    :func:`read_match_bytes` opens it: what tells a file's format by its
    content (importers/transcript.py)."""
    fd = _open_regular(path, MAX_MATCH_FILE_SIZE)
    try:
        chunks, total = [], 0
        while total < size:
            chunk = os.read(fd, size - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
