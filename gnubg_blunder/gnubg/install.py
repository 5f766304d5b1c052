"""``gnubg-blunder install-gnubg``: make gnubg load the plugin at start-up.

gnubg embeds its own Python (Debian: the system ``python3.11``), which is
externally managed: nothing is pip-installed into it.  Instead we ask gnubg
which Python it embeds, check that the environment gnubg-blunder runs from
is compatible (same major.minor, for numpy and lxml's compiled parts), write
that environment's site-packages to ``~/.gnubg/gnubg_blunder_paths.txt``
(the hook adds them with ``site.addsitedir``), copy the start-up hook to
``~/.gnubg/`` and add one ``load python`` line to ``~/.gnubg/gnubgrc``,
keeping the user's other lines.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import sys
import sysconfig
from pathlib import Path

from .process import GnubgNotFound, find_gnubg, run_commands, run_python
from .gui_output import tk_available

HOOK_NAME = "gnubg_blunder_start.py"
PATHS_NAME = "gnubg_blunder_paths.txt"
MARK = "# gnubg-blunder"

_PROBE = r"""
import json, sys
print("GNUBG_BLUNDER_PROBE " + json.dumps({"version": list(sys.version_info[:3]), "path": sys.path,
      "executable": sys.executable}))
"""


def hook_source() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / HOOK_NAME


def gnubg_python(env=None) -> dict:
    """The Python gnubg embeds: version and sys.path, as gnubg reports them."""
    res = run_python(_PROBE, env=env, timeout=120)
    for line in res.stdout.splitlines():
        if line.startswith("GNUBG_BLUNDER_PROBE "):
            return json.loads(line.split(" ", 1)[1])
    raise RuntimeError(f"gnubg did not run the Python probe: {(res.stdout + res.stderr).strip()[-300:]}")


def our_site_dirs() -> list:
    """Where this gnubg-blunder and its dependencies are installed."""
    dirs = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and p not in dirs:
            dirs.append(p)
    if sys.prefix == sys.base_prefix:  # not a venv: the user site too
        user = site.getusersitepackages()
        if user and os.path.isdir(user) and user not in dirs:
            dirs.append(user)
    pkg_parent = str(Path(__file__).resolve().parents[2])
    if not any(pkg_parent == d for d in dirs):
        dirs.append(pkg_parent)  # a source checkout run without installing
    return dirs


def install(ctx, home=None) -> int:
    home_dir = Path(home).expanduser() if home else Path(os.path.expanduser("~"))
    env = dict(os.environ)
    env["HOME"] = str(home_dir)
    try:
        gnubg = find_gnubg()
    except GnubgNotFound as exc:
        ctx.error(f"error: {exc}")
        return 1
    info = gnubg_python(env)
    theirs = tuple(info["version"][:2])
    ours = sys.version_info[:2]
    ctx.print(f"gnubg: {gnubg}, embedded Python {'.'.join(map(str, info['version']))}")
    if theirs != ours:
        ctx.error(
            f"error: gnubg embeds Python {theirs[0]}.{theirs[1]} but gnubg-blunder runs on {ours[0]}.{ours[1]}: "
            f"numpy and lxml built for one do not load in the other. Install gnubg-blunder in a virtual "
            f"environment made with Python {theirs[0]}.{theirs[1]} (e.g. /usr/bin/python3 -m venv .venv) and "
            f"run its gnubg-blunder install-gnubg."
        )
        return 1
    gdir = home_dir / ".gnubg"
    gdir.mkdir(parents=True, exist_ok=True)
    dirs = our_site_dirs()
    (gdir / PATHS_NAME).write_text(
        "# written by gnubg-blunder install-gnubg: added to gnubg's Python path at start-up\n"
        + "\n".join(dirs) + "\n",
        encoding="utf-8",
    )
    hook = gdir / HOOK_NAME
    shutil.copyfile(hook_source(), hook)
    rc = gdir / "gnubgrc"
    line = f"load python {hook}"
    lines = rc.read_text(encoding="utf-8").splitlines() if rc.exists() else []
    if any(l.strip() == line for l in lines):
        ctx.print(f"{rc}: already loads gnubg-blunder")
    else:
        with open(rc, "a", encoding="utf-8") as fh:
            if lines and not rc.read_text(encoding="utf-8").endswith("\n"):
                fh.write("\n")
            fh.write(line + "\n")
        ctx.print(f"{rc}: added `{line}`")
    # Check it as the user will meet it: gnubg started with the user's rc files.
    res = run_commands('>print("BDB_CHECK", type(bdb).__name__)\n', rc_files=True, env=env, timeout=120)
    if "BDB_CHECK Bdb" not in res.stdout:
        tail = [l for l in res.stdout.splitlines() if "gnubg-blunder" in l]
        ctx.error("error: gnubg did not load the plugin: " + (tail[-1] if tail else res.stdout.strip()[-300:]))
        return 1
    ctx.print("gnubg loads gnubg-blunder at start-up: type >bdb.analyse() in gnubg "
              "(start gnubg with `gnubg -t` for the text interface)")

    if not tk_available():
        ctx.print("note: Tk for Python is not installed (Debian/Ubuntu: sudo apt-get install python3-tk): "
                  "in gnubg's GUI the plugin's output opens in your browser instead of its own window")
    return 0
