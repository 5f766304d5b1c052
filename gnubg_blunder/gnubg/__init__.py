"""Everything that talks to GNU Backgammon itself.

- :mod:`.process`: find gnubg and run it headless (commands or a Python
  script in its embedded interpreter);
- :mod:`.batch`: ``gnubg-blunder analyse``: gnubg imports and analyses
  files, the analysed matches are stored;
- :mod:`.install`: ``gnubg-blunder install-gnubg``: gnubg loads the plugin
  at start-up;
- :mod:`.console`: ``bdb``, the plugin at gnubg's Python prompt (imported
  by the start-up hook, ``data/gnubg_blunder_start.py``).

Nothing here is imported by the package's other modules at import time, so
that the command line starts without it.
"""
