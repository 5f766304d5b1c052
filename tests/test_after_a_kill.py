"""After a kill (issue 24, docs/reliability.md "After a kill"): `import
--jobs 2`, `check --repair` and `anki sync` killed with SIGKILL at a few
moments inside their work leave no process (polled up to 10 s), and the
next run of the command removes what the killed one left, with a line
saying so; it then leaves nothing itself.

Each command runs with TMPDIR in the test's own folder, so everything it
leaves there is seen (and no other program's files are).  A moment is a
marker seen by polling (a file appearing, a line printed), never a sleep;
a kill that comes after the command ended is tried again
(tests/tools/killed_runs.py).  benchmarks/kill_leftovers.py kills each
command at 20 random moments."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
from killed_runs import entries, kill_all, kill_when, padded_collection, processes_left, run  # noqa: E402

from conftest import DATA, FIXTURES  # noqa: E402

ROOT = f"gnubg-blunder-{os.getuid()}"  # our folder in TMPDIR
REMOVED = "removed what a killed gnubg-blunder (process "
TRIES = 4  # a kill that came after the command ended is tried again, at most this many times


def _kill_at(args, db, tmpdir, ready) -> dict:
    for _ in range(TRIES):
        got = kill_when(args, db, tmpdir, ready)
        left = processes_left(got["mark"], within=10)
        kill_all(left)
        assert left == [], f"processes left after a kill: {left}"
        if got["landed"]:
            return got
    pytest.fail(f"no kill landed inside `{' '.join(map(str, args))}` in {TRIES} tries")


def _run_folders(tmpdir: Path) -> list:
    return sorted((tmpdir / ROOT).glob("pid*")) if (tmpdir / ROOT).is_dir() else []


# -- import --jobs 2 -------------------------------------------------------------------


@pytest.fixture
def match_folder(tmp_path) -> Path:
    """Enough match files for two reading processes: the real and fixture
    files, twice under other names (the second copies: already stored)."""
    folder = tmp_path / "matches"
    folder.mkdir()
    files = sorted((FIXTURES / "real" / "sgf").glob("*.sgf")) + sorted((FIXTURES / "real" / "xg").glob("*.xg")) \
        + sorted((FIXTURES / "sgf").glob("*.sgf")) + sorted((FIXTURES / "xg").glob("*.x*"))
    for copy in (1, 2):
        for f in files:
            shutil.copy(f, folder / f"{copy}-{f.name}")
    return folder


@pytest.mark.e2e
def test_a_killed_import_leaves_no_reading_process_and_the_next_one_removes_its_folder(match_folder, tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # another program's multiprocessing folder, and an entry of our folder not named by an owner: kept
    (tmpdir / "pymp-of-another-program").mkdir()
    (tmpdir / ROOT).mkdir(mode=0o700)
    (tmpdir / ROOT / "not-a-run").write_text("")
    others = ["gnubg-blunder-%d/not-a-run" % os.getuid(), "pymp-of-another-program"]
    db = tmp_path / "import.db"
    args = ("import", "--jobs", "2", match_folder)
    n = len(os.listdir(match_folder))
    moments = {
        "the pool starting": lambda p: bool(_run_folders(tmpdir)),
        "the first file stored": lambda p: len(p.lines) >= 1,
        "half the files stored": lambda p: len(p.lines) >= n // 2,
    }
    for moment, ready in moments.items():
        _kill_at(args, db, tmpdir, ready)
        left = _run_folders(tmpdir)
        assert len(left) == 1, moment  # the killed run's folder (multiprocessing's inside it)
        again = run(args, db, tmpdir)
        removed = [line for line in again.stderr.splitlines() if line.startswith(REMOVED)]
        assert len(removed) == 1 and str(left[0]) in removed[0], (moment, again.stderr)
        assert entries(tmpdir) == sorted([ROOT] + others), moment  # nothing left by either run
        assert again.stdout.splitlines()[-1].startswith(f"{n} files: "), again.stdout


# -- check --repair ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def damaged_db(tmp_path_factory) -> Path:
    """The real SGF and two real XG files imported, a page of an index
    overwritten (tests/test_check.py: `check --repair` rebuilds the file)."""
    from conftest import run_cli_inprocess
    from test_check import leaf_page, overwrite_page

    path = tmp_path_factory.mktemp("kill-repair") / "real.db"
    run_cli_inprocess("import", DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf",
                      DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg",
                      DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg", db=path)
    overwrite_page(path, leaf_page(path, "decisions_by_position"))
    return path


def _rebuilds(db: Path) -> list:
    return sorted(p.name for p in db.parent.glob(db.name + ".rebuild-*"))


def test_a_killed_repair_leaves_its_rebuilt_file_to_the_next_repair(damaged_db, tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    size = damaged_db.stat().st_size
    moments = {
        "the rebuilt file made": lambda p: bool(_rebuilds(db)),
        "its -wal made": lambda p: any(n.endswith("-wal") for n in _rebuilds(db)),
        "half the rows copied": lambda p: any(f.stat().st_size > size // 2 for f in db.parent.glob(
            db.name + ".rebuild-*") if f.exists()),
    }
    for i, (moment, ready) in enumerate(moments.items()):
        db = tmp_path / f"{i}" / "damaged.db"
        db.parent.mkdir()
        shutil.copy(damaged_db, db)
        _kill_at(("check", "--repair"), db, tmpdir, ready)
        left = _rebuilds(db)
        assert left, moment
        again = run(("check", "--repair"), db, tmpdir)
        lines = again.stdout.splitlines()
        assert lines[0].startswith(REMOVED) and left[0] in lines[0], (moment, again.stdout)
        # repaired now, or already by the killed run (killed after it wrote the file back)
        assert lines[-1] == f"{db}: repaired; checked again: whole" or lines[-1].startswith(f"{db}: whole: "), \
            again.stdout
        assert _rebuilds(db) == [], moment  # its -wal, -shm and the damaged file's partial copy too
        assert entries(tmpdir) == [], moment  # check keeps nothing in TMPDIR


def test_a_rebuilt_file_of_a_live_repair_is_not_removed(damaged_db, tmp_path):
    """Only a gone owner's file is removed: one named with this (live)
    process stays, as does one of a name not ours."""
    from gnubg_blunder.run_files import owned_name

    db = tmp_path / "damaged.db"
    shutil.copy(damaged_db, db)
    live = Path(owned_name(f"{db}.rebuild-20250101T000000"))
    live.write_bytes(b"x")
    other = tmp_path / "damaged.db.rebuild-by-someone-else"
    other.write_bytes(b"y")
    res = run(("check", "--repair"), db, tmp_path)
    assert REMOVED not in res.stdout and live.exists() and other.exists(), res.stdout


# -- anki sync ---------------------------------------------------------------------------


@pytest.fixture
def collection(tmp_path, cli) -> tuple:
    """(database, Anki collection): our notes exported and imported by Anki's
    backend (tests/test_anki.py), the collection made large (a table of
    40 MB beside Anki's), so that its copy and check take a while."""
    pytest.importorskip("anki")
    from test_anki import FILES, REAL_XG, _export

    db = tmp_path / "anki.db"
    cli("import", *(str(REAL_XG / f) for f in FILES), db=db)
    _export(cli, db, tmp_path / "a.apkg", "--errors", "--limit", "6")
    return db, padded_collection(tmp_path / "profile" / "collection.anki2", tmp_path / "a.apkg")


def test_a_killed_anki_sync_leaves_its_copy_to_the_next_run(collection, tmp_path):
    db, col = collection
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    size = col.stat().st_size

    def copies():
        return [f for run_folder in _run_folders(tmpdir) for f in run_folder.glob("anki-*/collection.anki2")]

    def copied():
        try:
            return any(f.stat().st_size == size for f in copies())
        except OSError:
            return False

    moments = {
        "the copy begun": lambda p: bool(copies()),
        "the copy whole, being read": lambda p: copied(),
    }
    for moment, ready in moments.items():
        _kill_at(("anki", "sync", col), db, tmpdir, ready)
        left = _run_folders(tmpdir)
        assert len(left) == 1 and list(left[0].glob("anki-*")), moment
        again = run(("anki", "sync", col), db, tmpdir)
        assert again.returncode == 0, again.stderr
        removed = [line for line in again.stderr.splitlines() if line.startswith(REMOVED)]
        assert len(removed) == 1 and str(left[0]) in removed[0], (moment, again.stderr)
        assert entries(tmpdir) == [ROOT], moment
        assert "review" in again.stdout
