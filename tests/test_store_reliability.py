"""The database survives crashes, concurrent first use and read-only places
(issue 8; docs/reliability.md, "Crash safety, concurrency and read-only
databases").

Real processes and real files: ``tests/store_processes.py`` forks a child
process per trial and kills it with SIGKILL, or starts several at once; the
earlier schema versions are real databases written by the code of the
commits that shipped them (``tests/fixtures/schema``, README there).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import other_user
from conftest import DATA, FIXTURES, gnubg_available, run_cli, run_cli_inprocess
from gnubg_blunder.database import SQLiteStore
from gnubg_blunder.store import StoreError
from gnubg_blunder.store.schema import MIGRATIONS, SCHEMA_VERSION, _statements

SCHEMA_FIXTURES = FIXTURES / "schema"
HELPER = Path(__file__).resolve().parent / "store_processes.py"
SGF = FIXTURES / "sgf"
# analysed files every version's importer reads (tests/fixtures/schema/make.py)
SMALL_SGF = [SGF / n for n in ("analysed_eval.sgf", "money_session.sgf", "rollout.sgf", "set_board.sgf")]


def helper(*args) -> dict:
    env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", OPENBLAS_NUM_THREADS="1")
    res = subprocess.run([sys.executable, str(HELPER), *map(str, args)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout)


def fixture_matches(version: int) -> list:
    """[(id, player0, player1, length, decision rows, beaver takes as stored
    before step 6)] of a fixture database, read as it is."""
    # immutable: a read-only connection would leave -wal and -shm files beside the fixture
    c = sqlite3.connect(f"file:{SCHEMA_FIXTURES / f'v{version}.db'}?mode=ro&immutable=1", uri=True)
    try:
        return c.execute(
            "SELECT m.id, m.player0, m.player1, m.length, "
            "(SELECT COUNT(*) FROM decisions d JOIN analyses a ON a.id = d.analysis_id WHERE a.match_id = m.id), "
            "(SELECT COUNT(*) FROM decisions d JOIN analyses a ON a.id = d.analysis_id WHERE a.match_id = m.id "
            " AND d.beaver_take = 1) FROM matches m ORDER BY m.id").fetchall()
    finally:
        c.close()


def step_statements(version: int) -> int:
    step = dict(MIGRATIONS)[version]
    return 1 if callable(step) else len(list(_statements(step)))


def match_rows(stdout: str) -> list:
    """What ``matches --format json`` says of each match: id, players, each
    side's decisions."""
    return [(m["id"], m["players"], [s["decisions"] for s in m["sides"]])
            for m in json.loads(stdout)["matches"]]


# -- crashes while the schema is made or upgraded ---------------------------------------


UNTIL = {1: 6, 6: 7}  # the last step each source's sweep kills in (the later ones: their own fixtures)


@pytest.mark.parametrize("source", ["new", 1, 6])
def test_a_kill_before_each_statement_of_each_step_loses_nothing(source, tmp_path):
    """SIGKILL just before each SQL statement the opening runs (k = 0, 1, ...
    until the open finishes first), from a new database and from databases
    of earlier versions holding real matches: the next process finds the
    schema whole, every match and its decision count, as a clean upgrade of
    the same file gives them.  Each step is swept once from a file holding
    real matches: the sweep from version 1 kills inside steps 2 to 6, each
    entered from the database the steps before it made; step 7 from a file
    written by version 6's code, 8 from version 7's and 9 and 10 from
    version 8's (test_references.py, test_collections.py).  The new
    database's sweep goes through every step."""
    src = "new" if source == "new" else SCHEMA_FIXTURES / f"v{source}.db"
    until = UNTIL.get(source)
    out = helper("kill-sweep", src, tmp_path, *([until] if until else []))
    assert out["broken"] == [], out["broken"][:3]
    # kills that left the same files (store_processes._disk_state) were
    # opened twice (the class's first and last), the others each once
    assert sorted(k for c in out["classes"] for k in c) == sorted(k for ks in out["per_step"].values() for k in ks)
    assert all(len(set(c) & set(out["opened"])) == min(len(c), 2) for c in out["classes"]), out["classes"]
    first = 1 if source == "new" else source + 1
    # each step of the upgrade was killed at each of its statements (with
    # BEGIN IMMEDIATE, the version read again, the version written, COMMIT)
    assert sorted(map(int, out["per_step"])) == list(range(first, (until or SCHEMA_VERSION) + 1))
    for step, kills in out["per_step"].items():
        assert len(kills) >= step_statements(int(step)) + 4, (step, kills)
    expected = out["expected"]
    assert expected["version"] == SCHEMA_VERSION
    if source != "new":
        # the clean upgrade kept every match with its decisions (step 6 adds
        # the beaver take of each beaver stored before, SPEC §2)
        got = [(m[0], m[1], m[2], m[3], sum(a[2] for a in m[5])) for m in expected["matches"]]
        want = [(i, p0, p1, n, rows + (beavers if n == 0 and source < 6 else 0))
                for i, p0, p1, n, rows, beavers in fixture_matches(source)]
        assert got == want and len(got) == 7
        assert sum(b for *_, b in fixture_matches(source)) == 2  # step 6 had something to do
    # the next command, on a copy killed inside each step: the command line
    # (in this process) and, from a version-1 database, the real one
    clean = match_rows(run_cli_inprocess("matches", "--format", "json", db=tmp_path / "clean.db").stdout)
    assert len(clean) == (0 if source == "new" else 7)
    for step, kills in sorted(out["per_step"].items()):
        killed = tmp_path / "keep" / f"step{step}-k{kills[len(kills) // 2]}.db"
        res = run_cli_inprocess("matches", "--format", "json", db=killed)
        assert match_rows(res.stdout) == clean, (step, killed)
    if source == 1:
        killed = tmp_path / "keep" / f"step4-k{out['per_step']['4'][-1]}.db"
        assert match_rows(run_cli("matches", "--format", "json", db=killed).stdout) == clean


def test_forty_sigkills_at_random_moments_of_a_new_database(tmp_path):
    """40 real SIGKILLs landed at random moments while a new database is
    created (a child that finished before its kill does not count): every
    database opens afterwards with the whole schema."""
    out = helper("random-kills", 40, tmp_path)
    assert out["broken"] == [], out["broken"][:3]
    assert out["killed"] == 40, out


@pytest.mark.parametrize("version", [1, 3])
def test_what_an_interrupted_step_left_before_steps_were_transactions(version, tmp_path):
    """Before steps were transactions each CREATE / ALTER ... ADD COLUMN of a
    step was committed alone and the version written last, so a crash left
    part of a step without its version ("table aliases already exists"):
    every such database opens now, the step completed."""
    step = version + 1
    stmts = list(_statements(dict(MIGRATIONS)[step]))
    ddl = 0
    while ddl < len(stmts) and stmts[ddl].lstrip().upper().startswith(("CREATE", "ALTER TABLE")) \
            and "DROP COLUMN" not in stmts[ddl].upper():
        ddl += 1
    assert ddl >= 1
    clean = tmp_path / "clean.db"
    shutil.copyfile(SCHEMA_FIXTURES / f"v{version}.db", clean)
    with SQLiteStore(clean, report=lambda line: None) as st:
        want = st.conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
    for n in range(1, ddl + 1):
        db = tmp_path / f"partial{n}.db"
        shutil.copyfile(SCHEMA_FIXTURES / f"v{version}.db", db)
        c = sqlite3.connect(db, isolation_level=None)
        for stmt in stmts[:n]:
            c.execute(stmt)
        c.close()
        with SQLiteStore(db, report=lambda line: None) as st:
            assert st.get_meta("schema_version") == str(SCHEMA_VERSION)
            assert st.conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == want
            assert len(st.select(None).matches) == 7


# -- before an upgrade: a check and a backup ------------------------------------------------


def test_an_upgrade_writes_a_backup_beside_the_database_first(tmp_path):
    db = tmp_path / "mine.db"
    shutil.copyfile(SCHEMA_FIXTURES / "v3.db", db)
    res = run_cli_inprocess("matches", "--format", "json", db=db)
    backup = tmp_path / "mine.v3-backup.db"
    assert res.stderr.splitlines() == [
        f"gnubg-blunder: database {db}: saved a copy as {backup} (schema version 3) before upgrading it to version "
        f"{SCHEMA_VERSION}"]
    assert len(json.loads(res.stdout)["matches"]) == 7
    c = sqlite3.connect(backup)
    try:
        assert c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
        assert c.execute("SELECT COUNT(*) FROM decisions").fetchone() == (359,)
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        c.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.db", "mine.v3-backup.db"]
    # opened again: nothing to upgrade, no backup; a backup is never overwritten
    assert run_cli_inprocess("stats", db=db).stderr == ""
    shutil.copyfile(SCHEMA_FIXTURES / "v3.db", db)
    assert "mine.v3-backup-2.db" in run_cli_inprocess("stats", db=db).stderr
    # a new or empty database has nothing to back up
    assert run_cli_inprocess("matches", db=tmp_path / "new.db").stderr == ""


def test_a_damaged_file_is_not_upgraded(tmp_path):
    """PRAGMA quick_check before an upgrade: a damaged file is left as it is,
    with one line naming `gnubg-blunder check`."""
    db = tmp_path / "d.db"
    shutil.copyfile(SCHEMA_FIXTURES / "v3.db", db)
    c = sqlite3.connect(db)
    root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'decisions_by_position'").fetchone()[0]
    page = c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    with open(db, "r+b") as fh:  # an index page made a table page
        fh.seek((root - 1) * page)
        fh.write(b"\x0d")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    res = run_cli_inprocess("stats", db=db, check=False)
    assert res.returncode == 1
    line, = res.stderr.splitlines()
    assert str(db) in line and "damaged" in line and "`gnubg-blunder check`" in line
    assert "left at schema version 3" in line
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not list(tmp_path.glob("*backup*"))


# -- processes at once --------------------------------------------------------------------


def test_four_processes_open_one_new_database_at_once(tmp_path):
    """10 rounds of 4 processes released together on a new database, each
    running `gnubg-blunder matches` (the command line's code): no failure."""
    out = helper("concurrent", 4, 10, tmp_path / "new", "matches", "--format", "json")
    assert out["runs"] == 40 and out["failures"] == [], out["failures"][:3]
    # and 4 processes upgrading one version-3 database at once: one backup
    out = helper("concurrent", 4, 5, tmp_path / "old", "--from", SCHEMA_FIXTURES / "v3.db",
                 "matches", "--format", "json")
    assert out["failures"] == [], out["failures"][:3]
    assert out["backups"] == [[f"c{r}.v3-backup.db"] for r in range(5)]
    assert {len(json.loads(o["out"])["matches"]) for o in out["outputs"]} == {7}


def test_four_command_lines_at_once_on_a_new_database(tmp_path):
    """The user's case: four `gnubg-blunder --db new.db matches` started together."""
    for rnd in range(3):
        db = tmp_path / f"n{rnd}.db"
        env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")
        procs = [subprocess.Popen([sys.executable, "-m", "gnubg_blunder", "--db", str(db), "matches"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(4)]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        assert results == [(0, "")] * 4


IMPORT_FILES = sorted((DATA / "xg").glob("*.xg")) + [DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"] \
    + SMALL_SGF + [SGF / "luck_inf_gnubg108_excerpt.sgf"]


def _counts(db) -> dict:
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out = {t: c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
               for t in ("matches", "games", "analyses", "decisions", "rolls", "decision_candidates",
                         "analysis_arrays")}
        out["identities"] = sorted(r[0] for r in c.execute("SELECT identity FROM matches"))
        out["analyses_of"] = sorted(c.execute(
            "SELECT m.identity, a.engine, a.depth_label FROM analyses a JOIN matches m ON m.id = a.match_id"))
        out["quick_check"] = c.execute("PRAGMA quick_check").fetchone()[0]
        return out
    finally:
        c.close()


def _gnubg_home(tmp_path) -> dict:
    home = tmp_path / "home"
    (home / ".gnubg").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), GNUBG_BLUNDER_NO_PLUGINS="1")
    env.pop("XDG_DATA_HOME", None)
    run_cli("install-gnubg", env=env)
    return env


def _gnubg_stores(env, files, db, go=None) -> str:
    """gnubg -t: load each file and `>bdb.store()` it into ``db``
    (GNUBG_BLUNDER_DB); ``go()`` is called once gnubg is ready, before the
    first store."""
    env = dict(env, GNUBG_BLUNDER_DB=str(db))
    p = subprocess.Popen(["/usr/games/gnubg", "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env, bufsize=1)
    try:
        p.stdin.write('>print("READY-" + "MARK")\n')
        p.stdin.flush()
        for line in p.stdout:
            if "READY-MARK" in line:
                break
        if go is not None:
            go()
        for f in files:
            p.stdin.write(f'load match "{f}"\n>bdb.store()\n')
        p.stdin.write('>print("DONE-" + "MARK")\n')
        p.stdin.flush()
        out = []
        for line in p.stdout:
            out.append(line)
            if "DONE-MARK" in line:
                break
        p.stdin.close()
        p.wait(timeout=120)
        return "".join(out)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.skipif(not gnubg_available(), reason="needs /usr/games/gnubg")
def test_four_importers_and_gnubg_write_one_database_at_once(tmp_path, selfplay):
    """4 `gnubg-blunder import` of the same files (each in another order) and
    gnubg storing 3 matches with `>bdb.store()`, all at once on one new
    database: every match once, every table's count as one clean import
    gives (the XG and gnubg charlot files: one match, two analyses)."""
    env = _gnubg_home(tmp_path)
    in_gnubg = [selfplay(2, 7), selfplay(1, 7), selfplay(11, 5)]
    files = list(map(str, IMPORT_FILES))
    cli_env = dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1")

    def importer(db, k):
        order = files[k * 3 % len(files):] + files[:k * 3 % len(files)]
        return subprocess.Popen([sys.executable, "-m", "gnubg_blunder", "--db", str(db), "import", *order],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env)

    clean = tmp_path / "clean.db"  # one import, then gnubg's stores, one after the other
    p = importer(clean, 0)
    p.communicate(timeout=300)
    assert p.returncode == 0
    _gnubg_stores(env, in_gnubg, clean)
    want = _counts(clean)
    assert want["matches"] == len(IMPORT_FILES) - 1 + 3 and want["quick_check"] == "ok"

    shared = tmp_path / "shared.db"
    procs = []
    out = _gnubg_stores(env, in_gnubg, shared, go=lambda: procs.extend(importer(shared, k) for k in range(4)))
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0, 0, 0, 0], [r[1][-500:] for r in results]
    assert "Traceback" not in out, out
    assert _counts(shared) == want


def test_manifests_parsed_once_are_read_again_after_another_process_merged_their_bundles(tmp_path):
    """This process reads every bundle's manifest (parsed once per process,
    store/sqlite.py ``_MANIFESTS``), then another process imports matches
    whose stores merge bundles, the one this process knows among them
    (rewritten under the same key): this process's figures are then those
    a new process reads, its stale manifest not used (the bundle's seal
    differs).  docs/reliability.md "A database changed or replaced by other
    programs"."""
    selfplay = sorted((FIXTURES / "selfplay").glob("*.sgf"))
    db = tmp_path / "merged.db"
    run_cli_inprocess("import", selfplay[0], db=db)
    con = sqlite3.connect(db)
    key, first = con.execute("SELECT analysis_id, decisions FROM analysis_arrays").fetchone()
    con.close()
    assert run_cli_inprocess("stats", "--format", "json", db=db).stdout  # its manifest parsed here
    run_cli("import", *selfplay[1:], DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf", *SMALL_SGF,
            db=db)  # another process: 12 stores, the eighth of one size merging them into the bundle known here
    con = sqlite3.connect(db)
    now = con.execute("SELECT decisions FROM analysis_arrays WHERE analysis_id = ?", (key,)).fetchone()
    con.close()
    assert now is not None and now[0][:4] != first[:4], "no merge rewrote the bundle this process knew"
    here = json.loads(run_cli_inprocess("stats", "--format", "json", db=db).stdout)
    assert here == json.loads(run_cli("stats", "--format", "json", db=db).stdout)
    assert here == json.loads(run_cli_inprocess("stats", "--format", "json", db=db).stdout)


class _GnubgSession:
    """A real ``gnubg -t -q`` driven line by line: ``run(lines)`` sends gnubg
    commands and returns what it printed up to a mark printed after them."""

    def __init__(self, env):
        self.p = subprocess.Popen(["/usr/games/gnubg", "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=env, bufsize=1)
        self.marks = 0

    def run(self, lines) -> str:
        self.marks += 1
        mark = f"MARK-{self.marks}"
        self.p.stdin.write("\n".join(lines) + f'\n>print("{mark[:4]}" + "{mark[4:]}")\n')
        self.p.stdin.flush()
        out = []
        for line in self.p.stdout:
            if mark in line:
                return "".join(out)
            out.append(line)
        raise AssertionError("gnubg ended: " + "".join(out)[-3000:])

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


@pytest.mark.skipif(not gnubg_available(), reason="needs /usr/games/gnubg")
def test_a_gnubg_session_stores_into_the_file_repaired_written_and_replaced_by_others(tmp_path):
    """One gnubg session, ``>bdb.store()`` between other processes' work on
    its database: ``check --repair`` rebuilding the damaged file (in place),
    an import writing into it, then another file moved over the path.  Each
    store lands in the file at the path, nothing is lost; the once-a-process
    check runs again for the rebuilt file and for the moved one (counted in
    gnubg's Python around the real quick_check), not for a file merely
    written by others; the figures gnubg's process reads after the others
    wrote (its manifests parsed before) are those a new process reads.
    docs/reliability.md "A database changed or replaced by other programs"."""
    from test_check import leaf_page, overwrite_page

    selfplay = FIXTURES / "selfplay"
    env = dict(_gnubg_home(tmp_path), GNUBG_BLUNDER_DB=str(tmp_path / "session.db"))
    db = tmp_path / "session.db"
    run_cli("import", *SMALL_SGF, db=db)
    gnubg = _GnubgSession(env)
    try:
        said = gnubg.run([
            ">import gnubg_blunder.store.damage as check_module",
            ">runs = []; real_quick_check = check_module.quick_check",
            ">check_module.quick_check = lambda *a, **k: runs.append(1) or real_quick_check(*a, **k)",
            f'load match "{selfplay / "m1-7.sgf"}"', ">bdb.store()", '>print("checks", len(runs))'])
        assert "stored as match 5" in said and "checks 1" in said, said
        size_at_first_store = db.stat().st_size

        overwrite_page(db, leaf_page(db, "decisions_by_position"))  # gnubg holds no connection between stores
        inode = db.stat().st_ino
        res = run_cli("check", "--repair", db=db, check=False)
        assert res.returncode == 0 and "repaired: the file rebuilt from its" in res.stdout, res.stdout
        assert db.stat().st_ino == inode
        res = run_cli("import", selfplay / "m23-3.sgf", selfplay / "m26-11.sgf", selfplay / "m24-0.sgf", db=db)
        assert res.stdout.count("stored as match") == 3, res.stdout
        assert db.stat().st_size >= size_at_first_store  # not found again by its size: by the repair's mark
        said = gnubg.run([f'load match "{selfplay / "m11-5.sgf"}"', ">bdb.store()", '>print("checks", len(runs))',
                          '>print("@@ stats")', '>bdb("stats --format json")', '>print("@@ end")',
                          ">bdb.store()", '>print("checks", len(runs))'])
        assert "stored as match 9" in said and "already stored" in said, said
        assert said.count("checks 2") == 2, said  # the rebuilt file checked once more, then not again
        in_gnubg = said[said.index("@@ stats"):said.index("@@ end")]
        in_gnubg = json.loads(in_gnubg[in_gnubg.index("{"):in_gnubg.rindex("}") + 1])
        assert in_gnubg == json.loads(run_cli("stats", "--format", "json", db=db).stdout)

        moved = tmp_path / "moved.db"  # a copy holding one more match, moved over the path
        src, dst = sqlite3.connect(db), sqlite3.connect(moved)
        src.backup(dst)
        src.close()
        dst.close()
        run_cli("import", selfplay / "m25-0.sgf", db=moved)
        os.replace(moved, db)
        said = gnubg.run([f'load match "{selfplay / "m42-0.sgf"}"', ">bdb.store()", '>print("checks", len(runs))'])
        assert "stored as match 11" in said and "checks 3" in said, said
    finally:
        gnubg.close()
    assert "Traceback" not in said
    assert run_cli("check", db=db).returncode == 0
    assert _counts(db)["matches"] == 11


# -- read-only databases ----------------------------------------------------------------------


@pytest.fixture()
def ro_place():
    """A folder every user can read (pytest's tmp_path is root's alone), with
    ``db/`` (the database's folder) and ``out/`` (writable by the user)."""
    base = Path(tempfile.mkdtemp(prefix="gnubg-blunder-ro-"))
    os.chmod(base, 0o755)
    (base / "db").mkdir(mode=0o755)
    (base / "out").mkdir(mode=0o777)
    os.chmod(base / "out", 0o777)
    yield base
    for root, dirs, _ in os.walk(base):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(base, ignore_errors=True)


def _current_db(path: Path) -> None:
    run_cli("import", *SMALL_SGF, db=path)
    os.chmod(path, 0o644)


def _user_cli(base: Path, *args) -> subprocess.CompletedProcess:
    """``gnubg-blunder ARGS`` as a user who cannot write what root made
    (root writes any file whatever its mode), from a copy of the package
    that user can read (tests/other_user.py)."""
    env = other_user.environment(dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", HOME=str(base / "out"),
                                      GNUBG_BLUNDER_CONFIG=str(base / "out" / "config.yaml")))
    return subprocess.run(other_user.command(*args), capture_output=True, text=True, env=env, timeout=300,
                          cwd=base)


def _reads_and_refuses_to_write(base: Path, db: Path, want_matches: int, reason: str) -> None:
    """stats, matches and report work; an import says, in one line naming
    the file, why it cannot write; the file is unchanged."""
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    stats = _user_cli(base, "--db", db, "stats", "--format", "json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["matches"] == want_matches
    matches = _user_cli(base, "--db", db, "matches", "--format", "json")
    assert matches.returncode == 0 and len(json.loads(matches.stdout)["matches"]) == want_matches, matches.stderr
    html = base / "out" / "report.html"
    report = _user_cli(base, "--db", db, "report", "--html", html)
    assert report.returncode == 0 and html.stat().st_size > 10000, report.stderr
    imp = _user_cli(base, "--db", db, "import", other_user.readable_copy(SGF / "luck_inf_gnubg108_excerpt.sgf",
                                                                          base / "out"))
    assert imp.returncode == 1
    refusals = [line for line in imp.stderr.splitlines() if "cannot store" in line]
    assert len(refusals) == 1 and str(db) in refusals[0] and reason in refusals[0], imp.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_read_only_file_is_read(ro_place):
    db = ro_place / "db" / "ro.db"
    _current_db(db)
    if os.geteuid() == 0:
        os.chown(ro_place / "db", 65534, -1)  # the folder is the user's, the file root's
    else:
        os.chmod(db, 0o444)
    _reads_and_refuses_to_write(ro_place, db, 4, "the file is read-only")


def test_a_database_in_a_read_only_folder_is_read(ro_place):
    """SQLite cannot make the -shm and -wal files there: the database is
    read as it is (immutable) ..."""
    db = ro_place / "db" / "ro.db"
    _current_db(db)
    if os.geteuid() == 0:
        os.chown(db, 65534, -1)  # the file is the user's, the folder root's
    else:
        os.chmod(db.parent, 0o555)
    _reads_and_refuses_to_write(ro_place, db, 4, f"its folder {db.parent} is read-only")
    assert sorted(p.name for p in db.parent.iterdir()) == ["ro.db"]


def test_a_read_only_folder_with_changes_left_in_the_wal_is_read_whole(ro_place):
    """... unless its -wal holds changes a writer had not merged (it was
    killed, then the folder made read-only): they are read too."""
    db = ro_place / "db" / "ro.db"
    _current_db(db)
    subprocess.run([sys.executable, "-c", (
        "import os, sys\n"
        "from gnubg_blunder.importers.sgf import read_match\n"
        "from gnubg_blunder.database import SQLiteStore\n"
        "st = SQLiteStore(sys.argv[1])\n"
        "st.add_match(read_match(sys.argv[2]))\n"
        "os._exit(0)  # no close: the match stays in the -wal\n"), str(db), str(SGF / "luck_inf_gnubg108_excerpt.sgf")],
        check=True, env=dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1"))
    Path(str(db) + "-shm").unlink()
    assert os.path.getsize(str(db) + "-wal") > 0
    if os.geteuid() == 0:
        os.chown(db, 65534, -1)  # the file is the user's, the folder root's
    else:
        os.chmod(db.parent, 0o555)
    res = _user_cli(ro_place, "--db", db, "matches", "--format", "json")
    assert res.returncode == 0, res.stderr
    assert len(json.loads(res.stdout)["matches"]) == 5
    assert res.stderr.splitlines() == [
        f"gnubg-blunder: database {db} is read-only (its folder {db.parent} is read-only) and its last changes are "
        "in its -wal file: read from a copy in memory (the file is unchanged)"]
    assert sorted(p.name for p in db.parent.iterdir()) == ["ro.db", "ro.db-wal"]


def test_a_read_only_database_of_an_earlier_version_is_read_upgraded_in_memory(ro_place):
    db = ro_place / "db" / "old.db"
    shutil.copyfile(SCHEMA_FIXTURES / "v3.db", db)
    os.chmod(db, 0o644)
    if os.geteuid() != 0:
        os.chmod(db.parent, 0o555)
    res = _user_cli(ro_place, "--db", db, "matches", "--format", "json")
    assert res.returncode == 0, res.stderr
    assert len(json.loads(res.stdout)["matches"]) == 7
    note, = res.stderr.splitlines()
    assert note.startswith(f"gnubg-blunder: database {db} is read-only (") and "at schema version 3" in note
    assert "read from a copy in memory brought up to date (the file is unchanged)" in note
    _reads_and_refuses_to_write(ro_place, db, 7, "read-only")
    assert sorted(p.name for p in db.parent.iterdir()) == ["old.db"]


def test_no_database_can_be_made_in_a_read_only_folder(ro_place):
    if os.geteuid() != 0:
        os.chmod(ro_place / "db", 0o555)
    res = _user_cli(ro_place, "--db", ro_place / "db" / "new.db", "matches")
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        f"error: database {ro_place / 'db' / 'new.db'}: cannot create it: its folder {ro_place / 'db'} is read-only"]


_MOUNTED = r"""
import json, os, subprocess, sys
folder, todo = sys.argv[1], json.loads(sys.argv[2])
subprocess.run(["mount", "--bind", folder, folder], check=True)
subprocess.run(["mount", "-o", "remount,bind,ro", folder], check=True)
out = []
for args in todo:
    r = subprocess.run([sys.executable, "-m", "gnubg_blunder", *args], capture_output=True, text=True)
    out.append([r.returncode, r.stdout, r.stderr])
print(json.dumps(out))
"""


def _can_unshare() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(os.geteuid() != 0 or not _can_unshare(), reason="needs root and unshare -m (a private mount)")
def test_a_database_on_a_read_only_mount_is_read(tmp_path):
    """A read-only bind mount in a private mount namespace: even root cannot
    write there."""
    folder = tmp_path / "mnt"
    folder.mkdir()
    db, old = folder / "cur.db", folder / "old.db"
    _current_db(db)
    shutil.copyfile(SCHEMA_FIXTURES / "v3.db", old)
    html = tmp_path / "report.html"
    todo = [["--db", str(db), "stats", "--format", "json"], ["--db", str(db), "matches", "--format", "json"],
            ["--db", str(db), "report", "--html", str(html)],
            ["--db", str(db), "import", str(SGF / "luck_inf_gnubg108_excerpt.sgf")],
            ["--db", str(old), "stats", "--format", "json"]]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, old)}
    res = subprocess.run(["unshare", "-m", sys.executable, "-c", _MOUNTED, str(folder), json.dumps(todo)],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, GNUBG_BLUNDER_NO_PLUGINS="1", PYTHONDONTWRITEBYTECODE="1"))
    assert res.returncode == 0, res.stderr
    (s_code, s_out, s_err), (m_code, m_out, _), (r_code, _, r_err), (i_code, _, i_err), (o_code, o_out, o_err) = \
        json.loads(res.stdout)
    assert (s_code, s_err) == (0, "") and json.loads(s_out)["matches"] == 4
    assert m_code == 0 and len(json.loads(m_out)["matches"]) == 4
    assert r_code == 0 and html.stat().st_size > 10000, r_err
    refusal, = [line for line in i_err.splitlines() if "cannot store" in line]
    assert i_code == 1 and str(db) in refusal and "the file system holding it is mounted read-only" in refusal
    assert o_code == 0 and json.loads(o_out)["matches"] == 7 and "mounted read-only" in o_err
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (db, old)} == before
    assert sorted(p.name for p in folder.iterdir()) == ["cur.db", "old.db"]


def test_a_newer_read_only_database_is_refused(ro_place):
    db = ro_place / "db" / "new.db"
    _current_db(db)
    c = sqlite3.connect(db)
    c.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    c.commit()
    c.close()
    if os.geteuid() != 0:
        os.chmod(db, 0o444)
    res = _user_cli(ro_place, "--db", db, "stats")
    assert res.returncode == 1 and "newer than this gnubg-blunder" in res.stderr


def test_a_relabel_by_another_process_between_cache_and_read(tmp_path):
    """Seen once in the 4-process upgrade: one process built the array
    cache, another relabelled (which drops the cache), the first read it
    and failed (KeyError). The read now builds again what is missing; the
    automatic relabel is one transaction, done once."""
    db = tmp_path / "r.db"
    shutil.copy(SCHEMA_FIXTURES / "v3.db", db)
    first = SQLiteStore(db)
    before = first.select()
    second = SQLiteStore(db)
    build = first._ensure_arrays
    calls = []

    def build_then_other_process_relabels(ids):
        build(ids)
        if not calls:
            calls.append(second.relabel())  # a real second connection drops the whole cache
    first._ensure_arrays = build_then_other_process_relabels
    after = first.select()
    assert calls and calls[0] > 0
    assert len(after.decisions) == len(before.decisions) and after.n_matches == before.n_matches == 7
    assert np.nansum(after.decisions.error) == pytest.approx(np.nansum(before.decisions.error))
    # the automatic relabel of a stale database happens once: the second finds it done
    second.conn.execute("UPDATE meta SET value = 'old' WHERE key = 'labels_version'")
    assert second.relabel(only_if_stale=True) > 0 and first.relabel(only_if_stale=True) == 0
    first.close()
    second.close()
