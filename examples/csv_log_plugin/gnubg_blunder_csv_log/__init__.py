"""An example third-party gnubg-blunder plugin.

After each newly stored match (or new analysis of a stored match) it appends
one line to a CSV file: the file named by ``GNUBG_BLUNDER_CSV``, else
``matches.csv`` beside the database.  It also adds a command,
``gnubg-blunder csv-path``, that prints where the file is, a metric that
``stats`` shows: the checker plays that were forced (a pure function of the
decision arrays, as every metric is), and a view made with the command kit,
``gnubg-blunder forced``: the same figure per side of each match, as text,
JSON or CSV, over the one filter of every view.

It uses only the plugin API, the names ``gnubg_blunder`` itself exports
(docs/plugins.md).  It imports them inside the functions that use them (the
metrics' modules import numpy), so that loading the plugin, on every command
line and ``--help`` too, stays cheap.
"""

import csv
import os
from pathlib import Path

from gnubg_blunder import hookimpl

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


def _forced_compute(scope):
    """The kit gives the scope (store, filter, selection); the view returns
    its JSON object (the kit adds the filter)."""
    from gnubg_blunder import Selection

    sel = scope.selection
    rows = []
    for p in (0, 1):
        sides = sel.sides.copy()
        sides[:, 1 - p] = False
        one = Selection(sel.matches, sel.decisions, sel.rolls, sides, sel.player_filter, sel.positions)
        rows.append({"side": p, **forced_share(one, scope.thresholds, scope.filter.decision_type)})
    return {"sides": rows}


def _forced_text(obj):
    lines = ["Forced checker plays by side of the match (0 = first player, 1 = second):"]
    for r in obj["sides"]:
        share = "—" if r["share"] is None else f"{100 * r['share']:.1f} %"
        lines.append(f"  side {r['side']}: {r['forced']} of {r['checker_plays']} ({share})")
    return "\n".join(lines)


def _forced_table(obj):
    from gnubg_blunder import Table

    keys = ["side", "forced", "checker_plays", "share"]
    return Table(keys, [[r[k] for k in keys] for r in obj["sides"]])


@hookimpl
def register_commands(registry):
    from gnubg_blunder import Command, View

    registry.add(Command("csv-path", "print where the CSV log of stored matches is", _run_csv_path))
    registry.add(View("forced", "forced checker plays by side (an example plugin's view)",
                      _forced_compute, _forced_text, table=_forced_table))


def forced_share(selection, thresholds, decision_type):
    """Checker plays of the selected side(s) that were forced, and their share."""
    from gnubg_blunder import K_CHECKER, is_forced

    dec = selection.decisions
    checker = (dec.kind == K_CHECKER) & selection.decision_side_mask()
    forced = int((is_forced(dec) & checker).sum())
    total = int(checker.sum())
    return {"forced": forced, "checker_plays": total, "share": None if not total else round(forced / total, 4)}


@hookimpl
def register_metrics(register):
    register("forced checker plays", forced_share)
