"""The example third-party plugin (``examples/csv_log_plugin``), installed with
pip into a folder of its own and loaded by the real CLI through its
``gnubg_blunder`` entry point."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "csv_log_plugin"
CHARLOT = "charlot1-charlot2_7p_2025-11-08-2305"
BUILTIN = (  # the importers, the store step and `import`; the console summary, `analyse`; `plugins`
    "gnubg_blunder.importing",
    "gnubg_blunder.gnubg_commands",
    "gnubg_blunder.plugins_command",
)


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """``pip install --no-deps --target <tmp>/site`` of the example.  It is
    built from a copy, so that setuptools' build/ and *.egg-info stay out of
    the source tree."""
    tmp = tmp_path_factory.mktemp("csvplugin")
    src = tmp / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = tmp / "site"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "--target", str(site), str(src)],
        capture_output=True, text=True, timeout=600,
    )
    if r.returncode != 0:
        if "No matching distribution found for setuptools" in r.stdout + r.stderr:
            pytest.skip("pip cannot get setuptools to build the example (offline?)")
        pytest.fail(f"pip install failed:\n{r.stdout}\n{r.stderr}")
    assert (site / "gnubg_blunder_csv_log" / "__init__.py").exists()
    assert list(site.glob("gnubg_blunder_csv_log-*.dist-info/entry_points.txt"))
    return site


def cli(db, *args, site=None, csv_file=None):
    env = dict(os.environ)
    for k in ("GNUBG_BLUNDER_NO_PLUGINS", "GNUBG_BLUNDER_DB", "GNUBG_BLUNDER_CSV", "PYTHONPATH"):
        env.pop(k, None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    if csv_file is not None:
        env["GNUBG_BLUNDER_CSV"] = str(csv_file)
    return subprocess.run(
        [sys.executable, "-m", "gnubg_blunder", "--db", str(db), *map(str, args)],
        capture_output=True, text=True, env=env, timeout=120,
    )


def plugin_rows(db, **kw) -> dict:
    import json

    r = cli(db, "plugins", "--format", "json", **kw)
    assert r.returncode == 0, r.stderr
    return {p["name"]: p for p in json.loads(r.stdout)["plugins"]}


def test_plugins_lists_csv_log(plugin_site, tmp_path):
    db = tmp_path / "p.db"
    rows = plugin_rows(db, site=plugin_site)
    assert "csv_log" in rows
    assert rows["csv_log"]["hooks"] == ["post_analysis", "register_commands", "register_metrics"]
    assert rows["csv_log"]["builtin"] is False
    assert (rows["csv_log"]["distribution"] or "").startswith("gnubg-blunder-csv-log")
    for name in BUILTIN:
        assert name in rows and rows[name]["builtin"] is True

    text = cli(db, "plugins", site=plugin_site)
    assert text.returncode == 0, text.stderr
    line = [ln for ln in text.stdout.splitlines() if ln.startswith("csv_log")]
    assert len(line) == 1 and "post_analysis" in line[0] and "register_commands" in line[0], text.stdout
    for name in BUILTIN:
        assert name in text.stdout


def test_import_writes_one_csv_line(plugin_site, shared_data, tmp_path):
    charlot = shared_data / "sgf" / f"{CHARLOT}.sgf"
    db = tmp_path / "p.db"
    log = tmp_path / "log.csv"

    r = cli(db, "import", charlot, site=plugin_site, csv_file=log)
    assert r.returncode == 0, r.stderr
    assert "stored as match" in r.stdout
    with open(log, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["match_id", "status", "player0", "player1", "length", "date", "games", "decisions",
                       "engine"]
    assert len(rows) == 2, rows
    row = dict(zip(rows[0], rows[1]))
    assert row["status"] == "stored"
    assert (row["player0"], row["player1"]) == ("charlot1", "charlot2")
    assert row["length"] == "7"
    assert row["date"] == "2025-11-08"
    assert row["games"] == "4"
    assert int(row["decisions"]) > 0
    assert row["engine"] == "gnubg"
    first = log.read_bytes()

    again = cli(db, "import", charlot, site=plugin_site, csv_file=log)
    assert again.returncode == 0, again.stderr
    assert "already stored" in again.stdout
    assert log.read_bytes() == first  # post_analysis is not called for something already stored


def test_csv_path_command(plugin_site, tmp_path):
    db = tmp_path / "p.db"
    log = tmp_path / "elsewhere" / "log.csv"
    r = cli(db, "csv-path", site=plugin_site, csv_file=log)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(log)
    # without GNUBG_BLUNDER_CSV: matches.csv beside the database
    r = cli(db, "csv-path", site=plugin_site)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "matches.csv")


def test_its_metric_appears_in_stats(plugin_site, shared_data, tmp_path):
    """The plugin's metric (a pure function of the decision arrays) is in
    `stats`: on the charlot file, 94 + 95 rolls less 18 dances are checker
    plays (gnubg's own counts), and those forced by SPEC §2 are exactly the
    ones the core's counting leaves out."""
    import json

    db = tmp_path / "m.db"
    assert cli(db, "import", shared_data / "sgf" / f"{CHARLOT}.sgf", site=plugin_site,
               csv_file=tmp_path / "x.csv").returncode == 0
    stats = json.loads(cli(db, "stats", "--format", "json", site=plugin_site, csv_file=tmp_path / "x.csv").stdout)
    got = stats["plugin_metrics"]["forced checker plays"]
    assert got["checker_plays"] == 94 + 95 - 18
    assert got["forced"] == got["checker_plays"] - stats["checker_decisions"]
    assert got["forced"] >= 94 + 95 - 18 - 86 - 66  # at least gnubg's single-play ones
    assert got["share"] == round(got["forced"] / got["checker_plays"], 4)
    text = cli(db, "stats", site=plugin_site, csv_file=tmp_path / "x.csv").stdout
    assert f"forced checker plays (plugin): forced {got['forced']}" in text


def test_its_view_is_made_with_the_kit(plugin_site, shared_data, tmp_path):
    """The plugin's ``forced`` view uses the command kit: the filter, and
    text, JSON (an object with its filter) and CSV from one table, the same
    numbers in each; the per-side figures add up to the metric of ``stats``."""
    import json

    db = tmp_path / "m.db"
    env = dict(site=plugin_site, csv_file=tmp_path / "x.csv")
    assert cli(db, "import", shared_data / "sgf" / f"{CHARLOT}.sgf", **env).returncode == 0
    obj = json.loads(cli(db, "forced", "--format", "json", "--player", "charlot1", **env).stdout)
    assert obj["filter"]["player"] == "charlot1"
    everyone = json.loads(cli(db, "forced", "--format", "json", **env).stdout)
    stats = json.loads(cli(db, "stats", "--format", "json", **env).stdout)["plugin_metrics"]["forced checker plays"]
    assert sum(r["forced"] for r in everyone["sides"]) == stats["forced"]
    assert sum(r["checker_plays"] for r in everyone["sides"]) == stats["checker_plays"] == 94 + 95 - 18
    rows = list(csv.DictReader(cli(db, "forced", "--format", "csv", **env).stdout.splitlines()))
    assert [(int(r["forced"]), int(r["checker_plays"])) for r in rows] == [
        (r["forced"], r["checker_plays"]) for r in everyone["sides"]]
    text = cli(db, "forced", **env).stdout
    assert all(f"{r['forced']} of {r['checker_plays']}" in text for r in everyone["sides"])


def test_every_command_help_with_the_plugin(plugin_site, tmp_path):
    """``--help`` of every registered command exits 0, the plugin's
    commands and view included (one process, the registry as loaded)."""
    script = (
        "import io, sys\n"
        "from gnubg_blunder.commands import Context, get_registry, run\n"
        "names = sorted(get_registry().commands)\n"
        "bad = [n for n in names if run([n, '--help'], Context(out=io.StringIO(), err=io.StringIO())) != 0]\n"
        "print(' '.join(names)); print('BAD', ' '.join(bad))\n"
    )
    env = dict(os.environ)
    for k in ("GNUBG_BLUNDER_NO_PLUGINS", "PYTHONPATH"):
        env.pop(k, None)
    env["PYTHONPATH"] = str(plugin_site)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    names, bad = r.stdout.splitlines()
    assert "forced" in names.split() and "csv-path" in names.split() and "stats" in names.split()
    assert bad.split() == ["BAD"], bad


def test_not_installed_not_listed(tmp_path):
    import importlib.util

    if importlib.util.find_spec("gnubg_blunder_csv_log") is not None:
        pytest.skip("the example plugin is installed in this environment")
    db = tmp_path / "p.db"
    rows = plugin_rows(db)
    assert "csv_log" not in rows
    for name in BUILTIN:
        assert name in rows
    r = cli(db, "csv-path")
    assert r.returncode == 2 and "csv-path" in r.stderr  # not a command without the plugin
