"""What a player who runs gnubg's GUI sees (issue 15; docs/gnubg.md,
"Output in gnubg's GUI").

The real gnubg GUI on a virtual screen (Xvfb), in a temporary HOME after
``gnubg-blunder install-gnubg``, its standard output and error sent to
/dev/null as when it is started from a desktop menu.  Lines are typed into
its Command panel with xdotool; what the plugin prints must then be on the
screen: the output window (found by ``xdotool search``, its text read back
through the clipboard after Ctrl+A, Ctrl+C), or the default browser called
(a ``BROWSER`` command that records its argument).  Screenshots go to
tests/.screenshots/ (docs/gnubg.md shows them).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import DATA, FIXTURES, needs_gnubg, run_cli
from gui_session import (GnubgGui, VirtualScreen, board_rectangle, covered_share, end_processes_on,
                         missing_tools, wait_for)

pytestmark = [needs_gnubg, pytest.mark.skipif(bool(missing_tools()), reason=f"needs {', '.join(missing_tools())}")]

MAT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"
SCREENSHOTS = Path(__file__).resolve().parent / ".screenshots"
WINDOW = "^gnubg-blunder"
SCREEN_SIZE = "1920x1080x24"  # a common screen, where gnubg's board reaches furthest right (docs/gnubg.md)


def _user_env(home: Path) -> dict:
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    for name in ("GNUBG_BLUNDER_DB", "XDG_DATA_HOME", "GNUBG_BLUNDER_OUTPUT", "BROWSER"):
        env.pop(name, None)
    return env


def _installed_home(tmp_path: Path) -> tuple:
    """(a user's HOME under ``tmp_path`` with the plugin installed for gnubg by `install-gnubg`, its environment)."""
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = _user_env(home)
    run_cli("install-gnubg", env=env)
    return home, env


class _AnalysedSgf:
    """The bundled match analysed by gnubg (1-ply: a decision to review) and saved as gnubg saves
    it: what a player loads with File → Open.  gnubg (``-t``, a HOME of its own) starts at once,
    while the module's GUI starts; :meth:`path` waits for it."""

    def __init__(self, tmp_path: Path):
        self.sgf = tmp_path / "charlot1-charlot2-analysed.sgf"
        home = tmp_path / "analyse-home"
        (home / ".gnubg").mkdir(parents=True)
        script = "\n".join([
            "set analysis chequerplay evaluation plies 1",
            "set analysis cubedecision evaluation plies 1",
            f'import mat "{MAT}"',
            "analyse match",
            f'save match "{self.sgf}"',
            "",
        ])
        self.process = subprocess.Popen(["/usr/games/gnubg", "-t", "-q", "-r"], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
                                        env=_user_env(home), cwd=tmp_path)
        self.process.stdin.write(script)
        self.process.stdin.close()

    def path(self) -> Path:
        self.process.wait(timeout=300)
        assert self.sgf.exists(), "gnubg did not save the analysed match"
        return self.sgf

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def gnubg_gui(tmp_path_factory, not_loaded_gui):
    """gnubg's GUI with the plugin installed and its Command panel open,
    one for the module's tests (a start costs ~8 s): each test gets its own
    database through :func:`gui`.  While it starts (mostly waiting for
    gnubg's windows), gnubg analyses the match the first test loads
    (``gnubg_gui["analysed"]``) and the GUI of the plugin that cannot load
    starts on a screen of its own (:func:`not_loaded_gui`)."""
    tmp_path = tmp_path_factory.mktemp("gnubg-gui")
    analysed = _AnalysedSgf(tmp_path)
    home, env = _installed_home(tmp_path)
    calls = tmp_path / "browser-calls.txt"
    browser = tmp_path / "record-browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{calls}"\n')
    browser.chmod(0o755)
    env["BROWSER"] = str(browser)
    screen = VirtualScreen(SCREEN_SIZE)
    gnubg = None
    try:
        gnubg = GnubgGui(screen, env, cwd=tmp_path)
        # the whole screen, as maximised (no window manager here: sized by hand), where the board reaches
        # furthest right
        screen.run("xdotool", "windowmove", str(gnubg.main), "0", "0")
        screen.run("xdotool", "windowsize", "--sync", str(gnubg.main), "100%", "100%")
        time.sleep(1.0)
        gnubg.open_command_panel(tmp_path / "probe.txt")
        yield {"screen": screen, "gnubg": gnubg, "home": home, "env": env, "calls": calls, "tmp": tmp_path,
               "started": time.monotonic(), "analysed": analysed}
    finally:
        analysed.close()
        if gnubg is not None:
            gnubg.close()
        end_processes_on(screen, "output_window.py")
        screen.close()


@pytest.fixture()
def gui(gnubg_gui, tmp_path):
    """The module's gnubg, this test's own database (``bdb.db_path``, and
    ``--db`` in ``env`` for the command line): tests independent of their
    order.  gnubg's output mode is set back to its default after the test."""
    db = tmp_path / "test.db"
    screen, gnubg = gnubg_gui["screen"], gnubg_gui["gnubg"]
    gnubg.command(f">bdb.db_path = {str(db)!r}")
    env = dict(gnubg_gui["env"], GNUBG_BLUNDER_DB=str(db))
    # the window's text so far (earlier tests' blocks): this test looks after it (_wait_text)
    shown = next(iter(screen.windows(WINDOW, visible=True)), None)
    _Since.chars = len(_window_text(screen, shown)) if shown else 0
    try:
        yield dict(gnubg_gui, env=env, db=db)
    finally:
        gnubg.command(">import os; os.environ.pop('GNUBG_BLUNDER_OUTPUT', None)")
        _Since.chars = 0


class _Since:
    """The output window's text before the current test (its blocks only are read)."""

    chars = 0


def _browser_calls(gui, before: int, timeout=60) -> list:
    """The pages the default browser was called with after the first ``before`` calls."""
    def calls():
        said = gui["calls"].read_text().split() if gui["calls"].exists() else []
        return said[before:] or None

    return wait_for(calls, timeout=timeout, what="the browser to be called")


def _calls_so_far(gui) -> int:
    return len(gui["calls"].read_text().split()) if gui["calls"].exists() else 0


def _output_window(screen: VirtualScreen, timeout=60) -> int:
    return wait_for(lambda: next(iter(screen.windows(WINDOW, visible=True)), None), timeout=timeout,
                    what="the output window")


def _window_text(screen: VirtualScreen, wid: int) -> str:
    """The output window's whole text, as a player copies it."""
    screen.focus(wid)
    screen.keys("ctrl+a", "ctrl+c")
    text = screen.clipboard()
    screen.keys("Escape")  # unselected again, for the screenshots
    return text


def _wait_text(screen, wid, needle, timeout=60) -> str:
    """The window's text added during this test, once ``needle`` is in it."""
    def text():
        added = _window_text(screen, wid)[_Since.chars:]
        return added if needle in added else None

    return wait_for(text, timeout=timeout, what=f"{needle!r} in the output window")


def test_the_review_of_a_stored_match_is_seen_in_the_gui(gui, tmp_path):
    screen, gnubg, env = gui["screen"], gui["gnubg"], gui["env"]
    sgf = gui["analysed"].path()

    gnubg.command(f'load match "{sgf}"')
    time.sleep(2)
    gnubg.command(">bdb.store()")
    wid = _output_window(screen)
    text = _wait_text(screen, wid, "Match review — match 1")
    shot = screen.screenshot(SCREENSHOTS / "gui-store.png")
    assert shot.stat().st_size > 10_000

    # the figures: each side's PR and MWC lost as `matches` prints them from the same database
    matches = json.loads(run_cli("matches", "--format", "json", env=env).stdout)["matches"]
    assert len(matches) == 1
    assert "stored as match 1 (charlot1 vs charlot2, 7-point match" in text
    for side in matches[0]["sides"]:
        row = next(line for line in text.splitlines() if line.startswith(side["player"] + " "))
        assert f"{side['pr']:.2f} [" in row, (row, side["pr"])
        assert f"{side['mwc_loss']:.2f}" in row
    # the review: the luck-adjusted result of each side, and the three decisions with their boards
    assert text.count("Luck-adjusted result") == 2
    review = run_cli("review", "1", env=env).stdout.strip()
    assert "Decisions to review (" in review and "Position ID:" in review
    assert review in text  # the review as the command line prints it, boards included
    assert "Traceback" not in text

    # the match page with the boards, offered by the window's button, is written
    page = gui["home"] / ".gnubg" / "gnubg-blunder" / "match-1.html"
    assert page.exists() and "Match review — match 1" in page.read_text(encoding="utf-8")

    # bdb("stats") adds its block to the same window
    gnubg.command('>bdb("stats")')
    text = _wait_text(screen, wid, "Scope: every stored match")
    assert "bdb('stats')" in text and "PR:" in text
    screen.screenshot(SCREENSHOTS / "gui-stats.png")

    # an error: one line in the window, naming the database
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"SQLite format 3\0" + b"not a database " * 100)
    gnubg.command(f'>bdb("--db {corrupt} stats")')
    text = _wait_text(screen, wid, "file is not a database")
    error = [line for line in text.splitlines() if "file is not a database" in line]
    assert len(error) == 1 and str(corrupt) in error[0] and "Traceback" not in text
    screen.screenshot(SCREENSHOTS / "gui-error.png")

    # closed (Ctrl+W): gnubg answers the next line, and the next output opens a new window
    screen.focus(wid)
    screen.keys("ctrl+w")
    wait_for(lambda: not screen.windows(WINDOW), timeout=20, what="the window to close")
    assert gnubg.running()
    answered = tmp_path / "answered.txt"
    gnubg.command(f">open({str(answered)!r}, 'w').write('yes')")
    wait_for(answered.exists, timeout=20, what="gnubg to answer after the window closed")
    gnubg.command(">bdb.review()")
    wid = _output_window(screen)
    assert "Match review — match 1" in _wait_text(screen, wid, "Match review — match 1")

    # bdb.report(): the page opens in the default browser
    before = _calls_so_far(gui)
    gnubg.command(">bdb.report()")
    calls = _browser_calls(gui, before)
    opened = Path(calls[-1].replace("file://", ""))
    assert opened == gui["home"] / "gnubg-blunder-match-1.html"
    html = opened.read_text(encoding="utf-8")
    for side in matches[0]["sides"]:
        assert side["player"] in html and f"{side['pr']:.2f}" in html


def test_analyse_in_the_gui_ends_with_the_review_in_the_window(gui):
    """An unanalysed match imported in the GUI, then ``>bdb.analyse()``:
    gnubg analyses it (0-ply here), and the window shows the stored match's
    figures and review."""
    screen, gnubg, env = gui["screen"], gui["gnubg"], gui["env"]
    gnubg.command("set analysis chequerplay evaluation plies 0")
    gnubg.command("set analysis cubedecision evaluation plies 0")
    gnubg.command(f'import mat "{MAT}"')
    time.sleep(2)
    gnubg.dismiss_messages()
    gnubg.command(">bdb.analyse()")
    wid = _output_window(screen, timeout=120)
    text = _wait_text(screen, wid, "Match review — match 1", timeout=120)
    screen.screenshot(SCREENSHOTS / "gui-analyse.png")
    assert "bdb.analyse()" in text and "stored as match 1 (charlot1 vs charlot2, 7-point match" in text
    assert "analysis gnubg 0-ply" in text
    review = run_cli("review", "1", env=env).stdout.strip()
    assert review in text
    for side in json.loads(run_cli("matches", "--format", "json", env=env).stdout)["matches"][0]["sides"]:
        row = next(line for line in text.splitlines() if line.startswith(side["player"] + " "))
        assert f"{side['pr']:.2f} [" in row


def test_without_a_window_the_text_opens_in_the_browser(gui, tmp_path):
    """``GNUBG_BLUNDER_OUTPUT=browser`` (what happens without Tk): the text
    of a call is a page opened in the default browser; an error too."""
    screen, gnubg = gui["screen"], gui["gnubg"]
    before = screen.windows(WINDOW)  # the output window of the start-up line ("gnubg-blunder loaded"), if open
    called = _calls_so_far(gui)
    gnubg.command(">import os; os.environ['GNUBG_BLUNDER_OUTPUT'] = 'browser'")
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"SQLite format 3\0" + b"not a database " * 100)
    gnubg.command(f'>bdb("--db {corrupt} stats")')
    calls = _browser_calls(gui, called)
    page = Path(calls[-1].replace("file://", ""))
    text = page.read_text(encoding="utf-8")
    assert "file is not a database" in text and "corrupt.db" in text
    assert screen.windows(WINDOW) == before  # the call's text went to the browser: no window opened for it
    assert gnubg.running()


def test_the_window_on_open_covers_at_most_a_tenth_of_the_board(gui):
    """The output window (opened at gnubg's start by the start-up line)
    against gnubg's board, found in a screenshot taken with the window
    unmapped: at most a tenth of the board's rectangle under it (here:
    1920×1080, no window manager; tests/tools/gui_screenshots.py measures
    1366×768 and 1920×1080 with openbox, gnubg maximised or not)."""
    screen, gnubg = gui["screen"], gui["gnubg"]
    wid = _output_window(screen)
    with screen.unmapped(wid):
        pixels = screen.pixels()
    board = board_rectangle(pixels, screen.frame(gnubg.main))
    assert board[2] > 300 and board[3] > 200, board  # the board itself, not an icon
    covered = covered_share(board, screen.frame(wid))
    assert covered <= 0.10, (board, screen.frame(wid), covered)
    # gnubg's own window (WM_TRANSIENT_FOR): a window manager keeps it above gnubg, not buried by a click
    transient = screen.run("xprop", "-id", str(wid), "WM_TRANSIENT_FOR").strip()
    assert transient.endswith(hex(gnubg.main)), (transient, hex(gnubg.main))


def test_watch_lines_and_what_a_prompt_line_prints_show_in_the_window(gui, tmp_path):
    """``>print(repr(bdb))`` (a ``>`` line that prints and raises nothing)
    is seen in the window; ``>bdb.watch(FOLDER)``'s lines are too, those
    written while gnubg waits for the player included: a match saved into
    the folder is stored and said there without anything typed."""
    screen, gnubg = gui["screen"], gui["gnubg"]
    gnubg.command(">print(repr(bdb))")
    wid = _output_window(screen)
    text = _wait_text(screen, wid, "<gnubg-blunder ")
    assert "Python at gnubg's prompt" in text and "bdb.watch(" in text

    folder = tmp_path / "watched"
    folder.mkdir()
    gnubg.command(f">bdb.watch({str(folder)!r}, settle=0.3)")
    _wait_text(screen, wid, "start-up: 0 match files already in the folder")
    (folder / "m1-7.sgf").write_bytes((FIXTURES / "selfplay" / "m1-7.sgf").read_bytes())  # nothing typed
    text = _wait_text(screen, wid, "m1-7.sgf: stored as match 1", timeout=60)
    assert f"watching {folder} beside gnubg (process " in text
    gnubg.command(">bdb.watch(stop=True)")
    text = _wait_text(screen, wid, "watch stopped: 1 stored")
    assert "Traceback" not in text
    players = json.loads(run_cli("matches", "--format", "json", env=gui["env"]).stdout)["matches"][0]["sides"]
    assert sorted(side["player"] for side in players) == ["Strongbot", "Weakbot"]


# -- which gnubg draws its GUI (gui_output.gui_running), by hand -----------------------------

@pytest.mark.parametrize("argv, environ, expected", [
    (["/usr/games/gnubg"], {"DISPLAY": ":0"}, True),
    (["/usr/games/gnubg", "-q"], {"DISPLAY": ":0"}, True),
    (["/usr/games/gnubg", "-w", "match.sgf"], {"DISPLAY": ":0"}, True),
    (["/usr/games/gnubg", "-q"], {}, False),  # no display: gnubg falls back to its text interface
    (["/usr/games/gnubg", "--display=:1"], {}, True),
    (["/usr/games/gnubg", "-t"], {"DISPLAY": ":0"}, False),
    (["/usr/games/gnubg", "--tty"], {"DISPLAY": ":0"}, False),
    (["/usr/games/gnubg", "-qt"], {"DISPLAY": ":0"}, False),
    (["/usr/games/gnubg", "-t", "-q", "-r", "-p", "x.py"], {"DISPLAY": ":0"}, False),
    (["/usr/games/gnubg", "--python=x.py"], {"DISPLAY": ":0"}, False),
    (["/usr/games/gnubg", "-c", "cmds.txt"], {"DISPLAY": ":0"}, True),  # runs its commands, then draws the GUI
    (["/usr/games/gnubg", "-l", "t"], {"DISPLAY": ":0"}, True),  # "t" is the language, not --tty
    (["/usr/games/gnubg", "-lt"], {"DISPLAY": ":0"}, True),
    (["/usr/bin/python3", "-m", "pytest"], {"DISPLAY": ":0"}, False),  # not inside gnubg
])
def test_gui_running_reads_gnubg_command_line(argv, environ, expected):
    from gnubg_blunder.gnubg.gui_output import gui_running

    assert gui_running(argv, environ) is expected


def test_output_mode_is_the_console_outside_gnubg_and_as_asked():
    from gnubg_blunder.gnubg.gui_output import output_mode

    assert output_mode({"DISPLAY": ":0"}) == "console"  # this test process is not gnubg
    assert output_mode({"GNUBG_BLUNDER_OUTPUT": "console", "DISPLAY": ":0"}) == "console"
    assert output_mode({"GNUBG_BLUNDER_OUTPUT": "browser"}) == "browser"
    assert output_mode({"GNUBG_BLUNDER_OUTPUT": "nonsense"}) == "console"  # unknown: auto


class _NotLoadedGui:
    """gnubg's GUI started with the plugin that cannot be imported (its
    environment's folders gone from the paths file), on a virtual screen of
    its own, in a thread: started by :func:`not_loaded_gui` while the
    module's GUI starts, read by its test."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.seen, self.error = None, None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        tmp_path = self.tmp_path
        try:
            home, env = _installed_home(tmp_path)
            (home / ".gnubg" / "gnubg_blunder_paths.txt").write_text(f"{tmp_path / 'gone'}\n")
            screen = VirtualScreen()
            gnubg = None
            try:
                gnubg = GnubgGui(screen, env, cwd=tmp_path)
                box = wait_for(lambda: next(iter(screen.windows("^gnubg-blunder$", visible=True)), None),
                               timeout=60, what="the message box")
                time.sleep(1.0)
                screen.raise_(box)  # no window manager: gnubg's window may have been mapped over it
                time.sleep(0.5)
                screen.screenshot(SCREENSHOTS / "gui-not-loaded.png")
                self.seen = {"running": gnubg.running(), "box": box}
            finally:
                if gnubg is not None:
                    gnubg.close()
                end_processes_on(screen, "messagebox.showerror")
                screen.close()
        except BaseException as exc:  # raised again by the test
            self.error = exc

    def result(self) -> dict:
        self.thread.join(timeout=300)
        assert not self.thread.is_alive(), "the GUI of the plugin that cannot load is still starting"
        if self.error is not None:
            raise self.error
        return self.seen


@pytest.fixture(scope="module")
def not_loaded_gui(tmp_path_factory):
    run = _NotLoadedGui(tmp_path_factory.mktemp("gnubg-gui-not-loaded"))
    yield run
    run.thread.join(timeout=300)


def test_a_plugin_that_cannot_load_says_so_in_the_gui(not_loaded_gui):
    """The start-up hook's one line, when the plugin cannot be imported
    (here: its environment's folders gone from the paths file), is also a
    message box on the screen: gnubg started from a menu shows no console.
    (Its GUI started beside the module's: not_loaded_gui.)"""
    seen = not_loaded_gui.result()
    assert seen["running"] and seen["box"]
