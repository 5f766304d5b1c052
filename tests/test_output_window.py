"""The output window's rules that need no screen (issue 26 item 3;
docs/gnubg.md, "Output in gnubg's GUI"): where it opens, its history kept
across a close, a failed browser start and a Python mistake in one line.
The screenshots of the real window over gnubg's GUI: docs/images/gui-*.png
(tests/tools/gui_screenshots.py)."""

from __future__ import annotations

import json
import sys

import pytest

from gnubg_blunder.gnubg import gui_output
from gnubg_blunder.gnubg.output_window import placement


@pytest.mark.parametrize("screen", [(1366, 768), (1920, 1080), (1280, 1024)])
def test_the_window_opens_at_the_right_edge_within_the_screen(screen):
    width, height, x, y = placement(*screen, wanted_width=1010, wanted_height=1200)
    assert width <= 0.34 * screen[0]
    # the right edge, gnubg's panels' side: right of 66 % of the screen, where gnubg's maximised board ends
    # at 1920×1080 (tests/tools/gui_screenshots.py; the share of the board covered: tests/test_gnubg_gui.py)
    assert x + width <= screen[0] and x >= 0.66 * screen[0] - 8
    # a title bar above it, gnubg's bottom 100 px (its Command panel's entry, where the next line is typed) below
    assert y >= 20 and y + height + 20 <= screen[1] - 100


def test_a_window_opened_again_gets_the_session_history(tmp_path, monkeypatch):
    """Closed by the player, the window is opened again by the next block,
    and every earlier block of the session is sent to it first."""
    window = gui_output._OutputWindow()
    received = []

    class Child:
        def __init__(self):
            self.lines, self.alive = [], True
            received.append(self.lines)
            self.stdin = self

        def write(self, data):
            if not self.alive:
                raise BrokenPipeError
            self.lines.append(json.loads(data)["title"])

        def flush(self):
            pass

        def close(self):
            pass

        def poll(self):
            return None if self.alive else 0

    def start():
        window.process = Child()
        return True

    monkeypatch.setattr(window, "_start", start)
    assert window.send("one", "1") and window.send("two", "2")
    window.process.alive = False  # the player closed it
    assert window.send("three", "3")
    assert received == [["one", "two"], ["one", "two", "three"]]


def test_a_browser_that_cannot_start_is_one_line(tmp_path, monkeypatch):
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: False)
    line = gui_output.open_in_browser(tmp_path / "page.html")
    assert line.startswith("gnubg-blunder: cannot start a browser for ") and "\n" not in line
    from gnubg_blunder.gnubg import output_window

    assert output_window.open_in_browser(tmp_path / "page.html") == line


def test_a_python_mistake_at_gnubgs_prompt_is_one_line(capsys, monkeypatch):
    """``>bdb.analyze()``: the AttributeError is one line (shown in the
    window in the GUI), then the traceback as before."""
    shown, before = [], []
    monkeypatch.setattr(gui_output, "output_mode", lambda environ=None: "window")
    monkeypatch.setattr(gui_output, "show", lambda title, text, mode, page=None: shown.append(text))
    hook = gui_output.python_mistake_hook(lambda *exc: before.append(exc[0]))
    from gnubg_blunder.gnubg.console import Bdb

    try:
        Bdb().analyze()
    except AttributeError:
        hook(*sys.exc_info())
    assert len(shown) == 1 and shown[0].count("\n") == 1
    assert shown[0].startswith("gnubg-blunder: Python error at gnubg's prompt: AttributeError: 'Bdb' object has no "
                               "attribute 'analyze'")
    assert before == [AttributeError]  # gnubg's own traceback still printed
