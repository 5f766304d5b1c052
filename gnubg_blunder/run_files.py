"""Files a run owns, and what a killed run left (docs/reliability.md, "After
a kill").

One rule, for every file a command makes only while it runs: its name
carries its owner, the process that made it (``pid<PID>-t<START>``: the
process id and, on Linux, its start time since boot, so a reused process id
is not taken for the owner), and a run removes an entry only when that owner
is gone.  A killed run's leftovers are removed by the next run that makes
such files, with a line saying so; nothing of another program, nor of a
live run, is touched.

- Temporary files live in a folder of our own, ``$TMPDIR/gnubg-blunder-<uid>``,
  one sub-folder a run (:func:`run_folder`), removed when the run ends;
  multiprocessing's folder of ``import --jobs`` is made inside it.
- A file beside the database (``check --repair``'s rebuilt copy) is named
  with :func:`owned_name`; :func:`remove_leftovers` removes those of gone
  owners.
- A worker process exits as soon as the process it works for is gone
  (:func:`exit_with_owner`).
"""

from __future__ import annotations

import atexit
import os
import re
import select
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Optional
from .lazy import lazy

_multiprocessing = lazy("multiprocessing")

Say = Optional[Callable[[str], None]]

_OWNER = re.compile(r"pid(\d+)(?:-t(\d+))?")
_REMOVING = ".removing-"  # an entry being removed: renamed first, so one run removes it


def _start_time(pid: int) -> Optional[int]:
    """The start time of process ``pid`` in clock ticks since boot (Linux's
    /proc/PID/stat); None where there is no /proc or no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:
        return int(stat[stat.rindex(b")") + 2:].split()[19])  # field 22; the name may hold spaces and ")"
    except (ValueError, IndexError):
        return None


def owner_token(pid: Optional[int] = None) -> str:
    """``pid<PID>-t<START>`` of this process (or of ``pid``); ``pid<PID>``
    where the start time cannot be read."""
    pid = os.getpid() if pid is None else pid
    start = _start_time(pid)
    return f"pid{pid}" if start is None else f"pid{pid}-t{start}"


def owner_gone(token: str) -> bool:
    """Whether the process a token names has ended.  A process of that id
    started at another time is another process: the owner is gone.  Without
    a start time (no /proc), a live process of that id counts as the owner
    (nothing of a live run is removed)."""
    m = _OWNER.fullmatch(token)
    if m is None:
        return False  # not a name of ours: never removed
    pid = int(m.group(1))
    if pid == os.getpid():
        return False
    if m.group(2) is not None and os.path.exists("/proc/self/stat"):
        start = _start_time(pid)
        return start is None or start != int(m.group(2))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def owned_name(stem: str) -> str:
    """``STEM.pid<PID>-t<START>``: a name of this process, which
    :func:`remove_leftovers` removes once this process is gone."""
    return f"{stem}.{owner_token()}"


def _size(path: Path) -> tuple:
    """(files, bytes) at ``path``, a file or a folder with all it holds."""
    try:
        if path.is_symlink() or not path.is_dir():
            return 1, path.lstat().st_size
        files = size = 0
        for p in path.iterdir():
            n, b = _size(p)
            files, size = files + n, size + b
        return files, size
    except OSError:
        return 0, 0


def _amount(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KB"
    return f"{n} bytes"


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def remove_leftovers(folder, prefix: str, say: Say = None) -> list:
    """Remove the entries of ``folder`` named ``PREFIX…pid<PID>…`` whose
    owner is gone (a file, with whatever follows its owner in the name:
    ``-wal``, ``-shm``; or a folder with all it holds).  One line a leftover
    owner through ``say`` (standard error by default); the lines."""
    folder = Path(folder)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found: dict = {}  # owner token -> entries
    for name in names:
        rest = name[len(_REMOVING):] if name.startswith(_REMOVING) else name
        if not rest.startswith(prefix):
            continue
        m = _OWNER.search(rest, len(prefix))
        if m is not None and owner_gone(m.group(0)):
            found.setdefault(m.group(0), []).append(name)
    lines = []
    for token, entries in found.items():
        removed, files, size = [], 0, 0
        for name in entries:
            path = folder / name
            if not name.startswith(_REMOVING):
                # renamed first: of two runs cleaning at once, one removes it (and says so)
                moved = folder / (_REMOVING + name)
                try:
                    os.rename(path, moved)
                except OSError:
                    continue
                path = moved
            n, b = _size(path)
            files, size = files + n, size + b
            _remove(path)
            removed.append(name.removeprefix(_REMOVING))
        if removed:
            pid = _OWNER.fullmatch(token).group(1)
            what = removed[0] + (f" (and {', '.join(removed[1:])})" if len(removed) > 1 else "")
            lines.append(f"removed what a killed gnubg-blunder (process {pid}) left: {folder / what} "
                         f"({files} file{'s' if files != 1 else ''}, {_amount(size)})")
    for line in lines:
        (say or _to_stderr)(line)
    return lines


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# -- our temporary folder ------------------------------------------------------------


def temp_root() -> Path:
    """``$TMPDIR/gnubg-blunder-<uid>``: the folder of our temporary files,
    made private (0700) when missing."""
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    root = Path(tempfile.gettempdir()) / f"gnubg-blunder-{uid}"
    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    return root


_RUN = {}  # pid -> this process' folder
_RUN_LOCK = threading.Lock()


def run_folder(say: Say = None) -> Path:
    """This run's temporary folder, ``$TMPDIR/gnubg-blunder-<uid>/pid<PID>-t<START>``,
    removed when the process ends normally.  Made on the first call, which
    first removes the folders of runs that were killed (one line each
    through ``say``, standard error by default)."""
    pid = os.getpid()
    with _RUN_LOCK:
        folder = _RUN.get(pid)
        if folder is not None and folder.is_dir():
            return folder
        root = temp_root()
        st = root.lstat()
        if not root.is_dir() or root.is_symlink() or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            # someone else's folder under our name: a private folder of this run alone, no cleaning
            folder = Path(tempfile.mkdtemp(prefix="gnubg-blunder-"))
        else:
            remove_leftovers(root, "", say)
            folder = root / owner_token()
            folder.mkdir(mode=0o700, exist_ok=True)
        if not _RUN:
            atexit.register(_remove_run_folder)
        _RUN[pid] = folder
        return folder


_AFTER_MULTIPROCESSING = set()  # pids whose folder multiprocessing's exit removes (after its own in it)


def _remove_run_folder(at_exit: bool = True) -> None:
    pid = os.getpid()
    if at_exit and pid in _AFTER_MULTIPROCESSING:
        return
    folder = _RUN.get(pid)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def multiprocessing_into_run_folder(say: Say = None) -> None:
    """multiprocessing's own temporary folder (``pymp-…``, the fork server's
    socket) made inside this run's folder, not in $TMPDIR where a killed
    run would leave it.  Call it before a pool starts, from the thread that
    starts it."""
    folder = run_folder(say)
    saved = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        _multiprocessing.util.get_temp_dir()  # made once a process, then kept by multiprocessing
    finally:
        tempfile.tempdir = saved
    if os.getpid() not in _AFTER_MULTIPROCESSING:
        # multiprocessing removes its folder at exit, after atexit's functions: ours goes after it
        _AFTER_MULTIPROCESSING.add(os.getpid())
        _multiprocessing.util.Finalize(None, _remove_run_folder, args=(False,), exitpriority=-101)


# -- worker processes ----------------------------------------------------------------


def exit_with_owner(token: str) -> None:
    """In a worker process (a pool's ``initializer``): exit at once when the
    process of ``token`` (:func:`owner_token`, given by the process the
    worker works for) is gone.  A pool's workers are children of the fork
    server and keep it alive, so without this they outlive a killed
    parent, blocked on their queues."""
    m = _OWNER.fullmatch(token)
    if m is None:
        return
    pid = int(m.group(1))
    if owner_gone(token):
        os._exit(1)
    fd = None
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(pid)  # readable when the process ends
        except OSError:
            fd = None
        if fd is not None and owner_gone(token):  # the id reused before it was opened
            os._exit(1)

    def watch():
        if fd is not None:
            select.select([fd], [], [])
            os._exit(1)
        while not owner_gone(token):
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-owner", daemon=True).start()
