"""A view's own options are a parameters dataclass (``View.params``, fields
made with ``options.param``): its flags, help and defaults come from it,
and ``compute(scope, params)`` gets them typed — from the command line, or
from Python directly (docs/plugins.md "A view's parameters").  A view of
today's API (``options``, ``compute(scope)``) keeps working: the example
plugin's (tests/test_example_plugin.py)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import pytest

from gnubg_blunder import View, hookimpl
from gnubg_blunder.options import Option, options, param


@dataclass
class EchoParams:
    kind: str = param(Option(("--kind",), choices=("checker", "cube"), help="which decisions"), default="checker")
    top: int = param(Option(("--top",), type=int, metavar="N", help="at most N (default 3)"), default=3)
    label: str = param(Option(("label",), nargs="?", metavar="LABEL", help="a word to echo"), default="none")


def _echo(scope, params: EchoParams) -> dict:
    return {"kind": params.kind, "top": params.top, "top_type": type(params.top).__name__, "label": params.label,
            "params": type(params).__name__}


class EchoPlugin:
    @hookimpl
    def register_commands(self, registry):
        registry.add(View("echo-params", "a third party's view with parameters", _echo, lambda obj: json.dumps(obj),
                          params=EchoParams, decision_type=False))


@pytest.fixture
def echo(register_plugin):
    register_plugin(EchoPlugin(), "echo-params")


def test_a_plugins_view_gets_its_parameters_typed(echo, cli, db):
    got = json.loads(cli("echo-params", "--format", "json", db=db).stdout)
    assert {k: got[k] for k in ("kind", "top", "top_type", "label", "params")} == {
        "kind": "checker", "top": 3, "top_type": "int", "label": "none", "params": "EchoParams"}
    got = json.loads(cli("echo-params", "hello", "--kind", "cube", "--top", "7", "--format", "json", db=db).stdout)
    assert (got["kind"], got["top"], got["top_type"], got["label"]) == ("cube", 7, "int", "hello")
    usage = cli("echo-params", "--help", db=db).stdout
    assert "[--kind {checker,cube}] [--top N]" in usage and "LABEL" in usage and "at most N (default 3)" in usage
    bad = cli("echo-params", "--kind", "pass", db=db, check=False)
    assert bad.returncode == 2 and "invalid choice: 'pass'" in bad.stderr


VIEWS_WITH_PARAMS = ("agreement", "breakdowns", "errors", "matches", "positions", "references", "review", "summary",
                     "tilt", "tournament", "players", "compare", "contrast", "ranking", "h2h", "windows", "training",
                     "list")


@pytest.mark.parametrize("name", VIEWS_WITH_PARAMS)
def test_a_built_in_views_flags_and_defaults_are_its_parameters(name, monkeypatch):
    import argparse

    from gnubg_blunder.commands import get_registry

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    view = get_registry().commands[name].view
    assert dataclasses.is_dataclass(view.params)
    parser = argparse.ArgumentParser(add_help=False)
    view.configure(parser)
    by_dest = {a.dest: a for a in parser._actions}
    for field_name, opt in options(view.params):
        action = by_dest[field_name]
        assert tuple(action.option_strings or (field_name,)) == (opt.flags if not opt.positional else (field_name,))
        assert action.default == next(f.default for f in dataclasses.fields(view.params) if f.name == field_name)
        assert action.help == opt.help


def test_no_built_in_view_adds_its_options_by_hand(monkeypatch):
    """Every built-in view's own options are the fields of its parameters;
    the study half's ``--metric`` (the cost of an error) is declared
    (``cost_metric``); ``options=``, the older API, is left to plugins."""
    from gnubg_blunder.commands import get_registry

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    views = [c.view for c in get_registry().commands.values() if c.view is not None]
    assert len(views) > 20
    assert [v.name for v in views if v.options is not None] == []
    assert sorted(v.name for v in views if v.cost_metric) == ["plan", "progress-study", "references"]
    assert set(VIEWS_WITH_PARAMS) <= {v.name for v in views if v.params is not None}


def test_the_python_api_gives_what_the_command_line_prints(cli, db):
    """``tilt``'s ``compute(scope, TiltParams(...))`` called from Python is the
    object ``tilt --list ... --limit ... --format json`` prints."""
    from gnubg_blunder.commands import Scope
    from gnubg_blunder.database import open_store
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.views import report, tilt

    printed = json.loads(cli("tilt", "--list", "after-blunder", "--limit", "3", "--format", "json", db=db).stdout)
    with open_store(db) as store:
        flt = Filter()
        scope = Scope.over(report._view_args(tilt.VIEW, {}), store, flt, store.select(flt), thresholds_for(store))
        obj = tilt.compute(scope, tilt.TiltParams(list="after-blunder", limit="3"))
    obj.setdefault("filter", flt.to_json())
    assert json.loads(json.dumps(obj)) == printed
    assert (printed["condition"], printed["limit"], printed["total"]) == ("after-blunder", 3, len(printed["decisions"]))


def test_options_of_one_group_exclude_each_other(cli, db):
    """``positions``' --errors and --blunders (DecisionCriteria, group "severity"): one of them at most."""
    both = cli("positions", "--errors", "--blunders", db=db, check=False)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    assert "[--errors | --blunders]" in cli("positions", "--help", db=db).stdout
