"""``matches``: one object per match with its per-side figures (the keys
other checks read are documented in docs/commands.md)."""

from __future__ import annotations

from dataclasses import dataclass

from ..hookspecs import hookimpl
from ..commands import View, count_option
from ..options import Option, param
from ..formatting import AVOIDABLE_NOTE, DASH, Table, avoidable_text, elo_text, num, safe_text, scope_text, table, \
    table_html
from ..lazy import lazy

_metrics_figures = lazy("gnubg_blunder.metrics.figures")


def match_objects(selection, thresholds, last: int = 0) -> list:
    """The objects of the matches of ``selection`` (in its order: by date),
    with ``last``, of its ``last`` most recent ones alone (0: all)."""
    first = max(0, selection.n_matches - last) if last else 0
    wanted = None if not first else range(first, selection.n_matches)
    sides = _metrics_figures.per_side(selection, thresholds, wanted)
    out = []
    for i, m in enumerate(selection.matches[first:]):
        used = {"engine": m.engine, "depth": m.depth_label}
        out.append(
            {
                "id": m.id,
                "players": list(m.players),
                "length": m.length,
                "date": m.date,
                "event": m.event,
                "winner": None if m.winner is None else m.players[m.winner],
                "final_score": list(m.final_score),
                "games": m.n_games,
                "source": m.source,
                "analyses": m.analyses,
                "analysis_used": used,
                "sides": [
                    dict(s, analyses=m.analyses, analysis_used=used) for s in sides[2 * i: 2 * i + 2]
                ],
            }
        )
    return out


def compute(scope, params: MatchesParams) -> dict:
    """``matches``: {"matches": [one object per match], "filter"}; with
    ``--last N`` also "last" (N) and "in_scope" (how many matches the scope
    holds: the ones left out are the earlier ones)."""
    last = count_option(params.last, "--last")
    obj = {"matches": match_objects(scope.selection, scope.thresholds, last)}
    if last:
        obj.update(last=last, in_scope=scope.selection.n_matches)
    obj["filter"] = scope.filter_json
    return obj


@dataclass
class MatchesParams:
    """``matches``' own option."""

    last: str = param(Option(("--last",), metavar="N", help="only the N most recent matches of the scope "
                                                            "(default 0: all)"),
                      default="0")  # as written: count_option reads it (0 = all)


def _screen(value, digits: int, signed: bool = False, negated: bool = False, percent: bool = False) -> str:
    """A figure as gnubg's statistics screen prints it: ``digits`` decimals,
    errors negated ("-1.516", and "-0.000" for none, as gnubg), luck with
    its sign, "—" where unknown."""
    if value is None:
        return DASH
    value = -value if negated else value
    return f"{value:{'+' if signed else ''}.{digits}f}" + ("%" if percent else "")


def gnubg_own_text(gnubg, money: bool, engine: str) -> str:
    """A side's gnubg figures (the ``gnubg`` object of ``matches --format
    json``) under the names of gnubg's ``show statistics match`` screen
    (Overall, Chequerplay, Cube and Luck statistics), signs and decimals as
    it prints them; the bracket of a figure is its MWC in match play, gnubg's
    "Points" in money, which are not computed here ("—")."""
    if gnubg is None:
        why = "no decision gnubg analysed" if engine == "gnubg" else f"the analysis used is {engine}'s"
        return f"{DASH} ({why})"
    unit = "Points" if money else "MWC"

    def bracket(mwc, **fmt):
        return f"({DASH if money else _screen(mwc, 3, percent=True, **fmt)})"

    luck = f"Luck total EMG ({unit}) {DASH}" if gnubg["luck_emg"] is None else (
        f"Luck total EMG ({unit}) {_screen(gnubg['luck_emg'], 3, signed=True)} "
        + bracket(gnubg["luck_mwc"], signed=True))
    return "; ".join([
        f"Error total EMG ({unit}) {_screen(gnubg['error_emg'], 3, negated=True)} "
        + bracket(gnubg["mwc_loss"], negated=True),
        f"Error rate mEMG ({unit}) {_screen(gnubg['error_rate_memg'], 1, negated=True)} "
        + bracket(gnubg["error_rate_mwc"], negated=True),
        f"Unforced moves {gnubg['unforced']}",
        f"Close or actual cube decisions {gnubg['close_cube']}",
        luck,
        f"Snowie error rate {_screen(gnubg['snowie_er'], 1, negated=True)}",
    ])


def matches_text(obj: dict) -> str:
    objs = obj["matches"]
    if not objs:
        return f"Scope: {scope_text(obj['filter'])}\nNo matches."
    rows = []
    for m in objs:
        length = "money" if m["length"] == 0 else str(m["length"])
        for k, s in enumerate(m["sides"]):
            rows.append([
                m["id"] if k == 0 else "",
                (m["date"] or DASH) if k == 0 else "",
                length if k == 0 else "",
                safe_text(s["player"]),
                "won" if s["won"] else ("lost" if s["won"] is False else DASH),
                s["decisions"],
                num(s["pr"]),
                num(s["mwc_loss"]),
                num(s["l7"]),
                num(s["difficulty"]),
                num(s["excess"]),
                num(s["ratio"]),
                avoidable_text(s),
                elo_text(s["elo"], s["elo_bound"]),
                num(s["luck_emg"], 3, signed=True),
                f"{m['analysis_used']['engine']} {m['analysis_used']['depth'] or ''}".strip() if k == 0 else "",
            ])
    shown = ""
    if obj.get("last") and obj.get("in_scope", 0) > len(objs):
        shown = f"The {len(objs)} most recent of the scope's {obj['in_scope']} matches (--last 0 for all).\n"
    own = ""
    if len(objs) == 1:  # one match: gnubg's own figures, to check it against gnubg's screen
        m = objs[0]
        own = "".join(f"\ngnubg's own, {safe_text(s['player'])}: "
                      + gnubg_own_text(s["gnubg"], m["length"] == 0, m["analysis_used"]["engine"])
                      for s in m["sides"])
    return f"Scope: {scope_text(obj['filter'])}\n" + shown + table(
        rows,
        ["id", "date", "length", "player", "result", "decisions", "PR", "MWC lost", "L7", "difficulty", "excess",
         "ratio", "avoidable", "Elo", "luck EMG", "analysis"],
        "lllllrrrrrrrrrrl",
    ) + ("\n(PR = 500 × error / decisions, XG's counting; MWC, L7, difficulty and excess in % points; "
         "difficulty = Σd, what the positions offered to get wrong; excess = Σ(ℓ − d), MWC lost beyond it; "
         "ratio = Σℓ/Σd (— when Σd < 0.5 %); " + AVOIDABLE_NOTE + "; Elo against the engine)") + own


def matches_html(obj: dict, limit: int = None) -> str:
    """The matches as HTML (``<section id="matches">``), a row per side;
    with ``limit``, the most recent ``limit`` matches (matches come in date
    order) and a note of how many earlier ones are left out."""
    objs = obj["matches"]
    left_out = max(0, obj.get("in_scope", len(objs)) - limit) if limit else 0
    if limit:
        objs = objs[-limit:]
    rows = []
    for m in objs:
        for k, s in enumerate(m["sides"]):
            rows.append([
                m["id"] if k == 0 else "", (m["date"] or DASH) if k == 0 else "",
                ("money" if m["length"] == 0 else m["length"]) if k == 0 else "",
                s["player"], "won" if s["won"] else ("lost" if s["won"] is False else None),
                s["decisions"], num(s["pr"]) if s["pr"] is not None else None,
                num(s["mwc_loss"]) if s["mwc_loss"] is not None else None,
                num(s["l7"]) if s["l7"] is not None else None,
            ])
    if not rows:
        return '<section id="matches"><h2>Matches</h2><p class="muted">No matches in this scope.</p></section>'
    note = (f'<p class="note">The {limit} most recent matches of the scope; {left_out} earlier ones '
            "are left out here (`gnubg-blunder matches` lists them all).</p>" if left_out else "")
    return ('<section id="matches"><h2>Matches</h2>' + note
            + table_html(rows, ["match", "date", "length", "player", "result", "decisions", "PR", "MWC lost", "L7"],
                         "lllllrrrr")
            + "</section>")


def side_columns() -> tuple:
    """The CSV's columns of a match side (``elo_bound``: true where the Elo
    is only a bound, the text's "≤")."""
    return ("decisions", "checker_decisions", "double_decisions", "take_decisions", "error_emg", "pr",
            "checker_pr", "cube_pr", "mwc_loss", "l7", "elo", "elo_bound", "errors", "blunders", "snowie_er",
            "luck_emg", "luck_rolls", *_metrics_figures.DIFFICULTY_KEYS)


def matches_table(obj: dict) -> Table:
    """One row per match side."""
    columns = side_columns()
    rows = []
    for m in obj["matches"]:
        for s in m["sides"]:
            rows.append([m["id"], m["date"], m["event"], m["length"], s["player"],
                         None if s["won"] is None else ("won" if s["won"] else "lost")]
                        + [s[k] for k in columns]
                        + [m["analysis_used"]["engine"], m["analysis_used"]["depth"]])
    return Table(["match_id", "date", "event", "length", "player", "result", *columns, "engine", "depth"], rows)


VIEW = View("matches", "list stored matches with each side's figures", compute, matches_text, table=matches_table,
            html=matches_html, params=MatchesParams)


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_commands(registry):
    registry.add(VIEW)
