"""The one error hierarchy (docs/architecture.md, "Errors").

Every error the program shows the user in one line derives from
:class:`BlunderError`: it carries the user's message (``str(exc)``) and the
exit code the command line ends with.  The top level (``cli.main`` and the
gnubg console's command runner) translates them once; nothing below it turns
one error into another by its text.

The package's other exception classes derive from these (a class also caught
as, e.g., ``ValueError`` keeps that base beside): an error that is the user's
mistake is a :class:`UserError` itself rather than translated into one
(``tests/test_errors_hierarchy.py``).

This module is at the bottom of the layers: it imports nothing of the package.
"""

from __future__ import annotations

from typing import Optional


class BlunderError(Exception):
    """An error meant for the user: one line, no traceback, ``exit_code``."""

    exit_code: int = 1


class UserError(BlunderError):
    """A mistake of the user's (bad option, missing file): one line, no traceback."""

    exit_code = 2  # what commands.run returns for one (bad usage)


class StoreError(BlunderError):
    """The database cannot be used (one line for the user).

    ``kind`` classifies it without reading its text: one of
    :data:`STORE_ERROR_KINDS`, or None where no kind applies."""

    kind: Optional[str] = None

    def __init__(self, *args, kind: Optional[str] = None):
        super().__init__(*args)
        if kind is not None:
            self.kind = kind


# The kinds of a database error, as the store classifies them (by the
# driver's error code, never by message text).
STORE_ERROR_KINDS = (
    "busy",          # another program holds the lock past the busy timeout
    "full",          # the disk (or the file's quota) is full
    "read-only",     # the file or its folder cannot be written
    "damaged",       # malformed, or not a database
    "newer-schema",  # written by a newer version of the program
    "connection-lost",  # the server went away mid-run
    "unique",        # a unique constraint was violated
)


class ConnectionLost(StoreError):
    """The connection to the database server is gone in the middle of a
    run: the rest of the run is not tried (docs/reliability.md)."""

    kind = "connection-lost"
