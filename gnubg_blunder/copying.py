"""``gnubg-blunder copy --from SRC --to DST``: every match, analysis and
piece of study data of one database copied into another, SQLite or
PostgreSQL either side (docs/copy.md).

Row for row, not match files again: a match of SRC whose identity DST lacks
is copied whole (its ``matches`` row as it is, its games, every analysis
with its decisions, candidate lists and rolls); a match both hold gets the
analyses (engine, depth) DST lacks; the rest is already there, and nothing
is written for it.  Ids are kept where DST has them free, so a copy into an
empty database shows the same match ids in every view; a taken id is given
a new one, beyond both databases' largest, and every reference follows.

Each write transaction holds whole matches (a batch of them): a crash
leaves every match whole or absent, and the same copy run again goes on.
Then the study data (aliases, study actions, collections, Anki notes, the
settings), the array cache of DST built, and DST checked against SRC.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from typing import Optional
from urllib.parse import parse_qs, urlsplit

from tqdm import tqdm

from .commands import UserError
from .errors import BlunderError
from .progress import PLAIN_FORMAT, Progress
from .store import StoreError, is_database_url, shown_database
from .store.copy import ENGINE_KEYS, Copier, read_snapshot, server_instance
from .text import safe_text
from .database import open_store
from .db_settings import BLUNDER_KEY, ERROR_KEY, GOAL_KEY, MAIN_PLAYER_KEY
from .labels import LABELS_VERSION



# -- naming the two databases ------------------------------------------------------

def _url_key(url: str) -> tuple:
    """(host, port, database) a URL names, for telling two spellings of one
    database apart (the user and password do not matter)."""
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    host = (query.get("host") or parts.hostname or "localhost").lower()
    if host in ("127.0.0.1", "::1") or host.startswith("/"):
        host = "localhost"
    try:
        port = int(query.get("port") or parts.port or 5432)
    except ValueError:
        port = 5432
    name = query.get("dbname") or parts.path.lstrip("/") or parts.username or ""
    return host, port, name


def same_database(a, b) -> bool:
    """Whether two targets name one database: the same file (by its real
    path, or the same inode), or the same server, port and database name."""
    a, b = str(a), str(b)
    if is_database_url(a) != is_database_url(b):
        return False
    if is_database_url(a):
        return _url_key(a) == _url_key(b)
    pa, pb = os.path.expanduser(a), os.path.expanduser(b)
    try:
        if os.path.exists(pa) and os.path.exists(pb):
            return os.path.samefile(pa, pb)
    except OSError:
        pass
    return os.path.realpath(pa) == os.path.realpath(pb)


# -- progress in matches and analyses, not files ------------------------------------

class _Progress(Progress):
    """The project's progress (a bar on a terminal, a plain line at most every
    10 s otherwise) counting ``units`` instead of files."""

    def __init__(self, ctx, total: int, what: str, unit: str, units: str):
        super().__init__(ctx, total, what)
        self.unit, self.units = unit, units
        if self.bar is not None:
            self.bar.unit = unit
            self.bar.refresh()  # drawn once already, counting files

    def line(self) -> str:
        text = tqdm.format_meter(self.n, self.total, time.monotonic() - self.start, prefix=self.what,
                                 unit=f" {self.units}", bar_format=PLAIN_FORMAT % self.units)
        text = " ".join(text.split())
        return text + (f"; {self._detail}" if self._detail else "")


def _copy_settings(copier) -> None:
    """The user's settings in ``meta`` (thresholds, main player, goal, a
    plugin's): one DST has is kept as DST has it (a note says so when
    SRC's differs).  The two thresholds are one setting.  Written inside
    the study data's transaction (``Copier.copy_study``)."""
    src, dst = copier.settings()
    keys = [k for k in sorted(src) if k not in ENGINE_KEYS]
    groups = []
    if ERROR_KEY in keys or BLUNDER_KEY in keys:
        groups.append((ERROR_KEY, BLUNDER_KEY))
    groups += [(k,) for k in keys if k not in (ERROR_KEY, BLUNDER_KEY)]
    for group in groups:
        if any(k in dst for k in group):
            copier.counts["settings_there"] += 1
            if any(src.get(k) != dst.get(k) for k in group):
                copier.notes.append(f"note: {copier.dst_name} keeps its own {_setting_name(group)} "
                                    f"({_setting_value(group, dst)}); {copier.src_name}'s "
                                    f"({_setting_value(group, src)}) was not copied")
            continue
        for k in group:
            if k in src:
                copier.dst.set_meta(k, src[k])
        copier.counts["settings"] += 1


def _setting_name(group: tuple) -> str:
    return {ERROR_KEY: "thresholds", MAIN_PLAYER_KEY: "main player", GOAL_KEY: "goal"}.get(
        group[0], f"setting {group[0]}")


def _setting_value(group: tuple, meta: dict) -> str:
    if group[0] == ERROR_KEY:
        return "/".join(meta.get(k) or "default" for k in group) + " EMG"
    value = meta.get(group[0])
    if group[0] == GOAL_KEY and value:
        try:
            goal = json.loads(value)
            return f"{goal['metric'].upper()} {goal['op']} {goal['target']:g} by {goal['deadline']}"
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    return safe_text(value) if value is not None else "none"


# -- the command ------------------------------------------------------------------------

def _plural(n: int, one: str, many: Optional[str] = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _open(target, role: str, ctx):
    """The store at ``target`` (SRC or DST), or a one-line error naming it."""
    try:
        return open_store(str(target), report=ctx.error)
    except (StoreError, sqlite3.Error, OSError) as exc:
        raise _OpenFailed(f"cannot open {role} {shown_database(target)}: {exc}") from None


class _OpenFailed(BlunderError):
    pass


def copy_databases(ctx, source: str, target: str) -> int:
    """``copy --from SOURCE --to TARGET``: the exit status (0 copied and
    checked, 1 the check or the copy failed; a user's mistake raises
    :class:`UserError`)."""
    source, target = str(source), str(target)
    if not is_database_url(source):
        source = os.path.expanduser(source)
    if not is_database_url(target):
        target = os.path.expanduser(target)
    src_name, dst_name = shown_database(source), shown_database(target)
    if same_database(source, target):
        raise UserError(f"--from and --to name the same database ({src_name}): nothing to copy")
    if not is_database_url(source):
        if not os.path.exists(source):
            raise UserError(f"no database at {src_name} (--from): nothing was copied")
        if not os.path.isfile(source):
            raise UserError(f"{src_name} (--from) is not a database file")
    if not is_database_url(target) and os.path.isdir(target):
        raise UserError(f"{dst_name} (--to) is a folder: name the database file to copy into")
    src = dst = None
    copier = None
    started = time.monotonic()
    try:
        src = _open(source, "--from", ctx)
        dst = _open(target, "--to", ctx)
        if server_instance(src) is not None and server_instance(src) == server_instance(dst):
            raise UserError(f"--from and --to name the same database ({src_name} and {dst_name}): nothing to copy")
        if dst.read_only:
            raise UserError(f"cannot copy into {dst_name}: {dst.read_only_reason}")
        if not src.labels_current():
            if src.read_only:
                raise UserError(f"{src_name} holds labels of rules version {src.get_meta('labels_version')} "
                                f"(now {LABELS_VERSION}) and cannot be written ({src.read_only_reason}): run "
                                f"`gnubg-blunder --db {src_name} relabel` where it can be, then copy")
            src.relabel(only_if_stale=True)
        if not dst.labels_current():
            dst.relabel(only_if_stale=True)
        ctx.print(f"copying {src_name} ({src.engine}) into {dst_name} ({dst.engine})")
        copier = Copier(src, dst, src_name, dst_name,
                        progress=lambda total, what, unit, units: _Progress(ctx, total, what, unit, units))
        with read_snapshot(src):  # SRC read in one snapshot: what is copied is what is checked
            copier.plan()
            copier.copy_matches()
            copier.copy_study(_copy_settings)
            _report_counts(ctx, copier)
            copier.build_cache()
            if copier.cache_built:
                ctx.print(f"array cache of {dst_name}: built for {_plural(copier.cache_built, 'analysis', 'analyses')} "
                          f"in {copier.cache_seconds:.1f} s")
            problems = copier.check()
        if problems:
            ctx.error(f"error: check failed: {dst_name} differs from {src_name} "
                      f"({_plural(len(problems), 'difference')}):")
            for line in problems[:10]:
                ctx.error(f"  {line}")
            if len(problems) > 10:
                ctx.error(f"  ... and {len(problems) - 10} more")
            return 1
        ctx.print(f"checked: the {_plural(copier.checked_matches, 'match', 'matches')} of {src_name} are in "
                  f"{dst_name} with the same games, and each of their "
                  f"{_plural(copier.checked_analyses, 'analysis', 'analyses')} with the same number of decisions "
                  f"and rolls; its aliases, collections, filed positions, study actions, Anki notes and settings "
                  f"are there ({time.monotonic() - started:.1f} s in all)")
        return 0
    except _OpenFailed as exc:
        ctx.error(f"error: {exc}")
        return 1
    except (StoreError, sqlite3.Error) as exc:
        ctx.error(f"error: copy from {src_name} into {dst_name} stopped: {exc}")
        if copier is not None:
            ctx.error(_so_far(copier, dst_name))
        return 1
    except KeyboardInterrupt:
        ctx.error(f"copy interrupted. {_so_far(copier, dst_name) if copier else 'Nothing was copied.'}")
        return 130
    finally:
        for store in (src, dst):
            if store is not None:
                store.close()


def _so_far(copier: Copier, dst_name: str) -> str:
    return (f"{_plural(copier.counts['matches'], 'match', 'matches')} and "
            f"{_plural(copier.counts['analyses_added'], 'analysis', 'analyses')} were copied whole into {dst_name} "
            "before it (a match is written whole or not at all): run the same copy again to go on")


def _report_counts(ctx, copier: Copier) -> None:
    c = copier.counts
    new_ids = (f"; {_plural(c['new_match_ids'], 'match', 'matches')} given a new id (theirs was taken in "
               f"{copier.dst_name})") if c["new_match_ids"] else ""
    ctx.print(f"matches: {c['matches']} copied, {c['analyses_added']} "
              f"{'analysis' if c['analyses_added'] == 1 else 'analyses'} added to matches already there, "
              f"{c['matches_there']} already there{new_ids}")
    ctx.print(f"rows copied: {_plural(c['analyses'], 'analysis', 'analyses')}, {_plural(c['games'], 'game')}, "
              f"{_plural(c['decisions'], 'decision')} ({c['candidates']} with a candidate list), "
              f"{_plural(c['rolls'], 'roll')}")
    study = (("aliases", "alias", "aliases"), ("actions", "study action", None), ("collections", "collection", None),
             ("filed", "filed position", None), ("notes", "Anki note", None), ("settings", "setting", None))
    ctx.print("study data: " + ", ".join(_plural(c[k], one, many) for k, one, many in study) + " copied; already "
              "there: " + ", ".join(_plural(c[f"{k}_there"], one, many) for k, one, many in study))
    if c["verified"] or c["verified_there"]:
        ctx.print(f"verified evaluations (docs/verify.md): {c['verified']} copied, {c['verified_there']} already there")
    for line in copier.notes:
        ctx.print(line)
    if not (c["matches"] or c["analyses_added"] or c["aliases"] or c["actions"] or c["collections"] or c["filed"]
            or c["notes"] or c["settings"]):
        ctx.print(f"nothing to copy: {copier.dst_name} holds everything {copier.src_name} holds")
