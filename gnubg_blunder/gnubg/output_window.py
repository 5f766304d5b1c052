"""The output window of ``bdb`` in gnubg's GUI (docs/gnubg.md, "Output in
gnubg's GUI").

Run by the system Python as a process of its own (gnubg_blunder/gnubg/
gui_output.py starts it): it reads one JSON object per line on its standard
input -- ``{"title", "text", "page", "time"}`` -- and appends each as a block
to a scrollable, selectable text, scrolled to the new block's start and
raised.  A block with ``"follow": PATH`` names a file another process writes
(``bdb.watch()``'s watcher, docs/gnubg.md): its lines are added as they are
written (read by the window's own Tk loop, every 0.1 s; no thread touches Tk);
one with ``"merge": true`` goes on under the last block when that has its
title (what ``>`` lines print, line by line).  Standard library and Tk only (it imports nothing of gnubg-blunder),
so it starts in a fraction of a second.  The window stays open after gnubg
exits; Close (or Ctrl+W) ends it, and gnubg opens a new one with the next
output, the session's earlier blocks in it again (gui_output.py sends them).
Ctrl+A selects all, Ctrl+C copies the selection, Escape unselects.

Where it opens (:func:`placement`): at the screen's right edge, at most
34 % of the screen's width (over gnubg's right-hand panels, not its board),
its height above gnubg's bottom rows; the buttons and the legend are packed first,
so a short window shrinks the text, never them.  Lines are never wrapped
(a table row stays one row): a horizontal scroll bar instead.
"""

import json
import queue
import sys
import threading
import time
import webbrowser
from pathlib import Path

TITLE = "gnubg-blunder"
WIDTH, HEIGHT = 124, 40  # characters: the widest tables are ~120
# At most this share of the screen's width: gnubg's board ends at 66 % of a 1920×1080 screen with gnubg
# maximised (its right-hand panels beside it), at 57 % of 1366×768 (tests/tools/gui_screenshots.py measures it)
WIDTH_SHARE = 0.34
# gnubg's bottom rows (the players' scores, its Command panel's entry, the status bar) stay uncovered
BOTTOM_KEPT = 100
TOP = 40  # the window's top (its title bar above its inside), below gnubg's title and menu bars
LEGEND = ("e: error in EMG against the best · ℓ: the MWC it lost (% points) · d: difficulty, what choosing "
          "softly at random costs · L7: MWC lost scaled to a 7-point match · excess: Σ(ℓ − d) · avoidable: "
          "an error with d ≤ ℓ/10")


def placement(screen_width: int, screen_height: int, wanted_width: int, wanted_height: int) -> tuple:
    """(width, height, x, y) of the window's inside on open: against the
    screen's right edge (gnubg's right-hand panels when it is maximised or
    at its default size, which fills the screen), the width it wants, at
    most 34 % of the screen's (so at most a tenth of gnubg's board under it:
    docs/gnubg.md, "The output window on the screen"); the height it wants,
    down to at most BOTTOM_KEPT px above the screen's bottom, so gnubg's
    Command panel, where the next line is typed, stays in sight."""
    width = max(200, min(int(wanted_width), int(screen_width * WIDTH_SHARE)))
    height = max(200, min(int(wanted_height), screen_height - TOP - 20 - BOTTOM_KEPT))  # 20: a title bar
    x = max(0, screen_width - width - 8)  # the window manager's border
    return width, height, x, TOP


def open_in_browser(path) -> str:
    """Open a page in the default browser: "" when a browser started, else
    the one line saying why not."""
    try:
        if webbrowser.open(Path(path).resolve().as_uri()):
            return ""
        why = "no browser found (set BROWSER)"
    except Exception as exc:
        why = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return f"gnubg-blunder: cannot start a browser for {path}: {why}"


def new_lines(path, state) -> str:
    """The complete lines added to a followed file since the last call
    (``state[1]``: the bytes already shown, moved past them); a file not
    there (yet) gives nothing."""
    try:
        with open(path, "rb") as fh:
            fh.seek(state[1])
            data = fh.read()
    except OSError:
        return ""
    end = data.rfind(b"\n") + 1  # a line still being written waits for its end
    state[1] += end
    return data[:end].decode("utf-8", "replace")


def keep_above_gnubg(own_window: int, gnubg_pid) -> bool:
    """Mark the window (Tk's ``winfo_id``: the hint goes on its parent, the
    top-level window Tk names) as gnubg's (WM_TRANSIENT_FOR gnubg's main window,
    found by its _NET_WM_PID and its title): a window manager keeps it above
    gnubg, so a click on gnubg's board or Command panel does not bury it
    (nor does it stay above other programs).  libX11 through ctypes (it is
    there wherever gnubg's GTK draws); best effort: False when gnubg's
    window is not found (another display server, no such pid)."""
    try:
        import ctypes.util  # (subprocess and more: for this window's placement alone)

        x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        ulong, voidp = ctypes.c_ulong, ctypes.c_void_p
        x11.XOpenDisplay.restype, x11.XOpenDisplay.argtypes = voidp, [ctypes.c_char_p]
        x11.XDefaultRootWindow.restype, x11.XDefaultRootWindow.argtypes = ulong, [voidp]
        x11.XInternAtom.restype, x11.XInternAtom.argtypes = ulong, [voidp, ctypes.c_char_p, ctypes.c_int]
        x11.XQueryTree.argtypes = [voidp, ulong, ctypes.POINTER(ulong), ctypes.POINTER(ulong),
                                   ctypes.POINTER(ctypes.POINTER(ulong)), ctypes.POINTER(ctypes.c_uint)]
        x11.XGetWindowProperty.argtypes = [voidp, ulong, ulong, ctypes.c_long, ctypes.c_long, ctypes.c_int, ulong,
                                           ctypes.POINTER(ulong), ctypes.POINTER(ctypes.c_int),
                                           ctypes.POINTER(ulong), ctypes.POINTER(ulong),
                                           ctypes.POINTER(ctypes.c_void_p)]
        x11.XFetchName.argtypes = [voidp, ulong, ctypes.POINTER(ctypes.c_char_p)]
        x11.XSetTransientForHint.argtypes = [voidp, ulong, ulong]
        x11.XFree.argtypes = [voidp]
        x11.XFlush.argtypes = x11.XCloseDisplay.argtypes = [voidp]
        display = x11.XOpenDisplay(None)
        if not display:
            return False
        try:
            pid_atom = x11.XInternAtom(display, b"_NET_WM_PID", 1)

            def children(window):
                root, parent, kids, count = ulong(), ulong(), ctypes.POINTER(ulong)(), ctypes.c_uint()
                if not x11.XQueryTree(display, window, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids),
                                      ctypes.byref(count)):
                    return []
                found = [kids[k] for k in range(count.value)]
                if kids:
                    x11.XFree(kids)
                return found

            def pid_of(window):
                kind, size, items, left, data = ulong(), ctypes.c_int(), ulong(), ulong(), ctypes.c_void_p()
                if not pid_atom or x11.XGetWindowProperty(display, window, pid_atom, 0, 1, 0, 6, ctypes.byref(kind),
                                                          ctypes.byref(size), ctypes.byref(items), ctypes.byref(left),
                                                          ctypes.byref(data)) != 0 or not data.value:
                    return None
                try:
                    return ctypes.cast(data, ctypes.POINTER(ulong))[0] if items.value else None
                finally:
                    x11.XFree(data)

            def name_of(window):
                name = ctypes.c_char_p()
                if not x11.XFetchName(display, window, ctypes.byref(name)) or not name.value:
                    return ""
                text = name.value.decode("utf-8", "replace")
                x11.XFree(ctypes.cast(name, ctypes.c_void_p))
                return text

            level = [x11.XDefaultRootWindow(display)]
            for _depth in range(3):  # the root's children, a window manager's frames, their clients
                level = [kid for window in level for kid in children(window)]
                for window in level:
                    name = name_of(window)
                    if (name == "GNU Backgammon" or name.startswith("GNU Backgammon (")) \
                            and pid_of(window) == int(gnubg_pid):
                        root, parent, kids, count = ulong(), ulong(), ctypes.POINTER(ulong)(), ctypes.c_uint()
                        if x11.XQueryTree(display, own_window, ctypes.byref(root), ctypes.byref(parent),
                                          ctypes.byref(kids), ctypes.byref(count)) and kids:
                            x11.XFree(kids)
                        x11.XSetTransientForHint(display, parent.value or own_window, window)
                        x11.XFlush(display)
                        return True
            return False
        finally:
            x11.XCloseDisplay(display)
    except Exception:
        return False


def _read(stream, blocks):
    for raw in stream:
        try:
            block = json.loads(raw)
        except ValueError:
            continue
        if isinstance(block, dict):
            blocks.put(block)
    blocks.put(None)  # gnubg closed its end: the window stays for reading


def main():
    import tkinter as tk
    from tkinter import font as tkfont

    root = tk.Tk(className="gnubg-blunder")
    root.title(TITLE)
    fixed = tkfont.nametofont("TkFixedFont")
    bold = fixed.copy()
    bold.configure(weight="bold")
    # the buttons and the legend first: a short window shrinks the text, never them
    buttons = tk.Frame(root)
    buttons.pack(side="bottom", fill="x")
    legend = tk.Label(root, text=LEGEND, anchor="w", justify="left", fg="#444444")
    legend.pack(side="bottom", fill="x", padx=4)
    frame = tk.Frame(root)
    frame.pack(side="top", fill="both", expand=True)
    # no wrap: a table row stays one row, the horizontal scroll bar shows the rest
    text = tk.Text(frame, width=WIDTH, height=HEIGHT, wrap="none", font=fixed, undo=False)
    yscroll = tk.Scrollbar(frame, orient="vertical", command=text.yview)
    xscroll = tk.Scrollbar(frame, orient="horizontal", command=text.xview)
    text.configure(yscrollcommand=yscroll.set, xscrollcommand=xscroll.set)
    text.grid(row=0, column=0, sticky="nsew")
    yscroll.grid(row=0, column=1, sticky="ns")
    xscroll.grid(row=1, column=0, sticky="ew")
    frame.rowconfigure(0, weight=1)
    frame.columnconfigure(0, weight=1)
    text.tag_configure("head", font=bold, background="#e8e8e8")
    text.configure(state="disabled")  # read-only; selecting and copying still work

    page = {"path": None}

    def say(line):
        add({"title": TITLE, "text": line, "time": ""})

    def open_page():
        if page["path"]:
            failed = open_in_browser(page["path"])
            if failed:
                say(failed)

    page_button = tk.Button(buttons, text="Open the match page (boards)", command=open_page, state="disabled")
    page_button.pack(side="left", padx=4, pady=4)

    def select_all(_event=None):
        text.tag_add("sel", "1.0", "end-1c")
        return "break"

    def copy(_event=None):
        try:
            chosen = text.get("sel.first", "sel.last")
        except tk.TclError:
            return "break"
        root.clipboard_clear()
        root.clipboard_append(chosen)
        return "break"

    tk.Button(buttons, text="Close", command=root.destroy).pack(side="right", padx=4, pady=4)
    tk.Button(buttons, text="Copy all", command=lambda: (select_all(), copy())).pack(side="right", padx=4, pady=4)
    root.bind_all("<Control-a>", select_all)
    root.bind_all("<Control-c>", copy)
    root.bind_all("<Control-w>", lambda _e: root.destroy())
    root.bind_all("<Escape>", lambda _e: text.tag_remove("sel", "1.0", "end"))
    root.protocol("WM_DELETE_WINDOW", root.destroy)

    root.update_idletasks()
    width, height, x, y = placement(root.winfo_screenwidth(), root.winfo_screenheight(),
                                    root.winfo_reqwidth(), root.winfo_reqheight())
    legend.configure(wraplength=width - 16)
    root.geometry(f"{width}x{height}+{x}+{y}")
    def above_gnubg(tries=[120]):  # gnubg's process ID is the argument (gui_output.py); its main window may
        # not be drawn yet when the start-up line opens this window: tried each second, for two minutes
        tries[0] -= 1
        if not keep_above_gnubg(root.winfo_id(), sys.argv[1]) and tries[0] > 0:
            root.after(1000, above_gnubg)

    if len(sys.argv) > 1:
        root.after(300, above_gnubg)  # once mapped

    blocks = queue.Queue()
    threading.Thread(target=_read, args=(sys.stdin.buffer, blocks), daemon=True).start()

    last = {"title": None}  # the title of the last block added: a merged block goes on under it

    def add(block):
        text.configure(state="normal")
        title = block.get("title") or TITLE
        if block.get("merge") and last["title"] == title:
            start = text.index("end-1c")
        else:
            if text.index("end-1c") != "1.0":
                text.insert("end", "\n")
            start = text.index("end-1c")
            head = f" {title}   {block.get('time') or ''} "
            text.insert("end", head + "\n", ("head",))
        last["title"] = title
        text.insert("end", str(block.get("text") or "").rstrip("\n") + "\n")
        text.configure(state="disabled")
        text.yview(start)  # the block's first line at the top, the table heads with it
        if block.get("page"):
            page["path"] = block["page"]
            page_button.configure(state="normal")
        root.title(f"{TITLE}: {block.get('title') or ''}".rstrip(": "))
        root.deiconify()
        root.lift()

    followed = {}  # a file another process writes (bdb.watch's log) -> [its title, bytes already shown]

    def poll():
        try:
            while True:
                block = blocks.get_nowait()
                if block is None:
                    continue
                if block.get("follow"):
                    followed.setdefault(block["follow"], [block.get("title") or TITLE, 0])
                    if not str(block.get("text") or "").strip():
                        continue
                add(block)
        except queue.Empty:
            pass
        for path, state in followed.items():
            lines = new_lines(path, state)
            if lines:
                add({"title": state[0], "text": lines, "time": time.strftime("%H:%M:%S")})
        root.after(100, poll)

    poll()
    root.mainloop()


if __name__ == "__main__":
    main()
