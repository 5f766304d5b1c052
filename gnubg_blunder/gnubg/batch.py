"""``gnubg-blunder analyse FILE...``: the plugin's answer to gnubg's batch script.

Each file is loaded by the real gnubg, run headless, analysed with the
user's analysis settings (or ``--plies N``), and the analysed match is read
back through ``gnubg.match()`` (dumped to JSON inside gnubg), then stored
like any other import.  gnubg needs nothing of ours for this: its Python
only writes the dump.  A match whose analysis at that depth is stored
already is not analysed again: gnubg first loads the file without
analysing it, which tells the match's identity (:func:`stored_before`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
import tempfile
import time
from pathlib import Path

from ..importers.files import check_match_file, shown_path
from ..importers.gnubg_match import match_from_dict
from ..importers.records import MatchImportError
from ..importers.transcript import TRANSCRIPT_SUFFIXES, is_transcript, not_a_transcript
from ..pipeline import describe, expand_paths, file_failure, store_error, store_match, summary_line
from ..progress import Progress
from .process import GnubgNotFound, find_gnubg, run_commands
from ..store import ConnectionLost, StoreError

# gnubg's command for each kind of file, by the suffix of the name gnubg is
# given (a link: a transcript named .txt is given as .mat).
LOADERS = {".mat": "import mat", ".sgf": "load match"}

_DUMP = r"""
import json, gnubg
_m = gnubg.match(analysis=0, boards=0)
if _m is None:
    print("GNUBG_BLUNDER_NOTHING_LOADED")
else:
    gnubg.command("analyse session" if int(_m["match-info"].get("match-length", 0)) == 0 else "analyse match")
    with open(%(out)r, "w") as _fh:
        json.dump(gnubg.match(analysis=1, boards=1), _fh)
    print("GNUBG_BLUNDER_DUMPED")
"""

# The match as gnubg loaded it, not analysed: what tells its identity.
_DUMP_LOADED = r"""
import json, gnubg
_m = gnubg.match(analysis=0, boards=1)
if _m is None:
    print("GNUBG_BLUNDER_NOTHING_LOADED")
else:
    with open(%(out)r, "w") as _fh:
        json.dump(_m, _fh)
    print("GNUBG_BLUNDER_DUMPED")
"""
_SETTINGS_MARK = "GNUBG_BLUNDER_ANALYSIS_SETTINGS"
# ``show analysis``: "Chequer play:", then "Neural net evaluation:", then "2-ply evaluation."
_CHEQUER_PLIES = re.compile(r"Chequer play:\s*\n[^\n]*\n\s*(\d+)-ply evaluation")


def gnubg_script(path: Path, out: Path, plies=None, analyse: bool = True) -> str:
    """gnubg's commands: load ``path`` (its suffix says how), analyse it at
    ``plies`` (None: the user's settings) and dump the analysed match to
    ``out``; without ``analyse``, dump the match as loaded and, for the
    user's settings, show them (:func:`analysis_plies`)."""
    loader = LOADERS[path.suffix.lower()]
    if '"' in str(path):
        raise MatchImportError('gnubg cannot load a file whose name holds a double quote (")')
    lines = ["set display off", "set confirm new off"]
    if plies is not None and analyse:
        lines += [
            f"set analysis chequerplay evaluation plies {int(plies)}",
            f"set analysis cubedecision evaluation plies {int(plies)}",
        ]
    lines.append(f'{loader} "{path}"')
    # gnubg runs a ">" line as Python: the block goes in as one exec()
    lines.append(">exec(" + repr((_DUMP if analyse else _DUMP_LOADED) % {"out": str(out)}) + ")")
    if not analyse and plies is None:
        lines += [f">print({_SETTINGS_MARK!r})", "show analysis"]
    return "\n".join(lines) + "\n"


def analysis_plies(output: str):
    """The chequer-play plies of the user's analysis settings, read from
    gnubg's ``show analysis`` after :data:`_SETTINGS_MARK`; None when gnubg
    said it otherwise (another language: the file is then analysed, and the
    store says whether that analysis was new)."""
    found = _CHEQUER_PLIES.search(output.split(_SETTINGS_MARK, 1)[-1]) if _SETTINGS_MARK in output else None
    return int(found.group(1)) if found else None


def loader_suffix(path: Path) -> str:
    """The suffix gnubg is given ``path`` under (a key of LOADERS): .sgf,
    or .mat for a match transcript of any name (importers/transcript.py).
    Refuses any other file in one line."""
    suffix = path.suffix.lower()
    if suffix == ".sgf":
        return suffix
    if is_transcript(path):
        return ".mat"
    if suffix in TRANSCRIPT_SUFFIXES:
        raise MatchImportError(not_a_transcript(path))
    raise MatchImportError(f"gnubg analyse takes .sgf files and match transcripts (.mat, .txt), "
                           f"not {suffix or 'a file without a suffix'}")


def _gnubg_complaint(output: str, path: Path) -> str:
    """What gnubg said about the file: its ``FILE: reason`` line."""
    prefix = f"{path}: "
    said = [line[len(prefix):].strip() for line in output.splitlines() if line.startswith(prefix)]
    return said[-1] if said else "gnubg gave no reason"


def _run_gnubg(path: Path, plies, analyse: bool, progress=None) -> tuple:
    """Run gnubg on one file (:func:`gnubg_script`): (the dumped
    ``gnubg.match()`` dict, what gnubg printed).  gnubg loads it through a
    link of a plain name in a temporary folder, so that any path the OS
    gives (not UTF-8, with quotes) can be analysed."""
    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-") as tmp:
        out = Path(tmp) / "match.json"
        link = Path(tmp) / ("match" + loader_suffix(path))
        os.symlink(os.path.abspath(path), link)
        res = run_commands(gnubg_script(link, out, plies, analyse), rc_files=True, timeout=3600, progress=progress)
        if "GNUBG_BLUNDER_NOTHING_LOADED" in res.stdout or not out.exists():
            raise MatchImportError(f"gnubg could not load it ({_gnubg_complaint(res.stdout + res.stderr, link)})")
        with open(out, encoding="utf-8") as fh:
            return json.load(fh), res.stdout


def analyse_file(path: Path, plies=None, progress=None):
    """Run gnubg on one file; return the analysed ``gnubg.match()`` dict.
    ``progress(what, done, total)``: gnubg's progress ("match", move 88 of
    203), as gnubg prints it (process.run_commands)."""
    return _run_gnubg(path, plies, True, progress)[0]


def stored_before(store, path: Path, plies=None):
    """(the match of ``path``, its "already stored" result) when the store
    holds the match analysed by gnubg at the plies this analysis would use
    (``plies``, else the user's settings), else None.  gnubg loads the file
    without analysing it (a fraction of a second): the match's identity is
    its length, dice and moves (model.match_identity), whatever the file."""
    data, said = _run_gnubg(path, plies, False)
    depth = plies if plies is not None else analysis_plies(said)
    if depth is None:
        return None
    match = match_from_dict(data, source_path=os.fspath(path), require_analysis=False)
    match.analysis = dataclasses.replace(match.analysis, engine="gnubg", depth_label=f"{int(depth)}-ply")
    result = store.stored_analysis(match)
    return (match, result) if result is not None else None


def analyse_files(ctx, paths, plies=None) -> int:
    """Each file analysed by gnubg and stored: a line per file (every
    problem, the database's included, is that file's line; the others are
    tried), then a summary; 1 if any file or folder failed."""
    try:
        find_gnubg()
    except GnubgNotFound as exc:
        ctx.error(f"error: {exc}")
        return 1
    unreadable = []
    direct = {Path(p) for p in paths if not os.path.isdir(p)}
    # in folders: .sgf files and match transcripts (a .txt that holds none is not a match file)
    files = [f for f in expand_paths(paths, {".sgf", *TRANSCRIPT_SUFFIXES}, unreadable)
             if f in direct or f.suffix.lower() == ".sgf" or is_transcript(f)]
    for folder, reason in unreadable:
        ctx.error(f"{shown_path(folder)}: error: {reason}")
    if not files:
        ctx.error("no .sgf files or match transcripts found in: " + ", ".join(shown_path(p) for p in paths))
        return 1
    counts = {"stored": 0, "extended": 0, "already stored": 0, "analysis added": 0, "failed": 0}
    not_tried = 0
    depth = f"{plies}-ply" if plies is not None else "your analysis settings"
    # a bar on a terminal (one file too: gnubg's moves show), else a line every 10 s
    with Progress(ctx, len(files), "analyse", bar_from=1) as progress:
        for i, f in enumerate(files, 1):
            start = time.monotonic()
            where = f"[{i}/{len(files)}] {shown_path(f)}"
            try:
                check_match_file(f)
                loader_suffix(f)  # a file gnubg loads, else its one-line refusal
                try:
                    ctx.store()  # the database is usable before gnubg analyses
                except (sqlite3.Error, StoreError) as exc:
                    reason, per_file = store_error(exc, ctx)
                    if not per_file:
                        progress.error(f"error: {reason}")
                        not_tried = len(files) - i + 1
                        break
                    raise
                known = stored_before(ctx.store(), f, plies)
                if known is not None:
                    match, result = known
                    counts[result.status] += 1
                    progress.print(f"{where}: {describe(match, result, ctx.store())} with a "
                                   f"{match.analysis.engine} {match.analysis.depth_label} analysis: not analysed again")
                    progress.advance()
                    continue

                def moves(what, done, total, name=shown_path(f)):
                    progress.detail(f"{name}: gnubg analysing the {what}, move {done}/{total}")

                data = analyse_file(f, plies, progress=moves)
                match = match_from_dict(data, source_path=os.fspath(f))
                result = store_match(ctx, match)
                counts[result.status] += 1
                progress.print(f"{where}: analysed ({depth}) in {time.monotonic() - start:.1f} s; "
                               + describe(match, result, ctx.store()))
            except (MatchImportError, OSError, sqlite3.Error, StoreError) as exc:
                counts["failed"] += 1
                progress.error(f"{where}: error: {file_failure(exc, f, ctx, again='analyse it again')}")
                if isinstance(exc, ConnectionLost):  # the server is gone: the other files are not tried (as import)
                    not_tried = len(files) - i
                    break
            progress.advance()
    ctx.print(summary_line(len(files), counts, not_tried, unreadable))
    return 1 if counts["failed"] or not_tried or unreadable else 0
