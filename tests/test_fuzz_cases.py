"""The cases of the import fuzz run (``benchmarks/fuzz_import.py``, issue
24) that broke the import, kept small (``tests/fixtures/fuzz/README.md``):
each is one line naming the file and the cause, the good file after it is
stored, ``check`` passes.
"""

from __future__ import annotations

import pytest

from conftest import DATA, FIXTURES, run_cli_inprocess, stored_matches

GOOD = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
CASES = {
    # an OverflowError traceback from the array cache before
    "money_score_overflow.xg": "game 2: score 1757975413 impossible in a money session (0 to 32767 points)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fuzz_case_is_one_line_and_the_good_file_is_stored(name, tmp_path):
    case, db = FIXTURES / "fuzz" / name, tmp_path / "t.db"
    res = run_cli_inprocess("import", case, GOOD, db=db, check=False)
    assert res.returncode == 1
    assert "Traceback" not in res.stdout + res.stderr
    assert res.stderr.splitlines() == [f"{case}: error: {CASES[name]}"], res.stderr
    out = res.stdout.splitlines()
    assert len(out) == 2 and out[0].startswith(f"{GOOD}: stored as match 1 (charlot1 vs charlot2"), res.stdout
    assert out[1] == "2 files: 1 stored, 0 analyses added, 0 already stored, 1 failed"
    assert stored_matches(db) == 1
    assert run_cli_inprocess("check", db=db).returncode == 0


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
