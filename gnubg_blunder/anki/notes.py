"""Which decisions become Anki notes, and what each note shows (docs/anki.md).

One note per **decision key**: the position (gnubg position ID, the player to
act on roll), the question (the dice of a checker play; "double" for a
double / no double; "take" for a take / pass), the cube (value, and whose:
centred, the decider's own, the opponent's) and the score (the decider's
first, the match length, Crawford; "money").  The keys are those of the
decisions the filter and the criteria (``--errors`` …) pick; each note shows
the player's **most recent** play at its key among the filter's counted
decisions (match date, then move order), with that decision's analysis.
"""

from __future__ import annotations

from html import escape
from typing import Optional

import numpy as np

from ..game_record import place_text
from ..codec.candidates import decider_cube_probs, decode_row
from ..formatting import CHANCE_HEADERS, DASH, chance_cells, html_text, visible
from ..arrays import KIND_NAMES, LABELS
from ..metrics.summary import cost_order, decision_records, pick, selected
from ..model import cube_ask, is_redouble
from ..board.moves import legal_plays, parse_move_notation
from ..board.position import Board
from ..board.svg import board_svg
from ..metrics.verify import evaluation_depth, verification_note
from ..store.verifications import overlay_rows

TOP_CANDIDATES = 5  # candidates listed on the back of a note
BOARD_WIDTH = 420


def _owner(row: dict) -> str:
    owner = row.get("cube_owner", -1)
    if owner not in (0, 1):
        return "centred"
    return "own" if owner == row.get("player") else "opponent"


def _question(row: dict) -> Optional[str]:
    kind = row.get("kind")
    if kind == "checker":
        d1, d2 = row.get("dice1"), row.get("dice2")
        if not d1 or not d2:
            return None
        return f"{max(d1, d2)}-{min(d1, d2)}"
    if kind in ("nodouble", "double"):
        return "double"
    if kind in ("take", "pass"):
        return "take"
    return None


def _score(row: dict, length: int) -> str:
    if not length:
        return "money"
    text = f"{row['score_self']}-{row['score_opp']} of {length}"
    return text + " Crawford" if row.get("crawford") else text


def note_key(row: dict, length: int) -> Optional[str]:
    """The decision key of a stored decision row (``decision_rows``), as a
    string: ``POSITION|QUESTION|cube VALUE OWNER|SCORE``, e.g.
    ``mHOZAVA2G+GAKA|5-5|cube 2 own|6-4 of 7``; None when the decision has
    no position or dice."""
    q = _question(row)
    if not row.get("position_id") or q is None:
        return None
    return f"{row['position_id']}|{q}|cube {row.get('cube_value') or 1} {_owner(row)}|{_score(row, length)}"


def pick_decisions(scope, criteria: dict, limit: int = 0, row_ids=None) -> list:
    """The notes' decisions: [(key, record, row)] costliest key first (the
    cost of the costliest decision the criteria picked at that key), at most
    ``limit`` keys (0 = all), only the decisions ``row_ids`` when given; ``record`` is the drill-down record of the
    player's most recent play at the key (``decision_records``: the cost as
    the metrics give it), ``row`` its stored row (moves, candidates)."""
    sel, flt, thresholds = scope.study_rows(), scope.filter, scope.thresholds  # at the deepest evaluation (§16)
    dec = sel.decisions
    mask = pick(sel, thresholds, flt.decision_type, **criteria)
    if row_ids is not None:
        mask = mask & np.isin(dec.row_id, np.asarray(list(row_ids), dtype=np.int64))
    chosen = cost_order(sel, np.nonzero(mask)[0])
    if not len(chosen):
        return []
    positions = np.unique(dec.position[chosen])
    near = np.nonzero(selected(sel, flt.decision_type) & np.isin(dec.position, positions))[0]  # play order

    # the card's answer at the decision's deepest evaluation (SPEC §16)
    rows = overlay_rows(scope.store, {r["id"]: r for r in scope.store.decision_rows([int(dec.row_id[i]) for i in near])})

    def key_of(i) -> Optional[str]:
        row = rows.get(int(dec.row_id[i]))
        return None if row is None else note_key(row, sel.matches[int(dec.match[i])].length)

    latest: dict = {}
    for i in near:  # in play order: the last one at a key is the most recent
        k = key_of(i)
        if k is not None:
            latest[k] = int(i)
    keys = []
    for i in chosen:
        k = key_of(i)
        if k is not None and k not in keys:
            keys.append(k)
            if limit and len(keys) >= limit:
                break
    idx = [latest[k] for k in keys]
    records = decision_records(sel, idx, thresholds)
    places = scope.store.gnubg_rows([r["row_id"] for r in records])  # gnubg's game-record row (docs/review.md)
    for r, i in zip(records, idx):
        r["gnubg_row"] = places.get(r["row_id"])
        r["tags"] = [LABELS[name][code] for name in ("game_plan", "theme")
                     for code in [int(getattr(dec, name)[i])] if 0 <= code < len(LABELS[name])]
        r["kind_name"] = KIND_NAMES[int(dec.kind[i])]
    return [(k, r, rows[r["row_id"]]) for k, r in zip(keys, records)]


# -- what a note shows ------------------------------------------------------------------------

def _names(record: dict, row: dict) -> tuple:
    p = row.get("player") or 0
    players = record.get("players") or ("Player", "Opponent")
    return players[p], players[1 - p]


def _decider_cube(row: dict) -> int:
    owner = _owner(row)
    return {"centred": -1, "own": 0, "opponent": 1}[owner]


def _dice(row: dict):
    if row.get("kind") == "checker" and row.get("dice1") and row.get("dice2"):
        return (row["dice1"], row["dice2"])
    return None


def _best_play(board, row: dict):
    """The best candidate's play (its resulting position among the legal
    plays; else its notation read), or None."""
    dice = _dice(row)
    if dice is None:
        return None
    cands = list(decode_row(row))
    best = [c for c in cands if c.get("move") == row.get("best_move")] or cands[:1]
    target = best[0].get("position_id") if best else None
    if target:
        for play in legal_plays(board, *dice):
            if play.result.position_id() == target:
                return play
    try:
        return parse_move_notation(board, dice[0], dice[1], row.get("best_move") or "")
    except ValueError:
        return None


def _cube_text(row: dict, names: tuple) -> str:
    value = row.get("cube_value") or 1
    owner = _owner(row)
    if owner == "centred":
        return f"cube centred ({value})"
    return f"cube {value}, owned by {names[0] if owner == 'own' else names[1]}"


def _responds(row: dict) -> bool:
    """A take/pass note: the decider is doubled, the doubler is on roll."""
    return row.get("kind") in ("take", "pass")


def _redouble(row: dict) -> bool:
    owner = row.get("cube_owner")
    return is_redouble(row.get("kind"), -1 if owner is None else owner, row.get("player"))


def _ask(row: dict) -> str:
    """The card's last line, the question the player answers."""
    if row.get("kind") in ("nodouble", "double", "take", "pass"):
        return cube_ask(row["kind"], _redouble(row)).capitalize() + "?"
    return "Your move?"


def _question_text(row: dict, names: tuple) -> str:
    """The situation, then the ask (``_ask``) on its own line."""
    kind = row.get("kind")
    if kind == "checker":
        d = _dice(row)
        text = f"{names[0]} to play {d[0]}-{d[1]}" if d else f"{names[0]} to play"
    elif kind in ("nodouble", "double"):
        text = f"{names[0]} on roll, before rolling"
    else:
        value = row.get("cube_value") or 1
        doubles = "redoubles" if _redouble(row) else "doubles"
        text = f"{names[1]} (on roll) {doubles} to {2 * value}; {names[0]} to answer"
    return f'{text}<br><span class="bgb-ask">{_ask(row)}</span>'


def _score_text(row: dict, length: int, names: tuple) -> str:
    if not length:
        return "money game"
    text = f"score {names[0]} {row['score_self']}, {names[1]} {row['score_opp']} in a {length}-point match"
    return text + " (Crawford game)" if row.get("crawford") else text


def _cost_text(record: dict) -> str:
    if not record.get("error_mpt"):
        return "the best play: no error"
    mwc = record.get("mwc_loss")
    return f"{record['error_mpt']:.1f} mpt" + ("" if mwc is None else f", {mwc:.2f} % MWC")


def candidate_rows(row: dict) -> list:
    """[(action, equity, Δ to the best, played)] of the analysis: the first
    ``TOP_CANDIDATES`` checker candidates (and the played one when lower),
    or the cube's options (no double, double/take, double/pass)."""
    out = []
    if row.get("kind") == "checker":
        cands = list(decode_row(row))
        played = row.get("played_index")
        # the analysis' best first, then by equity (a stored list need not be in equity order); unknown last
        first = next((k for k, c in enumerate(cands) if c.get("move") == row.get("best_move")), 0)
        order = sorted(range(len(cands)), key=lambda k: (k != first, cands[k].get("equity") is None,
                                                         -(cands[k].get("equity") or 0), k))
        best = cands[first].get("equity") if cands else None
        for rank, k in enumerate(order):
            if rank < TOP_CANDIDATES or k == played:
                eq = cands[k].get("equity")
                delta = None if eq is None or best is None else eq - best
                out.append((cands[k].get("move") or "?", eq, delta, k == played))
        return out
    played = {"nodouble": "no double", "double": "double", "take": "take", "pass": "pass"}[row["kind"]]
    nd, dt, dp = (row.get(x) for x in ("nd", "dt", "dp"))
    if row["kind"] in ("take", "pass"):
        # the stored options are the doubler's equities: the responder's are their opposites
        options = [("take", None if dt is None else -dt), ("pass", None if dp is None else -dp)]
        known = [eq for _, eq in options if eq is not None]
        best = max(known) if len(known) == 2 else None
    else:
        options = [("no double", nd), ("double/take", dt), ("double/pass", dp)]
        best = max(nd, min(dt, dp)) if None not in (nd, dt, dp) else None
        if played == "double":  # the doubler gets the responder's better answer
            played = "double/take" if dt is not None and (dp is None or dt <= dp) else "double/pass"
    for name, eq in options:
        delta = None if eq is None or best is None else eq - best
        out.append((name, eq, delta, name == played))
    return out


def _candidates_html(row: dict) -> str:
    rows = candidate_rows(row)
    if not rows:
        return ""
    out = ['<table class="bgb-cands"><tr><th>play</th><th>equity</th><th>Δ</th></tr>']
    for name, eq, delta, played in rows:
        mark = ' class="bgb-played"' if played else ""
        out.append(f"<tr{mark}><td>{escape(visible(name))}{' (yours)' if played else ''}</td>"
                   f"<td>{'—' if eq is None else f'{eq:+.3f}'}</td>"
                   f"<td>{'—' if delta is None else f'{delta:+.3f}'}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _depth(row: dict, candidate: Optional[dict] = None) -> Optional[str]:
    return evaluation_depth(None if candidate is None else candidate.get("depth"), row.get("verified_plies"),
                            row.get("depth"))


def chances_rows(row: dict) -> list:
    """[(what, depth, probs)] of a note: a checker play's best and played
    candidates (one row when they are the same play), a cube decision's
    position before the double (the decider's chances; None where not
    stored: a match stored before schema step 14)."""
    if row.get("kind") != "checker":
        return [("position (no double)", _depth(row), decider_cube_probs(row))]
    cands = list(decode_row(row))
    if not cands:
        return []
    first = next((k for k, c in enumerate(cands) if c.get("move") == row.get("best_move")), 0)
    played = row.get("played_index")
    out = [("best" + (" = yours" if played == first else "") + f": {cands[first].get('move') or '?'}",
            _depth(row, cands[first]), cands[first].get("probs"))]
    if played is not None and played != first and 0 <= played < len(cands):
        out.append((f"yours: {cands[played].get('move') or '?'}", _depth(row, cands[played]),
                    cands[played].get("probs")))
    elif played is None:
        out.append((f"yours: {row.get('played_move') or '?'}", None, None))
    return out


def depth_check_text(row: dict) -> str:
    """Which evaluation the numbers are: "depth check: confirmed at 4
    plies" / "depth check: not verified" when the database holds any
    verification (metrics/verify.py ``verification_note``); else ''."""
    return f"depth check: {verification_note(row['verified_plies'])}" if "verified_plies" in row else ""


def _chances_html(row: dict) -> str:
    rows = chances_rows(row)
    if not rows:
        return ""
    note = depth_check_text(row)
    out = ['<table class="bgb-chances">',
           "<caption>chances in % (cubeless) and depth" + (f" — {escape(note)}" if note else "") + "</caption>",
           "<tr><th></th><th>depth</th>" + "".join(f"<th>{h}</th>" for h in CHANCE_HEADERS) + "</tr>"]
    for what, depth, probs in rows:
        out.append(f"<tr><td>{escape(visible(what))}</td><td>{escape(depth or DASH)}</td>"
                   + "".join(f"<td>{c}</td>" for c in chance_cells(probs, unit=False)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _verification_text(row: dict) -> str:
    """The depth check of the card's decision (SPEC §16): '' when the
    database holds no verification."""
    if "verified_plies" not in row:
        return ""
    plies = row["verified_plies"]
    return (f"; analysis: gnubg's evaluation at {plies} {'ply' if plies == 1 else 'plies'} (depth check)"
            if plies is not None else f"; {verification_note(None)} (the file's analysis)")


def fields(key: str, record: dict, row: dict) -> dict:
    """The note's fields (``apkg.FIELDS``) for a decision key."""
    names = _names(record, row)
    # user text in a card as in the report (formatting.html_text): control and bidi characters shown
    # escaped (moves too), each name isolated in <bdi>; the sentences around them are ours (numbers, dice)
    shown = tuple(html_text(n) for n in names)
    svg_names = tuple(visible(n) for n in names)
    length = record.get("length") or 0
    board = Board.from_position_id(row["position_id"])
    cube = dict(cube_value=row.get("cube_value") or 1, cube_owner=_decider_cube(row))
    if _responds(row):
        # the doubler is on roll: the board from the doubler's side (at the bottom, "on roll"), the
        # taker above; the cube (centred or the doubler's) seen from the doubler (docs/anki.md)
        front = board_svg(board.swapped(), player_names=svg_names[::-1], width=BOARD_WIDTH,
                          cube_value=cube["cube_value"], cube_owner={-1: -1, 0: 1, 1: 0}[cube["cube_owner"]])
    else:
        front = board_svg(board, dice=_dice(row), player_names=svg_names, width=BOARD_WIDTH, **cube)
    after = ""
    if row.get("kind") == "checker":
        play = _best_play(board, row)
        if play is not None:
            after = board_svg(play.result, move_steps=play.steps, player_names=svg_names, width=BOARD_WIDTH,
                              title=f"after the best play, {visible(play.notation)}", moved=True, **cube)
    players = record["players"]
    source = (f"match {record['match_id']} ({html_text(players[0])} v {html_text(players[1])}"
              f"{', ' + html_text(record['date']) if record.get('date') else ''}), game {record['game']}, "
              f"move {record['move']} (gnubg {place_text(record.get('gnubg_row'), shown[0])}); "
              f"{shown[0]}'s most recent play at this position"
              + _verification_text(row))
    return {
        "Key": escape(visible(key)),
        "Board": front,
        "Question": _question_text(row, shown),
        "Cube": _cube_text(row, shown),
        "Score": _score_text(row, length, shown),
        "Best": escape(visible(row.get("best_move") or "—")),
        "YourMove": escape(visible(row.get("played_move") or "—")),
        "Cost": escape(_cost_text(record)),
        "Candidates": _candidates_html(row) + _chances_html(row),
        "BoardAfter": after,
        "Source": source,
        "PositionID": escape(row["position_id"]),
        "DecisionID": str(row["id"]),
    }


def tags(record: dict) -> list:
    """Anki tags: gnubg-blunder, the decision's kind, game plan and theme
    (spaces as underscores: Anki splits tags on spaces)."""
    out = ["gnubg-blunder", "checker" if record.get("kind_name") == "checker" else "cube"]
    out += [t.replace(" ", "_") for t in record.get("tags", []) if t and t != "theme not determined"]
    return out
