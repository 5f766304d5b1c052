"""Running ``gnubg-blunder`` as another user (``nobody``), from a place that
user can read.

Tests that need a user who is not root (root reads and writes any file,
whatever its mode) run the command line as ``nobody``.  That user cannot
reach the clone when it lies in a private folder (mode 0700, as root's own
home is): not its ``.venv``, not the package, not the test files.  So the
package and the installed libraries it imports are copied once a run into a
world-readable temporary folder, and the command runs there with the
system's Python (the ``.venv``'s base interpreter) and that folder on
``PYTHONPATH``.  No permission of the clone or above it is changed.

Files such a run reads (the fixtures) must be copied into a folder the user
can read too: :func:`readable_copy`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gnubg_blunder"


def _requirement_names(dist) -> list:
    """The names of a distribution's unconditional requirements."""
    names = []
    for req in dist.requires or ():
        if ";" in req and "extra" in req.split(";", 1)[1]:
            continue
        names.append(re.split(r"[\s<>=!~\[;(]", req.strip(), maxsplit=1)[0])
    return names


def _distributions(root: str) -> list:
    """The distribution ``root`` and every one it requires, once each."""
    seen, todo, out = set(), [root], []
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        out.append(dist)
        todo.extend(_requirement_names(dist))
    return out


def _world_readable(top: Path) -> None:
    for where, dirs, files in os.walk(top):
        os.chmod(where, 0o755)
        for f in files:
            p = os.path.join(where, f)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.access(p, os.X_OK) else 0o644)


@lru_cache(maxsize=None)
def install() -> Path:
    """A world-readable folder holding ``gnubg_blunder`` and the installed
    files of every library it requires (made once a run, removed at exit)."""
    top = Path(tempfile.mkdtemp(prefix="gnubg-blunder-other-user-"))
    atexit.register(shutil.rmtree, top, True)
    site = top / "site"
    site.mkdir()
    shutil.copytree(PACKAGE, site / "gnubg_blunder", ignore=shutil.ignore_patterns("__pycache__"))
    for dist in _distributions("gnubg-blunder"):
        if dist.metadata["Name"].lower().replace("_", "-") == "gnubg-blunder":
            continue
        for f in dist.files or ():
            src = Path(dist.locate_file(f))
            if f.parts and (f.parts[0] == ".." or src.suffix == ".pyc" or not src.is_file()):
                continue
            dst = site / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    _world_readable(top)
    return top


def python() -> str:
    """The interpreter the ``.venv`` was made from (every user can run it)."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def prefix() -> list:
    """The command prefix that runs a command as ``nobody``; [] when the
    tests do not run as root (then the user is already not root)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv"):
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    raise RuntimeError("running as root without setpriv or runuser")


def command(*args) -> list:
    """``gnubg-blunder ARGS`` as ``nobody``, from the readable copy."""
    if os.geteuid() != 0:
        return [sys.executable, "-m", "gnubg_blunder", *map(_text, args)]
    return prefix() + [python(), "-s", "-m", "gnubg_blunder", *map(_text, args)]


def _text(arg) -> str:
    return os.fsdecode(arg) if isinstance(arg, bytes) else str(arg)


def environment(base: dict) -> dict:
    """``base`` with the readable copy on the path (run as ``nobody``), and
    no bytecode written into it."""
    env = dict(base)
    if os.geteuid() == 0:
        env["PYTHONPATH"] = str(install() / "site")
        env.pop("VIRTUAL_ENV", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def readable_copy(src: Path, folder: Path) -> Path:
    """``src`` copied into ``folder`` (which the user can read), readable by all."""
    dst = Path(folder) / Path(src).name
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    return dst
