"""gnubg-blunder: statistics across every analysed backgammon match.

Data flows one way: source (gnubg live match, SGF, XG) -> importer ->
decision model -> store -> metrics (pure functions over decision arrays) ->
views.  See docs/architecture.md.
"""

import importlib as _importlib
import os as _os

__version__ = "0.1.0"

# numpy asks Linux for transparent huge pages for each array of 4 MB or more (madvise); over
# 10,000 matches a view makes hundreds of such arrays, and the kernel's zeroing and compacting
# of huge pages cost 1-3 s of system time a report, up to 2 s a `stats` at random
# (benchmarks/README.md, issue 29).  Off, unless the user says otherwise; read when numpy is
# imported, so set here, before any module imports it.
_os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

# The plugin API (docs/plugins.md): the names a plugin author may rely on, each
# imported from the module it lives in when first asked for (PEP 562), so that
# `import gnubg_blunder` stays as cheap as it is (no numpy, no store: --help,
# tests/test_help_imports.py).  Anything not listed here may move.
_PUBLIC = {
    # hooks
    "hookimpl": "hookspecs",
    # the command kit
    "Command": "commands",
    "View": "commands",
    "Scope": "commands",
    "Context": "commands",
    "Registry": "commands",
    "add_filter_arguments": "commands",
    "add_format": "commands",
    "add_metric": "commands",
    "filter_from_args": "commands",
    "Option": "options",
    "param": "options",
    "Table": "formatting",
    "table_html": "formatting",
    # what metrics and report sections are given
    "Selection": "arrays",
    "Thresholds": "metrics.counting",
    "ReportContext": "views.report",
    # the decision kinds (codes of Selection.decisions.kind) and the forced-play test
    "K_CHECKER": "metrics.counting",
    "K_NO_DOUBLE": "metrics.counting",
    "K_DOUBLE": "metrics.counting",
    "K_TAKE": "metrics.counting",
    "K_PASS": "metrics.counting",
    "is_forced": "metrics.counting",
    # errors
    "BlunderError": "errors",
    "UserError": "errors",
    "MatchImportError": "importers.records",
    # the shapes of what hooks hand back
    "Importer": "protocols",
    "ReportSection": "protocols",
    "PluginMetric": "protocols",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
