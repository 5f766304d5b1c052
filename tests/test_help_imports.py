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
import io, json, sys, types
if sys.argv[2] == "stub-quiz-core":
    class _Stub(types.ModuleType):  # quiz/terminal.py's names, without quiz/core.py (numpy)
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return 20 if name == "DEFAULT_COUNT" else type(name, (Exception,), {})
    sys.modules["gnubg_blunder.quiz.core"] = _Stub("gnubg_blunder.quiz.core")
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


def _help_imports(tmp_path, argv: list, stub_quiz_core: bool = False) -> dict:
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    res = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), "stub-quiz-core" if stub_quiz_core else "-"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _check(got: dict, argv: list) -> None:
    assert got["rc"] == 0, argv
    heavy = got["modules"]
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


def test_nothing_else_imports_numpy_for_help(tmp_path):
    """With quiz/core.py replaced by a stub (it imports numpy), no
    command's --help imports numpy, lxml or the store either: a guard
    should the quiz package import its core at module level again."""
    names = _help_imports(tmp_path, ["--help"], stub_quiz_core=True)["commands"]
    for argv in [["--help"]] + [[name, "--help"] for name in names]:
        got = _help_imports(tmp_path, argv, stub_quiz_core=True)
        assert got["rc"] == 0, argv
        heavy = [m for m in got["modules"] if m != "gnubg_blunder.quiz.core"]  # the stub itself
        assert heavy == [], f"{' '.join(argv)} imported {heavy}"
