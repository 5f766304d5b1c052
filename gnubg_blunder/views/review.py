"""``review [MATCH_ID|last] [--player NAME]``: the match review (SPEC §8,
docs/review.md) — per side the decisions to review with their boards, the
luck-adjusted result and the pace.  Also printed inside gnubg after
``>bdb.analyse()`` / ``>bdb.store()`` and by ``>bdb.review()``.

The figures come from :mod:`gnubg_blunder.metrics.review`; this module reads
the match and the played/best actions from the store and writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..hookspecs import hookimpl
from ..commands import Scope, UserError, View
from ..options import Option, param
from ..filters import Filter
from ..game_record import place_text
from ..formatting import DASH, Table, html_text, num, percent, safe_text, scope_text, table
from .matches import gnubg_own_text
from .summary import cube_side, played_steps
from ..lazy import lazy

_board_position = lazy("gnubg_blunder.board.position")
_board_svg_module = lazy("gnubg_blunder.board.svg")
_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_figures = lazy("gnubg_blunder.metrics.figures")
_metrics_review = lazy("gnubg_blunder.metrics.review")
_store_verifications = lazy("gnubg_blunder.store.verifications")

KIND_WORDS = {"checker": "checker play", "nodouble": "no double", "double": "double", "take": "take",
              "pass": "pass"}


@dataclass
class ReviewParams:
    """``review``'s own options."""

    match: str = param(Option(("match",), nargs="?", metavar="MATCH_ID|last",
                              help="the stored match to review (default: last, the most recently stored one "
                                   "the filter keeps)"), default="last")
    transcript: bool = param(Option(("--transcript",), action="store_true",
                                    help="every decision of the match in order with e, MWC loss, difficulty and "
                                         "the cumulative MWC lost of each side"), default=False)


def _match_id(text, what: str = "review") -> int:
    try:
        n = int(text)
    except (TypeError, ValueError):
        raise UserError(f"{what} {text!r}: give a match ID (a number, see `matches`) or last") from None
    if n <= 0:
        raise UserError(f"{what} {text}: match IDs start at 1")
    return n


def _latest(selection) -> int:
    """The selection's most recently stored match (import time, then ID)."""
    return max(selection.matches, key=lambda m: (m.imported_at or "", m.id)).id


def select_match(scope, which: str = "last", what: str = "review"):
    """The selection holding the one match to review.  ``last``: the most
    recently stored match the filter keeps; an ID: that match whatever the
    filter's dates, lengths and events (its engine and depth still pick the
    analysis).  ``what`` starts the one-line refusals (``review 12: ...``,
    ``report --match 12: ...``)."""
    flt = scope.filter
    if which in (None, "last"):
        sel = scope.store.select(Filter(player=flt.player, date_from=flt.date_from, date_to=flt.date_to,
                                        lengths=flt.lengths, tournaments=flt.tournaments, engine=flt.engine,
                                        min_depth=flt.min_depth))
        if not sel.matches:
            raise UserError(f"{what}: no stored match " + ("in this filter" if scope_text(flt.to_json()) !=
                                                           "every stored match, both sides" else "yet"))
        mid = _latest(sel)
    else:
        mid = _match_id(which, what)
    sel = scope.store.select(Filter(engine=flt.engine, min_depth=flt.min_depth), match_ids=[mid])
    if not sel.matches:
        if scope.store.match_players(mid) is None:
            raise UserError(f"{what} {mid}: no stored match has this ID (see `matches`)")
        raise UserError(f"{what} {mid}: the match has no analysis this filter keeps (engine, depth)")
    return sel


def _sides(scope, sel, what: str = "review") -> list:
    """Whose review: the filter's player; else the main player (SPEC §14)
    when they played the match; else both."""
    m = sel.matches[0]
    names = [n.casefold() for n in m.names]
    if scope.filter.player:
        want = scope.store.canonical_name(scope.filter.player).casefold()
        found = [p for p in (0, 1) if names[p] == want]
        if not found:
            raise UserError(f"{what} {m.id}: {safe_text(scope.filter.player)} did not play this match "
                            f"({safe_text(m.players[0])} vs {safe_text(m.players[1])})"
                            f"{scope.filter.origin('player')}")
        return found
    main = _db_settings.main_player(scope.store)
    if main:
        want = scope.store.canonical_name(main).casefold()
        found = [p for p in (0, 1) if names[p] == want]
        if found:
            return found
    return [0, 1]


def transcript_rows(store, sel) -> list:
    """The transcript of ``sel``'s one match (every decision in order) with
    the played and best actions and the position from the store."""
    m = sel.matches[0]
    rows = _metrics_review.transcript(sel, 0)
    ids = [int(sel.decisions.row_id[r["index"]]) for r in rows]
    stored = {r["id"]: r for r in store.decision_rows(ids)}
    places = store.gnubg_rows(ids)
    out = []
    for r in rows:
        i = r.pop("index")
        rid = int(sel.decisions.row_id[i])
        row = stored.get(rid, {})
        pos = int(sel.decisions.position[i])
        out.append({"game": r["game"], "move": r["move"], **gnubg_place(places.get(rid), m.players[r["player"]]),
                    "player": m.players[r["player"]], "kind": r["kind"],
                    "dice": r["dice"], "played": row.get("played_move"), "best": row.get("best_move"),
                    "cube_owner": _cube_owner_name(row, m.players),
                    "position_id": sel.positions[pos] if 0 <= pos < len(sel.positions) else None,
                    **{k: r[k] for k in ("counted", "error_emg", "mwc_loss", "difficulty", "difficulty_emg",
                                         "cum_mwc_loss", "cum_error_emg")}})
    return out


def gnubg_place(row, name) -> dict:
    """The decision's place in gnubg's game record (docs/review.md, "gnubg's
    game record"): ``gnubg_row`` (from 1; None when the store cannot give
    it) and ``gnubg_column`` (the decider's name, the column's header;
    None without a row)."""
    return {"gnubg_row": row, "gnubg_column": name if row is not None else None}


def where_text(r: dict, name=None, plain=str) -> str:
    """Where a player finds the decision: ``game 2, move 18 (gnubg row 10,
    Weakbot)`` — our move index, then gnubg's game-record row and column.
    The column's name is user data: shown by ``name`` (text: ``safe_text``;
    HTML: ``html_text``), the rest by ``plain`` (HTML: ``escape``)."""
    name = name or safe_text
    column = r.get("gnubg_column")
    place = place_text(r.get("gnubg_row"), name(column) if column is not None else None)
    return plain(f"game {r['game']}, move {r['move']} (gnubg ") + place + plain(")")


def _cube_owner_name(row: dict, players) -> "str | None":
    """The name of the player owning the cube at a stored decision, None
    when it is centred (or not stored)."""
    owner = row.get("cube_owner")
    return players[owner] if owner in (0, 1) else None


def _board_facts(r: dict, row: dict, players) -> None:
    """What the board of a review record needs from its stored decision
    ``row`` (the player report's path, views/summary.py): ``cube_owner``
    (the owner's name, None centred), ``cube_side`` (where the board draws
    the cube, the decider on roll: 0 the decider owns it, 1 the opponent,
    -1 centred) and ``played_steps`` (the played checker play's steps
    [from, to], 25 = bar, 0 = off; None for a cube decision or unknown)."""
    r["cube_owner"] = _cube_owner_name(row, players)
    r["cube_side"] = cube_side(row) if row else -1
    steps = None
    if row and r.get("position_id"):
        try:
            steps = played_steps(_board_position.Board.from_position_id(r["position_id"]), row)
        except Exception:
            steps = None
    r["played_steps"] = None if steps is None else [[int(a), int(b)] for a, b in steps]


def _verified(store, row_ids) -> "dict | None":
    """{decision id: its deepest verified evaluation}; None when the
    database holds none (the review then says nothing of it)."""
    return _store_verifications.deepest(store, row_ids) if _store_verifications.has_any(store) else None


def verified_record(v) -> "dict | None":
    """A review decision's depth check (SPEC §16): ``plies``, ``error_emg``
    and ``best`` of gnubg's deeper evaluation; None: not verified."""
    if v is None:
        return None
    return {"plies": int(v["plies"]), "error_emg": v["error"], "best": v["best_move"]}


def verified_text(r: dict) -> str:
    """The depth check of a review decision in words ('' when the database has none)."""
    if "verified" not in r:
        return ""
    v = r["verified"]
    if v is None:
        return "; not verified"
    e = "—" if v["error_emg"] is None else f"{v['error_emg']:.3f} EMG"
    return f"; gnubg at {v['plies']} plies: e {e}, best {v['best'] or '—'}"


def review_object(store, sel, players, thresholds, flt_json: dict, transcript: bool = False) -> dict:
    """The JSON of the review of ``sel``'s one match for the sides
    ``players`` (0, 1); with ``transcript``, every decision too."""
    m = sel.matches[0]
    money = m.length == 0
    luck = _metrics_review.luck_adjusted(sel, 0)
    figures = _metrics_figures.per_side(sel, thresholds, [0])
    gnubg_own = [side["gnubg"] for side in figures]
    per_side, row_ids = [], []
    for p in players:
        recs = [_metrics_review.review_record(sel, i) for i in _metrics_review.review_indices(sel, 0, p, thresholds)]
        row_ids += [r["row_id"] for r in recs]
        per_side.append((p, recs))
    rows = {r["id"]: r for r in store.decision_rows(row_ids)}
    places = store.gnubg_rows(row_ids)
    deep = _verified(store, row_ids)
    sides = []
    for p, recs in per_side:
        for r in recs:
            rid = r.pop("row_id")
            row = rows.get(rid, {})
            if deep is not None:  # SPEC §16: which of them gnubg evaluated again (the figures keep the match's)
                r["verified"] = verified_record(deep.get(rid))
            r["played"] = row.get("played_move")
            r["best"] = row.get("best_move")
            r.update(gnubg_place(places.get(rid), m.players[p]))
            _board_facts(r, row, m.players)
        pace = _metrics_review.pace(sel, 0, p)
        sides.append({
            "player": m.players[p],
            "opponent": m.players[1 - p],
            "review": recs,
            **{k: luck[p][k] for k in ("luck_adjusted", "luck_adjusted_reason", "luck_reading",
                                       "error_difference", "luck_coverage", "luck_rolls", "rolls")},
            "pace": pace,
            "pace_reason": None if pace is not None else _metrics_review.NO_DURATIONS,
            # SPEC §6: Σ(ℓ − d) of the side's counted decisions, % MWC; money: Σ(e − d) in EMG (SPEC §8)
            "excess": figures[p]["excess_emg" if money else "excess"],
            "excess_unit": "EMG" if money else "% MWC",
            "gnubg": gnubg_own[p],
        })
    obj = {
        "match_id": m.id,
        "players": list(m.players),
        "length": m.length,
        "date": m.date,
        "event": m.event,
        "winner": None if m.winner is None else m.players[m.winner],
        "analysis": {"engine": m.engine, "depth": m.depth_label},
        "order": "MWC loss minus difficulty, descending (money: error minus difficulty in EMG); "
                 "unknown difficulty counts 0",
        "filter": flt_json,
        "sides": sides,
    }
    if transcript:
        obj["transcript"] = transcript_rows(store, sel)
    return obj


def compute(scope, params: ReviewParams) -> dict:
    sel = select_match(scope, params.match)
    return review_object(scope.store, sel, _sides(scope, sel), scope.thresholds, scope.filter_json,
                         transcript=bool(params.transcript))


# -- text ------------------------------------------------------------------------------

def _head(obj: dict, name=safe_text, plain=str) -> str:
    """The review's heading: in text, names through ``safe_text``; in HTML
    (``name=html_text, plain=escape``), names isolated and the rest escaped."""
    length = "money session" if obj["length"] == 0 else f"{obj['length']}-point match"
    when = f", {obj['date']}" if obj["date"] else ""
    event = plain(", ") + name(obj["event"]) if obj["event"] else ""
    scope = scope_text(obj["filter"], ignored=("player", "decision_type"), everything="this match")
    return (plain(f"Match review — match {obj['match_id']}: ") + name(obj["players"][0]) + plain(" vs ")
            + name(obj["players"][1]) + plain(f", {length}") + event + plain(f"{when} (scope: {scope})"))


def luck_line(side: dict) -> str:
    """The luck-adjusted result line, or why there is none."""
    cov = side["luck_coverage"]
    coverage = (f"luck on {side['luck_rolls']} of {side['rolls']} rolls ({percent(cov)})"
                if cov is not None else "no rolls")
    if side["luck_adjusted"] is None:
        diff = ("" if side["error_difference"] is None
                else f"; difference of errors {num(side['error_difference'], signed=True)} %")
        return f"Luck-adjusted result: none ({side['luck_adjusted_reason']}){diff}; {coverage}"
    return (f"Luck-adjusted result {num(side['luck_adjusted'], signed=True)} % MWC, {side['luck_reading']} "
            f"(difference of errors, opponent's minus own: {num(side['error_difference'], signed=True)} %); "
            f"{coverage}")


def excess_line(side: dict) -> str:
    """The side's excess in its unit (SPEC §6, §8)."""
    if side["excess_unit"] == "EMG":
        return (f"Excess Σ(e − d): {num(side['excess'], 3, signed=True)} EMG "
                "(error beyond the difficulty of the positions)")
    return (f"Excess Σ(ℓ − d): {num(side['excess'], signed=True)} % MWC "
            "(MWC lost beyond the difficulty of the positions)")


def _action(r: dict) -> str:
    played = safe_text(r["played"]) if r.get("played") else DASH
    best = safe_text(r["best"]) if r.get("best") else DASH
    dice = f" {r['dice'][0]}-{r['dice'][1]}" if r.get("dice") and r["kind"] == "checker" else ""
    return f"{KIND_WORDS.get(r['kind'], r['kind'])}{dice}: played {played}, best {best}"


def _cost(r: dict) -> str:
    d_emg = DASH if r["difficulty_emg"] is None else f"{r['difficulty_emg']:.3f}"
    if r["mwc_loss"] is None:  # money
        return f"e {r['error_emg']:.3f} EMG, d {d_emg} EMG"
    d = "unknown (counted 0)" if r["difficulty"] is None else f"{r['difficulty']:.2f} %"
    return f"ℓ {r['mwc_loss']:.2f} %, d {d} (e {r['error_emg']:.3f} EMG)"


def _board_text(r: dict, side: dict) -> str:
    if not r.get("position_id"):
        return "   (no board stored)"
    names = (safe_text(side["player"], 24), safe_text(side["opponent"], 24))
    return "\n".join(_board_svg_module.listed_position_lines(r["position_id"], names))


def pace_text(side: dict) -> str:
    pace = side["pace"]
    if pace is None:
        return f"Hasty vs considered: {side['pace_reason']}"
    parts = []
    for name in ("checker", "cube"):
        p = pace.get(name)
        if p is None:
            continue
        parts.append(f"{name}: median {p['median_s']:.0f} s; hasty {p['hasty']['n']} decisions PR "
                     f"{num(p['hasty']['pr'])}, considered {p['considered']['n']} PR {num(p['considered']['pr'])}")
    return "Hasty vs considered — " + ("; ".join(parts) if parts else "no counted decision with a duration")


TRANSCRIPT_COLUMNS = ("game", "move", "player", "kind", "dice", "played", "best", "counted", "error_emg",
                      "mwc_loss", "difficulty", "cum_mwc_loss_1", "cum_mwc_loss_2", "cum_error_emg_1",
                      "cum_error_emg_2", "position_id", "gnubg_row", "gnubg_column")
REVIEW_COLUMNS = ("player", "rank", "game", "move", "kind", "played", "best", "error_emg", "mwc_loss",
                  "difficulty", "difficulty_emg", "position_id", "gnubg_row", "gnubg_column")


def _dice(d) -> str:
    return f"{d[0]}-{d[1]}" if d else ""


def review_table(obj: dict) -> Table:
    """The CSV: the transcript when asked for (cumulative columns _1 and _2
    are the match's first and second player), else the decisions to review."""
    if "transcript" in obj:
        rows = []
        for r in obj["transcript"]:
            cum_l = r["cum_mwc_loss"] or [None, None]
            rows.append([r["game"], r["move"], r["player"], r["kind"], _dice(r["dice"]), r["played"], r["best"],
                         r["counted"], r["error_emg"], r["mwc_loss"], r["difficulty"], cum_l[0], cum_l[1],
                         r["cum_error_emg"][0], r["cum_error_emg"][1], r["position_id"], r["gnubg_row"],
                         r["gnubg_column"]])
        return Table(TRANSCRIPT_COLUMNS, rows)
    rows = [[side["player"], k, r["game"], r["move"], r["kind"], r["played"], r["best"], r["error_emg"],
             r["mwc_loss"], r["difficulty"], r["difficulty_emg"], r["position_id"], r["gnubg_row"], r["gnubg_column"]]
            for side in obj["sides"] for k, r in enumerate(side["review"], 1)]
    return Table(REVIEW_COLUMNS, rows)


def _f(x, digits: int) -> str:
    return DASH if x is None else f"{x:.{digits}f}"


def transcript_text(obj: dict) -> str:
    p1, p2 = (safe_text(n, 20) for n in obj["players"])
    money = obj["length"] == 0
    rows = []
    for r in obj["transcript"]:
        cum = r["cum_error_emg"] if money else r["cum_mwc_loss"]
        rows.append([r["game"], r["move"], DASH if r["gnubg_row"] is None else r["gnubg_row"],
                     safe_text(r["player"], 20), KIND_WORDS.get(r["kind"], r["kind"]),
                     _dice(r["dice"]), safe_text(r["played"] or DASH, 30), safe_text(r["best"] or DASH, 30),
                     _f(r["error_emg"], 3) + ("" if r["counted"] else " (not counted)"),
                     _f(r["mwc_loss"], 2), _f(r["difficulty"] if not money else r["difficulty_emg"], 2 if not money else 3),
                     _f(cum[0], 2 if not money else 3), _f(cum[1], 2 if not money else 3)])
    unit = "EMG" if money else "% MWC"
    headers = ["game", "move", "gnubg row", "player", "decision", "dice", "played", "best", "e EMG", "MWC %",
               "d " + ("EMG" if money else "%"), f"{p1} lost ({unit})", f"{p2} lost ({unit})"]
    return "\n".join([_head(obj), f"Transcript: {len(rows)} decisions (cumulative over counted decisions; "
                      "gnubg row: the row of gnubg's game record, in the player's column)",
                      table(rows, headers, "rrrllllllrrrr")])


def review_text(obj: dict, boards: bool = True) -> str:
    if "transcript" in obj:
        return transcript_text(obj)
    lines = [_head(obj)]
    for side in obj["sides"]:
        lines.append("")
        lines.append(f"{safe_text(side['player'])}")
        lines.append("  " + luck_line(side))
        lines.append("  " + excess_line(side))
        lines.append("  gnubg's own: " + gnubg_own_text(side["gnubg"], obj["length"] == 0, obj["analysis"]["engine"]))
        n = len(side["review"])
        if not n:
            lines.append("  Decisions to review: none (no error whose cost exceeds its difficulty)")
        else:
            lines.append(f"  Decision{'s' if n > 1 else ''} to review ({n}, costliest beyond difficulty first):")
        for k, r in enumerate(side["review"], 1):
            lines.append(f"  {k}. {where_text(r)}, {_action(r)}; {_cost(r)}{verified_text(r)}")
            if boards:
                lines.append(_board_text(r, side))
        lines.append("  " + pace_text(side))
    return "\n".join(lines)


# -- HTML ------------------------------------------------------------------------------

def _board_svg(r: dict, side: dict) -> str:
    if not r.get("position_id"):
        return ""
    try:
        board = _board_position.Board.from_position_id(r["position_id"])
        steps = r.get("played_steps")
        return _board_svg_module.board_svg(board, cube_value=r.get("cube_value") or 1, cube_owner=r.get("cube_side", -1),
                         dice=tuple(r["dice"]) if r.get("dice") and r["kind"] == "checker" else None,
                         move_steps=[tuple(s) for s in steps] if steps else None,
                         player_names=(side["player"], side["opponent"]), width=360,
                         title=where_text(r))
    except Exception:
        return ""


def review_html(obj: dict) -> str:
    out = [f"<h2>{_head(obj, name=html_text, plain=escape)}</h2>"]
    for side in obj["sides"]:
        out.append(f"<h3>{html_text(side['player'])}</h3>")
        out.append(f"<p>{escape(luck_line(side))}</p><p>{escape(excess_line(side))}</p>")
        if not side["review"]:
            out.append('<p class="muted">No decision to review.</p>')
        for k, r in enumerate(side["review"], 1):
            out.append(f"<div class=\"review\"><p>{k}. {where_text(r, name=html_text, plain=escape)}, "
                       f"{escape(_action(r))}; {escape(_cost(r))}{escape(verified_text(r))}</p>{_board_svg(r, side)}</div>")
        out.append(f"<p>{escape(pace_text(side))}</p>")
    return "".join(out)


VIEW = View("review", "the match review: three decisions to review, the luck-adjusted result, the pace "
            "(docs/review.md; default: the last stored match, the main player's side)", compute,
            review_text, table=review_table, html=review_html, params=ReviewParams, decision_type=False)


def match_review_text(store, match_id: int, boards: bool = True) -> str:
    """The review printed inside gnubg after a match is stored: the main
    player's side when they played it, else both; the deepest analysis."""
    scope = Scope.over(None, store, Filter())
    sel = select_match(scope, str(match_id))
    obj = review_object(store, sel, _sides(scope, sel), _db_settings.thresholds_for(store), Filter().to_json())
    return review_text(obj, boards=boards)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
