"""Hostile text through every output (docs/reliability.md, "Hostile text and
impossible values").

One database holds names, events, comments and move notations made to
break an output: HTML and SQL, spreadsheet formula leaders (= + - @), ESC
sequences (clear the screen, set the window title), a newline, a tab and a
CR, bidi controls, and a 100 KB name.  They come two ways: hand-built
matches stored through the real store (as tests/fixture_db.py does), and
the real gnubg SGF of tests/fixtures/real/sgf with hostile PW/PB/EV/C
properties, imported by the command line.  Every view of the registry is
then run in text, JSON and CSV, its HTML rendered, and the report written:

- text: no control character (Unicode Cc) but the line ends, no bidi
  control, no line or output of the 100 KB name's size;
- CSV: no cell a spreadsheet would run as a formula; numbers stay numbers;
- JSON: valid, names exact (the 100 KB one whole), no raw control or bidi
  character in the text (escaped, lossless);
- HTML: no script element, no event-handler attribute, no javascript: URL;
  the names are there as text.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import DATA
from fixture_db import HOSTILE, build_matches

NAMES = {
    "html": HOSTILE,
    "img": "<img src=x onerror=alert(2)>",
    "sql": "x'); DROP TABLE matches; --",
    "eq": '=HYPERLINK("http://example.invalid/","click")',
    "plus": "+1+1",
    "minus": "-2+3",
    "at": "@SUM(1,1)",
    "esc": "\x1b[2J\x1b]0;owned\x07name",
    "newline": "first line\nsecond line",
    "rtl": "\u202eevil\u202c \u2066x\u2069",
    "long": "L" * 100_000,
    "tabcr": "\tTab\rCR",
}
# the players of the hand-built matches (fixture_db's five, then three copies)
PAIRS = [("eq", "esc"), ("eq", "newline"), ("esc", "rtl"), ("eq", "esc"), ("long", "html"),
         ("sql", "img"), ("plus", "minus"), ("at", "tabcr")]
EVENTS = ['=cmd|" /C calc"!A0', "\x1b[31mred event\x1b[0m", "E" * 100_000, None, None,
          "-event", "@event", "\u202eevent\nnext line"]
COMMENT = "#blitz \x1b[2J<script>alert(3)</script>\n=1+1 \u202e"
# the real SGF's players, event and a comment, as its PW/PB/EV/C
SGF_NAMES = ("=SUM(A1)\x1b[2J]sgf", "\u202eRTL\nsgf \\ name")
SGF_EVENT = "@event\x1b]0;title\x07 <b>bold</b>"

# in text output: no control character but the line end, no bidi control or separator
UNSAFE_TEXT = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
# in a page: no raw control character but tab, newline and CR, no bidi control or separator
UNSAFE_HTML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
TWO_PLAYER_VIEWS = ("compare", "contrast", "h2h")
GNUBG_ID = re.compile(r"[A-Za-z0-9+/]{14}(:[A-Za-z0-9+/]{12})?|[A-Za-z0-9+/]{12}")


def _sgf_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _hostile_sgf(path: Path) -> Path:
    """The real charlot SGF with hostile names, event and a comment."""
    src = (DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf").read_text(encoding="utf-8")
    a, b = SGF_NAMES
    src = src.replace("PW[charlot1]", f"PW[{_sgf_value(a)}]").replace("PB[charlot2]", f"PB[{_sgf_value(b)}]")
    src = src.replace("DT[2025-11-08]", f"DT[2025-11-08]EV[{_sgf_value(SGF_EVENT)}]", 1)
    first_move = src.index(";B[41lpab]")
    src = src[:first_move] + src[first_move:].replace("LU[-inf]", f"LU[-inf]C[{_sgf_value(COMMENT)}]", 1)
    path.write_text(src, encoding="utf-8")
    return path


def _hostile_matches() -> list:
    matches = build_matches() + build_matches()[:3]
    for k, m in enumerate(matches[5:]):  # copies: other rolls, so other matches
        for g in m.games:
            for r in g.rolls:
                r.position_after += f"-hostile-{k}"
    for m, (a, b), event in zip(matches, PAIRS, EVENTS):
        m.players = (NAMES[a], NAMES[b])
        m.event = event
        for d in m.decisions():
            if d.comment:
                d.comment = COMMENT
            if d.kind == "checker":  # move notations a spreadsheet would run
                d.played_move, d.best_move = "-", "=1+1"
    return matches


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> Path:
    from conftest import run_cli_inprocess
    from gnubg_blunder.database import SQLiteStore

    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "hostile.db"
    with SQLiteStore(path) as st:
        for m in _hostile_matches():
            st.add_match(m)
    run_cli_inprocess("import", _hostile_sgf(folder / "hostile.sgf"), db=path)
    run_cli_inprocess("main-player", NAMES["newline"], db=path)
    return path


@pytest.fixture(scope="module")
def views():
    import os

    from gnubg_blunder import plugins
    from gnubg_blunder.commands import get_registry

    os.environ["GNUBG_BLUNDER_NO_PLUGINS"] = "1"
    plugins.reset_plugin_manager()
    return {name: c.view for name, c in get_registry().commands.items() if c.view is not None}


# -- the checks ----------------------------------------------------------------------------

def check_text(out: str, where) -> None:
    bad = UNSAFE_TEXT.search(out)
    assert bad is None, (where, repr(out[max(0, bad.start() - 40):bad.end() + 40]))
    assert len(out) < 300_000, (where, len(out))
    assert max(map(len, out.splitlines()), default=0) < 3_000, where


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def check_csv(out: str, where) -> list:
    from gnubg_blunder.formatting import ID_COLUMNS

    rows = list(csv.reader(io.StringIO(out)))
    assert rows, where
    ids = [h in ID_COLUMNS for h in rows[0]]
    for k, row in enumerate(rows):
        for i, cell in enumerate(row):
            if cell.startswith(FORMULA):
                # an identifier (gnubg's base64: letters, digits, + and / only) is the ID itself
                is_id = k > 0 and i < len(ids) and ids[i] and GNUBG_ID.fullmatch(cell)
                assert _is_number(cell) or is_id, (where, cell[:80])
    return rows


def check_json(out: str, where):
    def refuse(constant):
        raise AssertionError(f"{where}: {constant} is not JSON")

    obj = json.loads(out, parse_constant=refuse)
    bad = UNSAFE_TEXT.search(out)
    assert bad is None, (where, repr(out[max(0, bad.start() - 40):bad.end() + 40]))
    return obj


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def check_html(page: str, where) -> str:
    """No executable HTML: no script element, no on* attribute, no
    javascript: URL, no raw control or bidi character; returns the page's text."""
    bad = UNSAFE_HTML.search(page)
    assert bad is None, (where, repr(page[max(0, bad.start() - 60):bad.end() + 60]))
    p = _Elements()
    p.feed(page)
    p.close()
    assert "script" not in p.tags, where
    for name, value in p.attrs:
        assert not name.lower().startswith("on"), (where, name)
        assert not (value or "").strip().lower().startswith("javascript:"), (where, name)
    for raw in (HOSTILE, NAMES["img"], "<b>bold</b>", "<script>alert(3)"):
        assert raw not in page, (where, raw)
    return "".join(p.text)


# -- every view, every format ----------------------------------------------------------------

def _args(name: str) -> list:
    if name in TWO_PLAYER_VIEWS:
        return [name, NAMES["eq"], NAMES["esc"]]
    return [name] + (["--limit", "0"] if name == "positions" else [])


def test_every_view_is_safe_in_text_json_csv_and_html(hostile_db, views, cli):
    assert set(TWO_PLAYER_VIEWS) <= set(views) and len(views) >= 13
    for name, view in sorted(views.items()):
        args = ["--no-config", *_args(name)]
        text = cli(*args, db=hostile_db).stdout
        check_text(text, (name, "text"))
        obj = check_json(cli(*args, "--format", "json", db=hostile_db).stdout, (name, "json"))
        if view.table is not None:
            check_csv(cli(*args, "--format", "csv", db=hostile_db).stdout, (name, "csv"))
        check_html(view.render(obj, "html"), (name, "html"))
        if view.table is not None:
            check_html(view.table(obj).html(), (name, "html table"))


@pytest.mark.parametrize("player", ["esc", "newline", "rtl", "long", "eq"])
def test_a_hostile_filter_player_names_the_scope_safely(player, hostile_db, views, cli):
    """The filter's player is in every view's first line (and the
    progression's perspective): shown escaped and cut, in every view."""
    for name in sorted(views):
        if name in TWO_PLAYER_VIEWS:
            continue
        text = cli("--no-config", *_args(name), "--player", NAMES[player], db=hostile_db).stdout
        check_text(text, (name, player))
    text = cli("--no-config", "summary", "--player", NAMES[player], "--list", "errors", db=hostile_db).stdout
    check_text(text, ("summary --list", player))


def test_names_are_escaped_and_cut_in_text_exact_in_json(hostile_db, cli):
    from gnubg_blunder.formatting import FIELD_WIDTH

    text = cli("--no-config", "players", db=hostile_db).stdout
    check_text(text, "players")
    # a newline in a name does not split its row: it is shown as \n
    assert "first line\\nsecond line" in text
    assert not any(line.startswith("second line") for line in text.splitlines())
    assert "\\x1b[2J\\x1b]0;owned\\x07name" in text and "\\u202eevil\\u202c" in text
    # the 100 KB name: cut with "…" in text
    cut = [w for w in text.split() if w.startswith("LLLL")]
    assert cut and all(w.endswith("…") and len(w) <= FIELD_WIDTH for w in cut), cut[:1]
    # JSON keeps every name exact and whole
    obj = json.loads(cli("--no-config", "players", "--format", "json", db=hostile_db).stdout)
    names = {p["player"] for p in obj["players"]}
    assert set(NAMES.values()) | set(SGF_NAMES) <= names
    # positions of every decision: before, one 100 KB name made 15.6 MB of text
    out = cli("--no-config", "positions", "--limit", "0", db=hostile_db).stdout
    check_text(out, "positions")
    assert len(out) < 200_000


def test_csv_neutralises_formulas_and_keeps_numbers(hostile_db, cli):
    rows = check_csv(cli("--no-config", "players", "--format", "csv", db=hostile_db).stdout, "players")
    cells = {c for r in rows for c in r}
    for key in ("eq", "plus", "minus", "at", "tabcr"):
        assert "'" + NAMES[key] in cells, key
    # text that is no formula is exact (CSV, like JSON, is data)
    assert NAMES["esc"] in cells and NAMES["newline"] in cells and NAMES["long"] in cells
    # numbers stay numbers: a negative luck is -0.1, not '-0.1
    rows = check_csv(cli("--no-config", "matches", "--format", "csv", db=hostile_db).stdout, "matches")
    luck = [r[rows[0].index("luck_emg")] for r in rows[1:]]
    assert any(c.startswith("-") and _is_number(c) for c in luck), luck
    assert "'" + EVENTS[0] in {r[rows[0].index("event")] for r in rows[1:]}
    # a move notation "-" in a text column is text; "=1+1" is no formula
    rows = check_csv(cli("--no-config", "positions", "--limit", "0", "--format", "csv", db=hostile_db).stdout,
                     "positions")
    played = {r[rows[0].index("played")] for r in rows[1:]}
    assert "'-" in played and "-" not in played
    assert "'=1+1" in {r[rows[0].index("best")] for r in rows[1:]}
    # headers too: compare's columns are the players' names
    rows = check_csv(cli("--no-config", "compare", NAMES["eq"], NAMES["esc"], "--format", "csv",
                         db=hostile_db).stdout, "compare")
    assert "'" + NAMES["eq"] in rows[0]


def test_the_report_has_no_executable_html(hostile_db, cli, tmp_path):
    for extra in ([], ["--player", NAMES["esc"]], ["--player", NAMES["long"]]):
        out = tmp_path / "report.html"
        cli("--no-config", "report", "--html", out, "--title", HOSTILE, *extra, db=hostile_db)
        page = out.read_text(encoding="utf-8")
        text = check_html(page, ("report", extra[:1]))
        assert "could not be made" not in page  # every section rendered
        assert HOSTILE in text and NAMES["img"] in text  # the names are there, as text


def test_the_console_match_summary_is_safe(hostile_db):
    """The summary printed inside gnubg after >bdb.analyse()."""
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.views.match_summary import match_summary_text

    with SQLiteStore(hostile_db) as st:
        ids = [m.id for m in st.select().matches]
        assert len(ids) == 9
        for i in ids:
            check_text(match_summary_text(st, i), ("match summary", i))


def test_a_refused_player_names_the_closest_names_safely(hostile_db, cli):
    res = cli("--no-config", "compare", "owned", NAMES["newline"], db=hostile_db, check=False)
    assert res.returncode == 2 and "closest names" in res.stderr
    assert res.stderr.count("\n") == 1  # one line
    check_text(res.stderr, "unknown player")


def test_import_and_convert_lines_name_the_players_safely(cli, tmp_path):
    """The line an import prints for a stored or already stored match, and
    convert's, carry the file's player names: escaped like every text."""
    sgf = _hostile_sgf(tmp_path / "hostile.sgf")
    db = tmp_path / "i.db"
    for _ in range(2):  # stored, then already stored (the names as stored)
        res = cli("import", sgf, db=db)
        check_text(res.stdout + res.stderr, "import")
    res = cli("convert", sgf, tmp_path / "out.mat", check=False)
    check_text(res.stdout + res.stderr, "convert")


# gnubg position IDs are base64 (A-Z a-z 0-9 + /): a real one may begin with "+"
PLUS_POSITION = "+24DAIBtawQAOA"


def test_csv_writes_identifiers_as_the_id_and_free_text_under_the_formula_rule(cli, tmp_path):
    """An identifier column (formatting.ID_COLUMNS) holds the ID itself, "+"
    first or not; a name "=1+1" or "+1+1" beside it still gets the "'"."""
    from gnubg_blunder.board.position import Board
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.formatting import csv_text

    assert Board.from_position_id(PLUS_POSITION).position_id() == PLUS_POSITION  # a real position
    m = build_matches()[0]
    m.players = ("=1+1", "+1+1")
    for d in m.decisions():
        d.position_id = PLUS_POSITION
        for c in d.candidates or ():
            c.position_id = PLUS_POSITION
    db = tmp_path / "ids.db"
    with SQLiteStore(db) as st:
        st.add_match(m)
    rows = check_csv(cli("--no-config", "positions", "--limit", "0", "--format", "csv", db=db).stdout, "positions")
    head, body = rows[0], rows[1:]
    assert body and {r[head.index("position_id")] for r in body} == {PLUS_POSITION}
    assert Board.from_position_id(body[0][head.index("position_id")]).position_id() == PLUS_POSITION
    assert {r[head.index("player")] for r in body} <= {"'=1+1", "'+1+1"}
    # the rule itself: IDs of every shape as they are; free text and non-IDs protected
    out = list(csv.reader(io.StringIO(csv_text(
        [[PLUS_POSITION, "+24DAIBtawQAOA:+QkAAAAAAAAA", "+QkAAAAAAAA/", "=1+1", "=1+1"],
         ["+1+1", None, "-event", "@SUM(1,1)", "+24DAIBtawQAOA"]],
        ["position_id", "gnubg_id", "match_id", "player", "event"]))))
    assert out[1] == [PLUS_POSITION, "+24DAIBtawQAOA:+QkAAAAAAAAA", "+QkAAAAAAAA/", "'=1+1", "'=1+1"]
    # "+1+1" has no ID's shape: in an ID column too it is text under the rule
    assert out[2] == ["'+1+1", "", "'-event", "'@SUM(1,1)", "'+24DAIBtawQAOA"]


# -- bidi and control characters in HTML and Anki cards (docs/reliability.md) ---------------------

# a right-to-left override that would reverse the heading after it, ESC and BEL
BIDI_NAMES = ("\u202eevil\x1b[2J\x07Ann", "Bob\x07\u202e\x1b]0;t")
BIDI_EVENT, BIDI_COMMENT = "\u202eevent\x07", "comment \u202e\x1b[2J\x07"


def _shown_name(name: str) -> str:
    from html import escape

    from gnubg_blunder.formatting import safe_text

    return escape(safe_text(name, None))  # the rule text output uses: \u202e, \x1b, \x07


class _Isolation(HTMLParser):
    """Every piece of text holding one of ``marks``: was it inside a
    ``<bdi>`` (or an element with dir="auto"), a <title> or an SVG (no
    flow text of the page)?"""

    VOID = {"meta", "br", "img", "hr", "input", "link", "col", "wbr"}

    def __init__(self, marks):
        super().__init__(convert_charrefs=True)
        self.marks, self.stack, self.found = marks, [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs).get("dir")))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if any(m in data for m in self.marks):
            isolated = any(t in ("bdi", "title", "svg") or d == "auto" for t, d in self.stack)
            self.found.append((isolated, data[:80], [t for t, _ in self.stack][-4:]))


def check_isolated(page: str, where) -> int:
    """No raw control or bidi character in ``page``; each name of
    BIDI_NAMES, the event and the comment shown escaped and inside an
    isolate; returns how many."""
    from html import unescape

    bad = UNSAFE_HTML.search(page)
    assert bad is None, (where, repr(page[max(0, bad.start() - 60):bad.end() + 60]))
    p = _Isolation([unescape(_shown_name(n)) for n in (*BIDI_NAMES, BIDI_EVENT, BIDI_COMMENT)])
    p.feed(page)
    p.close()
    assert p.found, where
    assert all(ok for ok, *_ in p.found), (where, [f for f in p.found if not f[0]][:3])
    return len(p.found)


@pytest.fixture(scope="module")
def bidi_db(tmp_path_factory) -> Path:
    from gnubg_blunder.database import SQLiteStore

    path = tmp_path_factory.mktemp("bidi") / "bidi.db"
    m = build_matches()[0]
    m.players = BIDI_NAMES
    m.event = BIDI_EVENT
    for d in m.decisions():
        d.comment = BIDI_COMMENT
    with SQLiteStore(path) as st:
        st.add_match(m)
    return path


def test_the_match_page_isolates_names_and_escapes_control_characters(bidi_db, cli, tmp_path):
    out = tmp_path / "m.html"
    cli("--no-config", "report", "--match", "1", "--html", out, db=bidi_db)
    page = out.read_text(encoding="utf-8")
    assert check_isolated(page, "match page") >= 6  # heading, head, review, chart note, transcript
    a, b = (_shown_name(n) for n in BIDI_NAMES)
    assert f"<h1>Match 1: <bdi>{a}</bdi> vs <bdi>{b}</bdi></h1>" in page
    assert f"<td class=\"l\"><bdi>{a}</bdi> vs <bdi>{b}</bdi></td>" in page
    assert "\\u202e" in page and "\\x1b[2J" in page and "\\x07" in page  # visible, as text shows them


def test_the_report_isolates_names_and_comments_and_escapes_control_characters(bidi_db, cli, tmp_path):
    out = tmp_path / "r.html"
    cli("--no-config", "report", "--html", out, db=bidi_db)
    page = out.read_text(encoding="utf-8")
    assert "could not be made" not in page  # every section rendered
    assert check_isolated(page, "report") >= 20  # the summary's decisions, every table, the sections' heads
    assert f"<bdi>{_shown_name(BIDI_COMMENT)}</bdi>" in page and "\\x1b[2J" in page


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_a_browser_reads_the_match_heading_in_order(bidi_db, cli, tmp_path):
    """The DOM Chromium builds: the heading's text in order, each name in
    its own <bdi>, no raw control character (tests/test_match_report.py's flags)."""
    import subprocess

    from test_report import CHROMIUM, CHROMIUM_FLAGS

    out = tmp_path / "m.html"
    cli("--no-config", "report", "--match", "1", "--html", out, db=bidi_db)
    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                          out.as_uri()], capture_output=True, text=True, timeout=120).stdout
    h1 = re.search(r"<h1>(.*?)</h1>", dom, re.S).group(1)
    a, b = (_shown_name(n) for n in BIDI_NAMES)
    assert h1 == f"Match 1: <bdi>{a}</bdi> vs <bdi>{b}</bdi>"
    text = re.sub(r"<[^>]+>", "", h1)
    assert text.index("Match 1:") < text.index("evil") < text.index(" vs ") < text.index("Bob")
    check_isolated(dom, "chromium DOM")


def test_an_anki_card_isolates_names_and_escapes_control_characters(bidi_db, cli, tmp_path):
    """`anki export` read back by the real Anki library (tests/test_anki.py)."""
    anki_collection = pytest.importorskip("anki.collection")

    apkg = tmp_path / "a.apkg"
    res = json.loads(cli("--no-config", "anki", "export", "--errors", "--format", "json", str(apkg),
                         db=bidi_db).stdout)
    assert res["notes"]
    col_path = tmp_path / "profile" / "collection.anki2"
    col_path.parent.mkdir()
    col = anki_collection.Collection(str(col_path))
    try:
        col.import_anki_package(anki_collection.ImportAnkiPackageRequest(
            package_path=str(apkg), options=anki_collection.ImportAnkiPackageOptions(with_scheduling=False)))
        nids = col.find_notes("")
        assert len(nids) == len(res["notes"])
        for nid in nids:
            card = col.get_note(nid).cards()[0]
            for side, html in (("question", card.question()), ("answer", card.answer())):
                check_isolated(html, (nid, side))
            assert f"<bdi>{_shown_name(BIDI_NAMES[0])}</bdi>" in card.answer()
        answer, css = card.answer(), card.note_type()["css"]
    finally:
        col.close()
    if shutil.which("chromium") is None:
        return
    # the last card as Anki's webview shows it (its model's CSS): Chromium's DOM keeps the sentence in order
    import subprocess

    from test_report import CHROMIUM, CHROMIUM_FLAGS

    page = tmp_path / "card.html"
    page.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{css}</style></head>'
                    f'<body class="card">{answer}</body></html>', encoding="utf-8")
    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile2'}", "--dump-dom",
                          page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    check_isolated(dom, "card in chromium")
    a, b = (_shown_name(n) for n in BIDI_NAMES)
    score = r"score <bdi>{}</bdi> \d+, <bdi>{}</bdi> \d+ in a 7-point match"
    assert re.search(score.format(re.escape(b), re.escape(a)), dom) or re.search(score.format(re.escape(a),
                                                                                       re.escape(b)), dom)
    assert re.search(f"; <bdi>{re.escape(b)}</bdi>'s most recent play|; <bdi>{re.escape(a)}</bdi>'s most", dom)


def test_the_quiz_shows_hostile_names_escaped(hostile_db):
    """Every quiz question and graded answer of the hostile matches (a
    name with escape sequences, a newline, bidi controls) prints the
    names escaped, as every text view does."""
    from gnubg_blunder.db_settings import thresholds_for
    from gnubg_blunder.filters import Filter
    from gnubg_blunder.quiz.core import choose, feedback_text, grade, question_text
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(hostile_db, upgrade=False) as st:
        items = choose(st, Filter(), thresholds_for(st), count=0, seed=1, errors_only=False)
    hostile = [i for i in items if i.you in NAMES.values() or i.opponent in NAMES.values()]
    assert hostile, "the hostile matches give quiz questions"
    for item in hostile:
        check_text(question_text(item), ("quiz question", item.you))
        answer = "take" if item.responds else ("no double" if item.cube_question else item.candidates[0]["move"])
        shown = feedback_text(item, grade(item, answer))
        check_text(shown.replace("\n", " "), ("quiz answer", item.you))
