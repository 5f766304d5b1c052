"""Damage (issue 8): `gnubg-blunder check [--repair]`, the import that
refuses a damaged file, and a comment stored once.

Every database here is made by importing the real files of
tests/fixtures/real; damage is done to the file as a disk would (4 KB of
garbage over one page) or through sqlite3 (a cache blob changed in place).
docs/reliability.md."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, FIXTURES, run_cli, stored_matches

SGF = DATA / "sgf" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
XG_SQUIRE = DATA / "xg" / "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg"
XG_CHARLOT = DATA / "xg" / "charlot1-charlot2_7p_2025-11-08-2305.xg"
XG_COMMENT = DATA / "xg" / "match_with_comment.xg"  # imported into the damaged file: refused


@pytest.fixture(scope="module")
def real_db(tmp_path_factory) -> Path:
    """The real SGF and two real XG files imported (3 analyses of 2 matches)."""
    from conftest import run_cli_inprocess

    path = tmp_path_factory.mktemp("check") / "real.db"
    run_cli_inprocess("import", SGF, XG_SQUIRE, XG_CHARLOT, db=path)
    return path


@pytest.fixture
def db(real_db, tmp_path) -> Path:
    return Path(shutil.copy(real_db, tmp_path / "damaged.db"))


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def leaf_page(path, name: str) -> int:
    """A leaf page of the table or index ``name`` (SQLite's dbstat), the
    middle one; without dbstat, a page in the middle of the file."""
    con = sqlite3.connect(path)
    try:
        pages = [p for (p,) in con.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (name,))]
    except sqlite3.OperationalError:
        pages = [con.execute("PRAGMA page_count").fetchone()[0] // 2]
    finally:
        con.close()
    assert pages, name
    return pages[len(pages) // 2]


def overwrite_page(path, page: int) -> None:
    """4 KB of garbage over one page of the file, as a failing disk writes."""
    con = sqlite3.connect(path)
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    assert size == 4096
    with open(path, "r+b") as fh:
        fh.seek((page - 1) * size)
        fh.write(random.Random(page).randbytes(size))


def stats_json(cli, db) -> str:
    return cli("stats", "--format", "json", db=db).stdout


# -- a page overwritten --------------------------------------------------------------------


@pytest.mark.e2e
def test_a_page_of_rows_overwritten_check_exits_1_and_import_refuses(db, tmp_path):
    """One 4 KB page of the decisions table overwritten: `check` (a real
    process) says so and exits 1, `check --repair` says the rows cannot be
    rebuilt and leaves the file as it was, and an import of another real
    match writes nothing into the file and exits non-zero.  The same import
    into the undamaged file stores the match."""
    whole = Path(shutil.copy(db, tmp_path / "whole.db"))
    overwrite_page(db, leaf_page(db, "decisions"))
    damaged = sha(db)

    res = run_cli("check", db=db, check=False)
    assert res.returncode == 1, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert "file: table decisions cannot be read whole: its rows cannot be rebuilt" in lines
    assert lines[-1].startswith(f"{db}: damaged")
    obj = json.loads(run_cli("check", "--format", "json", db=db, check=False).stdout)
    assert obj["ok"] is False and obj["damaged"] is True
    assert any(f["kind"] == "file" and not f["repairable"] for f in obj["findings"])

    res = run_cli("check", "--repair", db=db, check=False)
    assert res.returncode == 1 and "not repaired: rows lost to the damage cannot be rebuilt" in res.stdout
    assert sha(db) == damaged and not list(tmp_path.glob("damaged.db.damaged-*"))

    res = run_cli("import", XG_COMMENT, db=db, check=False)
    assert res.returncode != 0
    assert "the database file is damaged" in res.stderr and "gnubg-blunder check" in res.stderr
    assert "stored as match" not in res.stdout
    assert sha(db) == damaged  # not one byte written

    ok = run_cli("import", XG_COMMENT, db=whole)
    assert "stored as match 3" in ok.stdout


def test_an_index_page_overwritten_is_rebuilt_by_repair(db, cli):
    """A page of an index is damage `check` finds (exit 1) and `--repair`
    rebuilds (the rows are whole): exit 0, the file whole again, the same
    figures, the damaged file kept beside it; imports write again."""
    before = stats_json(cli, db)
    overwrite_page(db, leaf_page(db, "decisions_by_position"))
    assert cli("import", XG_COMMENT, db=db, check=False).returncode != 0

    res = cli("check", db=db, check=False)
    assert res.returncode == 1
    assert res.stdout.splitlines()[-1].endswith("; `gnubg-blunder check --repair` rebuilds it")
    assert "index decisions_by_position of table decisions)" in res.stdout  # the damaged page's owner

    res = cli("check", "--repair", db=db, check=False)
    assert res.returncode == 0, res.stdout
    assert "repaired: the file rebuilt from its" in res.stdout
    assert res.stdout.splitlines()[-1] == f"{db}: repaired; checked again: whole"
    kept = list(db.parent.glob("damaged.db.damaged-*"))
    assert len(kept) == 1 and str(kept[0]) in res.stdout
    assert cli("check", db=db).stdout.startswith(f"{db}: whole: SQLite's integrity check ok")
    assert stats_json(cli, db) == before
    assert "stored as match 3" in cli("import", XG_COMMENT, db=db).stdout


def test_an_array_cache_page_overwritten_is_rebuilt_from_the_rows(db, cli):
    """A page of the array cache: found, and rebuilt from the rows (every
    table of rows reads whole): the figures equal those before the damage."""
    before = stats_json(cli, db)
    overwrite_page(db, leaf_page(db, "analysis_arrays"))
    res = cli("check", db=db, check=False)
    assert res.returncode == 1 and "rebuilds it" in res.stdout.splitlines()[-1]
    res = cli("check", "--repair", db=db, check=False)
    assert res.returncode == 0, res.stdout
    assert stats_json(cli, db) == before
    assert cli("check", db=db).returncode == 0


# -- the array cache against the rows -------------------------------------------------


from gnubg_blunder.store.column_cache import encode_bundle  # noqa: E402


def _cache(db):
    """(the store, the dtype of its cached decision records)."""
    from gnubg_blunder.database import open_store

    store = open_store(db)
    _spec, dec, _rol = store._record_dtypes()
    return store, dec


def _bundle_of(store, aid):
    """(key, parts) of the cache bundle holding analysis ``aid`` (parts
    writable copies, as column_cache.decode_bundle gives them)."""
    from gnubg_blunder.store.column_cache import decode_bundle

    _spec, dec, rol = store._record_dtypes()
    for key, d, r, cm in store.conn.execute("SELECT analysis_id, decisions, rolls, comments FROM analysis_arrays"):
        parts = decode_bundle(d, r, cm, dec, rol)
        if aid in [p[0] for p in parts]:
            return key, [(a, x.copy(), y.copy(), c) for a, x, y, c in parts]
    raise AssertionError(f"no cache bundle holds analysis {aid}")


def test_a_cache_blob_changed_in_place_is_found_refused_and_repaired(db, cli):
    """One decision's error changed inside a cache blob (its checksum kept):
    no view computes from it (the checksum differs: exit 1, naming `check`),
    `check` finds it against the rows (exit 1), `check --repair` rebuilds
    it (exit 0), and `stats` is what it was before the damage."""
    import numpy as np

    before = stats_json(cli, db)
    store, dec = _cache(db)
    try:
        aid = store.select().matches[0].analysis_id  # one the figures read
        key, parts = _bundle_of(store, aid)
        records = next(p[1] for p in parts if p[0] == aid)
        k = int(np.nanargmax(records["error"]))  # its costliest decision
        records["error"][k] = 0.0
        old = store.conn.execute("SELECT decisions FROM analysis_arrays WHERE analysis_id = ?", (key,)).fetchone()[0]
        d, r, cm = encode_bundle(parts)
        damaged = old[:4] + d[4:]  # the checksum of the intact cache kept
    finally:
        store.close()
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE analysis_arrays SET decisions = ? WHERE analysis_id = ?", (damaged, key))
    con.close()

    res = cli("stats", db=db, check=False)
    assert res.returncode == 1 and not res.stdout
    assert f"the array cache of analysis {aid} is damaged" in res.stderr and "gnubg-blunder check" in res.stderr

    res = cli("check", db=db, check=False)
    assert res.returncode == 1
    line = next(x for x in res.stdout.splitlines() if x.startswith("array cache:"))
    assert line.startswith(f"array cache: analysis {aid} (match ")
    assert "checksum differs" in line and "1 decision differ in error" in line and "Σ error" in line
    obj = json.loads(cli("check", "--format", "json", db=db, check=False).stdout)
    assert [f["analysis_id"] for f in obj["findings"]] == [aid] and obj["findings"][0]["repairable"]

    res = cli("check", "--repair", db=db)
    assert "repaired: array cache of 1 analyses rebuilt from their rows" in res.stdout
    assert res.stdout.splitlines()[-1] == f"{db}: repaired; checked again: whole"
    assert stats_json(cli, db) == before
    assert cli("check", db=db).returncode == 0


def test_a_cache_that_disagrees_with_its_rows_is_found_by_counts(db, cli):
    """A cache whose checksum is right but which lost a decision (as a cache
    written by a faulty version would be): `stats` counts one decision fewer
    and no error; `check` compares it with the rows and names the counts."""
    import numpy as np

    before = json.loads(stats_json(cli, db))
    store, dec = _cache(db)
    try:
        aid = store.select().matches[-1].analysis_id
        key, parts = _bundle_of(store, aid)
        i = next(j for j, p in enumerate(parts) if p[0] == aid)
        a, records, rolls, commented = parts[i]
        n = len(records)
        fewer = np.delete(records, int(np.nanargmax(records["error"])))  # its costliest decision left out
        parts[i] = (a, fewer, rolls, commented)
        store.conn.execute("UPDATE analysis_arrays SET decisions = ?, rolls = ?, comments = ? WHERE analysis_id = ?",
                           (*encode_bundle(parts), key))
    finally:
        store.close()
    wrong = json.loads(stats_json(cli, db))
    assert wrong["decisions"] == before["decisions"] - 1 and wrong["error_emg"] < before["error_emg"]
    res = cli("check", db=db, check=False)
    assert res.returncode == 1
    assert f"array cache: analysis {aid} (match " in res.stdout
    assert f"{n - 1} decisions cached, {n} rows" in res.stdout
    cli("check", "--repair", db=db)
    assert json.loads(stats_json(cli, db)) == before


def test_labels_that_disagree_with_their_positions_are_recomputed(db, cli):
    """A stored label changed by hand: `check` finds it (labels and the
    cache no longer agree with the rows); `--repair` recomputes the labels
    and the cache."""
    before = stats_json(cli, db)
    con = sqlite3.connect(db)
    with con:
        rid, aid = con.execute("SELECT id, analysis_id FROM decisions WHERE phase = 'opening' LIMIT 1").fetchone()
        con.execute("UPDATE decisions SET phase = 'bear-off' WHERE id = ?", (rid,))
    con.close()
    res = cli("check", db=db, check=False)
    assert res.returncode == 1
    assert f"labels: analysis {aid} (match " in res.stdout and f"(decision {rid})" in res.stdout
    assert "1 decision differ in phase" in res.stdout
    res = cli("check", "--repair", db=db)
    assert "repaired: labels of" in res.stdout
    assert cli("check", db=db).returncode == 0
    assert stats_json(cli, db) == before


def test_check_of_a_missing_file_creates_nothing(tmp_path, cli):
    res = cli("check", db=tmp_path / "none.db", check=False)
    assert res.returncode == 2 and "no database at" in res.stderr
    assert not (tmp_path / "none.db").exists()


# -- a comment stored once ------------------------------------------------------------------

BIG = 4 * 1024 * 1024


def _with_comment(tmp_path) -> tuple:
    """The real SGF with a 4 MB comment on its first move (plain words, a #tag)."""
    words = "#bigtag " + " ".join(random.Random(3).choices(("prime", "blot", "race", "anchor", "cube"), k=BIG // 5))
    text = SGF.read_text(encoding="utf-8")
    first = text.index(";B[")
    end = text.index("]", first) + 1
    out = tmp_path / "commented.sgf"
    out.write_text(text[:end] + "C[" + words + "]" + text[end:], encoding="utf-8")
    return out, words


def _size(path) -> int:
    return sum(Path(str(path) + s).stat().st_size for s in ("", "-wal") if Path(str(path) + s).exists())


def test_a_comment_of_several_mb_is_stored_once(tmp_path, cli):
    """The database grows by the comment's size, not twice: the comment lives
    in its decisions row; the array cache lists which decisions have one.
    What reads comments still does: the #tag breakdown, positions --tag, the
    selection's comment."""
    commented, words = _with_comment(tmp_path)
    plain_db, big_db = tmp_path / "plain.db", tmp_path / "big.db"
    cli("import", SGF, db=plain_db)
    cli("import", commented, db=big_db)
    growth = _size(big_db) - _size(plain_db)
    size = len(words.encode())
    assert size > 3.9e6
    assert 0.95 * size < growth < 1.25 * size, (growth, size)

    tags = json.loads(cli("breakdowns", "--format", "json", db=big_db).stdout)
    assert [t for t in tags["tag"] if "bigtag" in json.dumps(t)] and tags["tagged_decisions"] == 1
    found = json.loads(cli("positions", "--tag", "bigtag", "--format", "json", db=big_db).stdout)
    assert found["total"] == 1
    from gnubg_blunder.database import open_store

    with open_store(big_db) as store:
        sel = store.select()
        held = [c for c in sel.decisions.comment if c]
        assert held == [words]
        assert store.decision_rows([found["decisions"][0]["row_id"]])[0]["comment"] == words
        cached = store.conn.execute("SELECT SUM(LENGTH(comments)) FROM analysis_arrays").fetchone()[0]
        assert cached < 100  # the list of commented decisions, not their text
    assert cli("check", db=big_db).returncode == 0


# -- the check before writing: once per file and process -------------------------------------


def _store_seen(path, match) -> tuple:
    """Store ``match`` into ``path`` through a new store (as every
    ``bdb.store()`` opens one): (the result or the refusal, whether the
    store's connection ran quick_check), from SQLite's own statement trace."""
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.store.check import DamagedDatabase

    seen = []
    with SQLiteStore(path) as store:
        store.conn.set_trace_callback(seen.append)
        try:
            result = store.add_match(match)
        except DamagedDatabase as exc:
            result = exc
        finally:
            store.conn.set_trace_callback(None)
    return result, any("quick_check" in s.lower() for s in seen)


def test_the_file_is_checked_once_per_process_and_again_when_replaced(real_db, tmp_path):
    """Two stores opened one after the other in one process: the first runs
    quick_check, the second does not (the file is remembered whole).  A
    damaged file moved over the path (another inode) is checked again and
    refused, not one byte written; a whole one moved back in is checked
    again and written.  docs/reliability.md."""
    import os

    from gnubg_blunder.importers import sgf, xg
    from gnubg_blunder.store.check import DamagedDatabase

    db = Path(shutil.copy(real_db, tmp_path / "once.db"))
    comment, charlot = xg.read_match(XG_COMMENT), sgf.read_match(SGF)
    result, checked = _store_seen(db, comment)
    assert result.status == "stored" and checked
    result, checked = _store_seen(db, comment)
    assert result.status == "already stored" and not checked
    result, checked = _store_seen(db, charlot)  # another match, a third store: still no check
    assert result.match_id is not None and not checked

    damaged = Path(shutil.copy(real_db, tmp_path / "damaged-copy.db"))
    overwrite_page(damaged, leaf_page(damaged, "decisions"))
    os.replace(damaged, db)
    before = sha(db)
    result, checked = _store_seen(db, comment)
    assert isinstance(result, DamagedDatabase) and checked and "the database file is damaged" in str(result)
    assert sha(db) == before

    os.replace(shutil.copy(real_db, tmp_path / "whole-copy.db"), db)
    result, checked = _store_seen(db, comment)
    assert result.status == "stored" and checked


def test_a_store_kept_open_writes_into_the_file_now_at_its_path(real_db, tmp_path, monkeypatch):
    """A store kept open (``watch``, a gnubg session) while another file is
    moved over its path: its next store lands in the file now at the path
    (checked first: another file), not in the replaced inode nobody reads.
    A file rebuilt in place by `check --repair` (another process; the same
    inode, written through SQLite's backup API) is another file for this
    process: the store kept open checks it again before writing into it
    (and a new store of the process then does not).  docs/reliability.md."""
    import os

    from gnubg_blunder.importers import sgf, xg
    from gnubg_blunder.database import SQLiteStore
    from gnubg_blunder.store import damage

    runs = []  # the real quick_check, counted (the store may open a new connection: no trace to follow)
    real_quick_check = damage.quick_check
    monkeypatch.setattr(damage, "quick_check", lambda *a, **k: runs.append(1) or real_quick_check(*a, **k))

    def traced(store, match):
        before = len(runs)
        return store.add_match(match), len(runs) > before

    matches = stored_matches

    db = Path(shutil.copy(real_db, tmp_path / "kept.db"))
    comment, selfplay = xg.read_match(XG_COMMENT), sgf.read_match(FIXTURES / "selfplay" / "m1-7.sgf")
    with SQLiteStore(db) as store:
        result, checked = traced(store, comment)
        assert result.status == "stored" and checked and matches(db) == 3
        os.replace(shutil.copy(real_db, tmp_path / "other.db"), db)  # 2 matches, another inode
        result, checked = traced(store, comment)
        assert result.status == "stored" and checked, "written into the replaced file"
        assert matches(db) == 3

        inode = os.stat(db).st_ino
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the pages in the file, where a disk damages them
        # by another process: a plain open and close of the file by this one would drop this process's SQLite
        # locks on it (POSIX locks are per process), and the repair would take the store kept open for gone
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from test_check import overwrite_page; overwrite_page(sys.argv[2], int(sys.argv[3]))",
                        str(Path(__file__).parent), str(db), str(leaf_page(db, "decisions_by_position"))],
                       check=True)
        res = run_cli("check", "--repair", db=db, check=False)
        assert res.returncode == 0 and "repaired: the file rebuilt from its" in res.stdout, res.stdout
        assert os.stat(db).st_ino == inode  # in place: the same inode
        result, checked = traced(store, selfplay)
        assert result.status == "stored" and checked  # the store kept open checks the rebuilt file again
        assert matches(db) == 4
    with SQLiteStore(db) as store:  # a new store: the rebuilt file was checked once in this process
        result, checked = traced(store, sgf.read_match(FIXTURES / "selfplay" / "m11-5.sgf"))
        assert result.status == "stored" and not checked and matches(db) == 5
    assert run_cli("check", db=db).returncode == 0
