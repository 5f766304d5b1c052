"""Killing a gnubg-blunder command with SIGKILL inside its work, and what it
left (issue 24: tests/test_after_a_kill.py, benchmarks/kill_leftovers.py).

A command runs with a variable of its own in its environment, which every
process it starts inherits (multiprocessing's fork server and workers too):
the processes left after a kill are those still carrying it
(/proc/PID/environ, Linux).  It runs with TMPDIR set to a folder of the
trial's own, so what it leaves there is counted, and no other program's
files are.  A kill lands "inside the work" when it comes after a marker
(a file appearing, a line printed): the wait is for the marker, never a
sleep of a fixed length."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

MARK = "GNUBG_BLUNDER_KILL_MARK"


def marked_processes(mark: str) -> list:
    """The processes whose environment holds ``MARK=mark``."""
    want = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if want in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone meanwhile, or not ours
            pass
    return found


def _stat_state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rindex(b")") + 2:].split()[0].decode()
    except (OSError, ValueError, IndexError):
        return "gone"


def living(pids) -> list:
    """Those of ``pids`` still running (a zombie waiting for its parent's
    wait is dead)."""
    return [p for p in pids if _stat_state(p) not in ("gone", "Z", "X")]


def processes_left(mark: str, within: float) -> list:
    """The marked processes still alive after ``within`` seconds (polled:
    returns as soon as none is left)."""
    end = time.monotonic() + within
    while True:
        left = living(marked_processes(mark))
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.05)


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def command(args, db, tmpdir, mark: str = "") -> tuple:
    """(argv, env) of ``gnubg-blunder --db DB ARGS`` with TMPDIR=tmpdir,
    plugins off, standard output unbuffered (a printed line is a marker)
    and the mark in the environment."""
    env = dict(os.environ, TMPDIR=str(tmpdir), GNUBG_BLUNDER_NO_PLUGINS="1", PYTHONUNBUFFERED="1",
               **{MARK: mark or uuid.uuid4().hex})
    return [sys.executable, "-m", "gnubg_blunder", "--db", str(db), *map(str, args)], env


def run(args, db, tmpdir, timeout: float = 300) -> subprocess.CompletedProcess:
    argv, env = command(args, db, tmpdir)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def kill_when(args, db, tmpdir, ready, delay: float = 0.0, timeout: float = 120) -> dict:
    """Start the command and SIGKILL it ``delay`` seconds after ``ready(proc)``
    is first true (polled every millisecond; ``ready`` may read the lines
    printed so far, ``proc.lines``), or at once when it was true and the
    command is still running.  {"landed": the kill came inside the work
    (ready, and the command still running), "mark": its mark, "ended": it
    ended before the kill}."""
    mark = uuid.uuid4().hex
    argv, env = command(args, db, tmpdir, mark)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.lines = []
    os.set_blocking(proc.stdout.fileno(), False)
    buf = b""
    end = time.monotonic() + timeout
    fired = None
    try:
        while proc.poll() is None and time.monotonic() < end:
            try:
                chunk = proc.stdout.read()
            except (BlockingIOError, TypeError):
                chunk = None
            if chunk:
                buf += chunk
                *done, buf = buf.split(b"\n")
                proc.lines += [line.decode(errors="replace") for line in done]
            if fired is None and ready(proc):
                fired = time.monotonic()
            if fired is not None and time.monotonic() >= fired + delay:
                break
            time.sleep(0.001)
        landed = fired is not None and proc.poll() is None and ready(proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        proc.stdout.close()
    return {"landed": landed, "mark": mark, "ended": proc.returncode != -signal.SIGKILL}


def entries(folder) -> list:
    """Every file and folder under ``folder`` (relative paths, sorted)."""
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def padded_collection(col: Path, apkg: Path, megabytes: int = 40) -> Path:
    """A new Anki collection at ``col`` holding the notes of ``apkg``
    (imported by Anki's own backend, tests/test_anki.py), made large (a
    table of ``megabytes`` MB beside Anki's) so that a sync's copy and
    check take long enough to be killed inside them."""
    import sqlite3

    from test_anki import _import

    col.parent.mkdir(parents=True, exist_ok=True)
    _import(col, apkg)
    con = sqlite3.connect(col)
    con.execute("CREATE TABLE padding (b BLOB)")
    con.executemany("INSERT INTO padding VALUES (randomblob(1048576))", [()] * megabytes)
    con.commit()
    con.close()
    return col
