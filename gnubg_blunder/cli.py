"""The ``gnubg-blunder`` command."""

from __future__ import annotations

import sys

from .commands import run


def main(argv=None) -> None:
    sys.exit(run(sys.argv[1:] if argv is None else list(argv)))


if __name__ == "__main__":
    main()
