"""Raw control characters from a file in an error line (issue 24, item 4).

An SGF whose ``CA[]`` names an unknown charset is refused with the value
echoed. The value here holds ESC sequences (clear the screen, red), a BEL,
CR/LF and a forged line ``corpus/m9999.sgf: stored as match 99``: the
refusal is exactly one line with every such character escaped as text
output escapes it (``formatting.py``: ``\\x1b``, ``\\x07``, ``\\n``), in
``import``, ``convert``, ``watch`` and inside gnubg (``>bdb("import …")``); a path holding a newline is shown
escaped too. Before, the value was echoed raw: the terminal cleared and
recoloured, and the forged line stood on its own.
"""

from __future__ import annotations

import os
import signal
import subprocess

from conftest import DATA, needs_gnubg, run_cli, run_cli_inprocess, stored_matches
from test_watch import STOPPED_WITHIN, Watch

GOOD = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"  # analysed by gnubg
HOSTILE = b"\x1b[2J\x1b[31mX\x07\r\ncorpus/m9999.sgf: stored as match 99"
# the value as the line shows it (the SGF reader keeps the LF of the CR/LF: the CR is dropped, never printed)
SHOWN = r"\x1b[2J\x1b[31mX\x07\ncorpus/m9999.sgf: stored as match 99"
RAW = ("\x1b", "\x07", "\r")


def _hostile(path):
    path.write_bytes(GOOD.read_bytes().replace(b"CA[UTF-8]", b"CA[" + HOSTILE + b"]", 1))
    return path


def _clean(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)
    assert not any(line.startswith("corpus/m9999.sgf") for line in text.splitlines()), text



def test_import_echoes_the_charset_escaped_in_one_line(tmp_path):
    bad, db = _hostile(tmp_path / "bad.sgf"), tmp_path / "t.db"
    res = run_cli_inprocess("import", bad, GOOD, db=db, check=False)
    assert res.returncode == 1
    _clean(res.stdout + res.stderr)
    assert res.stderr.splitlines() == [f"{bad}: error: not a readable SGF file: unknown charset CA[{SHOWN}]"]
    assert res.stdout.splitlines()[-1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1


def test_convert_echoes_the_charset_escaped_in_one_line(tmp_path):
    bad, out = _hostile(tmp_path / "bad.sgf"), tmp_path / "out.mat"
    res = run_cli_inprocess("convert", bad, out, check=False)
    assert res.returncode == 1
    _clean(res.stdout + res.stderr)
    assert res.stderr.splitlines() == [f"error: {bad}: not a readable SGF file: unknown charset CA[{SHOWN}]"]


def test_a_path_holding_a_newline_is_shown_escaped(tmp_path):
    bad = _hostile(tmp_path / "x\ncorpus\x1b[2J.sgf")
    res = run_cli_inprocess("import", bad, db=tmp_path / "t.db", check=False)
    assert res.returncode == 1
    _clean(res.stdout + res.stderr)
    assert res.stderr.splitlines() == [
        f"{tmp_path}/x\\ncorpus\\x1b[2J.sgf: error: not a readable SGF file: unknown charset CA[{SHOWN}]"]


def test_watch_refuses_it_in_one_escaped_line(tmp_path):
    db, folder = tmp_path / "t.db", tmp_path / "folder"
    folder.mkdir()
    bad = _hostile(folder / "bad.sgf")
    w = Watch(db, folder)
    startup = "start-up: 1 match file already in the folder: 0 stored, 0 analyses added, 0 already stored, 1 refused"
    w.wait_for(lambda w: any(line.startswith(startup) for line in w.out), "start-up line")
    assert w.stop(signal.SIGTERM, timeout=STOPPED_WITHIN) == 0, w.lines()
    _clean("\n".join(w.lines()))
    assert w.err == [f"{bad}: refused: not a readable SGF file: unknown charset CA[{SHOWN}]"], w.lines()


@needs_gnubg
def test_inside_gnubg_the_line_is_escaped_and_the_good_file_stored(tmp_path):
    home, db = tmp_path / "home", tmp_path / "t.db"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1", GNUBG_BLUNDER_DB=str(db))
    env.pop("XDG_DATA_HOME", None)
    run_cli("install-gnubg", env=env)
    bad = _hostile(tmp_path / "bad.sgf")
    res = subprocess.run(["/usr/games/gnubg", "-t"], input=f'>bdb("import {bad} {GOOD}")\n>print("@@ end")\n',
                         capture_output=True, text=True, env=env, timeout=300)
    out = res.stdout + res.stderr
    assert "Traceback" not in out and "@@ end" in out, out
    _clean(out)
    assert f"{bad}: error: not a readable SGF file: unknown charset CA[{SHOWN}]" in out.splitlines(), out
    assert "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed" in out, out
    assert stored_matches(db) == 1


def test_bdb_open_xg_says_a_hostile_path_escaped(tmp_path, capsys):
    """``>bdb.open_xg(PATH)``'s one line shows the path escaped too (its
    refusal comes before gnubg is asked: callable outside gnubg)."""
    from gnubg_blunder.gnubg.console import Bdb

    missing = tmp_path / "x\ncorpus/m9999.sgf: stored as match 99\x1b[2J.xg"
    assert Bdb(db_path=str(tmp_path / "t.db")).open_xg(str(missing)) is None
    out = capsys.readouterr().out
    _clean(out)
    assert out.splitlines() == [
        f"gnubg-blunder: {tmp_path}/x\\ncorpus/m9999.sgf: stored as match 99\\x1b[2J.xg: no such file"], out
