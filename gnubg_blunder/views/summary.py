"""``summary``: what is my level (SPEC §14), as text, JSON or HTML (the
report's summary section).

Renders :func:`gnubg_blunder.metrics.summary.summary_figures`; computes
nothing.  (``views/match_summary.py`` is the console match summary.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Callable, Optional

from ..hookspecs import hookimpl
from ..commands import UserError, View
from ..options import Option, param
from ..game_record import place_text
from ..metrics.vocabulary import metric as metric_named
from .biases import compute as biases_compute, interval_text
from ..formatting import DASH, POOLED, elo_text, folded, html_text, interval, num, scope_text, table_html
from .positions import (DEFAULT_LIMIT, attach_moves, decisions_table, listing, parse_limit, positions_object,
                        positions_text)
from ..plugins import first_registered, get_plugin_manager
from ..lazy import lazy

_arrays = lazy("gnubg_blunder.arrays")
_board_moves = lazy("gnubg_blunder.board.moves")
_board_position = lazy("gnubg_blunder.board.position")
_board_svg = lazy("gnubg_blunder.board.svg")
_codec_candidates = lazy("gnubg_blunder.codec.candidates")
_metrics_summary = lazy("gnubg_blunder.metrics.summary")


def band_text(level) -> str:
    if not level:
        return DASH
    lo, hi = level["low"], level["high"]
    if lo is None:
        span = f"PR below {hi:g}"
    elif hi is None:
        span = f"PR {lo:g} and above"
    else:
        span = f"PR {lo:g}–{hi:g}"
    return f"{level['name']} ({span})"


def summary_object(fig: dict, flt, metric: str = "pr", listing: dict = None) -> dict:
    """The JSON of ``summary``: the figures of ``summary_figures`` with
    ``metric``, ``level_note``, ``filter`` (and ``list`` with ``--list``)."""
    out = dict(fig)
    out["metric"] = metric
    out["level_note"] = _metrics_summary.BANDS_NOTE
    out["filter"] = flt.to_json()
    if listing is not None:
        out["list"] = listing
    return out


def _plural(n: int, word: str, plural: str = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _headline(obj: dict) -> list:
    metric = obj["metric"]
    lines = [f"Metric: {metric_named(metric).help}"]
    if metric == "pr":
        lines.append(f"PR {num(obj['pr'])}  95% {interval(obj['pr_ci'])}   "
                     f"checker {num(obj['checker_pr'])}   cube {num(obj['cube_pr'])}")
    elif metric == "mwc":
        if obj["mwc_loss"] is None:
            lines.append("MWC lost: — (money play only: no MWC)")
        else:
            lines.append(f"MWC lost {num(obj['mwc_loss'])} % points = checker {num(obj['checker_mwc_loss'])} "
                         f"+ cube {num(obj['cube_mwc_loss'])}")
    else:
        if obj["l7"] is None:
            lines.append("MWC-7: — (money play only: no L7)")
        else:
            lines.append(f"MWC-7 (L7) {num(obj['l7'])} % points  95% {interval(obj['l7_ci'])}  "
                         f"= checker {num(obj['checker_l7'])} + cube {num(obj['cube_l7'])}   "
                         f"Elo against the engine {elo_text(obj['elo'], obj['elo_bound'])}")
    if metric != "mwc7":
        if obj["l7"] is None:
            lines.append("L7: — (money play has no L7)")
        else:
            lines.append(f"L7 {num(obj['l7'])} % points  95% {interval(obj['l7_ci'])}   "
                         f"Elo against the engine {elo_text(obj['elo'], obj['elo_bound'])}")
    if metric != "pr":
        lines.append(f"PR {num(obj['pr'])}  95% {interval(obj['pr_ci'])}")
    if metric != "pr" and obj.get("money_decisions"):
        lines.append(f"  ({_plural(obj['money_decisions'], 'money decision')} counted in PR, "
                     "without MWC: money play has none)")
    return lines


def _rolling_lines(obj: dict) -> list:
    metric = obj["metric"]
    key = "pr" if metric == "pr" else "mwc_loss"
    name = "PR" if metric == "pr" else "MWC lost"
    cells_n, cells_v = ["last N"], [name]
    any_exceeds = False
    for r in obj["rolling"]:
        mark = "*" if r["exceeds"] else ""
        any_exceeds |= r["exceeds"]
        cells_n.append(f"{r['n']}{mark}")
        cells_v.append(num(r[key]))
    width = [max(len(a), len(b)) for a, b in zip(cells_n, cells_v)]
    lines = [f"Rolling {name} over the last N decisions (match date, undated matches by import time, then move order):",
             "  " + "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells_n, width))),
             "  " + "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells_v, width)))]
    if any_exceeds:
        lines.append(f"  * N exceeds the {_plural(obj['decisions'], 'decision')} there "
                     f"{'is' if obj['decisions'] == 1 else 'are'}: computed on all of them.")
    if metric == "mwc7":
        lines.append("  (MWC-7 has no per-decision equivalent: the rolling figure is MWC lost, % points.)")
    elif metric == "mwc":
        lines.append("  (% points, over the match-play decisions among the last N; — when all are money.)")
    return lines


def summary_text(obj: dict) -> str:
    lines = [f"Summary — scope: {scope_text(obj['filter'])}"]
    if not obj["decisions"]:
        lines.append(f"{_plural(obj['matches'], 'match', 'matches')}; no counted decisions.")
        return "\n".join(lines)
    lines += _headline(obj)
    # a level is one player's: without --player the PR is both sides' and so is its band
    pooled = "" if obj["filter"].get("player") else f" ({POOLED})"
    lines.append(f"Level{pooled}: {band_text(obj['level_band'])} — {_metrics_summary.BANDS_NOTE}")
    lines.append(
        f"Counts: {_plural(obj['tournaments'], 'tournament')}, {_plural(obj['matches'], 'match', 'matches')}, "
        f"{_plural(obj['decisions'], 'decision')} (checker {obj['checker_decisions']}, cube {obj['cube_decisions']}); "
        f"{_plural(obj['errors'], 'error')}, {_plural(obj['blunders'], 'blunder')} (list them: --list errors)"
    )
    for card in summary_cards():
        if obj.get(card.name):
            lines.append(card.text(obj[card.name]))
    lines.append("")
    lines += _rolling_lines(obj)
    lines.append("")
    if obj["top"]:
        few = "" if len(obj["top"]) >= 10 else f" (only {len(obj['top'])} decisions have an error)"
        order = ("by error, ties by MWC lost" if obj["metric"] == "pr"
                 else "by MWC lost (money decisions last), ties by error")
        lines.append(f"The {len(obj['top'])} costliest decisions{few}, {order}, then match order:")
        lines.append(decisions_table(obj["top"], numbered=True))
        lines.append("(e in millipoints; MWC % = match winning chances lost, — for money; "
                     "game and move counted from 1)")
    else:
        lines.append("No decision with an error: no costliest decisions.")
    if obj.get("list") is not None:
        lines.append("")
        lines.append(positions_text(obj["list"], obj["list"].get("title") or "Listed"))
    return "\n".join(lines)


@dataclass(frozen=True)
class SummaryCard:
    """A card of the summary (hookspecs.register_summary_cards): its key in
    the summary's object, ``compute(scope) -> dict`` (falsy: no card),
    ``text(card) -> str``, ``html(card) -> str``, its order."""

    name: str
    compute: Callable
    text: Callable
    html: Callable
    order: int = 100


def summary_cards(pm=None) -> list:
    """The cards of every plugin, by order then name; the first registered
    under a name is kept (an installed plugin's replaces a built-in)."""
    pm = pm or get_plugin_manager()
    found, register = first_registered(SummaryCard)
    pm.hook.register_summary_cards(register=register)
    return sorted(found.values(), key=lambda c: (c.order, c.name))


BIAS_NAMES = (("take_pass", "take/pass"), ("doubles", "doubles"), ("blots", "blots"))


def biases_card_text(b: dict) -> str:
    """The signed-biases card: B and the verdict of each family (SPEC §12;
    the ``biases`` view has the rest)."""
    parts = [f"{name} B {num(b[key]['b'], 2, signed=True)} {b[key]['verdict']} (N {b[key]['n']})"
             for key, name in BIAS_NAMES]
    return "Signed biases: " + "; ".join(parts) + " (details: biases)"


def biases_card_html(b: dict) -> str:
    rows = [[name, b[key]["n"], num(b[key]["b"], 3, signed=True),
             interval_text(b[key]), b[key]["verdict"]]
            for key, name in BIAS_NAMES]
    return ('<h3 id="biases-card">Signed biases</h3>'
            + table_html(rows, ["", "N", "B", "95% interval", "verdict"], "lrrll",
                         ["grey" if b[key]["verdict"] == "insufficient" else None for key, _n in BIAS_NAMES])
            + '<p class="note">B = (P − M)/N: your rate of the bold action (take, double, leave a blot) minus '
              "the bot's; a verdict from 20 decisions.</p>")


def decision_diagram(record: dict, row: dict) -> str:
    """The board of a costly decision (a drill-down ``record``, its store
    ``row`` from ``decision_rows``): the played checker move drawn as arrows
    (from the analysis' candidate list), the cube and dice shown."""
    if not record.get("position_id"):
        return ""
    board = _board_position.Board.from_position_id(record["position_id"])
    dice = (row.get("dice1"), row.get("dice2")) if row.get("dice1") else None
    p = row.get("player") or 0
    names = (record["players"][p], record["players"][1 - p]) if record.get("players") else None
    return _board_svg.board_svg(board, cube_value=row.get("cube_value") or 1, cube_owner=cube_side(row), dice=dice,
                     move_steps=played_steps(board, row), width=420, player_names=names,
                     title=f"Match {record['match_id']}, game {record['game']}, move {record['move']} "
                           f"(gnubg {place_text(record.get('gnubg_row'), record.get('player'))})")


def cube_side(row: dict) -> int:
    """Where a stored decision ``row``'s cube is drawn on its board (the
    decider on roll, :func:`~gnubg_blunder.board.svg.board_svg`'s
    ``cube_owner``): 0 the decider owns it, 1 the opponent, -1 centred."""
    owner = row.get("cube_owner", -1)
    return 0 if owner == row.get("player") else (1 if owner in (0, 1) else -1)


def played_steps(board, row: dict):
    """The steps ``(from, to)`` of the checker play made at a stored
    decision ``row`` on ``board`` (the decider on roll): the legal play whose
    result is the played candidate's position; None for a cube decision or
    when the candidate list does not say."""
    dice = (row.get("dice1"), row.get("dice2")) if row.get("dice1") else None
    if row.get("kind") != "checker" or not dice or not row.get("candidates") or row.get("played_index") is None:
        return None
    played = _codec_candidates.decode_row(row)[row["played_index"]].get("position_id")
    for play in _board_moves.legal_plays(board, *dice):
        if play.result.position_id() == played:
            return play.steps
    return None


def decision_details(records: list, store) -> dict:
    """{row_id: {"diagram": SVG board, "comment": the decision's comment}}
    of drill-down records, read from ``store.decision_rows`` (what
    :func:`summary_html` draws beside each costly decision)."""
    rows = {r["id"]: r for r in store.decision_rows([t["row_id"] for t in records])}
    return {t["row_id"]: {"diagram": decision_diagram(t, rows.get(t["row_id"], {})),
                          "comment": rows.get(t["row_id"], {}).get("comment")} for t in records}


def summary_html(obj: dict, details: dict = None) -> str:
    """The summary as HTML (``<section id="summary">``): PR over the last N
    decisions and the costliest decisions, each with its board and comment
    when ``details`` (:func:`decision_details`) gives them."""
    details = details or {}
    # a note column only where a row needs one (N more than the decisions there are)
    noted = any(r["exceeds"] for r in obj["rolling"])
    rows = [[r["n"], r["decisions"], None if r["pr"] is None else f"{r['pr']:.2f}"]
            + (["N exceeds the decisions there are: all of them" if r["exceeds"] else ""] if noted else [])
            for r in obj["rolling"]]
    classes = ["grey" if r["exceeds"] else None for r in obj["rolling"]]
    html = ['<section id="summary"><h2>Summary</h2><h3>PR over the last N decisions</h3>',
            table_html(rows, ["last N", "decisions", "PR"] + (["note"] if noted else []), "rrrl", classes),
            *(card.html(obj[card.name]) for card in summary_cards() if obj.get(card.name)),
            ]
    heading = f'<h3 id="costliest">The {len(obj["top"])} costliest decisions</h3>'
    if not obj["top"]:
        html += [heading, '<p class="muted">No decision with an error in this scope.</p>']
    decisions = []
    for t in obj["top"]:
        extra = details.get(t["row_id"], {})
        facts = (
            f'<div class="facts"><b>#{t["rank"]}</b> — {html_text(t["player"])}, '
            f'{escape(t["kind"])}<br>cost {t["error_mpt"]:.1f} mpt'
            + ("" if t["mwc_loss"] is None else f", {t['mwc_loss']:.2f} % MWC")
            + f'<br>played: {escape(str(t.get("played") or DASH))}<br>'
            f'best: {escape(str(t.get("best") or DASH))}<br>'
            f'match {t["match_id"]} ({html_text(t["players"][0])} v {html_text(t["players"][1])}, '
            f'<span class="date">{escape(t["date"] or "undated")}</span>), '
            f'game {t["game"]}, move {t["move"]} '
            f'(gnubg {place_text(t.get("gnubg_row"), html_text(t["player"]))})<br><span class="muted">{escape(t["position_id"] or "")}</span>'
            + (f'<br><i>{html_text(extra["comment"])}</i>' if extra.get("comment") else "")
            + "</div>"
        )
        decisions.append(f'<div class="decision">{extra.get("diagram", "")}{facts}</div>')
    if decisions:  # folded: the ten boards are the page's longest part
        html.append(folded(heading + ' <span class="k">(each on its board: click to unfold)</span>', "".join(decisions)))
    html.append("</section>")
    return "".join(html)


_LIST = re.compile(r"decisions|errors|blunders|top|last(\d+)")


@dataclass
class SummaryParams:
    """``summary``'s own options."""

    list: Optional[str] = param(Option(
        ("--list",), nargs="?", const="errors", metavar="WHAT",
        help="also list the decisions behind a count: errors (default), blunders, decisions, "
             "top, or lastN (e.g. last50: the decisions of a rolling figure)"))
    limit: str = param(Option(("--limit",), metavar="N",
                              help=f"at most N listed decisions (default {DEFAULT_LIMIT}; 0 = all)"),
                       default=str(DEFAULT_LIMIT))  # as written: parse_limit reads it (0 = all)


# the decision columns the summary's figures, biases and plan cards all read (kept between them)
SUMMARY_COLUMNS = ("error", "difficulty", "kind", "game_plan")


def compute(scope, params: SummaryParams) -> dict:
    limit = parse_limit(params.limit)
    what = params.list
    m = _LIST.fullmatch(what.lower()) if what else None
    if what and not m:
        raise UserError(f"--list {what!r}: choose errors, blunders, decisions, top or lastN (e.g. last50)")
    flt = scope.filter
    fig = _metrics_summary.summary_figures(scope.selection, scope.thresholds, flt.decision_type, metric=scope.metric)
    attach_moves(fig["top"], scope.store)
    listed = None
    if what:
        word = what.lower()
        if word == "top":
            top_n = _metrics_summary.TOP_N
            listed = positions_object(fig["top"], len(fig["top"]), flt, {"top": top_n}, top_n)
            listed["title"] = f"The {_metrics_summary.TOP_N} costliest"
        elif m.group(1):
            n = int(m.group(1))
            if n <= 0:
                raise UserError("--list lastN: N must be 1 or more")
            listed = listing(scope, {"severity": "decisions", "last": n}, limit, order="play")
            listed["title"] = f"The last {n} decisions"
        else:
            listed = listing(scope, {"severity": word}, limit)
            listed["title"] = word.capitalize()
    # each card reads the columns it names again: the figures' columns are let go first (peak memory), but
    # those the next cards read again (1.6 M decisions: about 30 MB kept, 0.04 s of reads saved)
    cards = summary_cards()
    for i, card in enumerate(cards):
        _arrays.release_columns(scope.selection, keep_decisions=SUMMARY_COLUMNS if i < len(cards) - 1 else ())
        fig[card.name] = card.compute(scope)
    return summary_object(fig, flt, scope.metric, listed)


def biases_card(scope) -> dict:
    """The three families of the ``biases`` view (n, p, m, b, ci, verdict,
    costs), without the score cells."""
    b = biases_compute(scope, cells=False)
    return {key: dict(b[key]) for key, _name in BIAS_NAMES}


VIEW = View("summary", "level, rolling PR and the costliest decisions of a selection", compute, summary_text,
            html=summary_html, params=SummaryParams, metric=True)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)


@hookimpl
def register_summary_cards(register):
    register("biases", biases_card, biases_card_text, biases_card_html, order=10)
