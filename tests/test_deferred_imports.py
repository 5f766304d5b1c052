"""No import hides in a function (docs/architecture.md, "Lazy entries"):
a module another needs on some paths only is a lazy entry at the top of
the one that needs it (``_metrics_plan = lazy("gnubg_blunder.metrics.plan")``,
gnubg_blunder/lazy.py), and the suite checks that

1. an import statement inside a function is of an optional dependency
   alone (``FUNCTION_IMPORTS``, each with its reason: it may be absent, and
   its absence is met where it is imported), and the modules are imported
   by name (``importlib.import_module``) in the lazy entries' loader and the
   plugin registry alone (``LOADERS``); and
2. every lazy entry has its reason: either

   a. deferred for a start-up: the module that names it is loaded by some
      start-up (a ``--help``: the command line's parser and the plugins it
      registers; gnubg's start-up hook: the console's module) and the
      module it names is not loaded by every start-up that loads the
      naming one (numpy, the metrics, the store: tests/test_help_imports.py
      keeps them out of every help and of gnubg's start-up); an entry of a
      module those start-ups have loaded anyway saves nothing and only
      hides an edge of the graph; or
   b. in a module no start-up loads: of a slow dependency or module
      (``DEFERRED_DEPENDENCIES``, ``DEFERRED_MODULES``: each with its
      reason), or of a module that imports the naming one back at load
      time, by name (at the top it would close a cycle).

   And never of a module the naming one's top imports already.

What each start-up loads is asked of real processes (tests/test_help_imports.py's
probe, one child a help, and its gnubg start-up probe)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from test_help_imports import PROBE, gnubg_start_up_modules
from test_layers import ROOT, _type_checking_lines, lazy_entry, modules

# An import statement may sit in a function for these alone: each may be
# absent (or is only there in some programs), and the function that
# imports it says so in its own words when it is.
FUNCTION_IMPORTS = {
    "gnubg": "gnubg's own module: there only inside gnubg",
    "psycopg": "PostgreSQL's driver, an optional dependency: SQLite's users need not install it",
    "anki": "Anki's library, optional (anki sync)",
    "yaml": "PyYAML: the settings file only, read by the commands that have one",
    "tkinter": "the GUI's output window only (absent from some Pythons)",
    "pty": "gnubg's progress on a pseudo-terminal: absent on Windows (gnubg then runs on pipes)",
    "tty": "as pty",
    "ctypes": "the GUI's output window placed with libX11, best effort (absent from some Pythons)",
}

# The modules that import other modules by name: the lazy entries' loader,
# the plugin registry (the built-in plugins are listed by module name) and
# the package itself (the plugin API's names, each imported from its module
# when first asked for: ``import gnubg_blunder`` imports nothing more)
LOADERS = {"gnubg_blunder.lazy", "gnubg_blunder.plugins", "gnubg_blunder"}

# A module no start-up loads may name these as lazy entries: each is needed
# by one path of one command, and costs the others otherwise.
DEFERRED_DEPENDENCIES = {
    "multiprocessing": "import --jobs N only (some 20 ms otherwise)",
    "concurrent": "import --jobs N only",
    "genanki": "the .apkg writer: anki export alone (anki sync reads the note fields of its module)",
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
    return [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]


def _in_functions(tree) -> set:
    return {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}


def function_imports() -> list:
    """[(module, line, imported module)] of every import inside a function."""
    known = modules()
    out = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip, inside = _type_checking_lines(tree), _in_functions(tree)
        out += [(name, node.lineno, t) for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in inside and node.lineno not in skip
                for t in _targets(name, path, node, known)]
    return out


def lazy_entries() -> list:
    """[(module, line, the module its entry names)] of every lazy entry."""
    out = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out += [(name, node.lineno, target) for node in ast.walk(tree) if (target := lazy_entry(node))]
    return out


def by_name_loads() -> list:
    """[(module, line)] of every ``importlib.import_module`` or
    ``__import__`` call: a module imported by name."""
    out = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                if called.endswith("import_module") or called == "__import__":
                    out.append((name, node.lineno))
    return out


def load_time_imports() -> dict:
    """{module: the modules its top level imports by name} (the package's
    own: the most specific of each statement, :func:`_targets`)."""
    known = modules()
    out = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip, inside = _type_checking_lines(tree), _in_functions(tree)
        out[name] = {t for node in ast.walk(tree)
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


def test_no_import_hides_in_a_function():
    found = function_imports()
    assert any(t == "gnubg" for _m, _l, t in found)  # the checker sees them
    assert [f"{m}:{line} imports {t} in a function: name it as a lazy entry at the module's top"
            for m, line, t in found if t.split(".")[0] not in FUNCTION_IMPORTS] == []


def test_modules_are_imported_by_name_in_the_loaders_alone():
    found = by_name_loads()
    assert {m for m, _line in found} == LOADERS, found


def test_every_lazy_entry_has_its_reason():
    loads = start_ups()
    every = set().union(*loads)
    graph, at_top, known = module_graph(), load_time_imports(), modules()
    assert len(loads) > 40 and all("gnubg_blunder.commands" in m and "numpy" not in m for m in loads)  # real ones
    entries = lazy_entries()
    assert len(entries) > 100 and any(t == "numpy" for _m, _l, t in entries)  # real ones
    unexplained = []
    for module, line, target in entries:
        if target in at_top[module] and (target not in known or known[target].name != "__init__.py"):
            unexplained.append(f"{module}:{line} names {target}, which its top level imports already")
            continue
        if module in every:
            if all(target in loaded for loaded in loads if module in loaded):
                unexplained.append(f"{module}:{line} names {target}, which every start-up that loads "
                                   "the module has loaded anyway: import it at the top")
            continue
        if target.split(".")[0] in DEFERRED_DEPENDENCIES or target in DEFERRED_MODULES:
            continue
        if target.startswith("gnubg_blunder") and (module.startswith(target + ".") or reaches(graph, target, module)):
            continue  # at the top it would close a cycle
        unexplained.append(f"{module}:{line} names {target} as a lazy entry: nothing needs it deferred")
    assert unexplained == [], "\n".join(unexplained)


def test_the_checker_sees_a_hidden_import_a_needless_entry_and_a_cycle(tmp_path, monkeypatch):
    """The checker on a package written for it: b names a as a lazy entry
    (a imports b: at the top, a cycle), c imports a and yaml in a function
    and loads a module by name, d names as a lazy entry what its top level
    imports already."""
    import test_layers

    pkg = tmp_path / "gnubg_blunder"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from . import b\n", encoding="utf-8")
    (pkg / "b.py").write_text('from .lazy import lazy\n\n_a = lazy("gnubg_blunder.a")\n', encoding="utf-8")
    (pkg / "c.py").write_text("import importlib\n\n\ndef g():\n    from .a import x\n    import yaml\n"
                              '    return importlib.import_module("gnubg_blunder.b")\n', encoding="utf-8")
    (pkg / "d.py").write_text('from .a import x\nfrom .lazy import lazy\n\n_a = lazy("gnubg_blunder.a")\n',
                              encoding="utf-8")
    monkeypatch.setattr(test_layers, "PACKAGE", pkg)
    assert sorted(function_imports()) == [("gnubg_blunder.c", 5, "gnubg_blunder.a"), ("gnubg_blunder.c", 6, "yaml")]
    assert sorted(lazy_entries()) == [("gnubg_blunder.b", 3, "gnubg_blunder.a"), ("gnubg_blunder.d", 4, "gnubg_blunder.a")]
    assert by_name_loads() == [("gnubg_blunder.c", 7)]
    assert "gnubg_blunder.a" in load_time_imports()["gnubg_blunder.d"]  # d's: imported at its top already
    graph = module_graph()
    assert reaches(graph, "gnubg_blunder.a", "gnubg_blunder.b")  # b's entry of a: a cycle at the top
    assert not reaches(graph, "gnubg_blunder.a", "gnubg_blunder.d")  # d's: none
