"""gnubg-blunder: statistics across every analysed backgammon match.

Data flows one way: source (gnubg live match, SGF, XG) -> importer ->
decision model -> store -> metrics (pure functions over decision arrays) ->
views.  See docs/architecture.md.
"""

import os as _os

__version__ = "0.1.0"

# numpy asks Linux for transparent huge pages for each array of 4 MB or more (madvise); over
# 10,000 matches a view makes hundreds of such arrays, and the kernel's zeroing and compacting
# of huge pages cost 1-3 s of system time a report, up to 2 s a `stats` at random
# (benchmarks/README.md, issue 29).  Off, unless the user says otherwise; read when numpy is
# imported, so set here, before any module imports it.
_os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
