"""``gnubg-blunder watch FOLDER`` as a user runs it: a real process with its
output captured, real match files copied, moved and written slowly into
the folder while it runs, stopped by SIGINT/SIGTERM, then started again
(issue 15, docs/watch.md).  No mocks: watchdog's own observer, the real
importers and store."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import DATA, FIXTURES, needs_gnubg, run_cli
from transcript_files import backgammon_studio_txt

SETTLE = 1.0  # the appends below pause SETTLE / 5: a wide margin on a loaded machine
# gnubg-analysed (1.08, SGF) and XG-analysed (.xg) real matches
SQUIRE = DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
COMMENTED = DATA / "xg" / "match_with_comment.xg"
CHARLOT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
SET_BOARD = FIXTURES / "sgf" / "set_board.sgf"  # 3 games, analysed by gnubg 1.07
UNANALYSED = FIXTURES / "sgf" / "match_info_cube_resign.sgf"  # gnubg 1.07, no analysis
ANALYSED_SMALL = FIXTURES / "sgf" / "analysed_eval.sgf"  # copied under names the watch ignores


class Watch:
    """A ``gnubg-blunder watch`` process; its stdout and stderr lines are
    collected as they come (threads), for :meth:`wait_for`."""

    def __init__(self, db: Path, folder: Path, settle: float = SETTLE, env: dict = None):
        env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1", **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gnubg_blunder", "--db", str(db), "watch", str(folder), "--settle", str(settle)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        self.out: list = []
        self.err: list = []
        self._threads = [threading.Thread(target=self._read, args=(s, lines), daemon=True)
                         for s, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self._threads:
            t.start()

    @staticmethod
    def _read(stream, lines: list) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    def lines(self) -> list:
        return self.out + self.err

    def wait_for(self, test, what: str, timeout: float = 30.0) -> None:
        """Until ``test(self)`` holds (polled), or fail with the output so far."""
        end = time.monotonic() + timeout
        while not test(self):
            if self.proc.poll() is not None:
                time.sleep(0.2)  # the last lines
                pytest.fail(f"watch exited {self.proc.returncode} before {what}:\n" + "\n".join(self.lines()))
            if time.monotonic() > end:
                self.stop(signal.SIGKILL)
                pytest.fail(f"no {what} after {timeout:g} s:\n" + "\n".join(self.lines()))
            time.sleep(0.05)

    def stop(self, signum=signal.SIGINT, timeout: float = 30) -> int:
        """Send ``signum``; the exit status (the test fails if the process
        is still running ``timeout`` seconds later)."""
        self.proc.send_signal(signum)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"watch still running {timeout:g} s after signal {signum}:\n" + "\n".join(self.lines()))
        for t in self._threads:
            t.join(timeout=10)
        return rc

    def mentions(self, name: str) -> list:
        return [line for line in self.lines() if name in line]


def _slow_one_handle(src: Path, dest: Path, cut: int, pause: float) -> None:
    """open, write, sleep, write, close: one handle open the whole time."""
    data = src.read_bytes()
    with open(dest, "wb") as fh:
        fh.write(data[:cut])
        fh.flush()
        time.sleep(pause)
        fh.write(data[cut:])


def _slow_appends(src: Path, dest: Path, cuts: list, pause: float) -> None:
    """open-append-close again and again, a pause between."""
    data = src.read_bytes()
    bounds = [0, *cuts, len(data)]
    for a, b in zip(bounds, bounds[1:]):
        with open(dest, "ab") as fh:
            fh.write(data[a:b])
        time.sleep(pause)


def _game_starts(sgf: Path) -> list:
    """Offsets where the 2nd, 3rd, ... game tree begins: a cut there leaves a
    file that reads as a shorter match (the worst case for a watcher)."""
    data = sgf.read_bytes()
    starts, i = [], data.find(b"(;", 1)
    while i > 0:
        starts.append(i)
        i = data.find(b"(;", i + 1)
    return starts


def _stored(db: Path) -> list:
    return json.loads(run_cli("matches", "--format", "json", db=db).stdout)["matches"]


def test_watch_stores_each_analysed_file_once_and_refuses_the_unanalysed(tmp_path):
    db, folder = tmp_path / "db.sqlite", tmp_path / "folder"
    folder.mkdir()
    w = Watch(db, folder)
    w.wait_for(lambda w: any(line.startswith("start-up: 0 match files") for line in w.out), "start-up line")

    # ignored: not match files by name (an analysed match under each, which would be stored if read)
    for name in ("partial.sgf.part", ".hidden.sgf", "backup.sgf~", "notes.txt"):
        shutil.copy(ANALYSED_SMALL, folder / name)
    # two analysed matches: one copied, one written beside and moved in (a save by rename) to a new sub-folder
    shutil.copy(SQUIRE, folder / SQUIRE.name)
    (folder / "sub").mkdir()
    shutil.copy(COMMENTED, folder / "sub" / "commented.xg.part")
    os.rename(folder / "sub" / "commented.xg.part", folder / "sub" / "commented.xg")
    # written slowly: the first part of each is a whole shorter match (cut where a game begins).
    # One handle kept open longer than the settle time (waited for by its open/close events on Linux);
    # appends closed each time, closer together than the settle time.
    pause = 2 * SETTLE if sys.platform.startswith("linux") else SETTLE / 5
    writers = [
        threading.Thread(target=_slow_one_handle, args=(CHARLOT, folder / "slow.sgf", _game_starts(CHARLOT)[0],
                                                        pause)),
        threading.Thread(target=_slow_appends, args=(SET_BOARD, folder / "appended.sgf", _game_starts(SET_BOARD),
                                                     SETTLE / 5)),
    ]
    for t in writers:
        t.start()
    shutil.copy(UNANALYSED, folder / "unanalysed.sgf")
    for t in writers:
        t.join()

    names = (SQUIRE.name, "commented.xg", "slow.sgf", "appended.sgf")
    w.wait_for(lambda w: all(w.mentions(n) for n in names + ("unanalysed.sgf",)), "line for every file")
    time.sleep(1.5 * SETTLE)  # a second read of any of them would come now
    for name in names:
        lines = w.mentions(name)
        assert len(lines) == 1 and ": stored as match " in lines[0], (name, w.lines())
    assert any("charlot1 vs charlot2, 7-point match, 4 games" in line for line in w.mentions("slow.sgf"))
    assert any("5-point match, 3 games" in line for line in w.mentions("appended.sgf"))
    refused = w.mentions("unanalysed.sgf")
    assert len(refused) == 1 and refused[0].startswith(str(folder / "unanalysed.sgf") + ": refused: it has no "
                                                       "analysis"), refused
    assert "Analyse → Analyse match or session, then File → Save" in refused[0]
    assert f"`gnubg-blunder --db {db} analyse {folder / 'unanalysed.sgf'}`" in refused[0]
    assert refused[0] in w.err
    for name in ("partial", "hidden", "backup", "notes"):
        assert not w.mentions(name), w.lines()

    assert w.stop(signal.SIGINT) == 0, w.lines()
    summary = "watch stopped: 4 stored, 0 analyses added, 0 already stored, 1 refused"
    assert w.out[-1] == summary, w.lines()
    matches = _stored(db)
    assert sorted(m["games"] for m in matches) == [3, 4, 8, 8]  # no shorter match from a part of a file
    players = sorted(tuple(m["players"]) for m in matches)
    assert ("Squire/Jørgensen", "Harmand/Unger") in players and ("charlot1", "charlot2") in players

    # started again on the same folder and database: nothing stored again
    w2 = Watch(db, folder)
    startup = "start-up: 5 match files already in the folder: 0 stored, 0 analyses added, 4 already stored, 1 refused"
    w2.wait_for(lambda w: any(line.startswith(startup) for line in w.out) and w.mentions("unanalysed.sgf"),
                "start-up line and the refusal")
    assert [line for line in w2.out if ": " in line and "stored as match" in line] == []
    assert len(w2.mentions("unanalysed.sgf")) == 1  # still refused, said once
    assert w2.stop(signal.SIGTERM) == 0, w2.lines()
    assert w2.out[-1] == "watch stopped: 0 stored, 0 analyses added, 4 already stored, 1 refused"
    assert sorted((m["id"], m["games"]) for m in _stored(db)) == sorted((m["id"], m["games"]) for m in matches)


def test_watch_refuses_match_transcripts_saying_how_to_analyse_them_into_its_database(tmp_path):
    """A .mat, and a .txt whose lines are a transcript's (Backgammon
    Studio's export), are refused with the `analyse` to type, the watch's
    --db in it; a .txt that holds no transcript is not a match file."""
    db, folder = tmp_path / "my db.sqlite", tmp_path / "folder"
    folder.mkdir()
    mat = shutil.copy(CHARLOT.with_suffix(".mat"), folder / "a.mat")
    txt = backgammon_studio_txt(CHARLOT.with_suffix(".mat"), folder / "b.txt")
    shutil.copy(ANALYSED_SMALL, folder / "notes.txt")  # an analysed SGF, under a name no match file has
    w = Watch(db, folder)
    startup = "start-up: 2 match files already in the folder: 0 stored, 0 analyses added, 0 already stored, 2 refused"
    # standard output and standard error are read apart: the refusals may come after the start-up line
    w.wait_for(lambda w: any(line.startswith(startup) for line in w.out) and len(w.err) >= 2, "start-up line")
    assert sorted(w.err) == [
        f"{mat}: refused: a match transcript (.mat) holds no analysis: use "
        f"`gnubg-blunder --db '{db}' analyse {mat}` (gnubg analyses it, then it is stored)",
        f"{txt}: refused: a match transcript (.txt) holds no analysis: use "
        f"`gnubg-blunder --db '{db}' analyse {txt}` (gnubg analyses it, then it is stored)",
    ], w.lines()
    assert not w.mentions("notes.txt")
    assert w.stop(signal.SIGTERM, timeout=STOPPED_WITHIN) == 0, w.lines()
    assert w.out[-1] == "watch stopped: 0 stored, 0 analyses added, 0 already stored, 2 refused"


def test_watch_refuses_a_missing_folder_in_one_line(tmp_path):
    res = run_cli("watch", tmp_path / "nowhere", db=tmp_path / "db.sqlite", check=False)
    assert res.returncode == 2
    assert res.stderr.strip() == f"error: {tmp_path / 'nowhere'}: no such folder"


@needs_gnubg
def test_a_refused_file_analysed_and_saved_again_by_gnubg_is_stored(tmp_path):
    """The refusal's advice followed: the real gnubg loads the refused file,
    analyses it and saves it over itself; the watch reads it again (it
    changed) and stores it."""
    from gnubg_blunder.gnubg.process import run_commands

    db, folder = tmp_path / "db.sqlite", tmp_path / "folder"
    folder.mkdir()
    shutil.copy(UNANALYSED, folder / "match.sgf")
    w = Watch(db, folder)
    w.wait_for(lambda w: any(line.startswith("start-up: 1 match file") for line in w.out) and w.err,
               "start-up line and the refusal")
    assert [line.split(": refused: ")[0] for line in w.err] == [str(folder / "match.sgf")], w.lines()

    saved = folder / "match.sgf"
    res = run_commands("set analysis chequerplay evaluation plies 0\n"
                       "set analysis cubedecision evaluation plies 0\n"
                       f'load match "{saved}"\nanalyse match\nsave match "{saved}"\n', timeout=120)
    assert res.returncode == 0, res.stderr
    w.wait_for(lambda w: any(": stored as match " in line for line in w.out), "stored line")
    assert w.stop(signal.SIGTERM) == 0, w.lines()
    assert w.out[-1] == "watch stopped: 1 stored, 0 analyses added, 0 already stored, 1 refused"
    (match,) = _stored(db)
    assert match["players"] == ["charlot1", "charlot2"] and match["games"] == 2 and match["length"] == 3


def test_watch_is_refused_inside_gnubg(tmp_path):
    """It never returns: inside gnubg (``>bdb("watch ...")``) it would hang gnubg."""
    import io

    from gnubg_blunder.commands import Context, run

    out, err = io.StringIO(), io.StringIO()
    assert run(["watch", str(tmp_path)], Context(out=out, err=err, inside_gnubg=True, db_path=str(tmp_path / "d"))) == 2
    assert err.getvalue().count("\n") == 1 and "not in gnubg" in err.getvalue() and out.getvalue() == ""


# A stopped watch is gone at once: measured by hand at 0.03-0.06 s when waiting, 0.5 s (STOP_GRACE) when
# SQLite waits for another program's lock.  The bound below is for a loaded machine, far below the
# busy timeout the watch would otherwise sit out.
STOPPED_WITHIN = 15.0


def test_sigterm_ends_a_waiting_watch_with_its_counts(tmp_path):
    db, folder = tmp_path / "db.sqlite", tmp_path / "folder"
    folder.mkdir()
    w = Watch(db, folder)
    w.wait_for(lambda w: any(line.startswith("watching ") for line in w.out), "watching line")
    assert w.stop(signal.SIGTERM, timeout=STOPPED_WITHIN) == 0, w.lines()
    assert w.out[-1] == "watch stopped: 0 stored, 0 analyses added, 0 already stored, 0 refused", w.lines()
    assert w.err == []


def test_sigterm_ends_a_watch_that_waits_for_a_locked_database(tmp_path):
    """Another program holds the database's write lock (a gnubg storing a
    match, a long ``check``): the watch waits inside SQLite for up to its
    busy timeout, where Python runs no signal handler.  SIGTERM ends it all
    the same, with exit status 0, its counts, and nothing of the file
    stored; the next start stores it."""
    import sqlite3

    db, folder = tmp_path / "db.sqlite", tmp_path / "folder"
    folder.mkdir()
    run_cli("matches", db=db)  # the database made, so that the watch opens it without writing
    shutil.copy(CHARLOT, folder / "match.sgf")
    os.utime(folder / "match.sgf", (time.time() - 3600,) * 2)  # quiet for long: read as soon as the watch starts
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        w = Watch(db, folder, env={"GNUBG_BLUNDER_BUSY_TIMEOUT": "600"})
        w.wait_for(lambda w: any(line.startswith("watching ") for line in w.out), "watching line")
        time.sleep(1.0)  # the file is being stored: waiting for the lock (a signal sooner ends the watch too)
        assert w.stop(signal.SIGTERM, timeout=STOPPED_WITHIN) == 0, w.lines()
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert w.out[-1] == "watch stopped: 0 stored, 0 analyses added, 0 already stored, 0 refused", w.lines()
    assert not w.mentions("match.sgf"), w.lines()
    assert _stored(db) == []

    w2 = Watch(db, folder)
    startup = "start-up: 1 match file already in the folder: 1 stored, 0 analyses added, 0 already stored, 0 refused"
    w2.wait_for(lambda w: any(line.startswith(startup) for line in w.out), "start-up line")
    assert w2.stop(signal.SIGTERM, timeout=STOPPED_WITHIN) == 0, w2.lines()
    (match,) = _stored(db)
    assert match["players"] == ["charlot1", "charlot2"] and match["games"] == 4
