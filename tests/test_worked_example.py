"""docs/architecture.md's worked example ("a new view in two package
files") runs as written: its module, loaded as ``gnubg_blunder.views.kinds``
and registered as the list of built-in plugins would register it, passes
the example's own test on the hand-computed database; its plugin-list line
names that module.  The example is not a command of the product: it is
unregistered afterwards."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
MODULE = "gnubg_blunder.views.kinds"


def _blocks() -> dict:
    """{first-line comment (the file the block belongs in): code} of the
    example's python blocks."""
    section = DOC.read_text(encoding="utf-8").split("\n## Worked example", 1)[1].split("\n## ", 1)[0]
    out = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        first, _, rest = code.partition("\n")
        out[first.lstrip("# ").split(",")[0]] = rest
    return out


@pytest.fixture
def kinds_view(monkeypatch, register_plugin):
    """The example's module as the package would hold it, registered on the
    plugin manager for this test only."""
    spec = importlib.util.spec_from_loader(MODULE, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "gnubg_blunder.views"
    exec(compile(_blocks()["gnubg_blunder/views/kinds.py"], "docs/architecture.md: kinds.py", "exec"),
         module.__dict__)
    monkeypatch.setitem(sys.modules, MODULE, module)
    register_plugin(module, MODULE)
    return module


def test_the_example_has_its_two_package_files_and_its_test():
    blocks = _blocks()
    assert set(blocks) == {"gnubg_blunder/views/kinds.py", "gnubg_blunder/plugins.py", "tests/test_view_kinds.py"}
    assert blocks["gnubg_blunder/plugins.py"].strip() == f'"{MODULE}",'
    from gnubg_blunder.plugins import DEFAULT_PLUGINS

    assert MODULE not in DEFAULT_PLUGINS  # an example, not a command of the product


def test_the_examples_own_test_passes(kinds_view, cli, db):
    namespace: dict = {}
    exec(compile(_blocks()["tests/test_view_kinds.py"], "docs/architecture.md: test_view_kinds.py", "exec"),
         namespace)
    tests = [v for k, v in namespace.items() if k.startswith("test_")]
    assert len(tests) == 1
    tests[0](cli, db)


def test_the_example_takes_the_kits_options_and_formats(kinds_view, cli, db):
    """What the kit gives every view: the filter's flags, CSV from the one
    table, the --help line."""
    csv = cli("kinds", "--player", "charlot1", "--format", "csv", db=db).stdout.splitlines()
    assert csv[0] == "kind,decisions,error,mean_millipoints"
    assert csv[1].split(",")[:2] == ["checker", "10"]
    assert "counted decisions and their error per decision kind" in cli("--help", db=db).stdout
