"""``tournament [EVENT]``: the tournament review (SPEC §13) as text, JSON,
CSV and the report's section.  Renders
:func:`gnubg_blunder.metrics.tournament.tournament_review`; computes nothing.
The rules: docs/tournament.md."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Optional

from ..hookspecs import hookimpl
from ..commands import UserError, View, closest_names
from ..options import Option, param
from ..formatting import DASH, Table, html_text, interval, num, safe_text, scope_text, table, table_html
from ..filters import Filter
from ..lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_plan = lazy("gnubg_blunder.metrics.plan")
_metrics_tournament = lazy("gnubg_blunder.metrics.tournament")

EMPTY_KEYS = ("event", "date", "player", "player_rule", "usual", "tournament", "delta_pr", "sigma_pr",
              "delta_pr_ci", "verdict_pr", "why_pr", "delta_l7", "sigma_l7", "delta_l7_ci", "verdict_l7",
              "why_l7")


@dataclass
class TournamentParams:
    """``tournament``'s own argument."""

    event: Optional[str] = param(Option(
        ("event",), nargs="?", metavar="EVENT",
        help="the tournament (an event name, any case; default: the latest tournament of the "
             "filter's player, else of the main player, else the latest of all)"))


def _empty(note: str) -> dict:
    out = {k: None for k in EMPTY_KEYS}
    out.update(rounds=[], by_decision_index=[], by_score=[], by_pace=None, families=[], families_note=None,
               families_outside=None, families_unit=None,
               note=note)
    return out


def compute(scope, params: TournamentParams) -> dict:
    flt = scope.filter
    main = _db_settings.main_player(scope.store)
    main = scope.store.canonical_name(main) if main else None
    asked = scope.store.canonical_name(flt.player) if flt.player else None
    event = params.event
    event_of_filter = event is None and flt.tournaments and len(flt.tournaments) == 1
    if event_of_filter:
        event = flt.tournaments[0]
    # the review's own windows: every stored match with the filter's analysis choice
    whole_filter = Filter(decision_type=flt.decision_type, engine=flt.engine, min_depth=flt.min_depth)
    whole = scope.selection if whole_filter == flt else scope.select(whole_filter)  # the scope's own: read once
    if event is None:
        event = _metrics_tournament.latest_event(scope.selection, asked or main)
        if event is None:
            return _empty("No match of this scope names an event: no tournament to review.")
    try:
        obj = _metrics_tournament.tournament_review(whole, event, scope.thresholds, flt.decision_type, main, asked,
                                                    _metrics_plan.study_plan)
    except KeyError:
        names = _metrics_tournament.event_names(whole)
        if not names:
            raise UserError(f"no tournament '{safe_text(event)}': no stored match names an event") from None
        near = closest_names(event, names)
        hint = f" (closest event names: {', '.join(safe_text(n) for n in near)})" if near else ""
        raise UserError(f"no tournament '{safe_text(event)}' in any stored match{hint}"
                        f"{flt.origin('tournaments') if event_of_filter else ''}") from None
    except ValueError:
        raise UserError(f"player '{safe_text(flt.player)}' did not play in '{safe_text(event)}'"
                        f"{flt.origin('player')}") from None
    obj["note"] = None
    return obj


# -- text -----------------------------------------------------------------------------

def _ci(ci) -> str:
    return interval(ci) if ci else "(no interval)"


def _delta(d, ci) -> str:
    if d is None:
        return DASH
    return f"{num(d, signed=True)} [{num(ci[0], signed=True)}, {num(ci[1], signed=True)}]" if ci else \
        f"{num(d, signed=True)} (no interval)"


def _verdict(v: str, why) -> str:
    return f"{v} ({why})" if why else v


def _side_line(label: str, s: dict, extra: str = "") -> str:
    l7 = (f"L7 {num(s['l7'])} % points {_ci(s['l7_ci'])}" if s["l7"] is not None
          else "L7 — (money play has none)" if s["decisions"] else "L7 —")
    return (f"{label}: {s['matches']} match{'es' if s['matches'] != 1 else ''}{extra}, {s['decisions']} decisions; "
            f"PR {num(s['pr'])} {_ci(s['pr_ci'])}; {l7}")


def _cell_rows(cells: list) -> list:
    return [[c["cell"], c["tournament"]["decisions"], num(c["tournament"]["pr"]), _ci(c["tournament"]["pr_ci"]),
             c["usual"]["decisions"], num(c["usual"]["pr"]), _delta(c["delta_pr"], c["delta_pr_ci"]),
             c["verdict_pr"]] for c in cells]


CELL_HEADERS = ["cell", "decisions", "PR", "95%", "usual decisions", "usual PR", "Δ PR [95%]", "verdict"]


def tournament_text(obj: dict) -> str:
    head = f"Tournament review — scope: {scope_text(obj['filter'], ('player',), 'every stored match')}"
    if obj.get("event") is None:
        return "\n".join([head, obj.get("note") or "No tournament."])
    lines = [head,
             f"Tournament: {safe_text(obj['event'])} ({obj['date'] or 'undated'}); figures of "
             f"{safe_text(obj['player'])} ({obj['player_rule']})"]
    u, t = obj["usual"], obj["tournament"]
    window = f" from {u['from']} to {u['to']}" if u["from"] else " (undated tournament: no window)"
    n_money = u["money_left_out"]
    money = f" ({n_money} money session{'s' if n_money != 1 else ''} left out)" if n_money else ""
    lines.append(_side_line("Usual level", u, f" of match play{window}{money}"))
    lines.append(_side_line("This tournament", t))
    lines.append(f"Δ PR: {_delta(obj['delta_pr'], obj['delta_pr_ci'])} → "
                 f"{_verdict(obj['verdict_pr'], obj['why_pr'])}")
    lines.append(f"Δ L7: {_delta(obj['delta_l7'], obj['delta_l7_ci'])} → "
                 f"{_verdict(obj['verdict_l7'], obj['why_l7'])}")
    lines.append("(Δ = tournament − usual; Δ ± 1.96σ, σ = √(σt² + σu²) from each upper half-width / 1.96; "
                 "worse when it lies above 0, better below.)")
    lines += ["", "Per round (each match against the usual PR; games as interval units):"]
    if obj["rounds"]:
        rows = [[r["round"] if r["round_source"] == "stored" else f"#{r['round']}", r["date"] or DASH,
                 safe_text(r["opponent"]), "money" if r["length"] == 0 else r["length"], r["decisions"],
                 num(r["pr"]), _ci(r["pr_ci"]), _delta(r["delta_pr"], r["delta_pr_ci"]), r["verdict_pr"]]
                for r in obj["rounds"]]
        lines.append(table(rows, ["round", "date", "opponent", "length", "decisions", "PR", "95%", "Δ PR [95%]",
                                  "verdict"], "lllrrrlll"))
        if any(r["round_source"] == "order" for r in obj["rounds"]):
            lines.append("(#N: the match's order in the tournament, no round stored)")
    else:
        lines.append("  no match of the player.")
    lines += ["", "Per decision index in the match (the player's own counted decisions, bands of 30):"]
    lines.append(table(_cell_rows(obj["by_decision_index"]), CELL_HEADERS, "lrrlrrll")
                 if obj["by_decision_index"] else "  no counted decision.")
    lines += ["", "Per score (DMP, Crawford game, post-Crawford, other: the first that matches):",
              table(_cell_rows(obj["by_score"]), CELL_HEADERS, "lrrlrrll")]
    pace = obj["by_pace"]
    lines += ["", "Per pace (either side of the median duration):"]
    if not pace["durations"]:
        lines.append(f"  {pace['note']} (gnubg files store none).")
    else:
        lines.append(f"  median {num(pace['median_s'], 1)} s; usual median {num(pace['usual_median_s'], 1)} s"
                     + (f" ({pace['note']})" if pace["note"] else ""))
        lines.append(table(_cell_rows(pace["cells"]), CELL_HEADERS, "lrrlrrll"))
    lines += ["", "Study-plan families in this tournament (at most three):"]
    if obj["families"]:
        for f in obj["families"]:
            r = f.get("recoverable")
            lines.append(f"  {safe_text(f.get('family'))}: {f.get('members')} member(s), recoverable "
                         f"{num(r)} {obj.get('families_unit') or ''} {_ci(f.get('recoverable_ci'))}, "
                         f"{safe_text(f.get('status'))}")
    else:
        lines.append(f"  none ({obj['families_note']}).")
    return "\n".join(lines)


# -- CSV / HTML: one table, one row per cell ---------------------------------------------

CSV_HEADERS = ["section", "cell", "match_id", "metric", "decisions", "value", "value_low", "value_high",
               "usual_decisions", "usual_value", "usual_low", "usual_high", "delta", "delta_low", "delta_high",
               "verdict"]


def _pair(ci):
    return list(ci) if ci else [None, None]


def tournament_table(obj: dict) -> Table:
    """Rows: ``overall`` (PR, L7), then ``round``, ``decision_index``,
    ``score``, ``pace`` cells (PR)."""
    rows = []
    if obj.get("event") is None:
        return Table(CSV_HEADERS, rows)
    u, t = obj["usual"], obj["tournament"]
    for m in ("pr", "l7"):
        rows.append(["overall", obj["event"], None, m, t["decisions"], t[m], *_pair(t[f"{m}_ci"]),
                     u["decisions"], u[m], *_pair(u[f"{m}_ci"]), obj[f"delta_{m}"], *_pair(obj[f"delta_{m}_ci"]),
                     obj[f"verdict_{m}"]])
    for r in obj["rounds"]:
        rows.append(["round", r["round"], r["match_id"], "pr", r["decisions"], r["pr"], *_pair(r["pr_ci"]),
                     u["decisions"], u["pr"], *_pair(u["pr_ci"]), r["delta_pr"], *_pair(r["delta_pr_ci"]),
                     r["verdict_pr"]])
    pace = obj["by_pace"]["cells"] if obj["by_pace"] else []
    for section, cells in (("decision_index", obj["by_decision_index"]), ("score", obj["by_score"]),
                           ("pace", pace)):
        for c in cells:
            ct, cu = c["tournament"], c["usual"]
            rows.append([section, c["cell"], None, "pr", ct["decisions"], ct["pr"], *_pair(ct["pr_ci"]),
                         cu["decisions"], cu["pr"], *_pair(cu["pr_ci"]), c["delta_pr"], *_pair(c["delta_pr_ci"]),
                         c["verdict_pr"]])
    return Table(CSV_HEADERS, rows)


def _f(x) -> str:
    return DASH if x is None else f"{x:.2f}"


def _d(x, ci) -> str:
    if x is None:
        return DASH
    return f"{x:+.2f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")


def tournament_html(obj: dict) -> str:
    """The report's section (``<section id="tournament">``): the verdicts,
    then one table of every cell."""
    if obj.get("event") is None:
        return ""
    u, t = obj["usual"], obj["tournament"]
    head = (f'<section id="tournament"><h2>Tournament review: {html_text(obj["event"])}</h2>'
            f'<p class="whose">{escape(obj["date"] or "undated")}; figures of {html_text(obj["player"])} '
            f'({escape(obj["player_rule"])}); usual level: {u["matches"]} match-play matches'
            + (f' from {escape(u["from"])} to {escape(u["to"])}' if u["from"] else "") + ".</p>")
    verdicts = []
    for m, label in (("pr", "PR"), ("l7", "L7")):
        why = obj[f"why_{m}"]
        verdicts.append(f"<li>{label}: {_f(t[m])} here, {_f(u[m])} usually; Δ {escape(_d(obj[f'delta_{m}'], obj[f'delta_{m}_ci']))}"
                        f" → <b>{escape(obj[f'verdict_{m}'])}</b>" + (f" ({escape(why)})" if why else "") + "</li>")
    rows, classes = [], []
    for r in tournament_table(obj).rows:
        section, cell, _mid, metric, n, v, _lo, _hi, un, uv, _ulo, _uhi, d, dlo, dhi, verdict = r
        rows.append([section.replace("_", " "), cell, metric.upper(), n, _f(v), un, _f(uv),
                     _d(d, [dlo, dhi] if dlo is not None else None), verdict])
        classes.append("grey" if verdict == "insufficient" else None)
    notes = []
    if obj["by_pace"] and not obj["by_pace"]["durations"]:
        notes.append("Pace: no durations (gnubg files store none).")
    fams = obj["families"]
    notes.append("Study-plan families here: " + (", ".join(escape(str(f.get("family"))) for f in fams) if fams
                                                 else escape(f"none ({obj['families_note']})")) + ".")
    return (head + "<ul>" + "".join(verdicts) + "</ul>"
            + table_html(rows, ["part", "cell", "metric", "decisions", "value", "usual decisions", "usual",
                                "Δ [95%]", "verdict"], "lllrrrrll", classes)
            + '<p class="note">Δ = tournament − usual; Δ ± 1.96σ with σ = √(σt² + σu²); “insufficient” under 5 '
              "usual matches, 20 decisions a side or without intervals. " + " ".join(notes) + "</p></section>")


def report_section(ctx) -> str:
    """The report's tournament review: the filter's tournament when it names
    one, else the latest (docs/tournament.md); nothing without one."""
    try:
        return tournament_html(ctx.view_object(VIEW))
    except UserError as exc:  # the report's tournament without its player: said in one line
        return (f'<section id="tournament"><h2>Tournament review</h2><p class="note">{escape(str(exc))}</p>'
                "</section>")


VIEW = View("tournament", "a tournament against the player's usual level (docs/tournament.md)", compute, tournament_text,
            table=tournament_table, html=tournament_html, params=TournamentParams)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

REPORT_ORDER = 35  # after the progression (30), before the errors (40)


@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_report_sections(register):
    register("tournament", report_section, REPORT_ORDER)
