"""Shared test fixtures: paths to the real sample files (``tests/fixtures/real``),
the real gnubg, and real gnubg-analysed matches made with the project's own
``tests/tools/gnubg-selfplay``.  Nothing outside the repository is read."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Real XG and gnubg files with their reference figures (MIT; see its README.md).
DATA = FIXTURES / "real"
SELFPLAY_TOOL = Path(__file__).resolve().parent / "tools" / "gnubg-selfplay"
# Matches made by gnubg are kept between runs (they take 5-30 s each).
SELFPLAY_CACHE = Path(os.environ.get("GNUBG_BLUNDER_SELFPLAY_CACHE", ROOT / "tests" / ".selfplay-cache"))

sys.path.insert(0, str(Path(__file__).resolve().parent))
pytest_plugins = ["pg_cluster"]  # pg_server, pg_url: a real throwaway PostgreSQL (tests/pg_cluster.py)

# The tests never read or write the user's saved filter or database.
import tempfile as _tempfile  # noqa: E402

_ISOLATED = Path(_tempfile.mkdtemp(prefix="gnubg-blunder-tests-"))
import atexit as _atexit  # noqa: E402
import shutil as _shutil  # noqa: E402

_atexit.register(_shutil.rmtree, _ISOLATED, True)
os.environ["GNUBG_BLUNDER_CONFIG"] = str(_ISOLATED / "config.yaml")
os.environ.setdefault("GNUBG_BLUNDER_DB", str(_ISOLATED / "default.db"))


def side(points: dict) -> tuple:
    """A board half as gnubg stores it: 25-tuple from {point: checkers},
    points 1..24 from that side's home, 25 = bar."""
    s = [0] * 25
    for p, n in points.items():
        s[p - 1] = n
    return tuple(s)


def random_boards(seed: int, n: int) -> list:
    """Boards met in random play (hits, bar, bear-off, dances), player on roll varying."""
    import random

    from gnubg_blunder.board.moves import legal_plays
    from gnubg_blunder.board.position import Board

    rng = random.Random(seed)
    board = Board.initial()
    boards = []
    while len(boards) < n:
        plays = legal_plays(board, rng.randint(1, 6), rng.randint(1, 6))
        if plays:
            board = rng.choice(plays).result
        boards.append(board)
        board = Board.initial() if board.checkers_off()[0] == 15 else board.swapped()
    return boards


def gnubg_available() -> bool:
    try:
        from gnubg_blunder.gnubg.process import find_gnubg

        find_gnubg()
        return True
    except Exception:
        return False


needs_gnubg = pytest.mark.skipif(not gnubg_available(), reason="needs /usr/games/gnubg")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real sample files, ``tests/fixtures/real`` (= ``DATA``)."""
    return DATA


@contextlib.contextmanager
def made_alone(target: Path):
    """Held while ``target`` is made: the suite runs in several processes
    (pytest-xdist, ``tests/run``), and two of them may want the same cached
    match at once; the second waits and then finds it made."""
    import fcntl

    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def make_selfplay(seed: int, length: int, plies: int = 0) -> Path:
    """A real gnubg bot match, analysed by gnubg and saved as SGF, with gnubg's
    own ``show statistics match`` beside it (``.stats.txt``)."""
    SELFPLAY_CACHE.mkdir(parents=True, exist_ok=True)
    sgf = SELFPLAY_CACHE / f"m{seed}-{length}.sgf"
    stats = sgf.with_suffix(".stats.txt")
    if plies:
        sgf = SELFPLAY_CACHE / f"p{plies}" / f"m{seed}-{length}.sgf"
        stats = sgf.with_suffix(".stats.txt")
    with made_alone(sgf):
        if not (sgf.exists() and stats.exists() and stats.stat().st_size > 0):
            subprocess.run(
                ["bash", str(SELFPLAY_TOOL), str(sgf.parent), str(seed), str(length), str(plies)],
                check=True,
                capture_output=True,
                timeout=900,
            )
    return sgf


@pytest.fixture(scope="session")
def selfplay():
    """Factory: ``selfplay(seed, length, plies=0) -> Path`` to a real analysed
    SGF made on this machine.  gnubg's net differs in the last digits from one
    processor to another (and so, rarely, a bot's move): a test of such a file
    compares with gnubg's own output of that file, never a pinned number."""
    if not gnubg_available():
        pytest.skip("needs /usr/games/gnubg")
    return make_selfplay


# Self-play matches committed with the figures the tests expect of them
# (tests/fixtures/selfplay/README.md): never regenerated.
COMMITTED_SELFPLAY = FIXTURES / "selfplay"


def committed_selfplay_file(seed: int, length: int) -> Path:
    """The committed self-play match ``m<seed>-<length>.sgf`` (its gnubg
    screen, ``.stats.txt``, beside it)."""
    sgf = COMMITTED_SELFPLAY / f"m{seed}-{length}.sgf"
    if not (sgf.exists() and sgf.with_suffix(".stats.txt").exists()):
        raise FileNotFoundError(f"{sgf}: no such committed self-play match (tests/fixtures/selfplay/README.md)")
    return sgf


@pytest.fixture(scope="session")
def committed_selfplay():
    """Factory: ``committed_selfplay(seed, length) -> Path``, for tests that
    pin figures of a self-play match (they hold on any processor)."""
    return committed_selfplay_file


_DUMP_SCRIPT = r"""
import gnubg, json
gnubg.command('load match "%(sgf)s"')
with open(%(out)r, "w") as fh:
    json.dump(gnubg.match(analysis=1, boards=1, statistics=1), fh)
"""


def gnubg_match_dump(sgf: Path) -> dict:
    """``gnubg.match(statistics=1)`` of a file as the real gnubg loads it:
    its records and its own statistics (cached beside the file)."""
    import json

    from gnubg_blunder.gnubg.process import run_python

    out = sgf.with_suffix(".match.json")
    if SELFPLAY_CACHE.resolve() not in Path(sgf).resolve().parents:
        # a file of the repository: the dump goes to the cache, named by the file's content
        import hashlib

        digest = hashlib.sha256(Path(sgf).read_bytes()).hexdigest()[:16]
        out = SELFPLAY_CACHE / "dumps" / f"{Path(sgf).stem}-{digest}.match.json"
        out.parent.mkdir(parents=True, exist_ok=True)
    with made_alone(out):
        if not out.exists() or out.stat().st_mtime < sgf.stat().st_mtime:
            res = run_python(_DUMP_SCRIPT % {"sgf": str(sgf.resolve()), "out": str(out)}, timeout=300)
            if not out.exists():
                raise RuntimeError(f"gnubg did not dump {sgf}: {res.stdout[-500:]} {res.stderr[-500:]}")
    with open(out, encoding="utf-8") as fh:
        return json.load(fh)


# The plain progress line of long work (gnubg_blunder/progress.py): written to
# standard error at most every 10 s, so whether a run has one depends on how
# fast the machine is.  Tests that want "nothing on standard error" take it out.
PROGRESS_LINE = re.compile(r"^[\w-]+: \d+/\d+ files, .* elapsed, about .* left(; .*)?$")


def without_progress(stderr: str) -> str:
    """``stderr`` without its plain progress lines (see PROGRESS_LINE)."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not PROGRESS_LINE.match(line.rstrip("\n")))


def run_cli(*args, db=None, env=None, check=True):
    """Run ``gnubg-blunder`` as a user would (a subprocess), plugins off."""
    import os

    # a whole environment (one with PATH) is used as it is; a few variables
    # are added to this process' environment
    e = dict(env) if env and "PATH" in env else {**os.environ, **(env or {})}
    e["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    cmd = [sys.executable, "-m", "gnubg_blunder"]
    if db is not None:
        cmd += ["--db", str(db)]
    res = subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, env=e, timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"gnubg-blunder {' '.join(map(str, args))} exited {res.returncode}: {res.stderr}")
    return res


# -- the command line in this process ---------------------------------------------------
#
# Most CLI tests run ``gnubg-blunder`` in-process (run_cli_inprocess, or the
# ``cli`` fixture): the same parser and commands, no interpreter start-up
# (~0.4 s a call).  run_cli above stays for the end-to-end tests that need a
# real separate process (exit status of the interpreter, console script,
# a whole environment, gnubg).


class CliResult:
    """What subprocess.run returns, for an in-process run: args, returncode,
    stdout, stderr."""

    def __init__(self, args, returncode, stdout, stderr):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def __repr__(self):
        return f"CliResult(args={self.args!r}, returncode={self.returncode!r})"


def _set_environ(values: dict) -> dict:
    """Set (or, for None, remove) variables; returns the old values."""
    old = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(v)
    return old


def _plugin_free_manager():
    """The process-wide plugin manager as GNUBG_BLUNDER_NO_PLUGINS=1 builds it:
    no installed (entry-point) plugins.  gnubg_blunder.plugins caches it, so
    one built earlier with installed plugins is built again; a plugin a test
    registered on it itself is kept.  Call with the variable set."""
    from gnubg_blunder import plugins

    pm = plugins.get_plugin_manager()
    if pm.list_plugin_distinfo():
        plugins.reset_plugin_manager()
        pm = plugins.get_plugin_manager()
    return pm


@pytest.fixture
def register_plugin(monkeypatch):
    """``register_plugin(plugin, name)``: ``plugin`` (a module or any object
    with hookimpls) registered for this test alone on a plugin-free manager
    (GNUBG_BLUNDER_NO_PLUGINS set), which is built again afterwards."""
    from gnubg_blunder import plugins

    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    plugins.reset_plugin_manager()
    yield lambda plugin, name: plugins.get_plugin_manager().register(plugin, name=name)
    plugins.reset_plugin_manager()


def run_cli_inprocess(*args, db=None, env=None, input=None, check=True) -> CliResult:
    """``gnubg-blunder [--db DB] ARGS`` in this process, plugins off, like
    :func:`run_cli`: ``commands.run(argv, Context(out=StringIO(), err=StringIO()))``.

    ``env`` adds variables for the call (None removes one); a whole
    environment (with PATH) needs a real process: use run_cli.  ``input`` is
    what the command reads on stdin.  What the package writes to
    sys.stdout / sys.stderr instead of ctx.out / ctx.err (argparse's
    ``--help``) is captured into the same buffers.  An exception the command
    does not handle propagates (a subprocess would exit 1 with a traceback)."""
    import contextlib
    import io

    from gnubg_blunder.commands import Context, run

    if env and "PATH" in env:
        raise ValueError("a whole environment needs a separate process: use run_cli")
    argv = (["--db", str(db)] if db is not None else []) + [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    old_env = _set_environ({"GNUBG_BLUNDER_NO_PLUGINS": "1", **(env or {})})
    old_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO(input or "")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            _plugin_free_manager()
            status = run(argv, Context(out=out, err=err))
    finally:
        sys.stdin = old_stdin
        _set_environ(old_env)
    res = CliResult(["gnubg-blunder", *argv], int(status), out.getvalue(), err.getvalue())
    if check and res.returncode != 0:
        raise AssertionError(f"gnubg-blunder {' '.join(argv)} exited {res.returncode}: {res.stderr}")
    return res


@pytest.fixture
def cli(monkeypatch):
    """``cli(*args, db=None, env=None, input=None, check=True)``: the command
    line in this process (run_cli_inprocess); GNUBG_BLUNDER_NO_PLUGINS is set
    for the whole test, so ``run_line`` called directly is plugin-free too."""
    monkeypatch.setenv("GNUBG_BLUNDER_NO_PLUGINS", "1")
    return run_cli_inprocess


# -- databases ---------------------------------------------------------------------------


def _db_digest(path) -> str:
    """A digest of the database's content (its SQL dump)."""
    import hashlib
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return hashlib.sha256("\n".join(con.iterdump()).encode()).hexdigest()
    finally:
        con.close()


@pytest.fixture(scope="session")
def db(tmp_path_factory) -> Path:
    """tests/fixture_db.py's hand-computed database, built once for the whole
    run and shared: tests only read it (checked at the end of the session).
    A test that writes takes ``db_copy``."""
    from fixture_db import build_fixture_db

    path = build_fixture_db(tmp_path_factory.mktemp("fixture-db") / "fixture.db")
    before = _db_digest(path)
    yield path
    assert _db_digest(path) == before, "a test wrote to the shared fixture database (`db`): give it `db_copy`"


def stored_matches(db) -> int:
    """How many matches the SQLite database ``db`` holds (read directly)."""
    import sqlite3

    con = sqlite3.connect(os.fsdecode(db))
    try:
        return con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def db_copy(db, tmp_path) -> Path:
    """A copy of the fixture database of the test's own, to write to."""
    import shutil

    return Path(shutil.copy(db, tmp_path / "fixture-copy.db"))


@pytest.fixture
def empty_db(tmp_path) -> Path:
    """The path of a database not yet created (the first command creates it)."""
    return tmp_path / "test.db"


# -- the order of the files -------------------------------------------------------------
#
# tests/run gives whole files to its workers (--dist loadfile), in the
# order of the collection (--no-loadscope-reorder: xdist would otherwise
# start with the files of the most tests, and leave the slow files of few
# tests, gnubg's and PostgreSQL's, to the end, where one of them is the
# whole run's tail).  The slowest files first, then the others as they are
# collected: the short ones fill the end of both workers.  Seconds measured
# in one process (fresh clone, tests of the time of this list; a file not
# listed takes under 5 s).
SLOWEST_FILES = {
    "test_store_reliability.py": 70, "test_gnubg_gui.py": 60, "test_postgres_reliability.py": 30,
    "test_postgres_lost_server.py": 25,
    "test_difficulty.py": 38, "test_import_reliability.py": 34, "test_verify.py": 28,
    "test_gnubg_console.py": 20, "test_review.py": 20, "test_after_a_kill.py": 20, "test_report.py": 18,
    "test_saved_twice.py": 18, "test_watch.py": 18, "test_example_plugin.py": 16, "test_gnubg_agreement.py": 15,
    "test_check.py": 13, "test_xg_fuzz.py": 11, "test_analyse.py": 11, "test_import_jobs.py": 10,
    "test_collections.py": 10, "test_hostile_output.py": 8, "test_references.py": 8, "test_copy.py": 8,
    "test_report_reading.py": 7, "test_postgres_parity.py": 6, "test_game_record_rows.py": 6,
    "test_impossible_values.py": 6, "test_agreement.py": 6, "test_match_report.py": 5, "test_biases.py": 5,
    "test_no_zero_width_intervals.py": 5, "test_store.py": 5,
}


def pytest_collection_modifyitems(config, items):
    """The files of SLOWEST_FILES first, slowest first; a file's tests in
    their order (a stable sort by the file alone)."""
    items[:] = sorted(items, key=lambda item: -SLOWEST_FILES.get(item.path.name, 0))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "e2e: end to end, gnubg-blunder in a real separate process (run_cli); "
        "the other CLI tests run it in-process (-m e2e runs these alone)")
