"""``matches``: one object per match with its per-side figures (the keys
other checks read are documented in docs/commands.md)."""

from __future__ import annotations

from ..metrics.figures import per_side
from .formatting import DASH, elo_text, num, table


def match_objects(selection, thresholds) -> list:
    sides = per_side(selection, thresholds)
    out = []
    for i, m in enumerate(selection.matches):
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


def matches_text(objs: list) -> str:
    if not objs:
        return "No matches stored."
    rows = []
    for m in objs:
        length = "money" if m["length"] == 0 else str(m["length"])
        for k, s in enumerate(m["sides"]):
            rows.append([
                m["id"] if k == 0 else "",
                (m["date"] or DASH) if k == 0 else "",
                length if k == 0 else "",
                s["player"],
                "won" if s["won"] else ("lost" if s["won"] is False else DASH),
                s["decisions"],
                num(s["pr"]),
                num(s["mwc_loss"]),
                num(s["l7"]),
                elo_text(s["elo"], s["elo_bound"]),
                num(s["luck_emg"], 3, signed=True),
                f"{m['analysis_used']['engine']} {m['analysis_used']['depth'] or ''}".strip() if k == 0 else "",
            ])
    return table(
        rows,
        ["id", "date", "length", "player", "result", "decisions", "PR", "MWC lost", "L7", "Elo", "luck EMG",
         "analysis"],
        "lllllrrrrrrl",
    ) + "\n(PR = 500 × error / decisions, XG's counting; MWC and L7 in % points; Elo against the engine)"
