"""Progress of long work (issue 13, docs/progress.md): a bar on a terminal,
plain lines elsewhere and inside gnubg, gnubg's own progress within a file
relayed by ``analyse``.  Nothing here is timed."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import needs_gnubg
from gnubg_blunder import progress as progress_mod
from gnubg_blunder.commands import Context
from gnubg_blunder.gnubg.process import run_commands
from gnubg_blunder.progress import Progress

REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "sgf"
CHARLOT = "charlot1-charlot2_7p_2025-11-08-2305"


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_off_a_terminal(monkeypatch):
    """Not a terminal: no bar; a plain line (count, rate, elapsed, time
    left) at most every PLAIN_EVERY seconds, none once all are done."""
    monkeypatch.setattr(progress_mod, "PLAIN_EVERY", 0.0)
    ctx = Context(out=io.StringIO(), err=io.StringIO())
    with Progress(ctx, 3, "import") as p:
        assert p.bar is None
        p.print("a.sgf: stored")
        p.advance()
        p.advance()
        p.advance()
    assert ctx.out.getvalue() == "a.sgf: stored\n"
    lines = ctx.err.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert re.fullmatch(r"import: 1/3 files, [\d.?]+ files/s, 00:00 elapsed, about \S+ left", lines[0]), lines[0]
    assert lines[1].startswith("import: 2/3 files, ")


def test_no_line_for_a_batch_done_sooner():
    ctx = Context(out=io.StringIO(), err=io.StringIO())
    with Progress(ctx, 50, "import") as p:
        for _ in range(50):
            p.advance()
    assert ctx.err.getvalue() == ""


def test_inside_gnubg_lines_never_a_bar(monkeypatch):
    """gnubg's console (a terminal or the GUI's window): lines, on the
    command's output (not as errors: bdb adds no exit-status line)."""
    monkeypatch.setattr(progress_mod, "PLAIN_EVERY", 0.0)
    ctx = Context(out=_Tty(), err=_Tty(), inside_gnubg=True)
    with Progress(ctx, 2, "import") as p:
        assert p.bar is None
        p.advance()
        p.detail("m.mat: gnubg analysing the match, move 5/10")
    out = ctx.out.getvalue().splitlines()
    assert out[0].startswith("import: 1/2 files, ") and ctx.err.getvalue() == ""
    assert out[1].endswith("; m.mat: gnubg analysing the match, move 5/10")


def test_a_bar_on_a_terminal():
    ctx = Context(out=_Tty(), err=_Tty())
    with Progress(ctx, 2, "import") as p:
        assert p.bar is not None
        p.print("a.sgf: stored")
        p.advance()
        p.advance()
    assert ctx.out.getvalue() == "a.sgf: stored\n"
    assert "2/2" in ctx.err.getvalue() and "file/s" in ctx.err.getvalue()


def _on_pty(argv: list, cwd) -> str:
    """What a terminal shows of ``argv`` (stdin, stdout and stderr on one
    pseudo-terminal of 100 × 30)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "GNUBG_BLUNDER_NO_PLUGINS": "1"}
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    out = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=300)
    os.close(master)
    return out.decode("utf-8", "replace")


def test_import_of_a_folder_on_a_terminal(tmp_path):
    """``import FOLDER`` at a terminal: the per-file lines and the summary
    as always, and tqdm's bar with the count and the rate."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):
        shutil.copy(REAL / f"{CHARLOT}.sgf", folder / f"m{i}.sgf")
    shown = _on_pty([sys.executable, "-m", "gnubg_blunder", "--db", str(tmp_path / "t.db"), "import", "in"],
                    tmp_path)
    lines = [s for s in re.split(r"[\r\n]", shown) if s.strip()]
    assert any(s.startswith("in/m0.sgf: stored as match 1") for s in lines), lines
    assert sum("already stored (match 1" in s for s in lines) == 2, lines
    assert lines[-1] == "3 files: 1 stored, 0 analyses added, 2 already stored, 0 failed", lines
    bars = [s for s in lines if s.startswith("import:")]
    assert bars and re.search(r"100%\|.*\| 3/3 \[", bars[-1]) and "file/s" in bars[-1], bars


FAKE_GNUBG = textwrap.dedent("""\
    #!{python}
    # prints what gnubg prints while analysing, on a terminal only
    import os, sys, time
    sys.stdin.read()
    print("GNU Backgammon (fake)")
    if os.isatty(1):
        sys.stdout.write("Analysing match; move:")
        for k in (3, 7, 10):
            sys.stdout.write(f"\\rAnalysing match; move: {{k}}/10\\r")
            sys.stdout.flush()
            time.sleep(0.05)
        sys.stdout.write("\\r" + " " * 79 + "\\r")
    print("GNUBG_BLUNDER_DUMPED")
    print("terminal" if os.isatty(1) else "pipe", file=sys.stderr)
""")


def test_gnubg_progress_relayed_and_taken_out_of_its_output(tmp_path, monkeypatch):
    fake = tmp_path / "gnubg"
    fake.write_text(FAKE_GNUBG.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setenv("GNUBG", str(fake))
    seen = []
    res = run_commands("analyse match\n", progress=lambda what, done, total: seen.append((what, done, total)))
    assert seen == [("match", 3, 10), ("match", 7, 10), ("match", 10, 10)]
    assert res.returncode == 0 and res.stderr == "terminal\n"
    assert res.stdout == "GNU Backgammon (fake)\nGNUBG_BLUNDER_DUMPED\n", repr(res.stdout)
    plain = run_commands("analyse match\n")
    assert plain.stdout == res.stdout and plain.stderr == "pipe\n"


@needs_gnubg
@pytest.mark.gnubg
def test_real_gnubg_prints_its_progress_on_a_terminal(tmp_path):
    """The contract with gnubg: while ``analyse match`` runs it prints
    "Analysing match; move: N/M" to a terminal; the output is otherwise the
    same as on a pipe."""
    mat = REAL / f"{CHARLOT}.mat"
    script = (f'set analysis chequerplay evaluation plies 1\nset analysis cubedecision evaluation plies 1\n'
              f'import mat "{mat}"\nanalyse match\n')
    seen = []
    res = run_commands(script, progress=lambda what, done, total: seen.append((what, done, total)), timeout=300)
    assert seen, res.stdout[-500:]
    assert {w for w, _, _ in seen} == {"match"} and {t for _, _, t in seen} == {203}
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)
    assert "Analysing" not in res.stdout
    assert res.stdout == run_commands(script, timeout=300).stdout
