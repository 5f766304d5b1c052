"""gnubg's game-record rows (issue 26; docs/review.md, "gnubg's game
record"): the row and column the review, the match page, the quiz and the
cards give for a decision are where the real gnubg lists it.

gnubg's own numbering is read from gnubg itself: its GUI on a virtual
screen (Xvfb) loads each committed self-play match and, game by game, a
Python line inside it reads the rows of its game-record window from the
GTK widget (tests/gnubg_scripts/game_list.py).  One gnubg start serves the
module (a few seconds).  Each stored decision's (row, player) must land on
the cell of gnubg's list holding that very record: its dice and played move
as gnubg writes them, or "Double to N", "Take", "Drop", "Beaver to N"; and
where the probe selected that cell as a click does (every third row, each
cube action), gnubg's board must then be at the decision's position.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import committed_selfplay_file, needs_gnubg, run_cli_inprocess as run_cli
from gui_session import GNUBG, VirtualScreen, wait_for

pytestmark = [needs_gnubg, pytest.mark.skipif(subprocess.run(["which", "Xvfb"], capture_output=True).returncode != 0,
                                              reason="needs Xvfb")]

PROBE = Path(__file__).resolve().parent / "gnubg_scripts" / "game_list.py"
# m23-3: one game, the second player (Strongbot, right) starts, doubles mid-game and Weakbot's take opens a
# row; m1-7: a double and its take share a row, a resigned game; m26-11: a cube of 16, two games started by
# the second player; m3-0: a money session with beavers and raccoons (records the store does not keep)
MATCHES = [(23, 3), (1, 7), (26, 11), (3, 0)]


@pytest.fixture(scope="module")
def gnubg_lists():
    """{file name: [rows of each game]} as the real gnubg's GUI lists them.
    Its files live in a folder of their own, not pytest's: another session's
    pytest may remove older pytest folders while gnubg runs."""
    if "failed" in _RUN:  # a failed start is not tried again for each test of the module
        pytest.fail(_RUN["failed"])
    try:
        with tempfile.TemporaryDirectory(prefix="gnubg-game-list-") as folder:
            return _gnubg_lists(Path(folder))
    except AssertionError as exc:
        _RUN["failed"] = str(exc)
        raise


_RUN: dict = {}


def _gnubg_lists(tmp: Path) -> dict:
    files = tmp / "files.txt"
    files.write_text("".join(f"{committed_selfplay_file(*m)}\n" for m in MATCHES), encoding="utf-8")
    commands = tmp / "commands"
    commands.write_text(f">exec(open({str(PROBE)!r}).read())\n", encoding="utf-8")
    out = tmp / "game-list.json"
    (tmp / "home").mkdir()
    screen = VirtualScreen()
    env = screen.env({**os.environ, "HOME": str(tmp / "home"), "GAME_LIST_FILES": str(files),
                      "GAME_LIST_OUT": str(out)})
    log = open(tmp / "gnubg.out", "w")
    gnubg = subprocess.Popen([GNUBG, "-q", "-c", str(commands)], env=env, cwd=str(tmp), stdin=subprocess.DEVNULL,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: out.exists() or gnubg.poll() is not None, timeout=60, what="gnubg's game lists")
        assert out.exists(), (f"gnubg's GUI exited ({gnubg.returncode}) without writing its game lists: "
                              + (tmp / "gnubg.out").read_text(errors="replace")[-1000:])
        data = json.loads(out.read_text(encoding="utf-8"))
    finally:
        try:
            os.killpg(gnubg.pid, 15)
        except ProcessLookupError:
            pass
        gnubg.wait(timeout=30)
        log.close()
        screen.close()
    return {Path(m["file"]).name: m["games"] for m in data}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """The matches stored by `import` (match IDs in MATCHES' order)."""
    db = tmp_path_factory.mktemp("game-record-db") / "g.db"
    run_cli("import", *[committed_selfplay_file(*m) for m in MATCHES], db=db)
    return db


def _cell(text) -> "str | None":
    """A cell of gnubg's list without its skill marks (??, ?!, ?) and padding."""
    return None if text is None else re.sub(r"[?!\s]+$", "", text)


def _expected(kind: str, played, dice, cube_value: int, cube_owner: int) -> "str | re.Pattern":
    """What gnubg's cell of this decision's record says."""
    if kind == "checker":
        return f"{max(dice)}{min(dice)}: {played}"
    if kind == "nodouble":
        return re.compile(r"\d\d:( |$)")  # the roll's record: gnubg lists the cube decision with the move
    if kind == "double":
        return f"{'Redouble' if cube_owner in (0, 1) else 'Double'} to {2 * cube_value}"
    if kind == "take" and played == "beaver":
        return f"Beaver to {4 * cube_value}"
    return "Take" if kind == "take" else "Drop"


def _gnubg_cell(games, game: int, row: int, player: int, position: bool = False):
    """The text of gnubg's cell (its position when selected, with ``position``)."""
    rows = {r[0]: r for r in games[game - 1]}
    assert row in rows, f"game {game}: gnubg's list has no row {row} (its last: {max(rows)})"
    assert not rows[row][3], f"game {game}, row {row}: a row spanning both columns in gnubg's list"
    return rows[row][4][player] if position else _cell(rows[row][1 + player])


def _shown_position(kind: str, position_id: str, beaver_take: int) -> str:
    """The board gnubg shows when the decision's cell is selected: before its
    record, from the side of the player gnubg has on roll — the decider's
    (the stored position), except for an answer to a double (a take, a
    pass, a beaver), where it is still the doubler's; the take closing a
    beaver chain is stored from the doubler's side already."""
    from gnubg_blunder.board.position import Board
    from gnubg_blunder.model import BEAVER_CLOSE

    if kind in ("take", "pass") and beaver_take != BEAVER_CLOSE:
        return Board.from_position_id(position_id).swapped().position_id()
    return position_id


def _matches(expected, cell) -> bool:
    if isinstance(expected, re.Pattern):
        return cell is not None and bool(expected.match(cell))
    return cell == expected


def test_every_stored_decision_is_where_gnubg_lists_it(gnubg_lists, stored):
    from gnubg_blunder.database import SQLiteStore

    store = SQLiteStore(stored)
    try:
        checked, differ, selected = 0, 0, 0
        for mid, m in enumerate(MATCHES, 1):
            name = committed_selfplay_file(*m).name
            games = gnubg_lists[name]
            rows = store.conn.execute(
                "SELECT d.id, d.game, d.seq, d.player, d.kind, d.played_move, d.dice1, d.dice2, d.cube_value, "
                "d.cube_owner, d.position_id, d.beaver_take FROM decisions d JOIN analyses a ON a.id = d.analysis_id "
                "WHERE a.match_id = ? "
                "ORDER BY d.game, d.seq, d.id", (mid,)).fetchall()
            places = store.gnubg_rows([r[0] for r in rows])
            assert len(games) == 1 + max(r[1] for r in rows), name
            for did, game, seq, player, kind, played, d1, d2, cube, owner, position, beaver in rows:
                row = places[did]
                assert row is not None, f"{name} game {game + 1} move {seq + 1}: no row"
                cell = _gnubg_cell(games, game + 1, row, player)
                want = _expected(kind, played, (d1, d2), cube, owner)
                assert _matches(want, cell), (f"{name} game {game + 1}, move {seq + 1} ({kind} {played}): "
                                              f"row {row}, column {player} is {cell!r} in gnubg, not {want!r}")
                # selected (as a click does), the cell puts gnubg's board at the decision's position
                shown = _gnubg_cell(games, game + 1, row, player, position=True)
                selected += shown is not None
                assert shown is None or shown == _shown_position(kind, position, beaver), (
                    f"{name} game {game + 1}, move {seq + 1} ({kind}): gnubg shows {shown} at row {row}, "
                    f"column {player}, not {_shown_position(kind, position, beaver)}")
                checked += 1
                differ += row != seq + 1
        # the stored move index is not gnubg's row: numbering by it would send a player elsewhere
        assert checked > 900 and differ > checked // 2 and selected > checked // 4
        print(f"{checked} decisions of {len(MATCHES)} matches where gnubg lists them (their record's text; for "
              f"{selected} of them, gnubg's position when their cell is selected); {differ} of them at a row other "
              "than their move index")
    finally:
        store.close()


def test_the_selection_gives_the_stores_rows(stored, monkeypatch):
    """The report's rows, from its selection's arrays (game_record.
    selection_gnubg_rows), are the store's (gnubg's own: the test above),
    read a few matches at a time as well as at once; a selection narrowed
    to some decisions (--family, --collection, select_rows) asks the store."""
    import numpy as np

    from gnubg_blunder import game_record
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.database import SQLiteStore

    store = SQLiteStore(stored)
    try:
        sel = store.select()
        assert sel.whole_analyses and len(sel.rolls)
        ids = sel.decisions.row_id.tolist()
        want = store.gnubg_rows(ids)
        every = np.arange(len(ids))
        assert game_record.selection_gnubg_rows(store, sel, every) == {i: want[r] for i, r in enumerate(ids)}
        some = every[::7][::-1]
        monkeypatch.setattr(game_record, "ROWS_BLOCK", 40)
        assert game_record.selection_gnubg_rows(store, sel, some) == {int(i): want[ids[i]] for i in some}
        narrow = store.select_rows(Filter(), lambda d: d.kind == 0)
        assert not narrow.whole_analyses and not len(narrow.rolls)
        got = game_record.selection_gnubg_rows(store, narrow, np.arange(len(narrow.decisions)))
        assert got == {i: want[int(r)] for i, r in enumerate(narrow.decisions.row_id)}
    finally:
        store.close()


def test_the_reviews_rows_are_gnubgs(gnubg_lists, stored):
    """`review --format json` of each match: each decision to review names the
    row and the column (the player) of gnubg's list that holds its record."""
    shown = []
    for mid, m in enumerate(MATCHES, 1):
        games = gnubg_lists[committed_selfplay_file(*m).name]
        obj = json.loads(run_cli("review", mid, "--format", "json", db=stored).stdout)
        for side in obj["sides"]:
            player = obj["players"].index(side["player"])
            for r in side["review"]:
                assert r["gnubg_column"] == side["player"]
                cell = _gnubg_cell(games, r["game"], r["gnubg_row"], player)
                # the cube owner at the decision, as the review gives it (a name, None centred)
                owner = None if r["cube_owner"] is None else obj["players"].index(r["cube_owner"])
                want = _expected(r["kind"], r["played"], r["dice"], r["cube_value"], -1 if owner is None else owner)
                assert _matches(want, cell), (mid, r["game"], r["move"], r["gnubg_row"], cell, want)
                shown.append((mid, r["game"], r["move"], r["gnubg_row"], side["player"]))
        text = run_cli("review", mid, db=stored).stdout
        for _, game, move, row, player in [s for s in shown if s[0] == mid]:
            assert f"game {game}, move {move} (gnubg row {row}, {player})" in text
    assert len(shown) >= 8
    assert any(move != row for _, _, move, row, _ in shown)
    print("reviewed (match, game, move, gnubg row, column):", shown)


def _decisions_at(store, mid: int) -> dict:
    """{(game from 1, move from 1, player): [(kind, played, dice, cube_value, cube_owner), ...]} of a match."""
    out: dict = {}
    for game, seq, player, kind, played, d1, d2, cube, owner in store.conn.execute(
            "SELECT d.game, d.seq, d.player, d.kind, d.played_move, d.dice1, d.dice2, d.cube_value, d.cube_owner "
            "FROM decisions d JOIN analyses a ON a.id = d.analysis_id WHERE a.match_id = ?", (mid,)):
        out.setdefault((game + 1, seq + 1, player), []).append((kind, played, (d1, d2), cube, owner))
    return out


def _listed_there(games, decisions, game: int, move: int, row: int, player: int) -> bool:
    """Does gnubg's cell (row, player) of ``game`` hold the record of the stored decisions at (game, move)?"""
    cell = _gnubg_cell(games, game, row, player)
    return any(_matches(_expected(*d), cell) for d in decisions[game, move, player])


def test_the_quiz_and_the_match_page_name_gnubgs_row(gnubg_lists, stored, tmp_path):
    """Every question of a quiz over the matches names the row and column of
    gnubg's list that holds its decision, in the question and the answer; the
    match page names each reviewed decision's row."""
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.metrics.counting import Thresholds
    from gnubg_blunder.quiz.core import Grade, choose, feedback_text, question_text
    from gnubg_blunder.database import SQLiteStore

    store = SQLiteStore(stored)
    try:
        items = choose(store, Filter(), Thresholds(), count=0, errors_only=False)
        assert len(items) > 300
        for item in items:
            games = gnubg_lists[committed_selfplay_file(*MATCHES[item.match_id - 1]).name]
            player = store.match_players(item.match_id).index(item.you)
            assert _listed_there(games, _decisions_at(store, item.match_id), item.game + 1, item.move,
                                 item.gnubg_row, player)
            where = f"match {item.match_id}, game {item.game + 1}, move {item.move}, gnubg row {item.gnubg_row}, {item.you}"
            assert where in question_text(item).splitlines()[0]
            assert f"In gnubg: {where}." in feedback_text(item, Grade(status="graded", answer="x", error=0.0))
    finally:
        store.close()
    for mid in range(1, len(MATCHES) + 1):
        page = tmp_path / f"m{mid}.html"
        run_cli("report", "--match", mid, "--html", page, db=stored)
        html = page.read_text(encoding="utf-8")
        obj = json.loads(run_cli("review", mid, "--format", "json", db=stored).stdout)
        for side in obj["sides"]:
            for r in side["review"]:
                assert f"game {r['game']}, move {r['move']} (gnubg row {r['gnubg_row']}, {side['player']})" in html
        assert "<bdi>gnubg row</bdi></th>" in html  # the transcript's column


def test_the_anki_cards_name_gnubgs_row(gnubg_lists, stored, tmp_path):
    """The back of each exported card (rendered by the real Anki) names the
    row and column of gnubg's list that holds its decision."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
    from gnubg_blunder.database import SQLiteStore

    apkg = tmp_path / "deck.apkg"
    run_cli("anki", "export", "--errors", apkg, db=stored)
    (tmp_path / "profile").mkdir()
    col = Collection(str(tmp_path / "profile" / "collection.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(apkg),
                                                         options=ImportAnkiPackageOptions(with_scheduling=False)))
        answers = [col.get_note(nid).cards()[0].answer() for nid in col.find_notes("")]
    finally:
        col.close()
    store = SQLiteStore(stored)
    try:
        pattern = re.compile(r"match (\d+) \(.*?\), game (\d+), move (\d+) \(gnubg row (\d+), <bdi>([^<]*)</bdi>\)")
        found = 0
        for answer in answers:
            mid, game, move, row, name = pattern.search(answer).groups()
            mid, game, move, row = int(mid), int(game), int(move), int(row)
            games = gnubg_lists[committed_selfplay_file(*MATCHES[mid - 1]).name]
            player = store.match_players(mid).index(name)
            assert _listed_there(games, _decisions_at(store, mid), game, move, row, player), answer[-300:]
            found += 1
        assert found == len(answers) > 20
        print(f"{found} Anki cards name the gnubg row of their decision")
    finally:
        store.close()
