"""Every output a user sees, written to a folder, to compare two versions of
the code byte for byte (issue 30: a change of the code's shape, behaviour
unchanged).

    python benchmarks/output_snapshot.py --code DIR --out OUT [--corpus] [--postgres URL]

``--code DIR`` is the root of the version to run (put first on PYTHONPATH;
the commands run from a neutral folder so that the work tree is not loaded
instead).  It writes, one file per invocation, ``stdout``, ``stderr`` and
the exit code of:

- ``--help`` of every command and sub-command;
- every view over the bundled matches (the real SGF and XG files of
  ``tests/fixtures/real`` and the self-play matches of
  ``tests/fixtures/selfplay``), as text, ``--format json`` and
  ``--format csv``, and with a few of their options;
- the same over the 24-match self-play corpus (``--corpus``,
  ``benchmarks/selfplay_corpus.py``);
- the report's HTML (its time stamp replaced by ``<STAMP>``);
- a set of failing commands (unknown player, missing and foreign files,
  bad options, a database that is not one);
- gnubg's console after ``>bdb.store()`` of the bundled 7-point match;
- with ``--postgres URL`` (an empty database), every view's JSON over a
  copy of the bundled database on PostgreSQL.

Then ``diff -r OUT_A OUT_B``.  ``plugins``' list names the built-in modules:
it is written apart (``plugins.*``) since their names may change.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("PYTHON", str(ROOT / ".venv" / "bin" / "python"))
BUNDLED = [ROOT / "tests/fixtures/real/sgf", ROOT / "tests/fixtures/real/xg", ROOT / "tests/fixtures/selfplay"]
MAT = ROOT / "tests/fixtures/real/sgf/charlot1-charlot2_7p_2025-11-08-2305.mat"

FORMATS = ("text", "json", "csv")
# every view, with the arguments each is run with besides the bare command
VIEWS = {
    "agreement": [[]],
    "biases": [[]],
    "breakdowns": [[]],
    "errors": [[]],
    "list": [["--type", "study", "--days", "30", "--today", "2026-12-01"]],
    "matches": [[]],
    "plan": [[], ["--metric", "mwc"], ["--metric", "mwc7"]],
    "players": [[]],
    "positions": [[], ["--blunders"], ["--kind", "double"], ["--errors", "--limit", "5"]],
    "progress-study": [[]],
    "progression": [[]],
    "ranking": [[], ["--metric", "mwc"]],
    "references": [[], ["--metric", "mwc"]],
    "review": [[], ["--transcript"]],
    "stats": [[], ["--decision-type", "cube"], ["--decision-type", "checker"]],
    "summary": [[]],
    "thresholds": [[]],
    "tilt": [[]],
    "tournament": [[]],
    "training": [[]],
    "windows": [[]],
}
# the player arguments each database's views are also run with
PLAYERS = {
    "bundled": [["--player", "charlot1"], ["--player", "Strongbot"], ["--length", "7"]],
    "corpus": [["--player", "Strongbot"], ["--player", "Weakbot", "--decision-type", "cube"]],
}
PAIRS = {"bundled": ("charlot1", "charlot2"), "corpus": ("Strongbot", "Weakbot")}
OTHER = [
    ["filter", "show"], ["goal", "show"], ["main-player"], ["alias", "list"], ["mark", "list"],
    ["collection", "list"], ["check"], ["matches", "--format", "csv"],
    ["board", "show", "4HPwATDgc/ABMA"], ["board", "moves", "4HPwATDgc/ABMA", "31"],
    ["board", "classify", "4HPwATDgc/ABMA"],
]
FAILING = [
    ["stats", "--player", "Nobody At All"],
    ["stats", "--from", "yesterday"],
    ["stats", "--length", "x"],
    ["positions", "--limit", "-3"],
    ["review", "--collection", "no-such-collection"],
    ["import", "/nonexistent/file.sgf"],
    ["import", str(ROOT / "README.md")],
    ["nosuchcommand"],
    ["stats", "--nosuchflag"],
    ["plan", "--metric", "elo"],
    ["compare", "charlot1"],
    ["report", "--match", "999999"],
    ["collection", "show", "nothing-here"],
    ["alias", "add"],
    ["board", "moves", "notaposition", "31"],
]
STAMP = re.compile(r"Made by gnubg-blunder (\S+) on \d{4}-\d{2}-\d{2} \d{2}:\d{2}\.")


class Runner:
    def __init__(self, code: Path, out: Path):
        self.code, self.out = code, out
        self.cwd = tempfile.mkdtemp(prefix="snapshot-cwd-")
        self.work = tempfile.mkdtemp(prefix="snapshot-db-")  # the databases
        self.env = dict(os.environ, PYTHONPATH=str(code), GNUBG_BLUNDER_NO_PLUGINS="1",
                        GNUBG_BLUNDER_CONFIG="/dev/null", COLUMNS="100", TZ="UTC", LC_ALL="C.UTF-8")
        self.env.pop("GNUBG_BLUNDER_DB", None)

    def run(self, name: str, args: list, db=None, stdin: str = "") -> subprocess.CompletedProcess:
        argv = [PYTHON, "-m", "gnubg_blunder"] + (["--db", str(db)] if db else []) + [str(a) for a in args]
        r = subprocess.run(argv, cwd=self.cwd, env=self.env, input=stdin, capture_output=True, text=True,
                           timeout=900)
        self.write(name, r.stdout, r.stderr, r.returncode)
        return r

    def write(self, name: str, stdout: str, stderr: str, rc: int) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.=+-]+", "_", name)
        stdout, stderr = (t.replace(self.work, "<DBDIR>") for t in (stdout, stderr))
        with open(self.out / f"{safe}.out", "w", encoding="utf-8") as f:
            f.write(stdout.replace(self.cwd, "<CWD>"))
            f.write(f"\n--- stderr ---\n{stderr.replace(self.cwd, '<CWD>')}\n--- exit {rc} ---\n")


def command_names(runner: Runner) -> list:
    r = subprocess.run([PYTHON, "-m", "gnubg_blunder", "--help"], cwd=runner.cwd, env=runner.env,
                       capture_output=True, text=True)
    names = re.findall(r"^    ([a-z][a-z0-9-]*)", r.stdout, re.M)
    return names


def helps(runner: Runner) -> None:
    runner.run("help", ["--help"])
    for name in command_names(runner):
        r = runner.run(f"help.{name}", [name, "--help"])
        m = re.search(r"\{([a-z,-]+)\}", r.stdout.split("\n\n")[0])
        for sub in (m.group(1).split(",") if m else []):
            runner.run(f"help.{name}.{sub}", [name, sub, "--help"])


def views(runner: Runner, db: Path, label: str) -> None:
    for view, arg_sets in VIEWS.items():
        for extra in arg_sets + PLAYERS[label]:
            for fmt in FORMATS:
                args = [view] + extra + ([] if fmt == "text" else ["--format", fmt])
                runner.run(f"{label}.{' '.join(args[:1] + extra)}.{fmt}", args, db)
    a, b = PAIRS[label]
    for view in ("compare", "h2h", "contrast"):
        for fmt in FORMATS:
            runner.run(f"{label}.{view}.{fmt}", [view, a, b] + ([] if fmt == "text" else ["--format", fmt]), db)
    for args in OTHER:
        runner.run(f"{label}.other.{' '.join(args)}", args, db)
    r = runner.run(f"{label}.plugins", ["plugins"], db)
    os.replace(runner.out / f"{label}.plugins.out", runner.out / f"plugins.{label}.txt")
    for extra in ([], ["--match", "last"], ["--metric", "mwc"], ["--player", PAIRS[label][0]]):
        html = Path(runner.cwd) / "report.html"
        r = runner.run(f"{label}.report {' '.join(extra)}", ["report", "--html", html] + extra, db)
        if html.exists():
            (runner.out / f"{label}.report {' '.join(extra)}.html".replace(" ", "_")).write_text(
                STAMP.sub(r"Made by gnubg-blunder \1 on <STAMP>.", html.read_text(encoding="utf-8")), encoding="utf-8")
            html.unlink()
    for i, args in enumerate(FAILING):
        runner.run(f"{label}.failing.{i:02d} {' '.join(args)}", args, db)


def make_db(runner: Runner, path: Path, files: list, label: str) -> None:
    runner.run(f"{label}.import", ["import"] + [str(f) for f in files], path)
    runner.run(f"{label}.import-again", ["import"] + [str(f) for f in files], path)


def bdb_store(runner: Runner, db: Path) -> None:
    """gnubg's console after ``>bdb.store()`` of a bundled match, twice (the
    second finds it stored), and ``>bdb.review()``: the plugin installed
    with ``install-gnubg`` from ``--code``, as tests/test_gnubg_console.py
    runs it."""
    home = Path(tempfile.mkdtemp(prefix="snapshot-home-"))
    (home / ".gnubg").mkdir()
    env = dict(runner.env, HOME=str(home), GNUBG_BLUNDER_DB=str(db))
    env.pop("XDG_DATA_HOME", None)
    subprocess.run([PYTHON, "-m", "gnubg_blunder", "install-gnubg"], cwd=runner.cwd, env=env,
                   capture_output=True, text=True, check=True)
    session = "\n".join([
        "set analysis chequerplay evaluation plies 0", "set analysis cubedecision evaluation plies 0",
        f'import mat "{MAT}"', "analyse match", '>print("@@ store")', ">bdb.store()",
        '>print("@@ store again")', ">bdb.store()", '>print("@@ review")', ">bdb.review()",
        '>print("@@ stats")', '>bdb("stats --player charlot1")', '>print("@@ end")', ""])
    r = subprocess.run(["/usr/games/gnubg", "-t"], input=session, cwd=runner.cwd, env=env,
                       capture_output=True, text=True, timeout=900)
    out = r.stdout.replace(str(home), "<HOME>").replace(str(db), "<DB>")
    out = out[out.find("@@ store"):] if "@@ store" in out else out
    runner.write("gnubg.bdb.store", out, "", r.returncode)
    shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", action="store_true", help="also the 24-match self-play corpus")
    ap.add_argument("--postgres", metavar="URL", help="an empty PostgreSQL database for the JSON check")
    ap.add_argument("--no-gnubg", action="store_true", help="skip >bdb.store() in gnubg")
    opts = ap.parse_args()
    opts.out.mkdir(parents=True, exist_ok=True)
    runner = Runner(opts.code.resolve(), opts.out)
    work = Path(runner.work)
    helps(runner)
    bundled = work / "bundled.db"
    make_db(runner, bundled, BUNDLED, "bundled")
    views(runner, bundled, "bundled")
    if opts.corpus:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from selfplay_corpus import corpus_files

        corpus = work / "corpus.db"
        make_db(runner, corpus, corpus_files(0), "corpus")
        views(runner, corpus, "corpus")
    if opts.postgres:
        runner.run("pg.copy", ["copy", "--from", bundled, "--to", opts.postgres])
        for view, arg_sets in VIEWS.items():
            for extra in arg_sets:
                runner.run(f"pg.{' '.join([view] + extra)}.json", [view] + extra + ["--format", "json"],
                           opts.postgres)
    if not opts.no_gnubg:
        bdb_store(runner, work / "gnubg.db")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{sum(1 for _ in opts.out.iterdir())} files in {opts.out}")


if __name__ == "__main__":
    main()
