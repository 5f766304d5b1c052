"""Run the real GNU Backgammon headless (``gnubg -t -q``).

gnubg has no library interface: the only way to let it import, analyse or
evaluate is to feed its command line, and the only way to read its answers is
its standard output.  Everything that starts gnubg goes through here.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from ..errors import BlunderError

DEFAULT_GNUBG = "/usr/games/gnubg"


class GnubgNotFound(RuntimeError, BlunderError):
    pass


def find_gnubg() -> str:
    """The gnubg binary: ``$GNUBG``, then ``gnubg`` on PATH, then Debian's path."""
    candidates = [os.environ.get("GNUBG"), shutil.which("gnubg"), DEFAULT_GNUBG]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise GnubgNotFound(
        "GNU Backgammon not found (set GNUBG or install it: apt-get install -y gnubg)"
    )


def run_commands(
    commands: str,
    *,
    rc_files: bool = False,
    timeout: float = 900,
    env: dict | None = None,
    cwd: str | None = None,
    progress: Optional[Callable[[str, int, int], None]] = None,
) -> subprocess.CompletedProcess:
    """Feed ``commands`` (gnubg command lines) to ``gnubg -t -q`` on stdin.

    ``rc_files=False`` adds ``-r`` so the user's ``~/.gnubg/gnubgrc`` is not read.
    Returns the completed process (text mode); the caller reads stdout.
    ``progress(what, done, total)``: called with gnubg's own progress of an
    analysis ("Analysing match; move: 88/203"), which gnubg prints only to a
    terminal: gnubg's output then goes through a pseudo-terminal (where the
    system has one), those lines taken out of ``stdout``.
    """
    args = [find_gnubg(), "-t", "-q"]
    if not rc_files:
        args.append("-r")
    if progress is not None:
        res = _run_on_pty(args, commands, timeout, env, cwd, progress)
        if res is not None:
            return res
    return subprocess.run(
        args,
        input=commands,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
        errors="replace",
    )


# gnubg's progress of an analysis on a terminal: "\rAnalysing match; move: 88/203\r", then a blank line
_PROGRESS = re.compile(r"Analysing (\w+); move: (\d+)/(\d+)")


def _run_on_pty(args, commands: str, timeout: float, env, cwd, progress) -> subprocess.CompletedProcess:
    """:func:`run_commands` with gnubg's standard output on a
    pseudo-terminal (raw: no line-ending translation, no echo), standard
    input and error piped; gnubg's progress lines go to ``progress``, the
    rest of its output is the returned ``stdout``.  None where the system
    has no pseudo-terminal (then gnubg runs on pipes, its progress unseen)."""
    try:
        import pty
        import tty

        master, slave = pty.openpty()
    except (ImportError, OSError):
        return None
    try:
        tty.setraw(slave)
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=slave, stderr=subprocess.PIPE, env=env, cwd=cwd)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    os.close(slave)
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + timeout
    try:
        try:
            proc.stdin.write(commands.encode("utf-8", "surrogateescape"))
            proc.stdin.close()
        except BrokenPipeError:
            pass  # gnubg ended early: what it said is read below
        err_fd = proc.stderr.fileno()
        open_fds = [master, err_fd]
        pending = ""
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                proc.wait()
                raise subprocess.TimeoutExpired(args, timeout, output=bytes(out), stderr=bytes(err))
            ready, _, _ = select.select(open_fds, [], [], min(left, 1.0))
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: gnubg closed the terminal (it ended)
                    chunk = b""
                if not chunk:
                    open_fds.remove(fd)
                    continue
                if fd == err_fd:
                    err += chunk
                    continue
                parts = re.split(r"(\r|\n)", pending + chunk.decode("utf-8", "replace"))
                pending = parts.pop()  # after the last \r or \n: a line may be cut between two reads
                for seg, sep in zip(parts[::2], parts[1::2]):
                    m = _PROGRESS.search(seg)
                    if m:
                        progress(m.group(1), int(m.group(2)), int(m.group(3)))
                    elif sep == "\n":
                        out += (seg + "\n").encode("utf-8")
                    elif seg.strip() and not seg.startswith("Analysing "):
                        out += seg.encode("utf-8")  # text before a carriage return: kept, the terminal's \r not
        out += pending.encode("utf-8")
        returncode = proc.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(master)
        if proc.stderr:
            proc.stderr.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(args, returncode, bytes(out).decode("utf-8", "replace"),
                                       bytes(err).decode("utf-8", "replace"))


def run_python(
    source: str,
    *,
    rc_files: bool = False,
    timeout: float = 900,
    env: dict | None = None,
    cwd: str | None = None,
) -> subprocess.CompletedProcess:
    """Run a Python program inside gnubg's embedded interpreter (``gnubg -p``)."""
    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-") as tmp:
        script = Path(tmp) / "script.py"
        script.write_text(source, encoding="utf-8")
        args = [find_gnubg(), "-t", "-q"]
        if not rc_files:
            args.append("-r")
        args += ["-p", str(script)]
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            errors="replace",
        )


def gnubg_version() -> Optional[str]:
    """gnubg's version as it prints it ("1.07.001"), None when it says none."""
    try:
        out = subprocess.run([find_gnubg(), "--version"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL, errors="replace").stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"GNU Backgammon (\S+)", out)
    return m.group(1) if m else None
