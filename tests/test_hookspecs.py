"""gnubg_blunder/hookspecs.py is the plugin author's manual: each hook is
called with the parameters it declares, and a report section registered as
documented (``register(name, function, order)``, ``function(context)``) is
laid out in its order with a ReportContext."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from gnubg_blunder import hookspecs

PACKAGE = Path(hookspecs.__file__).resolve().parent
HOOKS = {name: f for name, f in vars(hookspecs).items()
         if inspect.isfunction(f) and hasattr(f, "gnubg_blunder_spec")}


def _hook_calls():
    """(hook name, keywords, file) of every ``….hook.NAME(...)`` call in the package."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "hook"):
                yield node.func.attr, {k.arg for k in node.keywords}, bool(node.args), path.name


def test_every_hook_is_called_with_its_declared_parameters():
    calls = list(_hook_calls())
    assert {name for name, *_ in calls} == set(HOOKS)  # every hook is called; none undeclared
    for name, keywords, positional, where in calls:
        declared = set(inspect.signature(HOOKS[name]).parameters)
        assert not positional and keywords == declared, (name, where, keywords, declared)


def test_every_hook_is_documented_with_typed_parameters():
    for name, f in HOOKS.items():
        sig = inspect.signature(f)
        assert f.__doc__ and len(f.__doc__) > 200, name
        for p in sig.parameters.values():
            assert p.annotation is not inspect.Parameter.empty, (name, p.name)
            assert f":param {p.name}:" in f.__doc__, (name, p.name)


def test_a_report_section_as_documented(db, tmp_path):
    """``register(name, function, order)``; ``function(context)`` with a
    ReportContext; laid out by order; a section that raises says so."""
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.hookspecs import hookimpl
    from gnubg_blunder.plugins import get_plugin_manager
    from gnubg_blunder.database import open_store
    from gnubg_blunder.views import errors
    from gnubg_blunder.views.report import ReportContext, write_report

    seen = []

    class Plugin:
        @hookimpl
        def register_report_sections(self, register):
            def mine(context):
                seen.append(context)
                obj = context.view_object(errors.VIEW)
                return f'<section id="mine"><h2>Mine</h2><p>{obj["totals"]["decisions"]} decisions</p></section>'

            def broken(context):
                raise RuntimeError("no luck")

            register("mine", mine, 15)
            register("broken", broken)

    pm = get_plugin_manager()
    plugin = Plugin()
    pm.register(plugin)
    try:
        store = open_store(str(db))
        try:
            html = write_report(store, Filter(), thresholds_for(store), tmp_path / "r.html")
        finally:
            store.close()
    finally:
        pm.unregister(plugin)
    assert len(seen) == 1 and isinstance(seen[0], ReportContext)
    assert html.index('id="headline"') < html.index('id="mine"') < html.index('id="summary"')
    assert "This section could not be made: RuntimeError: no luck" in html
    assert html.index("no luck") > html.index('id="lists"')  # order 100: after the built-in ones
