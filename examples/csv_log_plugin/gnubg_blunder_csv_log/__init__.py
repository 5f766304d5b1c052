"""An example third-party gnubg-blunder plugin.

After each newly stored match (or new analysis of a stored match) it appends
one line to a CSV file: the file named by ``GNUBG_BLUNDER_CSV``, else
``matches.csv`` beside the database.  It also adds a command,
``gnubg-blunder csv-path``, that prints where the file is, and a metric that
``stats`` shows: the checker plays that were forced (a pure function of the
decision arrays, as every metric is).
"""

import csv
import os
from pathlib import Path

import pluggy

hookimpl = pluggy.HookimplMarker("gnubg_blunder")

FIELDS = ["match_id", "status", "player0", "player1", "length", "date", "games", "decisions", "engine"]


def csv_path(store) -> Path:
    env = os.environ.get("GNUBG_BLUNDER_CSV")
    if env:
        return Path(env)
    return Path(store.path).with_name("matches.csv")


@hookimpl
def post_analysis(store, match, result, context):
    path = csv_path(store)
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(FIELDS)
        w.writerow([
            result.match_id, result.status, match.players[0], match.players[1], match.length,
            match.date or "", len(match.games), sum(1 for _ in match.decisions()), match.analysis.engine,
        ])


def _run_csv_path(args, ctx):
    ctx.print(csv_path(ctx.store()))
    return 0


@hookimpl
def register_commands(registry):
    from gnubg_blunder.commands import Command

    registry.add(Command("csv-path", "print where the CSV log of stored matches is", _run_csv_path))


def forced_share(selection, thresholds, decision_type):
    """Checker plays of the selected side(s) that were forced, and their share."""
    from gnubg_blunder.metrics.counting import K_CHECKER, is_forced

    dec = selection.decisions
    checker = (dec.kind == K_CHECKER) & selection.decision_side_mask()
    forced = int((is_forced(dec) & checker).sum())
    total = int(checker.sum())
    return {"forced": forced, "checker_plays": total, "share": None if not total else round(forced / total, 4)}


@hookimpl
def register_metrics(register):
    register("forced checker plays", forced_share)
