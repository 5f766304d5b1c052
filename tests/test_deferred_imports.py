"""An import inside a function has a reason, and the suite checks it
(docs/architecture.md, "Imports inside functions").  Each one is either

1. deferred for a start-up: the module that imports is loaded by some
   start-up (a ``--help``: the command line's parser and the plugins it
   registers; gnubg's start-up hook: the console's module) and the module
   it imports is not loaded by every start-up that loads the importing one
   (numpy, the metrics, the store: tests/test_help_imports.py keeps them
   out of every help and of gnubg's start-up); an import of a module those
   start-ups have loaded anyway saves nothing and only hides an edge of
   the graph; or
2. in a module no start-up loads: of an optional or slow dependency
   (``DEFERRED_DEPENDENCIES``, each with its reason; ``DEFERRED_MODULES``:
   PostgreSQL's engine), or of a module that imports the importing one
   back at load time, by name (made at module level, the import would
   close a cycle: a package's ``__init__`` and the submodules that import
   names from it).

And never of a module the importing one's top level imports already.

What each start-up loads is asked of real processes (tests/test_help_imports.py's
probe, one child a help, and its gnubg start-up probe)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from test_help_imports import PROBE, gnubg_start_up_modules
from test_layers import ROOT, _type_checking_lines, modules

# A module no --help loads may import these in a function: each is needed
# by one path of one command, and costs the others (or is absent) otherwise.
DEFERRED_DEPENDENCIES = {
    "gnubg": "gnubg's own module: there only inside gnubg",
    "psycopg": "PostgreSQL's driver, an optional dependency: SQLite's users need not install it",
    "anki": "Anki's library, optional (anki sync)",
    "genanki": "the .apkg writer, needed by anki export alone",
    "yaml": "PyYAML: the settings file only, read by the commands that have one",
    "watchdog": "the folder watcher's library, needed by watch alone",
    "tkinter": "the GUI's output window only (absent from some Pythons)",
    "tqdm": "the progress bar of a long run on a terminal only",
    "multiprocessing": "import --jobs N only (some 20 ms otherwise)",
    "concurrent": "import --jobs N only",
    "pty": "gnubg's progress on a pseudo-terminal: absent on Windows (gnubg then runs on pipes)",
    "tty": "as pty",
}

# ... and these modules of the package, for the same kind of reason
DEFERRED_MODULES = {
    "gnubg_blunder.store.postgres": "PostgreSQL's engine, psycopg's user: for a postgresql:// URL alone",
    "gnubg_blunder.store.pg_sql": "as store.postgres",
}

def start_ups() -> list:
    """[the modules one start-up loads]: each help of the command line
    (tests/test_help_imports.py's probe: every command's and sub-command's)
    and gnubg's start-up hook."""
    env = {"GNUBG_BLUNDER_NO_PLUGINS": "1", "GNUBG_BLUNDER_CONFIG": "/dev/null", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", PROBE, "-", "[]", "every-command-and-sub"], capture_output=True,
                       text=True, env=env, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    helps = json.loads(r.stdout.strip().splitlines()[-1])
    assert all("error" not in got for got in helps.values()), helps
    return [set(got["all_modules"]) for got in helps.values()] + [set(gnubg_start_up_modules(ROOT))]


def _lazy_names(path) -> bool:
    """True when the package serves names it does not define through a
    module ``__getattr__`` (quiz/__init__.py: its core, with numpy, is
    imported when a name is first asked for)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)


def _targets(name: str, path, node, known: dict) -> list:
    """The modules an import statement loads (the most specific: ``from
    .x import y`` is the submodule x.y when there is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    if node.level:
        base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module
    out = []
    for alias in node.names:
        sub = f"{module}.{alias.name}"
        if sub in known:
            out.append(sub)
        elif module in known and _lazy_names(known[module]):
            out.append(f"{module}:{alias.name}")  # served lazily: not loaded with the package
        else:
            out.append(module)
    return out


def function_imports() -> list:
    """[(module, line, imported module)] of every import inside a function."""
    known = modules()
    out = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        seen = set()
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno not in skip and id(node) not in seen:
                    seen.add(id(node))
                    out += [(name, node.lineno, t) for t in _targets(name, path, node, known)]
    return out


def load_time_imports() -> dict:
    """{module: the modules its top level imports by name} (the package's
    own: the most specific of each statement, :func:`_targets`)."""
    known = modules()
    out = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f)}
        out[name] = {t.split(":")[0] for node in ast.walk(tree)
                     if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in inside
                     and node.lineno not in skip for t in _targets(name, path, node, known)}
    return out


def module_graph() -> dict:
    """{module: the package's modules its top level imports by name}.  A
    submodule's import runs its package's ``__init__`` first, but that is
    no edge here: by then the package is loading or loaded (a name it
    defines is an edge: ``from . import name``)."""
    known = modules()
    return {name: {t for t in targets if t in known and t != name} for name, targets in load_time_imports().items()}


def reaches(graph: dict, start: str, goal: str) -> bool:
    todo, seen = [start], set()
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return False


def test_every_import_in_a_function_has_its_reason():
    loads = start_ups()
    every = set().union(*loads)
    graph, at_top, known = module_graph(), load_time_imports(), modules()
    assert len(loads) > 40 and all("gnubg_blunder.commands" in m and "numpy" not in m for m in loads)  # real ones
    unexplained = []
    for module, line, target in function_imports():
        if target in at_top[module] and (target not in known or known[target].name != "__init__.py"):
            unexplained.append(f"{module}:{line} imports {target}, which its top level imports already")
            continue
        if module in every:
            if all(target in loaded for loaded in loads if module in loaded):
                unexplained.append(f"{module}:{line} imports {target}, which every start-up that loads "
                                   "the module has loaded anyway")
            continue
        if target.split(".")[0] in DEFERRED_DEPENDENCIES or target in DEFERRED_MODULES:
            continue
        if target.startswith("gnubg_blunder") and (module.startswith(target + ".")
                                                   or reaches(graph, target.split(":")[0], module)):
            continue  # at module level it would close a cycle
        unexplained.append(f"{module}:{line} imports {target} in a function: nothing needs it deferred")
    assert unexplained == [], "\n".join(unexplained)


def test_the_checker_sees_a_needless_import_and_a_cycle(tmp_path, monkeypatch):
    """The reasons on a package written for them: b imports a back (a cycle
    at module level), c imports a in a function for no reason, d imports
    in a function what its top level imports already."""
    import test_layers

    pkg = tmp_path / "gnubg_blunder"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from . import b\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from . import a\n", encoding="utf-8")
    (pkg / "c.py").write_text("def g():\n    from .a import x\n    import yaml\n", encoding="utf-8")
    (pkg / "d.py").write_text("from .a import x\n\n\ndef h():\n    from .a import y\n", encoding="utf-8")
    monkeypatch.setattr(test_layers, "PACKAGE", pkg)
    found = sorted(function_imports())
    assert found == [("gnubg_blunder.b", 2, "gnubg_blunder.a"), ("gnubg_blunder.c", 2, "gnubg_blunder.a"),
                     ("gnubg_blunder.c", 3, "yaml"), ("gnubg_blunder.d", 5, "gnubg_blunder.a")]
    assert load_time_imports()["gnubg_blunder.d"] == {"gnubg_blunder.a"}  # d's: imported at its top already
    graph = module_graph()
    assert reaches(graph, "gnubg_blunder.a", "gnubg_blunder.b")  # b's import of a: a cycle at module level
    assert not reaches(graph, "gnubg_blunder.a", "gnubg_blunder.c")  # c's: none
