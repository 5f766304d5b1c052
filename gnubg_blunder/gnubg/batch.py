"""``gnubg-blunder analyse FILE...``: the plugin's answer to gnubg's batch script.

Each file is loaded by the real gnubg, run headless, analysed with the
user's analysis settings (or ``--plies N``), and the analysed match is read
back through ``gnubg.match()`` (dumped to JSON inside gnubg), then stored
like any other import.  gnubg needs nothing of ours for this: its Python
only writes the dump.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from ..importers.files import check_match_file, shown_path
from ..importers.gnubg_match import match_from_dict
from ..importers.records import MatchImportError
from ..pipeline import describe, expand_paths, file_failure, store_error, store_match, summary_line
from ..progress import Progress
from .process import GnubgNotFound, find_gnubg, run_commands

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


def gnubg_script(path: Path, out: Path, plies=None) -> str:
    loader = LOADERS[path.suffix.lower()]
    if '"' in str(path):
        raise MatchImportError('gnubg cannot load a file whose name holds a double quote (")')
    lines = ["set display off", "set confirm new off"]
    if plies is not None:
        lines += [
            f"set analysis chequerplay evaluation plies {int(plies)}",
            f"set analysis cubedecision evaluation plies {int(plies)}",
        ]
    lines.append(f'{loader} "{path}"')
    # gnubg runs a ">" line as Python: the block goes in as one exec()
    lines.append(">exec(" + repr(_DUMP % {"out": str(out)}) + ")")
    return "\n".join(lines) + "\n"


def _gnubg_complaint(output: str, path: Path) -> str:
    """What gnubg said about the file: its ``FILE: reason`` line."""
    prefix = f"{path}: "
    said = [line[len(prefix):].strip() for line in output.splitlines() if line.startswith(prefix)]
    return said[-1] if said else "gnubg gave no reason"


def analyse_file(path: Path, plies=None, progress=None):
    """Run gnubg on one file; return the analysed ``gnubg.match()`` dict.
    gnubg loads it through a link of a plain name in a temporary folder, so
    that any path the OS gives (not UTF-8, with quotes) can be analysed.
    ``progress(what, done, total)``: gnubg's progress ("match", move 88 of
    203), as gnubg prints it (process.run_commands)."""
    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-") as tmp:
        out = Path(tmp) / "match.json"
        link = Path(tmp) / ("match" + path.suffix.lower())
        os.symlink(os.path.abspath(path), link)
        res = run_commands(gnubg_script(link, out, plies), rc_files=True, timeout=3600, progress=progress)
        if "GNUBG_BLUNDER_NOTHING_LOADED" in res.stdout or not out.exists():
            raise MatchImportError(f"gnubg could not load it ({_gnubg_complaint(res.stdout + res.stderr, link)})")
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)


def analyse_files(ctx, paths, plies=None) -> int:
    """Each file analysed by gnubg and stored: a line per file (every
    problem, the database's included, is that file's line; the others are
    tried), then a summary; 1 if any file or folder failed."""
    from ..store import StoreError

    try:
        find_gnubg()
    except GnubgNotFound as exc:
        ctx.error(f"error: {exc}")
        return 1
    unreadable = []
    files = expand_paths(paths, set(LOADERS), unreadable)
    for folder, reason in unreadable:
        ctx.error(f"{shown_path(folder)}: error: {reason}")
    if not files:
        ctx.error("no .mat or .sgf files found in: " + ", ".join(shown_path(p) for p in paths))
        return 1
    counts = {"stored": 0, "already stored": 0, "analysis added": 0, "failed": 0}
    not_tried = 0
    depth = f"{plies}-ply" if plies is not None else "your analysis settings"
    # a bar on a terminal (one file too: gnubg's moves show), else a line every 10 s
    with Progress(ctx, len(files), "analyse", bar_from=1) as progress:
        for i, f in enumerate(files, 1):
            start = time.monotonic()
            where = f"[{i}/{len(files)}] {shown_path(f)}"
            try:
                check_match_file(f)
                if f.suffix.lower() not in LOADERS:
                    raise MatchImportError(f"gnubg analyse takes .mat and .sgf files, not {f.suffix or 'this file'}")
                try:
                    ctx.store()  # the database is usable before gnubg analyses
                except (sqlite3.Error, StoreError) as exc:
                    reason, per_file = store_error(exc, ctx)
                    if not per_file:
                        progress.error(f"error: {reason}")
                        not_tried = len(files) - i + 1
                        break
                    raise

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
            progress.advance()
    ctx.print(summary_line(len(files), counts, not_tried, unreadable))
    return 1 if counts["failed"] or not_tried or unreadable else 0
