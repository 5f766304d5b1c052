"""Files -> importer -> store -> post-analysis actions.

The path every match takes, whether it comes from ``gnubg-blunder import``,
``bdb("import ...")``, ``gnubg-blunder analyse`` or ``bdb.store()``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .importers.records import MatchImportError
from .plugins import get_plugin_manager, importers
from .store import ALREADY_STORED


def expand_paths(paths, suffixes) -> list:
    """Files given, and the importable files of folders given (recursively,
    sorted).  A path that does not exist is reported by the caller."""
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for root, _dirs, files in sorted(os.walk(path)):
                for f in sorted(files):
                    if Path(f).suffix.lower() in suffixes:
                        out.append(Path(root) / f)
        else:
            out.append(path)
    return out


def store_match(ctx, match):
    """Store one match and run the post-analysis hooks for something new."""
    pm = get_plugin_manager()
    store = ctx.store()
    result = pm.hook.store_match(store=store, match=match)
    if result.status != ALREADY_STORED:
        pm.hook.post_analysis(store=store, match=match, result=result, context=ctx)
    return result


def describe(match, result) -> str:
    what = f"{match.players[0]} vs {match.players[1]}, "
    what += "money session" if match.is_money else f"{match.length}-point match"
    what += f", {len(match.games)} game{'s' if len(match.games) != 1 else ''}"
    if result.status == ALREADY_STORED:
        return f"already stored (match {result.match_id}: {what})"
    a = match.analysis
    return f"{result.status} as match {result.match_id} ({what}; analysis {a.engine} {a.depth_label or 'depth unknown'})"


def import_paths(ctx, paths) -> int:
    """Import files and folders: a line per file, then a summary; 1 if any
    file failed (the others are stored all the same)."""
    table = importers()
    files = expand_paths(paths, set(table))
    counts = {"stored": 0, "already stored": 0, "analysis added": 0, "failed": 0}
    if not files:
        ctx.error("no importable files found in: " + ", ".join(str(p) for p in paths))
        return 1
    for f in files:
        label = str(f)
        try:
            if not f.exists():
                raise MatchImportError("no such file")
            importer = table.get(f.suffix.lower())
            if importer is None:
                raise MatchImportError(
                    f"unknown file type {f.suffix or '(none)'} (known: {', '.join(sorted(table))})"
                )
            matches = importer.read(f)
            lines = []
            for m in matches:
                res = store_match(ctx, m)
                counts[res.status] += 1
                lines.append(describe(m, res))
            ctx.print(f"{label}: " + "; ".join(lines))
        except MatchImportError as exc:
            counts["failed"] += 1
            ctx.error(f"{label}: error: {exc}")
        except (OSError, UnicodeError) as exc:
            counts["failed"] += 1
            ctx.error(f"{label}: error: cannot read the file ({exc.__class__.__name__}: {exc})")
    n = len(files)
    ctx.print(
        f"{n} file{'s' if n != 1 else ''}: {counts['stored']} stored, {counts['analysis added']} analyses added, "
        f"{counts['already stored']} already stored, {counts['failed']} failed"
    )
    return 1 if counts["failed"] else 0
