"""The old name of :mod:`gnubg_blunder.arrays` (the decisions as arrays,
now below the store that makes them and the metrics that read them), kept
for plugins that import it from here: the same module under both names."""

import sys

from .. import arrays

sys.modules[__name__] = arrays
