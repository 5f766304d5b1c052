"""A small database with hand-chosen numbers, for the views' expected outputs.

Every figure a view prints on it can be computed by hand from the tables
below (docs in each test).  Names are those of the bundled sample files;
``<script>alert(1)</script>`` is a hostile name for the escaping tests.

Matches (player 0 first):

====  ==========  =======  ======  ==================================  ======================
id    date        event    length  players                             result
====  ==========  =======  ======  ==================================  ======================
1     2025-01-10  Club A   7       charlot1 v charlot2                 charlot1 7-0
2     2025-02-15  Club A   5       charlot1 v Squire/Jørgensen         Squire/Jørgensen 5-0
3     2025-03-20  Open B   7       charlot2 v Squire/Jørgensen         charlot2 7-0
4     2025-04-05  —        money   charlot1 v charlot2                 charlot2 2-1 (points)
5     —           —        3       charlot1 v <script>…</script>       unfinished 1-0
====  ==========  =======  ======  ==================================  ======================

Each match has two games (game 0 and game 1).  Decisions: see MATCHES.
``mwc_per_emg`` is 0.5 everywhere in match play (hand arithmetic), None for
money.  Checker plays have 5 legal plays and 5 candidates of spread 0.3
(never forced) unless said otherwise.
"""

from __future__ import annotations

from gnubg_blunder.model import (
    Analysis,
    Candidate,
    Decision,
    Game,
    Match,
    Roll,
)

# Real positions (labels are those the board engine gives them).
P_OPEN = "sOfgASiwZ/ABMA"  # opening / opening
P_HOLD = "w+bBAyDgOTiCFQ"  # middle game / holding game
P_PRIME = "mAca4EYbt01AAA"  # middle game / playing against a back game (his 3-4 back game, my 4-prime)
P_RACE = "uPuREADNAgAAAA"  # bear-off / bear-off
P_BOAC = "mAcM8EY73icAAA"  # middle game / bear-off against contact

LABELS = {
    P_OPEN: ("opening", "opening"),
    P_HOLD: ("middle game", "holding game"),
    P_PRIME: ("middle game", "playing against a back game"),
    P_RACE: ("bear-off", "bear-off"),
    P_BOAC: ("middle game", "bear-off against contact"),
}

HOSTILE = "<script>alert(1)</script>"

# (date, event, length, players, [game0 winner, points], [game1 winner, points],
#  decisions: (game, player, kind, error, position, theme, comment), luck per player)
#   kind "checker" = counted checker play; "forced" = a forced checker play
#   (1 legal play); "nd" = counted no double (ND 0.5; DT 0.45 when right,
#   0.5 + e when the double was missed);
#   "nd_far" = no double outside the window (ND 0.9, DT 0.1: not counted);
#   "double" / "take" / "pass": counted cube actions with the given error.
MATCHES = [
    dict(id=1, date="2025-01-10", event="Club A", length=7, players=("charlot1", "charlot2"),
         games=[(0, 4), (0, 3)],
         decisions=[
             (0, 0, "checker", 0.000, P_OPEN, None, None),
             (0, 0, "checker", 0.020, P_HOLD, None, None),
             (0, 0, "checker", 0.080, P_HOLD, "too many blots", "#blitz look at this"),
             (0, 1, "checker", 0.010, P_OPEN, None, None),
             (0, 1, "checker", 0.150, P_PRIME, "point not made", None),
             (0, 1, "nd", 0.000, P_HOLD, None, None),
             (1, 0, "checker", 0.000, P_RACE, None, None),
             (1, 0, "forced", 0.000, P_RACE, None, None),
             (1, 1, "checker", 0.040, P_RACE, None, "#race"),
             (1, 1, "double", 0.060, P_BOAC, "premature double", None),
             (1, 0, "take", 0.000, P_BOAC, None, None),
         ],
         luck=(0.30, -0.10)),
    dict(id=2, date="2025-02-15", event="Club A", length=5, players=("charlot1", "Squire/Jørgensen"),
         games=[(1, 2), (1, 3)],
         decisions=[
             (0, 0, "checker", 0.050, P_PRIME, "theme not determined", None),
             (0, 0, "nd", 0.100, P_HOLD, "missed double", "#cube"),
             (0, 1, "checker", 0.000, P_OPEN, None, None),
             (0, 1, "checker", 0.030, P_HOLD, None, None),
             (1, 0, "checker", 0.120, P_HOLD, "too many blots", "#blitz"),
             (1, 0, "nd_far", 0.000, P_HOLD, None, None),
             (1, 1, "checker", 0.000, P_RACE, None, None),
             (1, 1, "pass", 0.200, P_BOAC, "wrong pass", None),
         ],
         luck=(-0.20, 0.25)),
    dict(id=3, date="2025-03-20", event="Open B", length=7, players=("charlot2", "Squire/Jørgensen"),
         games=[(0, 4), (0, 3)],
         decisions=[
             (0, 0, "checker", 0.010, P_OPEN, None, None),
             (0, 0, "checker", 0.000, P_PRIME, None, None),
             (0, 1, "checker", 0.100, P_PRIME, "point not made", None),
             (0, 1, "checker", 0.000, P_HOLD, None, None),
             (1, 0, "checker", 0.060, P_HOLD, "too passive", None),
             (1, 1, "checker", 0.020, P_RACE, None, None),
         ],
         luck=(0.05, 0.00)),
    dict(id=4, date="2025-04-05", event=None, length=0, players=("charlot1", "charlot2"),
         games=[(1, 2), (0, 1)],
         decisions=[
             (0, 0, "checker", 0.030, P_OPEN, None, None),
             (0, 1, "checker", 0.000, P_OPEN, None, None),
             (1, 0, "checker", 0.090, P_PRIME, "too many blots", None),
             (1, 1, "checker", 0.010, P_PRIME, None, None),
         ],
         luck=(0.10, 0.10)),
    dict(id=5, date=None, event=None, length=3, players=("charlot1", HOSTILE),
         games=[(0, 1), (None, None)],
         decisions=[
             (0, 0, "checker", 0.000, P_OPEN, None, None),
             (0, 1, "checker", 0.070, P_OPEN, "theme not determined", HOSTILE),
             (1, 0, "checker", 0.010, P_HOLD, None, None),
         ],
         luck=(None, None)),
]

MWC_PER_EMG = 0.5


def _decision(match, game_no, seq, player, kind, error, position, theme, comment, score):
    phase, plan = LABELS[position]
    mpe = MWC_PER_EMG if match["length"] else None
    base = dict(player=player, game=game_no, seq=seq, position_id=position, cube_value=1, cube_owner=-1,
                score_self=score[player], score_opp=score[1 - player], crawford=False, error=error,
                mwc_per_emg=mpe, comment=comment, phase=phase, game_plan=plan, theme=theme)
    if kind in ("checker", "forced"):
        n = 1 if kind == "forced" else 5
        cands = [Candidate(move=f"move {i}", equity=0.3 - 0.075 * i, position_id=position) for i in range(n)]
        return Decision(kind="checker", dice=(3, 1), played_move="move 0", best_move="move 0", n_legal=n,
                        candidates=cands, played_index=0, **base)
    if kind == "nd":
        return Decision(kind="nodouble", nd=0.5, dt=0.5 + error if error else 0.45, dp=1.0,
                        played_move="no double", best_move="double/take" if error else "no double", **base)
    if kind == "nd_far":
        return Decision(kind="nodouble", nd=0.9, dt=0.1, dp=1.0, played_move="no double",
                        best_move="no double", **base)
    # double / take / pass: a double-take position (ND 0.6, DT 0.7, DP 1.0)
    nd, dt = 0.6, 0.7
    if kind == "double" and error:
        nd, dt = 0.5, 0.5 - error  # premature: the doubler loses `error` against no double
    if kind == "pass" and error:
        dt = 1.0 - error  # a take was right: passing gives DP − DT = error
    best = {"double": "double/take" if not error else "no double", "take": "take", "pass": "take"}[kind]
    return Decision(kind=kind, nd=nd, dt=dt, dp=1.0, played_move=kind, best_move=best, **base)


# Match 1 moved two years before the others: a database spanning years, whose
# weeks and months are mostly empty (tests of the views by period).
YEARS_APART = {1: "2023-01-10"}


def build_matches(dates: dict = None, matches: list = None) -> list:
    """The matches of ``matches`` (default MATCHES, whose form a test's own
    table takes); ``dates`` ({match id: date}) over their own."""
    out = []
    for m in MATCHES if matches is None else matches:
        m = dict(m, date=(dates or {}).get(m["id"], m["date"]))
        games = []
        score = [0, 0]
        for g, (winner, points) in enumerate(m["games"]):
            game = Game(number=g, score=tuple(score), winner=winner, points=points)
            seq = 0
            for (gn, player, kind, error, pos, theme, comment) in m["decisions"]:
                if gn != g:
                    continue
                game.decisions.append(_decision(m, g, seq, player, kind, error, pos, theme, comment, score))
                seq += 1
            for p in (0, 1):
                luck = m["luck"][p]
                game.rolls.append(Roll(player=p, game=g, seq=100 + p, dice=(m["id"], g + 1),
                                       position_id=P_OPEN, position_after=f"fixture-{m['id']}-{g}-{p}",
                                       cube_value=1, luck=None if luck is None else luck / 2,
                                       mwc_per_emg=MWC_PER_EMG if m["length"] else None))
            games.append(game)
            if winner is not None:
                score[winner] += points
        out.append(Match(players=m["players"], length=m["length"], source="sgf", games=games,
                         analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"),
                         date=m["date"], event=m["event"]))
    return out


def build_fixture_db(path, dates: dict = None):
    """Write the fixture database at ``path`` (``dates``: see
    :func:`build_matches`); returns the path."""
    from gnubg_blunder.database import SQLiteStore

    with SQLiteStore(path) as st:
        for match in build_matches(dates):
            st.add_match(match)
    return path
