"""Where ``bdb``'s output goes when gnubg runs its graphical interface
(docs/gnubg.md, "Output in gnubg's GUI").

gnubg's embedded Python has no output function: ``print`` writes to the
standard output of the process that started gnubg, which a player who
launches gnubg from a desktop menu never sees.  gnubg 1.07 draws with GTK 2,
so the plugin cannot add a window to gnubg's own toolkit either.  So, in the
GUI, every ``bdb`` entry point's printed text is also shown in a window of
its own: a small Tk program (:mod:`.output_window`) run by the system
Python as a separate process.  gnubg never waits for it (nothing modal, two
toolkits never share one event loop), closing it never touches gnubg, and
the next output opens it again.  One window serves the whole gnubg session:
each call adds a block and scrolls to it.  Without Tk (Debian's
``python3-tk`` not installed) the text goes to an HTML page opened in the
default browser (``webbrowser``, so ``BROWSER`` is honoured); the page of a
report (``bdb.report()``) always opens in the browser.

``GNUBG_BLUNDER_OUTPUT`` overrides the choice: ``window``, ``browser``,
``console`` (only gnubg's standard output, as in ``gnubg -t``), ``auto``
(the default: a window when gnubg runs its GUI).
"""

from __future__ import annotations

import html
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

OUTPUT_ENV = "GNUBG_BLUNDER_OUTPUT"
MODES = ("auto", "window", "browser", "console")

# gnubg's options that start it without its GUI (gnubg --help): -t/--tty, and
# -p/--python FILE, which runs a file and exits.  -c/--commands FILE runs its
# commands and then draws the GUI (gnubg 1.07): a GUI.
_TEXT_ONLY_LONG = ("--tty", "--python")
_TEXT_ONLY_SHORT = set("tp")
_SHORT_WITH_VALUE = set("lpcsDPO")  # a short option that takes a value: the rest of the word is the value


def gnubg_command_line() -> list:
    """The command line gnubg was started with (Linux: /proc/self/cmdline;
    elsewhere: nothing known)."""
    try:
        raw = Path("/proc/self/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def gui_running(argv=None, environ=None) -> bool:
    """Does this gnubg draw its GUI?  Not when started with ``-t`` or
    ``-p FILE``, nor without a display (gnubg then falls back
    to its text interface)."""
    argv = gnubg_command_line() if argv is None else list(argv)
    environ = os.environ if environ is None else environ
    if not argv or "gnubg" not in os.path.basename(argv[0]):
        return False  # not inside gnubg (a test, a script): nobody to show a window to
    display = bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name in _TEXT_ONLY_LONG:
                return False
            if name == "--display":
                display = True
            continue
        if word.startswith("-") and len(word) > 1:
            for k, letter in enumerate(word[1:]):
                if letter in _TEXT_ONLY_SHORT:
                    return False
                if letter in _SHORT_WITH_VALUE:
                    if k == len(word) - 2:
                        next(words, None)  # its value is the next word
                    break
    return display


def output_mode(environ=None) -> str:
    """``window``, ``browser`` or ``console``: where this call's text is shown."""
    environ = os.environ if environ is None else environ
    asked = (environ.get(OUTPUT_ENV) or "auto").strip().lower()
    if asked not in MODES:
        asked = "auto"
    if asked == "auto":
        if not gui_running(environ=environ):
            return "console"
        return "window" if tk_available() else "browser"
    if asked == "window" and not tk_available():
        return "browser"
    return asked


def tk_available() -> bool:
    """Tk for the system Python (Debian: ``python3-tk``)?  gnubg embeds that
    same Python, so its own import machinery answers."""
    try:
        return importlib.util.find_spec("_tkinter") is not None and system_python() is not None
    except (ImportError, ValueError):
        return False


def system_python():
    """The Python interpreter of gnubg's embedded Python (``sys.executable``
    is gnubg itself there)."""
    exe = Path(sys.executable or "")
    if exe.name.startswith("python") and exe.exists():
        return str(exe)
    major, minor = sys.version_info[:2]
    for candidate in (Path(sys.base_prefix) / "bin" / f"python{major}.{minor}",
                      Path(sys.base_prefix) / "bin" / "python3"):
        if candidate.exists():
            return str(candidate)
    return None


def pages_folder() -> Path:
    """Where the browser pages of bdb's output are written."""
    return Path(os.path.expanduser("~")) / ".gnubg" / "gnubg-blunder"


class _PassedOn(io.TextIOBase):
    """gnubg's standard output, written on to it; where there is none at
    all (closed), what was written counts as written: the window has it."""

    def __init__(self, stream):
        self.stream = stream

    def _pass_on(self, text) -> int:
        try:
            return self.stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self):
        try:
            self.stream.flush()
        except (OSError, ValueError):
            pass


class _Tee(_PassedOn):
    """gnubg's standard output, and a copy of what went to it."""

    def __init__(self, stream):
        super().__init__(stream)
        self.parts = []

    def write(self, text):
        self.parts.append(text)
        return self._pass_on(text)

    def text(self) -> str:
        return "".join(self.parts)


class _Shown:
    """One ``bdb`` call's output: its text, and a page to offer beside it."""

    depth = 0
    page = None  # an HTML page to offer (the match page after bdb.store()), set during the call
    opened = None  # a page the call asked to open in the browser (bdb.report())


@contextmanager
def shown(title: str):
    """Run one ``bdb`` entry point: its text goes to gnubg's standard output
    as always and, in the GUI, to the output window (or the browser).  Calls
    made by another entry point (``bdb.analyse()`` → ``bdb.store()``) are
    shown once, with the outer one."""
    if _Shown.depth:
        _Shown.depth += 1
        try:
            yield
        finally:
            _Shown.depth -= 1
        return
    mode = output_mode()
    if mode == "console":
        yield
        return
    tee = _Tee(console())  # not through the prompt's copy: the call's text is its own block
    _Shown.depth, _Shown.page, _Shown.opened = 1, None, None
    before, sys.stdout = sys.stdout, tee
    try:
        yield
    finally:
        sys.stdout = before
        _Shown.depth = 0
        page, opened = _Shown.page, _Shown.opened
        _Shown.page = _Shown.opened = None
        try:
            text = tee.text()
            failed = open_in_browser(opened) if opened else ""
            if failed:
                print(failed, file=console())
                text += failed + "\n"
            show(title, text, mode, page=page)
        except Exception as exc:  # never lose the call's own result over its display
            print(f"gnubg-blunder: cannot show the output ({type(exc).__name__}: {exc})", file=console())


def collecting() -> bool:
    """Is a call's output being gathered for the window or the browser?"""
    return _Shown.depth > 0


def offer_page(path) -> None:
    """The current call wrote this HTML page (the match page): the window
    offers a button that opens it."""
    if _Shown.depth:
        _Shown.page = str(path)


def open_page(path) -> bool:
    """The current call's page to open in the browser at its end (GUI only;
    returns whether it will be)."""
    if _Shown.depth:
        _Shown.opened = str(path)
        return True
    return False


def show(title: str, text: str, mode: str, page=None) -> None:
    if not text.strip() and page is None:
        return
    if mode == "window" and _window.send(title, text, page):
        return
    failed = open_in_browser(_write_text_page(title, text, page))
    if failed:
        print(failed, file=console())


# Opening a page in the browser: the window's own rule (output_window.py, stdlib only, Tk imported lazily).
from .output_window import open_in_browser  # noqa: E402


def follow(title: str, path) -> bool:
    """In the output window, the lines another process writes to ``path``
    (``bdb.watch()``'s watcher) as they are written, under ``title``: the
    window reads the file in its own loop (gnubg's embedded Python runs no
    thread of ours while gnubg waits for the player: a thread here would
    not be run).  False when no window shows them (the console, the
    browser)."""
    if output_mode() != "window":
        return False
    try:
        return _window.send(title, "", follow=path)
    except Exception:
        return False


def say(title: str, line: str, browser: bool = True) -> None:
    """One line shown in the GUI (the window, else the browser) and on
    gnubg's standard output: the plugin loaded, a Python mistake.
    ``browser=False``: in the window only, never a browser page (the
    start-up line: no page opened at each start of gnubg)."""
    print(line, file=console())
    mode = output_mode()
    if mode != "console" and (browser or mode != "browser"):
        try:
            show(title, line + "\n", mode)
        except Exception:
            pass


def python_mistake_hook(previous):
    """A ``sys.excepthook`` for gnubg's Python prompt: a line typed at
    ``>`` that raises (``>bdb.analyze()``: AttributeError, a NameError, a
    SyntaxError) is one line in the output window, then gnubg's own
    traceback on its standard output as before."""

    def hook(kind, value, tb):
        try:
            if not issubclass(kind, (SystemExit, KeyboardInterrupt)):
                detail = " ".join(str(value).split())
                hint = ""
                if issubclass(kind, AttributeError) and "'Bdb' object" in detail:
                    hint = " (bdb's commands: >print(repr(bdb)))"
                say("Python error", f"gnubg-blunder: Python error at gnubg's prompt: {kind.__name__}: {detail}{hint}")
        except Exception:
            pass
        previous(kind, value, tb)

    hook.gnubg_blunder = True
    return hook


class _PromptOutput(_PassedOn):
    """gnubg's standard output in the GUI, where what a line typed at
    ``>`` prints (``>print(repr(bdb))``, outside any ``bdb`` call) is also
    sent to the output window, line by line as each ends, under "Python
    at gnubg's prompt" (consecutive ones in one block).  gnubg runs each
    ``>`` line with no hook before or after it, so the standard output is
    the one place to see what it printed."""

    gnubg_blunder = True

    def __init__(self, stream):
        super().__init__(stream)
        self.pending = ""

    def write(self, text):
        written = self._pass_on(text)
        # a bdb call's own output goes to its block; GNUBG_BLUNDER_OUTPUT set since the start: as it says
        if not _Shown.depth and (os.environ.get(OUTPUT_ENV) or "auto").strip().lower() in ("auto", "window"):
            self.pending += text
            if "\n" in self.pending:
                lines, self.pending = self.pending.rsplit("\n", 1)
                try:
                    _window.send(PROMPT_TITLE, lines + "\n", merge=True)
                except Exception:
                    pass
        return written


PROMPT_TITLE = "Python at gnubg's prompt"


def console():
    """gnubg's own standard output, under the prompt's copy to the window:
    for the plugin's own lines, already shown in a block of their own."""
    return sys.stdout.stream if getattr(sys.stdout, "gnubg_blunder", False) else sys.stdout


def install_prompt_hooks() -> None:
    """At gnubg's start (the start-up hook): a Python mistake typed at
    ``>`` is one line in the window (:func:`python_mistake_hook`), and, when
    the output goes to the window, what a ``>`` line prints is there too
    (:class:`_PromptOutput`)."""
    if not getattr(sys.excepthook, "gnubg_blunder", False):
        sys.excepthook = python_mistake_hook(sys.excepthook)
    if not getattr(sys.stdout, "gnubg_blunder", False) and sys.stdout is not None and output_mode() == "window":
        sys.stdout = _PromptOutput(sys.stdout)


def _write_text_page(title: str, text: str, page=None) -> Path:
    """The text as a page of its own (the window's stand-in without Tk)."""
    folder = pages_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "output.html"
    link = f'<p><a href="{html.escape(Path(page).resolve().as_uri())}">the match page</a></p>' if page else ""
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>gnubg-blunder</title></head><body>"
        f"<h1>{html.escape(title)}</h1>{link}<pre>{html.escape(text)}</pre></body></html>\n",
        encoding="utf-8",
    )
    return path


class _OutputWindow:
    """The one output window of this gnubg session: a child process fed
    one JSON line per block on its standard input.  Every block sent is
    kept: a window opened again (the player closed it) gets them all, the
    session's history back."""

    def __init__(self):
        self.process = None
        self.history = []

    def send(self, title: str, text: str, page=None, follow=None, merge=False) -> bool:
        """``follow``: a file whose lines the window adds as they are
        written; ``merge``: added to the last block when it has this title."""
        block = {"title": title, "text": text, "page": page, "time": time.strftime("%H:%M:%S")}
        if follow is not None:
            block["follow"] = str(follow)
        if merge:
            block["merge"] = True
        line = json.dumps(block, ensure_ascii=True) + "\n"
        self.history.append(line)
        for _attempt in (1, 2):  # a window the player closed: open a new one, the history in it
            fresh = self.process is None or self.process.poll() is not None
            if fresh and not self._start():
                self.history.pop()
                return False
            try:
                for sent in (self.history if fresh else [line]):
                    self.process.stdin.write(sent.encode("ascii"))
                self.process.stdin.flush()
                return True
            except (BrokenPipeError, OSError, ValueError):
                self._forget()
        return False

    def _start(self) -> bool:
        python = system_python()
        if python is None:
            return False
        script = Path(__file__).resolve().with_name("output_window.py")
        try:
            self.process = subprocess.Popen(
                [python, "-I", str(script), str(os.getpid())], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
            )
        except OSError:
            self.process = None
            return False
        return True

    def _forget(self) -> None:
        try:
            if self.process is not None and self.process.stdin:
                self.process.stdin.close()
        except OSError:
            pass
        self.process = None


_window = _OutputWindow()
