"""``gnubg-blunder watch FOLDER...``: every analysed match file saved,
copied or moved into the folders (sub-folders too) is stored, through the
same read and store steps as ``import`` (pipeline.py); docs/watch.md.

watchdog's Observer reports the file events (inotify on Linux, FSEvents,
ReadDirectoryChangesW); this module decides when a file is complete:

* a path is read once no event came for it during ``settle`` seconds and its
  size, mtime and inode are what they were at its last event;
* on Linux (inotify), a file still open by a writer is waited for (its open
  and close events are counted), up to :data:`OPEN_WAIT` seconds of quiet;
* a file that changed while it was read is read again after its next quiet
  period; one that fails to read while unchanged is refused, and tried
  again when it changes (saved again);
* a path whose (size, mtime, inode) was handled in this run is not read again.

Matches already in the store are no-ops there (match identity), so a restart
stores nothing again.
"""

from __future__ import annotations

import os
import queue
import signal
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

from .errors import BlunderError
from .commands import UserError
from .plugins import importers
from .text import safe_text
from .importers.files import shown_path
from .importers.records import NoAnalysis
from .importers.transcript import TRANSCRIPT_SUFFIXES
from .pipeline import analyse_command, analyse_first, read_failure, read_match_file, store_error, store_matches
from .store import ALREADY_STORED, ANALYSIS_ADDED, ConnectionLost, EXTENDED, STORED, StoreError

DEFAULT_SETTLE = 1.0
# A file counted as open (inotify) with no change for this long is read all
# the same: an open or close event lost (the kernel's queue overflowed, the
# file was opened before the watch began) must not hold a file for ever.
OPEN_WAIT = 60.0
# A file the database refused for a while (locked by another writer) is tried again after this.
LOCKED_RETRY = 10.0
# The longest sleep of the loop: it then checks that the observer still runs.
HEARTBEAT = 5.0
# After SIGINT/SIGTERM the watch ends within this: what Python cannot
# interrupt (SQLite waiting up to its busy timeout for another program's
# lock, one long statement) is left by exiting at once, which SQLite's
# transactions make safe (docs/watch.md).
STOP_GRACE = 0.5
# How long the end waits for watchdog's threads to stop (daemon threads: one
# still running then ends with the process; watchdog 7 stops them at once).
OBSERVER_JOIN = 0.5


class _Stop(BaseException):
    """SIGINT or SIGTERM: end the watch wherever it is.  Not an Exception,
    so that no ``except Exception`` (a file's failure) takes it; a match
    being stored is rolled back (``add_match``) and read at the next start."""


class _DatabaseLost(BlunderError):
    """The PostgreSQL connection lost while a file was stored: its line
    said, the watch ends (exit 1), the files waiting are not tried."""


@dataclass
class _Pending:
    last_event: float  # time.monotonic() of the path's last event
    sig: Optional[tuple]  # file_sig() at that event
    startup: bool = False  # found by the start-up scan, not by an event
    due: float = 0.0


def file_sig(path) -> Optional[tuple]:
    """(size, mtime in ns, device, inode) of a regular file, or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino


def _signalled(wakeup_fd: int) -> bool:
    """Wait on the pipe Python writes each signal's number to as it arrives
    (``signal.set_wakeup_fd``): True once SIGINT or SIGTERM came, False when
    the pipe closed (the watch ended by itself)."""
    stopping = {int(signal.SIGINT), int(signal.SIGTERM)}
    while True:
        got = os.read(wakeup_fd, 64)
        if not got:
            return False
        if stopping & set(got):
            return True


def analyse_howto(path, ctx) -> str:
    """What to do with a gnubg file that holds no analysis, for a file the
    watcher refused: analyse it and save it into the folder again."""
    if Path(path).suffix.lower() == ".sgf":
        return (f"in gnubg, Analyse → Analyse match or session, then File → Save... into the folder again; "
                f"or `{analyse_command(ctx, [path])}`")
    return "analyse it in the program that wrote it, then save it into the folder again"


class Watcher:
    """The watch of some folders, run by :meth:`run` until SIGINT/SIGTERM."""

    def __init__(self, ctx, folders, settle: float = DEFAULT_SETTLE):
        self.ctx = ctx
        self.settle = settle
        self.roots = [os.path.abspath(f) for f in folders]
        self.table = importers()
        self.suffixes = set(self.table) | set(TRANSCRIPT_SUFFIXES)  # match transcripts: refused, with where they go
        self.events: queue.Queue = queue.Queue()
        self.pending: dict = {}  # path -> _Pending
        self.handled: dict = {}  # path -> file_sig it was handled at
        self.open_count: dict = {}  # path -> opens not yet closed (inotify)
        self.counts = {"stored": 0, "extended": 0, "analysis added": 0, "already stored": 0, "refused": 0}
        self.startup = {"stored": 0, "extended": 0, "analysis added": 0, "already stored": 0, "refused": 0}
        self.not_stored = 0  # the file being stored when the database's connection was lost
        self.not_tried = 0  # the files waiting then
        self.startup_said = False
        self.running = False  # from the first line to the end: a signal ends the watch at once
        self.stop_signal = None
        self.finished = threading.Event()  # the summary said: nothing left to do
        self.summary_lock = threading.Lock()
        self.summary_said = False

    # -- output ---------------------------------------------------------------

    def say(self, line: str) -> None:
        print(line, file=self.ctx.out, flush=True)  # a line at once: a journal, a pipe

    def warn(self, line: str) -> None:
        print(line, file=self.ctx.err, flush=True)

    # -- which paths ----------------------------------------------------------

    def watched(self, path: str) -> bool:
        """A match file's name under one of the folders: a known suffix,
        not hidden (nor in a hidden sub-folder), not a backup or temporary
        name (``~``, ``#``, ``.part``: the suffix is not a match's)."""
        name = os.path.basename(path)
        if not name or name.startswith((".", "~", "#")):
            return False
        return Path(name).suffix.lower() in self.suffixes and self.watched_folder(os.path.dirname(path))

    def watched_folder(self, folder: str) -> bool:
        """A folder under one of the roots, not hidden nor in a hidden one."""
        for root in self.roots:
            if folder == root:
                return True
            if folder.startswith(root.rstrip(os.sep) + os.sep):
                return not any(part.startswith(".") for part in Path(os.path.relpath(folder, root)).parts)
        return False

    def scan(self, folder: str, startup: bool = False) -> None:
        """Every match file under ``folder`` (symbolic links to folders not
        followed, as the observer does not follow them), marked pending."""
        now = time.monotonic()
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                path = os.path.join(root, name)
                if not self.watched(path):
                    continue
                sig = file_sig(path)
                if sig is None:
                    continue
                if startup:
                    # quiet for the settle time already (by its mtime): read at once
                    age = time.time() - sig[1] / 1e9
                    last = now - self.settle if age >= self.settle else now
                    self.pending[path] = _Pending(last, sig, startup=True, due=last + self.settle)
                else:
                    self.touch(path, now)

    # -- events ---------------------------------------------------------------

    def touch(self, path: str, now: float) -> None:
        """An event that may have changed the file: its quiet time starts again."""
        if not self.watched(path):
            return
        self.pending[path] = _Pending(now, file_sig(path), due=now + self.settle)

    def forget(self, path: str, folder: bool = False) -> None:
        for table in (self.pending, self.handled, self.open_count):
            if folder:
                prefix = path.rstrip(os.sep) + os.sep
                for p in [p for p in table if p.startswith(prefix)]:
                    del table[p]
            else:
                table.pop(path, None)

    def note(self, when: float, event) -> None:
        """One watchdog event (in this thread, in the order they came)."""
        kind = event.event_type
        src = os.fsdecode(event.src_path) if event.src_path else ""
        if event.is_directory:
            if kind in ("created", "moved"):
                dest = os.fsdecode(event.dest_path) if kind == "moved" else src
                if kind == "moved" and src:
                    self.forget(src, folder=True)
                if dest and os.path.isdir(dest) and self.watched_folder(dest):
                    self.scan(dest)  # a folder moved or copied in: its files (the observer may say them too)
            elif kind == "deleted":
                self.forget(src, folder=True)
                if src in self.roots:
                    self.warn(f"{src}: error: the watched folder was removed: its files are no longer watched")
            return
        if kind == "moved":
            self.forget(src)
            self.touch(os.fsdecode(event.dest_path), when)
        elif kind == "deleted":
            self.forget(src)
        elif kind == "opened":
            if self.watched(src):
                self.open_count[src] = self.open_count.get(src, 0) + 1
        elif kind in ("closed", "closed_no_write"):
            if src in self.open_count:
                self.open_count[src] -= 1
                if self.open_count[src] <= 0:
                    del self.open_count[src]
            if kind == "closed":
                self.touch(src, when)
        else:  # created, modified, attrib (touch, a copy keeping mtimes)
            self.touch(src, when)

    # -- the loop -------------------------------------------------------------

    def due_paths(self, now: float) -> list:
        """Pending paths to read now, oldest first; the others are put off
        to when they may be (a changed file, one still open for writing)."""
        ready = []
        for path, p in sorted(self.pending.items(), key=lambda kv: kv[1].due):
            if p.due > now:
                continue
            sig = file_sig(path)
            if sig is None:  # gone, or not a regular file any more
                if os.path.lexists(path) and not os.path.isdir(path):
                    ready.append(path)  # a FIFO, a device named *.sgf: refused by the file check
                else:
                    del self.pending[path]
                continue
            if sig != p.sig:  # changed with no event seen (a polling observer, a network file system)
                p.sig, p.last_event, p.due = sig, now, now + self.settle
                continue
            if self.open_count.get(path, 0) > 0 and now - p.last_event < OPEN_WAIT:
                p.due = p.last_event + OPEN_WAIT  # its close (an event) comes first, most likely
                continue
            if self.handled.get(path) == sig:
                del self.pending[path]  # this very file was handled in this run
                continue
            ready.append(path)
        return ready

    def handle(self, path: str) -> None:
        """Read one quiet file and store its matches; its line printed."""
        p = self.pending.pop(path)
        sig = file_sig(path)
        label = shown_path(path)
        if Path(path).suffix.lower() not in self.table and not analyse_first(path, self.table):
            self.handled[path] = sig  # a .txt that is no match transcript: not a match file, ignored
            return
        try:
            matches = read_match_file(Path(path), self.table, self.ctx)
        except Exception as exc:
            if file_sig(path) != sig:
                self.touch(path, time.monotonic())  # written while read: read when quiet again
                return
            reason = read_failure(exc, path, self.ctx, again="save it again")  # an importer's bug too
            if isinstance(exc, NoAnalysis):
                reason += f"; {analyse_howto(path, self.ctx)}"
            self.refuse(label, reason, p.startup)
            self.handled[path] = sig
            return
        if file_sig(path) != sig:
            self.touch(path, time.monotonic())  # what was read may be a part: read again when quiet
            return
        try:
            stored = store_matches(self.ctx, matches)
        except (sqlite3.Error, StoreError) as exc:
            if isinstance(exc, ConnectionLost):  # as import: this file's line, the files waiting not tried
                reason, _ = store_error(exc, self.ctx, again="restart the watch")  # its start-up reads them all
                self.warn(f"{label}: error: not stored: {reason}")
                self.not_stored, self.not_tried = 1, len(self.pending)
                raise _DatabaseLost() from exc
            reason, per_file = store_error(exc, self.ctx, again=f"it is tried again in {LOCKED_RETRY:g} s")
            if not per_file:
                raise  # the database cannot be used: the watch ends (commands.run says why)
            self.warn(f"{label}: not stored yet: {reason}")
            now = time.monotonic()
            self.pending[path] = _Pending(now, sig, p.startup, due=now + LOCKED_RETRY)
            return
        except Exception as exc:  # one match the store step cannot take: said, and the watch goes on
            self.refuse(label, f"not stored ({exc.__class__.__name__}: {exc})", p.startup)
            self.handled[path] = sig
            return
        statuses = {status for status, _line in stored}
        lines = [line for _status, line in stored]
        status = next((s for s in (STORED, EXTENDED, ANALYSIS_ADDED) if s in statuses), ALREADY_STORED)
        self.counts[status] += 1
        if p.startup:
            self.startup[status] += 1
        if not (p.startup and status == ALREADY_STORED):  # start-up: the already stored are summed up
            self.say(f"{label}: " + "; ".join(lines))
        self.handled[path] = sig

    def refuse(self, label: str, reason: str, startup: bool) -> None:
        reason = safe_text(reason, None)  # what the file gave, escaped: no line forged, no terminal cleared
        self.counts["refused"] += 1
        if startup:
            self.startup["refused"] += 1
        self.warn(f"{label}: refused: {reason}")

    def startup_line(self) -> None:
        s = self.startup
        n = sum(s.values())
        self.say(f"start-up: {n} match file{'s' if n != 1 else ''} already in the folder"
                 f"{'s' if len(self.roots) > 1 else ''}: {s['stored']} stored, "
                 + (f"{s['extended']} extended, " if s["extended"] else "")
                 + f"{s['analysis added']} analyses added, "
                 f"{s['already stored']} already stored, {s['refused']} refused; watching for new files")

    def summary(self) -> str:
        c = self.counts
        return (f"watch stopped: {c['stored']} stored, "
                + (f"{c['extended']} extended, " if c["extended"] else "")
                + f"{c['analysis added']} analyses added, {c['already stored']} already stored, "
                f"{c['refused']} refused"
                + (f", {self.not_stored} not stored (the connection to the database was lost)" if self.not_stored else "")
                + (f", {self.not_tried} not tried (the database cannot be used)" if self.not_tried else ""))

    def say_summary(self, wait: float = -1) -> None:
        """The last line, said once: by the loop's end or by
        :meth:`_stop_anyway` (which waits ``wait`` seconds at most for the
        other to say it)."""
        if not self.summary_lock.acquire(timeout=wait):
            return
        try:
            if not self.summary_said:
                self.summary_said = True
                self.say(self.summary())
        finally:
            self.summary_lock.release()

    def _signal(self, signum, frame):
        first = self.stop_signal is None
        self.stop_signal = signum
        if first and self.running:
            raise _Stop()  # out of the wait, the read or the store at once; a second signal changes nothing

    def _stop_anyway(self, wakeup_fd: int) -> None:
        """A thread: once SIGINT or SIGTERM has come, the watch has
        :data:`STOP_GRACE` to end; if it has not (the main thread inside
        SQLite, where Python's own handler waits for it), the counts are
        said and the process exits 0 at once: a transaction not committed
        is nothing to SQLite or PostgreSQL."""
        try:
            if _signalled(wakeup_fd) and not self.finished.wait(STOP_GRACE):
                self.say_summary(wait=STOP_GRACE)
                for stream in (self.ctx.out, self.ctx.err):
                    try:
                        stream.flush()
                    except (OSError, ValueError):
                        pass
                os._exit(0)
            while os.read(wakeup_fd, 64):  # the watch ended by itself: until it closes the pipe
                pass
        except OSError:
            pass
        os.close(wakeup_fd)

    def run(self) -> int:
        events = self.events

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):  # the observer's thread: handed to the loop as they come
                events.put((time.monotonic(), event))

        self.ctx.store()  # a database that cannot be used: said now, not at the first file
        where = ", ".join(self.roots)
        observer = Observer()
        try:
            for root in self.roots:
                observer.schedule(Handler(), root, recursive=True)
            observer.start()  # before the scan: a file written during it is an event
        except OSError as exc:  # inotify's limit of watches reached, a folder that cannot be read
            raise UserError(f"{where}: cannot watch: {exc.strerror or exc}") from None
        old = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                old[signum] = signal.signal(signum, self._signal)
            except ValueError:  # not the main thread: Ctrl-C stays KeyboardInterrupt
                pass
        wakeup = self._start_stop_anyway() if old else None
        status = 1  # an error ends the watch (commands.run says which), the counts said all the same
        try:
            self.running = True
            if self.stop_signal is not None:  # came while the observer started
                raise _Stop()
            self.say(f"watching {where} (sub-folders too; a file is read {self.settle:g} s after its last change); "
                     "Ctrl-C stops")
            for root in self.roots:
                self.scan(root, startup=True)
            status = self.loop(observer)
        except (_Stop, KeyboardInterrupt):
            status = 0
        except _DatabaseLost:
            status = 1
        finally:
            self.running = False
            for signum, handler in old.items():
                signal.signal(signum, handler)
            observer.stop()
            observer.join(timeout=OBSERVER_JOIN)
            self.say_summary()
            self.finished.set()
            if wakeup is not None:
                self._end_stop_anyway(*wakeup)
        return status

    def _start_stop_anyway(self):
        """Signals also written to a pipe that :meth:`_stop_anyway` reads:
        (the pipe's write end, the wakeup fd it replaced), or None where the
        system has none."""
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return None
        os.set_blocking(write_end, False)  # a signal handler never waits on the pipe
        try:
            previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        except (ValueError, OSError):
            os.close(read_end)
            os.close(write_end)
            return None
        threading.Thread(target=self._stop_anyway, args=(read_end,), name="watch-stop", daemon=True).start()
        return write_end, previous

    @staticmethod
    def _end_stop_anyway(write_end: int, previous: int) -> None:
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the thread reads the end of the pipe, closes its end and ends

    def loop(self, observer) -> int:
        """Read the files due, wait for events; the exit status."""
        while self.stop_signal is None:
            for path in self.due_paths(time.monotonic()):
                if path in self.pending:
                    self.handle(path)
                if self.stop_signal is not None:
                    return 0
            if not self.startup_said and not any(p.startup for p in self.pending.values()):
                self.startup_said = True
                self.startup_line()
            if not observer.is_alive():
                self.warn("error: watchdog's observer stopped: files are no longer watched")
                return 1
            now = time.monotonic()
            wait = min([p.due for p in self.pending.values()], default=now + HEARTBEAT) - now
            try:
                when, event = self.events.get(timeout=min(max(wait, 0.0), HEARTBEAT))
            except queue.Empty:
                continue
            self.note(when, event)
            while True:
                try:
                    when, event = self.events.get_nowait()
                except queue.Empty:
                    break
                self.note(when, event)
        return 0


def watch(ctx, folders, settle: float = DEFAULT_SETTLE) -> int:
    """Run the watch (the ``watch`` command)."""
    if ctx.inside_gnubg:
        raise UserError("watch never returns: run it in a terminal or as a service (docs/watch.md), not in gnubg")
    if not (0 < settle <= 3600):
        raise UserError(f"--settle {settle:g}: give a number of seconds above 0 (at most 3600)")
    for f in folders:
        if not os.path.isdir(f):
            what = "not a folder" if os.path.exists(f) else "no such folder"
            raise UserError(f"{shown_path(f)}: {what}")
    return Watcher(ctx, folders, settle).run()
