"""Players views (SPEC §14): the players table, compare, contrast, ranking,
head-to-head and rolling windows, as text, JSON and CSV.

A view never computes a figure: the rows come from ``metrics/players.py``.
Names are user data: in text they are printed as text with control
characters shown escaped (a name cannot move the cursor or colour the
terminal); JSON carries them as they are.
"""

from __future__ import annotations

from typing import Optional

import dataclasses
from dataclasses import dataclass

from ..hookspecs import hookimpl
from ..commands import UserError, View, unknown_player
from ..options import Option, param
from ..metrics.vocabulary import metric as metric_named
from .. import formatting
from ..formatting import (AVOIDABLE_NOTE, DASH, Table, avoidable_text, count_text, interval, num, safe_text, table,
                         table_html, without_empty_periods)
from .table_filters import Column, apply_filters, find_column, parse_sort, parse_where, sort_rows
from ..lazy import lazy

_metrics_players = lazy("gnubg_blunder.metrics.players")
_units = lazy("gnubg_blunder.units")

# -- shared -------------------------------------------------------------------



def metric_words(metric: str) -> str:
    m = metric_named(metric)
    return f"{m.label}: {m.help}"


def scope_text(f: dict, ignored: tuple = ()) -> str:
    """The filter in words; filter keys in ``ignored`` are left out."""
    return formatting.scope_text(f, ignored, everything="every stored match")


def _signed(x, digits=1) -> str:
    return num(x, digits, signed=True)


def _ci_cells(ci) -> list:
    return [None, None] if not ci else [ci[0], ci[1]]


# -- players table --------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One column of the players table, declared once: its JSON key (the
    order here is the JSON's), the header of the text and HTML tables and
    the name ``--sort``/``--where`` take, the digits shown, the CSV column(s)
    (an interval is two: ``KEY_low``, ``KEY_high``), and its row in
    ``compare``: None (not compared), "count" (shown, no verdict) or "rate"
    (a verdict, lower is better)."""

    key: str
    label: str
    kind: str = "number"  # number, text, interval, flag
    digits: Optional[int] = None
    aliases: tuple = ()
    compare: Optional[str] = None
    title: Optional[str] = None  # the compare row's label, when longer than ``label``

    def column(self) -> Column:
        return Column(self.key, self.label, "text" if self.kind == "text" else "number", self.digits, self.aliases)

    def csv_keys(self) -> list:
        return [f"{self.key}_low", f"{self.key}_high"] if self.kind == "interval" else [self.key]

    def csv_cells(self, row: dict) -> list:
        return _ci_cells(row.get(self.key)) if self.kind == "interval" else [row.get(self.key)]


PLAYER_FIELDS = (
    Field("player", "player", "text", aliases=("name",)),
    Field("matches", "matches", digits=0, compare="count"),
    Field("wins", "W", digits=0, aliases=("won", "w"), compare="count", title="wins"),
    Field("losses", "L", digits=0, aliases=("lost", "l"), compare="count", title="losses"),
    Field("undecided", "undecided", digits=0, aliases=("unfinished",)),
    Field("decisions", "decisions", digits=0, aliases=("n",), compare="count"),
    Field("checker_decisions", "checker decisions", digits=0),
    Field("cube_decisions", "cube decisions", digits=0),
    Field("pr", "PR", digits=2, compare="rate"),
    Field("pr_ci", "95% PR", "interval", digits=2, compare="count", title="PR 95% interval"),
    Field("checker_pr", "checker PR", digits=2, aliases=("checker",), compare="rate"),
    Field("cube_pr", "cube PR", digits=2, aliases=("cube",), compare="rate"),
    Field("level", "level", "text"),
    Field("snowie_er", "Snowie ER", digits=2, aliases=("snowie",), compare="rate"),
    Field("errors", "errors", digits=0),
    Field("blunders", "blunders", digits=0, compare="count"),
    Field("blunders_per_100", "blunders/100", digits=1, aliases=("blunder rate",), compare="rate",
          title="blunders per 100 decisions"),
    Field("luck_per_roll", "luck/roll", digits=1, aliases=("luck",), compare="count", title="luck per roll (mpt)"),
    Field("luck_rolls", "luck rolls", digits=0),
    Field("mwc_loss", "MWC lost", digits=2, aliases=("mwc",)),
    Field("l7", "L7", digits=2, aliases=("mwc7",), compare="rate", title="L7 (% points)"),
    Field("l7_ci", "95% L7", "interval", digits=2),
    Field("elo", "Elo", digits=0),
    Field("elo_bound", "Elo is a bound", "flag"),
    Field("tournaments", "tournaments", digits=0),
    # SPEC §6 (kernel.difficulty_figures)
    Field("difficulty", "difficulty", digits=2, title="difficulty Σd (% points)"),
    Field("difficulty_emg", "difficulty EMG", digits=3),
    Field("excess", "excess", digits=2, title="excess Σ(ℓ − d) (% points)"),
    Field("ratio", "ratio", digits=2, title="ratio Σℓ/Σd"),
    Field("avoidable_errors", "avoidable errors", digits=0, aliases=("avoidable",)),
    Field("avoidable_errors_money", "avoidable money errors (EMG)", digits=0, aliases=("avoidable money",)),
    Field("difficulty_truncated", "truncated d", digits=0),
)
PLAYER_KEYS = tuple(f.key for f in PLAYER_FIELDS)  # JSON key order (docs/views-players.md)
PLAYER_COLUMNS = tuple(f.column() for f in PLAYER_FIELDS if f.kind in ("number", "text"))  # --sort, --where
PLAYER_COLUMN = PLAYER_COLUMNS[0]
COMPARE_ROWS = tuple((f.key, f.title or f.label, f.compare == "rate", f.digits) for f in PLAYER_FIELDS if f.compare)
DEFAULT_SORT = ("pr", False)  # best first (seed 002); never measured last
SPLIT_KEYS = ("checker_mwc_loss", "cube_mwc_loss", "checker_l7", "cube_l7")


def player_objects(rows: list, flt: dict, highlight_key: Optional[str], metric: str = "pr") -> list:
    """The rows of ``players``; each carries ``highlight`` (the filter's
    player)."""
    out = []
    for r in rows:
        obj = {k: r[k] for k in PLAYER_KEYS}
        for k in SPLIT_KEYS:
            if k in r:
                obj[k] = r[k]
        obj["highlight"] = highlight_key is not None and r.get("key") == highlight_key
        out.append(obj)
    return out


def _figure_headers(metric):
    if metric == "mwc":
        return ["MWC lost", "checker", "cube"]
    if metric == "mwc7":
        return ["L7", "95% L7", "checker", "cube"]
    return ["PR", "95% PR", "checker", "cube"]


def _figure_cells(o, metric):
    if metric == "mwc":
        return [num(o["mwc_loss"]), num(o.get("checker_mwc_loss")), num(o.get("cube_mwc_loss"))]
    if metric == "mwc7":
        return [num(o["l7"]), interval(o["l7_ci"]) if o["l7_ci"] else DASH, num(o.get("checker_l7")),
                num(o.get("cube_l7"))]
    return [num(o["pr"]), interval(o["pr_ci"]) if o["pr_ci"] else DASH, num(o["checker_pr"]), num(o["cube_pr"])]


def players_text(objs: list, flt: dict, *, total: int, sort: tuple, filters: list, metric: str = "pr",
                 highlight_name: Optional[str] = None) -> str:
    lines = [f"Players — scope: {scope_text(flt, ignored=('player', 'decision_type'))}"]
    if flt.get("decision_type") and flt["decision_type"] != "all":
        lines.append(f"(the decision-type filter ({flt['decision_type']}) does not apply here: "
                     "the columns already split checker and cube)")
    if not objs:
        lines.append("No players in this selection." if not total else
                     f"No player passes the column filters ({total} before them).")
        return "\n".join(lines)
    marked = any(o["highlight"] for o in objs)
    rows = []
    for o in objs:
        rows.append(
            (["*" if o["highlight"] else ""] if marked else [])
            + [safe_text(o["player"]), count_text(o["matches"]),
             f"{o['wins']}–{o['losses']}", count_text(o["decisions"])]
            + _figure_cells(o, metric)
            + [num(o["snowie_er"]), count_text(o["blunders"]), _signed(o["luck_per_roll"])]
            + ([num(o["l7"])] if metric == "pr" else [])
            + [num(o["excess"]), avoidable_text(o)]
        )
    headers = ([""] if marked else []) + (["player", "matches", "W–L", "decisions"] + _figure_headers(metric)
                                          + ["Snowie ER", "blunders", "luck/roll"] + (["L7"] if metric == "pr" else [])
                                          + ["excess", "avoidable"])
    align = ("ll" if marked else "l") + "r" * (len(headers) - (2 if marked else 1))
    lines.append(table(rows, headers, align))
    notes = []
    if metric == "pr":
        notes.append("PR = 500 × Σe / N over counted decisions (XG's counting); 95% interval with matches as units")
        notes.append("L7 = MWC lost per 7-point match (% points, match play only)")
    else:
        notes.append(f"metric: {metric_words(metric)}; checker and cube parts add up")
    notes.append("excess = Σ(ℓ − d) in % points, MWC lost beyond the difficulty d of the positions (match play); "
                 + AVOIDABLE_NOTE)
    notes.append("Snowie ER = the player's error over both players' moves (×500; gnubg prints twice this); "
                 "luck/roll in signed mpt over rolls with known luck; W–L from points (docs/figures.md)")
    key, desc = sort
    shown = f"{len(objs)} of {total} players" if len(objs) != total else f"{total} players"
    sort_note = f"sorted by {key}{' (descending)' if desc else ''}, never-measured (—) last"
    notes.append(f"{shown}; {sort_note}" + (f"; column filters: {'; '.join(filters)}" if filters else ""))
    if highlight_name is not None:
        if any(o["highlight"] for o in objs):
            notes.append(f"* = the filter's player ({safe_text(highlight_name)})")
        else:
            notes.append(f"the filter's player ({safe_text(highlight_name)}) is not among these rows")
    notes.append("— = never measured")
    return "\n".join(lines + notes)


def players_html(obj: dict) -> str:
    """The players table as HTML (``<section id="players">``), in the
    object's order; the filter's player highlighted, not the only row."""
    table_rows, classes = [], []
    for r in obj["players"]:
        table_rows.append([r["player"], r["matches"], f"{r['wins']}–{r['losses']}", r["decisions"],
                           None if r["pr"] is None else f"{r['pr']:.2f}",
                           None if r["checker_pr"] is None else f"{r['checker_pr']:.2f}",
                           None if r["cube_pr"] is None else f"{r['cube_pr']:.2f}",
                           None if r["snowie_er"] is None else f"{r['snowie_er']:.2f}", r["blunders"],
                           None if r["luck_per_roll"] is None else f"{r['luck_per_roll']:+.1f}",
                           None if r["l7"] is None else f"{r['l7']:.2f}"])
        classes.append("highlight" if r.get("highlight") else None)
    if not table_rows:
        return '<section id="players"><h2>Players</h2><p class="muted">No players in this scope.</p></section>'
    return ('<section id="players"><h2>Players</h2>'
            + table_html(table_rows, ["player", "matches", "W–L", "decisions", "PR", "checker PR", "cube PR",
                                      "Snowie ER", "blunders", "luck/roll (mpt)", "L7"], "lrrrrrrrrrr", classes)
            + '<p class="note">Each row is the Σ/Σ of that player\'s match sides. Luck per roll is not skill.</p>'
            "</section>")


def players_table(obj: dict) -> Table:
    """CSV and HTML of ``players``: the columns of PLAYER_FIELDS, then
    ``highlight`` and, with --metric mwc or mwc7, the checker and cube parts."""
    objs = obj["players"]
    extra = [k for k in SPLIT_KEYS if objs and k in objs[0]]
    headers = [k for f in PLAYER_FIELDS for k in f.csv_keys()] + ["highlight"] + extra
    rows = [[c for f in PLAYER_FIELDS for c in f.csv_cells(o)] + [o["highlight"]] + [o[k] for k in extra]
            for o in objs]
    return Table(headers, rows)


# -- compare -----------------------------------------------------------------------

_FIELD = {f.key: f for f in PLAYER_FIELDS}


def _cell(key, x):
    """A value of the players table as text, with its field's digits."""
    f = _FIELD[key]
    if f.kind == "interval":
        return interval(x, f.digits) if x else DASH
    if key == "luck_per_roll":
        return _signed(x, f.digits)
    return count_text(x) if f.digits == 0 else num(x, f.digits)


def compare_object(rows: list, a: dict, b: dict, flt: dict) -> dict:
    names = [a["player"], b["player"]]
    return {
        "players": names,
        "rows": [
            {"key": r["key"], "label": r["label"], "a": r["a"], "b": r["b"], "relative": r["relative"],
             "better": None if r["better"] is None else names[r["better"]]}
            for r in rows
        ],
        "a": {k: a[k] for k in PLAYER_KEYS},
        "b": {k: b[k] for k in PLAYER_KEYS},
        "filter": flt,
    }


def compare_text(obj: dict) -> str:
    f = obj["filter"]
    a, b = obj["players"]
    lines = [f"Compare {safe_text(a)} and {safe_text(b)} — scope: {scope_text(f, ('player', 'decision_type'))}"]
    if f.get("decision_type") and f["decision_type"] != "all":
        lines.append(f"(the decision-type filter ({f['decision_type']}) does not apply: the rows split checker "
                     "and cube)")
    rows = []
    for r in obj["rows"]:
        ca, cb = _cell(r["key"], r["a"]), _cell(r["key"], r["b"])
        if r["better"] is not None:
            if r["better"] == a:
                ca = "*" + ca
            else:
                cb = "*" + cb
        rows.append([r["label"], ca, cb])
    lines.append(table(rows, ["", safe_text(a), safe_text(b)], "lrr"))
    lines.append("* = better (lower) on a relative figure (a rate); counts and luck (not skill) get no verdict; "
                 "a tie at the digits shown, or — (never measured), decides nothing")
    return "\n".join(lines)


def compare_table(obj: dict) -> Table:
    def cell(x):
        return " ".join(repr(v) for v in x) if isinstance(x, list) else x

    return Table(["figure", obj["players"][0], obj["players"][1], "relative", "better"],
                 [[r["key"], cell(r["a"]), cell(r["b"]), r["relative"], r["better"]] for r in obj["rows"]])


# -- contrast ------------------------------------------------------------------------

def contrast_object(rows: list, a: str, b: str, thresholds, flt: dict) -> dict:
    names = [a, b]
    return {
        "players": names,
        "error_threshold_mpt": _units.mpt(thresholds.error),
        "rows": [
            {"position_id": r["position_id"], "kind": r["kind"], "dice": r["dice"], "cube": r["cube"],
             "score": r["score"], "a_worst_mpt": _units.mpt(r["a_worst"]), "b_worst_mpt": _units.mpt(r["b_worst"]),
             "gap_mpt": _units.mpt(r["gap"]),
             "a_count": r["a_count"], "b_count": r["b_count"], "under": names[r["under"]],
             "a_decision_ids": r["a_ids"], "b_decision_ids": r["b_ids"]}
            for r in rows
        ],
        "filter": flt,
    }


def contrast_text(obj: dict) -> str:
    f = obj["filter"]
    a, b = (safe_text(n) for n in obj["players"])
    lines = [
        f"Contrast {a} and {b} — scope: {scope_text(f, ('player',))}",
        f"Positions both decided where one stayed under the error threshold ({obj['error_threshold_mpt']:g} mpt) "
        "and the other did not, each judged by their worst play there; largest gap first.",
    ]
    if not obj["rows"]:
        lines.append("No such position.")
        return "\n".join(lines)
    rows = [[r["position_id"], r["kind"], r["dice"] or DASH, r["cube"], r["score"] or DASH,
             num(r["a_worst_mpt"], 1), num(r["b_worst_mpt"], 1), num(r["gap_mpt"], 1), r["a_count"], r["b_count"]]
            for r in obj["rows"]]
    lines.append(table(rows, ["position ID", "decision", "dice", "cube", "score", f"{a} worst", f"{b} worst",
                              "gap", f"{a} n", f"{b} n"], "lllrlrrrrr"))
    lines.append("worst and gap in mpt; n = counted decisions of each in that decision: same position, kind "
                 "(checker, cube offer, cube response), cube and score (the decider's points before the game; "
                 "C = Crawford), and for a checker play the same dice")
    return "\n".join(lines)


CONTRAST_KEYS = ("position_id", "kind", "dice", "cube", "score", "a_worst_mpt", "b_worst_mpt", "gap_mpt", "a_count",
                 "b_count", "under")


def contrast_table(obj: dict) -> Table:
    return Table(CONTRAST_KEYS, [[r.get(k) for k in CONTRAST_KEYS] for r in obj["rows"]])


# -- ranking ------------------------------------------------------------------------

def _metric_key(metric: str) -> tuple:
    """(figure key, interval key, short label) of a metric."""
    m = metric_named(metric)
    return m.figure, m.interval, m.short if m.key != "mwc" else m.label


def ranking_object(ranked: list, left_out: int, min_decisions: int, metric: str, flt: dict) -> dict:
    return {
        "metric": metric,
        "min_decisions": min_decisions,
        "left_out": left_out,
        "rows": [dict({k: r[k] for k in PLAYER_KEYS}, rank=r["rank"]) for r in ranked],
        "filter": flt,
    }


def ranking_text(obj: dict) -> str:
    f = obj["filter"]
    key, ci_key, label = _metric_key(obj["metric"])
    lines = [f"Ranking by {label} (lower is better) — scope: {scope_text(f, ('player', 'decision_type'))}; "
             f"players with at least {obj['min_decisions']} decision{'s' if obj['min_decisions'] != 1 else ''}"]
    if f.get("decision_type") and f["decision_type"] != "all":
        lines.append(f"(the decision-type filter ({f['decision_type']}) does not apply: the ranking is on all "
                     "decisions)")
    if obj["rows"]:
        rows = []
        for r in obj["rows"]:
            ci = r.get(ci_key) if ci_key else None
            rows.append([r["rank"], safe_text(r["player"]), num(r[key]),
                         (interval(ci) if ci else DASH) if ci_key else "", r["decisions"], r["matches"],
                         r["level"] or DASH])
        headers = ["#", "player", label, f"95% {label}" if ci_key else "", "decisions", "matches", "level (PR)"]
        lines.append(table(rows, headers, "rlrrrrl"))
    else:
        lines.append("No player qualifies.")
    if obj["left_out"]:
        lines.append(f"{obj['left_out']} player{'s' if obj['left_out'] != 1 else ''} left out "
                     f"(fewer than {obj['min_decisions']} decisions, or no {label})")
    lines.append(f"metric: {metric_words(obj['metric'])}; level bands are this project's reference, "
                 "not a published norm")
    return "\n".join(lines)


def ranking_table(obj: dict) -> Table:
    key, ci_key, _ = _metric_key(obj["metric"])
    rows = []
    for r in obj["rows"]:
        ci = _ci_cells(r.get(ci_key)) if ci_key else [None, None]
        rows.append([r["rank"], r["player"], r[key], ci[0], ci[1], r["decisions"], r["matches"], r["level"]])
    return Table(["rank", "player", key, f"{key}_ci_low", f"{key}_ci_high", "decisions", "matches", "level"], rows)


# -- head to head -------------------------------------------------------------------

def h2h_object(res: dict, a: str, b: str, metric: str, flt: dict) -> dict:
    names = [a, b]
    return {
        "players": names,
        "metric": metric,
        "matches": res["matches"],
        "won": res["won"],
        "undecided": res["undecided"],
        "points": res["points"],
        "sides": [dict(s, player=n) for s, n in zip(res["sides"], names)],
        "rows": [dict(r, winner=None if r["winner"] is None else names[r["winner"]]) for r in res["rows"]],
        "filter": flt,
    }


def h2h_text(obj: dict) -> str:
    f = obj["filter"]
    a, b = (safe_text(n) for n in obj["players"])
    key, ci_key, label = _metric_key(obj["metric"])
    lines = [f"Head to head: {a} v {b} — scope: {scope_text(f, ('player',))}"]
    if not obj["matches"]:
        lines.append("No match between them in this selection.")
        return "\n".join(lines)
    sa, sb = obj["sides"]
    summary = [
        ["matches won", obj["won"][0], obj["won"][1]],
        ["points", obj["points"][0], obj["points"][1]],
        ["decisions", sa["decisions"], sb["decisions"]],
        [label, num(sa[key]), num(sb[key])],
    ]
    if ci_key:
        summary.append([f"95% {label}", interval(sa[ci_key]) if sa[ci_key] else DASH,
                        interval(sb[ci_key]) if sb[ci_key] else DASH])
    lines.append(f"{obj['matches']} common match{'es' if obj['matches'] != 1 else ''}"
                 + (f", {obj['undecided']} undecided (unfinished or equal)" if obj["undecided"] else ""))
    lines.append(table(summary, ["", a, b], "lrr"))
    rows = []
    for r in obj["rows"]:
        rows.append([r["id"], r["date"] or DASH, safe_text(r["event"]) if r["event"] else DASH,
                     "money" if r["length"] == 0 else r["length"], f"{r['score'][0]}–{r['score'][1]}",
                     safe_text(r["winner"]) if r["winner"] else DASH,
                     r["decisions"][0], num(r[key][0]), r["decisions"][1], num(r[key][1])])
    lines.append("")
    lines.append(table(rows, ["id", "date", "event", "length", "score", "winner", f"{a} n", f"{a} {label}",
                              f"{b} n", f"{b} {label}"], "llllllrrrr"))
    lines.append(f"{label}: Σ/Σ over the common matches (matches as units); points = final scores added up "
                 "(match play and money alike); winner from points (docs/figures.md)")
    return "\n".join(lines)


def h2h_table(obj: dict) -> Table:
    key, _, _ = _metric_key(obj["metric"])
    a, b = obj["players"]
    rows = [[r["id"], r["date"], r["event"], r["length"], r["score"][0], r["score"][1], r["winner"],
             r["decisions"][0], r[key][0], r["decisions"][1], r[key][1]] for r in obj["rows"]]
    return Table(["id", "date", "event", "length", f"score {a}", f"score {b}", "winner",
                  f"decisions {a}", f"{key} {a}", f"decisions {b}", f"{key} {b}"], rows)


# -- windows -------------------------------------------------------------------------

WINDOW_KEYS = ("start", "end", "partial", "matches", "decisions", "pr", "pr_ci", "checker_pr", "cube_pr",
               "mwc_loss", "l7", "l7_ci")


def windows_object(res: dict, metric: str, flt: dict) -> dict:
    return {
        "months": res["months"],
        "metric": metric,
        "player": flt.get("player"),
        "undated": res["undated"],
        "windows": [{k: w[k] for k in WINDOW_KEYS} for w in res["windows"]],
        "filter": flt,
    }


def windows_text(obj: dict) -> str:
    f = obj["filter"]
    key, ci_key, label = _metric_key(obj["metric"])
    who = safe_text(f["player"]) if f.get("player") else "everyone (both sides of every match)"
    lines = [f"{label} per rolling {obj['months']}-month window, {who} — scope: {scope_text(f, ('player',))}"]
    if not obj["windows"]:
        lines.append("No dated match in this selection.")
    else:
        rows = []
        shown, left_out = without_empty_periods(obj["windows"], lambda w: not w["matches"], "window", "any match")
        for w in shown:
            ci = w.get(ci_key) if ci_key else None
            rows.append([w["start"] + (" …" if w["partial"] else ""), w["end"], w["matches"], w["decisions"],
                         num(w[key])] + ([interval(ci) if ci else DASH] if ci_key else []))
        headers = ["from", "to", "matches", "decisions", label] + ([f"95% {label}"] if ci_key else [])
        lines.append(table(rows, headers, "llrrr" + ("r" if ci_key else "")))
        lines.append("one window ending at each month end; … = the window starts before the first dated match")
        if left_out:
            lines.append(left_out)
    if obj["undated"]:
        lines.append(f"undated matches left out: {obj['undated']}")
    lines.append(f"metric: {metric_words(obj['metric'])}")
    return "\n".join(lines)


def windows_table(obj: dict) -> Table:
    rows = []
    for w in obj["windows"]:
        pc, lc = _ci_cells(w["pr_ci"]), _ci_cells(w["l7_ci"])
        rows.append([w["start"], w["end"], w["partial"], w["matches"], w["decisions"], w["pr"], pc[0], pc[1],
                     w["mwc_loss"], w["l7"], lc[0], lc[1]])
    return Table(["start", "end", "partial", "matches", "decisions", "pr", "pr_ci_low", "pr_ci_high",
                  "mwc_loss", "l7", "l7_ci_low", "l7_ci_high"], rows)


# -- the views ------------------------------------------------------------------------

def _all_players(scope):
    """The filter's matches of every player: the filter's player does not
    restrict (it is highlighted, or the view names its players).  Without
    a player in the filter that is the scope's own selection (read once)."""
    if scope.filter.player is None:
        return scope.selection
    return scope.select(dataclasses.replace(scope.filter, player=None))


def _resolve(scope, players, name):
    g = players.index(_metrics_players.player_key(name, scope.store.aliases()))
    if g is None:
        raise unknown_player(name, players.names, "match of this selection")
    return g


def _refuse_engine_depth(scope, view):
    flt = scope.filter
    if flt.engine is None and flt.min_depth is None:
        return
    raise UserError(f"{view} does not take the engine/depth filter (--engine, --min-depth): it compares matches "
                    f"analysed by different engines and depths, each with its own analysis"
                    f"{flt.origin('engine', 'min_depth')}")


def _two_selected(scope, two: "TwoPlayers", refuse_engine_depth_for=None) -> tuple:
    """The selection of every player, the players, and the indexes of
    players A and B (two different ones)."""
    if refuse_engine_depth_for:
        _refuse_engine_depth(scope, refuse_engine_depth_for)
    sel = _all_players(scope)
    players = _metrics_players.players_of(sel)
    a, b = _resolve(scope, players, two.a), _resolve(scope, players, two.b)
    if a == b:
        raise UserError(f"{two.a!r} and {two.b!r} are the same player")
    return sel, players, a, b


@dataclass
class TwoPlayers:
    """The two players of ``compare``, ``contrast`` and ``h2h``."""

    a: Optional[str] = param(Option(("a",), metavar="A", help="a player (aliases merged, names without case)"))
    b: Optional[str] = param(Option(("b",), metavar="B", help="another player"))


# players

@dataclass
class PlayersParams:
    """``players``' own options."""

    sort: Optional[str] = param(Option(("--sort",), metavar="COLUMN[:desc]",
                                       help="sort by a column (default pr, best first); players with no data (—) "
                                            "last either way"))
    where: Optional[list] = param(Option(("--where",), metavar="COLUMN=FILTER", repeat=True,
                                         help="column filter: >=500, >500, <2.5, <=2, 3-7 (inclusive), 5 (exact), "
                                              "or a name fragment for text columns; repeat for several (all must "
                                              "pass)"))  # None: none given


def players_compute(scope, params: PlayersParams) -> dict:
    filters = [parse_where(w, PLAYER_COLUMNS) for w in params.where or ()]  # a FilterError is the user's one line
    if params.sort:
        sort_col, desc = parse_sort(params.sort, PLAYER_COLUMNS)
    else:
        sort_col, desc = find_column(DEFAULT_SORT[0], PLAYER_COLUMNS), DEFAULT_SORT[1]
    flt = scope.filter
    sel = _all_players(scope)
    players = _metrics_players.players_of(sel)
    rows = _metrics_players.player_rows(sel, scope.thresholds, splits=scope.metric != "pr", players=players)
    hkey = _metrics_players.player_key(flt.player, scope.store.aliases()) if flt.player else None
    objs = player_objects(rows, flt.to_json(), hkey, scope.metric)
    total = len(objs)
    objs = sort_rows(apply_filters(objs, filters), sort_col, desc, tiebreak=PLAYER_COLUMN)
    return {"metric": scope.metric, "players": objs, "total": total,
            "sort": {"column": sort_col.key, "descending": desc},
            "column_filters": [f.describe() for f in filters], "highlight": flt.player, "filter": flt.to_json()}


def players_view_text(obj: dict) -> str:
    return players_text(obj["players"], obj["filter"], total=obj["total"],
                        sort=(obj["sort"]["column"], obj["sort"]["descending"]), filters=obj["column_filters"],
                        metric=obj["metric"], highlight_name=obj["highlight"])


# compare

def compare_compute(scope, two: TwoPlayers) -> dict:
    sel, players, a, b = _two_selected(scope, two)
    rows = _metrics_players.player_rows(sel, scope.thresholds, players=players)
    return compare_object(_metrics_players.compare(rows[a], rows[b], COMPARE_ROWS), rows[a], rows[b], scope.filter_json)


# contrast

def contrast_compute(scope, two: TwoPlayers) -> dict:
    sel, players, a, b = _two_selected(scope, two)
    rows = _metrics_players.contrast(sel, players, a, b, scope.thresholds, scope.filter.decision_type)
    return contrast_object(rows, players.names[a], players.names[b], scope.thresholds, scope.filter_json)


# ranking

@dataclass
class RankingParams:
    """``ranking``'s own option."""

    min_decisions: int = param(Option(("--min-decisions",), type=int, metavar="N",
                                      help="only players with at least N counted decisions (default 1)"), default=1)


def ranking_compute(scope, params: RankingParams) -> dict:
    n = params.min_decisions
    if n < 0:
        raise UserError("--min-decisions: a number of decisions, 0 or more")
    rows = _metrics_players.player_rows(_all_players(scope), scope.thresholds)
    ranked, left_out = _metrics_players.ranking(rows, n, scope.metric)
    return ranking_object(ranked, left_out, n, scope.metric, scope.filter_json)


# h2h

def h2h_compute(scope, two: TwoPlayers) -> dict:
    sel, players, a, b = _two_selected(scope, two, refuse_engine_depth_for="h2h")
    res = _metrics_players.head_to_head(sel, players, a, b, scope.thresholds, scope.filter.decision_type)
    return h2h_object(res, players.names[a], players.names[b], scope.metric, scope.filter_json)


# windows

@dataclass
class WindowsParams:
    """``windows``' own option."""

    months: int = param(Option(("--months",), type=int, choices=(1, 3, 6, 12),
                               help="window length in calendar months (default 3)"), default=3)


def windows_compute(scope, params: WindowsParams) -> dict:
    _refuse_engine_depth(scope, "windows")
    res = _metrics_players.windows(scope.selection, params.months, scope.thresholds, scope.filter.decision_type)
    return windows_object(res, scope.metric, scope.filter_json)


VIEWS = (
    View("players", "one row per player: matches, W–L, decisions, PR, Snowie ER, luck, L7",
         players_compute, players_view_text, table=players_table, html=players_html, params=PlayersParams,
         metric=True),
    View("compare", "two players side by side, with a verdict on relative figures",
         compare_compute, compare_text, table=compare_table, params=TwoPlayers),
    View("contrast", "positions two players both decided where only one stayed under the error threshold",
         contrast_compute, contrast_text, table=contrast_table, params=TwoPlayers),
    View("ranking", "players by PR (or --metric), with a minimum number of decisions",
         ranking_compute, ranking_text, table=ranking_table, params=RankingParams, metric=True),
    View("h2h", "head to head: two players' common matches, each side's PR, the score",
         h2h_compute, h2h_text, table=h2h_table, params=TwoPlayers, metric=True),
    View("windows", "PR per rolling calendar window (1, 3, 6 or 12 months)",
         windows_compute, windows_text, table=windows_table, params=WindowsParams, metric=True),
)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    for view in VIEWS:
        registry.add(view)
