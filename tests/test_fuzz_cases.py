"""The cases of the import fuzz run (``benchmarks/fuzz_import.py``, issue
24) that broke the import, kept small (``tests/fixtures/fuzz/README.md``):
each is one line naming the file and the cause, the good file after it is
stored, ``check`` passes.
"""

from __future__ import annotations

import struct
import sys
import time

import pytest

from conftest import DATA, FIXTURES, run_cli_inprocess, stored_matches

sys.path.insert(0, str(FIXTURES.parent / "tools"))
import xg_mutations  # noqa: E402

GOOD = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
CASES = {
    # an OverflowError traceback from the array cache before (the score 1757975413); its automatic doubles
    # (-87254276: a first cube of 0.0) are impossible too, and said first now
    "money_score_overflow.xg": "game 2: -87254276 automatic doubles impossible (0 to 12: a cube of 4096 at most)",
    # 2 ** 735903042 computed for the first cube before: 9 s, a progress line
    "money_auto_doubles_huge.xg": "game 2: 735903042 automatic doubles impossible (0 to 12: a cube of 4096 at most)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fuzz_case_is_one_line_and_the_good_file_is_stored(name, tmp_path):
    case, db = FIXTURES / "fuzz" / name, tmp_path / "t.db"
    start = time.perf_counter()
    res = run_cli_inprocess("import", case, GOOD, db=db, check=False)
    assert time.perf_counter() - start < 5  # milliseconds; the automatic doubles took 9 s
    assert res.returncode == 1
    assert "Traceback" not in res.stdout + res.stderr
    assert res.stderr.splitlines() == [f"{case}: error: {CASES[name]}"], res.stderr
    out = res.stdout.splitlines()
    assert len(out) == 2 and out[0].startswith(f"{GOOD}: stored as match 1 (charlot1 vs charlot2"), res.stdout
    assert out[1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1
    assert run_cli_inprocess("check", db=db).returncode == 0


@pytest.mark.parametrize("score", [40000, -1])
def test_a_money_sessions_score_outside_16_bits_is_the_files_line(score, tmp_path):
    """The score of the fuzz case alone: the game of the money session
    ``v07.xg`` given ``score`` points for player 1, its CRCs recomputed."""
    members = dict(xg_mutations.sample_members((FIXTURES / "xg" / "v07.xg").read_bytes()))
    body = bytearray(members["temp.xg"])
    games = [k for k in range(len(body) // xg_mutations.RECORD) if body[k * xg_mutations.RECORD + 8] == 1]
    struct.pack_into("<i", body, games[0] * xg_mutations.RECORD + 12, score)
    members["temp.xg"] = bytes(body)
    case, db = tmp_path / "score.xg", tmp_path / "t.db"
    case.write_bytes(xg_mutations.build_xg_bytes(members))
    res = run_cli_inprocess("import", case, GOOD, db=db, check=False)
    assert res.returncode == 1 and "Traceback" not in res.stdout + res.stderr
    assert res.stderr.splitlines() == [
        f"{case}: error: game 1: score {score} impossible in a money session (0 to 32767 points)"], res.stderr
    assert res.stdout.splitlines()[-1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1


def test_a_match_the_store_step_cannot_take_is_its_files_line(tmp_path, monkeypatch):
    """The last net of import's store step: whatever storing a match raises
    (a bug of ours or of a plugin's store_match) is that file's line, its
    transaction rolled back, the next file stored."""
    import gnubg_blunder.pipeline as pipeline

    real = pipeline.store_match
    calls = []

    def failing_once(ctx, match):
        calls.append(match)
        if len(calls) == 1:
            raise OverflowError("Python integer 1757975413 out of bounds for int16")
        return real(ctx, match)

    monkeypatch.setattr(pipeline, "store_match", failing_once)
    first, db = FIXTURES / "selfplay" / "m23-3.sgf", tmp_path / "t.db"
    res = run_cli_inprocess("import", first, GOOD, db=db, check=False)
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        f"{first}: error: not stored (OverflowError: Python integer 1757975413 out of bounds for int16)"], res.stderr
    assert res.stdout.splitlines()[-1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1
