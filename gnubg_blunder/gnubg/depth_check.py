"""``verify``: the depth check of the errors the study advice stands on
(SPEC §16, docs/verify.md).  The run (gnubg/verify.py) stores each
decision's deeper evaluation; this module chooses the decisions, calls it,
and shows the report: the verdicts' counts, each decision's error at both
depths, the PR of the verified decisions at both depths."""

from __future__ import annotations

import time

from ..hookspecs import hookimpl
from ..commands import Command, Scope, UserError, add_filter_arguments, add_format, add_metric
from ..formatting import Table, safe_text, table as text_table, to_json
from ..lazy import lazy

_arrays = lazy("gnubg_blunder.arrays")
_gnubg_process = lazy("gnubg_blunder.gnubg.process")
_gnubg_verify = lazy("gnubg_blunder.gnubg.verify")
_metrics_plan = lazy("gnubg_blunder.metrics.plan")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_metrics_verify = lazy("gnubg_blunder.metrics.verify")
np = lazy("numpy")
_progress = lazy("gnubg_blunder.progress")
_store_verifications = lazy("gnubg_blunder.store.verifications")

NAME = "verify"
DEFAULT_TOP = 50  # SPEC §16: the 50 costliest errors unless --top says
HELP = "evaluate again with gnubg, deeper, the costliest errors of the filter (docs/verify.md)"


def _options(parser) -> None:
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                        help=f"how many of the costliest errors (default {DEFAULT_TOP})")
    parser.add_argument("--plies", type=int, default=None, metavar="P",
                        help="gnubg's depth (default: the stored depth + 2, at least 2)")
    parser.add_argument("--jobs", type=int, default=2, metavar="J", help="gnubg processes at once (default 2)")
    add_metric(parser, _metrics_study_cost.option_help())


def configure(parser) -> None:
    _options(parser)
    add_filter_arguments(parser)
    add_format(parser)


def _mpt(x):
    return None if x is None else round(1000.0 * float(x), 1)


def compute(scope, progress_ctx=None) -> dict:
    """Choose, evaluate (what is not verified at that depth yet), store,
    and report (the JSON object)."""
    args = scope.args
    if args.top < 1:
        raise UserError("--top must be at least 1")
    if args.plies is not None and not 0 <= args.plies <= 4:
        raise UserError("--plies must be 0..4 (gnubg's evaluation depths)")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    cost = _metrics_study_cost.study_cost(scope.metric)
    thresholds = scope.thresholds
    sel = scope.rows(_metrics_plan.error_rows(thresholds))
    idx = _metrics_verify.costliest_errors(sel, thresholds, scope.filter.decision_type or "all", cost.key, args.top)
    dec = sel.decisions
    row_ids = [int(r) for r in dec.values_at("row_id", idx)]
    first_cost = _metrics_study_cost.excess_terms(sel, cost.key)[idx]
    plies_of = {}
    for k, rid in zip(idx, row_ids):
        m = sel.matches[int(dec.match[k])]
        plies_of[rid] = args.plies if args.plies is not None else _metrics_verify.default_plies(m.depth)
    rows = _store_verifications.targets(scope.store, row_ids)
    already = _store_verifications.done_at(scope.store, row_ids, plies_of)
    todo = [r for r in rows if int(r["id"]) not in already]
    failed = {}
    started = time.monotonic()
    if todo:
        try:
            _gnubg_process.find_gnubg()
        except _gnubg_process.GnubgNotFound as exc:
            raise UserError(str(exc)) from None
        version = _gnubg_process.gnubg_version()
        ctx = scope.ctx
        with _progress.Progress(ctx, len(todo), NAME, bar_from=1, unit="decision") as progress:
            def on_result(row, task, result):
                got = _gnubg_verify.outcome(row, task, result)
                if got is None:
                    failed[int(row["id"])] = result.get("failed", "not evaluated")
                    progress.error(f"{NAME}: decision {row['id']} (match {row['match_id']}, game {row['game'] + 1}): "
                                   f"not verified: {safe_text(failed[int(row['id'])])}")
                else:
                    got["engine_version"] = version
                    _store_verifications.write(scope.store, got)
                progress.advance()

            try:
                _gnubg_verify.evaluate(todo, plies_of, args.jobs, on_result, say=progress.error)
            except _gnubg_verify.VerifyError as exc:
                raise UserError(f"{NAME}: {exc}") from None
    seconds = time.monotonic() - started
    evaluations = _store_verifications.verified(scope.store, row_ids)  # each decision's, deepest first
    places = scope.store.gnubg_rows(row_ids)  # gnubg's game-record row (docs/review.md)
    stored = {rid: rows_[0] for rid, rows_ in evaluations.items()}
    run = {rid: r for rid, rows_ in evaluations.items() for r in rows_ if r["plies"] == plies_of[rid]}
    deep_sel = _metrics_verify.deepest_selection(sel, run)
    deep_cost = _metrics_study_cost.excess_terms(deep_sel, cost.key)[idx] if run else np.full(len(idx), np.nan)
    info = {int(r["id"]): r for r in rows}
    decisions = []
    counts = {"confirmed": 0, "reduced": 0, "reversed": 0}
    first_e, deep_e, units = [], [], []
    for j, (k, rid) in enumerate(zip(idx, row_ids)):
        r = info.get(rid, {})
        v = run.get(rid)
        m = sel.matches[int(dec.match[k])]
        player = int(dec.player[k])
        e1 = float(dec.error[k])
        e2 = None if v is None or v["error"] is None else float(v["error"])
        deep = None if np.isnan(deep_cost[j]) else float(deep_cost[j])
        verdict_ = _metrics_verify.verdict(float(first_cost[j]), e2, deep, thresholds) if v is not None else None
        if verdict_:
            counts[verdict_] += 1
            first_e.append(e1)
            deep_e.append(e2)
            units.append(int(m.id))
        dice = int(dec.dice[k])
        decisions.append({
            "decision_id": rid, "match_id": m.id, "game": int(dec.game[k]) + 1, "move": int(dec.seq[k]) + 1,
            "gnubg_row": places.get(rid),
            "player": m.players[player], "kind": _arrays.KIND_NAMES[int(dec.kind[k])],
            "position_id": r.get("position_id"), "dice": None if dice < 0 else [dice // 10, dice % 10],
            "score": None if m.length == 0 else [int(dec.score_self[k]), int(dec.score_opp[k])],
            "length": m.length, "cube": int(dec.cube_value[k]),
            "played": r.get("played_move"), "first": {
                "depth": m.depth_label, "best": r.get("best_move"), "error_mpt": _mpt(e1),
                "cost": cost.shown(first_cost[j])},
            "deep": None if v is None else {
                "plies": int(v["plies"]), "best": v["best_move"], "error_mpt": _mpt(e2),
                "cost": None if np.isnan(deep_cost[j]) else cost.shown(deep_cost[j]),
                "nd": v["nd"], "dt": v["dt"], "dp": v["dp"], "engine_version": v["engine_version"],
                "verified_at": v["verified_at"]},
            "verdict": verdict_, "not_verified": failed.get(rid),
            "deepest_plies": None if rid not in stored else int(stored[rid]["plies"])})
    pr = _metrics_verify.rates(np.array(first_e), np.array(deep_e), np.array(units))
    return {"metric": cost.key, "unit": cost.unit, "top": args.top,
            "plies": args.plies if args.plies is not None else "stored depth + 2, at least 2",
            "chosen": len(row_ids), "evaluated_now": len(todo) - len(failed), "already_verified": len(already),
            "failed": len(failed), "seconds": round(seconds, 1), "jobs": args.jobs, "counts": counts, "pr": pr,
            "decisions": decisions}


def plies_text(p: int) -> str:
    return f"{p} ply" if p == 1 else f"{p} plies"


def _pr_text(p: dict) -> str:
    if p["pr"] is None:
        return "—"
    ci = f" [{p['ci'][0]:.2f}, {p['ci'][1]:.2f}]" if p.get("ci") else " (no interval: fewer than 3 matches)"
    return f"{p['pr']:.2f}{ci}"


def table(obj: dict) -> Table:
    rows = []
    for d in obj["decisions"]:
        deep = d["deep"] or {}
        where = (f"m{d['match_id']} g{d['game']} #{d['move']} "
                 f"row {'—' if d.get('gnubg_row') is None else d['gnubg_row']}")
        what = d["kind"] if d["kind"] != "checker" else f"{d['dice'][0]}{d['dice'][1]} {d['played'] or '—'}"
        rows.append([where, safe_text(d["player"]), what, d["first"]["depth"] or "—",
                     f"{d['first']['error_mpt']:.1f}" if d["first"]["error_mpt"] is not None else "—",
                     f"{deep['plies']}-ply" if deep else "—",
                     f"{deep['error_mpt']:.1f}" if deep.get("error_mpt") is not None else "—",
                     safe_text(deep.get("best") or "—"), d["verdict"] or "not verified", d["position_id"] or "—"])
    return Table(["decision", "player", "played", "first depth", "e (mpt)", "deeper", "e (mpt)", "deeper best",
                  "verdict", "position"], rows)


def text(obj: dict) -> str:
    c = obj["counts"]
    n = sum(c.values())
    depth = obj["plies"] if not isinstance(obj["plies"], int) else plies_text(obj["plies"])
    lines = [f"Depth check: the {obj['chosen']} costliest errors ({obj['metric']}: study cost), evaluated again "
             f"by gnubg at {depth}",
             f"{obj['evaluated_now']} evaluated now in {obj['seconds']:.1f} s with {obj['jobs']} gnubg process(es), "
             f"{obj['already_verified']} verified before, {obj['failed']} not verified",
             f"verdicts of {n}: {c['confirmed']} confirmed, {c['reduced']} reduced (cost below half), "
             f"{c['reversed']} reversed (no longer an error)",
             f"PR of the verified decisions: first analysis {_pr_text(obj['pr']['first'])}, "
             f"deeper {_pr_text(obj['pr']['deep'])}", ""]
    if obj["decisions"]:
        t = table(obj)
        lines.append(text_table(t.rows, t.headers))
    return "\n".join(lines)


def run(args, ctx) -> int:
    scope = Scope(args, ctx)
    obj = compute(scope)
    obj.setdefault("filter", scope.filter_json)
    ctx.print(to_json(obj) if args.format == "json" else text(obj))
    return 0


COMMAND = Command(NAME, HELP, run, configure)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(COMMAND)
