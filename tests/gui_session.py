"""gnubg's own GUI on a virtual screen, driven as a player would: for the
tests of what GUI players see (tests/test_gnubg_gui.py).

Xvfb gives the screen (no window manager: the X input focus is set with
``xdotool windowfocus``), xdotool types into gnubg's Command panel (View →
Panels → Command) and finds windows by name, xwd takes screenshots, which
:func:`xwd_pixels` and :func:`png_bytes` turn into PNG files.  gnubg's standard output and error
go to /dev/null, as when it is started from a desktop menu.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import time
import zlib
from pathlib import Path

import numpy as np

GNUBG = "/usr/games/gnubg"
TOOLS = ("Xvfb", "xdotool", "xwd", "xwininfo", "xprop")
SCREEN = "1280x1024x24"


def missing_tools() -> list:
    return [t for t in TOOLS if shutil.which(t) is None]


def wait_for(predicate, timeout=30.0, every=0.2, what="condition"):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


class VirtualScreen:
    """An Xvfb server on a free display number (``-displayfd``)."""

    def __init__(self, size=None):
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", size or SCREEN, "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(write)
        number = b""
        with os.fdopen(read, "rb") as fh:
            while not number.endswith(b"\n"):
                chunk = fh.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = ":" + number.decode().strip()

    def env(self, base=None) -> dict:
        env = dict(os.environ if base is None else base)
        env["DISPLAY"] = self.display
        return env

    def run(self, *args, check=True, timeout=30) -> str:
        res = subprocess.run(list(args), env=self.env(), capture_output=True, text=True, timeout=timeout)
        if check and res.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {res.stderr.strip()}")
        return res.stdout

    def windows(self, name: str, visible: bool = False) -> list:
        out = self.run("xdotool", "search", *(["--onlyvisible"] if visible else []), "--name", name, check=False)
        return [int(w) for w in out.split()]

    def window_name(self, wid: int) -> str:
        return self.run("xdotool", "getwindowname", str(wid), check=False).strip()

    def geometry(self, wid: int) -> tuple:
        """(x, y, width, height) of a window's inside on the screen (xwininfo's absolute corner:
        xdotool's counts a window manager's title bar twice)."""
        out = self.run("xwininfo", "-id", str(wid))
        values = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in out.splitlines() if ":" in line)}
        return (int(values["Absolute upper-left X"]), int(values["Absolute upper-left Y"]), int(values["Width"]),
                int(values["Height"]))

    def raise_(self, wid: int) -> None:
        self.run("xdotool", "windowraise", str(wid), check=False)

    def focus(self, wid: int) -> None:
        self.run("xdotool", "windowfocus", "--sync", str(wid))

    def keys(self, *keys) -> None:
        for key in keys:
            self.run("xdotool", "key", key)
            time.sleep(0.15)

    def click(self, x: int, y: int) -> None:
        self.run("xdotool", "mousemove", str(x), str(y), "click", "1")

    def type(self, text: str) -> None:
        self.run("xdotool", "type", "--delay", "12", text, timeout=120)

    def clipboard(self) -> str:
        """The CLIPBOARD selection's text, read by a Tk client of this screen."""
        code = "import tkinter; r = tkinter.Tk(); r.withdraw(); print(r.clipboard_get(), end='')"
        res = subprocess.run(["/usr/bin/python3", "-c", code], env=self.env(), capture_output=True, text=True,
                             timeout=30)
        return res.stdout if res.returncode == 0 else ""

    def screenshot(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png_bytes(self.pixels()))
        return path

    def pixels(self) -> np.ndarray:
        """The whole screen as an array of RGB pixels (rows, columns, 3)."""
        raw = subprocess.run(["xwd", "-root", "-silent"], env=self.env(), capture_output=True, timeout=30,
                             check=True).stdout
        return xwd_pixels(raw)

    def frame(self, wid: int) -> tuple:
        """(x, y, width, height) of a window with its window manager's
        frame (title bar, borders: _NET_FRAME_EXTENTS), what it hides."""
        x, y, width, height = self.geometry(wid)
        out = self.run("xprop", "-id", str(wid), "_NET_FRAME_EXTENTS", check=False)
        left = right = top = bottom = 0
        if "=" in out:
            left, right, top, bottom = (int(v) for v in out.split("=", 1)[1].split(","))
        return x - left, y - top, width + left + right, height + top + bottom

    def unmapped(self, wid: int):
        """A context in which the window is off the screen (a screenshot of what it covers)."""
        return _Unmapped(self, wid)

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class GnubgGui:
    """gnubg's GUI on a virtual screen, its output sent to /dev/null."""

    def __init__(self, screen: VirtualScreen, env: dict, cwd: Path):
        self.screen = screen
        self.process = subprocess.Popen(
            [GNUBG, "-q"], env=screen.env(env), cwd=str(cwd), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        # up in 2-5 s alone; a machine whose two cores run other gnubg processes too took over 60 s once
        self.main = wait_for(lambda: self._main_window(), timeout=120, what="gnubg's main window")
        # gnubg is ready for the keyboard once it has read its rc files (the plugin's hook among them)
        # and saved its first settings file
        autorc = Path(env["HOME"]) / ".gnubg" / "gnubgautorc"
        wait_for(autorc.exists, timeout=60, what="gnubg to save its first settings")
        time.sleep(1.0)
        self.dismiss_messages()  # "Settings saved to ...": a new user's first start says so in a dialog
        time.sleep(1.0)
        self.entry = None

    def _main_window(self):
        for wid in self.screen.windows("^GNU Backgammon$"):
            return wid
        return None

    def dismiss_messages(self) -> int:
        """Close gnubg's message dialogs (OK by Return), as a player would."""
        closed = 0
        for wid in self.screen.windows("^GNU Backgammon - "):
            self.screen.focus(wid)
            self.screen.keys("Return")
            closed += 1
        if closed:
            time.sleep(0.5)
        return closed

    def open_command_panel(self, probe: Path) -> None:
        """View → Panels → Command (by the menus' mnemonics), then find its
        entry: it is where a typed Python line runs (``probe`` is written)."""
        self.screen.focus(self.main)
        self.screen.keys("alt+v")
        time.sleep(0.5)
        self.screen.keys("p", "c", "c", "Return")
        time.sleep(1.0)
        x, y, width, height = self.screen.geometry(self.main)
        # The panel's entry sits at the bottom right of gnubg's window, left of its Help button.
        candidates = [(x + width - dx, y + height - dy) for dy in (43, 40, 46, 50, 36) for dx in (265, 300, 230)]
        for point in candidates:
            self.entry = point
            self.command(f">open({str(probe)!r}, 'w').write('{point}')")
            try:
                wait_for(probe.exists, timeout=3, what="the probe")
                return
            except AssertionError:
                continue
        shot = self.screen.screenshot(probe.with_suffix(".png"))
        raise AssertionError(f"the Command panel's entry was not found (the screen: {shot})")

    def command(self, line: str) -> None:
        """Type a line into the Command panel and press Return."""
        self.screen.focus(self.main)
        self.screen.click(*self.entry)
        time.sleep(0.2)  # the entry takes the focus before the first key (the keys queue behind the click)
        self.screen.type(line)
        self.screen.keys("Return")

    def running(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, 15)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)


def end_processes_on(screen, needle: str) -> int:
    """SIGTERM to this user's processes whose command line holds ``needle``
    and which draw on this virtual screen (their DISPLAY): never another
    session's, nor a process that only names the file (pytest running
    tests/test_output_window.py).  How many were ended."""
    ended = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(needle.encode() in a for a in argv[1:]) and b"python" in argv[0] \
                and f"DISPLAY={screen.display}".encode() in environ:
            try:
                os.kill(int(entry.name), 15)
                ended += 1
            except OSError:
                pass
    return ended


class _Unmapped:
    def __init__(self, screen, wid):
        self.screen, self.wid = screen, wid

    def __enter__(self):
        self.screen.run("xdotool", "windowunmap", "--sync", str(self.wid), check=False)
        time.sleep(0.8)  # gnubg redraws what the window uncovered

    def __exit__(self, *_exc):
        self.screen.run("xdotool", "windowmap", "--sync", str(self.wid), check=False)
        time.sleep(0.5)


def board_rectangle(pixels: np.ndarray, within: tuple) -> tuple:
    """(x, y, width, height) of gnubg's board -- its wooden frame and what
    it encloses, not the panels -- in a screenshot, looked for inside
    ``within`` (gnubg's main window).  The frame's wood (red well above
    green, green above blue: gnubg's default 2-D board) is found by rows
    and columns holding more than 100 such pixels: the toolbar's icons and
    the players' checker icons hold fewer."""
    x0, y0, width, height = within
    area = pixels[max(0, y0):y0 + height, max(0, x0):x0 + width].astype(int)
    r, g, b = area[:, :, 0], area[:, :, 1], area[:, :, 2]
    wood = (r > 100) & (g > 0.25 * r) & (g < 0.65 * r) & (b < 0.6 * g)
    columns = np.flatnonzero(wood.sum(axis=0) > 100)
    rows = np.flatnonzero(wood.sum(axis=1) > 100)
    if not len(columns) or not len(rows):
        raise AssertionError("no board found in the screenshot")
    return (max(0, x0) + int(columns[0]), max(0, y0) + int(rows[0]),
            int(columns[-1] - columns[0] + 1), int(rows[-1] - rows[0] + 1))


def covered_share(board: tuple, window: tuple) -> float:
    """The share of the board's rectangle that the window's covers."""
    bx, by, bw, bh = board
    wx, wy, ww, wh = window
    across = max(0, min(bx + bw, wx + ww) - max(bx, wx))
    down = max(0, min(by + bh, wy + wh) - max(by, wy))
    return across * down / (bw * bh)


def xwd_pixels(data: bytes) -> np.ndarray:
    """An xwd screenshot (ZPixmap, 32 bits a pixel: what Xvfb's 24-bit
    screen gives) as an array of RGB pixels."""
    fields = struct.unpack(">25I", data[:100])
    header_size, _version, pixmap_format = fields[:3]
    width, height = fields[4], fields[5]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    colours = fields[19]
    if pixmap_format != 2 or bits_per_pixel != 32:
        raise ValueError(f"xwd: format {pixmap_format}, {bits_per_pixel} bits a pixel: not read here")
    offset = header_size + colours * 12
    pixels = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=offset)
    pixels = pixels.reshape(height, bytes_per_line)[:, : width * 4].reshape(height, width, 4)
    rgb = pixels[:, :, [2, 1, 0]] if byte_order == 0 else pixels[:, :, [1, 2, 3]]
    return np.ascontiguousarray(rgb)


def png_bytes(rgb: np.ndarray) -> bytes:
    """RGB pixels as PNG bytes (no filter, zlib level 6)."""
    height, width = rgb.shape[:2]
    rows = np.concatenate([np.zeros((height, 1), np.uint8), np.ascontiguousarray(rgb).reshape(height, width * 3)],
                          axis=1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))
