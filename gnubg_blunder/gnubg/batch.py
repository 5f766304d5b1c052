"""``gnubg-blunder analyse FILE...``: the plugin's answer to gnubg's batch script.

Each file is loaded by the real gnubg, run headless, analysed with the
user's analysis settings (or ``--plies N``), and the analysed match is read
back through ``gnubg.match()`` (dumped to JSON inside gnubg), then stored
like any other import.  gnubg needs nothing of ours for this: its Python
only writes the dump.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from ..importers.gnubg_match import match_from_dict
from ..importers.records import MatchImportError
from ..pipeline import describe, expand_paths, store_match
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
    prefix = f"{path.resolve()}: "
    said = [line[len(prefix):].strip() for line in output.splitlines() if line.startswith(prefix)]
    return said[-1] if said else "gnubg gave no reason"


def analyse_file(path: Path, plies=None):
    """Run gnubg on one file; return the analysed ``gnubg.match()`` dict."""
    with tempfile.TemporaryDirectory(prefix="gnubg-blunder-") as tmp:
        out = Path(tmp) / "match.json"
        res = run_commands(gnubg_script(path.resolve(), out, plies), rc_files=True, timeout=3600)
        if "GNUBG_BLUNDER_NOTHING_LOADED" in res.stdout or not out.exists():
            raise MatchImportError(f"gnubg could not load it ({_gnubg_complaint(res.stdout + res.stderr, path)})")
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)


def analyse_files(ctx, paths, plies=None) -> int:
    try:
        find_gnubg()
    except GnubgNotFound as exc:
        ctx.error(f"error: {exc}")
        return 1
    files = expand_paths(paths, set(LOADERS))
    if not files:
        ctx.error("no .mat or .sgf files found in: " + ", ".join(map(str, paths)))
        return 1
    failed = 0
    depth = f"{plies}-ply" if plies is not None else "your analysis settings"
    for i, f in enumerate(files, 1):
        start = time.monotonic()
        try:
            if not f.exists():
                raise MatchImportError("no such file")
            if f.suffix.lower() not in LOADERS:
                raise MatchImportError(f"gnubg analyse takes .mat and .sgf files, not {f.suffix or 'this file'}")
            data = analyse_file(f, plies)
            match = match_from_dict(data, source_path=str(f))
            result = store_match(ctx, match)
            ctx.print(f"[{i}/{len(files)}] {f}: analysed ({depth}) in {time.monotonic() - start:.1f} s; "
                      + describe(match, result, ctx.store()))
        except MatchImportError as exc:
            failed += 1
            ctx.error(f"[{i}/{len(files)}] {f}: error: {exc}")
    return 1 if failed else 0
