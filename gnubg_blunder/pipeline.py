"""Files -> importer -> store -> post-analysis actions.

The path every match takes, whether it comes from ``gnubg-blunder import``,
``bdb("import ...")``, ``gnubg-blunder analyse`` or ``bdb.store()``.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from .importers.records import MatchImportError
from .plugins import get_plugin_manager, importers
from .store import ALREADY_STORED, STORED

# Match files that hold no analysis and that ``gnubg-blunder analyse`` loads
# (gnubg/batch.py LOADERS): an import of one says where it goes, unless an
# installed importer reads that suffix.
ANALYSE_FIRST = (".mat",)


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
    if store is not None and result.status != STORED:
        players = stored_players(store, result.match_id) or players
    what = f"{players[0]} vs {players[1]}, "
    what += "money session" if match.is_money else f"{match.length}-point match"
    what += f", {len(match.games)} game{'s' if len(match.games) != 1 else ''}"
    # what the import changed (an impossible date dropped): on the file's line
    warned = "".join(f"; warning: {w}" for w in getattr(match, "warnings", ()))
    if result.status == ALREADY_STORED:
        return f"already stored (match {result.match_id}: {what}){warned}"
    a = match.analysis
    return (f"{result.status} as match {result.match_id} ({what}; analysis {a.engine} "
            f"{a.depth_label or 'depth unknown'}){warned}")


def importer_suffixes(table=None) -> list:
    """[(importer name, [suffixes])] of the loaded importers (built-in and
    plugins'), in suffix order: what ``import`` reads."""
    table = importers() if table is None else table
    groups: dict = {}
    for suffix in sorted(table):
        groups.setdefault(id(table[suffix]), (getattr(table[suffix], "name", "?"), []))[1].append(suffix)
    return list(groups.values())


def analyse_first_suffixes(table) -> list:
    """Suffixes of match files without analysis that no importer reads."""
    return [s for s in ANALYSE_FIRST if s not in table]


def analyse_hint(suffix: str, target: str = "FILE") -> str:
    return (f"a {suffix} file holds no analysis: use `gnubg-blunder analyse {target}` "
            "(gnubg analyses it, then it is stored)")


def import_help(table=None) -> tuple:
    """(help of the PATH argument, epilog) of ``gnubg-blunder import --help``,
    from the importer registry."""
    table = importers() if table is None else table
    suffixes = ", ".join(sorted(table)) or "none"
    readers = "; ".join(f"{name} ({', '.join(sfx)})" for name, sfx in importer_suffixes(table))
    paths_help = f"files or folders (folders: every {suffixes} file inside, sub-folders too)"
    epilog = f"Importers loaded: {readers}. Installed plugins may add others (`gnubg-blunder plugins`)."
    for suffix in analyse_first_suffixes(table):
        epilog += (f" A {suffix} file holds no analysis: `gnubg-blunder analyse FILE` has gnubg analyse it,"
                   " then stores it.")
    return paths_help.replace("%", "%%"), epilog


def import_paths(ctx, paths) -> int:
    """Import files and folders: a line per file, then a summary; 1 if any
    file failed (the others are stored all the same)."""
    table = importers()
    files = expand_paths(paths, set(table))
    first = analyse_first_suffixes(table)
    folders = [p for p in paths if Path(p).is_dir()]
    # .mat files in the folders given: not imported, said once
    skipped = expand_paths(folders, set(first)) if first and folders else []
    counts = {"stored": 0, "already stored": 0, "analysis added": 0, "failed": 0}
    if not files:
        line = "no importable files found in: " + ", ".join(str(p) for p in paths)
        if skipped:
            kinds = "/".join(sorted({f.suffix.lower() for f in skipped}))
            line += f" ({_files(len(skipped), kinds)}: " + analyse_hint(kinds, " ".join(map(_quote, folders))) + ")"
        ctx.error(line)
        return 1
    for f in files:
        label = str(f)
        try:
            if not f.exists():
                raise MatchImportError("no such file")
            importer = table.get(f.suffix.lower())
            if importer is None and f.suffix.lower() in first:
                raise MatchImportError(analyse_hint(f.suffix.lower(), _quote(f)))
            if importer is None:
                raise MatchImportError(
                    f"unknown file type {f.suffix or '(none)'} (known: {', '.join(sorted(table))})"
                )
            matches = importer.read(f)
            lines = []
            for m in matches:
                res = store_match(ctx, m)
                counts[res.status] += 1
                lines.append(describe(m, res, ctx.store()))
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
        + (f"; {_files(len(skipped), '/'.join(sorted({f.suffix.lower() for f in skipped})))} not imported "
           "(no analysis: use `gnubg-blunder analyse`)" if skipped else "")
    )
    return 1 if counts["failed"] else 0


def _files(n: int, kind: str) -> str:
    return f"{n} {kind} file{'s' if n != 1 else ''}"


def _quote(path) -> str:
    return shlex.quote(str(path))
