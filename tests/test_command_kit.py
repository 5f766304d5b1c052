"""The command kit (gnubg_blunder/commands.py): every command's --help, every
view's formats from one object, and the rules that live in one place.

Views are run in-process on the hand-computed fixture database
(tests/fixture_db.py)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
from lxml import html as lxml_html

from fixture_db import HOSTILE
from gnubg_blunder.commands import Context, View, get_registry, run

PACKAGE = Path(__file__).resolve().parent.parent / "gnubg_blunder"

# every view, with arguments that make it show rows (two players where it takes two)
VIEWS = {
    "matches": (),
    "stats": (),
    "summary": (),
    "progression": (),
    "errors": (),
    "breakdowns": (),
    "players": (),
    "compare": ("charlot1", "charlot2"),
    "contrast": ("charlot1", "charlot2"),
    "ranking": (),
    "h2h": ("charlot1", "charlot2"),
    "windows": (),
    "positions": (),
    "biases": (),
    "plan": (),
    "review": ("last",),
    "references": (),
    "tournament": (),
    "tilt": (),
    "progress-study": (),
    "training": (),
    "list": ("--type", "study"),
}
NOT_VIEWS = {"report", "board", "filter", "install-gnubg", "plugins", "import", "analyse", "convert", "alias",
             "main-player", "goal", "thresholds", "relabel"}


@pytest.fixture(scope="module")
def registry():
    import os

    os.environ["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    from gnubg_blunder import plugins

    plugins.reset_plugin_manager()
    return get_registry()


def test_every_registered_command_help_exits_0(registry, cli):
    assert len(registry.commands) >= len(VIEWS)
    for name in sorted(registry.commands):
        res = cli(name, "--help")
        assert res.returncode == 0 and f"gnubg-blunder {name}" in res.stdout, name
    # and the --metric help of every view that takes it (its "%" once crashed argparse)
    for name in ("summary", "progression", "errors", "breakdowns", "players", "ranking", "h2h", "windows",
                 "report"):
        text = " ".join(cli(name, "--help").stdout.split())
        assert "% points" in text, name
        # MWC lost and L7 are sums, not shares: the help says they can exceed 100 (docs/figures.md)
        assert "a match's total can exceed 100" in text and "can exceed 100)" in text, name


def test_every_view_is_declared_with_the_kit(registry):
    views = {n for n, c in registry.commands.items() if c.view is not None}
    assert views >= set(VIEWS), set(VIEWS) - views
    assert not views & NOT_VIEWS


def _numbers(obj) -> list:
    """Every number in a JSON value (booleans left out)."""
    if isinstance(obj, bool) or obj is None:
        return []
    if isinstance(obj, (int, float)):
        return [float(obj)]
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v)]
    return []


def _is_number(text: str) -> bool:
    try:
        float(text)
        return text.strip() not in ("", "nan", "inf", "-inf", "True", "False")
    except ValueError:
        return False


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_text_json_csv_html_agree(view, registry, db, cli):
    """Every view answers text and JSON (an object carrying its filter), and
    CSV where it has one table; its CSV and HTML table hold the numbers of
    its JSON."""
    args = ("--no-config", view, *VIEWS[view], "--from", "2025-01-01")
    text = cli(*args, db=db).stdout
    assert text.strip() and "Scope" in text or "scope" in text, text[:200]
    obj = json.loads(cli(*args, "--format", "json", db=db).stdout)
    assert isinstance(obj, dict) and obj["filter"]["date_from"] == "2025-01-01", view
    cmd = registry.commands[view].view
    if cmd.table is None:
        res = cli(*args, "--format", "csv", db=db, check=False)
        assert res.returncode == 2 and "csv" in res.stderr  # no table, no CSV: a one-line refusal
        return
    out = cli(*args, "--format", "csv", db=db).stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) >= 2, f"{view}: no CSV rows"
    numbers = _numbers(obj)
    for row in rows[1:]:
        for cell in row:
            if _is_number(cell):
                x = float(cell)
                assert any(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for y in numbers), (view, cell)
    # the HTML table is written from the same Table as the CSV
    page = lxml_html.fromstring(cmd.render(obj, "html") if cmd.html is None else cmd.table(obj).html())
    cells = [[td.text_content() for td in tr.findall("td")] for tr in page.iter("tr") if tr.findall("td")]
    assert cells == [[("—" if c == "" else c) for c in r] for r in rows[1:]], view
    assert [th.text_content() for th in page.iter("th")] == rows[0]


def test_stats_text_shows_the_difficulty_figures_of_its_json(db, cli):
    obj = json.loads(cli("--no-config", "stats", "--player", "charlot1", "--format", "json", db=db).stdout)
    text = cli("--no-config", "stats", "--player", "charlot1", db=db).stdout
    assert obj["difficulty_emg"] is not None
    line = next(ln for ln in text.splitlines() if ln.startswith("Difficulty:"))
    assert f"({obj['difficulty_emg']:.3f} EMG)" in line and f"avoidable errors: {obj['avoidable_errors']}" in line
    for key in ("difficulty", "excess", "ratio"):
        assert (f"{obj[key]:.2f}" if obj[key] is not None else "—") in line, key


def test_summary_text_shows_the_json_figures(db, cli):
    obj = json.loads(cli("--no-config", "summary", "--player", "charlot1", "--format", "json", db=db).stdout)
    text = cli("--no-config", "summary", "--player", "charlot1", db=db).stdout
    assert f"PR {obj['pr']:.2f}" in text and f"checker {obj['checker_pr']:.2f}" in text
    assert f"L7 {obj['l7']:.2f}" in text


def test_hostile_name_in_html_is_text(registry, db, cli):
    obj = json.loads(cli("--no-config", "players", "--format", "json", db=db).stdout)
    page = registry.commands["players"].view.render(obj, "html")
    assert HOSTILE not in page and "&lt;script&gt;" in page


def test_json_is_an_object_inside_gnubg_too(db):
    """``>bdb("matches --format json")`` prints the same object."""
    out, err = io.StringIO(), io.StringIO()
    assert run(["--db", str(db), "--no-config", "matches", "--format", "json"], Context(out=out, err=err)) == 0
    obj = json.loads(out.getvalue())
    assert set(obj) == {"matches", "filter"} and len(obj["matches"]) == 5


def test_a_plugin_view_gets_the_kit(db, monkeypatch):
    """A view registered by a plugin gets the filter, --format with csv, and
    its JSON carries the filter, with nothing but the declaration."""
    from gnubg_blunder.commands import Registry, build_parser
    from gnubg_blunder.formatting import Table

    def compute(scope):
        return {"decisions": int(len(scope.selection.decisions))}

    reg = Registry()
    reg.add(View("count", "count the decisions", compute, lambda o: str(o["decisions"]),
                 table=lambda o: Table(["decisions"], [[o["decisions"]]])))
    args = build_parser(reg).parse_args(["count", "--player", "charlot2", "--format", "json", "--no-config"])
    out = io.StringIO()
    ctx = Context(db_path=str(db), out=out, use_config=False)
    assert reg.commands["count"].run(args, ctx) == 0
    obj = json.loads(out.getvalue())
    assert obj["filter"]["player"] == "charlot2" and obj["decisions"] > 0
    ctx.close()


# -- each rule in one place ----------------------------------------------------------

def _package_sources() -> dict:
    return {p: p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def _where(pattern: str) -> list:
    rx = re.compile(pattern)
    return sorted(str(p.relative_to(PACKAGE)) for p, text in _package_sources().items() if rx.search(text))


def test_one_definition_each():
    assert _where(r"(?m)^PR_SCALE\s*=") == ["metrics/kernel.py"]
    assert _where(r"sqrt\(7") == ["metrics/elo.py"]  # √7 itself; L₇ = kernel.l7_of
    assert _where(r"(?m)^def l7") == ["metrics/kernel.py"]
    assert _where(r"(?m)^def is_money\(") == ["model.py"]
    assert _where(r"(?m)^METRICS\s*=") == ["metrics/vocabulary.py"]
    assert _where(r"choices=\(\"pr\", \"mwc\", \"mwc7\"\)") == []
    assert _where(r"(?m)^def add_filter_arguments|^def add_format|^def add_metric") == ["commands.py"]


def test_views_do_no_arithmetic_on_figures():
    """Views format what the metrics computed: no PR scale, no √, no
    ×100/×1000 of a figure in views/ (units.mpt converts; a share is written
    as a percentage by formatting.percent)."""
    for p, text in _package_sources().items():
        if p.parent.name != "views":
            continue
        for rx in (r"\b500\s*\*", r"\*\s*500\b", r"sqrt", r"\b1000\s*\*", r"\*\s*1000\b", r"\b100\s*\*",
                   r"\*\s*100\b"):
            assert not re.search(rx, text), (p.name, rx)


@pytest.mark.parametrize("view", ["stats", "summary", "matches", "errors", "breakdowns", "positions"])
def test_scope_line_says_whose_figures(view, db, cli):
    """Rough edge: with a filter but no player, the scope line said only
    "tournaments Club A"; it says both sides, or the player."""
    first = cli("--no-config", view, "--tournament", "Club A", db=db).stdout.splitlines()[0]
    assert "tournaments Club A, both sides" in first, first
    first = cli("--no-config", view, "--tournament", "Club A", "--player", "charlot1", db=db).stdout.splitlines()[0]
    assert "player charlot1" in first and "both sides" not in first, first
    first = cli("--no-config", view, db=db).stdout.splitlines()[0]
    assert "every stored match, both sides" in first, first


def test_progression_scope_names_the_perspective(db, cli):
    first = cli("--no-config", "progression", "--tournament", "Club A", db=db).stdout.splitlines()[0]
    assert "tournaments Club A" in first and "figures of both sides pooled" in first, first
    first = cli("--no-config", "progression", "--player", "charlot2", db=db).stdout.splitlines()[0]
    assert "figures of charlot2" in first, first


def test_a_run_adds_the_arguments_of_its_command_alone():
    """``command_parser``: every command listed, only the one ``argv``
    names configured (the others' ``configure`` may import what they need);
    argparse's own parse, public API alone; the whole parser
    (``build_parser``) configures every command."""
    import contextlib

    from gnubg_blunder.commands import Command, Registry, UserError, build_parser, command_parser

    configured = []

    def configure(name):
        def add(p):
            configured.append(name)
            p.add_argument("--size", type=int, default=1)
        return add

    reg = Registry()
    for name in ("one", "two", "three"):
        reg.add(Command(name, f"the {name} command", lambda args, ctx: 0, configure(name)))
    argv = ["--db", "x.db", "two", "--size", "3"]
    args = command_parser(reg, argv).parse_args(argv)
    assert (args.command, args.db, args.size, configured) == ("two", "x.db", 3, ["two"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        command_parser(reg, ["--help"]).parse_args(["--help"])
    assert "the one command" in out.getvalue() and "the three command" in out.getvalue()
    assert configured == ["two"]
    with pytest.raises(UserError, match="^gnubg-blunder: unrecognized arguments: --size=2$"):
        command_parser(reg, ["--size=2", "one"]).parse_args(["--size=2", "one"])  # before the command: not its
    build_parser(reg)
    assert sorted(configured) == ["one", "one", "three", "two", "two"]
