"""Real processes against PostgreSQL databases, for tests/test_postgres_reliability.py
(the PostgreSQL side of tests/store_processes.py).

Imported by the test for :func:`signature` and :func:`partial_matches`;
run as a script (``python tests/pg_processes.py CONFIG_JSON``) for the
crash trials: it imports the store once, then forks a child process per
trial (store_processes._fork), so tens of trials take seconds, and prints
one JSON object.

The trials run in one database copied from a template (``CREATE DATABASE
... TEMPLATE``) and brought back to the template's rows after each.  A
child runs ``gnubg-blunder --db URL import FILES`` (the command line's
code, ``commands.run``) and is killed by SIGKILL

- ``sweep``: just before the k-th statement it sends to the server
  (k = 0, 1, ...: every ``PgConnection._run`` and ``executemany``, so also
  between ``BEGIN`` and the advisory lock), until the import finishes
  first;
- ``random``: at a random moment of the import (uniform over 90 % of its
  shortest unkilled duration), until ``cfg["random"]`` kills have landed
  inside an import (at most four times as many tries).

Then the database must hold each match whole or not at all
(:func:`partial_matches` against a clean import's :func:`signature`), and
the same import, run again at once, must complete it to the clean import's
signature (after every random kill; after a sweep's kill when the rows it
left were not met before).
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sys
import time
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("GNUBG_BLUNDER_NO_PLUGINS", "1")

from store_processes import _fork  # noqa: E402

TABLES = ("matches", "games", "analyses", "decisions", "decision_candidates", "rolls", "analysis_arrays")


def signature(url: str) -> dict:
    """What the database holds, engine-independent and id-free: the row
    count of each table, each match's games (by identity) and each
    analysis' decision, candidate-list and roll rows and array-cache rows
    (by identity, engine and depth), the matches without any analysis."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        if c.execute("SELECT to_regclass('matches')").fetchone()[0] is None:
            return {"schema": False, "tables": {}, "matches": {}, "analyses": {}, "bare": []}
        tables = {t: c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
        matches = dict(c.execute(
            "SELECT m.identity, (SELECT COUNT(*) FROM games g WHERE g.match_id = m.id) FROM matches m").fetchall())
        analyses = {f"{ident}|{engine}|{depth}": [dec, cand, rolls, arrays] for ident, engine, depth, dec, cand,
                    rolls, arrays in c.execute(
            "SELECT m.identity, a.engine, a.depth_label, "
            "(SELECT COUNT(*) FROM decisions d WHERE d.analysis_id = a.id), "
            "(SELECT COUNT(*) FROM decision_candidates dc JOIN decisions d ON d.id = dc.decision_id "
            " WHERE d.analysis_id = a.id), "
            "(SELECT COUNT(*) FROM rolls r WHERE r.analysis_id = a.id), "
            "(SELECT COUNT(*) FROM analysis_arrays x WHERE x.analysis_id = a.id) "
            "FROM analyses a JOIN matches m ON m.id = a.match_id").fetchall()}
        bare = sorted(r[0] for r in c.execute(
            "SELECT identity FROM matches m WHERE NOT EXISTS (SELECT 1 FROM analyses a WHERE a.match_id = m.id)"))
    return {"schema": True, "tables": tables, "matches": matches, "analyses": analyses, "bare": bare}


def partial_matches(got: dict, clean: dict) -> list:
    """What makes ``got`` hold part of a match: a match whose games are
    not those of the clean import, a match with no analysis, an analysis
    whose rows (decisions, candidate lists, rolls, array cache) are not all
    the clean import's, anything the clean import does not hold."""
    bad = []
    for ident, games in got["matches"].items():
        if clean["matches"].get(ident) != games:
            bad.append(f"match {ident[:12]}: {games} games, the clean import {clean['matches'].get(ident)}")
    for key, rows in got["analyses"].items():
        if clean["analyses"].get(key) != rows:
            bad.append(f"analysis {key[:12]}…{key[64:]}: rows {rows}, the clean import {clean['analyses'].get(key)}")
    bad += [f"match {ident[:12]} without an analysis" for ident in got["bare"]]
    if got["schema"] is not True:
        bad.append("the tables are gone")
    return bad


# -- the trials (in the script) ---------------------------------------------------------


def _url(admin: str, dbname: str) -> str:
    parts = urlsplit(admin)
    return urlunsplit(parts._replace(path="/" + dbname))


def _admin(cfg: dict, sql: str) -> None:
    import psycopg

    with psycopg.connect(cfg["admin"], autocommit=True) as c:
        c.execute(sql)


def _import(url: str, files: list) -> dict:
    from gnubg_blunder.commands import Context, run

    out, err = io.StringIO(), io.StringIO()
    code = run(["--db", url, "import", *files], Context(out=out, err=err))
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _kill_before_statement(k: int, fd: int) -> None:
    """SIGKILL this process just before the k-th statement it sends to the
    server (counted over its connections), after writing to ``fd`` whether
    a transaction was open and the statement."""
    from gnubg_blunder.store import pg_sql

    seen = [0]
    real_run, real_many = pg_sql.PgConnection._run, pg_sql.PgConnection.executemany

    def before(conn, sql):
        if seen[0] == k:
            os.write(fd, json.dumps({"in_transaction": conn.in_transaction,
                                     "statement": " ".join(sql.split())[:100]}).encode())
            os.kill(os.getpid(), signal.SIGKILL)
        seen[0] += 1

    def run(self, sql, params=()):
        before(self, sql)
        return real_run(self, sql, params)

    def many(self, sql, rows):
        before(self, "executemany: " + sql)
        return real_many(self, sql, rows)

    pg_sql.PgConnection._run = run
    pg_sql.PgConnection.executemany = many


def _new_database(cfg: dict, suffix: str) -> str:
    name = f"{cfg['template']}_{suffix}"
    _admin(cfg, f'CREATE DATABASE "{name}" TEMPLATE "{cfg["template"]}"')
    return name


def _reset(url: str, last: tuple) -> None:
    """The trial database back to the template's rows: what was stored
    after them deleted (the rows of a match or analysis cascade)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute("DELETE FROM analyses WHERE id > %s", (last[1],))
        c.execute("DELETE FROM matches WHERE id > %s", (last[0],))


def _trial(cfg: dict, url: str, clean: dict, kind: str, value, done: dict) -> dict:
    """One killed import into ``url`` (holding the template's rows); the
    import again when the rows it left were not met before (``done``)."""
    if kind == "k":
        def killed(fd, k=value):
            _kill_before_statement(k, fd)
            return _import(url, cfg["files"])

        end, text = _fork(killed)
        res = {"k": value, "end": list(end)}
        if end == ("signal", signal.SIGKILL):
            res.update(json.loads(text))
        else:
            res["result"] = text[-2000:]
            return res
    else:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                os.write(w, b"r")
                _import(url, cfg["files"])
            finally:
                os._exit(0)
        os.close(w)
        os.read(r, 1)
        time.sleep(value)
        os.kill(pid, signal.SIGKILL)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        res = {"delay_ms": round(value * 1000, 1), "killed": os.WIFSIGNALED(status)}
    got = signature(url)
    res.update({"partial": partial_matches(got, clean), "matches": len(got["matches"]),
                "analyses": len(got["analyses"])})
    state = json.dumps(got, sort_keys=True)
    if kind != "k" or state not in done:
        # the same import again, at once (the killed connection's lock may not be released yet)
        end, text = _fork(lambda fd: _import(url, cfg["files"]))
        again = json.loads(text) if end == ("exit", 0) and text else {"code": f"{end}", "out": "", "err": text}
        res["again"] = {"code": again["code"], "err": again["err"],
                        "summary": again["out"].strip().splitlines()[-1:]}
        res["complete"] = signature(url) == clean
        done[state] = res["complete"]
    return res


def main(cfg: dict) -> dict:
    """The sweep, then ``cfg["random"]`` kills at random moments, each
    from the template's rows, in one database (reset between trials)."""
    import gnubg_blunder.commands  # noqa: F401  (imported once here, not in each child)
    import gnubg_blunder.plugins
    import gnubg_blunder.store.postgres  # noqa: F401

    gnubg_blunder.plugins.get_plugin_manager()
    clean = signature(cfg["clean"])
    template = signature(_url(cfg["admin"], cfg["template"]))
    started = time.monotonic()
    url = _url(cfg["admin"], _new_database(cfg, "trials"))
    import psycopg

    with psycopg.connect(url) as c:
        last = tuple(c.execute("SELECT (SELECT COALESCE(MAX(id), 0) FROM matches), "
                               "(SELECT COALESCE(MAX(id), 0) FROM analyses)").fetchone())
    # The import unkilled: once in this process (the children then find
    # every module imported), once in a child, timed.
    durations = []
    for n in range(2):
        t0 = time.monotonic()
        if n == 0:
            end, res = ("exit", 0), _import(url, cfg["files"])
        else:
            end, text = _fork(lambda fd: _import(url, cfg["files"]))
            res = json.loads(text) if text else {}
        durations.append(time.monotonic() - t0)
        if end != ("exit", 0) or res.get("code") != 0 or signature(url) != clean:
            return {"error": f"an unkilled import differs from the clean one: {end} {res}"}
        _reset(url, last)
    sweep, randoms, done, resets = [], [], {}, []
    k = 0
    while k < cfg.get("limit", 400):
        res = _trial(cfg, url, clean, "k", k, done)
        sweep.append(res)
        _reset(url, last)
        resets.append(signature(url) == template)
        if res["end"] != ["signal", signal.SIGKILL]:
            break  # the import ran fewer than k statements: every point was tried
        k += 1
    rng = random.Random(cfg.get("seed", 14))
    window = min(durations)
    # (the end of the import: the sweep's last kills).  Until N kills landed
    # inside an import, at most 4 N tries: an import that finished before its
    # kill (a faster moment of a busy machine) is a try, not a kill, and
    # narrows the window.
    wanted = cfg.get("random", 0)
    while sum(t["killed"] for t in randoms) < wanted and len(randoms) < 4 * wanted:
        randoms.append(_trial(cfg, url, clean, "r", rng.uniform(0, 0.9 * window), done))
        if not randoms[-1]["killed"]:
            window *= 0.7
        _reset(url, last)
        resets.append(signature(url) == template)
    return {"clean": {"matches": len(clean["matches"]), "analyses": len(clean["analyses"]),
                      "tables": clean["tables"]},
            "template": {"matches": len(template["matches"]), "analyses": len(template["analyses"])},
            "resets": resets, "window_ms": round(window * 1000, 1), "sweep": sweep, "random": randoms,
            "seconds": round(time.monotonic() - started, 2)}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
