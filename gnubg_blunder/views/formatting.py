"""The old name of :mod:`gnubg_blunder.formatting` (the number formats and
tables, now below the views so that the study tools and the command kit use
them without importing a view), kept for plugins that import it from here:
the same module under both names."""

import sys

from .. import formatting

sys.modules[__name__] = formatting
