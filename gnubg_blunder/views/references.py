"""Reference positions (SPEC §10): ``references [filter] [--limit N]``, its
report section, and ``mark studied|list|remove``.

The choice is :mod:`gnubg_blunder.metrics.references` (docs/references.md);
the store says what the selection does not hold: the analysis' second
choice of checker plays (narrow lessons), the other stored analyses of the
same positions (unstable verdicts, confirming rollouts) and the positions
already studied (a comment in the imported file, a "studied" mark).  A view
never computes a figure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from html import escape

from ..hookspecs import hookimpl
from ..game_record import place_text, selection_gnubg_rows
from ..commands import Command, UserError, View, add_format, count_option
from ..options import Option, param
from ..formatting import DASH, Table, folded, safe_text, scope_text, table, to_json
from ..lazy import lazy

_board_position = lazy("gnubg_blunder.board.position")
_board_svg_module = lazy("gnubg_blunder.board.svg")
_codec_candidates = lazy("gnubg_blunder.codec.candidates")
_metrics_references = lazy("gnubg_blunder.metrics.references")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")
_metrics_verify = lazy("gnubg_blunder.metrics.verify")
np = lazy("numpy")

DEFAULT_LIMIT = 20
SHOWN_ERRORS = 5  # errors listed under each position in the text


@dataclass
class ReferencesParams:
    """``references``' own option (its ``--metric`` is the study half's cost: :func:`_options`)."""

    limit: str = param(Option(("--limit",), metavar="N", help=f"at most N positions, largest gain first "
                                                              f"(default {DEFAULT_LIMIT}; 0 = all with a gain)"),
                       default=str(DEFAULT_LIMIT))  # as written: count_option reads it (0 = all)


# -- what the store says beside the selection -----------------------------------------------

def lean_selection(scope):
    """The selection the choice needs: the scope's when it is already read
    (the report), else only the decisions that can be candidates (errors
    with a theme), read without the rest (``store.select_rows``)."""
    return scope.study_rows(_metrics_references.error_rows(scope.thresholds))  # each at its deepest evaluation (SPEC §16)


def second_costs(store, sel, rows: np.ndarray) -> np.ndarray:
    """The cost of the second choice (EMG) of each decision of ``rows``: the
    cube's other option from the arrays, a checker play's second candidate
    from the store's candidate lists; NaN unknown."""
    # over those rows' decisions alone: the cube's equities are not kept for every decision of the selection
    rows = np.asarray(rows, dtype=np.int64)
    taken = dataclasses.replace(sel, decisions=sel.decisions.take(rows))
    out = _metrics_references.cube_second_costs(taken, np.arange(len(rows)))
    checker = np.nonzero(sel.decisions.kind[rows] == _metrics_references.K_CHECKER)[0]
    if len(checker):
        ids = sel.decisions.values_at("row_id", rows[checker])  # those rows' ids, not the whole column kept
        costs = store.second_costs([int(i) for i in ids])
        costs.update(_verified_second_costs(store, sel, ids))
        out[checker] = [costs.get(int(i), np.nan) for i in ids]
    return out


def _verified_deepest(store, sel, ids) -> dict:
    """The deepest verified evaluation of the decisions ``ids`` when ``sel``
    is the study half's (SPEC §16: the ones it was made from), else {}."""
    deepest = sel.verified or {}
    return {int(i): deepest[int(i)] for i in ids if int(i) in deepest}


def _verified_second_costs(store, sel, ids) -> dict:
    """A verified checker play's second choice from its deeper list."""
    out = {}
    for rid, v in _verified_deepest(store, sel, ids).items():
        if v.get("candidates") is not None:
            c = _metrics_verify.second_cost_of_list(_codec_candidates.equities(v["candidates"]))
            if c is not None:
                out[rid] = c
    return out


def lesson_flags(store, sel, cands, thresholds) -> tuple:
    """(narrow, unstable, confirmed): bool per candidate."""
    narrow_row = _metrics_references.narrow_rows(second_costs(store, sel, cands.rows), thresholds)
    narrow = _metrics_references.group_flags(cands, narrow_row, "all")
    row_ids = sel.decisions.values_at("row_id", cands.rows) if len(cands) else np.zeros(0, np.int64)
    analyses = store.position_analyses(sorted(set(cands.position_ids)), row_ids.tolist()) if len(cands) else {}
    deepest = _verified_deepest(store, sel, row_ids) if len(cands) else {}
    if deepest and not analyses:  # one engine and depth stored: the verified decisions are the other analysis
        analyses = store.position_analyses(sorted(set(cands.position_ids)), row_ids.tolist(), every=True)

    analyses = _metrics_verify.with_verified_analyses(analyses, deepest)
    unstable_ids, confirmed_ids = _metrics_references.stability(analyses, row_ids)
    unstable = _metrics_references.group_flags(cands, np.isin(row_ids, list(unstable_ids)), "any")
    confirmed = _metrics_references.group_flags(cands, np.isin(row_ids, list(confirmed_ids)), "any")
    return narrow, unstable, confirmed


# -- the object ------------------------------------------------------------------------------


def references_object(store, sel, flt, thresholds, decision_type: str = "all", limit: int = DEFAULT_LIMIT,
                      metric=None) -> dict:
    """The JSON of ``references`` under the study half's cost ``metric``
    (default pr; ``metric`` and ``unit`` say which, every excess and gain
    is in ``unit``: mpt, % MWC or % MWC-7): ``filter``, ``positions`` (the
    greedy order: ``position_id``, ``family``, ``gain``, ``covers``
    (the position IDs it covers, itself first), ``errors`` (the decisions it
    covers, as ``positions`` lists them, each with its ``excess``), ``narrow``,
    ``unstable``, and ``rank``, ``game_plan``, ``nature``, ``theme``,
    ``score`` (cube), ``factor`` (c), ``excess`` (its own), ``covered_excess``,
    ``confirmed``, ``board``), and the counts behind them."""
    cost = _metrics_study_cost.study_cost(metric)
    _pp = cost.shown
    cands = _metrics_references.candidates(sel, thresholds, decision_type, cost)
    studied = store.studied_positions()  # study actions, comments, cards, collections
    narrow, unstable, confirmed = lesson_flags(store, sel, cands, thresholds)
    res = _metrics_references.choose(cands, narrow=narrow, unstable=unstable, confirmed=confirmed, studied=studied,
                                     limit=limit)
    # each candidate row's excess, looked up by row (the rows sorted once: no dict of every candidate row)
    by_row = np.argsort(cands.rows, kind="stable")
    sorted_rows = cands.rows[by_row]

    def excess_of(rows) -> np.ndarray:
        return cands.row_excess[by_row[np.searchsorted(sorted_rows, rows)]]

    orders = [ch.rows[np.lexsort((ch.rows, -excess_of(ch.rows)))] for ch in res.chosen]
    records_of = _metrics_summary.decision_records_of_lists(sel, orders, thresholds)
    places = selection_gnubg_rows(store, sel, np.concatenate(orders) if orders else [])
    # each position's costliest error shows the board: its dice and cube read for those rows alone
    firsts = [int(own[int(np.argmax(excess_of(own)))]) for own in (cands.rows_of(ch.group) for ch in res.chosen)]
    dice_of = sel.decisions.values_at("dice", firsts).tolist() if firsts else []
    cube_of = sel.decisions.values_at("cube_value", firsts).tolist() if firsts else []
    positions = []
    for rank, (ch, order, records) in enumerate(zip(res.chosen, orders, records_of), 1):
        g = ch.group
        for rec, r, x in zip(records, order, excess_of(order).tolist()):
            rec["excess"] = _pp(x)
            rec["gnubg_row"] = places.get(int(r))  # gnubg's game-record row (docs/review.md)
        first = firsts[rank - 1]
        m = sel.matches[int(sel.decisions.match[first])]
        p = int(sel.decisions.player[first])
        dice = int(dice_of[rank - 1])
        positions.append({
            "rank": rank,
            "position_id": cands.position_ids[g],
            **_metrics_references.family_of(cands, g),
            "gain": _pp(ch.gain),
            "factor": ch.factor,
            "excess": _pp(cands.excess[g]),
            "covered_excess": _pp(sum(cands.excess[q] for q in ch.covers)),
            "covers": [cands.position_ids[q] for q in ch.covers],
            "errors": records,
            "narrow": ch.narrow,
            "unstable": ch.unstable,
            "confirmed": ch.confirmed,
            # SPEC §16: the depth check of the decision shown ("confirmed at P plies" / "not verified")
            "verification": _metrics_verify.verification_note(int(_metrics_verify.verified_plies(sel)[first])),
            # its neighbours within rho in its family, and why it covers fewer than 2 positions (None when not)
            "neighbours": ch.neighbours,
            "why_alone": _metrics_references.why_alone(cands, ch),
            "board": {"player": m.players[p], "opponent": m.players[1 - p],
                      "kind": records[0]["kind"] if records else None,
                      "dice": [dice // 10, dice % 10] if dice > 0 else None,
                      "cube_value": int(cube_of[rank - 1])},
        })
    return {
        "filter": flt.to_json(),
        "metric": cost.key,
        "unit": cost.unit,
        "rule": {"rho_pips": _metrics_references.RHO, "near_pips": _metrics_references.NEAR,
                 "narrow_below_mpt": _metrics_references.narrow_limit_mpt(thresholds)},
        "candidates": len(cands),
        "candidate_errors": int(len(cands.rows)),
        "candidate_excess": _pp(cands.excess.sum()) if len(cands) else 0.0,
        "studied": int(res.studied.sum()),
        "studied_positions": len(studied),
        "dropped": int(res.dropped.sum()),
        "limit": limit or None,
        "covered_excess": sum(p["covered_excess"] for p in positions),
        "positions": positions,
    }


def compute(scope, params: ReferencesParams) -> dict:
    limit = count_option(params.limit, "--limit")
    sel = lean_selection(scope)
    return references_object(scope.store, sel, scope.filter, scope.thresholds,
                              scope.filter.decision_type or "all", limit, scope.metric)


# -- text ----------------------------------------------------------------------------------

def _score_text(p: dict) -> str:
    s = p.get("score")
    if not s:
        return ""
    a, b = s["away"]
    return f" at {a}-away {b}-away" + (" (Crawford)" if s["crawford"] else "")


def _flags_text(p: dict) -> str:
    parts = []
    if p["narrow"]:
        parts.append("narrow ×½")
    if p["unstable"]:
        parts.append("unstable ×½")
    if p["confirmed"]:
        parts.append("confirmed by a rollout")
    if p.get("verification"):
        parts.append(p["verification"])
    return "; " + ", ".join(parts) if parts else ""


def _board_text(p: dict) -> str:
    names = (safe_text(p["board"]["player"], 24), safe_text(p["board"]["opponent"], 24))
    return "\n".join(_board_svg_module.listed_position_lines(p["position_id"], names))


def cost_of(obj: dict):
    """The study half's cost the object was priced in (its ``metric``)."""
    return _metrics_study_cost.study_cost(obj.get("metric"))


def _amount(x, cost) -> str:
    """A gain or an excess with its unit: "12.3 mpt", "1.50 % MWC"."""
    return f"{cost.text(x)} {cost.unit}"


def _error_line(r: dict, cost) -> str:
    mwc = DASH if r["mwc_loss"] is None else f"{r['mwc_loss']:.2f} % MWC"
    if cost.money:  # d in mpt, as e
        d = DASH if r["difficulty_mpt"] is None else f"{r['difficulty_mpt']:.1f} mpt"
    else:
        d = DASH if r["difficulty_mwc"] is None else f"{r['difficulty_mwc']:.2f} % MWC"
    return (f"match {r['match_id']} game {r['game']} move {r['move']} "
            f"(gnubg {place_text(r.get('gnubg_row'), safe_text(r['player'], 24))}, {r['kind']}): "
            f"e {r['error_mpt']:.1f} mpt, ℓ {mwc}, d {d}, {cost.excess} {_amount(r['excess'], cost)}, "
            f"{r['position_id']}")


def none_proposed_text(obj: dict) -> str:
    """Why no position is proposed while there are candidates: how many
    were left out and why (every one studied, e.g. after exporting all
    errors to Anki: a studied position is never proposed)."""
    n, studied = obj["candidates"], obj["studied"]
    if studied >= n:
        return (f"No position to propose: all {n} candidate positions are already studied (a comment, a "
                "\"studied\" mark, an Anki card or a collection holds each: exporting every error to Anki studies "
                "them all), and a studied position is never proposed; `gnubg-blunder mark remove POSITION_ID` "
                "forgets a mark.")
    return (f"No position to propose: {studied} of the {n} candidate positions are already studied (never "
            f"proposed), the other {n - studied} gain nothing once their studied neighbours cover them.")


def references_text(obj: dict, boards: bool = True) -> str:
    cost = cost_of(obj)
    head = (f"Reference positions — {obj['candidates']} candidate positions from {obj['candidate_errors']} "
            f"quantified themed errors, Σ excess {_amount(obj['candidate_excess'], cost)} "
            f"(excess = {cost.rule})")
    lines = [f"Scope: {scope_text(obj['filter'])}", head]
    if obj["studied"] or obj["studied_positions"]:
        lines.append(f"Already studied: {obj['studied']} candidate positions ({obj['studied_positions']} positions "
                     "with a comment, a mark, an Anki card or in a collection): never proposed, "
                     "they cover their neighbours.")
    if not obj["positions"]:
        lines.append(none_proposed_text(obj) if obj["candidates"] else
                     f"No candidate: no counted error with a theme and both {cost.loss} and {cost.difficulty}"
                     f"{'' if cost.money else ' (match play)'} in this scope.")
        return "\n".join(lines)
    n = len(obj["positions"])
    lines.append(f"{n} position{'s' if n != 1 else ''}, largest gain first (gain = c × Σ excess of the position and "
                 f"its uncovered neighbours within {obj['rule']['rho_pips']} pips, {cost.unit}); together they cover "
                 f"{_amount(obj['covered_excess'], cost)} of {_amount(obj['candidate_excess'], cost)}.")
    for p in obj["positions"]:
        nerr = len(p["errors"])
        lines.append("")
        lines.append(f"{p['rank']}. gain {_amount(p['gain'], cost)} — {p['family']}{_score_text(p)} — "
                     f"position {p['position_id']}")
        own = bool(p["covers"]) and p["covers"][0] == p["position_id"]
        others = len(p["covers"]) - own
        mine = f"its own {_amount(p['excess'], cost)}" if own else "its own errors covered before"
        lines.append(f"   covers {nerr} error{'s' if nerr != 1 else ''} (Σ excess {_amount(p['covered_excess'], cost)}): "
                     f"{mine} and {others} neighbour position{'s' if others != 1 else ''}{_flags_text(p)}")
        if p.get("why_alone"):
            lines.append(f"   covers {len(p['covers'])} position{'s' if len(p['covers']) != 1 else ''}: "
                         f"{p['why_alone']}")
        if boards:
            lines.append(_board_text(p))
        for r in p["errors"][:SHOWN_ERRORS]:
            lines.append("   - " + _error_line(r, cost))
        if nerr > SHOWN_ERRORS:
            lines.append(f"   - and {nerr - SHOWN_ERRORS} more (--format json lists them all)")
    return "\n".join(lines)


def references_table(obj: dict):
    cols = ("rank", "position_id", "family", "gain", "factor", "excess", "covered_excess", "errors", "covers",
            "narrow", "unstable", "confirmed", "unit")
    rows = [[p["rank"], p["position_id"], p["family"] + _score_text(p), p["gain"], p["factor"],
             p["excess"], p["covered_excess"], len(p["errors"]), len(p["covers"]),
             p["narrow"], p["unstable"], p["confirmed"], obj["unit"]] for p in obj["positions"]]
    return Table(cols, rows)


# -- HTML ----------------------------------------------------------------------------------

def _board_svg(p: dict) -> str:
    try:
        board = _board_position.Board.from_position_id(p["position_id"])
        b = p["board"]
        return _board_svg_module.board_svg(board, cube_value=b.get("cube_value") or 1,
                         dice=tuple(b["dice"]) if b.get("dice") and b.get("kind") == "checker" else None,
                         player_names=(b["player"], b["opponent"]), width=300,
                         title=f"{p['rank']}. {p['family']}{_score_text(p)}")
    except Exception:
        return ""


def _folded_board(svg: str) -> str:
    """A reference position's board, folded (the report opens short)."""
    return folded('<span class="k">its board</span>', svg) if svg else ""


def references_html(obj: dict) -> str:
    cost = cost_of(obj)
    out = ['<section id="references"><h2>Reference positions</h2>',
           f"<p>{obj['candidates']} candidate positions from {obj['candidate_errors']} quantified themed errors "
           f"(Σ excess {escape(_amount(obj['candidate_excess'], cost))}, excess = {escape(cost.excess)}); the "
           f"positions below cover {escape(_amount(obj['covered_excess'], cost))} of it. Gain = c × Σ excess of the position and its uncovered neighbours "
           f"(same family, like distance ≤ {obj['rule']['rho_pips']} pips); c halves for a narrow or an unstable "
           "lesson. docs/references.md.</p>"]
    if not obj["positions"]:
        out.append(f'<p class="muted">{escape(none_proposed_text(obj))}</p></section>')
        return "".join(out)
    for p in obj["positions"]:
        nerr = len(p["errors"])
        flags = escape(_flags_text(p).lstrip("; "))
        out.append('<div class="review">'
                   f"<p>{p['rank']}. <b>gain {escape(_amount(p['gain'], cost))}</b> — {escape(p['family'] + _score_text(p))}; "
                   f"covers {nerr} error{'s' if nerr != 1 else ''} at {len(p['covers'])} position"
                   f"{'s' if len(p['covers']) != 1 else ''} (Σ excess {escape(_amount(p['covered_excess'], cost))})"
                   f"{'; ' + flags if flags else ''}; position {escape(p['position_id'])}</p>"
                   + _folded_board(_board_svg(p)) + "</div>")
    out.append("</section>")
    return "".join(out)


def references_section(ctx) -> str:
    """The report's section: the first positions over the report's scope."""
    obj = ctx.view_object(VIEW, limit=str(REPORT_LIMIT), metric=ctx.metric)
    return references_html(obj)


REPORT_LIMIT = 10

VIEW = View("references", "reference positions to study (docs/references.md): the few positions whose study covers the most "
            "excess of their family's errors (--metric pr: e − d in mpt, the default; mwc: ℓ − d; mwc7)", compute, references_text, table=references_table,
            html=references_html, params=ReferencesParams, cost_metric=True)


# -- mark studied | list | remove ------------------------------------------------------------

MARK_ACTIONS = ("studied", "list", "remove")


def _mark_configure(p):
    p.add_argument("action", choices=MARK_ACTIONS, help="studied: mark a position as studied (docs/references.md); "
                   "list: the marks; remove: forget a position's marks")
    p.add_argument("position_id", nargs="?", metavar="POSITION_ID", help="a gnubg position ID (14 characters)")
    add_format(p)


def _check_position(pid) -> str:
    if not pid:
        raise UserError("give a position ID (gnubg's, 14 characters), e.g. `mark studied 4HPwATDgc/ABMA`")
    try:
        return _board_position.Board.from_position_id(pid).position_id()
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _mark_run(args, ctx) -> int:
    store = ctx.store()
    if args.action == "studied":
        pid = _check_position(args.position_id)
        try:
            at, stored = store.mark_studied(pid)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if args.format == "json":
            ctx.print(to_json({"position_id": pid, "action": "studied", "at": at, "stored": stored}))
        elif stored:
            ctx.print(f"marked {pid} studied at {at} (UTC): `references` no longer proposes it")
        else:
            ctx.print(f"{pid} is already marked studied today (at {at}): nothing stored")
        return 0
    if args.action == "remove":
        pid = _check_position(args.position_id)
        n = store.remove_study_actions(pid, "studied")
        ctx.print(to_json({"position_id": pid, "removed": n}) if args.format == "json"
                  else (f"removed {n} mark{'s' if n != 1 else ''} of {pid}" if n else f"{pid} had no mark"))
        return 0 if n else 1
    rows = store.study_actions()
    if args.format == "json":
        ctx.print(to_json({"actions": rows}))
    elif not rows:
        ctx.print("No study action stored (`gnubg-blunder mark studied POSITION_ID` adds one).")
    else:
        ctx.print(table([[r["position_id"], r["action"], DASH if r["grade"] is None else r["grade"], r["at"]]
                         for r in rows], ["position ID", "action", "grade", "at (UTC)"], "llrl"))
    return 0


def mark_command() -> Command:
    return Command("mark", "study marks: `mark studied POSITION_ID` (references stops proposing it), `mark list`, "
                   "`mark remove POSITION_ID`", _mark_run, _mark_configure)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

SECTION_ORDER = 47  # after the study plan (45), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(VIEW)
    registry.add(mark_command())


@hookimpl
def register_report_sections(register):
    register("references", references_section, SECTION_ORDER)
