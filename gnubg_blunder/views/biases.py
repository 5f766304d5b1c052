"""``biases``: which way the cube and checker errors lean (SPEC §12), as
text, JSON, CSV or HTML.

The figures come from ``metrics/biases.py``; the blots of the boards the
wrong checker plays left come with the selection (the store's array cache),
else they are read here through the store (``store/boards.py``)."""

from __future__ import annotations

from html import escape

from ..hookspecs import hookimpl
from ..commands import View
from ..stash import StashKey, kept_object
from .errors import scope_line
from ..formatting import DASH, Table, num, percent, table, table_html
from ..lazy import lazy

_metrics_biases = lazy("gnubg_blunder.metrics.biases")

TITLES = {"take_pass": "Take/pass", "doubles": "Doubles", "blots": "Blots (checker plays with contact)"}

# once per selection and decision type: the report's section and the summary's card share them
BIASES_OBJECT: StashKey[dict] = StashKey("biases view")  # .at(decision type)
DOUBLE_CELLS: StashKey[list] = StashKey("biases view: the doubles' score cells")  # .at(decision type)


def compute(scope, cells: bool = True) -> dict:
    """The view's object; ``cells=False``: without the doubles' score cells
    (the summary's card).  What the selection keeps is not changed: the
    object and its ``doubles`` are new dicts, the rest is shared (no reader
    changes a view's object: the renderers read it, the summary's card
    copies what it takes)."""
    sel = scope.selection
    decision_type = scope.filter.decision_type or "all"
    kept = kept_object(sel.stash, BIASES_OBJECT.at(decision_type),
                        lambda: _metrics_biases.biases(sel, None, decision_type, cells=False))
    obj = {**kept, "doubles": dict(kept["doubles"])}
    if cells:
        obj["doubles"]["cells"] = kept_object(sel.stash, DOUBLE_CELLS.at(decision_type),
                                               lambda: _metrics_biases.double_cells(sel, decision_type))
    obj["filter"] = scope.filter_json
    return obj


def interval_text(r: dict) -> str:
    """B's interval, or "no interval (n = N)" (SPEC §7: under 3 decisions
    or without spread there is none, never a zero-width one)."""
    ci = r["ci"]
    return f"no interval (n = {r['n']})" if not ci else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _cell_label(c: dict) -> str:
    return "money" if c["away"] == 0 else f"{c['away']}-away/{c['opp_away']}-away"


HEADERS = ["", "N", "P", "M", "B", "95% interval", "verdict", "cost P mpt", "cost M mpt"]


def _row(label: str, r: dict) -> list:
    return [label, r["n"], r["p"], r["m"], num(r["b"], 3, signed=True), interval_text(r), r["verdict"],
            num(r["cost_p_mpt"], 1), num(r["cost_m_mpt"], 1)]


def biases_text(obj: dict) -> str:
    lines = [scope_line(obj["filter"]),
             "Signed biases: B = (P - M)/N, your rate of the bold action minus the bot's; "
             f"a verdict from {_metrics_biases.MIN_DECISIONS} decisions."]
    for fam in ("take_pass", "doubles", "blots"):
        r = obj[fam]
        p_word, m_word = _metrics_biases.WORDS[fam]
        lines += ["", f"{TITLES[fam]}: P = {p_word}, M = {m_word}"]
        rows = [_row("all", r)]
        if fam == "doubles":
            rows += [_row(_cell_label(c), c) for c in r["cells"]]
        lines.append(table(rows, HEADERS, "lrrrrllrr"))
        if fam == "doubles" and r["cells"]:
            lines.append("Score cells: your away/opponent's away (post-Crawford games read as 1-away).")
        if fam == "blots" and r["not_reproduced"]:
            lines.append(f"Not reproduced (boards unknown, left out): {r['not_reproduced']} "
                         f"({percent(r['not_reproduced_share'])}).")
    return "\n".join(lines)


CSV_HEADERS = ["family", "away", "opp_away", "n", "p", "m", "b", "ci_low", "ci_high", "verdict", "cost_p_mpt",
               "cost_m_mpt", "not_reproduced"]


def _csv_row(fam: str, r: dict, away=None, opp_away=None) -> list:
    ci = r["ci"] or [None, None]
    return [fam, away, opp_away, r["n"], r["p"], r["m"], r["b"], ci[0], ci[1], r["verdict"], r["cost_p_mpt"],
            r["cost_m_mpt"], r.get("not_reproduced")]


def biases_table(obj: dict) -> Table:
    rows = []
    for fam in ("take_pass", "doubles", "blots"):
        rows.append(_csv_row(fam, obj[fam]))
        if fam == "doubles":
            rows += [_csv_row("doubles_cell", c, c["away"], c["opp_away"]) for c in obj[fam]["cells"]]
    return Table(CSV_HEADERS, rows)


def biases_html(obj: dict) -> str:
    """``<section id="biases">``: one table per family, rows under the
    verdict's minimum grey."""
    html = ['<section id="biases"><h2>Signed biases</h2>']
    for fam in ("take_pass", "doubles", "blots"):
        r = obj[fam]
        p_word, m_word = _metrics_biases.WORDS[fam]
        items = [("all", r)] + ([(_cell_label(c), c) for c in r["cells"]] if fam == "doubles" else [])
        html.append(f"<h3>{escape(TITLES[fam])}</h3>"
                    f'<p class="note">P = {escape(p_word)}, M = {escape(m_word)}</p>')
        html.append(table_html([_row(label, x) for label, x in items], HEADERS, "lrrrrllrr",
                               ["grey" if x["n"] < _metrics_biases.MIN_DECISIONS else None for _label, x in items]))
        if fam == "blots" and r["not_reproduced"]:
            html.append(f'<p class="note">Not reproduced: {r["not_reproduced"]} '
                        f'({escape(percent(r["not_reproduced_share"]))}).</p>')
    html.append(f'<p class="note">B = (P − M)/N: your rate of the bold action minus the bot\'s. Verdict from '
                f"{_metrics_biases.MIN_DECISIONS} decisions (grey rows: fewer).</p></section>")
    return "".join(html)


VIEW = View("biases", "signed biases: take/pass, doubles (by score), blots (docs/biases.md)", compute, biases_text,
            table=biases_table, html=biases_html)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
