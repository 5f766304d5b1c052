"""Screenshots of gnubg's GUI with the plugin, as a player sees it (issue
26), and the share of gnubg's board the output window covers on open:
Xvfb with a window manager (openbox), gnubg driven by xdotool, at 1366×768
and 1920×1080, gnubg maximised (openbox's rule for its main window) and at
its own default size: after ``>bdb.analyse(plies=0)``, during a
three-question ``>bdb.quiz()``, after it (the loaded match back) and with a
Python mistake typed.

    .venv/bin/python tests/tools/gui_screenshots.py [OUT_FOLDER [WxH[-maximised] ...]]

writes gui-{analyse,quiz,after-quiz,mistake,after-click}-WxH[-maximised].png
(default docs/images) and prints, for each screen, gnubg's window, the board's
rectangle (found in a screenshot taken with the output window unmapped:
gui_session.board_rectangle), the output window's (with its frame) and the
share of the board it covers (gui_session.covered_share)."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import gui_session  # noqa: E402
from conftest import DATA, run_cli  # noqa: E402

MAT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def open_command_panel(screen, gnubg, probe: Path):
    """View → Panels → Command, then its entry found by a probe line (the
    window manager's frame moves it from where gui_session looks)."""
    screen.run("xdotool", "windowactivate", "--sync", str(gnubg.main), check=False)
    screen.keys("alt+v")
    time.sleep(0.5)
    screen.keys("p", "c", "c", "Return")
    time.sleep(1.5)
    x, y, width, height = screen.geometry(gnubg.main)

    def command(line):
        screen.run("xdotool", "windowactivate", "--sync", str(gnubg.main), check=False)
        screen.click(*gnubg.entry)
        time.sleep(0.4)
        screen.type(line)
        screen.keys("Return")

    gnubg.command = command
    for dy in (42, 38, 46, 50, 34, 30, 55):
        for dx in (266, 230, 300):
            gnubg.entry = (x + width - dx, y + height - dy)
            command(f">open({str(probe)!r}, 'w').write('ok')")
            time.sleep(1.0)
            if probe.exists():
                return
    raise AssertionError(f"the Command panel's entry was not found: {screen.screenshot(probe.with_suffix('.png'))}")


def openbox_config(folder: Path, maximise: bool) -> Path:
    """openbox's own configuration, with (maximise) a rule maximising
    gnubg's main window when it opens, as a player's maximised gnubg."""
    text = Path("/etc/xdg/openbox/rc.xml").read_text(encoding="utf-8")
    if maximise:
        text = text.replace("<applications>", '<applications><application title="GNU Backgammon" type="normal">'
                            "<maximized>yes</maximized></application>", 1)
    path = folder / "openbox-rc.xml"
    path.write_text(text, encoding="utf-8")
    return path


def cover(screen, gnubg, wid) -> dict:
    """gnubg's window, its board's rectangle and the output window's: the share covered."""
    with screen.unmapped(wid):
        pixels = screen.pixels()
    main = screen.frame(gnubg.main)
    board = gui_session.board_rectangle(pixels, main)
    window = screen.frame(wid)
    return {"gnubg": main, "board": board, "window": window,
            "covered": gui_session.covered_share(board, window)}


def session(size, maximise, out: Path):
    gui_session.SCREEN = f"{size[0]}x{size[1]}x24"
    tmp = Path(tempfile.mkdtemp(prefix="gui-shots-"))
    home = tmp / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1", BROWSER="true")
    for name in ("GNUBG_BLUNDER_DB", "XDG_DATA_HOME", "GNUBG_BLUNDER_OUTPUT"):
        env.pop(name, None)
    run_cli("install-gnubg", env=env)
    screen = gui_session.VirtualScreen()
    wm = subprocess.Popen(["openbox", "--config-file", str(openbox_config(tmp, maximise))], env=screen.env(env),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    gnubg = None
    tag = f"{size[0]}x{size[1]}" + ("-maximised" if maximise else "")
    started = measured = {}
    try:
        gnubg = gui_session.GnubgGui(screen, env, cwd=tmp)

        def window():
            return next(iter(screen.windows("^gnubg-blunder", visible=True)), None)

        # on open: the start-up line's window over gnubg as it starts (a new user: no panel shown)
        started = cover(screen, gnubg, gui_session.wait_for(window, timeout=30, what="the output window"))
        print(tag, "at start:", " ".join(f"{k} {v}" for k, v in started.items()),
              f"covered {started['covered']:.1%}", flush=True)
        if os.environ.get("GUI_SHOTS_TREE"):
            print(screen.run("xwininfo", "-tree", "-id", str(gnubg.main), check=False))
        open_command_panel(screen, gnubg, tmp / "probe.txt")

        gnubg.command(f'import mat "{MAT}"')
        time.sleep(3)
        gnubg.dismiss_messages()
        gnubg.command(">bdb.analyse(plies=0)")
        gui_session.wait_for(lambda: (home / ".gnubg" / "gnubg-blunder" / "match-1.html").exists(), timeout=180,
                             what="the match page")
        time.sleep(3)
        shot = out / f"gui-analyse-{tag}.png"
        screen.screenshot(shot)
        measured = cover(screen, gnubg, window())
        print(tag, "with the Command panel:", " ".join(f"{k} {v}" for k, v in measured.items()),
              f"covered {measured['covered']:.1%}",
              flush=True)
        gnubg.command('>bdb.quiz("--player charlot1 --all-decisions --count 3 --seed 1")')
        time.sleep(5)
        dialogs = screen.windows("^GNU Backgammon - ")
        print(tag, "gnubg dialogs during the quiz:", len(dialogs))
        screen.screenshot(out / f"gui-quiz-{tag}.png")
        gnubg.command('>bdb.answer("q")')
        time.sleep(5)
        screen.screenshot(out / f"gui-after-quiz-{tag}.png")
        gnubg.command(">bdb.analyze()")
        time.sleep(4)
        screen.screenshot(out / f"gui-mistake-{tag}.png")
        # a click on gnubg's board (gnubg activated, raised): the output window stays above it
        bx, by, bw, bh = measured["board"]
        screen.run("xdotool", "windowactivate", "--sync", str(gnubg.main), check=False)
        screen.click(bx + bw // 3, by + bh // 2)
        time.sleep(1.5)
        stacking = screen.run("xprop", "-root", "_NET_CLIENT_LIST_STACKING", check=False).split("#")[-1]
        order = [int(w, 16) for w in stacking.replace(",", " ").split()]  # bottom to top (the window manager's)
        shown = window()
        above = shown in order and gnubg.main in order and order.index(shown) > order.index(gnubg.main)
        print(tag, "the output window above gnubg after a click on its board:", above, flush=True)
        screen.screenshot(out / f"gui-after-click-{tag}.png")
        print(tag, "dialogs at the end:", len(screen.windows("^GNU Backgammon - ")))
    finally:
        if gnubg is not None:
            gnubg.close()
        wm.terminate()
        gui_session.end_processes_on(screen, "output_window.py")
        screen.close()
    return started, measured


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else HERE.parent / "docs" / "images")
    sizes = sys.argv[2:] or ["1366x768", "1366x768-maximised", "1920x1080", "1920x1080-maximised"]
    for size in sizes:
        w, h = (int(v) for v in size.split("-")[0].split("x"))
        session((w, h), size.endswith("-maximised"), out)
