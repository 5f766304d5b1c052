"""The layer contracts of docs/architecture.md ("Layers"), read from the
document itself: every top-level module and package of gnubg_blunder has a
layer; a module imports only from its own layer or the layers below; no
two packages import each other, directly or round a cycle.  Every import
counts, the ones inside functions too, and so does a lazy entry
(``lazy("gnubg_blunder.x")``, gnubg_blunder/lazy.py: it keeps ``--help``
fast, not out of the graph); only ``if TYPE_CHECKING:`` blocks, which never
run, are left out.  And no module is longer than 900 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gnubg_blunder"
DOC = ROOT / "docs" / "architecture.md"
MAX_LINES = 900

# Files inside the package that are not its modules: gnubg's start-up hook,
# copied to ~/.gnubg and run there as a script (it imports the package by
# its absolute name, as any outside program does).
NOT_MODULES = {"data/gnubg_blunder_start.py"}


def layer_table() -> dict:
    """{unit: (layer number, layer name)} from the table under "## Layers"."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|", line)
        if not m:
            continue
        for unit in re.findall(r"`([^`]+)`", m.group(3)):
            assert unit not in out, f"{unit} has two layers in docs/architecture.md"
            out[unit] = (int(m.group(1)), m.group(2))
    return out


def modules() -> dict:
    """{dotted module name: path} of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in NOT_MODULES:
            continue
        parts = ["gnubg_blunder", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_lines(tree) -> set:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports(name: str, path: Path) -> list:
    """[(imported module, line)] of the package's own modules ``name`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module:
                out.append((target, node.lineno))
            else:  # from . import x: the submodules (or the names of the package itself)
                out += [(f"{target}.{a.name}", node.lineno) for a in node.names]
        if entry := lazy_entry(node):
            out.append((entry, node.lineno))
    return [(t, line) for t, line in out if t == "gnubg_blunder" or t.startswith("gnubg_blunder.")]


def lazy_entry(node):
    """The module a lazy entry names (``lazy("gnubg_blunder.metrics.plan")``,
    gnubg_blunder/lazy.py), or None: an edge as an import is."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "lazy"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def unit_of(module: str) -> str:
    """The layer table's unit of a module: its top-level module or package
    (``__init__`` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _edges() -> list:
    """[(unit, imported unit, module, imported module, line)] between units."""
    known = modules()
    out = []
    for name, path in known.items():
        for target, line in imports(name, path):
            if target == "gnubg_blunder.__version__":
                continue  # the version, a constant the package defines before anything
            if target not in known and target.rsplit(".", 1)[0] in known:
                target = target.rsplit(".", 1)[0]  # from .x import name: the module x
            a, b = unit_of(name), unit_of(target)
            if a != b:
                out.append((a, b, name, target, line))
    return out


def test_every_module_and_package_has_one_layer():
    table = layer_table()
    units = {unit_of(m) for m in modules()}
    assert sorted(units - set(table)) == [], "give these a layer in docs/architecture.md ## Layers"
    assert sorted(set(table) - units) == [], "docs/architecture.md ## Layers names units that do not exist"


def test_a_module_imports_only_its_own_layer_or_the_layers_below():
    table = layer_table()
    upward = [(mod, target, line, a, b) for a, b, mod, target, line in _edges() if table[b][0] < table[a][0]]
    assert [f"{mod}:{line} imports {target} (layer {table[a][0]} {table[a][1]} -> layer {table[b][0]} {table[b][1]})"
            for mod, target, line, a, b in upward] == []


def test_no_package_imports_another_that_imports_it_back():
    graph: dict = {}
    for a, b, *_ in _edges():
        graph.setdefault(a, set()).add(b)
    # Tarjan's strongly connected components: a component of more than one unit is a cycle
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_is_longer_than_900_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_the_contract_counts_imports_in_functions_and_not_type_checking_blocks(tmp_path):
    """The checker itself, on a module written for it: a relative import
    inside a function counts, as do one at the top and a lazy entry; one under
    ``if TYPE_CHECKING:`` does not; ``from . import x`` names the submodule."""
    path = tmp_path / "mod.py"
    path.write_text("from typing import TYPE_CHECKING\n"
                    "from ..text import safe_text\n"
                    "from . import column_cache\n"
                    "if TYPE_CHECKING:\n"
                    "    from ..commands import Scope\n"
                    "_review = lazy(\"gnubg_blunder.metrics.review\")\n"
                    "def f():\n"
                    "    from ..metrics.plan import restrict_to_family\n"
                    "    import gnubg_blunder.formatting\n", encoding="utf-8")
    got = [t for t, _line in imports("gnubg_blunder.store.mod", path)]
    assert got == ["gnubg_blunder.text", "gnubg_blunder.store.column_cache", "gnubg_blunder.metrics.review",
                   "gnubg_blunder.metrics.plan", "gnubg_blunder.formatting"]
    assert [unit_of(t) for t in got] == ["text", "store", "metrics", "metrics", "formatting"]
