"""The ``gnubg-blunder`` command."""

from __future__ import annotations

import ctypes
import os
import sys

from .commands import run

# glibc's malloc gives a block of 128 KiB or more its own pages (mmap) and returns them when it is
# freed, raising that threshold to the largest such block freed so far (up to 32 MiB).  A view over
# 10,000 matches makes hundreds of arrays of 1-25 MB: each one given fresh pages faults them in
# again (system time: 0.2-0.35 s of a 1 s summary).  Until issue 29's fifth pass the selection read
# every bundle's blobs whole through SQLite (23 MB for the largest, freed at once), which raised the
# threshold as a side effect; now it reads the headers alone, so the command sets what that read
# used to leave: blocks under 24 MiB from the heap, and the heap's top kept up to 48 MiB
# (benchmarks/README.md, issue 29, "The fifth pass").  The user's MALLOC_* settings win; only the
# command's process (not gnubg's, which imports the package as a plugin).
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 24 << 20, 48 << 20


def _tune_malloc() -> None:
    if not sys.platform.startswith("linux") or any(
            k in os.environ for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    mallopt(m_mmap_threshold, _MMAP_THRESHOLD)
    mallopt(m_trim_threshold, _TRIM_THRESHOLD)


def main(argv=None) -> None:
    _tune_malloc()
    try:
        status = run(sys.argv[1:] if argv is None else list(argv))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)


if __name__ == "__main__":
    main()
