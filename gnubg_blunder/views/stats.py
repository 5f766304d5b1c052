"""``stats``: the figures of a selection, as text or JSON."""

from __future__ import annotations

from ..commands import View
from ..metrics.levels import level_band
from .formatting import DASH, Table, elo_text, interval, num, scope_text


def stats_object(figures: dict, flt) -> dict:
    out = dict(figures)
    out["level"] = level_band(figures.get("pr"))
    out["filter"] = flt.to_json()
    return out


def stats_text(obj: dict) -> str:
    lines = [f"Scope: {scope_text(obj['filter'])}"]
    if not obj["decisions"]:
        lines.append(f"Matches: {obj['matches']}; no counted decisions.")
        return "\n".join(lines)
    lines += [
        f"Matches: {obj['matches']}   tournaments: {obj['tournaments']}   won–lost: {obj['wins']}–{obj['losses']}",
        f"Decisions: {obj['decisions']} (checker {obj['checker_decisions']}, cube {obj['cube_decisions']})",
        f"PR: {num(obj['pr'])}  95% {interval(obj['pr_ci'])}   level: {obj['level'] or DASH} "
        "(this project's bands, not a published norm)",
        f"  checker PR: {num(obj['checker_pr'])}   cube PR: {num(obj['cube_pr'])}",
        f"Snowie error rate: {num(obj['snowie_er'])} (factor 500; gnubg prints twice this)",
        f"Errors: {obj['errors']}   blunders: {obj['blunders']}",
    ]
    if obj["mwc_loss"] is None:
        lines.append("MWC lost, L7, Elo: not available for money play")
    else:
        lines.append(f"MWC lost: {num(obj['mwc_loss'])} % points")
        lines.append(
            f"L7: {num(obj['l7'])} % points  95% {interval(obj['l7_ci'])}   "
            f"Elo against the engine: {elo_text(obj['elo'], obj['elo_bound'])}"
        )
    lines.append(
        f"Luck: {num(obj['luck_emg'], 3, signed=True)} EMG over {obj['luck_rolls']} rolls"
        + ("" if obj["luck_per_roll_mpt"] is None else f" ({obj['luck_per_roll_mpt']:+.1f} mpt a roll)")
    )
    for name, values in (obj.get("plugin_metrics") or {}).items():
        shown = ", ".join(f"{k} {DASH if v is None else v}" for k, v in values.items())
        lines.append(f"{name} (plugin): {shown}")
    return "\n".join(lines)


def compute(scope) -> dict:
    """``stats``: the figures of the selection, and each plugin metric's."""
    from ..metrics.figures import aggregate
    from ..plugins import metrics

    flt, sel, thr = scope.filter, scope.selection, scope.thresholds
    obj = stats_object(aggregate(sel, thr, flt.decision_type), flt)
    extra = {name: fn(sel, thr, flt.decision_type) for name, fn in sorted(metrics().items())}
    if extra:
        obj["plugin_metrics"] = extra
    return obj


def stats_table(obj: dict) -> Table:
    """One row of figures (intervals as low/high columns); plugin metrics
    as ``name.key`` columns."""
    headers, row = [], []
    for k, v in obj.items():
        if k in ("filter", "plugin_metrics"):
            continue
        if k.endswith("_ci"):
            headers += [f"{k}_low", f"{k}_high"]
            row += list(v) if v else [None, None]
        else:
            headers.append(k)
            row.append(v)
    for name, values in (obj.get("plugin_metrics") or {}).items():
        for k, v in values.items():
            headers.append(f"{name}.{k}")
            row.append(v)
    return Table(headers, [row])


VIEW = View("stats", "figures over a selection of matches", compute, stats_text, table=stats_table)
