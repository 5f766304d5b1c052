"""``gnubg-blunder anki export [filter] OUT.apkg`` and ``anki sync
PATH/collection.anki2``.  docs/anki.md."""

from __future__ import annotations

import datetime as _dt
from collections import Counter

from ..hookspecs import hookimpl
from ..commands import Command, Scope, UserError, add_decision_criteria, add_filter_arguments, add_format
from ..formatting import scope_text, to_json
from . import DECK_NAME
from ..lazy import lazy

_anki_apkg = lazy("gnubg_blunder.anki.apkg")
_anki_notes = lazy("gnubg_blunder.anki.notes")
_anki_sync = lazy("gnubg_blunder.anki.sync")
_store_anki_notes = lazy("gnubg_blunder.store.anki_notes")


def _configure(p):
    sub = p.add_subparsers(dest="anki_action", metavar="ACTION")
    ex = sub.add_parser("export", help="the filter's decisions as Anki notes, one per decision key (OUT.apkg)",
                        description="Write the filter's decisions as an Anki deck: one note per decision key "
                        "(position, dice or cube question, cube, score), updated by a later export. docs/anki.md")
    ex.add_argument("out", metavar="OUT.apkg", help="the Anki package to write")
    add_decision_criteria(ex)
    ex.add_argument("--limit", type=int, default=0, metavar="N",
                    help="at most N notes, costliest first (default 0: all)")
    add_filter_arguments(ex)
    add_format(ex)
    sy = sub.add_parser("sync", help="store the reviews of our notes from your Anki collection (read from a copy)",
                        description="Read the review log of the notes `anki export` made from a copy of your "
                        "Anki collection (never written) and store each review once as a study action. "
                        "docs/anki.md")
    sy.add_argument("collection", metavar="PATH/collection.anki2", help="your Anki profile's collection file")
    add_format(sy)


def _writable(store, what: str) -> None:
    """Refuse before any work (and before the .apkg is written) when the
    database cannot record ``what``."""
    if getattr(store, "read_only", False):
        raise UserError(f"the database cannot record {what}: {store.read_only_reason}")


NEW, UPDATED, UNCHANGED = "new", "updated", "unchanged"


def _compare(made: list, before: dict, at: str) -> None:
    """Each note's ``change`` against the database's record of its last
    export (``anki_notes``, by GUID): new, updated (its fields or tags
    differ, or were not recorded: an export before schema step 13) or
    unchanged; its ``changed_at`` (now, or the time it last changed) and
    ``mtime``, that time in epoch seconds, the note's modification time in
    the package (Anki updates only a note newer than its own)."""
    for n in made:
        old = before.get(n["guid"])
        if old is None:
            n["change"], n["changed_at"] = NEW, at
        elif old.get("content") == n["content"] and old.get("changed_at"):
            n["change"], n["changed_at"] = UNCHANGED, old["changed_at"]
        else:
            n["change"], n["changed_at"] = UPDATED, at
            if old.get("changed_at") and old["changed_at"] >= at:  # changed again within its second: newer still
                n["changed_at"] = (_dt.datetime.fromisoformat(old["changed_at"])
                                   + _dt.timedelta(seconds=1)).isoformat(timespec="seconds")
        n["mtime"] = _dt.datetime.fromisoformat(n["changed_at"]).timestamp()


def export_notes(scope, out: str, criteria: dict, limit: int = 0, row_ids=None):
    """Write the notes of the decisions ``criteria`` picks in ``scope``
    (``row_ids``: only those decisions, e.g. those behind `errors`' rows)
    to ``out`` and record them; (notes made, time) — no note: no file.
    Each note carries its ``change`` (new, updated, unchanged)."""
    picked = _anki_notes.pick_decisions(scope, criteria, limit, row_ids=row_ids)
    made = [{"key": k, "fields": _anki_notes.fields(k, r, row), "tags": _anki_notes.tags(r),
             "position_id": row["position_id"], "decision_id": row["id"]} for k, r, row in picked]
    if not made:
        return [], None
    at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    for n in made:
        n["guid"], n["note_key"] = _anki_apkg.guid(n["key"]), n["key"]
        n["content"] = _anki_apkg.content(n["fields"], n["tags"])
    _compare(made, _store_anki_notes.notes(scope.store), at)
    try:
        _anki_apkg.write(out, made)
    except OSError as exc:
        raise UserError(f"{out}: {exc.strerror or exc}") from None
    _store_anki_notes.record_notes(scope.store, made, DECK_NAME, at)
    return made, at


def changes_text(made: list) -> str:
    """"12 new, 3 updated, 868 unchanged since the last export"."""
    count = Counter(n["change"] for n in made)
    return f"{count[NEW]} new, {count[UPDATED]} updated, {count[UNCHANGED]} unchanged since the last export"


def _export(args, ctx) -> int:
    if not args.out.endswith(".apkg"):
        raise UserError(f"{args.out}: give a file name ending in .apkg")
    if args.limit < 0:
        raise UserError(f"--limit {args.limit}: give 0 (all) or more")
    scope = Scope(args, ctx)
    _writable(scope.store, "the notes exported")
    criteria = {
        "severity": "errors" if args.errors else ("blunders" if args.blunders else "decisions"),
        "phase": args.phase, "game_plan": args.game_plan, "theme": args.theme,
        "tag": args.tag.lstrip("#") if args.tag else None, "kind": args.kind,
    }
    try:
        made, at = export_notes(scope, args.out, criteria, args.limit)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not made:
        ctx.print(to_json({"filter": scope.filter_json, "out": args.out, "notes": []}) if args.format == "json"
                  else f"Scope: {scope_text(scope.filter_json)}\nNo decision to export: no file written.")
        return 1
    if args.format == "json":
        count = Counter(n["change"] for n in made)
        ctx.print(to_json({"filter": scope.filter_json, "out": args.out, "deck": DECK_NAME, "exported_at": at,
                           **{c: count[c] for c in (NEW, UPDATED, UNCHANGED)},
                           "notes": [{"guid": n["guid"], "key": n["key"], "position_id": n["position_id"],
                                      "decision_id": n["decision_id"], "change": n["change"]} for n in made]}))
    else:
        ctx.print(f"Scope: {scope_text(scope.filter_json)}\n"
                  f"wrote {len(made)} note{'s' if len(made) != 1 else ''} to {args.out} (deck {DECK_NAME}): "
                  f"{changes_text(made)}; import it in Anki (File > Import): Anki updates only the changed notes")
    return 0


def _sync(args, ctx) -> int:
    store = ctx.store()
    _writable(store, "the reviews")
    # a CollectionError: one line
    found = _anki_sync.read_reviews(args.collection, _store_anki_notes.notes(store), ctx.error)
    added, stored = _store_anki_notes.add_reviews(store, found["reviews"])
    grades = Counter(_store_anki_notes.GRADES[r["grade"]] for r in found["reviews"])
    if args.format == "json":
        ctx.print(to_json({"collection": args.collection, "reviews": len(found["reviews"]), "added": added,
                           "already_stored": stored, "not_answers": found["skipped"],
                           "anki_open": found["anki_open"],
                           "grades": {g: grades.get(g, 0) for g in _store_anki_notes.GRADES.values()}}))
        return 0
    lines = [f"read a copy of {args.collection} (Anki's file is never written): {len(found['reviews'])} review"
             f"{'s' if len(found['reviews']) != 1 else ''} of our notes, {added} new, {stored} already stored"]
    if found["reviews"]:
        lines.append("grades: " + ", ".join(f"{g} {grades.get(g, 0)}" for g in _store_anki_notes.GRADES.values()))
    if found["anki_open"]:
        lines.append("Anki seems to be open (a -wal file beside the collection): what it has not saved yet is not "
                     "read; close Anki and sync again for every review")
    ctx.print("\n".join(lines))
    return 0


def _run(args, ctx) -> int:
    if args.anki_action == "export":
        return _export(args, ctx)
    if args.anki_action == "sync":
        return _sync(args, ctx)
    raise UserError("anki: give an action, `anki export [filter] OUT.apkg` or `anki sync PATH/collection.anki2`")


def anki_command() -> Command:
    return Command("anki", "Anki: `anki export [filter] OUT.apkg` (one note per decision key), "
                   "`anki sync PATH/collection.anki2` (your reviews, read from a copy)", _run, _configure)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(anki_command())
