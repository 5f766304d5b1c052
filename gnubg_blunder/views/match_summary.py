"""The compact match summary printed in gnubg's console after ``>bdb.analyse()``."""

from __future__ import annotations

from ..metrics.figures import per_side
from ..db_settings import thresholds_for
from ..formatting import DASH, interval, num, safe_text, table


MATCH_FIGURE_HEADERS = ["player", "PR [95%]", "decisions", "MWC lost %", "L7 %", "luck EMG (MWC)"]


def match_figures(store, match_id: int):
    """The match and its summary rows, one per side (the console's table
    and the match page's): PR with its interval, counted decisions, MWC
    lost, L7, luck.  (None, []) for an unknown match."""
    sel = store.select(match_ids=[match_id])
    if not sel.matches:
        return None, []
    m = sel.matches[0]
    rows = []
    for s in per_side(sel, thresholds_for(store)):
        luck = DASH if s["luck_emg"] is None else (
            f"{s['luck_emg']:+.3f}" + ("" if s["luck_mwc"] is None else f" ({s['luck_mwc']:+.2f}%)")
        )
        rows.append([
            s["player"],
            f"{num(s['pr'])} {interval(s['pr_ci'])}",
            s["decisions"],
            num(s["mwc_loss"]) if s["mwc_loss"] is not None else "n/a (money)",
            num(s["l7"]) if s["l7"] is not None else ("n/a (money)" if m.is_money else DASH),
            luck,
        ])
    return m, rows


def match_summary_text(store, match_id: int) -> str:
    m, rows = match_figures(store, match_id)
    if m is None:
        return f"match {match_id}: not found"
    kind = "money session" if m.is_money else f"{m.length}-point match"
    head = f"gnubg-blunder: match {m.id}, {safe_text(m.players[0])} vs {safe_text(m.players[1])}, {kind}, " \
           f"{m.n_games} games, analysis {m.engine} {m.depth_label or ''}".rstrip()
    return head + "\n" + table(rows, MATCH_FIGURE_HEADERS)
