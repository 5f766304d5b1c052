"""``import``: one file at a time, any path, hostile files (docs/reliability.md).

Real files, real processes: every import runs ``python -m gnubg_blunder`` as
a user does, timed and measured (its peak memory, from ``wait4``).  The
disk fills up on a small tmpfs mounted in a private mount namespace
(``unshare -m``, as root); an unreadable folder is read by a process that
has dropped root (``setpriv``), since root reads anything; a lock is held by
another process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from gnubg_blunder.codec.text import decode_text

import other_user
from conftest import DATA, needs_gnubg, stored_matches, without_progress

CHARLOT_SGF = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
SQUIRE_XG = DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
COMMENT_XG = DATA / "xg" / "match_with_comment.xg"

# No case is timed against a limit (the suite runs on busy machines too): a
# hang is a process still running after ``measured``'s timeout, killed, whose
# exit status then fails the case.  Times are printed (pytest -s).
MEMORY_KB = 200 * 1024

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _can(*cmd) -> bool:
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


needs_setpriv = pytest.mark.skipif(
    not (IS_ROOT and shutil.which("setpriv") and _can("setpriv", "--reuid=nobody", "--regid=nogroup",
                                                      "--clear-groups", "true")),
    reason="needs root and setpriv (to read as a user who is not root)")
needs_unshare = pytest.mark.skipif(
    not (IS_ROOT and shutil.which("unshare") and _can("unshare", "-m", "true")),
    reason="needs root and unshare -m (a private tmpfs)")


# -- a measured run --------------------------------------------------------------------

class Run:
    def __init__(self, returncode, stdout, stderr, seconds, max_rss_kb):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.seconds, self.max_rss_kb = seconds, max_rss_kb

    @property
    def err_lines(self):
        return [ln for ln in self.stderr.splitlines() if ln.strip()]

    @property
    def out_lines(self):
        return [ln for ln in self.stdout.splitlines() if ln.strip()]

    def __repr__(self):
        return (f"Run(rc={self.returncode}, {self.seconds:.2f} s, {self.max_rss_kb / 1024:.0f} MB,\n"
                f"stdout={self.stdout!r},\nstderr={self.stderr!r})")


# A process forked from pytest inherits pytest's peak resident memory in its
# ``ru_maxrss`` (Linux keeps the larger of the two across exec), and pytest
# grows as the suite runs in-process commands.  So the command is started by
# a small launcher, whose own memory is small when it spawns it; the launcher
# passes on the child's peak memory (on the pipe whose fd is its first
# argument) and its exit (a signal as that signal).
LAUNCHER = """\
import os, signal, sys
fd = int(sys.argv[1])
os.set_inheritable(fd, False)
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
os.write(fd, str(usage.ru_maxrss).encode())
code = os.waitstatus_to_exitcode(status)
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def measured(args, env=None, timeout=60.0, user=None, cwd=None) -> Run:
    """Run a real process; its exit status, output, wall time and peak
    resident memory (``wait4``, through :data:`LAUNCHER`).  Killed (status
    -9) after ``timeout`` s."""
    e = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
    e.update(env or {})
    cmd = [os.fsencode(a) if isinstance(a, (str, Path)) else a for a in args]
    if user:  # as nobody, from a copy of the package that user can read (tests/other_user.py)
        assert args[:3] == [sys.executable, "-m", "gnubg_blunder"], args
        cmd = [os.fsencode(a) if isinstance(a, (str, Path)) else a for a in other_user.command(*args[3:])]
        e = other_user.environment(e)
        cwd = cwd or other_user.install()
    read_rss, write_rss = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(write_rss), *cmd], stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, env=e, cwd=cwd, pass_fds=(write_rss,),
                             start_new_session=True)
        os.close(write_rss)
        while True:
            pid, status, _usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, _usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        seconds = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        with os.fdopen(read_rss, "rb") as fh:
            rss = fh.read()
        out.seek(0)
        err.seek(0)
        return Run(p.returncode, out.read().decode("utf-8", "backslashreplace"),
                   err.read().decode("utf-8", "backslashreplace"), seconds, int(rss) if rss else 0)


def gnubg_blunder(db, *args, **kw) -> Run:
    return measured([sys.executable, "-m", "gnubg_blunder", "--db", db, *args], **kw)


def assert_quick(r: Run):
    print(f"measured: {r.seconds:.2f} s, peak {r.max_rss_kb / 1024:.0f} MB")  # shown with pytest -s
    assert r.returncode != -signal.SIGKILL, r  # killed at the timeout: a hang
    assert r.max_rss_kb < MEMORY_KB, r
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r


def summary(r: Run) -> str:
    return r.out_lines[-1]


# -- any path, hostile files -------------------------------------------------------------

def test_a_path_that_is_not_utf8_is_imported_and_stored_losslessly(tmp_path):
    folder = os.fsencode(tmp_path) + b"/caf\xe9"  # Latin-1 bytes: not UTF-8
    os.mkdir(folder)
    path = folder + b"/partie \xe0 7.sgf"
    shutil.copyfile(CHARLOT_SGF, path)
    db = tmp_path / "t.db"
    r = gnubg_blunder(db, "import", path)
    assert_quick(r)
    assert r.returncode == 0 and r.stderr == "", r
    # printed with the bytes that are not UTF-8 escaped
    shown = path.decode("utf-8", "backslashreplace")
    assert shown.endswith("/caf\\xe9/partie \\xe0 7.sgf")
    assert r.out_lines[0].startswith(shown + ": stored as match 1"), r
    assert "1 stored" in summary(r)
    con = sqlite3.connect(db)
    stored = con.execute("SELECT source_path FROM analyses").fetchone()[0]
    con.close()
    # the path in the text form both engines store (docs/postgres.md "Text"): lossless
    assert stored == "\uffff" + os.fsdecode(path).replace("\udce9", "%E9").replace("\udce0", "%E0")
    assert os.fsencode(decode_text(stored)) == path
    # the same file through its folder
    r = gnubg_blunder(db, "import", folder)
    assert_quick(r)
    assert r.returncode == 0 and "already stored" in r.out_lines[0], r


@pytest.fixture
def world_dir():
    """A folder that a process which dropped root can use (pytest's tmp_path is 0700)."""
    base = Path(tempfile.mkdtemp(prefix="gnubg-blunder-rel-", dir="/tmp"))
    base.chmod(0o777)
    yield base
    for root, dirs, _files in os.walk(base):
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), 0o755)
            except OSError:
                pass
    shutil.rmtree(base, ignore_errors=True)


@needs_setpriv
def test_unreadable_folder_and_file_are_failures(world_dir):
    folder = world_dir / "in"
    (folder / "closed").mkdir(parents=True)
    shutil.copy(CHARLOT_SGF, folder / "good.sgf")
    shutil.copy(SQUIRE_XG, folder / "closed" / "hidden.xg")
    shutil.copy(COMMENT_XG, folder / "secret.xg")
    (folder / "secret.xg").chmod(0o000)
    (folder / "closed").chmod(0o000)
    db = world_dir / "t.db"
    env = {"HOME": str(world_dir), "GNUBG_BLUNDER_CONFIG": str(world_dir / "config.yaml")}
    r = gnubg_blunder(db, "import", folder, env=env, user="nobody")
    assert_quick(r)
    assert r.returncode == 1, r
    assert sorted(r.err_lines) == sorted([
        f"{folder / 'closed'}: error: cannot read the folder: permission denied",
        f"{folder / 'secret.xg'}: error: cannot read the file: permission denied",
    ]), r
    assert "good.sgf: stored as match 1" in r.out_lines[0], r
    assert summary(r) == ("2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed; "
                          "1 folder could not be read"), r


def test_symlinked_folders_are_followed_once(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(SQUIRE_XG, elsewhere / "squire.xg")
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(CHARLOT_SGF, folder / "charlot.sgf")
    (folder / "linked").symlink_to(elsewhere)  # a folder outside, through a link
    (folder / "linked-again").symlink_to(elsewhere)  # the same folder twice
    (folder / "up").symlink_to("..")  # a loop: a link to a folder above
    (elsewhere / "back").symlink_to(folder)  # a loop through the other folder
    db = tmp_path / "t.db"
    r = gnubg_blunder(db, "import", folder)
    assert_quick(r)
    assert r.returncode == 0 and without_progress(r.stderr) == "", r
    assert len(r.out_lines) == 3, r
    assert "charlot.sgf: stored as match 1" in r.out_lines[0]
    assert "linked/squire.xg: stored as match 2" in r.out_lines[1]
    assert summary(r).startswith("2 files: 2 stored"), r


def test_a_symlink_loop_is_named_as_one(tmp_path):
    (tmp_path / "a.sgf").symlink_to("b.sgf")
    (tmp_path / "b.sgf").symlink_to("a.sgf")
    (tmp_path / "gone.xg").symlink_to("nowhere.xg")
    r = gnubg_blunder(tmp_path / "t.db", "import", tmp_path / "a.sgf", tmp_path / "gone.xg")
    assert_quick(r)
    assert r.returncode == 1
    assert r.err_lines == [
        f"{tmp_path / 'a.sgf'}: error: a symbolic link loop (too many levels of symbolic links)",
        f"{tmp_path / 'gone.xg'}: error: a symbolic link to a missing file (nowhere.xg)",
    ], r
    assert summary(r) == "2 files: 0 stored, 0 analyses added, 0 already stored, 2 failed"


@pytest.mark.parametrize("name", ["pipe.sgf", "pipe.xg"])
def test_a_fifo_is_refused_without_waiting(tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    r = gnubg_blunder(tmp_path / "t.db", "import", fifo, timeout=30)
    assert_quick(r)
    assert r.returncode == 1
    assert r.err_lines == [f"{fifo}: error: not a regular file: a FIFO (named pipe)"], r


@pytest.mark.parametrize("name", ["zero.xg", "zero.sgf", None])
def test_dev_zero_is_refused(tmp_path, name):
    path = Path("/dev/zero")
    if name:
        path = tmp_path / name
        path.symlink_to("/dev/zero")
    r = gnubg_blunder(tmp_path / "t.db", "import", path, timeout=30)
    assert_quick(r)
    assert r.returncode == 1
    assert r.err_lines == [f"{path}: error: not a regular file: a character device"], r


@pytest.mark.parametrize("name", ["big.xg", "big.sgf"])
def test_a_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path, name):
    from gnubg_blunder.importers.files import MAX_MATCH_FILE_SIZE

    big = tmp_path / name
    with open(big, "wb") as fh:  # sparse: nothing written, 257 MiB long
        fh.truncate(MAX_MATCH_FILE_SIZE + 1024 * 1024)
    r = gnubg_blunder(tmp_path / "t.db", "import", big, timeout=30)
    assert_quick(r)
    assert r.returncode == 1
    assert r.err_lines == [f"{big}: error: too large: 257 MiB, above the limit of 256 MiB for a match file "
                           "(not read)"], r


def test_hostile_files_in_a_folder_each_fail_and_the_match_is_stored(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(COMMENT_XG, folder / "a-match.xg")
    os.mkfifo(folder / "b-pipe.sgf")
    (folder / "c-zero.xg").symlink_to("/dev/zero")
    (folder / "d-loop.sgf").symlink_to("d-loop.sgf")
    with open(folder / "e-big.xg", "wb") as fh:
        fh.truncate(300 * 1024 * 1024)
    r = gnubg_blunder(tmp_path / "t.db", "import", folder, timeout=30)
    assert_quick(r)
    assert r.returncode == 1
    assert "a-match.xg: stored as match 1" in r.out_lines[0], r
    assert [ln.split(": error: ")[1] for ln in r.err_lines] == [
        "not a regular file: a FIFO (named pipe)", "not a regular file: a character device",
        "a symbolic link loop (too many levels of symbolic links)",
        "too large: 300 MiB, above the limit of 256 MiB for a match file (not read)",
    ], r
    assert summary(r) == "5 files: 1 stored, 0 analyses added, 0 already stored, 4 failed"


def test_the_reader_itself_refuses_what_is_not_a_regular_file(tmp_path):
    """Both importers read through importers/files.py: a plugin calling
    them, or ``convert``, meets the same refusals."""
    from gnubg_blunder.importers.files import NotAMatchFile, read_match_bytes
    from gnubg_blunder.importers.records import MatchImportError
    from gnubg_blunder.importers.sgf import read_match as read_sgf_match
    from gnubg_blunder.importers.xg import read_match as read_xg_match

    fifo = tmp_path / "p.sgf"
    os.mkfifo(fifo)
    with pytest.raises(NotAMatchFile, match="FIFO"):
        read_match_bytes(fifo)
    with pytest.raises(OSError, match="FIFO"):
        read_sgf_match(fifo)
    with pytest.raises(MatchImportError, match="character device"):
        read_xg_match("/dev/zero")
    assert read_match_bytes(CHARLOT_SGF) == CHARLOT_SGF.read_bytes()
    with pytest.raises(NotAMatchFile, match="above the limit of 1000 bytes"):
        read_match_bytes(CHARLOT_SGF, limit=1000)


# -- the database refusing a file -----------------------------------------------------

_FULL_DRIVER = r"""
import json, os, sqlite3, subprocess, sys
mnt, db, report = sys.argv[1], sys.argv[2], sys.argv[3]
files = sys.argv[4:]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], check=True)
def imp(*paths):
    p = subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", db, "import", *paths],
                       capture_output=True, text=True)
    return {"rc": p.returncode, "out": p.stdout, "err": p.stderr}
def state():
    c = sqlite3.connect(db)
    try:
        return {"integrity": c.execute("PRAGMA integrity_check").fetchall(),
                "matches": c.execute("SELECT id, player0, player1 FROM matches ORDER BY id").fetchall(),
                "decisions": c.execute("SELECT COUNT(*) FROM decisions").fetchone()[0],
                "dump": "\n".join(c.iterdump())}
    finally:
        c.close()
out = {"first": imp(files[0])}
out["before"] = state()
free = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize
with open(os.path.join(mnt, "filler"), "wb") as fh:  # leave 100 KB (the compact candidate lists of step 10 fit more)
    fh.write(b"\0" * (free - 100 * 1024))
out["full"] = imp(*files[1:])
out["after"] = state()
os.remove(os.path.join(mnt, "filler"))
out["again"] = imp(*files)
out["end"] = state()
json.dump(out, open(report, "w"))
"""


@needs_unshare
def test_disk_full_names_the_file_and_leaves_the_store_whole(tmp_path):
    """A 4 MiB tmpfs: the first match fits, then 100 KB are left and the
    next two do not.  Each is named with SQLite's words, the summary is
    printed, the database is whole with the first match as it was; after
    space is freed the same import completes the set."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    driver = tmp_path / "driver.py"
    driver.write_text(_FULL_DRIVER)
    report = tmp_path / "report.json"
    p = subprocess.run(["unshare", "-m", sys.executable, str(driver), str(mnt), str(mnt / "x.db"), str(report),
                        str(CHARLOT_SGF), str(SQUIRE_XG), str(COMMENT_XG)],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1"))
    assert p.returncode == 0, p.stderr
    out = json.loads(report.read_text())
    assert out["first"]["rc"] == 0, out["first"]
    full = out["full"]
    assert full["rc"] == 1, full
    err = [ln for ln in full["err"].splitlines() if ln.strip()]
    assert len(err) == 2, full["err"]
    for line, path in zip(err, (SQUIRE_XG, COMMENT_XG)):
        assert line.startswith(f"{path}: error: not stored: database or disk is full"), line
        assert "no transaction is active" not in line
    assert "Traceback" not in full["err"]
    assert full["out"].splitlines()[-1] == "2 files: 0 stored, 0 analyses added, 0 already stored, 2 failed"
    assert out["after"]["integrity"] == [["ok"]]
    assert out["after"]["dump"] == out["before"]["dump"]  # the first match intact, nothing half-written
    assert len(out["before"]["matches"]) == 1
    again = out["again"]
    assert again["rc"] == 0, again
    assert again["out"].splitlines()[-1] == "3 files: 2 stored, 0 analyses added, 1 already stored, 0 failed"
    assert out["end"]["integrity"] == [["ok"]]
    assert len(out["end"]["matches"]) == 3


_HOLDER = r"""
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("INSERT INTO meta(key, value) VALUES ('held', 'yes') ON CONFLICT(key) DO UPDATE SET value = 'yes'")
print("held", flush=True)
release_after = float(sys.argv[2])
if release_after > 0:
    time.sleep(release_after)
else:
    sys.stdin.readline()  # until told
c.execute("ROLLBACK")
print("released", flush=True)
"""


def _hold(db, release_after=0.0):
    p = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db), str(release_after)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_lock_held_longer_than_the_timeout_fails_each_file_and_goes_on(tmp_path):
    db = tmp_path / "t.db"
    assert gnubg_blunder(db, "import", CHARLOT_SGF).returncode == 0
    holder = _hold(db)
    try:
        r = gnubg_blunder(db, "import", SQUIRE_XG, COMMENT_XG, env={"GNUBG_BLUNDER_BUSY_TIMEOUT": "1"})
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    assert_quick(r)
    assert r.seconds >= 2  # each file waited its second
    assert r.returncode == 1, r
    assert len(r.err_lines) == 2, r
    for line, path in zip(r.err_lines, (SQUIRE_XG, COMMENT_XG)):
        assert line.startswith(f"{path}: error: not stored: database is locked"), line
        assert "more than 1 s" in line and "gnubg" in line and "another gnubg-blunder import" in line, line
    assert summary(r) == "2 files: 0 stored, 0 analyses added, 0 already stored, 2 failed"
    assert stored_matches(db) == 1
    r = gnubg_blunder(db, "import", SQUIRE_XG, COMMENT_XG)
    assert r.returncode == 0 and "2 stored" in summary(r), r


def test_a_lock_released_within_the_timeout_is_waited_for(tmp_path):
    db = tmp_path / "t.db"
    assert gnubg_blunder(db, "import", CHARLOT_SGF).returncode == 0
    holder = _hold(db, release_after=1.0)
    r = gnubg_blunder(db, "import", SQUIRE_XG, env={"GNUBG_BLUNDER_BUSY_TIMEOUT": "20"})
    holder.wait(timeout=30)
    assert_quick(r)
    assert r.returncode == 0 and r.stderr == "", r
    assert "stored as match 2" in r.out_lines[0]


@needs_setpriv
def test_a_read_only_database_fails_each_file_and_goes_on(world_dir):
    db = world_dir / "ro.db"
    assert gnubg_blunder(db, "import", CHARLOT_SGF).returncode == 0
    db.chmod(0o444)  # root's file; the user cannot write it (the folder they can)
    env = {"HOME": str(world_dir), "GNUBG_BLUNDER_CONFIG": str(world_dir / "config.yaml")}
    files = [other_user.readable_copy(f, world_dir) for f in (SQUIRE_XG, COMMENT_XG)]
    r = gnubg_blunder(db, "import", *files, env=env, user="nobody")
    assert_quick(r)
    assert r.returncode == 1, r
    assert len(r.err_lines) == 2, r
    for line, path in zip(r.err_lines, files):
        assert line.startswith(f"{path}: error: not stored: "), line
        assert "read-only" in line and str(db) in line, line
    assert summary(r) == "2 files: 0 stored, 0 analyses added, 0 already stored, 2 failed"
    assert stored_matches(db) == 1


@pytest.mark.parametrize("kind", ["damaged", "newer"])
def test_a_database_that_cannot_be_used_is_said_once(tmp_path, kind):
    db = tmp_path / "t.db"
    if kind == "damaged":
        db.write_bytes(os.urandom(64 * 1024))
    else:
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        con.execute("INSERT INTO meta VALUES ('schema_version', '999')")
        con.commit()
        con.close()
    before = content(db, kind)
    r = gnubg_blunder(db, "import", SQUIRE_XG, COMMENT_XG)
    assert_quick(r)
    assert r.returncode == 1, r
    assert len(r.err_lines) == 1 and r.err_lines[0].startswith(f"error: database {db}: "), r
    assert ("not a database" if kind == "damaged" else "newer") in r.err_lines[0]
    assert summary(r) == ("2 files: 0 stored, 0 analyses added, 0 already stored, 0 failed, "
                          "2 not tried (the database cannot be used)"), r
    assert content(db, kind) == before


def content(db, kind):
    if kind == "damaged":
        return db.read_bytes()
    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_busy_timeout_default_and_setting(monkeypatch):
    from gnubg_blunder.store.sqlite import BUSY_TIMEOUT, busy_timeout

    monkeypatch.delenv("GNUBG_BLUNDER_BUSY_TIMEOUT", raising=False)
    assert busy_timeout() == BUSY_TIMEOUT == 30.0
    monkeypatch.setenv("GNUBG_BLUNDER_BUSY_TIMEOUT", "2.5")
    assert busy_timeout() == 2.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv("GNUBG_BLUNDER_BUSY_TIMEOUT", bad)
        assert busy_timeout() == BUSY_TIMEOUT


def test_stat_kinds_are_named():
    # the refusal words for each kind of non-regular file
    from gnubg_blunder.importers.files import check_match_file

    for path, words in (("/dev/null", "character device"), ("/", "a folder")):
        with pytest.raises(OSError, match=words):
            check_match_file(path)
    assert stat.S_ISREG(check_match_file(CHARLOT_SGF).st_mode)


# -- analyse: the same checks before gnubg opens a file --------------------------------

@needs_gnubg
def test_analyse_refuses_hostile_files_and_takes_any_path(tmp_path):
    mat = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"
    odd = os.fsencode(tmp_path) + b'/"quoted" \xe9.mat'  # not UTF-8, a double quote: gnubg loads it by a link
    shutil.copyfile(mat, odd)
    fifo = tmp_path / "pipe.mat"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.sgf"
    zero.symlink_to("/dev/zero")
    db = tmp_path / "t.db"
    r = gnubg_blunder(db, "analyse", "--plies", "0", fifo, zero, odd, timeout=120)
    assert "Traceback" not in r.stderr, r
    assert r.returncode == 1, r
    assert r.err_lines == [f"[1/3] {fifo}: error: not a regular file: a FIFO (named pipe)",
                           f"[2/3] {zero}: error: not a regular file: a character device"], r
    assert r.out_lines[0].startswith(f"[3/3] {tmp_path}/\"quoted\" \\xe9.mat: analysed (0-ply)"), r
    assert summary(r) == "3 files: 1 stored, 0 analyses added, 0 already stored, 2 failed"
    con = sqlite3.connect(db)
    assert os.fsencode(decode_text(con.execute("SELECT source_path FROM analyses").fetchone()[0])) == odd
    con.close()
