"""Files -> importer -> store -> post-analysis actions.

The path every match takes, whether it comes from ``gnubg-blunder import``,
``bdb("import ...")``, ``gnubg-blunder analyse`` or ``bdb.store()``.
"""

from __future__ import annotations

import errno
import gc
import inspect
import os
import shlex
import sqlite3
import stat
import sys
from pathlib import Path

from .errors import BlunderError
from .importers.files import NotAMatchFile, check_match_file, os_reason, shown_path
from .importers.transcript import TRANSCRIPT_SUFFIXES, is_transcript
from .plugins import get_plugin_manager, importers
from .progress import Progress
from .text import safe_text
from .lazy import lazy

_concurrent = lazy("concurrent")
_importers_records = lazy("gnubg_blunder.importers.records")
_multiprocessing = lazy("multiprocessing")
_run_files = lazy("gnubg_blunder.run_files")
_store = lazy("gnubg_blunder.store")
_store_connection = lazy("gnubg_blunder.store.connection")
_store_damage = lazy("gnubg_blunder.store.damage")
_store_error_kinds = lazy("gnubg_blunder.store.error_kinds")

# The store (numpy) and the importers' records are lazy entries, imported where
# a match is stored or read: ``import --help`` builds its text here without them.


def _is_dir(path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False  # a missing file, a loop, ...: the file check says what it is


def _folder_files(folder, suffixes, unreadable: list) -> list:
    """The files of ``folder`` with one of ``suffixes``, sub-folders too,
    sorted; symbolic links to folders are followed, each folder read once
    (a link back to a folder met before is a loop: not followed again).
    Folders that cannot be read are added to ``unreadable`` as
    (folder, reason)."""
    seen = set()
    try:
        st = os.stat(folder)
        seen.add((st.st_dev, st.st_ino))
    except OSError:
        pass

    def onerror(exc: OSError):
        reason = "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else (exc.strerror or str(exc))
        unreadable.append((Path(exc.filename) if exc.filename else Path(folder), f"cannot read the folder: {reason}"))

    found = []
    for root, dirs, names in os.walk(folder, onerror=onerror, followlinks=True):
        keep = []
        # real folders before links to them: a folder met twice is read under its own name
        for d in sorted(dirs, key=lambda d: (os.path.islink(os.path.join(root, d)), d)):
            try:
                st = os.stat(os.path.join(root, d))
            except OSError:
                keep.append(d)  # os.walk reports it
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                keep.append(d)
        dirs[:] = sorted(keep)
        found.append((root, sorted(n for n in names if Path(n).suffix.lower() in suffixes)))
    return [Path(root) / n for root, ns in sorted(found) for n in ns]


def expand_paths(paths, suffixes, unreadable=None) -> list:
    """Files given, and the files of folders given with one of ``suffixes``
    (recursively, sorted; symbolic links to folders followed once).  A path
    that does not exist is reported by the caller; folders that cannot be
    read are added to ``unreadable`` (a list of (folder, reason))."""
    out = []
    unreadable = [] if unreadable is None else unreadable
    for p in paths:
        path = Path(p)
        if _is_dir(path):
            out += _folder_files(path, suffixes, unreadable)
        else:
            out.append(path)
    return out


class gc_paused:
    """Python's garbage collector off for a store, then as it was (nested:
    only the outermost turns it back on).  A store makes tens of thousands of
    objects that live until its end: the collector's passes over them cost
    the live store 142 ms against 79 ms over 24 matches (issue 29), and
    find nothing to free; what the store leaves is collected afterwards."""

    def __enter__(self):
        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        if self.was_enabled:
            gc.enable()
        return False


def store_match(ctx, match):
    """Store one match and run the post-analysis hooks for something new."""
    with gc_paused():
        pm = get_plugin_manager()
        store = ctx.store()
        result = pm.hook.store_match(store=store, match=match)
        if result.status != _store.ALREADY_STORED:
            pm.hook.post_analysis(store=store, match=match, result=result, context=ctx)
    return result


def stored_players(store, match_id):
    """The two players' names as the store holds them for ``match_id``
    (a match stored before keeps its spelling), or None."""
    lookup = getattr(store, "match_players", None)
    if lookup is None or match_id is None:
        return None
    return lookup(match_id)


def describe(match, result, store=None) -> str:
    """One line about a stored match.  With ``store``, a match that was
    already there (already stored, analysis added) is named with the
    players as stored, not as this file spells them."""
    players = match.players
    if store is not None and result.status != _store.STORED:
        players = stored_players(store, result.match_id) or players
    what = match_words(match, players)
    # what the import changed (an impossible date dropped): on the file's line
    warned = "".join(f"; warning: {w}" for w in getattr(match, "warnings", ()))
    if result.status == _store.ALREADY_STORED:
        return f"already stored (match {result.match_id}: {what}){warned}"
    if result.status == _store.EXTENDED:  # a later save of a stored match (docs/storage.md "A match saved twice")
        a = match.analysis
        return (f"match {result.match_id} extended: {result.games_before} → {len(match.games)} games ({what}; "
                f"analysis {a.engine} {a.depth_label or 'depth unknown'}){warned}")
    a = match.analysis
    return (f"{result.status} as match {result.match_id} ({what}; analysis {a.engine} "
            f"{a.depth_label or 'depth unknown'}){warned}")


def match_words(match, players=None) -> str:
    """A match in words, "A vs B, 7-point match, 3 games" (``players``: the
    names to show, the match's own by default): the one wording of
    ``import``'s lines, ``convert``'s and ``bdb.open_xg``'s."""
    players = match.players if players is None else players
    n = len(match.games)
    what = "money session" if match.is_money else f"{match.length}-point match"
    return f"{safe_text(players[0])} vs {safe_text(players[1])}, {what}, {n} game{'s' if n != 1 else ''}"


def importer_suffixes(table=None) -> list:
    """[(importer name, [suffixes])] of the loaded importers (built-in and
    plugins'), in suffix order: what ``import`` reads."""
    table = importers() if table is None else table
    groups: dict = {}
    for suffix in sorted(table):
        groups.setdefault(id(table[suffix]), (getattr(table[suffix], "name", "?"), []))[1].append(suffix)
    return list(groups.values())


def analyse_first_suffixes(table) -> list:
    """Suffixes of match files without analysis that no importer reads:
    match transcripts (importers/transcript.py), which ``gnubg-blunder
    analyse`` loads.  An import of one says where it goes."""
    return [s for s in TRANSCRIPT_SUFFIXES if s not in table]


def analyse_first(path, table) -> bool:
    """A match transcript that no importer reads (by its suffix): a file for
    ``analyse``, not ``import``."""
    return Path(path).suffix.lower() not in table and is_transcript(path)


def analyse_command(ctx, targets) -> str:
    """``gnubg-blunder [--db DB] analyse TARGET...`` to type: the database
    this run was given (none: the default one), paths quoted for a shell."""
    db = f"--db {shlex.quote(_store.shown_database(ctx.db_path))} " if ctx is not None and ctx.db_path else ""
    return f"gnubg-blunder {db}analyse {' '.join(_quote(t) for t in targets) or 'FILE'}"


def analyse_hint(ctx, targets, kinds: str, many: bool = False) -> str:
    """Where match transcripts go (an import of one refused, or of a folder
    of them): ``analyse`` with this run's database."""
    command = analyse_command(ctx, targets)
    kinds = f" ({kinds})" if kinds else ""
    if many:
        return f"match transcripts{kinds} hold no analysis: use `{command}` (gnubg analyses them, then stores them)"
    return f"a match transcript{kinds} holds no analysis: use `{command}` (gnubg analyses it, then it is stored)"


def import_help(table=None) -> tuple:
    """(help of the PATH argument, epilog) of ``gnubg-blunder import --help``,
    from the importer registry."""
    table = importers() if table is None else table
    suffixes = ", ".join(sorted(table)) or "none"
    readers = "; ".join(f"{name} ({', '.join(sfx)})" for name, sfx in importer_suffixes(table))
    paths_help = f"files or folders (folders: every {suffixes} file inside, sub-folders too)"
    epilog = f"Importers loaded: {readers}. Installed plugins may add others (`gnubg-blunder plugins`)."
    transcripts = analyse_first_suffixes(table)
    if transcripts:
        names = " or ".join(transcripts)
        epilog += (f" Match transcripts ({names}; any name but .mat is told by its first lines) hold no analysis:"
                   " `gnubg-blunder analyse FILE` has gnubg analyse one, then stores it.")
    return paths_help.replace("%", "%%"), epilog


def file_failure(exc: Exception, path, ctx, again: str = "import it again"):
    """The one-line reason of a file that failed (the file's line after
    "error: "), or None for an exception that is not one file's failure
    (it propagates).  Shared by ``import``, ``analyse`` and ``watch``.  A
    value the file gave (a charset, a field) is echoed escaped: control and
    bidi characters as every text output shows them (``safe_text``), so a
    file can neither clear the terminal nor forge a line."""
    reason = _file_failure(exc, path, ctx, again)
    return None if reason is None else safe_text(reason, None)


def _file_failure(exc: Exception, path, ctx, again: str):
    if isinstance(exc, _importers_records.MatchImportError):
        return str(exc)
    if isinstance(exc, (sqlite3.Error, _store.StoreError)):
        return f"not stored: {store_error(exc, ctx, again=again)[0]}"
    if isinstance(exc, NotAMatchFile):
        return exc.strerror
    if isinstance(exc, OSError):
        return os_reason(exc, path)
    if isinstance(exc, UnicodeError):
        return f"cannot read the file ({exc.__class__.__name__}: {exc})"
    return None


def read_failure(exc: Exception, path, ctx, again: str = "import it again") -> str:
    """The one-line reason of a file that could not be read: any exception
    reading it is that file's failure, never the run's end (an importer's
    bug too, said by its class and words); ``import``, ``watch`` and
    ``convert`` say it so."""
    reason = file_failure(exc, path, ctx, again)
    if reason is None:
        reason = f"cannot read the file ({exc.__class__.__name__}: {safe_text(str(exc), None)})"
    return reason


def summary_line(n: int, counts: dict, not_tried: int = 0, unreadable=(), extra: str = "") -> str:
    """The line closing a batch of files, always printed."""
    return (
        f"{n} file{'s' if n != 1 else ''}: {counts['stored']} stored, "
        + (f"{counts['extended']} extended, " if counts.get("extended") else "")
        + f"{counts['analysis added']} analyses added, "
        f"{counts['already stored']} already stored, {counts['failed']} failed"
        + (f", {not_tried} not tried (the database cannot be used)" if not_tried else "")
        + extra
        + (f"; {len(unreadable)} folder{'s' if len(unreadable) != 1 else ''} could not be read" if unreadable else "")
    )


def store_error(exc: Exception, ctx, subject: str = "this file", again: str = "import it again") -> tuple:
    """(reason, per_file) for an error of the database met storing
    ``subject``: one line with SQLite's own words and what to do.
    ``per_file`` is False when the database cannot be used at all (damaged,
    of a newer schema: the remaining files are not tried).  What the error
    is comes from its kind (store/error_kinds.py), never from its text."""
    db = _store.shown_database(ctx.db_path or _store.default_db_path())
    kind = _store_error_kinds.error_kind(exc)
    text = str(exc)
    if kind == "busy":
        store = ctx._store
        wait = store.busy_timeout if store is not None else _busy_timeout()
        return (f"database is locked (database {db}): another program has held it for more than {wait:g} s, "
                "a gnubg storing a match (bdb.analyse(), bdb.store()) or another gnubg-blunder import; "
                f"nothing of {subject} was stored, {again} when that program is done"), True
    if kind == "connection-lost":
        return (f"database {db}: {text}; {subject} is stored whole or not at all: {again} when the server "
                "answers (what was stored is said already stored)"), False
    if isinstance(exc, _store.StoreError):
        return f"database {db}: {text}", False
    if kind == "full":
        return f"{text} (database {db}): nothing of {subject} was stored; free some space, then {again}", True
    if kind == "read-only":
        return (f"{text} (database {db} is read-only: check the permissions of the file and of its folder); "
                f"nothing of {subject} was stored"), True
    if kind == "damaged":
        return f"database {db}: {text}{_check_hint()}", False
    return f"{text} (database {db}): nothing of {subject} was stored", True


def _check_hint() -> str:
    try:
        hint = _store_damage.CHECK_HINT
    except ImportError:
        return ""
    return f" ({hint})"


def _busy_timeout() -> float:
    return _store_connection.busy_timeout()


def read_match_file(f: Path, table=None, ctx=None) -> list:
    """The matches of one file, read by the importer of its suffix (a
    plugin's too) after the file check: the one read of ``import`` and
    ``watch``.  Raises NotAMatchFile, MatchImportError (a match transcript:
    where it goes, with ``ctx``'s --db; an unknown suffix) or what the
    importer raises."""
    table = importers() if table is None else table
    check_match_file(f)
    importer = table.get(f.suffix.lower())
    if importer is None and is_transcript(f):
        raise _importers_records.MatchImportError(analyse_hint(ctx, [f], f.suffix.lower()))
    if importer is None:
        raise _importers_records.MatchImportError(f"unknown file type {f.suffix or '(none)'} "
                                                  f"(known: {', '.join(sorted(table))})")
    return importer.read(f)


def takes_require_analysis(importer) -> bool:
    """Whether an importer's ``read`` takes the ``require_analysis`` keyword
    (the built-in ones do; a plugin written before it may not), asked of its
    signature: an importer's own ``TypeError`` is its bug, never a reason to
    call it again another way.  A signature that cannot be read: the call
    the hookspec names first, ``read(path)``."""
    try:
        params = inspect.signature(importer.read).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == "require_analysis" and p.kind is not p.POSITIONAL_ONLY)
               for p in params)


POSITION_SUFFIXES = (".xgp",)


class ConvertError(BlunderError):
    """A file that cannot be converted: one line for the user (without the file name)."""


def read_one_match(path) -> object:
    """The one match of a file, analysed or not, through the registered
    importers (``convert``, ``bdb.open_xg``).  Raises :class:`ConvertError`
    with a one-line reason."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in POSITION_SUFFIXES:
        raise ConvertError("an XG position file (.xgp) holds one position, not a match: nothing to convert")
    if not path.exists():
        raise ConvertError("no such file")
    if not path.is_file():
        raise ConvertError("not a file")
    table = importers()
    importer = table.get(suffix)
    if importer is None:
        readable = ", ".join(s for s in sorted(table) if s not in POSITION_SUFFIXES)
        raise ConvertError(f"cannot read {suffix or 'files without a suffix'} files (readable: {readable})")
    try:
        if takes_require_analysis(importer):
            matches = importer.read(path, require_analysis=False)
        else:  # a plugin's importer without the option
            matches = importer.read(path)
    except _importers_records.MatchImportError as exc:
        raise ConvertError(str(exc)) from None
    except OSError as exc:
        raise ConvertError(exc.strerror or str(exc)) from None
    except Exception as exc:  # whatever reading raises is the file's one line (an importer's bug too)
        raise ConvertError(read_failure(exc, path, None)) from None
    if len(matches) != 1:
        raise ConvertError(f"holds {len(matches)} matches; convert writes one")
    match = matches[0]
    if getattr(match, "kind", "match") != "match":
        raise ConvertError(f"a {match.kind} file, not a match: nothing to convert")
    return match


def store_matches(ctx, matches) -> list:
    """Store a file's matches, one transaction each: [(status, the line
    that says it)...] (``import`` and ``watch``)."""
    out = []
    for m in matches:
        res = store_match(ctx, m)
        out.append((res.status, describe(m, res, ctx.store())))
    return out


# Below this many files an import reads them itself: starting the reading
# processes costs more than they save.
PARALLEL_MIN_FILES = 8


def _read_elsewhere(path: str):
    """A reading process's work: the file's matches, or None when reading
    it failed in any way (the importing process reads it again itself, so
    that its error is said exactly as without other processes)."""
    try:
        return read_match_file(Path(path))
    except Exception:
        return None


def _python_interpreter() -> bool:
    """Whether new Python processes can be started from this one: not
    inside gnubg, whose embedded Python's ``sys.executable`` is gnubg
    itself (``>bdb("import FOLDER")`` reads alone)."""
    return os.path.basename(sys.executable or "").lower().startswith("python")


def _reads(files: list, jobs, say=None):
    """(file, its matches or None) in the order of ``files``: read by
    ``jobs`` processes at once (default: one a CPU) when there are enough
    files, a few files ahead of the one being stored; None where the
    importing process must read the file itself (it read alone, a reading
    process failed, or another process could not read it as this one does:
    a plugin's importer).  The processes come from a fork server (a clean
    process, not a fork of this one, which may run threads)."""
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs <= 1 or len(files) < PARALLEL_MIN_FILES or not _python_interpreter():
        for f in files:
            yield f, None
        return

    ahead = 2 * jobs
    # the fork server's socket in our own temporary folder, and workers that exit with this process
    # (a killed import leaves no process, and the next run removes its folder: docs/reliability.md)
    try:
        _run_files.multiprocessing_into_run_folder(say)
    except OSError:  # no temporary folder to be had: multiprocessing makes its own
        pass

    def start():
        context = _multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["gnubg_blunder.pipeline", "gnubg_blunder.importers.sgf",
                                        "gnubg_blunder.importers.xg", "gnubg_blunder.run_files"])
        pool = _concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                                       initializer=_run_files.exit_with_owner,
                                                       initargs=(_run_files.owner_token(),))
        return pool, [None] + [pool.submit(_read_elsewhere, str(f)) for f in files[1:ahead]]

    # the fork server takes about 0.3 s to start: meanwhile this process reads the first file itself
    with _concurrent.futures.ThreadPoolExecutor(1) as starter:
        started = starter.submit(start)
        try:
            yield files[0], None
        except GeneratorExit:  # the import stopped at the first file: the pool started meanwhile goes
            try:
                started.result()[0].shutdown(cancel_futures=True)
            except Exception:
                pass
            raise
        try:
            pool, pending = started.result()
        except (OSError, ValueError, NotImplementedError):  # no processes here (no /dev/shm, a sandbox)
            for f in files[1:]:
                yield f, None
            return
    with pool:
        try:
            for i, f in enumerate(files):
                if i + ahead < len(files):
                    try:
                        pending.append(pool.submit(_read_elsewhere, str(files[i + ahead])))
                    except Exception:  # the pool broke (a process killed): the rest is read here
                        pending.append(None)
                if i == 0:
                    continue  # read above, while the pool started
                try:
                    matches = pending[i].result() if pending[i] is not None else None
                except Exception:  # the process died, or its result could not be passed back
                    matches = None
                pending[i] = None
                yield f, matches
        finally:
            for future in pending:
                if future is not None:
                    future.cancel()


def import_paths(ctx, paths, jobs=None) -> int:
    """Import files and folders: a line per file, then a summary; 1 if any
    file failed (the others are stored all the same).  Every problem of a
    file (unreadable, not a regular file, too large, not a match, the
    database refusing it) is that file's line; the others are tried.
    Files are read by ``jobs`` processes at once (:func:`_reads`), stored
    here one by one in their order."""
    table = importers()
    first = analyse_first_suffixes(table)
    unreadable = []  # (folder, reason)
    found = expand_paths(paths, set(table) | set(first), unreadable)
    direct = {Path(p) for p in paths if not _is_dir(Path(p))}
    files = [f for f in found if f in direct or f.suffix.lower() in table]
    folders = [p for p in paths if _is_dir(Path(p))]
    # match transcripts in the folders given: not imported, said once (other .txt files: not match files)
    skipped = [f for f in found if f not in direct and analyse_first(f, table)]
    for folder, reason in unreadable:
        ctx.error(f"{shown_path(folder)}: error: {reason}")
    counts = {"stored": 0, "extended": 0, "already stored": 0, "analysis added": 0, "failed": 0}
    if not files:
        line = "no importable files found in: " + ", ".join(shown_path(p) for p in paths)
        if skipped:
            kinds = "/".join(sorted({f.suffix.lower() for f in skipped}))
            line += f" ({_files(len(skipped), kinds)}: " + analyse_hint(ctx, folders, kinds, many=True) + ")"
        ctx.error(line)
        return 1
    not_tried = 0
    with Progress(ctx, len(files), "import") as progress:  # a bar on a terminal, else a line every 10 s
        for i, (f, read) in enumerate(_reads(files, jobs, progress.error)):
            label = shown_path(f)
            try:
                matches = read if read is not None else read_match_file(f, table, ctx)
            except Exception as exc:  # whatever reading raises is this file's line: the next file is tried
                counts["failed"] += 1
                progress.error(f"{label}: error: {read_failure(exc, f, ctx)}")
                progress.advance()
                continue
            try:
                try:
                    ctx.store()
                except (sqlite3.Error, _store.StoreError) as exc:
                    reason, per_file = store_error(exc, ctx)
                    if not per_file:
                        # the database cannot be used: said once, no file is tried
                        progress.error(f"error: {reason}")
                        not_tried = len(files) - i
                        break
                    raise
                stored = store_matches(ctx, matches)
                for status, _line in stored:
                    counts[status] += 1
                progress.print(f"{label}: " + "; ".join(line for _status, line in stored))
            except Exception as exc:
                reason = file_failure(exc, f, ctx)
                if reason is None:  # a match the store step cannot take (our bug, a plugin's): rolled back, its line
                    reason = f"not stored ({exc.__class__.__name__}: {safe_text(str(exc), None)})"
                counts["failed"] += 1
                progress.error(f"{label}: error: {reason}")
                if isinstance(exc, _store.ConnectionLost):  # the server is gone: the other files are not tried
                    not_tried = len(files) - i - 1
                    break
            progress.advance()
    skipped_note = (f"; {_files(len(skipped), '/'.join(sorted({f.suffix.lower() for f in skipped})))} not imported "
                    f"(no analysis: use `{analyse_command(ctx, [])}`)" if skipped else "")
    ctx.print(summary_line(len(files), counts, not_tried, unreadable, skipped_note))
    return 1 if counts["failed"] or not_tried or unreadable else 0


def _files(n: int, kind: str) -> str:
    return f"{n} {kind} file{'s' if n != 1 else ''}"


def _quote(path) -> str:
    return shlex.quote(shown_path(path))
