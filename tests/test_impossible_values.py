"""Values no analysis writes (docs/reliability.md, "Hostile text and impossible
values"), on real files edited into hostile copies in tmp_path:

- a candidate equity, a cube figure or a luck of nan, inf or 1e308 (or
  beyond the documented bounds) refuses the file with one line naming the
  game and move, and the database stays byte-for-byte as it was;
- a date that is no day of the calendar (2026-13-45) stores the match
  undated, with a warning on the file's line;
- gnubg's LU[-inf] (luck never computed) still imports as unknown luck.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from conftest import DATA, FIXTURES, gnubg_match_dump

CHARLOT = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
XG = DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"  # another match

# a candidate of A[]: "[letters E ver 3 p1 p2 p3 p4 p5 SCORE ..."
CANDIDATE = re.compile(r"(\[[a-z]+ E ver \d+(?: \S+){5} )(\S+)")


def _games(lines: list) -> list:
    """Line numbers of each game's root (every node of these files is a line)."""
    return [i for i, line in enumerate(lines) if line.startswith("(;")]


def edit_node(text: str, game: int, where, edit) -> tuple:
    """``text`` with ``edit(line)`` applied to one node of game ``game``
    (1-based): the first node ``where(line)`` accepts.  Returns (the new
    text, the node's move number as the views count it: records from 1).
    Every node before it in its game is a move or cube action (W[]/B[]),
    so its record number is its node number."""
    lines = text.split("\n")
    starts = _games(lines) + [len(lines)]
    for k, i in enumerate(range(starts[game - 1] + 1, starts[game])):
        line = lines[i]
        assert line.startswith((";W[", ";B[")), line[:40]
        if where(line):
            new = edit(line)
            assert new != line
            lines[i] = new
            return "\n".join(lines), k + 1
    raise AssertionError(f"no such node in game {game}")


def candidate_equity(value: str, index: int = 0):
    def edit(line):
        m = list(CANDIDATE.finditer(line))[index]
        return line[:m.start(2)] + value + line[m.end(2):]
    return edit


def cube_figure(value: str, which: str):
    """DA[E ver 3 2C 1 noise 1 <7 no-double outputs> <7 double/take outputs>]:
    the cubeful figure (the 7th) of ``which`` ("nd" or "dt")."""
    def edit(line):
        start = line.index("DA[") + 3
        end = line.index("]", start)
        toks = line[start:end].split(" ")
        assert len(toks) == 21, toks
        toks[13 if which == "nd" else 20] = value
        return line[:start] + " ".join(toks) + line[end:]
    return edit


def luck(value: str):
    return lambda line: line.replace("LU[-inf]", f"LU[{value}]")


def _snapshot(db: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(db.parent.iterdir()) if p.name.startswith(db.name)}


@pytest.fixture
def stored_db(tmp_path, cli) -> Path:
    """A database holding a real match (an XG file) already."""
    db = tmp_path / "db" / "test.db"
    db.parent.mkdir()
    cli("import", XG, db=db)
    return db


CASES = [
    # (id, game, node chooser, edit, the value as the line shows it)
    ("candidate nan", 1, lambda l: " E ver " in l, candidate_equity("nan"), "nan"),
    ("candidate inf", 3, lambda l: l.count(" E ver ") > 5, candidate_equity("inf", 2), "inf"),
    ("candidate -inf", 2, lambda l: " E ver " in l, candidate_equity("-inf", 1), "-inf"),
    ("candidate 1e308", 4, lambda l: " E ver " in l, candidate_equity("1e308"), "1e+308"),
    # finite, but beyond what any MWC gives at 0-0 of a 7-point match with the cube at 1 (±15.97)
    ("candidate 40", 1, lambda l: " E ver " in l, candidate_equity("40"), "40.0"),
    ("cube nd nan", 2, lambda l: "DA[E" in l, cube_figure("nan", "nd"), "nan"),
    ("cube dt inf", 3, lambda l: "DA[E" in l, cube_figure("inf", "dt"), "inf"),
    ("cube MWC 1e308", 1, lambda l: "DA[E" in l, cube_figure("1e308", "nd"), "1e+308"),
    ("cube MWC 2", 2, lambda l: "[double]DA[E" in l, cube_figure("2.0", "dt"), "2.0"),
    ("luck nan", 2, lambda l: "LU[-inf]" in l, luck("nan"), "nan"),
    ("luck inf", 4, lambda l: "LU[-inf]" in l, luck("inf"), "inf"),
    ("luck 1e308", 1, lambda l: "LU[-inf]" in l, luck("1e308"), "1e+308"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_an_impossible_value_refuses_the_file_by_name(case, stored_db, cli, tmp_path):
    name, game, where, edit, shown = case
    text, move = edit_node(CHARLOT.read_text(encoding="utf-8"), game, where, edit)
    hostile = tmp_path / "hostile.sgf"
    hostile.write_text(text, encoding="utf-8")
    before = _snapshot(stored_db)
    res = cli("import", hostile, db=stored_db, check=False)
    assert res.returncode == 1, res.stdout
    line = res.stderr.strip()
    assert "\n" not in line and line.startswith(f"{hostile}: error: "), line
    assert f"game {game}, move {move}: " in line and f" is {shown}," in line, line
    assert "nothing stored" in line and "0 stored" in res.stdout
    assert _snapshot(stored_db) == before  # byte for byte
    # the file as it was imports (the edit alone was refused)
    assert "stored as match 2" in cli("import", CHARLOT, db=stored_db).stdout


def test_real_money_equities_pass_and_beyond_the_bound_is_refused(committed_selfplay, cli, tmp_path):
    """A real gnubg money session reaches 5.7 EMG (a double/take, normalised
    to the cube before the double): stored.  17 (past the documented 16) is
    refused, naming its game and move."""
    from gnubg_blunder.importers.build import MONEY_EQUITY_BOUND
    from gnubg_blunder.importers.sgf import read_match

    real = committed_selfplay(42, 0)  # committed: its largest equity (5.74) lies between the bounds
    m = read_match(real)
    seen = max(abs(v) for d in m.decisions() for v in [d.nd, d.dt] + [c.equity for c in d.candidates or []]
               if v is not None)
    assert 3 < seen < MONEY_EQUITY_BOUND
    db = tmp_path / "money.db"
    assert "stored as match 1" in cli("import", real, db=db).stdout
    text, move = edit_node(real.read_text(encoding="utf-8"), 2, lambda l: " E ver " in l,
                           candidate_equity("17"))
    hostile = tmp_path / "money-hostile.sgf"
    hostile.write_text(text, encoding="utf-8")
    before = _snapshot(db)
    res = cli("import", hostile, db=tmp_path / "other.db", check=False)
    assert res.returncode == 1 and f"game 2, move {move}: " in res.stderr and "is 17.0" in res.stderr
    assert not (tmp_path / "other.db").exists()
    assert _snapshot(db) == before


def test_the_live_gnubg_match_refuses_nan_and_keeps_minus_inf_luck_unknown(committed_selfplay):
    """``gnubg.match()`` (the real dump of a gnubg-analysed match): a nan
    candidate score is refused by game and move; luck-value -inf is unknown."""
    from gnubg_blunder.importers.gnubg_match import match_from_dict
    from gnubg_blunder.importers.records import MatchImportError

    dump = gnubg_match_dump(committed_selfplay(11, 5))  # committed: it has a game 2 with an analysed move
    records = dump["games"][1]["game"]
    k = next(i for i, r in enumerate(records) if (r.get("analysis") or {}).get("moves"))
    bad = copy.deepcopy(dump)
    bad["games"][1]["game"][k]["analysis"]["moves"][0]["score"] = float("nan")
    with pytest.raises(MatchImportError, match=rf"^game 2, move {k + 1}: .* is nan,"):
        match_from_dict(bad)
    bad = copy.deepcopy(dump)
    bad["games"][1]["game"][k]["analysis"]["luck-value"] = float("inf")
    with pytest.raises(MatchImportError, match=rf"^game 2, move {k + 1}: the luck of the roll is inf,"):
        match_from_dict(bad)
    unknown = copy.deepcopy(dump)
    unknown["games"][1]["game"][k]["analysis"]["luck-value"] = float("-inf")
    rolls = {(r.game, r.seq): r for r in match_from_dict(unknown).rolls()}
    assert rolls[(1, k)].luck is None
    assert match_from_dict(dump).rolls() and {(r.game, r.seq): r for r in match_from_dict(dump).rolls()}[
        (1, k)].luck is not None


@pytest.mark.parametrize("date", ["2026-13-45", "2025-02-30", "2025-11"])
def test_an_impossible_date_stores_the_match_undated_with_a_warning(date, cli, tmp_path):
    text = CHARLOT.read_text(encoding="utf-8").replace("DT[2025-11-08]", f"DT[{date}]")
    hostile = tmp_path / "date.sgf"
    hostile.write_text(text, encoding="utf-8")
    db = tmp_path / "date.db"
    res = cli("import", hostile, db=db)
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"{hostile}: stored as match 1 ")
    assert f"warning: date '{date}' is not a calendar date: the match is stored undated" in lines[0]
    obj = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)
    assert [m["date"] for m in obj["matches"]] == [None]
    assert obj["matches"][0]["players"] == ["charlot1", "charlot2"]
    # the undated match is one of the views' undated matches
    assert "1 undated match left out" in cli("--no-config", "progression", db=db).stdout


def test_a_calendar_date_is_kept_without_a_warning(cli, tmp_path):
    db = tmp_path / "ok.db"
    res = cli("import", CHARLOT, db=db)
    assert "warning" not in res.stdout + res.stderr
    obj = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)
    assert [m["date"] for m in obj["matches"]] == ["2025-11-08"]


def test_minus_inf_luck_still_imports_as_unknown(cli, tmp_path):
    """Every roll of the real charlot SGF has LU[-inf] (gnubg never computed
    its luck): stored, with unknown luck (null), never 0 or refused."""
    text = CHARLOT.read_text(encoding="utf-8")
    assert text.count("LU[-inf]") == 189 and "LU[" not in text.replace("LU[-inf]", "")
    db = tmp_path / "luck.db"
    assert "stored as match 1" in cli("import", CHARLOT, db=db).stdout
    obj = json.loads(cli("--no-config", "matches", "--format", "json", db=db).stdout)
    for side in obj["matches"][0]["sides"]:
        assert side["luck_emg"] is None and side["luck_rolls"] == 0
    # a test fixture written by gnubg 1.08 with LU[-inf] on some rolls
    from gnubg_blunder.importers.sgf import read_match

    excerpt = FIXTURES / "sgf" / "luck_inf_gnubg108_excerpt.sgf"
    n = excerpt.read_text(encoding="utf-8").count("LU[-inf]")
    m = read_match(excerpt, require_analysis=False)
    assert n and sum(r.luck is None for r in m.rolls()) >= n
