"""``plan``: the study plan (SPEC §9) — which families of errors to study
first — as text, JSON, CSV or HTML (the report's section, each count
linked to the list of its decisions in the same page).

The figures come from ``metrics/plan.py`` (:func:`study_plan`); the
drill-down rows from ``metrics/plan.py: member_lists`` and
``metrics/summary.py: decision_records``, the moves from the store.  A view
never computes a figure.  docs/plan.md.
"""

from __future__ import annotations

import shlex
from html import escape

from ..hookspecs import hookimpl
from ..commands import View
from ..stash import StashKey, kept_object
from ..filters import command_flags
from ..formatting import DASH, Table, folded, html_cell, num, safe_text, scope_text, table
from .positions import attach_moves
from ..lazy import lazy

_metrics_plan = lazy("gnubg_blunder.metrics.plan")
_metrics_study_cost = lazy("gnubg_blunder.metrics.study_cost")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")
_metrics_verify = lazy("gnubg_blunder.metrics.verify")
np = lazy("numpy")

LIST_ROWS = 20  # the report lists the first 20 members of each family (costliest first)


def cost_of(obj: dict):
    """The study half's cost an object was priced in (its ``metric``)."""
    return _metrics_study_cost.study_cost(obj.get("metric"))


def cost_rule_text(cost) -> str:
    """What an error costs under ``cost``, in one sentence (SPEC §9)."""
    money = ("money errors included" if cost.money else
             f"money errors have no {cost.loss}: members, not quantified")
    return (f"Cost of an error: {cost.rule}; quantified: {cost.loss} and {cost.difficulty} known ({money}); "
            "--metric pr|mwc|mwc7 chooses.")


def rule_text(cost=None) -> str:
    """The plan's rule, in one paragraph."""
    cost = _metrics_study_cost.study_cost(cost)
    return ("Family = (game plan, checker/cube, theme). Members: counted errors (e ≥ the error threshold) with a "
            f"theme. {cost_rule_text(cost)} R = Σ({cost.excess}) over the quantified members, {cost.unit}, 95% "
            f"interval R ± 1.96 √Σ({cost.excess})². In the plan: ≥ {_metrics_plan.MIN_QUANTIFIED} quantified members "
            "and a lower bound > 0, by lower bound; the others are to confirm, unranked (listed by name).")


# once per selection, decision type, thresholds and metric: the summary's card and the report share it
PLAN_OBJECT: StashKey[dict] = StashKey("plan view")  # .at(decision type, thresholds, metric)
PLAN_LISTS: StashKey[dict] = StashKey("plan lists")  # the report's members of each family (plan_section)


def compute(scope) -> dict:
    """``{"filter", "metric", "unit", "families", "outside"}``
    (``metrics.plan.study_plan`` over the counted decisions of the filter's
    side(s) and decision type, in the study half's cost ``--metric``),
    computed once per selection: the summary's card and the report share it.
    What the selection keeps is not changed: the families are copied where
    the depth check adds to them (no other reader changes a view's object)."""
    thresholds = scope.thresholds
    # only the errors, unless read already; at their deepest (§16)
    sel = scope.study_rows(_metrics_plan.error_rows(thresholds))
    decision_type = scope.filter.decision_type or "all"
    obj = kept_object(sel.stash, PLAN_OBJECT.at(decision_type, thresholds, scope.metric),
                      lambda: _metrics_plan.study_plan(sel, _metrics_plan.plan_mask(sel, decision_type), thresholds,
                                                       scope.metric))
    out = {"filter": scope.filter_json, "metric": obj["metric"], "unit": obj["unit"], "families": obj["families"],
           "outside": obj["outside"]}
    if sel.verified:  # SPEC §16: what the depth check has confirmed of each family
        out["families"] = [dict(fam) for fam in obj["families"]]  # each given its "verified" count
        out["verification"] = verification_counts(sel, thresholds, decision_type, scope.metric, out["families"])
    return out


def verification_counts(sel, thresholds, decision_type: str, metric, families: list) -> dict:
    """Members evaluated again by gnubg (SPEC §16), in all and per family
    (each family's ``verified``): the members are at their deepest
    evaluation, the others "not verified"."""
    members = _metrics_plan.member_masks(sel, _metrics_plan.plan_mask(sel, decision_type), thresholds, metric)["members"]
    plies = _metrics_verify.verified_plies(sel)
    checked = members & (plies >= 0)
    for fam in families:
        fam["verified"] = int((checked & _metrics_plan.family_mask(sel, fam["family"])).sum())
    depths = sorted({int(p) for p in plies[checked]})
    return {"members": int(members.sum()), "verified": int(checked.sum()), "plies": depths}


# -- the drill-down command ---------------------------------------------------------------

def filter_flags(f: dict) -> list:
    """The command-line flags of a filter (``Filter.to_json()``), family
    left out: the same scope in another command."""
    return command_flags(f, leave_out=("family",))


def list_command(family: str, f: dict) -> str:
    """The command that lists a family's members: ``positions --family F
    --errors --limit 0`` with the scope's other flags (the family filter
    keeps the family's decisions; ``--errors`` keeps its members)."""
    words = ["gnubg-blunder", "positions", *filter_flags(f), "--family", family, "--errors", "--limit", "0"]
    return " ".join(shlex.quote(w) for w in words)


# -- text ---------------------------------------------------------------------------------------

def _ci(ci, digits: int = 2) -> str:
    return DASH if not ci else f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]"


def headers(cost) -> list:
    return ["#", "family", "members", "quantified", f"R {cost.unit}", "95% interval"]


def _row(rank, fam: dict, cost) -> list:
    return [rank, safe_text(fam["family"], None), fam["members"], fam["quantified"],
            num(fam["recoverable"], cost.decimals, signed=True), _ci(fam["recoverable_ci"], cost.decimals)]


def outside_text(outside: dict, cost=None) -> str:
    cost = _metrics_study_cost.study_cost(cost)
    why = (f"money: no {cost.loss}; or {cost.difficulty} unknown" if not cost.money else
           f"{cost.difficulty} unknown")
    return (f"Outside the plan: {outside['no_theme']} counted error{'s' if outside['no_theme'] != 1 else ''} "
            f"without a theme (none, or theme not determined); {outside['not_quantified']} themed "
            f"error{'s' if outside['not_quantified'] != 1 else ''} not quantified ({why}).")


def plan_text(obj: dict) -> str:
    cost = cost_of(obj)
    lines = [f"Study plan — scope: {scope_text(obj['filter'])}; cost {cost.excess} in {cost.unit}", rule_text(cost)]
    plan = [f for f in obj["families"] if f["status"] == _metrics_plan.IN_PLAN]
    confirm = [f for f in obj["families"] if f["status"] != _metrics_plan.IN_PLAN]
    f = obj["filter"]
    for title, rows, ranked in (("In the plan, largest lower bound first", plan, True),
                                ("To confirm (unranked, by name)", confirm, False)):
        lines += ["", f"{title}: {len(rows)} famil{'y' if len(rows) == 1 else 'ies'}"]
        if not rows:
            continue
        lines.append(table([_row(k if ranked else DASH, fam, cost) for k, fam in enumerate(rows, 1)], headers(cost),
                           "rlrrrl"))
        lines.append("Lists of their decisions:")
        lines += [f"  {safe_text(fam['family'], None)}: {safe_text(list_command(fam['family'], f), None)}" for fam in rows]
        lines.append('Actions for a family F: `quiz --family F`, `anki export --family F --errors OUT.apkg`, '
                     '`collection add NAME --from-plan F`')
    if not obj["families"]:
        lines += ["", "No themed error in this scope: no family."]
    v = obj.get("verification")
    if v:
        at = " and ".join(str(p) for p in v["plies"]) or "—"
        lines += ["", f"Depth check (docs/verify.md): {v['verified']} of {v['members']} members confirmed at {at} plies "
                      f"(each counted at gnubg's deeper evaluation); the other {v['members'] - v['verified']} not "
                      "verified (`verify` evaluates the costliest again)."]
    lines += ["", outside_text(obj["outside"], cost)]
    return "\n".join(lines)


# -- CSV --------------------------------------------------------------------------------------------

CSV_HEADERS = ["status", "family", "game_plan", "nature", "theme", "members", "quantified", "recoverable",
               "ci_low", "ci_high", "unit"]


def plan_table(obj: dict) -> Table:
    rows = []
    for fam in obj["families"]:
        ci = fam["recoverable_ci"] or [None, None]
        rows.append([fam["status"], fam["family"], fam["game_plan"], fam["nature"], fam["theme"], fam["members"],
                     fam["quantified"], fam["recoverable"], ci[0], ci[1], obj["unit"]])
    return Table(CSV_HEADERS, rows)


# -- HTML (the report's section) ------------------------------------------------------------------

def anchor_of(k: int) -> str:
    return f"plan-family-{k}"


def member_records(store, selection, flt, thresholds, obj: dict, limit: int = None) -> dict:
    """{family: {"total", "decisions": drill-down records (the first
    ``limit`` members, costliest first) with their ``excess`` (loss − d in
    ``obj``'s cost and unit)}} of every family of ``obj`` — what
    :func:`plan_html` lists."""
    limit = LIST_ROWS if limit is None else limit
    names = [fam["family"] for fam in obj["families"]]
    mask = _metrics_plan.plan_mask(selection, flt.decision_type or "all")
    lists = _metrics_plan.member_lists(selection, mask, thresholds, names, limit, obj.get("metric"))
    records_of = _metrics_summary.decision_records_of_lists(selection, [got["index"] for got in lists.values()], thresholds)
    attach_moves([r for records in records_of for r in records], store)
    out = {}
    for (name, got), records in zip(lists.items(), records_of):
        for r, x in zip(records, got["excess"]):
            r["excess"] = x
        out[name] = {"total": got["total"], "decisions": records}
    return out


def _list_html(k: int, fam: dict, got: dict, f: dict, cost) -> str:
    n = got["total"]
    html = [f'<h3 id="{anchor_of(k)}">{escape(fam["family"])}: {n} member{"s" if n != 1 else ""}</h3>']
    if len(got["decisions"]) < n:
        html.append(f'<p class="note">The {len(got["decisions"])} with the largest {escape(cost.excess)} of {n} '
                    f"({n - len(got['decisions'])} more); <code>{escape(list_command(fam['family'], f))}</code> "
                    "lists them all.</p>")
    # d as the cost reads it: in mpt under pr, in % MWC otherwise
    d_key, d_head = ("difficulty_mpt", "d mpt") if cost.money else ("difficulty_mwc", "d % MWC")
    rows = []
    for r in got["decisions"]:
        rows.append([r["match_id"], r["date"] or DASH, r["game"], r["move"],
                     DASH if r.get("gnubg_row") is None else r["gnubg_row"], r["player"], r["kind"],
                     r.get("played") or DASH, r.get("best") or DASH, num(r["error_mpt"], 1), num(r["mwc_loss"]),
                     num(r.get(d_key), cost.decimals), num(r["excess"], cost.decimals, signed=True),
                     r["position_id"] or DASH])
    heads = ["match", "date", "game", "move", "gnubg row", "player", "kind", "played", "best", "e mpt", "ℓ % MWC",
             d_head, f"{cost.excess} {cost.unit}", "position"]
    align = "llrrrllllrrrrl"
    out = ["<table><tr>"] + [f'<th class="{a}">{escape(h)}</th>' for h, a in zip(heads, align)] + ["</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f'<td class="{a}">{html_cell(v)}</td>' for v, a in zip(row, align)) + "</tr>")
    out.append("</table>")
    html.append("".join(out))
    return "".join(html)


def plan_html(obj: dict, lists: dict = None) -> str:
    """``<section id="plan">``: the families (the plan ranked, then those to
    confirm, grey), the members outside; with ``lists``
    (:func:`member_records`) each member count links to the list of its
    decisions further down the same page."""
    lists = lists or {}
    cost = cost_of(obj)
    heads = ["#", "family", "status", "members", "quantified", f"R {cost.unit}", "95% interval"]
    align = "rllrrrl"
    html = ['<section id="plan"><h2>Study plan</h2>', f'<p class="note">{escape(rule_text(cost))}</p>']
    if not obj["families"]:
        html.append('<p class="muted">No themed error in this scope: no family.</p>')
    else:
        out = ["<table><tr>"] + [f'<th class="{a}">{escape(h)}</th>' for h, a in zip(heads, align)] + ["</tr>"]
        rank = 0
        for k, fam in enumerate(obj["families"], 1):
            ranked = fam["status"] == _metrics_plan.IN_PLAN
            rank += ranked
            members = str(fam["members"])
            if fam["family"] in lists:
                members = f'<a href="#{anchor_of(k)}">{members}</a>'
            cells = [escape(str(rank)) if ranked else DASH, escape(fam["family"]), escape(fam["status"]), members,
                     escape(str(fam["quantified"])), escape(num(fam["recoverable"], cost.decimals, signed=True)),
                     escape(_ci(fam["recoverable_ci"], cost.decimals))]
            cls = "" if ranked else ' class="grey"'
            out.append(f"<tr{cls}>" + "".join(f'<td class="{a}">{c}</td>' for c, a in zip(cells, align)) + "</tr>")
        out.append("</table>")
        html.append("".join(out))
    html.append(f'<p class="note">{escape(outside_text(obj["outside"], cost))}</p>')
    if lists:
        unknown = "" if cost.money else "; — for money"
        members = [f'<p class="note">At most {max(len(x["decisions"]) for x in lists.values())} a family, largest '
                   f"{escape(cost.excess)} first (not quantified last). e in mpt, ℓ in % points of MWC, "
                   f"{escape(cost.excess)} in {escape(cost.unit)}{unknown}.</p>"]
        for k, fam in enumerate(obj["families"], 1):
            if fam["family"] in lists:
                members.append(_list_html(k, fam, lists[fam["family"]], obj["filter"], cost))
        html.append(folded(f'<h3 id="plan-members">The members of each family</h3> <span class="k">'
                           f"({len(lists)} lists: click to unfold)</span>", "".join(members)))
    html.append("</section>")
    return "".join(html)


def plan_section(ctx) -> str:
    """The report's section: the plan of the report's scope, each member
    count linked to the list of the family's decisions in the page."""
    obj = ctx.view_object(VIEW, metric=ctx.metric)
    lists = ctx.once(PLAN_LISTS, lambda: member_records(ctx.store, ctx.selection, ctx.filter, ctx.thresholds, obj))
    return plan_html(obj, lists)


# -- the summary's card ------------------------------------------------------------------------------

CARD_TOP = 3


def plan_card(scope) -> dict:
    """The summary's card: the first three families of the plan (family,
    members, quantified, recoverable, recoverable_ci), how many are in the
    plan and how many to confirm, the members outside; ``metric`` and
    ``unit``: the summary's --metric as the study half's cost."""
    obj = compute(scope)
    plan = [f for f in obj["families"] if f["status"] == _metrics_plan.IN_PLAN]
    keys = ("family", "members", "quantified", "recoverable", "recoverable_ci")
    return {"metric": obj["metric"], "unit": obj["unit"],
            "top": [{k: f[k] for k in keys} for f in plan[:CARD_TOP]], "in_plan": len(plan),
            "to_confirm": len(obj["families"]) - len(plan), "outside": obj["outside"]}


def plan_card_text(card: dict) -> str:
    cost = cost_of(card)
    if card["top"]:
        tops = "; ".join(f"{k}. {safe_text(f['family'], None)} R {num(f['recoverable'], cost.decimals, signed=True)} "
                         f"{_ci(f['recoverable_ci'], cost.decimals)} {cost.unit}"
                         for k, f in enumerate(card["top"], 1))
    else:
        tops = "no family in the plan yet"
    more = card["in_plan"] - len(card["top"])
    return (f"Study plan: {tops}" + (f" (+{more} more)" if more > 0 else "")
            + f"; {card['to_confirm']} to confirm (details: plan)")


def plan_card_html(card: dict) -> str:
    cost = cost_of(card)
    if card["top"]:
        rows = "".join(f'<tr><td class="r">{k}</td><td class="l">{escape(f["family"])}</td>'
                       f'<td class="r">{f["members"]}</td>'
                       f'<td class="r">{escape(num(f["recoverable"], cost.decimals, signed=True))}</td>'
                       f'<td class="l">{escape(_ci(f["recoverable_ci"], cost.decimals))}</td></tr>'
                       for k, f in enumerate(card["top"], 1))
        body = ('<table><tr><th class="r">#</th><th class="l">family</th><th class="r">members</th>'
                f'<th class="r">R {escape(cost.unit)}</th><th class="l">95% interval</th></tr>{rows}</table>')
    else:
        body = '<p class="muted">No family in the plan yet.</p>'
    return (f'<h3 id="plan-card">Study plan</h3>{body}<p class="note">{card["in_plan"]} in the plan, '
            f"{card['to_confirm']} to confirm; R = Σ({escape(cost.excess)}) over the quantified members, "
            f"{escape(cost.unit)}.</p>")


VIEW = View("plan", "the study plan: families of errors (game plan, checker/cube, theme) by their recoverable cost "
            "(--metric pr: e − d in mpt, the default; mwc, mwc7; docs/plan.md)", compute, plan_text,
            table=plan_table, html=plan_html, cost_metric=True)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

SECTION_ORDER = 45  # after the errors (40), before the breakdowns (50)


@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_report_sections(register):
    register("plan", plan_section, SECTION_ORDER)


@hookimpl
def register_summary_cards(register):
    register("plan", plan_card, plan_card_text, plan_card_html, order=20)
