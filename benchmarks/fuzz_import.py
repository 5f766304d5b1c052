"""Fuzz the whole import (issue 24): mutated XG and SGF files imported by the
real command line beside a good file, ``gnubg-blunder --db FRESH.db import
CASE GOOD.sgf``, then ``gnubg-blunder --db FRESH.db check``.

    .venv/bin/python benchmarks/fuzz_import.py [--xg N] [--sgf N] [--seed S] [--jobs J]
                                               [--subprocesses K] [--keep DIR]
    .venv/bin/python benchmarks/fuzz_import.py --case xg:123 --write CASE.xg   # one case, to look at

The cases:

- **XG**: a real file (the three of ``../shared/data/xg/``, the built files of
  ``tests/fixtures/xg/``) taken apart, 1-3 changes made to the records of its
  ``temp.xg`` (``tests/tools/xg_mutations.py``: bytes flipped, fields
  overwritten with edge values, a record replaced by random bytes), sometimes
  its comments or rollouts made up, and the container put back together with
  every CRC recomputed: the change reaches the record parsers and the
  importer behind them, not only the checksum test.
- **SGF**: byte mutations of a real gnubg file (``tests/fixtures/selfplay/``,
  mostly the small m23-3): bytes flipped (a few: most flips make the text
  invalid UTF-8, refused by the tokenizer), set to printable ASCII or to
  SGF's own characters, ranges cut, copied or inserted (random bytes, mostly
  ASCII), the file truncated, a property value
  replaced by a hostile one (huge, negative, non-finite, control and bidi
  characters, bytes that are not UTF-8), a property renamed.

GOOD is ``../shared/data/sgf/charlot1-charlot2_7p_2025-11-08-2305.sgf`` (a
match no case is made from but the XG charlot one: then GOOD is its analysis
added, or already stored). Each case must give:

- no traceback (an exception out of ``commands.run``, ``Traceback`` in the
  output), no hang (60 s);
- for a refused CASE exactly one line on standard error, ``CASE: error: …``,
  with no raw control or bidi character; for a stored one (a harmless change)
  its stored line and nothing on standard error;
- GOOD's line, its match in the database (its ``analyses.source_path``), the
  summary line, exit status 1 exactly when CASE was refused;
- ``check`` passing on the database.

Cases run in ``--jobs`` processes (at most 2 by default: the machine has 2
cores), each calling the command line's ``commands.run`` in-process with its
output captured; the first ``--subprocesses`` cases of each kind run again as
real processes (``python -m gnubg_blunder``) and must print the same lines.
Every problem case is written to ``--keep`` (default
``benchmarks/.cache/fuzz_import/``) with its output. Counts per outcome are
printed; the exit status is 1 if any case had a problem.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import multiprocessing
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, ROOT / "tests" / "tools"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import xg_mutations  # noqa: E402  (tests/tools: the mutations and the rebuild with CRCs)

DATA = ROOT.parent / "shared" / "data"
GOOD = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
XG_BASES = [DATA / "xg" / n for n in ("match_with_comment.xg", "charlot1-charlot2_7p_2025-11-08-2305.xg",
                                      "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg")]
XG_BASES += sorted((ROOT / "tests" / "fixtures" / "xg").glob("*.xg"))
SGF_SMALL = ROOT / "tests" / "fixtures" / "selfplay" / "m23-3.sgf"
SGF_OTHERS = sorted(p for p in (ROOT / "tests" / "fixtures" / "selfplay").glob("*.sgf") if p != SGF_SMALL)
CASE_SECONDS = 60
SLOW_SECONDS = 3.0
PROBLEMS = ("traceback", "hang", "not one line", "unescaped line", "GOOD not stored", "check failed",
            "wrong exit status", "no summary", "subprocess differs", "caught by the safety net")
# A line naming an exception class a program's bug raises: the file was
# refused by the last net (pipeline.read_failure, import's store step), not
# by a check that says what is wrong with it.
_SAFETY_NET = re.compile(r"\((KeyError|IndexError|TypeError|AttributeError|OverflowError|ValueError|ZeroDivisionError|"
                         r"AssertionError|RecursionError|NameError|struct\.error|error|OSError|MemoryError)[:)]")


# ---------------------------------------------------------------------------
# The cases: (seed, kind, index) -> (bytes, what was done), reproducible
# ---------------------------------------------------------------------------

_BASES: dict = {}


def _base(path: Path) -> bytes:
    if path not in _BASES:
        _BASES[path] = path.read_bytes()
    return _BASES[path]


def xg_case(seed: int, index: int):
    rng = random.Random(f"{seed}:xg:{index}")
    base = rng.choice(XG_BASES)
    members = dict(xg_mutations.sample_members(_base(base)))
    body = bytearray(members["temp.xg"])
    what = [base.name] + [xg_mutations.mutate_records(body, rng) for _ in range(rng.randrange(1, 4))]
    members["temp.xg"] = bytes(body)
    r = rng.random()
    if r < 0.1:
        members["temp.xgc"] = b"\r\n".join(xg_mutations.random_rtf(rng) for _ in range(rng.randrange(1, 6)))
        what.append("random comments")
    elif r < 0.15:
        members["temp.xgr"] = bytes(rng.randrange(256) for _ in range(rng.choice([0, 2184, 2184 * 2, rng.randrange(5000)])))
        what.append("random rollouts")
    return xg_mutations.build_xg_bytes(members, compression_level=1), "; ".join(what)


_HOSTILE_VALUES = [b"99999999999999999999", b"-1", b"-99999", b"0", b"nan", b"inf", b"-inf", b"1e308", b"",
                   b"\x1b[2J\x07", b"\xe2\x80\xae", b"\xff\xfe\xc3", b"\r\nx.sgf: stored as match 1",
                   b"a" * 5000, b"\\", b"]", b"[", b"0:0", b"ab", b"zz", b"25", b"64", b"-0.5", b"1.5"]
_SGF_CHARS = b"[]();\\:\n ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-."


def _mutate_sgf(b: bytearray, rng: random.Random) -> str:
    n = len(b)
    r = rng.random()
    if r < 0.06:  # most flips make the text invalid UTF-8, refused by the tokenizer: few of them
        k = rng.randrange(1, 9)
        for _ in range(k):
            b[rng.randrange(n)] ^= rng.randrange(1, 256)
        return f"{k} flips"
    if r < 0.2:  # printable ASCII: the text stays UTF-8, the change reaches the values
        k = rng.randrange(1, 9)
        for _ in range(k):
            b[rng.randrange(n)] = rng.randrange(32, 127)
        return f"{k} ASCII bytes"
    if r < 0.35:
        k = rng.randrange(1, 6)
        for _ in range(k):
            b[rng.randrange(n)] = rng.choice(_SGF_CHARS)
        return f"{k} SGF characters"
    if r < 0.45:
        at, size = rng.randrange(n), rng.randrange(1, 300)
        del b[at : at + size]
        return f"cut {size} at {at}"
    if r < 0.55:
        at, size, to = rng.randrange(n), rng.randrange(1, 2000), rng.randrange(n)
        b[to:to] = b[at : at + size]
        return f"copied {size} from {at} to {to}"
    if r < 0.62:
        at = rng.randrange(n)
        b[at:at] = bytes(rng.randrange(256) if rng.random() < 0.2 else rng.randrange(32, 127)
                         for _ in range(rng.randrange(1, 40)))
        return f"random bytes at {at}"
    if r < 0.68:
        cut = rng.randrange(n)
        del b[cut:]
        return f"truncated at {cut}"
    opens = [m.start() for m in re.finditer(rb"\[", b)]
    if not opens:
        return "no value"
    at = rng.choice(opens) + 1
    end = b.find(b"]", at)
    end = n if end < 0 else end
    if r < 0.93:
        value = rng.choice(_HOSTILE_VALUES)
        if rng.random() < 0.3:  # inside the value, not in place of it
            pos = rng.randrange(at, end + 1)
            b[pos:pos] = value
            return f"value inserted at {pos}: {value[:20]!r}"
        b[at:end] = value
        return f"value at {at} = {value[:20]!r}"
    # a property renamed: the letters before the value
    start = at - 1
    while start > 0 and 65 <= b[start - 1] <= 90:
        start -= 1
    name = bytes(rng.choice(b"ABCDEGHKLMNOPRSTUVWXZ") for _ in range(rng.randrange(1, 3)))
    b[start : at - 1] = name
    return f"property at {start} renamed {name.decode()}"


def sgf_case(seed: int, index: int):
    rng = random.Random(f"{seed}:sgf:{index}")
    base = SGF_SMALL if rng.random() < 0.9 or not SGF_OTHERS else rng.choice(SGF_OTHERS)
    b = bytearray(_base(base))
    what = [base.name] + [_mutate_sgf(b, rng) for _ in range(rng.randrange(1, 4))]
    return bytes(b), "; ".join(what)


def make_case(seed: int, kind: str, index: int):
    return (xg_case if kind == "xg" else sgf_case)(seed, index)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------


class _Hang(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Hang()


def _raw_characters(line: str) -> bool:
    """A control or bidi character left raw in a line (what escaping removes)."""
    return any(unicodedata.category(c) in ("Cc", "Cf") or unicodedata.bidirectional(c) in
               ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI") for c in line)


def _run_inprocess(argv):
    from gnubg_blunder.commands import Context, run

    out, err = io.StringIO(), io.StringIO()
    ctx = Context(out=out, err=err)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run(argv, ctx)
    finally:
        ctx.close()
    return int(status), out.getvalue(), err.getvalue()


def _run_subprocess(argv):
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
    try:
        res = subprocess.run([sys.executable, "-m", "gnubg_blunder", *argv], capture_output=True, text=True,
                             env=env, timeout=2 * CASE_SECONDS, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise _Hang()
    return res.returncode, res.stdout, res.stderr


def _good_stored(db: Path) -> bool:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return con.execute("SELECT count(*) FROM analyses WHERE source_path = ?", (str(GOOD),)).fetchone()[0] > 0
        finally:
            con.close()
    except sqlite3.Error:
        return False


# progress.py's plain line, every 10 s of a slow run (not a terminal): not a file's line
_PROGRESS_LINE = re.compile(r"^[\w-]+: \d+/\d+ files, .* elapsed, about .* left(; .*)?$")

_STORED = ("stored as match", "analysis added as match", "already stored as match")


def judge(case: Path, db: Path, run) -> tuple:
    """(outcome, the lines said, detail): run ``import CASE GOOD`` and
    ``check`` with ``run`` (in-process or a real process) and judge them."""
    base = ["--no-config", "--db", str(db)]
    try:
        status, out, err = run(base + ["import", str(case), str(GOOD)])
    except _Hang:
        return "hang", "", f"no answer within {CASE_SECONDS} s"
    except Exception:
        return "traceback", "", traceback.format_exc()
    said = out + err
    if "Traceback" in said:
        return "traceback", said, ""
    err_lines = [l for l in err.splitlines() if not _PROGRESS_LINE.match(l)]
    out_lines = out.splitlines()
    case_out = [l for l in out_lines if l.startswith(f"{case}: ")]
    refused = bool(err_lines)
    if refused:
        if len(err_lines) != 1 or not err_lines[0].startswith(f"{case}: error: ") or case_out:
            return "not one line", said, ""
        if _raw_characters(err_lines[0]):
            return "unescaped line", said, ""
        if _SAFETY_NET.search(err_lines[0][len(f"{case}: error: "):]):
            return "caught by the safety net", said, ""
        outcome = "refused: one line"
    else:
        if len(case_out) != 1 or not any(s in case_out[0] for s in _STORED):
            return "not one line", said, ""
        if _raw_characters(case_out[0]):
            return "unescaped line", said, ""
        outcome = "stored with a warning" if "warning:" in case_out[0] else "stored (a harmless change)"
    if not any(l.startswith(f"{GOOD}: ") and any(s in l for s in _STORED) for l in out_lines) or not _good_stored(db):
        return "GOOD not stored", said, ""
    if not out_lines or not out_lines[-1].startswith("2 files: "):
        return "no summary", said, ""
    if status != (1 if refused else 0):
        return "wrong exit status", said, f"exit {status}"
    try:
        cstatus, cout, cerr = run(base + ["check"])
    except _Hang:
        return "hang", said, "check did not answer"
    except Exception:
        return "traceback", said, "check: " + traceback.format_exc()
    if cstatus != 0 or "Traceback" in cout + cerr:
        return "check failed", said, cout + cerr
    return outcome, said, ""


def _without_progress(said: str) -> list:
    return [l for l in said.splitlines() if not _PROGRESS_LINE.match(l)]


_WORK = None


def _init(work: str):
    global _WORK
    os.environ["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    _WORK = Path(tempfile.mkdtemp(prefix=f"w{os.getpid()}-", dir=work))
    signal.signal(signal.SIGALRM, _on_alarm)
    _run_inprocess(["--no-config", "--help"])  # the package imported: the first case is timed as the others


def run_case(task):
    """A worker's job: one case in-process, and again as a real process
    when asked; (kind, index, what, outcome, lines, detail, reason, seconds)."""
    seed, kind, index, also_subprocess = task
    data, what = make_case(seed, kind, index)
    case = _WORK / f"case-{kind}-{index}.{kind}"
    db = _WORK / f"case-{kind}-{index}.db"
    case.write_bytes(data)
    start = time.perf_counter()
    signal.alarm(CASE_SECONDS)
    try:
        outcome, said, detail = judge(case, db, _run_inprocess)
    except _Hang:
        outcome, said, detail = "hang", "", ""
    finally:
        signal.alarm(0)
    took = time.perf_counter() - start
    if also_subprocess and outcome not in PROBLEMS:
        for p in db.parent.glob(db.name + "*"):
            p.unlink()
        sub_outcome, sub_said, sub_detail = judge(case, db, _run_subprocess)
        if sub_outcome != outcome:
            outcome, detail = sub_outcome, f"as a process: {sub_detail}"
            said = sub_said
        elif _without_progress(sub_said) != _without_progress(said):
            outcome, detail = "subprocess differs", f"in-process:\n{said}\nas a process:\n{sub_said}"
    reason = ""
    if outcome == "refused: one line":
        line = said.splitlines()[-1] if said else ""
        for l in said.splitlines():
            if l.startswith(f"{case}: error: "):
                line = l[len(f"{case}: error: "):]
        reason = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)[:90]
    if outcome in PROBLEMS:
        keep = Path(os.environ["FUZZ_KEEP"])
        keep.mkdir(parents=True, exist_ok=True)
        (keep / case.name).write_bytes(data)
        (keep / (case.name + ".txt")).write_text(f"{outcome}\n{what}\n{said}\n{detail}\n")
    for p in case.parent.glob(case.name + "*"):
        p.unlink()
    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    return kind, index, what, outcome, reason, took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xg", type=int, default=2000, help="XG cases (default 2000)")
    ap.add_argument("--sgf", type=int, default=2000, help="SGF cases (default 2000)")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--subprocesses", type=int, default=50,
                    help="the first K cases of each kind also run as real processes (default 50)")
    ap.add_argument("--keep", default=str(ROOT / "benchmarks" / ".cache" / "fuzz_import"))
    ap.add_argument("--work", default=None, help="folder for the cases and databases (default: a temporary one)")
    ap.add_argument("--case", help="KIND:N: only make that case (with --write)")
    ap.add_argument("--write", help="where --case writes its file")
    args = ap.parse_args(argv)
    if args.case:
        kind, index = args.case.split(":")
        data, what = make_case(args.seed, kind, int(index))
        Path(args.write or f"case-{kind}-{index}.{kind}").write_bytes(data)
        print(what)
        return 0
    os.environ["FUZZ_KEEP"] = args.keep
    tasks = [(args.seed, "xg", i, i < args.subprocesses) for i in range(args.xg)]
    tasks += [(args.seed, "sgf", i, i < args.subprocesses) for i in range(args.sgf)]
    outcomes = {"xg": collections.Counter(), "sgf": collections.Counter()}
    reasons = {"xg": collections.Counter(), "sgf": collections.Counter()}
    problems = []
    slowest = (0.0, "")
    slow = []  # cases over SLOW_SECONDS in-process (import and check): what to look at first
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(args.jobs, initializer=_init, initargs=(work,)) as pool:
            for n, (kind, index, what, outcome, reason, took) in enumerate(
                    pool.imap_unordered(run_case, tasks, chunksize=4), 1):
                outcomes[kind][outcome] += 1
                if reason:
                    reasons[kind][reason] += 1
                if outcome in PROBLEMS:
                    problems.append(f"{kind}:{index} {outcome}: {what}")
                    print(f"PROBLEM {kind}:{index} {outcome}: {what}", flush=True)
                if took > SLOW_SECONDS:
                    slow.append(f"{kind}:{index}")
                if took > slowest[0]:
                    slowest = (took, f"{kind}:{index}")
                if n % 500 == 0:
                    print(f"... {n}/{len(tasks)} cases, {time.perf_counter() - start:.0f} s", flush=True)
    took = time.perf_counter() - start
    print(f"\nseed {args.seed}, {len(tasks)} cases in {took:.0f} s ({args.jobs} processes; "
          f"the first {args.subprocesses} of each kind also as real processes); slowest case {slowest[0]:.2f} s "
          f"({slowest[1]}); {len(slow)} over {SLOW_SECONDS:g} s{': ' + ', '.join(slow[:10]) if slow else ''}")
    for kind in ("xg", "sgf"):
        total = sum(outcomes[kind].values())
        if not total:
            continue
        print(f"{kind.upper()}: {total} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes[kind].items())))
        for reason, count in reasons[kind].most_common(8):
            print(f"    {count:5d}  {reason}")
    print(f"problems: {len(problems)}" + (f" (kept in {args.keep})" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
