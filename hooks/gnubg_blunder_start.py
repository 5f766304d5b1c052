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
        print("gnubg-blunder: not loaded (%s: %s); run `gnubg-blunder install-gnubg` again"
              % (exc.__class__.__name__, exc))
        return None
    print('gnubg-blunder loaded: >bdb.analyse()  >bdb.store()  >bdb("stats")')
    return Bdb()


bdb = _gnubg_blunder_start()
