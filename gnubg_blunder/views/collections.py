"""Collections (docs/collections.md): named sets of positions the user files,
usable as a filter (``--collection NAME``).

``collection add NAME --from-plan FAMILY | --from positions [flags] |
--position ID``, ``collection list``, ``collection show NAME``,
``collection remove NAME [--position ID]``, ``collection export NAME OUT``;
``errors --to-collection NAME`` files the positions of the errors that
``errors`` lists.  The store keeps the rows (schema step 9:
``collections``, ``collection_positions``); the positions of a source are
chosen by the views that list them (``positions``' own selection,
``metrics/plan.py``'s members).  Filing is no study action (SPEC §11), but
a filed position is "already studied" for ``references`` (SPEC §10).
"""

from __future__ import annotations

import argparse
import os

from ..hookspecs import hookimpl
from ..commands import Command, Scope, UserError, add_filter_arguments, add_format, unknown_collection
from ..formatting import DASH, Table, safe_text, scope_text, table, to_json
from . import positions
from ..lazy import lazy

_board_ids = lazy("gnubg_blunder.board.ids")
_board_position = lazy("gnubg_blunder.board.position")
_board_svg = lazy("gnubg_blunder.board.svg")
_metrics_groups = lazy("gnubg_blunder.metrics.groups")
_metrics_plan = lazy("gnubg_blunder.metrics.plan")
np = lazy("numpy")
_units = lazy("gnubg_blunder.units")

ACTIONS = ("add", "list", "show", "remove", "export")
SOURCES = ("positions",)  # what `--from` names (besides a date: the filter's --from DATE)


# -- the command line ------------------------------------------------------------------------

class _FromAction(argparse.Action):
    """``--from``: the filter's first date (``--from 2025-01-01``), or, on
    ``collection add``, the list the positions come from (``--from
    positions``): a date is never the word "positions"."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values in SOURCES:
            setattr(namespace, "source", values)
        else:
            setattr(namespace, "date_from", values)


def _configure(p):
    sub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    add = sub.add_parser("add", help="file positions into a collection (made when new)",
                         description="file positions into collection NAME (made when new): --from-plan FAMILY, "
                                     "--from positions [filter and positions flags] or --position ID")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--from-plan", metavar="FAMILY",
                     help="the member positions of a study-plan family under the filter (`plan` lists them)")
    add.add_argument("--position", dest="position_id", metavar="POSITION_ID",
                     help="one position (a gnubg position ID, 14 characters)")
    positions.add_own_options(add)  # --errors, --blunders, --phase, --theme, --kind, --limit ... as `positions` takes them
    add_filter_arguments(add)
    frm = add._option_string_actions["--from"]
    frm.__class__ = _FromAction  # --from positions | --from DATE
    frm.metavar = "DATE|positions"
    frm.help = ("matches dated on or after DATE (YYYY-MM-DD); `--from positions`: the positions that "
                "`positions` lists with the same flags")
    add.set_defaults(source=None)
    add_format(add)

    lst = sub.add_parser("list", help="the collections and their sizes")
    add_format(lst)

    show = sub.add_parser("show", help="a collection's positions: boards and the stored decisions at each")
    show.add_argument("name", metavar="NAME")
    add_format(show, csv=True)

    rm = sub.add_parser("remove", help="forget a collection, or one position of it (--position)")
    rm.add_argument("name", metavar="NAME")
    rm.add_argument("--position", dest="position_id", metavar="POSITION_ID", help="forget this position only")
    add_format(rm)

    ex = sub.add_parser("export", help="write a collection to a file: one gnubg ID a line (text) or JSON")
    ex.add_argument("name", metavar="NAME")
    ex.add_argument("out", metavar="OUT", help="the file to write (- = the standard output)")
    ex.add_argument("--format", choices=("text", "json"), default=None,
                    help="text: gnubg IDs, one a line (default; .json OUT: json)")


def _check_position(pid) -> str:
    try:
        return _board_position.Board.from_position_id(pid).position_id()
    except (ValueError, TypeError) as exc:
        raise UserError(f"--position {safe_text(str(pid))}: {exc}") from None


def _name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise UserError("give the collection a name (e.g. `collection add \"holding blots\" --from-plan FAMILY`)")
    return name


def _existing(store, name: str) -> dict:
    c = store.collection(name)
    if c is None:
        raise unknown_collection(store, name)
    return c


# -- sources: which positions a command files ---------------------------------------------------

def pairs_of_records(records) -> list:
    """(position ID, decision id) of drill-down records, in their order,
    records without a position left out."""
    return [(r["position_id"], r.get("row_id")) for r in records if r.get("position_id")]


def plan_pairs(scope, family: str) -> tuple:
    """The member positions of ``family`` under the scope's filter (the
    decisions ``plan`` counts in it, metrics/plan.py: ``family_members``),
    largest ℓ − d first: ((position ID, decision id), ...), and how many
    members."""
    try:
        family = _metrics_plan.canonical_family(family)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    sel = scope.rows(_metrics_plan.error_rows(scope.thresholds))
    mask = _metrics_plan.plan_mask(sel, scope.filter.decision_type or "all")
    idx = _metrics_plan.family_members(sel, mask, scope.thresholds, family)
    dec = sel.decisions
    out = []
    for k in np.asarray(idx, dtype=np.int64):
        p = int(dec.position[k])
        if 0 <= p < len(sel.positions) and sel.positions[p]:
            out.append((sel.positions[p], int(dec.row_id[k])))
    return family, out, len(idx)


def positions_pairs(scope) -> tuple:
    """The positions that ``positions`` lists with the same flags (its own
    ``compute``: the same selection, order and --limit): (pairs, the list's
    criteria, decisions listed, decisions matching)."""
    obj = positions.VIEW.evaluate(scope)
    return pairs_of_records(obj["decisions"]), obj["criteria"], obj["shown"], obj["total"]


def _add(args, ctx) -> int:
    name = _name(args.name)
    given = [s for s in (args.from_plan and "--from-plan", args.source and "--from positions",
                         args.position_id and "--position") if s]
    if len(given) != 1:
        raise UserError("collection add NAME: give one source: --from-plan FAMILY, --from positions [flags] or "
                        "--position POSITION_ID" + (f" (not {' and '.join(given)})" if given else ""))
    source: dict
    if args.position_id:
        store = ctx.store()
        pairs = [(_check_position(args.position_id), None)]
        source = {"position": pairs[0][0]}
        flt_json = None
    else:
        scope = Scope(args, ctx)
        store = scope.store
        flt_json = scope.filter_json
        if args.from_plan:
            family, pairs, members = plan_pairs(scope, args.from_plan)
            source = {"plan": family, "members": members}
        else:
            pairs, criteria, shown, total = positions_pairs(scope)
            source = {"positions": criteria, "listed": shown, "matching": total}
    res = store.add_to_collection(name, pairs)
    obj = {"collection": res["name"], "created": res["created"], "source": source,
           "positions": len({p for p, _d in pairs}), "added": res["added"], "already": res["already"],
           "at": res["at"]}
    if flt_json is not None:
        obj["filter"] = flt_json
    if args.format == "json":
        ctx.print(to_json(obj))
        return 0
    made = "made collection" if res["created"] else "collection"
    what = _source_text(source)
    ctx.print(f"{made} {safe_text(res['name'])}: {res['added']} position{'s' if res['added'] != 1 else ''} added "
              f"from {what}" + (f", {res['already']} already in it" if res["already"] else "")
              + (f" (scope: {scope_text(flt_json)})" if flt_json is not None else ""))
    return 0


def _source_text(source: dict) -> str:
    if "position" in source:
        return f"position {source['position']}"
    if "plan" in source:
        return f"the {source['members']} members of family {safe_text(source['plan'])}"
    n, total = source["listed"], source["matching"]
    cut = f" ({n} of {total} listed: --limit 0 for all)" if n < total else ""
    return f"the {n} decision{'s' if n != 1 else ''} `positions` lists{cut}"


# -- list, show, remove ---------------------------------------------------------------------------

def _list(args, ctx) -> int:
    rows = ctx.store().collections()
    if args.format == "json":
        ctx.print(to_json({"collections": rows}))
    elif not rows:
        ctx.print("No collection stored (`gnubg-blunder collection add NAME --from-plan FAMILY` makes one).")
    else:
        ctx.print(table([[r["name"], r["positions"], r["created_at"]] for r in rows],
                        ["collection", "positions", "created (UTC)"], "lrl"))
    return 0


def _gnubg_id(pid: str, d: dict) -> str:
    """gnubg's ID (``POSITION:MATCH``, what gnubg's ``set gnubgid`` reads) of a
    stored decision at ``pid``: the decider on roll with the dice of a
    checker play; for a take or a pass, the double offered (the doubler on
    roll, the responder to answer); None when it cannot be written."""
    try:
        side = int(d["side"])
        score = [0, 0]
        score[side], score[1 - side] = d["score"]
        state = dict(cube=int(d["cube_value"]), cube_owner=int(d["cube_owner"]), match_length=int(d["length"]),
                     score=tuple(score), crawford=bool(d["crawford"]) and int(d["length"]) > 0,
                     jacoby=bool(d["jacoby"]))
        board = _board_position.Board.from_position_id(pid)
        if d["kind"] in ("take", "pass"):
            board = board.swapped()
            ms = _board_ids.MatchState(on_roll=1 - side, turn=side, doubled=True, **state)
        else:
            dice = tuple(d["dice"]) if d["kind"] == "checker" and d.get("dice") else (0, 0)
            ms = _board_ids.MatchState(on_roll=side, dice=dice, **state)
        return f"{board.position_id()}:{ms.match_id()}"
    except (ValueError, TypeError, KeyError):
        return None


def show_object(store, name: str) -> dict:
    """The JSON of ``collection show``: ``collection``, ``created_at``,
    ``positions`` (in the order filed): ``position_id``, ``decision_id``
    (the one it was filed from, or None), ``added_at``, ``gnubg_id`` (of
    that decision, else of the first stored decision there, else None) and
    ``decisions`` (every stored decision at the position:
    ``store.decisions_at`` with ``error_mpt`` and its own ``gnubg_id``)."""
    c = _existing(store, name)
    filed = store.collection_positions(c["name"])
    at = store.decisions_at([r["position_id"] for r in filed])
    positions = []
    for r in filed:
        decs = []
        for d in at.get(r["position_id"], []):
            d = dict(d)
            d["error_mpt"] = None if d["error"] is None else _units.mpt(d["error"])
            d["gnubg_id"] = _gnubg_id(r["position_id"], d)
            decs.append(d)
        own = [d for d in decs if d["id"] == r["decision_id"]] or decs[:1]
        positions.append({"position_id": r["position_id"], "decision_id": r["decision_id"],
                          "added_at": r["added_at"], "gnubg_id": own[0]["gnubg_id"] if own else None,
                          "decisions": decs})
    return {"collection": c["name"], "created_at": c["created_at"], "positions": positions}


def _board_lines(pid: str, decs: list) -> list:
    names = (safe_text(decs[0]["player"], 24), safe_text(decs[0]["opponent"], 24)) if decs else None
    return _board_svg.listed_position_lines(pid, names)


def _dice(d) -> str:
    return f"{d['dice'][0]}{d['dice'][1]}" if d.get("dice") else DASH


def show_text(obj: dict) -> str:
    n = len(obj["positions"])
    lines = [f"Collection {safe_text(obj['collection'])} — {n} position{'s' if n != 1 else ''} "
             f"(made {obj['created_at']} UTC)"]
    for k, p in enumerate(obj["positions"], 1):
        nd = len(p["decisions"])
        lines += ["", f"{k}. position {p['position_id']}" + (f" — gnubg ID {p['gnubg_id']}" if p["gnubg_id"] else "")
                  + f" — filed {p['added_at']}; {nd} stored decision{'s' if nd != 1 else ''} here"]
        lines += _board_lines(p["position_id"], p["decisions"])
        if p["decisions"]:
            rows = [[d["match_id"], d["game"], d["move"], DASH if d.get("gnubg_row") is None else d["gnubg_row"],
                     safe_text(d["player"], 24), d["kind"], _dice(d),
                     safe_text(d["played"] or DASH, 28), safe_text(d["best"] or DASH, 28),
                     DASH if d["error_mpt"] is None else f"{d['error_mpt']:.1f}",
                     "*" if d["id"] == p["decision_id"] else ""] for d in p["decisions"]]
            lines.append(table(rows, ["match", "game", "move", "gnubg row", "player", "kind", "dice", "played", "best",
                                      "e mpt", "filed"], "lrrrlllllrl"))
    if n:
        lines += ["", "(e in millipoints; game and move counted from 1; gnubg row: the row of gnubg's game record "
                  "listing the decision, in the player's column; * = the decision it was filed from)"]
    return "\n".join(lines)


SHOW_COLUMNS = ("position_id", "added_at", "gnubg_id", "decision_id", "match_id", "game", "move", "player", "kind",
                "dice", "played", "best", "error_mpt", "filed_from", "gnubg_row")


def show_table(obj: dict) -> Table:
    """One row per stored decision at each position (one row, its
    decision columns empty, for a position without one)."""
    rows = []
    for p in obj["positions"]:
        head = [p["position_id"], p["added_at"]]
        if not p["decisions"]:
            rows.append(head + [p["gnubg_id"]] + [None] * (len(SHOW_COLUMNS) - 3))
        for d in p["decisions"]:
            rows.append(head + [d["gnubg_id"], d["id"], d["match_id"], d["game"], d["move"], d["player"], d["kind"],
                                _dice(d) if d.get("dice") else None, d["played"], d["best"], d["error_mpt"],
                                d["id"] == p["decision_id"], d.get("gnubg_row")])
    return Table(SHOW_COLUMNS, rows)


def _show(args, ctx) -> int:
    obj = show_object(ctx.store(), _name(args.name))
    fmt = args.format
    ctx.print(to_json(obj) if fmt == "json" else show_table(obj).csv() if fmt == "csv" else show_text(obj))
    return 0


def _remove(args, ctx) -> int:
    store = ctx.store()
    c = _existing(store, _name(args.name))
    pid = _check_position(args.position_id) if args.position_id else None
    n = store.remove_from_collection(c["name"], pid)
    if args.format == "json":
        ctx.print(to_json({"collection": c["name"], "position_id": pid, "removed": n,
                           "collection_removed": pid is None}))
    elif pid is None:
        ctx.print(f"removed collection {safe_text(c['name'])} ({n} position{'s' if n != 1 else ''})")
    else:
        ctx.print(f"removed {pid} from {safe_text(c['name'])}" if n else f"{pid} is not in {safe_text(c['name'])}")
    return 0 if (n or pid is None) else 1


# -- export ---------------------------------------------------------------------------------------

def export_text(obj: dict) -> str:
    """The text export: ``#`` lines saying what it is, then one line a
    position, ``gnubg ID`` (POSITION:MATCH, which gnubg's ``set gnubgid`` and
    its Edit > Paste ID read) or the bare position ID where no stored
    decision gives the match state."""
    lines = [f"# gnubg-blunder collection {obj['collection']} ({len(obj['positions'])} positions, "
             f"made {obj['created_at']} UTC)",
             "# one position a line: gnubg ID POSITION:MATCH (gnubg: set gnubgid ID), or the position ID alone"]
    for p in obj["positions"]:
        lines.append(p["gnubg_id"] or p["position_id"])
    return "\n".join(lines) + "\n"


def _export(args, ctx) -> int:
    obj = show_object(ctx.store(), _name(args.name))
    fmt = args.format or ("json" if str(args.out).lower().endswith(".json") else "text")
    text = to_json(obj) + "\n" if fmt == "json" else export_text(obj)
    if args.out == "-":
        ctx.print(text.rstrip("\n"))
        return 0

    tmp = f"{args.out}.part"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, args.out)
    except OSError as exc:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    n = len(obj["positions"])
    ctx.print(f"wrote collection {safe_text(obj['collection'])} ({n} position{'s' if n != 1 else ''}, {fmt}) "
              f"to {args.out}")
    return 0


RUNS = {"add": _add, "list": _list, "show": _show, "remove": _remove, "export": _export}


def _run(args, ctx) -> int:
    if not getattr(args, "action", None):
        raise UserError("collection: give an action: add, list, show, remove or export "
                        "(`gnubg-blunder collection --help`)")
    return RUNS[args.action](args, ctx)


def collection_command() -> Command:
    return Command("collection", "collections of positions (docs/collections.md): `collection add NAME "
                   "--from-plan FAMILY | --from positions [flags] | --position ID`, `list`, `show NAME`, "
                   "`remove NAME [--position ID]`, `export NAME OUT`; `--collection NAME` filters any view",
                   _run, _configure)


# -- errors --to-collection ------------------------------------------------------------------------

def errors_listed_pairs(scope) -> list:
    """The positions of the errors that ``errors`` lists in its rows of
    recurring errors (metrics/errors.py's ``recurring`` and "theme not
    determined" rows: the counted errors of the filter's side(s) and
    decision type with a game-plan/theme label), costliest first:
    ((position ID, decision id), ...)."""
    sel = scope.selection
    dec = sel.decisions
    if not len(dec):
        return []
    # the members of metrics/errors.py: recurring (its ranked and "theme not determined" rows)
    err, _blunder = scope.thresholds.classify(dec.error)
    idx = np.nonzero(_metrics_groups.base_mask(sel, scope.filter.decision_type) & err & (dec.theme >= 0))[0]
    order = idx[np.lexsort((idx, -np.nan_to_num(dec.error[idx], nan=0.0)))] if len(idx) else idx
    out = []
    for k in order:
        p = int(dec.position[k])
        if 0 <= p < len(sel.positions) and sel.positions[p]:
            out.append((sel.positions[p], int(dec.row_id[k])))
    return out


def file_listed_errors(scope, name: str) -> dict:
    """``errors --to-collection NAME``: file the positions of the errors its
    rows list (:func:`errors_listed_pairs`) into ``name``; the object of the
    filing (``collection``, ``created``, ``errors``, ``positions``,
    ``added``, ``already``, ``at``)."""
    pairs = errors_listed_pairs(scope)
    res = scope.store.add_to_collection(_name(name), pairs)
    return {"collection": res["name"], "created": res["created"], "errors": len(pairs),
            "positions": len({p for p, _d in pairs}), "added": res["added"], "already": res["already"],
            "at": res["at"]}


def filed_text(filed: dict) -> str:
    made = " (new)" if filed["created"] else ""
    return (f"Filed into collection {safe_text(filed['collection'])}{made}: the {filed['positions']} positions of the "
            f"{filed['errors']} errors of the rows above — {filed['added']} added"
            + (f", {filed['already']} already in it" if filed["already"] else "") + ".")


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(collection_command())
