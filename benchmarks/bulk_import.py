"""A bulk import: N distinct analysed matches imported in one run (at a
terminal, with its progress bar, and once without one), then in ten batches
into another database; the figures must be the same (issue 13).

    .venv/bin/python benchmarks/bulk_import.py [--matches 1000] [--batches 10]
        [--runs terminal,plain,batches] [--base-selfplay K] [--keep]

**The matches.** Real gnubg-analysed SGF files of this repository (the real
match in tests/fixtures/real/sgf, the self-play matches the project's
``tests/tools/gnubg-selfplay`` made into tests/.selfplay-cache and
benchmarks/.cache/p*; ``--base-selfplay K`` makes K more into
benchmarks/.cache/bulk-base when the pool is small).  A match's identity is
its length, dice and positions (model.match_identity): renaming the players
or changing the date gives the same match, stored once.  So each of the N
files is a real match cut after one of its moves (every game before that
move whole, the game of the cut without its result), or a real match whole:
as many distinct matches as cut points, every move's analysis as gnubg
wrote it.  The players keep their names from the files with a number added
("charlot1 (7)", "Weakbot (12)": 25 of each) and the dates are spread over two
years, so that the players and the date filters have something to split.
The files are written (with the project's SGF tokenizer, values escaped
again) into benchmarks/.cache/bulk-N/batch-00 ... batch-09, named in import
order.

**The runs.** ``terminal``: ``gnubg-blunder import DIR`` under ``script -q``
(a pseudo-terminal of 100 x 30), its output (per-file lines, the tqdm bar)
captured to ``terminal.log``; ``plain``: the same import with standard output
and error to files (``plain.out``, ``plain.err``: the plain progress lines);
``batches``: one ``import`` per batch folder, in order, into a third
database.  Each run starts from an empty database; the wall time of the
command (interpreter start included) gives matches/s.

**The check.** ``stats --format json`` and ``players --format json`` (no
saved filter) of each database: equal, byte for byte, to the batches'.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from gnubg_blunder.importers.sgf_syntax import read_sgf  # noqa: E402

GB = Path(sys.executable).parent / "gnubg-blunder"
POOL_GLOBS = [ROOT / "tests" / "fixtures" / "real" / "sgf", ROOT / "tests" / ".selfplay-cache", HERE / ".cache"]
NAME_VARIANTS = 25


# -- the files -----------------------------------------------------------------------------

def pool_files(min_size: int = 1) -> list:
    """Analysed SGF files of the repository (real match, self-play caches), without the bulk sets."""
    found = []
    for base in POOL_GLOBS:
        if base.exists():
            found += [p for p in base.rglob("*.sgf") if not any(part.startswith("bulk-") and part != "bulk-base"
                                                                 for part in p.parts)]
    return sorted(set(found))


def make_base(k: int) -> None:
    """K more self-play matches (gnubg-selfplay, 0 plies) into benchmarks/.cache/bulk-base."""
    out = HERE / ".cache" / "bulk-base"
    tool = ROOT / "tests" / "tools" / "gnubg-selfplay"
    for seed in range(101, 101 + k):
        length = (3, 5, 7, 9)[seed % 4]
        if not (out / f"m{seed}-{length}.sgf").exists():
            print(f"making a base match: gnubg-selfplay seed {seed}, {length} points", flush=True)
            subprocess.run(["bash", str(tool), str(out), str(seed), str(length), "0"], check=True,
                           stdout=subprocess.DEVNULL)


def is_roll(node) -> bool:
    value = node.get("B") or node.get("W")
    return bool(value) and value[:2].isdigit()


def _esc(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def node_text(node, drop=(), put=None) -> str:
    props = {k: v for k, v in node.props.items() if k not in drop}
    for k, v in (put or {}).items():
        props[k] = [v]
    return ";" + "".join(k + "".join(f"[{_esc(v)}]" for v in values) for k, values in props.items())


def variant_text(trees: list, cut, names: tuple, date: str) -> str:
    """The match of ``trees`` cut after node ``cut = (game, node)`` (None:
    whole), its players renamed and dated."""
    games = trees if cut is None else trees[:cut[0] + 1]
    out = []
    for g, tree in enumerate(games):
        nodes = tree.nodes if cut is None or g < cut[0] else tree.nodes[:cut[1] + 1]
        put = {"PW": names[0], "PB": names[1], "DT": date, "CA": "UTF-8"}
        drop = ("RE", "GS") if cut is not None and g == cut[0] else ()  # the cut game has no result
        lines = [node_text(nodes[0], drop=drop, put=put)] + [node_text(n) for n in nodes[1:]]
        out.append("(" + "\n".join(lines) + ")\n")
    return "".join(out)


def make_files(n: int, batches: int, folder: Path, seed: int = 13) -> dict:
    """N variant files in ``folder``/batch-XX; returns what was used."""
    from gnubg_blunder.importers.sgf import read_match
    from gnubg_blunder.model import match_identity

    bases, seen = [], set()
    for path in pool_files():
        try:
            identity = match_identity(read_match(path))
        except Exception:  # not analysed, not a match: not a base
            continue
        if identity in seen:
            continue
        seen.add(identity)
        trees = read_sgf(path)
        cuts = [(g, j) for g, t in enumerate(trees) for j in range(1, len(t.nodes)) if is_roll(t.nodes[j])]
        # the identity counts rolls only: a cut after the last game's last roll is the whole match
        cuts = cuts[:-1]
        random.Random(f"{seed}:{path.name}").shuffle(cuts)
        bases.append({"path": path, "trees": trees, "cuts": [None] + cuts})
    if not bases:
        sys.exit("no analysed SGF file found: run the tests once (they make tests/.selfplay-cache) "
                 "or use --base-selfplay K")
    available = sum(len(b["cuts"]) for b in bases)
    if available < n:
        sys.exit(f"only {available} distinct cuts in {len(bases)} base matches: use --base-selfplay K")
    if folder.exists():
        shutil.rmtree(folder)
    for b in range(batches):
        (folder / f"batch-{b:02d}").mkdir(parents=True)
    start = dt.date(2024, 1, 1)
    rounds = [0] * len(bases)
    k = 0
    while k < n:
        for i, base in enumerate(bases):  # round-robin over the bases
            if k >= n:
                break
            if rounds[i] >= len(base["cuts"]):
                continue
            cut = base["cuts"][rounds[i]]
            rounds[i] += 1
            root = base["trees"][0].root
            suffix = f" ({k % NAME_VARIANTS + 1})"
            names = (root.get("PW", "White") + suffix, root.get("PB", "Black") + suffix)
            date = (start + dt.timedelta(days=(k * 37) % 730)).isoformat()
            text = variant_text(base["trees"], cut, names, date)
            (folder / f"batch-{k * batches // n:02d}" / f"{k:05d}.sgf").write_text(text, encoding="utf-8")
            k += 1
    return {"bases": [str(b["path"].relative_to(ROOT)) for b in bases], "used": dict(zip(
        [b["path"].name for b in bases], rounds))}


# -- the runs ------------------------------------------------------------------------------

def _env(tmp: Path) -> dict:
    return {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1", "XDG_CONFIG_HOME": str(tmp / "config"),
            "XDG_DATA_HOME": str(tmp / "data")}


SUMMARY = re.compile(r"(\d+) files?: (\d+) stored, (\d+) analyses added, (\d+) already stored, (\d+) failed")


def summary_of(text: str) -> dict:
    found = SUMMARY.findall(text)
    if not found:
        return {}
    n, stored, added, already, failed = map(int, found[-1])
    return {"files": n, "stored": stored, "added": added, "already": already, "failed": failed}


def run_terminal(folder: Path, db: Path, log: Path, env: dict) -> tuple:
    """``import`` at a terminal (``script``): (seconds, summary, the last bar line)."""
    cmd = f"stty cols 100 rows 30; exec {GB} --db {db} import {folder}"
    t = time.perf_counter()
    subprocess.run(["script", "-q", "-e", "-c", cmd, str(log)], env=env, stdout=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - t
    text = log.read_text(encoding="utf-8", errors="replace")
    bars = [s for s in re.split(r"[\r\n]", text) if s.startswith("import:")]
    return seconds, summary_of(text), (bars[-1] if bars else "(no bar)"), len(bars)


def run_plain(folders: list, db: Path, out: Path, err: Path, env: dict) -> tuple:
    """``import`` of each folder in turn, output to files: (seconds, summary of each)."""
    summaries = []
    t = time.perf_counter()
    with open(out, "w") as fo, open(err, "w") as fe:
        for f in folders:
            r = subprocess.run([str(GB), "--db", str(db), "import", str(f)], env=env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, check=False)
            fo.write(r.stdout)
            fe.write(r.stderr)
            summaries.append(summary_of(r.stdout))
    return time.perf_counter() - t, summaries


def figures(db: Path, env: dict) -> dict:
    out = {}
    for view in ("stats", "players"):
        r = subprocess.run([str(GB), "--db", str(db), "--no-config", view, "--format", "json"], env=env,
                           capture_output=True, text=True, check=True)
        out[view] = r.stdout
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--runs", default="terminal,plain,batches", help="which runs, comma-separated")
    ap.add_argument("--base-selfplay", type=int, default=0, metavar="K",
                    help="make K more base matches with gnubg-selfplay first (a few seconds each)")
    ap.add_argument("--keep", action="store_true", help="keep the databases and logs (printed where)")
    ap.add_argument("--reuse", action="store_true",
                    help="import the files a run before wrote (benchmarks/.cache/bulk-N), not written again")
    a = ap.parse_args()
    runs = [r for r in a.runs.split(",") if r]
    if a.base_selfplay:
        make_base(a.base_selfplay)
    folder = HERE / ".cache" / f"bulk-{a.matches}"
    t = time.perf_counter()
    if a.reuse and folder.exists():
        print(f"{sum(1 for _ in folder.rglob('*.sgf'))} SGF files of {folder.relative_to(ROOT)} reused", flush=True)
    else:
        made = make_files(a.matches, a.batches, folder)
        print(f"{a.matches} SGF files written to {folder.relative_to(ROOT)} in {time.perf_counter() - t:.1f} s "
              f"({len(made['bases'])} base matches, cuts used per base: min {min(made['used'].values())}, "
              f"max {max(made['used'].values())})", flush=True)
    work = Path(tempfile.mkdtemp(prefix="gnubg-blunder-bulk-"))
    env = _env(work)
    batch_dirs = sorted(p for p in folder.iterdir() if p.is_dir())
    results, figs = {}, {}
    if "terminal" in runs:
        seconds, summary, bar, n_bars = run_terminal(folder, work / "terminal.db", work / "terminal.log", env)
        results["terminal"] = (seconds, summary)
        print(f"terminal (one run, under script): {seconds:.1f} s, {summary.get('stored', 0) / seconds:.2f} "
              f"matches/s; {summary}", flush=True)
        print(f"  the bar at the end: {bar}  ({n_bars} redraws in the log)", flush=True)
        figs["terminal"] = figures(work / "terminal.db", env)
    if "plain" in runs:
        seconds, summaries = run_plain([folder], work / "plain.db", work / "plain.out", work / "plain.err", env)
        summary = summaries[0]
        results["plain"] = (seconds, summary)
        plain_lines = (work / "plain.err").read_text().splitlines()
        print(f"plain (one run, output to files): {seconds:.1f} s, {summary.get('stored', 0) / seconds:.2f} "
              f"matches/s; {summary}", flush=True)
        progress = [ln for ln in plain_lines if ln.startswith("import:")]
        print(f"  {len(progress)} progress lines on standard error"
              + (f", the first: {progress[0]}\n  the last: {progress[-1]}" if progress else ""), flush=True)
        figs["plain"] = figures(work / "plain.db", env)
    if "batches" in runs:
        seconds, summaries = run_plain(batch_dirs, work / "batches.db", work / "batches.out", work / "batches.err",
                                       env)
        stored = sum(s.get("stored", 0) for s in summaries)
        total = {k: sum(s.get(k, 0) for s in summaries) for k in ("files", "stored", "added", "already", "failed")}
        results["batches"] = (seconds, total)
        print(f"batches ({len(batch_dirs)} runs, one folder each): {seconds:.1f} s, {stored / seconds:.2f} "
              f"matches/s; {total}", flush=True)
        figs["batches"] = figures(work / "batches.db", env)
    if "batches" in figs:
        for name in ("terminal", "plain"):
            if name in figs:
                same = {view: figs[name][view] == figs["batches"][view] for view in ("stats", "players")}
                print(f"{name} vs batches: stats JSON {'equal' if same['stats'] else 'DIFFERENT'}, "
                      f"players JSON {'equal' if same['players'] else 'DIFFERENT'}", flush=True)
    any_figs = next(iter(figs.values()), None)
    if any_figs:
        stats = json.loads(any_figs["stats"])
        players = json.loads(any_figs["players"])
        rows = players.get("players") or players.get("rows") or []
        print(f"the figures: {stats.get('matches')} matches, {stats.get('decisions')} decisions, PR "
              f"{stats.get('pr')}, {len(rows)} players", flush=True)
    if a.keep:
        print(f"databases and logs kept in {work}")
    else:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
