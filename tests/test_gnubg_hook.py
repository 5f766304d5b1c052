"""The start-up hook and the gnubg/ package's layout, in the real gnubg."""

from __future__ import annotations

import os
import subprocess

from conftest import needs_gnubg, run_cli


def test_the_hook_imports_the_console_from_the_gnubg_package():
    from gnubg_blunder.gnubg.install import hook_source

    text = hook_source().read_text(encoding="utf-8")
    assert "from gnubg_blunder.gnubg.console import Bdb" in text


@needs_gnubg
def test_a_hook_copied_before_the_gnubg_package_still_loads(tmp_path):
    """A hook that ``install-gnubg`` copied to ~/.gnubg before the move
    imports ``gnubg_blunder.gnubg_console``: gnubg still gets ``bdb``."""
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    run_cli("install-gnubg", env=env)
    hook = home / ".gnubg" / "gnubg_blunder_start.py"
    old = hook.read_text(encoding="utf-8").replace("gnubg_blunder.gnubg.console", "gnubg_blunder.gnubg_console")
    assert "gnubg_blunder.gnubg_console import Bdb" in old
    hook.write_text(old, encoding="utf-8")
    out = subprocess.run(["/usr/games/gnubg", "-t"], input='>print("BDB_CHECK", type(bdb).__name__)\n',
                         capture_output=True, text=True, env=env, timeout=300).stdout
    assert "gnubg-blunder loaded" in out and "BDB_CHECK Bdb" in out
