"""``stats``: the figures of a selection, as text or JSON."""

from __future__ import annotations
from html import escape

from ..hookspecs import hookimpl
from ..commands import View
from ..metrics.levels import level_band
from ..formatting import (AVOIDABLE_NOTE, DASH, POOLED, Table, avoidable_text, count_text, elo_text, interval, num,
                         safe_text, scope_text, whose)
from ..plugins import metrics
from ..lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_figures = lazy("gnubg_blunder.metrics.figures")


def stats_object(figures: dict, flt) -> dict:
    out = dict(figures)
    out["level"] = level_band(figures.get("pr"))
    out["filter"] = flt.to_json()
    return out


def pooled_note(obj: dict) -> str:
    """The line a view pooling both sides says before any figure (no --player): that
    the figures are both players' together, and how to pick one; '' when a
    player is given."""
    if obj["filter"].get("player"):
        return ""
    how = ("give --player NAME" if obj.get("main_player") else
           "give --player NAME, or set whose database it is: `gnubg-blunder main-player NAME` "
           "(no main player is set)")
    return f"Both sides pooled: these figures are both players' of every match together; {how}."


def stats_text(obj: dict) -> str:
    # the scope first (every view's first line), then, before any figure, whose the figures are
    lines = [f"Scope: {scope_text(obj['filter'])}"] + ([pooled_note(obj)] if pooled_note(obj) else [])
    if not obj["decisions"]:
        lines.append(f"Matches: {obj['matches']}; no counted decisions.")
        return "\n".join(lines)
    # the level and the luck are one player's figures: without --player they are both sides'
    pooled = "" if obj["filter"].get("player") else f" ({POOLED})"
    lines += [
        f"Matches: {obj['matches']}   tournaments: {obj['tournaments']}   won–lost: {obj['wins']}–{obj['losses']}",
        f"Decisions: {obj['decisions']} (checker {obj['checker_decisions']}, cube {obj['cube_decisions']})",
        f"PR: {num(obj['pr'])}  95% {interval(obj['pr_ci'])}   level{pooled}: {obj['level'] or DASH} "
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
    if obj.get("difficulty_emg") is not None:
        # SPEC §6: what the positions offered to get wrong, beside what was got wrong
        truncated = obj.get("difficulty_truncated") or 0
        lines.append(
            f"Difficulty: {num(obj.get('difficulty'))} % points ({num(obj['difficulty_emg'], 3)} EMG)   "
            f"excess: {num(obj.get('excess'))} % points   ratio: {num(obj.get('ratio'))}   "
            f"avoidable errors: {avoidable_text(obj)}\n  " + AVOIDABLE_NOTE
            + (f"\n  ({truncated} decisions analysed on a short candidate list: their difficulty is a lower bound)"
               if truncated else "")
        )
    lines.append(
        f"Luck{pooled}: {num(obj['luck_emg'], 3, signed=True)} EMG over {count_text(obj['luck_rolls'])} rolls"
        + ("" if obj["luck_per_roll_mpt"] is None else f" ({obj['luck_per_roll_mpt']:+.1f} mpt a roll)")
    )
    for name, values in (obj.get("plugin_metrics") or {}).items():
        shown = ", ".join(f"{safe_text(k)} {safe_text(v)}" for k, v in values.items())
        lines.append(f"{safe_text(name)} (plugin): {shown}")
    return "\n".join(lines)


def _figure_html(value: str, label: str, anchor: str = None) -> str:
    """One headline figure; with ``anchor``, a count that links to the list
    of its decisions further down the page."""
    if anchor:
        return (f'<div class="figure"><div class="v"><a href="{anchor}">{escape(value)}</a></div>'
                f'<div class="k">{escape(label)} (list below)</div></div>')
    return f'<div class="figure"><div class="v">{escape(value)}</div><div class="k">{escape(label)}</div></div>'


def _ci_words(ci, digits: int = 2) -> str:
    return "no interval" if not ci else f"95% {ci[0]:.{digits}f}–{ci[1]:.{digits}f}"


def stats_html(obj: dict) -> str:
    """The figures as the report's headline (``<section id="headline">``):
    whose they are, PR with its interval, its parts, MWC lost, L7, Elo, the
    counts (errors and blunders link to ``#list-errors`` / ``#list-blunders``)
    and the level band, labelled as both sides pooled without a player."""
    pooled = not obj["filter"].get("player")
    figs = [
        _figure_html(num(obj["pr"]), f"PR ({_ci_words(obj['pr_ci'])})"),
        _figure_html(num(obj["checker_pr"]), "checker PR"),
        _figure_html(num(obj["cube_pr"]), "cube PR"),
        _figure_html(DASH if obj["mwc_loss"] is None else f"{obj['mwc_loss']:.2f}", "MWC lost, % points"),
        _figure_html(DASH if obj["l7"] is None else f"{obj['l7']:.2f}", f"L7, % points ({_ci_words(obj['l7_ci'])})"),
        _figure_html(elo_text(obj["elo"], obj["elo_bound"]), "Elo against the engine"),
        _figure_html(str(obj["decisions"]), "decisions"),
        _figure_html(str(obj["errors"]), "errors", "#list-errors"),
        _figure_html(str(obj["blunders"]), "blunders", "#list-blunders"),
        _figure_html(str(obj["matches"]), "matches"),
        _figure_html(str(obj["tournaments"]), "tournaments"),
        _figure_html(obj["level"] or DASH, f"level, {POOLED} (this project's bands)" if pooled
                     else "level (this project's bands)"),
    ]
    note = ('<p class="note">PR = 500 × error / decisions (XG\'s counting). Level bands are this project\'s '
            "reference, not a published norm. Money play has no MWC, L7 or Elo.</p>")
    hint = f'<p class="note">{escape(pooled_note(obj))}</p>' if pooled_note(obj) else ""
    return (f'<section id="headline"><h2>Headline</h2><p class="whose">Figures of {escape(whose(obj["filter"]))}.</p>'
            f'{hint}<div class="headline">{"".join(figs)}</div>{note}</section>')


#: The registered metrics ``stats`` shows in lines and keys of its own, by name, with their keys
#: (hookspecs.register_metrics): a built-in plugin registers each (``luck``: luck_metric.py); one a
#: plugin registers under the same name replaces it there.
OWN_METRICS = {"luck": ("luck_emg", "luck_rolls", "luck_per_roll_mpt")}


def compute(scope) -> dict:
    """``stats``: the figures of the selection, those of the metrics it
    shows itself (``OWN_METRICS``, each key in its place; unknown without
    the metric), and each plugin metric's."""
    flt, sel, thr = scope.filter, scope.selection, scope.thresholds
    figures = _metrics_figures.aggregate(sel, thr, flt.decision_type)
    registered = metrics()
    for name, keys in OWN_METRICS.items():
        values = registered[name](sel, thr, flt.decision_type) if name in registered else {}
        figures.update({k: values.get(k) for k in keys})
    obj = stats_object(figures, flt)
    obj["main_player"] = _main_player(scope.store)  # the pooled note says how to set one when none is
    extra = {name: fn(sel, thr, flt.decision_type) for name, fn in sorted(registered.items())
             if name not in OWN_METRICS}
    if extra:
        obj["plugin_metrics"] = extra
    return obj


def _main_player(store):
    try:
        return _db_settings.main_player(store) if store is not None else None
    except Exception:  # a store without settings: no main player
        return None


def stats_table(obj: dict) -> Table:
    """One row of figures (intervals as low/high columns); plugin metrics
    as ``name.key`` columns."""
    headers, row = [], []
    for k, v in obj.items():
        if k in ("filter", "plugin_metrics", "main_player"):
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


VIEW = View("stats", "figures over a selection of matches", compute, stats_text, table=stats_table,
            html=stats_html)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
