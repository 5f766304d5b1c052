"""The formats a view writes (``--format``) are plugins of
``register_output_formats`` (hookspecs.py): the built-in text, JSON, CSV and
the report's HTML are registered by gnubg_blunder/output_formats.py as a
plugin's would be, and a plugin's format is offered and written by every
view it fits (a table format only by views with one table)."""

from __future__ import annotations

import json

import pytest

from gnubg_blunder import hookimpl
from gnubg_blunder.commands import output_formats


class TabSeparated:
    """A third party's formats: the view's table with tabs; the object's keys."""

    @hookimpl
    def register_output_formats(self, register):
        register("tsv", lambda view, obj: "\n".join(
            "\t".join("" if c is None else str(c) for c in row)
            for row in [view.table(obj).headers, *view.table(obj).rows]), table=True, order=35)
        register("keys", lambda view, obj: " ".join(sorted(obj)), order=50)


@pytest.fixture
def with_formats(register_plugin):
    register_plugin(TabSeparated(), "tab-separated")


def test_the_built_in_formats_are_registered_in_order(monkeypatch):
    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    formats = output_formats()
    assert list(formats) == ["text", "json", "csv", "html"]
    assert [f.name for f in formats.values() if f.listed] == ["text", "json", "csv"]
    assert [f.name for f in formats.values() if f.table] == ["csv"]


def test_a_plugins_format_is_offered_and_written_by_the_views(with_formats, cli, db):
    csv = cli("positions", "--player", "charlot1", "--format", "csv", db=db).stdout.strip().splitlines()
    tsv = cli("positions", "--player", "charlot1", "--format", "tsv", db=db).stdout.strip().splitlines()
    assert len(tsv) == len(csv) > 2
    assert tsv[0].split("\t") == csv[0].split(",")
    got = json.loads(cli("positions", "--player", "charlot1", "--format", "json", db=db).stdout)
    assert cli("positions", "--player", "charlot1", "--format", "keys", db=db).stdout.split() == sorted(got)
    assert "{text,json,csv,tsv,keys}" in cli("positions", "--help", db=db).stdout


def test_a_table_format_is_not_offered_by_a_view_without_a_table(with_formats, cli, db):
    assert "{text,json,keys}" in cli("summary", "--help", db=db).stdout
    refused = cli("summary", "--format", "tsv", db=db, check=False)
    assert refused.returncode == 2 and "invalid choice: 'tsv'" in refused.stderr
    assert "filter" in cli("summary", "--format", "keys", db=db).stdout.split()
