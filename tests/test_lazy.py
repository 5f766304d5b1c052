"""A lazy entry (gnubg_blunder/lazy.py, docs/architecture.md "Lazy entries")
imports its module when an attribute is first read, not before; forwards
every attribute (a submodule too, as ``from package import name`` finds
one); is one object a module; and fails, when the module cannot be
imported, where it is read, with the module's own error.  On a package
written for the test, in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import json, sys
from gnubg_blunder.lazy import LazyModule, is_loaded, lazy, load

out = {}
entry = lazy("probe_pkg.heavy")
out["same"] = entry is lazy("probe_pkg.heavy")
out["before"] = "probe_pkg.heavy" in sys.modules or is_loaded(entry)
out["value"] = entry.VALUE
out["after"] = "probe_pkg.heavy" in sys.modules and is_loaded(entry)
out["is_module"] = load(entry) is sys.modules["probe_pkg.heavy"]
out["changed"] = (setattr(sys.modules["probe_pkg.heavy"], "VALUE", 8), entry.VALUE)[1]  # read through, never copied
package = lazy("probe_pkg")
out["submodule"] = package.sub.NAME  # not imported by the package's __init__
try:
    entry.missing
except AttributeError as exc:
    out["missing"] = str(exc)
broken = lazy("probe_pkg.broken")
out["broken_before"] = "probe_pkg.broken" in sys.modules
try:
    broken.anything
except ModuleNotFoundError as exc:
    out["broken"] = exc.name
out["repr"] = repr(lazy("probe_pkg.never"))
print(json.dumps(out))
"""


def test_an_entry_imports_its_module_when_first_read(tmp_path):
    pkg = tmp_path / "probe_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "heavy.py").write_text("VALUE = 7\n", encoding="utf-8")
    (pkg / "sub.py").write_text("NAME = 'sub'\n", encoding="utf-8")
    (pkg / "broken.py").write_text("import probe_no_such_module\n", encoding="utf-8")
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["same"] is True
    assert got["before"] is False and got["after"] is True
    assert got["value"] == 7 and got["is_module"] is True and got["changed"] == 8
    assert got["submodule"] == "sub"
    assert "missing" in got["missing"]
    assert got["broken_before"] is False and got["broken"] == "probe_no_such_module"
    assert got["repr"] == "<lazy module 'probe_pkg.never' (not imported yet)>"
