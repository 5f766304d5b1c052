"""Screenshots of gnubg's GUI with the plugin, as a player sees it (issue
26): Xvfb with a window manager (openbox), gnubg driven by xdotool, at
1366×768 (gnubg maximised) and 1920×1080 (gnubg at its own size):
after ``>bdb.analyse(plies=0)``, during a three-question ``>bdb.quiz()``,
after it (the loaded match back) and with a Python mistake typed.

    .venv/bin/python tests/tools/gui_screenshots.py [OUT_FOLDER]

writes gui-{analyse,quiz,after-quiz,mistake}-WxH.png (default docs/images)
and prints the output window's and gnubg's geometry."""

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
    wm = subprocess.Popen(["openbox"], env=screen.env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    gnubg = None
    tag = f"{size[0]}x{size[1]}"
    try:
        gnubg = gui_session.GnubgGui(screen, env, cwd=tmp)
        if maximise:
            screen.run("xdotool", "windowmove", str(gnubg.main), "0", "0", check=False)
            screen.run("xdotool", "windowsize", str(gnubg.main), "100%", "100%", check=False)
            time.sleep(1.5)
        open_command_panel(screen, gnubg, tmp / "probe.txt")

        def window():
            return next(iter(screen.windows("^gnubg-blunder", visible=True)), None)

        gnubg.command(f'import mat "{MAT}"')
        time.sleep(3)
        gnubg.dismiss_messages()
        gnubg.command(">bdb.analyse(plies=0)")
        gui_session.wait_for(lambda: (home / ".gnubg" / "gnubg-blunder" / "match-1.html").exists(), timeout=180,
                             what="the match page")
        time.sleep(3)
        shot = out / f"gui-analyse-{tag}.png"
        screen.screenshot(shot)
        wid = window()
        print(tag, "gnubg", screen.geometry(gnubg.main), "window", wid and screen.geometry(wid))
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
        print(tag, "dialogs at the end:", len(screen.windows("^GNU Backgammon - ")))
    finally:
        if gnubg is not None:
            gnubg.close()
        wm.terminate()
        for pid in subprocess.run(["pgrep", "-f", str(HERE.parent / "gnubg_blunder" / "gnubg" / "output_window.py")],
                                  capture_output=True, text=True).stdout.split():
            try:
                if f"DISPLAY={screen.display}\0" in Path(f"/proc/{pid}/environ").read_bytes().decode("latin-1"):
                    os.kill(int(pid), 15)
            except OSError:
                pass
        screen.close()


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else HERE.parent / "docs" / "images")
    sizes = sys.argv[2:] or ["1366x768", "1920x1080"]
    for size in sizes:  # 1366×768 with gnubg maximised, the others at gnubg's own size
        w, h = (int(v) for v in size.split("x"))
        session((w, h), (w, h) == (1366, 768), out)
