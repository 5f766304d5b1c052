"""Run the real GNU Backgammon headless (``gnubg -t -q``).

gnubg has no library interface: the only way to let it import, analyse or
evaluate is to feed its command line, and the only way to read its answers is
its standard output.  Everything that starts gnubg goes through here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

DEFAULT_GNUBG = "/usr/games/gnubg"


class GnubgNotFound(RuntimeError):
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
) -> subprocess.CompletedProcess:
    """Feed ``commands`` (gnubg command lines) to ``gnubg -t -q`` on stdin.

    ``rc_files=False`` adds ``-r`` so the user's ``~/.gnubg/gnubgrc`` is not read.
    Returns the completed process (text mode); the caller reads stdout.
    """
    args = [find_gnubg(), "-t", "-q"]
    if not rc_files:
        args.append("-r")
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
