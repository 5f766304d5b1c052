"""What a user reads cites the repository's own docs/ pages, never the
project's contract outside it (``../shared/SPEC.md``, "SPEC §N"), which a
clone of the repository does not have: README.md, the ``--help`` of every
command and subcommand (enumerated from the parser the registry builds), the
text and JSON of every view over the fixture database, the HTML report and a
match page.  Code comments and docstrings may cite the SPEC; they are for
developers."""

from __future__ import annotations

import argparse

import pytest

from conftest import ROOT, _plugin_free_manager

FORBIDDEN = ("../shared", "SPEC §", "SPEC.md")

# The positional arguments a view needs to run at all; every other view runs without any.
VIEW_ARGUMENTS = {
    "compare": ["charlot1", "charlot2"],
    "contrast": ["charlot1", "charlot2"],
    "h2h": ["charlot1", "charlot2"],
}


def citations(text: str) -> list:
    """The forbidden citations in ``text``, read with its line breaks and
    runs of spaces as one space (argparse wraps "SPEC" and "§12" apart)."""
    flat = " ".join(text.split())
    return [bad for bad in FORBIDDEN if bad in flat]


def test_citations_finds_a_wrapped_citation():
    assert citations("blots (SPEC\n                  §12)") == ["SPEC §"]
    assert citations("see `../shared/SPEC.md`") == ["../shared", "SPEC.md"]
    assert citations("blots (docs/biases.md)") == []


def command_paths() -> list:
    """Every command path of the CLI: [] (the top level), each command, and
    each subcommand of a command (``filter set``, ``board moves`` ...), from
    the parser the command registry builds (plugins off: call with
    GNUBG_BLUNDER_NO_PLUGINS set, as the ``cli`` fixture does)."""
    from gnubg_blunder.commands import build_parser, get_registry

    parser = build_parser(get_registry(_plugin_free_manager()))

    def walk(p, path):
        yield path
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name in list(action.choices):
                    yield from walk(action.choices[name], [*path, name])

    return list(walk(parser, []))


def view_names() -> list:
    """The registered views (plugins off)."""
    from gnubg_blunder.commands import get_registry

    return sorted(name for name, cmd in get_registry(_plugin_free_manager()).commands.items() if cmd.view)


def test_readme_cites_no_spec():
    assert citations((ROOT / "README.md").read_text(encoding="utf-8")) == []


def test_every_help_cites_no_spec(cli):
    paths = command_paths()
    # the enumeration reaches the commands and their subcommands
    assert ["review"] in paths and ["board", "moves"] in paths and ["filter", "set"] in paths
    found = {}
    for path in paths:
        res = cli(*path, "--help")
        assert "usage:" in res.stdout, path
        if citations(res.stdout):
            found[" ".join(path) or "(top level)"] = citations(res.stdout)
    assert found == {}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_every_view_cites_no_spec(cli, db, fmt):
    names = view_names()
    assert {"stats", "players", "positions", "review", "matches"} <= set(names)
    found = {}
    for name in names:
        res = cli(name, *VIEW_ARGUMENTS.get(name, []), "--format", fmt, db=db)
        assert res.stdout.strip(), name
        if citations(res.stdout + res.stderr):
            found[name] = citations(res.stdout + res.stderr)
    assert found == {}


def test_html_report_and_match_page_cite_no_spec(cli, db, tmp_path):
    report, page = tmp_path / "report.html", tmp_path / "match.html"
    cli("report", "--html", report, db=db)
    cli("report", "--match", "last", "--html", page, db=db)
    for path in (report, page):
        html = path.read_text(encoding="utf-8")
        assert "<html" in html
        assert citations(html) == [], path.name
