"""The ``gnubg-blunder`` command."""

from __future__ import annotations

import os
import sys

from .commands import run


def main(argv=None) -> None:
    try:
        status = run(sys.argv[1:] if argv is None else list(argv))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)


if __name__ == "__main__":
    main()
