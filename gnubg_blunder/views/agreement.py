"""``agreement``: two analyses of the same matches compared (SPEC §17), as
text, JSON, CSV (the pairs that disagree most) or HTML (the report's
section, shown only when some match of the scope has two analyses).

The figures come from ``metrics/agreement.py``; the two selections from
the store (``select(..., choose=...)``, one analysis each); the played
move and both candidate lists from the store's rows, as ``positions``
reads them.  A view never computes a figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..hookspecs import hookimpl
from ..commands import View, count_option
from ..options import Option, param
from .errors import scope_line
from ..formatting import DASH, Table, num, percent, safe_text, table, table_html
from ..lazy import lazy

_codec_candidates = lazy("gnubg_blunder.codec.candidates")
_metrics_agreement = lazy("gnubg_blunder.metrics.agreement")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")
_units = lazy("gnubg_blunder.units")

DEFAULT_TOP = 10
CANDIDATES_SHOWN = 5
PARTS = (("all", "all decisions"), ("checker", "checker plays"), ("cube", "cube decisions"))


@dataclass
class AgreementParams:
    """``agreement``'s own option."""

    top: str = param(Option(("--top",), metavar="N", help=f"the N pairs that disagree most, largest |Δe| first "
                                                          f"(default {DEFAULT_TOP}; 0 = all)"),
                     default=str(DEFAULT_TOP))  # as written: count_option reads it (0 = all)


def _analysis(info) -> dict:
    return {"engine": info.engine, "depth": info.depth_label}


def _candidates(row: dict) -> list:
    """The stored candidate list of a decision row (checker plays: the
    first five and the played one), or the cube equities (cube decisions),
    as the analysis wrote them."""
    if row.get("kind") != "checker":
        return [{"action": name, "equity": row.get(key)} for name, key in
                (("no double", "nd"), ("double/take", "dt"), ("double/pass", "dp")) if row.get(key) is not None]
    played = row.get("played_index")
    out = []
    for k, c in enumerate(_codec_candidates.decode_row(row)):
        if k < CANDIDATES_SHOWN or k == played:  # the first five, and the played move wherever it stands
            out.append({"rank": k + 1, "move": c.get("move"), "equity": c.get("equity"), "played": k == played})
    return out


def _side(record: dict, row: dict) -> dict:
    return {"error_mpt": record["error_mpt"], "error": record["error"], "played": row.get("played_move"),
            "best": row.get("best_move"), "move": record["move"], "candidates": _candidates(row)}


def compute(scope, params: AgreementParams) -> dict:
    store, flt, thresholds = scope.store, scope.filter, scope.thresholds
    top = count_option(params.top, "--top")
    obj = {"filter": scope.filter_json, "threshold_mpt": _units.mpt(thresholds.error),
           "matches": 0, "compared": [], "analyses": [], "units": None,
           "pairs": 0, "unpaired": {}, "unpaired_reasons": _metrics_agreement.UNPAIRED_REASONS,
           "verdicts": None, "rates": {}, "disagreements": []}
    # the scope's selection, when already read (the report), holds every match the filter keeps with an
    # analysis under its engine and depth (first_and_second's first, store.choose_analysis: the same rule):
    # none of them with two stored analyses, nothing is compared (no two selections of their rows made)
    read = scope.selection_if_read
    if read is not None and not any(len(m.analyses) > 1 for m in read.matches):
        return obj
    pair = _metrics_agreement.first_and_second
    first = store.select(flt, choose=lambda stored: pair(stored, flt.engine, flt.min_depth)[0])
    second = store.select(flt, choose=lambda stored: pair(stored, flt.engine, flt.min_depth)[1])
    obj["matches"] = first.n_matches
    if not first.n_matches:
        return obj
    pairs_of: dict = {}
    for a, b in zip(first.matches, second.matches):
        obj["compared"].append({"match_id": a.id, "players": list(a.players), "first": _analysis(a),
                                "second": _analysis(b)})
        key = (a.engine, a.depth_label, b.engine, b.depth_label)
        pairs_of[key] = pairs_of.get(key, 0) + 1
    obj["analyses"] = [{"first": {"engine": k[0], "depth": k[1]}, "second": {"engine": k[2], "depth": k[3]},
                        "matches": n} for k, n in pairs_of.items()]
    res = _metrics_agreement.agreement(first, second, thresholds, top)
    pairs = res["pairs"]
    obj.update(units=res["units"], pairs=len(pairs.first), unpaired=pairs.unpaired, verdicts=res["verdicts"],
               rates=res["rates"])
    idx_a = [int(pairs.first[k]) for k in res["top"]]
    idx_b = [int(pairs.second[k]) for k in res["top"]]
    rec_a = _metrics_summary.decision_records(first, idx_a, thresholds)
    rec_b = _metrics_summary.decision_records(second, idx_b, thresholds)
    rows = {r["id"]: r for r in store.decision_rows([r["row_id"] for r in rec_a + rec_b])}
    for rank, (k, ra, rb) in enumerate(zip(res["top"], rec_a, rec_b), 1):
        obj["disagreements"].append({
            "rank": rank, "match_id": ra["match_id"], "date": ra["date"], "players": ra["players"],
            "game": ra["game"], "player": ra["player"], "kind": ra["kind"], "position_id": ra["position_id"],
            "delta_mpt": _units.mpt(float(res["delta"][k])),
            "first": _side(ra, rows.get(ra["row_id"], {})), "second": _side(rb, rows.get(rb["row_id"], {})),
        })
    return obj


def _name(a: dict) -> str:
    return f"{a['engine']} {a['depth'] or '(depth unknown)'}"


def _ci(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "no interval"


def _ci_signed(ci) -> str:
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "no interval"


def kappa_text(v: dict) -> str:
    """κ, or why there is none (a verdict constant: every decision judged
    alike by one analysis)."""
    if v["kappa"] is not None:
        return f"{v['kappa']:.3f}"
    if v["undefined"] == "no paired decision":
        return f"{DASH} (no paired decision)"
    which = " and ".join(v["undefined"])
    return f"{DASH} (undefined: the {which} analysis judges every paired decision alike)"


RATE_HEADERS = ["", "N", "units", "PR first", "95% interval", "PR second", "95% interval", "Δ (second − first)",
                "95% interval"]


def _rate_rows(obj: dict) -> list:
    rows = []
    for key, label in PARTS:
        r = obj["rates"][key]
        rows.append([label, r["decisions"], r["units"], num(r["pr_first"]), _ci(r["pr_first_ci"]),
                     num(r["pr_second"]), _ci(r["pr_second_ci"]), num(r["difference"], signed=True),
                     _ci_signed(r["difference_ci"])])
    return rows


def _verdict_rows(obj: dict) -> list:
    t = obj["verdicts"]["table"]
    return [["error under the first", t["both"], t["first_only"], t["both"] + t["first_only"]],
            ["no error under the first", t["second_only"], t["neither"], t["second_only"] + t["neither"]],
            ["total", t["both"] + t["second_only"], t["first_only"] + t["neither"], obj["pairs"]]]


def _unpaired_lines(obj: dict) -> list:
    total = sum(obj["unpaired"].values())
    lines = [f"Not paired: {total} decision{'s' if total != 1 else ''} counted under one analysis only"
             + (":" if total else ".")]
    for key, n in obj["unpaired"].items():
        if n:
            lines.append(f"  {n}: {obj['unpaired_reasons'][key]}")
    return lines


def _candidate_text(side: dict) -> str:
    parts = []
    for c in side["candidates"]:
        eq = DASH if c.get("equity") is None else f"{c['equity']:+.3f}"
        label = c.get("move") or c.get("action") or DASH
        rank = f"{c['rank']}. " if c.get("rank") else ""
        parts.append(f"{rank}{label}{' (played)' if c.get('played') else ''} {eq}")
    return "; ".join(parts) or DASH


def agreement_text(obj: dict) -> str:
    lines = [scope_line(obj["filter"])]
    if not obj["matches"]:
        lines.append("Analysers' agreement: no match of the scope has two analyses (import an XG file and its "
                     "gnubg analysis, or `analyse --plies N` a stored gnubg file).")
        return "\n".join(lines)
    compared = "; ".join(f"first {_name(a['first'])}, second {_name(a['second'])} ({a['matches']} match"
                         f"{'es' if a['matches'] != 1 else ''})" for a in obj["analyses"])
    lines += [f"Analysers' agreement over {obj['matches']} match{'es' if obj['matches'] != 1 else ''} with two "
              f"analyses: {compared}.",
              f"{obj['pairs']} paired decisions (same game, decider, kind, position and dice, in play order; "
              f"counted under both). Error threshold {obj['threshold_mpt']:g} mpt."]
    lines += _unpaired_lines(obj)
    v = obj["verdicts"]
    lines += ["", "Verdicts (rows: the first analysis, columns: the second)",
              table(_verdict_rows(obj), ["", "error", "no error", "total"], "lrrr"),
              f"Agreeing: {percent(v['agreement'])}; Cohen's kappa {kappa_text(v)}.",
              "", f"PR over the paired decisions (intervals: {obj['units']} as units)",
              table(_rate_rows(obj), RATE_HEADERS, "lrrrlrlrl")]
    if obj["disagreements"]:
        lines += ["", f"The pairs that disagree most (|Δe| largest first, {len(obj['disagreements'])} shown)"]
        for d in obj["disagreements"]:
            f, s = d["first"], d["second"]
            lines.append(f"{d['rank']}. match {d['match_id']} game {d['game']} move {f['move']}"
                         f"{'' if f['move'] == s['move'] else '/' + str(s['move'])}, {safe_text(d['player'])}, "
                         f"{d['kind']}, position {d['position_id'] or DASH}: played {f['played'] or DASH}; "
                         f"e {num(f['error_mpt'], 1)} vs {num(s['error_mpt'], 1)} mpt "
                         f"(Δ {num(d['delta_mpt'], 1, signed=True)})")
            lines.append(f"   first:  best {f['best'] or DASH}; {_candidate_text(f)}")
            lines.append(f"   second: best {s['best'] or DASH}; {_candidate_text(s)}")
    lines.append("(e and Δ in millipoints; PR = 500 × Σe / N; first = the analysis the match's figures use; "
                 "docs/agreement.md)")
    return "\n".join(lines)


CSV_HEADERS = ["rank", "match_id", "game", "move_first", "move_second", "player", "kind", "position_id",
               "played", "best_first", "best_second", "error_mpt_first", "error_mpt_second", "delta_mpt",
               "error_first", "error_second"]


def agreement_table(obj: dict) -> Table:
    """The one table: the pairs that disagree most."""
    rows = [[d["rank"], d["match_id"], d["game"], d["first"]["move"], d["second"]["move"], d["player"], d["kind"],
             d["position_id"], d["first"]["played"], d["first"]["best"], d["second"]["best"],
             d["first"]["error_mpt"], d["second"]["error_mpt"], d["delta_mpt"], d["first"]["error"],
             d["second"]["error"]] for d in obj["disagreements"]]
    return Table(CSV_HEADERS, rows)


def agreement_html(obj: dict) -> str:
    """``<section id="agreement">``; empty when no match of the scope has
    two analyses (the report leaves the section out)."""
    if not obj["matches"]:
        return ""
    v = obj["verdicts"]
    compared = "; ".join(f"first {_name(a['first'])}, second {_name(a['second'])} ({a['matches']})"
                         for a in obj["analyses"])
    html = ['<section id="agreement"><h2>Analysers\' agreement</h2>',
            f'<p>{obj["matches"]} match(es) with two analyses: {escape(compared)}. {obj["pairs"]} paired decisions; '
            f'{escape(" ".join(_unpaired_lines(obj)))}</p>',
            table_html(_verdict_rows(obj), ["", "error (second)", "no error (second)", "total"], "lrrr"),
            f"<p>Agreeing: {escape(percent(v['agreement']))}; Cohen's kappa {escape(kappa_text(v))}.</p>",
            table_html(_rate_rows(obj), RATE_HEADERS, "lrrrlrlrl"),
            f'<p class="note">Intervals: {escape(obj["units"])} as units.</p>']
    rows = [[d["rank"], d["match_id"], d["game"], d["first"]["move"], d["kind"], d["first"]["played"],
             d["first"]["best"], d["second"]["best"], num(d["first"]["error_mpt"], 1),
             num(d["second"]["error_mpt"], 1), d["position_id"]] for d in obj["disagreements"]]
    if rows:
        html.append("<h3>The pairs that disagree most</h3>")
        html.append(table_html(rows, ["#", "match", "game", "move", "kind", "played", "best (first)",
                                      "best (second)", "e first (mpt)", "e second (mpt)", "position"],
                               "rrrrllllrrl"))
    html.append("</section>")
    return "".join(html)


VIEW = View("agreement", "two analyses of the same matches compared: verdicts, kappa, PR under each "
            "(docs/agreement.md)", compute, agreement_text, table=agreement_table, html=agreement_html,
            params=AgreementParams, decision_type=False)


def agreement_section(ctx) -> str:
    """The report's section (a ``register_report_sections`` function):
    empty unless some match of the scope has two analyses."""
    return agreement_html(ctx.view_object(VIEW))


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

SECTION_ORDER = 57  # after the signed biases, before the players


@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_report_sections(register):
    register("agreement", agreement_section, SECTION_ORDER)
