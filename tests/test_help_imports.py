"""``--help`` imports no heavy module (issue 13: help in a fraction of a
second): building the parser imports neither numpy nor the store; a command
imports what it needs when it runs.  Not timed (benchmarks/help_speed.py
prints the times): asked of ``sys.modules`` in a fresh interpreter.

Each help is asked of a process in the state of a fresh interpreter that
has imported ``gnubg_blunder.commands`` and nothing else: one interpreter
imports it, then forks a child for each help (the child's ``sys.modules``
is the parent's, as a new interpreter's would be after the same import),
instead of starting ~40 interpreters (0.3-1 s each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# what no help (nor gnubg's start-up) may import, beside numpy
HEAVY = ("gnubg_blunder.store", "gnubg_blunder.quiz.core", "gnubg_blunder.metrics.kernel", "lxml")


def heavy_of(modules) -> list:
    return [m for m in modules if m == "numpy" or m.startswith(HEAVY)]


# what a process imports for the help of each argv it is given: the parent
# imports gnubg_blunder.commands (with quiz/core.py stubbed when asked) and
# forks a child a help; each child runs one help and reports its sys.modules
# (the heavy ones; with "every-command-and-sub", every module and the help
# text too, and each sub-command's help: tests/test_deferred_imports.py)
PROBE = r"""
import io, json, os, re, sys, types
if sys.argv[1] == "stub-quiz-core":
    class _Stub(types.ModuleType):  # quiz/terminal.py's names, without quiz/core.py (numpy)
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return 20 if name == "DEFAULT_COUNT" else type(name, (Exception,), {})
    sys.modules["gnubg_blunder.quiz.core"] = _Stub("gnubg_blunder.quiz.core")
from gnubg_blunder.commands import Context, get_registry, run
HEAVY = __HEAVY__


def one(argv):
    # a child: this help alone, in the parent's state (a fresh interpreter's after the import)
    r, w = os.pipe()
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            sys.stdout = sys.stderr = io.StringIO()  # argparse's own help text
            out = {}
            shown = io.StringIO()
            out["rc"] = run(argv, Context(out=shown, err=io.StringIO()))
            out["modules"] = sorted(m for m in sys.modules if m == "numpy" or m.startswith(HEAVY))
            out["commands"] = sorted(get_registry().commands)
            if sys.argv[3] == "every-command-and-sub":  # what tests/test_deferred_imports.py asks for
                out["all_modules"], out["help"] = sorted(sys.modules), shown.getvalue()
        except BaseException as exc:
            import traceback
            out = {"error": traceback.format_exc()}
        with os.fdopen(w, "w") as fh:
            fh.write(json.dumps(out))
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as fh:
        text = fh.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not text:
        return {"error": f"child exited with status {status}"}
    return json.loads(text)


results = {}
first = one(["--help"])
results[json.dumps(["--help"])] = first
argvs = [json.loads(a) for a in json.loads(sys.argv[2])]
if sys.argv[3] in ("every-command", "every-command-and-sub"):
    argvs += [[name, "--help"] for name in first.get("commands", [])]
for argv in argvs:
    key = json.dumps(argv)
    if key not in results:
        results[key] = one(argv)
        subs = re.search(r"\{([a-z,-]+)\}", results[key].get("help", "").split("\n\n")[0])
        if len(argv) == 2 and subs:  # a command's sub-commands (filter set, board moves ...)
            argvs += [[argv[0], sub, "--help"] for sub in subs.group(1).split(",")]
print(json.dumps(results))
""".replace("__HEAVY__", repr(HEAVY))

LISTED = ["stats", "import", "analyse", "matches", "summary", "report", "quiz", "references", "plan", "board"]


def _helps(tmp_path, stub_quiz_core: bool) -> dict:
    """{argv: what its help imported} for ``--help``, the commands of LISTED
    and every registered command's ``--help``."""
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    extra = json.dumps([json.dumps([c, "--help"]) for c in LISTED])
    res = subprocess.run([sys.executable, "-c", PROBE, "stub-quiz-core" if stub_quiz_core else "-", extra,
                          "every-command"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    return {tuple(json.loads(k)): v for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items()}


@pytest.fixture(scope="module")
def helps(tmp_path_factory):
    return _helps(tmp_path_factory.mktemp("helps"), stub_quiz_core=False)


@pytest.fixture(scope="module")
def helps_stubbed(tmp_path_factory):
    return _helps(tmp_path_factory.mktemp("helps-stubbed"), stub_quiz_core=True)


def _help_imports(helps: dict, argv: list) -> dict:
    got = helps[tuple(argv)]
    assert "error" not in got, got["error"]
    return got


def _check(got: dict, argv: list) -> None:
    assert got["rc"] == 0, argv
    heavy = got["modules"]
    assert heavy == [], f"{' '.join(argv)} imported {heavy}"


def test_top_level_help_imports_no_numpy(helps):
    _check(_help_imports(helps, ["--help"]), ["--help"])


@pytest.mark.parametrize("command", LISTED)
def test_command_help_imports_no_numpy(helps, command):
    _check(_help_imports(helps, [command, "--help"]), [command, "--help"])


def test_every_command_help_imports_no_numpy(helps):
    """Every registered command's --help, each in a fresh interpreter's state."""
    names = _help_imports(helps, ["--help"])["commands"]
    assert "stats" in names and "import" in names
    for name in names:
        _check(_help_imports(helps, [name, "--help"]), [name, "--help"])


def test_nothing_else_imports_numpy_for_help(helps_stubbed):
    """With quiz/core.py replaced by a stub (it imports numpy), no
    command's --help imports numpy, lxml or the store either: a guard
    should the quiz package import its core at module level again."""
    names = _help_imports(helps_stubbed, ["--help"])["commands"]
    for argv in [["--help"]] + [[name, "--help"] for name in names]:
        got = _help_imports(helps_stubbed, argv)
        assert got["rc"] == 0, argv
        heavy = [m for m in got["modules"] if m != "gnubg_blunder.quiz.core"]  # the stub itself
        assert heavy == [], f"{' '.join(argv)} imported {heavy}"


def test_a_child_sees_what_its_parent_imported(tmp_path):
    """The probe's children report the parent's modules too: a heavy module
    imported by ``gnubg_blunder.commands`` itself would show in every help
    (checked by importing numpy before the commands in the probe)."""
    probe = PROBE.replace("from gnubg_blunder.commands import", "import numpy\nfrom gnubg_blunder.commands import", 1)
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    res = subprocess.run([sys.executable, "-c", probe, "-", json.dumps([json.dumps(["stats", "--help"])]), "-"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert "numpy" in got[json.dumps(["--help"])]["modules"]
    assert "numpy" in got[json.dumps(["stats", "--help"])]["modules"]


def gnubg_start_up_modules(cwd) -> list:
    """What gnubg's start-up hook (data/gnubg_blunder_start.py) loads: it
    imports the console's module, in a fresh interpreter."""
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    code = "import json, sys\nimport gnubg_blunder.gnubg.console\nprint(json.dumps(sorted(sys.modules)))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_gnubg_start_up_imports_no_numpy_nor_the_store(tmp_path):
    """The console's module is imported in every gnubg started: it imports
    no numpy, store, metrics kernel or quiz core either; they come with the
    first command that needs them."""
    loaded = gnubg_start_up_modules(tmp_path)
    assert "gnubg_blunder.gnubg.console" in loaded
    assert heavy_of(loaded) == []
