"""The progress of long work (``import`` of many files, ``analyse``).

On a terminal, a bar on standard error (tqdm: the count, the rate and the
time left), the per-file lines written above it.  When standard error is
not a terminal (a log, a pipe, the tests), and inside gnubg (its console
may be the GUI's), no bar: a plain line at most every
:data:`PLAIN_EVERY` seconds with the same figures, and nothing for a batch
done sooner.  The per-file lines and the closing summary are the command's
own output, whatever the progress shows.  docs/progress.md.
"""

from __future__ import annotations

import os
import time
from typing import Optional

from .lazy import lazy

_tqdm = lazy("tqdm")

PLAIN_EVERY = 10.0  # seconds between two plain progress lines
PLAIN_FORMAT = "{desc}: {n_fmt}/{total_fmt} %s, {rate_noinv_fmt}, {elapsed} elapsed, about {remaining} left"


def is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


class Progress:
    """``total`` files of ``what`` (``import``, ``analyse``) for a command's
    :class:`~gnubg_blunder.commands.Context`.  Use as a context manager:
    :meth:`print` and :meth:`error` write a file's line (above the bar),
    :meth:`advance` counts a file done, :meth:`detail` says where the work
    within the current file is (gnubg's "move 88/203")."""

    def __init__(self, ctx, total: int, what: str, bar_from: int = 2, unit: str = "file"):
        self.ctx = ctx
        self.unit = unit  # what is counted: "file", or "decision" (verify)
        self.total = total
        self.what = what
        self.n = 0
        self.start = time.monotonic()
        self.last_plain = self.start
        self._detail = ""
        self.bar = None
        if total >= bar_from and not getattr(ctx, "inside_gnubg", False) and is_terminal(ctx.err):
            # the terminal's size, followed; a terminal that gives none (the pty of `script -c`): 80 × 24
            # (tqdm hides a bar below a terminal's last row: 0 rows would hide it)
            sized = _columns(ctx.err) > 0
            self.bar = _tqdm.tqdm(total=total, desc=what, unit=unit, file=ctx.err, dynamic_ncols=sized,
                            ncols=None if sized else 80, nrows=None if sized else 24, mininterval=0.2, leave=True)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    # -- the command's own lines ------------------------------------------------

    def _write(self, write, line: str) -> None:
        if self.bar is None:
            write(line)
            return
        with self.bar.external_write_mode(file=self.ctx.err):  # the bar cleared, the line, the bar again
            write(line)
            flush = getattr(self.ctx.out, "flush", None)
            if flush:
                flush()

    def print(self, line: str) -> None:
        self._write(self.ctx.print, line)

    def error(self, line: str) -> None:
        self._write(self.ctx.error, line)

    # -- progress ---------------------------------------------------------------

    def advance(self, n: int = 1) -> None:
        self.n += n
        self._detail = ""
        if self.bar is not None:
            self.bar.set_postfix_str("", refresh=False)
            self.bar.update(n)
        else:
            self._plain()

    def detail(self, text: str) -> None:
        """Where the current file is (shown after the figures)."""
        self._detail = text
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        else:
            self._plain()

    def line(self) -> str:
        """The plain line of now: ``import: 120/1000 files, 3.52 files/s,
        00:34 elapsed, about 04:10 left``, and the current file's detail."""
        text = _tqdm.tqdm.format_meter(self.n, self.total, time.monotonic() - self.start, prefix=self.what,
                                 unit=f" {self.unit}s", bar_format=PLAIN_FORMAT % f"{self.unit}s")
        text = " ".join(text.split())
        return text + (f"; {self._detail}" if self._detail else "")

    def _plain(self, now: Optional[float] = None) -> None:
        now = time.monotonic() if now is None else now
        if self.total < 2 and not self._detail or now - self.last_plain < PLAIN_EVERY or self.n >= self.total:
            return
        self.last_plain = now
        # inside gnubg, a line of its console (not an error: bdb adds no exit-status line for it)
        (self.ctx.print if getattr(self.ctx, "inside_gnubg", False) else self.ctx.error)(self.line())
