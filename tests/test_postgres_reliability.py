"""The PostgreSQL engine under concurrency, crashes, hostile text, a
read-only role and passwords (issue 14, "Must show"), on a real server
(tests/pg_cluster.py) with real processes:

1. 8 ``gnubg-blunder import`` processes over overlapping sets of the real
   match files and 2 gnubg sessions storing with ``>bdb.store()``, all at
   once on one database: every match once, every count as one clean
   import of the same files gives (and two writers making the tables of
   a new database at once);
2. an importer killed by SIGKILL before each statement it sends, and at
   random moments (tests/pg_processes.py): each match whole or absent, and
   the import run again completes the set;
3. names, events, aliases, collections and a file name made to break SQL
   or text (quotes, ``'; DROP TABLE``, ``%s``, ``?``, ``$1``, ``\\``, NUL,
   combining marks, right-to-left text, bytes that are not UTF-8): read
   back exactly, as SQLite gives them, the tables still there;
4. a role granted SELECT alone reads every view and refuses to import in
   one line, writing nothing;
5. a password in the URL (``--db`` or GNUBG_BLUNDER_DB) appears in no
   output, JSON or page, whether the command fails or works;
6. the server lost in the middle of a run, or never answering:
   tests/test_postgres_lost_server.py.

The SQLite counterparts: tests/test_store_reliability.py,
tests/test_import_reliability.py, tests/test_hostile_output.py.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote, urlsplit

import pytest

import test_store_reliability as sqlite_reliability
from conftest import DATA, FIXTURES, needs_gnubg, run_cli, without_progress
from pg_processes import TABLES, signature

HERE = Path(__file__).resolve().parent
CHARLOT_SGF = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
CHARLOT_XG = DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg"
MONEY_SGF = FIXTURES / "sgf" / "money_session.sgf"
SMALL_SGF = FIXTURES / "sgf" / "analysed_eval.sgf"

# Fixture files the importer refuses, by design (Nackgammon; no analysis):
# an import of them exits 1, and the processes here must all exit 0.
REFUSED = {"hand_latin1.sgf", "rules_variant.sgf", "match_info_cube_resign.sgf", "resign_comment.sgf"}
FILES = [f for f in sorted((DATA / "sgf").glob("*.sgf")) + sorted((DATA / "xg").glob("*.xg"))
         + sorted((FIXTURES / "sgf").glob("*.sgf")) + sorted((FIXTURES / "xg").glob("*.xg"))
         if f.name not in REFUSED]
STORED_LINE = re.compile(r": (stored as match \d+|analysis added as match \d+|already stored) \(")


@pytest.fixture
def new_database(pg_server):
    """``new_database()``: the name of a fresh empty database, dropped after the test."""
    made = []

    def make():
        made.append(pg_server.create_database())
        return made[-1]

    yield make
    for name in made:
        try:
            pg_server.drop_database(name)
        except Exception:  # a cluster thrown away anyway
            pass


def _cli_env(**extra) -> dict:
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", OPENBLAS_NUM_THREADS="1")
    env.update(extra)
    return env


def _importer(url: str, files: list) -> subprocess.Popen:
    # --jobs 1: eight importers on two CPUs are concurrency enough (reading in several processes: test_import_jobs.py)
    return subprocess.Popen([sys.executable, "-m", "gnubg_blunder", "--db", url, "import", "--jobs", "1",
                             *map(str, files)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_cli_env())


def _matches_json(url: str, *args) -> list:
    from conftest import run_cli_inprocess

    return json.loads(run_cli_inprocess("matches", "--format", "json", *args, db=url).stdout)["matches"]


def _figures(matches: list) -> dict:
    """What ``matches --format json`` counts, summed and per match, ids
    and names aside: the order of storing differs, and the file stored
    first gives the names (XG's v08 and v24 files of one match spell them
    differently)."""
    per_match = sorted(
        (m["length"], m["games"], sorted((a["engine"], a["depth"]) for a in m["analyses"]),
         sorted(s["decisions"] for s in m["sides"]), sorted(s["luck_rolls"] for s in m["sides"]))
        for m in matches)
    return {"matches": len(matches), "analyses": sum(len(m["analyses"]) for m in matches),
            "decisions": sum(s["decisions"] for m in matches for s in m["sides"]),
            "rolls": sum(s["luck_rolls"] for m in matches for s in m["sides"]), "per_match": per_match}


def _tables(pg_server, dbname: str) -> list:
    return sorted(r[0] for r in pg_server.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'", dbname=dbname))


# -- 1. processes at once ----------------------------------------------------------------


def _shares(files: list, k: int) -> list:
    """Importer k's files: half of them (each file is in 4 of the 8 sets;
    two sets share from none to 8 of ~10 files), from another starting
    point, every other importer in reverse order."""
    mine = [f for i, f in enumerate(files) if (5 * i + k) % 8 < 4]
    mine = mine[k * 2 % len(mine):] + mine[:k * 2 % len(mine)]
    return mine[::-1] if k % 2 else mine


@needs_gnubg
def test_eight_importers_and_two_gnubg_sessions_store_at_once(pg_server, new_database, tmp_path, selfplay,
                                                              monkeypatch):
    in_gnubg = [selfplay(2, 7), selfplay(1, 7), selfplay(11, 5)]
    files = [str(f) for f in FILES + in_gnubg]
    clean, shared = pg_server.admin_url(new_database()), pg_server.admin_url(new_database())
    # a new database: the writers make its tables at once too (one makes
    # them, the others find them made)

    # the reference: one import of every file into a new database (while
    # gnubg is set up)
    p = _importer(clean, files)
    env = sqlite_reliability._gnubg_home(tmp_path)
    out, err = p.communicate(timeout=300)
    assert (p.returncode, without_progress(err)) == (0, ""), err
    want = signature(clean)
    assert want["tables"]["matches"] == len(FILES) - 6 + 3  # XG charlot: another analysis; v24..v40 = v08; clocks
    assert want["tables"]["analyses"] == want["tables"]["matches"] + 1

    # gnubg sessions storing the self-play matches and a fixture each (the
    # importers have them too); their exit status kept
    sessions = [in_gnubg + [str(CHARLOT_SGF)], in_gnubg[::-1] + [str(MONEY_SGF)]]
    gnubgs = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            gnubgs.append(self)

    monkeypatch.setattr(sqlite_reliability, "subprocess", SimpleNamespace(
        Popen=Recorded, PIPE=subprocess.PIPE, STDOUT=subprocess.STDOUT))
    ready, go = threading.Barrier(3, timeout=120), threading.Event()
    outputs = [None, None]

    def session(i):
        def wait():
            ready.wait()
            go.wait(timeout=120)
        outputs[i] = sqlite_reliability._gnubg_stores(env, sessions[i], shared, go=wait)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    ready.wait()  # both gnubg sessions loaded the plugin
    procs = [_importer(shared, _shares(files, k)) for k in range(8)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # gnubg stores once the importers are storing
        made = pg_server.execute("SELECT to_regclass('matches') IS NOT NULL", dbname=urlsplit(shared).path[1:])
        if made[0][0] and pg_server.execute("SELECT COUNT(*) FROM matches", dbname=urlsplit(shared).path[1:])[0][0]:
            break
        time.sleep(0.02)
    running = sum(p.poll() is None for p in procs)
    go.set()
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    for t in threads:
        t.join(timeout=300)
    assert running >= 4  # gnubg stored while importers were storing

    for (out, err, code), k in zip(results, range(8)):
        assert (code, without_progress(err)) == (0, ""), (k, err[-2000:])
        lines = out.splitlines()
        assert len(lines) == len(_shares(files, k)) + 1, out
        assert all(STORED_LINE.search(line) for line in lines[:-1]), out
        assert " 0 failed" in lines[-1]
    assert [g.returncode for g in gnubgs] == [0, 0]
    for i, text in enumerate(outputs):
        said = [line for line in text.splitlines() if line.startswith("gnubg-blunder: ")]
        results_said = [line for line in said if STORED_LINE.search(line.replace("gnubg-blunder: ", ": ", 1))]
        assert len(results_said) == len(sessions[i]), text[-3000:]
        assert "Traceback" not in text and "cannot store" not in text and "error" not in " ".join(said), text

    # every match once, every row of every analysis, as the clean import
    got = signature(shared)
    assert got == want
    assert len(set(got["matches"])) == got["tables"]["matches"]
    assert _figures(_matches_json(shared)) == _figures(_matches_json(clean))


def test_a_writer_waiting_for_the_lock_finds_the_tables_another_made(pg_url):
    """Two writers open a new database at once: both find no tables, one
    takes the write lock and makes them, the other waits for the lock and
    must then find them made (pg_schema.migrate reads the version again
    under the lock).  It does not: pg_schema.current_version asks
    ``to_regclass('meta')``, which in the transaction that waited answers
    from the backend's catalog cache as it was before the wait (no lock on
    a table was taken since, so the other writer's invalidations were not
    read), so it makes the tables again: 'relation "meta" already exists'
    (8 importers and 2 gnubg sessions on a new database: 2 runs in 9)."""
    from gnubg_blunder.database import open_store
    from gnubg_blunder.store import pg_schema
    from gnubg_blunder.store.pg_sql import PgConnection

    other = PgConnection(pg_url)  # another process making the tables
    other.execute("BEGIN IMMEDIATE")
    opened = {}

    def second():
        try:
            with open_store(pg_url) as st:
                opened["matches"] = st.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        except Exception as exc:  # what the user sees
            opened["error"] = str(exc)

    waiting = threading.Thread(target=second)
    waiting.start()
    try:
        watch = PgConnection(pg_url)
        deadline = time.monotonic() + 30
        try:  # until the second writer waits for the write lock
            while not watch.execute(
                    "SELECT COUNT(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                    "WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()"
            ).fetchone()[0]:
                assert time.monotonic() < deadline, opened
                time.sleep(0.01)
        finally:
            watch.close()
        for stmt in pg_schema._statements(pg_schema.CREATE):
            other.execute(stmt)
        other.execute("INSERT INTO meta(key, value) VALUES('schema_version', ?)", (str(pg_schema.CREATED_VERSION),))
        other.execute("COMMIT")
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()
        waiting.join(timeout=60)
    assert opened == {"matches": 0}


# -- 2. an importer killed ---------------------------------------------------------------


def test_a_killed_importer_leaves_each_match_whole_or_absent(pg_server, new_database):
    """The database holds the real charlot match (gnubg's analysis); the
    import stores the money session (a new match) and XG's analysis of the
    charlot match (an analysis added).  It is killed before each statement
    it sends (k = 0 .. until it finishes first) and at 10 random moments."""
    template, clean = new_database(), new_database()
    run_cli("import", CHARLOT_SGF, db=pg_server.admin_url(template))
    run_cli("import", CHARLOT_SGF, MONEY_SGF, CHARLOT_XG, db=pg_server.admin_url(clean))
    cfg = {"admin": pg_server.admin_url("postgres"), "template": template, "clean": pg_server.admin_url(clean),
           "files": [str(MONEY_SGF), str(CHARLOT_XG)], "random": 10}
    try:
        res = subprocess.run([sys.executable, str(HERE / "pg_processes.py"), json.dumps(cfg)], capture_output=True,
                             text=True, timeout=600, env=_cli_env())
    finally:
        pg_server.drop_database(f"{template}_trials")
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout)
    assert "error" not in out, out
    assert out["clean"]["matches"] == 2 and out["clean"]["analyses"] == 3
    assert all(out["resets"])

    sweep = out["sweep"]
    *killed, last = sweep
    assert last["end"] == ["exit", 0]  # the import ran len(killed) statements
    assert all(t["end"] == ["signal", 9] for t in killed) and len(killed) >= 30
    inside = [t for t in killed if t["in_transaction"]]
    # both write transactions killed at each of their statements, from the
    # advisory lock to COMMIT
    assert [t["statement"] for t in inside].count("COMMIT") == 2
    assert [t["statement"] for t in inside].count("SELECT pg_advisory_xact_lock(%s)") == 2
    assert len(inside) >= 28
    for t in killed + out["random"]:
        assert t["partial"] == [], t
    # what a kill left: the template alone, the money session whole, and
    # (after the second COMMIT) the whole set
    assert sorted({(t["matches"], t["analyses"]) for t in killed}) == [(1, 1), (2, 2), (2, 3)]
    assert {(t["matches"], t["analyses"]) for t in inside} == {(1, 1), (2, 2)}
    again = [t for t in killed + out["random"] if "again" in t]
    assert len(again) >= 3 + 10
    for t in again:
        assert t["again"]["code"] == 0 and t["again"]["err"] == "" and t["complete"], t
        assert t["again"]["summary"][0].endswith(" 0 failed")
    assert sum(t["killed"] for t in out["random"]) == 10  # landed inside an import, however busy the machine


# -- 3. hostile text ---------------------------------------------------------------------

NAMES = {
    "quotes": "O'Brien \"Ace\" `tick` ''",
    "drop": "'; DROP TABLE matches; --",
    "format": "%s %(name)s %d {0} %%",
    "qmark": "who? ?? ?1 :name",
    "percent": "100% luck_%_",
    "backslash": "C:\\new\\table\\ \\x00 \\\\",
    "dollar": "$1 $$ $body$ $",
    "combining": "Zoe\u0308 e\u0301\u0327 \u0301lead",
    "rtl": "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u202eevil\u202c \u2067x\u2069",
    "nul": "nul\x00inside",
    "mark": "\uffff%00 starts with the codec's mark %25",
    "drop2": "x'); DROP TABLE games; DELETE FROM analyses; --",
}
PAIRS = [("quotes", "drop"), ("format", "qmark"), ("percent", "backslash"), ("dollar", "combining"),
         ("rtl", "nul"), ("mark", "drop2")]
EVENTS = ["'; DROP TABLE matches; --", "%s ? $1 \\ % _", "Club\x00A", "Ope\u0301n \u202eB\u202c",
          "\uffffmark", None]
ALIASES = [("drop", "nul"), ("format", "dollar")]  # CANONICAL, OTHER
COLLECTIONS = ["'; DROP TABLE collections; --", "col\x00nul", "50% ? $1 \\", "\u05e9\u05dc\u05d5\u05dd e\u0301"]


def _hostile_matches() -> list:
    from fixture_db import build_matches

    matches = build_matches() + build_matches()[:1]
    for g in matches[5].games:  # a copy: other rolls, so another match
        for r in g.rolls:
            r.position_after += "-copy"
    for m, (a, b), event in zip(matches, PAIRS, EVENTS):
        m.players = (NAMES[a], NAMES[b])
        m.event = event
    return matches


def _fill(target, monkeypatch) -> None:
    """The hostile matches stored through the store (open_store), on a
    clock ticking a second a match (both engines get the same times)."""
    from test_postgres_parity import use_one_clock

    from gnubg_blunder.database import open_store

    use_one_clock(monkeypatch)
    with open_store(str(target)) as store:
        for match in _hostile_matches():
            store.add_match(match)


def _stop_the_clock(monkeypatch) -> None:
    from gnubg_blunder.store import insert

    monkeypatch.setattr(insert, "utc_now", lambda: "2026-01-02T00:00:00+00:00")


def _both(cli, lite, url):
    """``both(*args)``: the command on the SQLite file and on PostgreSQL:
    the same exit status, output and messages (the database's name aside)."""
    def both(*args, check=True):
        a = cli(*args, db=lite, check=False)
        b = cli(*args, db=url, check=False)
        assert (a.returncode, a.stdout) == (b.returncode, b.stdout), (args, a.stdout[:3000], b.stdout[:3000])
        assert a.stderr.replace(str(lite), "DB") == b.stderr.replace(url, "DB"), args
        if check:
            assert a.returncode == 0, (args, a.stderr)
        return b
    return both


def test_hostile_names_and_sql_read_back_exactly_as_on_sqlite(pg_server, pg_url, tmp_path, cli, monkeypatch):
    from fixture_db import P_OPEN

    from gnubg_blunder.database import open_store
    from gnubg_blunder.codec.text import MARK, decode_text, encode_text

    lite = tmp_path / "hostile.db"
    dbname = urlsplit(pg_url).path[1:]
    _fill(lite, monkeypatch)
    _fill(pg_url, monkeypatch)
    _stop_the_clock(monkeypatch)  # collections made at the same time on both
    tables = _tables(pg_server, dbname)
    assert set(TABLES) <= set(tables)

    both = _both(cli, lite, pg_url)
    everything = json.loads(both("matches", "--format", "json").stdout)["matches"]
    assert len(everything) == 6
    assert sorted(tuple(m["players"]) for m in everything) == sorted((NAMES[a], NAMES[b]) for a, b in PAIRS)
    assert sorted(m["event"] or "" for m in everything) == sorted(e or "" for e in EVENTS)
    for key, name in NAMES.items():
        got = json.loads(both("matches", "--format", "json", "--player", name).stdout)["matches"]
        assert len(got) == 1 and name in got[0]["players"], key
    for event in filter(None, EVENTS):
        got = json.loads(both("matches", "--format", "json", "--tournament", event).stdout)["matches"]
        assert [m["event"] for m in got] == [event], event

    # aliases: a hostile spelling of another hostile name
    for canonical, other in ALIASES:
        both("alias", "add", NAMES[canonical], NAMES[other])
    listed = both("alias", "list").stdout
    assert listed.count("\n") >= 2
    players = json.loads(both("players", "--format", "json").stdout)["players"]
    names = {p["player"] for p in players}
    assert NAMES["drop"] in names and NAMES["nul"] not in names
    assert NAMES["format"] in names and NAMES["dollar"] not in names
    merged = json.loads(both("matches", "--format", "json", "--player", NAMES["drop"]).stdout)["matches"]
    assert sorted(tuple(m["players"]) for m in merged) == [(NAMES["quotes"], NAMES["drop"]),
                                                          (NAMES["rtl"], NAMES["nul"])]

    # collections with hostile names, and the filter by them
    for name in COLLECTIONS:
        both("collection", "add", name, "--position", P_OPEN)
    # (their order: test_collections_are_listed_in_the_order_sqlite_gives)
    for db in (lite, pg_url):
        shown = json.loads(cli("collection", "list", "--format", "json", db=db).stdout)["collections"]
        assert sorted(c["name"] for c in shown) == sorted(COLLECTIONS) and {c["positions"] for c in shown} == {1}
    for name in COLLECTIONS:
        assert both("collection", "show", name, "--format", "json").stdout.count(P_OPEN) >= 1
    for name in COLLECTIONS:
        got = json.loads(both("matches", "--format", "json", "--collection", name).stdout)["matches"]
        assert len(got) == 6, name  # every match has a decision at the opening position
    both("--no-config", "stats", "--format", "json", "--player", NAMES["mark"], "--tournament", EVENTS[4])

    # stored in the documented text form, read back exactly
    raw = set(pg_server.execute("SELECT player0, player1, event FROM matches", dbname=dbname))
    assert raw == {(encode_text(NAMES[a]), encode_text(NAMES[b]), e and encode_text(e))
                   for (a, b), e in zip(PAIRS, EVENTS)}
    players = {r[0] for r in raw} | {r[1] for r in raw}
    assert {MARK + "nul%00inside", MARK + MARK + "%2500 starts with the codec's mark %2525"} <= players
    assert {MARK + "Club%00A", MARK + MARK + "mark", "'; DROP TABLE matches; --"} <= {r[2] for r in raw}
    with open_store(pg_url) as st:
        assert sorted(st.conn.execute("SELECT player0 FROM matches").fetchall()) == \
            sorted((NAMES[a],) for a, _ in PAIRS)
        assert {decode_text(v) for (v,) in pg_server.execute("SELECT player1 FROM matches", dbname=dbname)} == \
            {NAMES[b] for _, b in PAIRS}

    # nothing was run as SQL: every table there, every match
    assert _tables(pg_server, dbname) == tables
    assert pg_server.execute("SELECT COUNT(*) FROM matches", dbname=dbname) == [(6,)]
    assert pg_server.execute("SELECT COUNT(*) FROM games", dbname=dbname) == [(12,)]


def test_collections_are_listed_in_the_order_sqlite_gives(pg_url, tmp_path, cli, monkeypatch):
    """`collection list` sorts by name without case (ORDER BY c.name
    COLLATE NOCASE, store/sqlite.py, SQLiteStore.collections).  On
    PostgreSQL the ORDER BY sorts what is stored: a name holding a NUL is
    stored in text_codec's form, which starts with U+FFFF, so it comes
    after every other name instead of in its place."""
    from fixture_db import P_OPEN

    lite = tmp_path / "c.db"
    _fill(lite, monkeypatch)
    _fill(pg_url, monkeypatch)
    _stop_the_clock(monkeypatch)
    both = _both(cli, lite, pg_url)
    for name in ("b\x00", "a\x00nul", "c"):
        cli("collection", "add", name, "--position", P_OPEN, db=lite)
        cli("collection", "add", name, "--position", P_OPEN, db=pg_url)
    shown = json.loads(cli("collection", "list", "--format", "json", db=lite).stdout)["collections"]
    assert [c["name"] for c in shown] == ["a\x00nul", "b\x00", "c"]
    both("collection", "list", "--format", "json")


def test_a_file_name_that_is_not_utf8_is_stored_and_read_back_exactly(pg_url, tmp_path):
    import sqlite3

    from gnubg_blunder.database import open_store
    from gnubg_blunder.codec.text import MARK, decode_text, encode_text

    folder = os.fsencode(tmp_path) + b"/d\xe9j\xe0 \xff"
    os.mkdir(folder)
    path = folder + b"/\xff'; DROP TABLE matches; --.sgf"
    shutil.copyfile(CHARLOT_SGF, path)
    lite = tmp_path / "t.db"
    runs = [subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", os.fsencode(str(db)), "import", path],
                           capture_output=True, env=_cli_env()) for db in (lite, pg_url)]
    for r in runs:
        assert (r.returncode, r.stderr) == (0, b""), r
    assert runs[0].stdout == runs[1].stdout
    shown = path.decode("utf-8", "backslashreplace").encode()
    assert runs[1].stdout.startswith(shown + b": stored as match 1 ")
    # the path's text form (importers.files.stored_path), the same read from both engines
    con = sqlite3.connect(lite)
    (on_sqlite,), = con.execute("SELECT source_path FROM analyses").fetchall()
    con.close()
    with open_store(pg_url) as st:
        (stored,), = st.conn.execute("SELECT source_path FROM analyses").fetchall()
        raw = st.conn.raw.execute("SELECT source_path FROM analyses").fetchone()[0]
    assert stored == on_sqlite
    assert on_sqlite.startswith(MARK) and on_sqlite.endswith("/d%E9j%E0 %FF/%FF'; DROP TABLE matches; --.sgf")
    assert os.fsencode(decode_text(stored)) == path  # lossless
    assert raw == encode_text(on_sqlite)  # PostgreSQL holds that text in the same form again
    again = subprocess.run([sys.executable, "-m", "gnubg_blunder", "--db", pg_url, "import", path],
                           capture_output=True, env=_cli_env())
    assert again.returncode == 0 and b"already stored" in again.stdout


# -- 4. a read-only role -----------------------------------------------------------------


def _state(pg_server, dbname: str) -> list:
    """Every row of every table, as text (what a write would change)."""
    out = []
    for table in _tables(pg_server, dbname):
        rows = pg_server.execute(f"SELECT md5(string_agg(t::text, '|' ORDER BY t::text)), COUNT(*) FROM {table} t",
                                 dbname=dbname)
        out.append((table, rows[0]))
    return out


def test_a_read_only_role_reads_every_view_and_cannot_import(pg_server, pg_url, tmp_path, cli):
    from test_postgres_parity import _registry_views

    dbname = urlsplit(pg_url).path[1:]
    run_cli("import", CHARLOT_SGF, MONEY_SGF, CHARLOT_XG, SMALL_SGF, db=pg_url)
    reader, password = f"reader_{secrets.token_hex(3)}", secrets.token_urlsafe(12)
    pg_server.create_role(reader, password)
    pg_server.execute(f'GRANT CONNECT ON DATABASE "{dbname}" TO {reader}')
    pg_server.execute(f"GRANT USAGE ON SCHEMA public TO {reader}", dbname=dbname)
    pg_server.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}", dbname=dbname)
    url = pg_server.url(dbname, reader, password)
    before = _state(pg_server, dbname)

    html = tmp_path / "report.html"
    report = run_cli("report", "--html", html, db=url)  # a real process
    assert report.stderr == "" and html.stat().st_size > 10000
    views = _registry_views()
    assert len(views) >= 20
    for view, args in sorted(views.items()):  # every view, in this process
        res = cli(view, *args, "--format", "json", db=url, check=False)
        assert res.returncode == 0 and res.stderr == "", (view, res.stderr)
    assert json.loads(cli("stats", "--format", "json", db=url).stdout)["matches"] == 3
    assert len(_matches_json(url)) == 3

    imp = run_cli("import", FIXTURES / "sgf" / "rollout.sgf", db=url, check=False)
    assert imp.returncode == 1 and "Traceback" not in imp.stderr, imp.stderr
    line, = imp.stderr.splitlines()
    assert f"the role {reader} may only read it" in line and "rollout.sgf" in line, line
    assert imp.stdout.splitlines()[-1] == "1 file: 0 stored, 0 analyses added, 0 already stored, 1 failed"
    # the other commands that write: refused in one line each (their words
    # differ: "may only read it" or the server's "permission denied for table ...")
    for args in (["alias", "add", "charlot1", "charlot one"], ["main-player", "charlot1"], ["relabel"],
                 ["collection", "add", "mine", "--position", "sOfgASiwZ/ABMA"],
                 ["mark", "studied", "sOfgASiwZ/ABMA"]):
        res = cli(*args, db=url, check=False)
        assert res.returncode == 1 and len(res.stderr.splitlines()) == 1, (args, res.stderr)
        assert "may only read it" in res.stderr or "permission denied" in res.stderr, (args, res.stderr)
    assert _state(pg_server, dbname) == before


# -- 5. passwords ------------------------------------------------------------------------


@pytest.fixture
def owner(pg_server, new_database):
    """(database, role, password): a role owning a new database, its
    password made of characters a URL must escape."""
    dbname = new_database()
    role = f"owner_{secrets.token_hex(3)}"
    password = f"pw:{secrets.token_hex(4)}@/%?#&="
    pg_server.create_role(role, password)
    pg_server.execute(f'ALTER DATABASE "{dbname}" OWNER TO {role}')
    return dbname, role, password


def _no_secret(secrets_: list, *texts) -> None:
    for text in texts:
        for s in secrets_:
            assert s not in text, (s, text[:3000])


def test_a_password_appears_in_no_output(pg_server, owner, tmp_path, cli):
    """Real processes for the user's cases (a wrong password; a database
    that works), the command line in this process for the others."""
    dbname, role, password = owner
    url = pg_server.url(dbname, role, password)
    secret = [password, quote(password, safe=""), password[3:11]]
    auth = f"{quote(role)}:{quote(password, safe='')}"
    wrong = "Wr0ng-" + secrets.token_hex(4)
    secret_or_wrong = secret + [wrong]

    def failed(res, why):
        assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
        line, = res.stderr.splitlines()
        assert "***" in line and why in line, line  # the database named, its password hidden
        _no_secret(secret_or_wrong, res.stdout, res.stderr)

    # commands that fail: a wrong password, a database that does not exist,
    # no database name, no server there, a port that is no number
    failing = [(pg_server.url(dbname, role, wrong), "password authentication failed"),
               (pg_server.url("no_such_db", role, password), 'database "no_such_db" does not exist'),
               (f"postgresql://{auth}@127.0.0.1:{pg_server.port}", f'database "{role}" does not exist'),
               (f"postgresql://{auth}@127.0.0.1:1/{dbname}", "Connection refused"),
               (f"postgresql://{auth}@127.0.0.1:no-port/{dbname}", "no-port"),
               (f"postgresql://{quote(role)}@127.0.0.1:{pg_server.port}/{dbname}?password={quote(wrong)}",
                "password authentication failed")]
    failed(run_cli("--db", failing[0][0], "stats", check=False), failing[0][1])
    failed(run_cli("import", SMALL_SGF, env={"GNUBG_BLUNDER_DB": failing[0][0]}, check=False), failing[0][1])
    for bad, why in failing:
        failed(cli("--db", bad, "stats", check=False), why)
        failed(cli("stats", "--format", "json", env={"GNUBG_BLUNDER_DB": bad}, check=False), why)
        failed(cli("--db", bad, "import", SMALL_SGF, check=False), why)

    # commands that work, with --db and with GNUBG_BLUNDER_DB
    html = tmp_path / "report.html"
    env = {"GNUBG_BLUNDER_DB": url}
    runs = [run_cli("import", SMALL_SGF, MONEY_SGF, db=url), run_cli("stats", "--format", "json", db=url),
            run_cli("matches", "--format", "json", env=env), run_cli("report", "--html", html, env=env),
            cli("check", db=url), cli("check", env=env), cli("--help", env=env), cli("filter", "show", env=env),
            cli("review", "--format", "json", env=env)]
    for r in runs:
        _no_secret(secret, r.stdout, r.stderr)
    assert json.loads(runs[1].stdout)["matches"] == 2 and len(json.loads(runs[2].stdout)["matches"]) == 2
    assert html.stat().st_size > 10000
    _no_secret(secret, html.read_text(encoding="utf-8"))


@pytest.mark.parametrize("written, secret", [
    ("someone:50%off-SECRET@127.0.0.1:{port}/db", "50%off-SECRET"),
    ("someone:two words-SECRET@127.0.0.1:{port}/db", "two words-SECRET"),
    ("someone:SECRET-{port}@[::1:{port}/db", "SECRET-{port}"),
], ids=["percent", "space", "ipv6"])
def test_a_password_in_a_malformed_url_is_not_shown(pg_server, written, secret, cli):
    """A URL libpq cannot parse, its password written as it is: libpq's
    message quotes the bad token or the whole URL ('invalid
    percent-encoded token: "50%off-SECRET"', 'unexpected spaces found in
    "two words-SECRET"', '... in IPv6 host address in URI:
    "postgresql://someone:SECRET-...@[::1:.../db"'), and the error line
    shows that message as it is."""
    url = "postgresql://" + written.format(port=pg_server.port)
    secret = secret.format(port=pg_server.port)
    for res in (run_cli("--db", url, "stats", check=False),
                cli("matches", env={"GNUBG_BLUNDER_DB": url}, check=False)):
        assert res.returncode == 1 and len(res.stderr.splitlines()) == 1, res
        _no_secret([secret], res.stdout, res.stderr)


@needs_gnubg
def test_a_password_is_not_shown_inside_gnubg(pg_server, owner, tmp_path):
    """>bdb.store() into a database with a wrong password, then the right one."""
    dbname, role, password = owner
    env = sqlite_reliability._gnubg_home(tmp_path)
    wrong = "Wr0ng-" + secrets.token_hex(4)
    failed = sqlite_reliability._gnubg_stores(env, [str(MONEY_SGF)], pg_server.url(dbname, role, wrong))
    assert "cannot store this match" in failed and "***" in failed, failed[-2000:]
    stored = sqlite_reliability._gnubg_stores(env, [str(MONEY_SGF)], pg_server.url(dbname, role, password))
    assert "gnubg-blunder: stored as match 1 " in stored, stored[-2000:]
    _no_secret([password, quote(password, safe=""), wrong], failed, stored)
