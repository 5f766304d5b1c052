"""The output window of ``bdb`` in gnubg's GUI (docs/gnubg.md, "Output in
gnubg's GUI").

Run by the system Python as a process of its own (gnubg_blunder/gnubg/
gui_output.py starts it): it reads one JSON object per line on its standard
input -- ``{"title", "text", "page", "time"}`` -- and appends each as a block
to a scrollable, selectable text, scrolled to the new block's start and
raised.  Standard library and Tk only (it imports nothing of gnubg-blunder),
so it starts in a fraction of a second.  The window stays open after gnubg
exits; Close (or Ctrl+W) ends it, and gnubg opens a new one with the next
output, the session's earlier blocks in it again (gui_output.py sends them).
Ctrl+A selects all, Ctrl+C copies the selection, Escape unselects.

Where it opens (:func:`placement`): at the screen's right edge, at most
40 % of the screen's width (over gnubg's right-hand panels, not its board),
its height within the screen; the buttons and the legend are packed first,
so a short window shrinks the text, never them.  Lines are never wrapped
(a table row stays one row): a horizontal scroll bar instead.
"""

import json
import queue
import sys
import threading
import webbrowser
from pathlib import Path

TITLE = "gnubg-blunder"
WIDTH, HEIGHT = 124, 40  # characters: the widest tables are ~120
WIDTH_SHARE = 0.40  # of the screen's width, at most
LEGEND = ("e: error in EMG against the best · ℓ: the MWC it lost (% points) · d: difficulty, what choosing "
          "softly at random costs · L7: MWC lost scaled to a 7-point match · excess: Σ(ℓ − d) · avoidable: "
          "an error with d ≤ ℓ/10")


def placement(screen_width: int, screen_height: int, wanted_width: int, wanted_height: int) -> tuple:
    """(width, height, x, y) of the window on open: the width it wants, at
    most 40 % of the screen's; the height it wants, within the screen (room
    kept for a title bar and a panel); against the screen's right edge."""
    width = max(200, min(int(wanted_width), int(screen_width * WIDTH_SHARE)))
    height = max(200, min(int(wanted_height), screen_height - 100))
    x = max(0, screen_width - width - 8)  # the window manager's border
    y = 40
    return width, height, x, y


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

    blocks = queue.Queue()
    threading.Thread(target=_read, args=(sys.stdin.buffer, blocks), daemon=True).start()

    def add(block):
        text.configure(state="normal")
        if text.index("end-1c") != "1.0":
            text.insert("end", "\n")
        start = text.index("end-1c")
        head = f" {block.get('title') or TITLE}   {block.get('time') or ''} "
        text.insert("end", head + "\n", ("head",))
        text.insert("end", str(block.get("text") or "").rstrip("\n") + "\n")
        text.configure(state="disabled")
        text.yview(start)  # the block's first line at the top, the table heads with it
        if block.get("page"):
            page["path"] = block["page"]
            page_button.configure(state="normal")
        root.title(f"{TITLE}: {block.get('title') or ''}".rstrip(": "))
        root.deiconify()
        root.lift()

    def poll():
        try:
            while True:
                block = blocks.get_nowait()
                if block is not None:
                    add(block)
        except queue.Empty:
            pass
        root.after(100, poll)

    poll()
    root.mainloop()


if __name__ == "__main__":
    main()
