"""Shared test fixtures: paths to the real sample files (``tests/fixtures/real``),
the real gnubg, and real gnubg-analysed matches made with the project's own
``tests/tools/gnubg-selfplay``.  Nothing outside the repository is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Real XG and gnubg files with their reference figures (MIT; see its README.md).
DATA = FIXTURES / "real"
SELFPLAY_TOOL = Path(__file__).resolve().parent / "tools" / "gnubg-selfplay"
# Matches made by gnubg are kept between runs (they take 5-30 s each).
SELFPLAY_CACHE = Path(os.environ.get("GNUBG_BLUNDER_SELFPLAY_CACHE", ROOT / "tests" / ".selfplay-cache"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The tests never read or write the user's saved filter or database.
import tempfile as _tempfile  # noqa: E402

_ISOLATED = Path(_tempfile.mkdtemp(prefix="gnubg-blunder-tests-"))
os.environ["GNUBG_BLUNDER_CONFIG"] = str(_ISOLATED / "config.yaml")
os.environ.setdefault("GNUBG_BLUNDER_DB", str(_ISOLATED / "default.db"))


def side(points: dict) -> tuple:
    """A board half as gnubg stores it: 25-tuple from {point: checkers},
    points 1..24 from that side's home, 25 = bar."""
    s = [0] * 25
    for p, n in points.items():
        s[p - 1] = n
    return tuple(s)


def random_boards(seed: int, n: int) -> list:
    """Boards met in random play (hits, bar, bear-off, dances), player on roll varying."""
    import random

    from gnubg_blunder.board.moves import legal_plays
    from gnubg_blunder.board.position import Board

    rng = random.Random(seed)
    board = Board.initial()
    boards = []
    while len(boards) < n:
        plays = legal_plays(board, rng.randint(1, 6), rng.randint(1, 6))
        if plays:
            board = rng.choice(plays).result
        boards.append(board)
        board = Board.initial() if board.checkers_off()[0] == 15 else board.swapped()
    return boards


def gnubg_available() -> bool:
    try:
        from gnubg_blunder.gnubg.process import find_gnubg

        find_gnubg()
        return True
    except Exception:
        return False


needs_gnubg = pytest.mark.skipif(not gnubg_available(), reason="needs /usr/games/gnubg")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real sample files, ``tests/fixtures/real`` (= ``DATA``)."""
    return DATA


def make_selfplay(seed: int, length: int, plies: int = 0) -> Path:
    """A real gnubg bot match, analysed by gnubg and saved as SGF, with gnubg's
    own ``show statistics match`` beside it (``.stats.txt``)."""
    SELFPLAY_CACHE.mkdir(parents=True, exist_ok=True)
    sgf = SELFPLAY_CACHE / f"m{seed}-{length}.sgf"
    stats = sgf.with_suffix(".stats.txt")
    if plies:
        sgf = SELFPLAY_CACHE / f"p{plies}" / f"m{seed}-{length}.sgf"
        stats = sgf.with_suffix(".stats.txt")
    if not (sgf.exists() and stats.exists() and stats.stat().st_size > 0):
        subprocess.run(
            ["bash", str(SELFPLAY_TOOL), str(sgf.parent), str(seed), str(length), str(plies)],
            check=True,
            capture_output=True,
            timeout=900,
        )
    return sgf


@pytest.fixture(scope="session")
def selfplay():
    """Factory: ``selfplay(seed, length, plies=0) -> Path`` to a real analysed SGF."""
    if not gnubg_available():
        pytest.skip("needs /usr/games/gnubg")
    return make_selfplay


_DUMP_SCRIPT = r"""
import gnubg, json
gnubg.command('load match "%(sgf)s"')
with open(%(out)r, "w") as fh:
    json.dump(gnubg.match(analysis=1, boards=1, statistics=1), fh)
"""


def gnubg_match_dump(sgf: Path) -> dict:
    """``gnubg.match(statistics=1)`` of a file as the real gnubg loads it:
    its records and its own statistics (cached beside the file)."""
    import json

    from gnubg_blunder.gnubg.process import run_python

    out = sgf.with_suffix(".match.json")
    if not out.exists() or out.stat().st_mtime < sgf.stat().st_mtime:
        res = run_python(_DUMP_SCRIPT % {"sgf": str(sgf.resolve()), "out": str(out)}, timeout=300)
        if not out.exists():
            raise RuntimeError(f"gnubg did not dump {sgf}: {res.stdout[-500:]} {res.stderr[-500:]}")
    with open(out, encoding="utf-8") as fh:
        return json.load(fh)


def run_cli(*args, db=None, env=None, check=True):
    """Run ``gnubg-blunder`` as a user would (a subprocess), plugins off."""
    import os

    # a whole environment (one with PATH) is used as it is; a few variables
    # are added to this process' environment
    e = dict(env) if env and "PATH" in env else {**os.environ, **(env or {})}
    e["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    cmd = [sys.executable, "-m", "gnubg_blunder"]
    if db is not None:
        cmd += ["--db", str(db)]
    res = subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, env=e, timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"gnubg-blunder {' '.join(map(str, args))} exited {res.returncode}: {res.stderr}")
    return res
