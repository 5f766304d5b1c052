"""A synthetic database of N matches for the views' benchmark (run on demand).

    python benchmarks/make_synthetic_db.py [N] [OUT.db]

Matches between 40 synthetic players ("Player 01"...; not people), over
three years, in 60 events, 5/7/9/11-point and money; each side gets about
60-110 decisions of every kind with errors drawn from a realistic mix
(most zero, a long tail), real board positions (from the benchmark's
positions file when present, else a few real ones) and luck per roll.
Matches are stored through the store's own ``add_match`` (one transaction
each), so the database is what an import would make.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gnubg_blunder.labels import cube_theme  # noqa: E402
from gnubg_blunder.board.features import classify  # noqa: E402
from gnubg_blunder.board.position import Board  # noqa: E402
from gnubg_blunder.model import Analysis, Candidate, Decision, Game, Match, Roll  # noqa: E402
from gnubg_blunder.met import default_met  # noqa: E402
from gnubg_blunder.database import SQLiteStore  # noqa: E402

FALLBACK_POSITIONS = ["4HPwATDgc/ABMA", "sOfgASiwZ/ABMA", "w+bBAyDgOTiCFQ", "mAca4EYbt01AAA",
                      "uPuREADNAgAAAA", "mAcM8EY73icAAA", "tF2JwQAtzR0GAA", "PTYAAGAeMIQ7AA"]
THEMES = ("too many blots", "point not made", "too passive", "gammon underestimated", "theme not determined")


def load_positions(limit=20000):
    # benchmarks/make_positions.py N: real positions of gnubg bot matches (thousands of distinct ones)
    found = sorted((HERE / ".cache").glob("positions-*x7.txt"), key=lambda p: p.stat().st_size)
    path = found[-1] if found else HERE / ".cache" / "positions-1000x7.txt"
    if path.exists():
        seen = []
        for line in path.read_text().splitlines():
            pid = line.split()[0]
            seen.append(pid)
            if len(seen) >= limit:
                break
        return sorted(set(seen))
    return FALLBACK_POSITIONS


def error_draw(rng):
    r = rng.random()
    if r < 0.62:
        return 0.0
    if r < 0.85:
        return round(rng.uniform(0.001, 0.02), 6)
    if r < 0.95:
        return round(rng.uniform(0.02, 0.08), 6)
    return round(rng.uniform(0.08, 0.4), 6)


def make_match(i, rng, players, positions, labels, met):
    a, b = rng.sample(players, 2)
    skill = {a: rng.uniform(0.6, 1.6), b: rng.uniform(0.6, 1.6)}
    length = rng.choice([0, 5, 7, 7, 7, 9, 11])
    day = rng.randrange(0, 3 * 365)
    date = f"{2023 + day // 365}-{1 + (day % 365) // 31:02d}-{1 + (day % 31) % 28:02d}"
    event = f"Event {rng.randrange(60):02d}" if rng.random() < 0.8 else None
    games = []
    score = [0, 0]
    n_games = rng.randint(2, 7) if length else rng.randint(3, 8)
    for g in range(n_games):
        game = Game(number=g, score=tuple(score))
        seq = 0
        for turn in range(rng.randint(20, 36)):
            p = turn % 2
            name = (a, b)[p]
            pid = rng.choice(positions)
            phase, plan = labels[pid]
            mpe = None
            if length:
                me, opp = score[p], score[1 - p]
                mpe = met.mwc_per_emg(length, min(me, length - 1), min(opp, length - 1), 1, False)
            base = dict(player=p, game=g, seq=seq, position_id=pid, cube_value=1, cube_owner=-1,
                        score_self=score[p], score_opp=score[1 - p], crawford=False, mwc_per_emg=mpe,
                        phase=phase, game_plan=plan)
            n = rng.choice([1, 3, 8, 15, 20])
            e = round(error_draw(rng) * skill[name], 6) if n > 1 else 0.0
            # the candidates' equities: the best first, the played one Δ = e below it (so that e and the
            # difficulty d of SPEC §6 are those of one list), the others spread below the best
            listed = min(n, 5)
            deltas = sorted({0.0, e} | {round(rng.expovariate(1 / 0.04), 6) for _ in range(listed)})[:max(listed, 2)]
            if e not in deltas:
                deltas[-1] = e
                deltas.sort()
            deltas = deltas[:listed] if e in deltas[:listed] else deltas[:listed - 1] + [e]
            best = round(rng.uniform(-0.5, 0.5), 6)
            cands = [Candidate(move=f"m{k}", equity=round(best - dk, 6), position_id=pid)
                     for k, dk in enumerate(deltas)]
            played = deltas.index(e)
            theme = rng.choice(THEMES) if e >= 0.06 else None
            game.decisions.append(Decision(kind="checker", dice=(3, 1), played_move=f"m{played}", best_move="m0",
                                           error=e, n_legal=n, candidates=cands,
                                           played_index=played, theme=theme, **base))
            seq += 1
            if rng.random() < 0.35:
                e2 = error_draw(rng) * skill[name] * 0.5
                nd = rng.uniform(-0.2, 0.9)
                kind = "nodouble" if rng.random() < 0.9 else "double"
                game.decisions.append(Decision(kind=kind, nd=nd, dt=nd - 0.05 + e2, dp=1.0, error=e2,
                                               played_move=kind, best_move="no double",
                                               theme=cube_theme(kind, nd, nd, 1.0, e2), **dict(base, seq=seq)))
                seq += 1
            game.rolls.append(Roll(player=p, game=g, seq=seq, dice=(rng.randint(1, 6), rng.randint(1, 6)),
                                   position_id=pid, position_after=f"synthetic-{i}-{g}-{seq}", cube_value=1,
                                   luck=round(rng.gauss(0, 0.08), 6), mwc_per_emg=mpe))
            seq += 1
        winner = rng.randrange(2)
        points = rng.choice([1, 1, 1, 2, 2, 4])
        if length:
            points = min(points, length - score[winner])
        game.winner, game.points = winner, points
        score[winner] += points
        games.append(game)
        if length and max(score) >= length:
            break
    return Match(players=(a, b), length=length, source="sgf", games=games,
                 analysis=Analysis(engine="gnubg", depth=2.0, depth_label="2-ply"), date=date, event=event)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / ".cache" / f"synthetic-{n}.db"
    out.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(out) + suffix).unlink(missing_ok=True)
    rng = random.Random(20261130)
    positions = load_positions()
    labels = {pid: classify(Board.from_position_id(pid)) for pid in positions}
    players = [f"Player {k:02d}" for k in range(1, 41)]
    met = default_met()
    start = time.monotonic()
    decisions = 0
    with SQLiteStore(out) as st:
        for i in range(n):
            m = make_match(i, rng, players, positions, labels, met)
            decisions += sum(1 for _ in m.decisions())
            st.add_match(m)
    print(f"{out}: {n} matches, {decisions} decisions, {out.stat().st_size / 1e6:.0f} MB, "
          f"{time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
