"""The SQLite schema, created and migrated by numbered steps.

Each step is applied once, in order, as one transaction of its own
(``BEGIN IMMEDIATE``, the version read again, the step, the new version,
``COMMIT``): a crash leaves the database at the last version it reached,
whole, and processes opening one database at once make each step once.  The
schema version lives in ``meta``.  A later step alters what an earlier one
made: never edit a step that has shipped.  docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from typing import Callable, Optional, Union
from urllib.parse import quote

import numpy as np


def _beaver_takes(conn: sqlite3.Connection) -> None:
    """SPEC §2 made the beaver the responder's take decision: databases
    written before hold only the chain's double and the take closing it
    (``beaver_take`` 1).  Add the beaver as the builder now makes it
    (importers/build.py ``_beaver``): a take of the double's responder, at
    the record after the double, judged on the double's analysis (the
    closing take's e, nd, dt, dp), ``beaver_take`` 2.  Its comment was not
    kept.  The array cache is rebuilt when read."""
    rows = conn.execute(
        """SELECT d.analysis_id, d.game, d.seq, d.player, d.position_id, d.cube_value, d.cube_owner,
                  d.score_self, d.score_opp, d.crawford, t.best_move, t.error, t.nd, t.dt, t.dp, t.depth
           FROM decisions t
           JOIN analyses a ON a.id = t.analysis_id
           JOIN matches m ON m.id = a.match_id AND m.length = 0
           JOIN decisions d ON d.analysis_id = t.analysis_id AND d.game = t.game AND d.kind = 'double'
                AND d.seq = (SELECT MAX(x.seq) FROM decisions x WHERE x.analysis_id = t.analysis_id
                             AND x.game = t.game AND x.kind = 'double' AND x.seq < t.seq)
           WHERE t.beaver_take = 1"""
    ).fetchall()
    new = []
    for (aid, game, seq, doubler, pos, cube, owner, me, opp, crawford, best, error, nd, dt, dp, depth) in rows:
        resp_pos = Board.from_position_id(pos).swapped().position_id() if pos else None
        labels = decision_labels("take", resp_pos, error, [], None, nd, dt, dp)
        new.append((aid, game, seq + 1, 1 - doubler, "take", resp_pos, cube, owner, opp, me, crawford,
                    "beaver", best, error, nd, dt, dp, 0, 2, 0, depth) + tuple(labels))
    conn.executemany(
        "INSERT INTO decisions(analysis_id, game, seq, player, kind, position_id, cube_value, cube_owner, "
        "score_self, score_opp, crawford, played_move, best_move, error, nd, dt, dp, n_candidates, beaver_take, "
        "gnubg_dead_cube, depth, phase, game_plan, theme) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        new,
    )
    if new:
        conn.execute("DELETE FROM analysis_arrays")


_EQUITY_KEY = '"equity": '  # as the store writes each candidate (json.dumps: ", " and ": ")


def _stored_equities(texts: list) -> tuple:
    """The candidates' equities of stored candidate lists (JSON text, or
    None/"" for none), as ``[c.get("equity") for c in json.loads(text)]``
    gives them, None as NaN: (flat float64 array, count of each list).

    Read as text when the lists are as the store writes them (each
    candidate an object with one ``"equity": `` key, no escaped character,
    so no quote or brace inside a string):
    one regular expression over the whole slice, one numpy conversion.  A
    slice holding any other text is parsed by ``json.loads``, list by list."""
    if any(isinstance(t, (bytes, memoryview)) for t in texts):  # format 1 (step 10): codec/candidates.py

        lists = [equities(t) if t else [] for t in texts]
        flat = np.array([np.nan if q is None else q for eqs in lists for q in eqs], dtype=np.float64)
        return flat, np.array([len(eqs) for eqs in lists], dtype=np.int64)
    texts = [t or "" for t in texts]
    lens = [t.count(_EQUITY_KEY) for t in texts]
    joined = "\n".join(texts)
    if "\\" not in joined and sum(lens) == joined.count("{") == joined.count("}"):
        values = re.findall(r'"equity": ([^,}]*)', joined)
        if len(values) == sum(lens):
            try:
                return np.array(values, dtype=np.float64), np.array(lens, dtype=np.int64)
            except ValueError:  # a null (None) among them, or text of another writer: parsed below
                pass
    lists = [[c.get("equity") for c in json.loads(t)] if t else [] for t in texts]
    flat = np.array([np.nan if q is None else q for eqs in lists for q in eqs], dtype=np.float64)
    return flat, np.array([len(eqs) for eqs in lists], dtype=np.int64)


def _difficulty(conn: sqlite3.Connection, rules) -> None:
    """SPEC §6: each counted decision carries its difficulty d (EMG) and
    whether it stands on a truncated candidate list.  Databases stored
    before get both computed here from the stored candidate lists and cube
    figures (``rules``: the store's derived rules, store/derived.py, whose
    difficulty is metrics/difficulty.py's one rule), without re-import; the
    ``duration`` column (seconds) exists since step 1.  The array cache is
    rebuilt when read (its format changed with the columns).

    In slices of ids, all numpy: the decisions' columns, which of them
    count, the equities of the counted checker plays' lists only (read as
    text, :func:`_stored_equities`), d of the whole slice at once, an
    UPDATE a slice for each truncation flag (JSON ``{id: d}``: the step stays
    a handful of statements, one transaction)."""
    K_CHECKER = KIND_CODES["checker"]

    conn.execute("ALTER TABLE decisions ADD COLUMN difficulty REAL")
    conn.execute("ALTER TABLE decisions ADD COLUMN difficulty_truncated INTEGER")
    kind = "CASE kind " + " ".join(f"WHEN '{name}' THEN {code}" for name, code in KIND_CODES.items()) + " ELSE -1 END"
    names = ("kind", "error", "n_legal", "n_candidates", "equity_spread", "xg_counted", "nd", "dt", "dp",
             "beaver_take")
    last = -1
    while True:  # in slices of ids: the candidate lists of a large database are not all read at once
        chunk = conn.execute(
            f"""SELECT id, {kind}, error, COALESCE(n_legal, -1), n_candidates, equity_spread,
                       COALESCE(xg_counted, -1), nd, dt, dp, beaver_take
                FROM decisions WHERE id > ? AND error IS NOT NULL ORDER BY id LIMIT 50000""", (last,)).fetchall()
        if not chunk:
            break
        last = chunk[-1][0]
        cols = list(zip(*chunk))
        ids = np.array(cols[0], dtype=np.int64)
        dec = DecisionArrays(**{name: np.array(col, dtype=DecisionArrays.SPEC[name][0])  # NULL float: NaN
                                for name, col in zip(names, cols[1:])})
        cnt = rules.counted_by_rule(dec)  # no cached flag in the rows: the rule itself (SPEC §2)
        lists = cnt & (dec.kind == K_CHECKER)
        want = ids[lists]
        lens = np.zeros(len(ids), dtype=np.int64)
        flat = np.zeros(0)
        if len(want):
            stored = dict(conn.execute(
                "SELECT decision_id, candidates FROM decision_candidates WHERE decision_id BETWEEN ? AND ?",
                (int(want[0]), int(want[-1]))).fetchall())
            flat, lens[lists] = _stored_equities([stored.get(i) for i in want.tolist()])
        d, truncated = rules.difficulty_columns(dec, flat, lens, cnt)
        # one statement a slice and truncation (not one a row): the step stays a handful of statements
        for flag in (0, 1):
            rows = truncated == flag
            if rows.any():
                conn.execute(
                    "UPDATE decisions SET difficulty = j.value, difficulty_truncated = ? "
                    "FROM json_each(?) AS j WHERE decisions.id = j.key",
                    (flag, json.dumps(dict(zip(ids[rows].tolist(), d[rows].tolist())))))
    conn.execute("DELETE FROM analysis_arrays")


def _compact_candidates(conn: sqlite3.Connection) -> None:
    """Candidate lists in the compact format 1 (codec/candidates.py,
    docs/storage.md) instead of JSON: the numbers packed, the moves and
    boards as stored (their notation and position IDs, byte for byte), null
    fields left out; the column a BLOB.  And the rolls a WITHOUT ROWID table
    on their primary key (no separate index beside the table).  In slices
    of ids, one transaction; the array cache is kept (its columns are the
    same)."""
    conn.execute("""CREATE TABLE decision_candidates_v10 (
    decision_id INTEGER PRIMARY KEY REFERENCES decisions(id) ON DELETE CASCADE,
    candidates  BLOB NOT NULL                 -- format 1, store/candidates.py
)""")
    last = -1
    while True:
        rows = conn.execute("SELECT decision_id, candidates FROM decision_candidates WHERE decision_id > ? "
                            "ORDER BY decision_id LIMIT 50000", (last,)).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        cols = [Columns(blob) for _, blob in rows]
        blobs = encode_many([(c.moves, c.moves_are_text, c.equities, c.probs, c.position_ids, c.depths)
                             for c in cols])
        conn.executemany("INSERT INTO decision_candidates_v10(decision_id, candidates) VALUES (?, ?)",
                         [(did, blob) for (did, _), blob in zip(rows, blobs)])
    conn.execute("DROP TABLE decision_candidates")
    conn.execute("ALTER TABLE decision_candidates_v10 RENAME TO decision_candidates")
    conn.execute("""CREATE TABLE rolls_v10 (
    analysis_id    INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    game           INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    player         INTEGER NOT NULL,
    dice1          INTEGER NOT NULL,
    dice2          INTEGER NOT NULL,
    position_id    TEXT,
    position_after TEXT,
    cube_value     INTEGER NOT NULL,
    luck           REAL,                   -- EMG, NULL = unknown
    mwc_per_emg    REAL,
    PRIMARY KEY (analysis_id, game, seq)
) WITHOUT ROWID""")
    conn.execute("INSERT INTO rolls_v10 SELECT analysis_id, game, seq, player, dice1, dice2, position_id, "
                 "position_after, cube_value, luck, mwc_per_emg FROM rolls ORDER BY analysis_id, game, seq")
    conn.execute("DROP TABLE rolls")
    conn.execute("ALTER TABLE rolls_v10 RENAME TO rolls")


def fill_openings(conn) -> None:
    """Each stored match's opening key (``matches.opening``: its length,
    starting score and first moves, model.opening_key), from its games and
    the rolls of its first analysis (every analysis of one identity holds
    the same rolls).  Both engines' step 12; docs/storage.md "A match saved
    twice"."""
    matches = conn.execute(
        "SELECT m.id, m.length, g.score0, g.score1, (SELECT MIN(a.id) FROM analyses a WHERE a.match_id = m.id) "
        "FROM matches m JOIN games g ON g.match_id = m.id AND g.game = "
        "(SELECT MIN(x.game) FROM games x WHERE x.match_id = m.id) WHERE m.kind = 'match'").fetchall()
    keys = []
    for mid, length, s0, s1, aid in matches:
        games = [g for (g,) in conn.execute("SELECT game FROM games WHERE match_id = ? ORDER BY game", (mid,))]
        moves = []
        for game in games:
            moves.append(f"game={game}")
            if len(moves) >= OPENING_MOVES or aid is None:
                continue
            moves += [move_token((d1, d2), after) for d1, d2, after in conn.execute(
                "SELECT dice1, dice2, position_after FROM rolls WHERE analysis_id = ? AND game = ? ORDER BY seq",
                (aid, game))]
            if len(moves) >= OPENING_MOVES:
                break
        keys.append((opening_key(length, (s0, s1), moves), mid))
    conn.executemany("UPDATE matches SET opening = ? WHERE id = ?", keys)


def _openings(conn: sqlite3.Connection) -> None:
    """A match saved twice is stored once (docs/storage.md): each match's
    opening key, indexed, finds the stored earlier saves of a file without
    reading every match."""
    # a step found done in part is passed over where done (:func:`_made_before`'s rule, for a function step)
    if "opening" not in {r[1] for r in conn.execute("PRAGMA table_info(matches)")}:
        conn.execute("ALTER TABLE matches ADD COLUMN opening TEXT")
    fill_openings(conn)
    conn.execute("CREATE INDEX IF NOT EXISTS matches_by_opening ON matches(opening)")


def _anki_note_content(conn: sqlite3.Connection) -> None:
    """What each exported Anki note held (``content``: a digest of its
    fields and tags) and when that last changed (``changed_at``, the
    note's modification time in the package): an export counts, and Anki
    updates, only the notes whose content changed (docs/anki.md)."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(anki_notes)")}
    for column in ("content", "changed_at"):
        if column not in have:  # a step found done in part is passed over where done
            conn.execute(f"ALTER TABLE anki_notes ADD COLUMN {column} TEXT")


def _cube_probs(conn: sqlite3.Connection) -> None:
    """``decisions.cube_probs``: the chances of a cube decision's position
    as its source gives them (codec/candidates.py ``probs_text``); NULL for
    the matches stored before (docs/anki.md, docs/quiz.md)."""
    if "cube_probs" not in {r[1] for r in conn.execute("PRAGMA table_info(decisions)")}:
        conn.execute("ALTER TABLE decisions ADD COLUMN cube_probs TEXT")


# A step is SQL (statements separated by ";"), or a function of the
# connection for what SQL cannot do (of the connection and the store's
# derived rules, store/derived.py, for a step in NEEDS_RULES).
MIGRATIONS: list[tuple[int, Union[str, Callable[[sqlite3.Connection], None]]]] = [
    (
        1,
        """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);

-- One row per match, whatever analysed it.  ``identity`` is the match's
-- length, dice and moves (not the names, which exports spell differently).
CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    identity    TEXT NOT NULL UNIQUE,
    length      INTEGER NOT NULL,          -- 0 = money session
    player0     TEXT NOT NULL,
    player1     TEXT NOT NULL,
    date        TEXT,                      -- ISO date or NULL
    event       TEXT,
    round       TEXT,
    place       TEXT,
    annotator   TEXT,
    comment     TEXT,
    crawford_rule INTEGER NOT NULL DEFAULT 0,
    jacoby      INTEGER NOT NULL DEFAULT 0,
    variation   TEXT NOT NULL DEFAULT 'Standard',
    rating0     TEXT,
    rating1     TEXT,
    final_score0 INTEGER,
    final_score1 INTEGER,
    winner      INTEGER,                   -- 0, 1 or NULL (unfinished / equal)
    source      TEXT NOT NULL,             -- where it was first imported from
    imported_at TEXT NOT NULL
);

CREATE TABLE games (
    match_id  INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    game      INTEGER NOT NULL,
    score0    INTEGER NOT NULL,
    score1    INTEGER NOT NULL,
    crawford  INTEGER NOT NULL DEFAULT 0,
    winner    INTEGER,
    points    INTEGER,
    resigned  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, game)
);

-- A match can hold several analyses (gnubg and XG, or two depths).
CREATE TABLE analyses (
    id            INTEGER PRIMARY KEY,
    match_id      INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    source        TEXT NOT NULL,           -- sgf, xg, gnubg
    source_path   TEXT,
    source_player0 TEXT,                   -- the names as this source spells them
    source_player1 TEXT,
    engine        TEXT NOT NULL,           -- gnubg, xg
    engine_version TEXT,
    depth         REAL,                    -- gnubg plies; rollouts rank higher
    depth_label   TEXT,
    met           TEXT,
    met_assumed   INTEGER NOT NULL DEFAULT 0,
    imported_at   TEXT NOT NULL,
    UNIQUE (match_id, engine, depth_label)
);

CREATE TABLE decisions (
    id            INTEGER PRIMARY KEY,
    analysis_id   INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    game          INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    player        INTEGER NOT NULL,
    kind          TEXT NOT NULL,           -- checker, nodouble, double, take, pass
    position_id   TEXT,
    cube_value    INTEGER NOT NULL,
    cube_owner    INTEGER NOT NULL,
    score_self    INTEGER NOT NULL,
    score_opp     INTEGER NOT NULL,
    crawford      INTEGER NOT NULL,
    dice1         INTEGER,
    dice2         INTEGER,
    played_move   TEXT,
    best_move     TEXT,
    error         REAL,                    -- e (EMG); NULL = unknown
    mwc_per_emg   REAL,                    -- NULL for money
    nd            REAL,
    dt            REAL,
    dp            REAL,
    n_legal       INTEGER,
    n_candidates  INTEGER NOT NULL DEFAULT 0,
    equity_spread REAL,
    played_index  INTEGER,
    xg_counted    INTEGER,
    beaver_take   INTEGER NOT NULL DEFAULT 0,
    gnubg_dead_cube INTEGER NOT NULL DEFAULT 0,
    depth         TEXT,
    candidates    TEXT,                    -- JSON list
    comment       TEXT,
    duration      REAL
);
CREATE INDEX decisions_by_analysis ON decisions(analysis_id, game, seq);
CREATE INDEX decisions_by_position ON decisions(position_id);

CREATE TABLE rolls (
    analysis_id    INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
    game           INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    player         INTEGER NOT NULL,
    dice1          INTEGER NOT NULL,
    dice2          INTEGER NOT NULL,
    position_id    TEXT,
    position_after TEXT,
    cube_value     INTEGER NOT NULL,
    luck           REAL,                   -- EMG; NULL = unknown
    mwc_per_emg    REAL,
    PRIMARY KEY (analysis_id, game, seq)
);
""",
    ),
    (
        2,
        """
-- A match row can hold a one-position file (XG .xgp): kind 'position'.
-- Figures and lists select kind 'match' unless asked otherwise.
ALTER TABLE matches ADD COLUMN kind TEXT NOT NULL DEFAULT 'match';
""",
    ),
    (
        3,
        """
-- Player aliases: names that mean the same person (SPEC §14).
CREATE TABLE aliases (
    alias     TEXT PRIMARY KEY COLLATE NOCASE,
    canonical TEXT NOT NULL
);
-- Derived labels (labels.py), a cache: recomputed when LABELS_VERSION changes.
ALTER TABLE decisions ADD COLUMN phase TEXT;
ALTER TABLE decisions ADD COLUMN game_plan TEXT;
ALTER TABLE decisions ADD COLUMN theme TEXT;
""",
    ),
    (
        4,
        """
-- Candidate lists apart: the decisions table stays narrow, so reading the
-- decisions of 10,000 matches scans small rows.
CREATE TABLE decision_candidates (
    decision_id INTEGER PRIMARY KEY REFERENCES decisions(id) ON DELETE CASCADE,
    candidates  TEXT NOT NULL                 -- JSON list
);
INSERT INTO decision_candidates(decision_id, candidates)
    SELECT id, candidates FROM decisions WHERE candidates IS NOT NULL;
ALTER TABLE decisions DROP COLUMN candidates;
""",
    ),
    (
        5,
        """
-- Each analysis' decisions and rolls as packed numpy columns (a cache of
-- the rows above, rebuilt from them when missing or of another format):
-- figures over 10,000 matches read 10,000 blobs, not 1.6 million rows.
CREATE TABLE analysis_arrays (
    analysis_id INTEGER PRIMARY KEY REFERENCES analyses(id) ON DELETE CASCADE,
    format      INTEGER NOT NULL,
    decisions   BLOB NOT NULL,               -- numpy structured records
    rolls       BLOB NOT NULL,
    comments    TEXT                          -- JSON [[index, text], ...] or NULL
);
""",
    ),
    # The beaver is the responder's take decision (SPEC §2): add it to the
    # money sessions stored before.
    (6, _beaver_takes),
    # Difficulty d of every counted decision (SPEC §6), from the stored candidates.
    (7, _difficulty),
    (
        8,
        """
-- Study actions (SPEC §10, §11): what the user did with a position.  Now the
-- "studied" mark (gnubg-blunder mark studied); the practice issue adds quiz
-- answers and Anki reviews, with their grade and the decision asked.
-- ``references`` never proposes a position with an action; §11 dates a
-- family's study from its first one.
CREATE TABLE study_actions (
    id          INTEGER PRIMARY KEY,
    position_id TEXT NOT NULL,             -- gnubg position ID, the player to act on roll
    action      TEXT NOT NULL,             -- 'studied' (later: 'quiz', 'anki review')
    grade       INTEGER,                   -- a quiz answer's or a review's grade; NULL for a mark
    decision_id INTEGER,                   -- decisions.id asked about, when the action has one; NULL otherwise
    at          TEXT NOT NULL              -- UTC, ISO 8601 (2026-12-01T12:45:00+00:00)
);
CREATE INDEX study_actions_by_position ON study_actions(position_id, action);
-- A decision commented in its imported file makes its position studied (SPEC §10):
-- the commented decisions, found without reading the whole table.
CREATE INDEX decisions_commented ON decisions(position_id) WHERE comment IS NOT NULL AND comment != '';
""",
    ),
    (
        9,
        """
-- Collections (SPEC §10, docs/collections.md): named sets of positions the
-- user files (gnubg-blunder collection add), usable as a filter.  Filing a
-- position is no study action (SPEC §11) but makes it "already studied" for
-- ``references``.  Times are UTC, ISO 8601.
CREATE TABLE collections (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at  TEXT NOT NULL
);
CREATE TABLE collection_positions (
    collection_id INTEGER NOT NULL REFERENCES collections(id),
    position_id   TEXT NOT NULL,           -- gnubg position ID, the player to act on roll
    decision_id   INTEGER,                 -- decisions.id it was filed from, when one; NULL otherwise
    added_at      TEXT NOT NULL,
    PRIMARY KEY (collection_id, position_id)
);
CREATE INDEX collection_positions_by_position ON collection_positions(position_id);
-- Anki notes exported (one row a note; a note is a decision key: position,
-- dice, cube, score).  An exported note makes its position "already studied"
-- for ``references`` (SPEC §10); the export itself is no study action.
CREATE TABLE anki_notes (
    guid        TEXT PRIMARY KEY,
    note_key    TEXT NOT NULL UNIQUE,
    position_id TEXT NOT NULL,
    decision_id INTEGER,
    deck        TEXT,
    exported_at TEXT NOT NULL
);
CREATE INDEX anki_notes_by_position ON anki_notes(position_id);
""",
    ),
    # Candidate lists compact (format 1, codec/candidates.py), rolls without a rowid.
    (10, _compact_candidates),
    (
        11,
        """
-- The depth check (SPEC §16, docs/verify.md): a decision evaluated again by
-- gnubg at a greater depth, kept beside the match's analysis, never over it.
-- One row a decision and depth; the study half reads each decision's deepest
-- (metrics/verify.py), the match figures never read it.
CREATE TABLE verifications (
    decision_id   INTEGER NOT NULL REFERENCES decisions(id) ON DELETE CASCADE,
    plies         INTEGER NOT NULL,        -- gnubg's depth of this evaluation
    engine        TEXT NOT NULL,           -- gnubg
    engine_version TEXT,
    met           TEXT,                    -- the match equity table gnubg used; NULL for money
    error         REAL,                    -- e (EMG) against this evaluation's own best; NULL = unknown
    best_move     TEXT,                    -- checker: the first candidate; cube: the best action
    nd            REAL,                    -- cube decisions: the doubler's cubeful equities (EMG)
    dt            REAL,
    dp            REAL,
    difficulty    REAL,                    -- d of SPEC §6 from this evaluation's options (EMG)
    played_index  INTEGER,                 -- checker: the played move in ``candidates``
    candidates    BLOB,                    -- checker: gnubg's list, store/candidates.py format 1
    verified_at   TEXT NOT NULL,           -- UTC, ISO 8601
    PRIMARY KEY (decision_id, plies)
);
""",
    ),
    # The opening key of each match (length, starting score, first moves), indexed: a later save of a
    # stored match extends it (docs/storage.md "A match saved twice").
    (12, _openings),
    # Each Anki note's content digest and the time it last changed: an unchanged note is not updated.
    (13, _anki_note_content),
    # A cube decision's chances (the doubler's cubeless win, gammon, backgammon chances before the double).
    (14, _cube_probs),
]

# the steps that compute a derived column with the store's rules (called as step(conn, rules))
NEEDS_RULES = {_difficulty}

SCHEMA_VERSION = MIGRATIONS[-1][0]


from ..errors import ConnectionLost, StoreError  # noqa: E402,F401  (the one hierarchy)
from ..model import OPENING_MOVES, move_token, opening_key
from ..arrays import DecisionArrays, KIND_CODES
from ..board.position import Board
from ..codec.candidates import Columns, encode_many, equities
from ..labels import decision_labels
from .error_kinds import sqlite_kind


def current_version(conn: sqlite3.Connection) -> int:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
    ).fetchone()
    if not has_meta:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else 0


def _refuse_newer(version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database schema version {version} is newer than this gnubg-blunder ({SCHEMA_VERSION}); upgrade it",
            kind="newer-schema")


def migrate(conn: sqlite3.Connection, path: Optional[str] = None, report: Optional[Callable] = None,
            rules=None) -> int:
    """Bring the database to SCHEMA_VERSION; returns the version found before.
    ``rules``: the store's derived rules (store/derived.py), which a step
    that computes a derived column reads (``NEEDS_RULES``).

    Each step is one transaction: ``BEGIN IMMEDIATE`` (waiting for any other
    process' step), the version read again (another process may have made
    the step meanwhile: then it is not made twice), the step, the version,
    ``COMMIT``.  The connection's own transaction handling is set aside
    meanwhile (SQLite DDL is transactional only in explicit transactions).

    Before the first step of an upgrade of a database that holds matches:
    ``PRAGMA quick_check`` (a damaged file is not upgraded: one line naming
    ``gnubg-blunder check``), then, when ``path`` is a file, a copy of it
    beside it with SQLite's backup API, ``NAME.v<old>-backup.db``, said in
    one line through ``report``.  One backup an upgrade, not one a process:
    the upgrade's first step writes ``upgrade_from`` in ``meta`` and its last
    step removes it, so a process that opens the file between two steps of
    another's upgrade (or after a crash in the middle of one) goes on from
    there without a copy of a half-upgraded file."""
    found = current_version(conn)
    _refuse_newer(found)
    if found == SCHEMA_VERSION:
        return found
    level = conn.isolation_level
    conn.isolation_level = None  # BEGIN / COMMIT / ROLLBACK are ours
    first_step = True
    try:
        for version, step in MIGRATIONS:
            if version <= found:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                now = current_version(conn)
                _refuse_newer(now)
                if now >= version:  # made by another process meanwhile
                    conn.execute("COMMIT")
                    first_step = False
                    continue
                upgrading = now > 0 and _upgrade_from(conn) is not None
                if first_step and now == found and now > 0 and not upgrading and _holds_matches(conn):
                    _quick_check(conn, now)
                    if path:
                        _backup(conn, path, now, report)
                first_step = False
                _run_step(conn, step, rules)
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (str(version),),
                )
                if version == SCHEMA_VERSION:
                    conn.execute("DELETE FROM meta WHERE key = 'upgrade_from'")
                elif now > 0 and not upgrading:
                    conn.execute("INSERT INTO meta(key, value) VALUES('upgrade_from', ?)", (str(now),))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass  # the error that stopped the step is the one to see
                raise
    finally:
        conn.isolation_level = level
    return found


def _upgrade_from(conn: sqlite3.Connection) -> Optional[str]:
    """The version an unfinished upgrade started from (see :func:`migrate`)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'upgrade_from'").fetchone()
    return row[0] if row else None


def _run_step(conn: sqlite3.Connection, step, rules) -> None:
    """One step: its statements, or a function of the connection (and of the
    store's derived rules, store/derived.py, when it takes two arguments)."""
    if callable(step):
        if step in NEEDS_RULES:
            if rules is None:
                raise TypeError(f"schema step {step.__name__} needs the store's derived rules (migrate(rules=...))")
            step(conn, rules)
        else:
            step(conn)
        return
    for stmt in _statements(step):
        try:
            conn.execute(stmt)
        except sqlite3.OperationalError as exc:
            if not _made_before(stmt, exc):
                raise


def _made_before(stmt: str, exc: sqlite3.OperationalError) -> bool:
    """Before steps were transactions (gnubg-blunder up to schema version
    6 as first shipped), each CREATE and ALTER of a step was committed on its
    own and the version written last: a crash in between left a database
    holding part of a step without its version, which no open could upgrade
    ("table aliases already exists", "duplicate column name: kind").  Those
    statements, found done, are passed over; the rest of the step is made."""
    text = " ".join(stmt.split()).upper()
    message = str(exc)
    if text.startswith(("CREATE TABLE", "CREATE INDEX")) and message.endswith("already exists"):
        return True
    return " ADD COLUMN " in text and message.startswith("duplicate column name")


def _holds_matches(conn: sqlite3.Connection) -> bool:
    has = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='matches'").fetchone()
    return bool(has) and conn.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is not None


def _busy_kind(exc: BaseException):
    """"busy" for one of SQLite's busy errors (what a StoreError made of it
    says: another program held the lock), else None."""
    return "busy" if isinstance(exc, sqlite3.Error) and sqlite_kind(exc) == "busy" else None


def _quick_check(conn: sqlite3.Connection, version: int) -> None:
    """Refuse to upgrade a damaged file (the upgrade would rewrite tables
    from damaged pages)."""
    kind = "damaged"
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        rows, kind = [str(exc)], _busy_kind(exc) or kind
    lines = [line.strip() for row in rows for line in row.splitlines()]
    lines = [line for line in lines if line and not line.startswith("*** in database")]
    if lines != ["ok"]:
        first = lines[0] if lines else "no answer"
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        raise StoreError(
            f"the database file is damaged (PRAGMA quick_check: {first}{more}); it was left at schema version "
            f"{version}, not upgraded to {SCHEMA_VERSION}: `gnubg-blunder check` says what is damaged", kind=kind
        )


def backup_path(path: str, version: int) -> str:
    """``NAME.v<version>-backup.db`` beside ``path`` (``NAME.v3-backup-2.db``
    when that one exists: a backup is never overwritten)."""
    stem, ext = os.path.splitext(path)
    if ext.lower() not in (".db", ".sqlite", ".sqlite3"):
        stem = path
    candidate = f"{stem}.v{version}-backup.db"
    n = 2
    while os.path.exists(candidate):
        candidate = f"{stem}.v{version}-backup-{n}.db"
        n += 1
    return candidate


def _backup(conn: sqlite3.Connection, path: str, version: int, report: Optional[Callable]) -> None:
    """A copy of the database as it is (SQLite's backup API), written under a
    temporary name and renamed when whole.  It is read by a second
    connection: ``conn`` holds the step's write lock (no other process
    writes meanwhile) and SQLite backs up no database from the connection
    writing it; WAL lets the second one read the last commit, which is what
    the step upgrades."""
    target = backup_path(path, version)
    part = target + ".part"
    _remove(part)
    try:
        src = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True, timeout=30)
        try:
            dst = sqlite3.connect(part)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode = DELETE")  # one file, whatever mode the database is in
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(part, target)
    except (sqlite3.Error, OSError) as exc:
        _remove(part)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StoreError(
            f"cannot write the backup {target} before upgrading from schema version {version} "
            f"({reason}); the database was not changed", kind=_busy_kind(exc)
        ) from exc
    line = (f"gnubg-blunder: database {path}: saved a copy as {target} (schema version {version}) "
            f"before upgrading it to version {SCHEMA_VERSION}")
    if report is not None:
        report(line)


def _remove(path: str) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def _statements(sql: str):
    buf = []
    for line in sql.splitlines():
        stripped = line.split("--", 1)[0] if "--" in line else line
        buf.append(stripped)
        if stripped.rstrip().endswith(";"):
            stmt = "\n".join(buf).strip()
            if stmt.strip(";").strip():
                yield stmt
            buf = []
    rest = "\n".join(buf).strip()
    if rest:
        yield rest
