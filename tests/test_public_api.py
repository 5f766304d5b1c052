"""The plugin API (docs/plugins.md): the names ``gnubg_blunder`` exports are
the stable ones a plugin author uses.  Each resolves; importing the package
stays cheap (they are imported when first asked for); the example plugin
uses nothing else of the package; the protocols fit the built-in objects."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import gnubg_blunder

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "csv_log_plugin" / "gnubg_blunder_csv_log" / "__init__.py"
DOC = ROOT / "docs" / "plugins.md"


def test_every_exported_name_resolves():
    assert gnubg_blunder.__all__[0] == "__version__"
    assert len(set(gnubg_blunder.__all__)) == len(gnubg_blunder.__all__)
    for name in gnubg_blunder.__all__:
        assert getattr(gnubg_blunder, name) is not None, name
    assert set(gnubg_blunder.__all__) <= set(dir(gnubg_blunder))


def test_the_exports_are_the_objects_where_they_live():
    from gnubg_blunder import commands, errors, hookspecs
    from gnubg_blunder.metrics import arrays, counting
    from gnubg_blunder.views import formatting

    assert gnubg_blunder.hookimpl is hookspecs.hookimpl
    assert gnubg_blunder.View is commands.View and gnubg_blunder.Command is commands.Command
    assert gnubg_blunder.Scope is commands.Scope
    assert gnubg_blunder.Table is formatting.Table
    assert gnubg_blunder.Selection is arrays.Selection
    assert gnubg_blunder.UserError is errors.UserError is commands.UserError
    assert gnubg_blunder.is_forced is counting.is_forced
    assert [gnubg_blunder.K_CHECKER, gnubg_blunder.K_NO_DOUBLE, gnubg_blunder.K_DOUBLE, gnubg_blunder.K_TAKE,
            gnubg_blunder.K_PASS] == [arrays.KIND_CODES[k] for k in ("checker", "nodouble", "double", "take", "pass")]


def test_an_unknown_name_is_an_attribute_error():
    try:
        gnubg_blunder.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")
    import importlib.util

    assert importlib.util.find_spec("gnubg_blunder.commands") is not None  # submodules still import


def test_importing_the_package_imports_nothing_heavy(tmp_path):
    """``import gnubg_blunder`` (and ``from gnubg_blunder import hookimpl``,
    what every plugin does at load) imports neither numpy nor the store nor
    the command kit: the exports are imported when asked for."""
    probe = ("import sys, json\n"
             "import gnubg_blunder\n"
             "first = sorted(m for m in sys.modules if m == 'numpy' or m.startswith('gnubg_blunder'))\n"
             "from gnubg_blunder import hookimpl, UserError, Importer\n"
             "then = sorted(m for m in sys.modules if m == 'numpy' or m.startswith('gnubg_blunder'))\n"
             "print(json.dumps([first, then]))\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    first, then = json.loads(res.stdout)
    assert first == ["gnubg_blunder"]
    assert "numpy" not in then and not any(m.startswith(("gnubg_blunder.store", "gnubg_blunder.commands"))
                                           for m in then), then


def _imports(path: Path):
    """(module, level) of every import statement of a file (``import x`` too)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0


def test_the_example_plugin_uses_only_the_plugin_api():
    """Of the package, the example imports only ``gnubg_blunder`` itself (no
    submodule), and only names the package exports; nothing but the
    standard library otherwise (pluggy neither: ``hookimpl`` is ours)."""
    modules = [m for m, level in _imports(EXAMPLE)]
    ours = [m for m in modules if m.split(".")[0] == "gnubg_blunder"]
    assert ours and set(ours) == {"gnubg_blunder"}, ours
    assert set(modules) - {"gnubg_blunder"} <= set(sys.stdlib_module_names), modules
    names = {alias.name for node in ast.walk(ast.parse(EXAMPLE.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module == "gnubg_blunder" for alias in node.names}
    assert names <= set(gnubg_blunder.__all__), names - set(gnubg_blunder.__all__)


def test_every_exported_name_is_documented():
    """docs/plugins.md gives every name of ``__all__`` a line of its own."""
    text = DOC.read_text(encoding="utf-8")
    for name in gnubg_blunder.__all__:
        if name != "__version__":
            assert f"- `{name}`" in text, name


def test_the_built_in_objects_fit_the_protocols():
    from gnubg_blunder import Importer, PluginMetric, ReportSection
    from gnubg_blunder.plugins import importers, metrics
    from gnubg_blunder.views.report import sections

    table = importers()
    assert table and all(isinstance(importer, Importer) for importer in table.values())
    assert all(isinstance(function, ReportSection) for _order, _name, function in sections())
    assert all(isinstance(function, PluginMetric) for function in metrics().values())
    assert not isinstance(object(), Importer)
