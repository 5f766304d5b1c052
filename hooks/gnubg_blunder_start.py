"""gnubg-blunder's start-up hook: GNU Backgammon runs this file at start.

``gnubg-blunder install-gnubg`` copies it to ``~/.gnubg/`` and adds the line
``load python ~/.gnubg/gnubg_blunder_start.py`` to ``~/.gnubg/gnubgrc``.  It
puts the environment where gnubg-blunder is installed on the path of gnubg's
embedded Python (the folders listed in ``~/.gnubg/gnubg_blunder_paths.txt``)
and defines ``bdb`` at gnubg's Python prompt: ``>bdb.analyse()``.
"""


def _gnubg_blunder_start():
    import os
    import site
    import sys

    paths = os.path.join(os.path.expanduser("~"), ".gnubg", "gnubg_blunder_paths.txt")
    if os.path.exists(paths):
        with open(paths, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#") and line not in sys.path:
                    site.addsitedir(line)
    try:
        from gnubg_blunder.gnubg.console import Bdb
    except Exception as exc:  # the hook must never stop gnubg from starting
        message = ("gnubg-blunder: not loaded (%s: %s); run `gnubg-blunder install-gnubg` again"
                   % (exc.__class__.__name__, exc))
        print(message)
        _say_in_gui(message)
        return None
    loaded = 'gnubg-blunder loaded: >bdb.analyse()  >bdb.store()  >bdb.quiz()  >bdb("stats")  >print(repr(bdb))'
    try:  # in the GUI the line is in the output window too, and a Python mistake typed at ">" and what
        # a ">" line prints as well
        from gnubg_blunder.gnubg import gui_output

        gui_output.install_prompt_hooks()
        gui_output.say("gnubg-blunder", loaded, browser=False)
    except Exception:
        print(loaded)
    return Bdb()


def _say_in_gui(message):
    """In gnubg's GUI nobody reads the standard output: the one line also
    in a Tk message box (the system Python, a process of its own; gnubg does
    not wait for it).  Best effort: without a display or Tk, the line above."""
    import os
    import subprocess
    import sys

    try:
        argv = [a.decode("utf-8", "replace") for a in open("/proc/self/cmdline", "rb").read().split(b"\0") if a]
    except OSError:
        return
    # -c FILE runs its commands and then draws the GUI: not text-only
    text_only = any(a in ("-t", "--tty") or a.startswith(("--python", "--tty"))
                    or (a[:1] == "-" and a[1:2] != "-" and a[1:2] in ("t", "p")) for a in argv[1:])
    if text_only or not os.environ.get("DISPLAY"):
        return
    python = os.path.join(sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
    code = ("import sys, tkinter; from tkinter import messagebox; root = tkinter.Tk(); root.withdraw(); "
            "messagebox.showerror('gnubg-blunder', sys.argv[1])")
    try:
        subprocess.Popen([python, "-I", "-c", code, message], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass


bdb = _gnubg_blunder_start()
