"""Runs INSIDE gnubg (``gnubg -t -q -r -p``): an independent computation of
the XG-rule figures of SPEC §1-5 from gnubg's own per-decision analysis,
with gnubg's own MET functions (``gnubg.mwc2eq``, ``gnubg.eq2mwc``).

It shares no code with gnubg-blunder: plain loops over ``gnubg.match()``,
gnubg's candidate list as the legal plays.  Environment: ORACLE_SGF (file to
load), ORACLE_OUT (JSON written there).
"""

import json
import math
import os

import gnubg

gnubg.command('load match "%s"' % os.environ["ORACLE_SGF"])
m = gnubg.match(analysis=1, boards=0, statistics=0)
length = m["match-info"]["match-length"]
SIDES = {"X": 0, "O": 1}
out = [dict(decisions=0, checker=0, double=0, take=0, error=0.0, checker_error=0.0, mwc=0.0)
       for _ in range(2)]


def cube_info(cube, owner, player, score, crawford):
    return gnubg.cubeinfo(cube, owner, player, length, score, crawford)


def normalise(value, ci):
    return gnubg.mwc2eq(value, ci) if length else value


def cost(e, ci):
    return gnubg.eq2mwc(e, ci) - gnubg.eq2mwc(0.0, ci) if length else 0.0


def add(side, kind, e, ci):
    s = out[side]
    s["decisions"] += 1
    s[kind] += 1
    s["error"] += e
    if kind == "checker":
        s["checker_error"] += e
    s["mwc"] += cost(e, ci)


for game in m["games"]:
    info = game["info"]
    score = (info["score-X"], info["score-O"])
    crawford = bool(info.get("crawford", False))
    cube, owner = 1, -1
    double = None  # (doubler, ND, DT, cube) of the open double
    beavers = 0  # double records answering it: a beaver, then raccoons
    for rec in game["game"]:
        action = rec["action"]
        if "player" not in rec:
            continue
        p = SIDES[rec["player"]]
        a = rec.get("analysis") or {}
        ci = cube_info(cube, owner, p, score, crawford)
        if action == "move":
            double, beavers = None, 0
            if "nd-cubeful-eq" in a:
                nd, dt = normalise(a["nd-cubeful-eq"], ci), normalise(a["dt-cubeful-eq"], ci)
                best = max(nd, min(dt, 1.0))
                if nd > 0 and round((nd - min(dt, 1.0)) * 1e6) < 200000:
                    add(p, "double", best - nd, ci)
            moves = a.get("moves")
            if moves and "imove" in a:
                scores = [c["score"] for c in moves]
                forced = len(moves) <= 1 or round((max(scores) - min(scores)) * 1e6) < 500
                if not forced:
                    add(p, "checker", max(0.0, scores[0] - scores[a["imove"]]), ci)
        elif action == "double":
            if double is not None:
                # SPEC §2: the beaver is the responder's take, judged take vs
                # pass on the double's analysis; raccoons are not decisions
                if not beavers and double[1] is not None:
                    _, nd, dt, c = double
                    add(p, "take", dt - min(dt, 1.0), cube_info(c, owner, p, score, crawford))
                beavers += 1
                continue
            if "nd-cubeful-eq" in a:
                nd, dt = normalise(a["nd-cubeful-eq"], ci), normalise(a["dt-cubeful-eq"], ci)
                double = (p, nd, dt, cube)
                add(p, "double", max(nd, min(dt, 1.0)) - min(dt, 1.0), ci)
            else:
                double = (p, None, None, cube)
        elif action in ("take", "drop"):
            # the answer to a beaver (or raccoon) is not a decision (SPEC §2)
            if double is not None and not beavers and double[1] is not None:
                _, nd, dt, c = double
                r = min(dt, 1.0)
                e = (dt - r) if action == "take" else (1.0 - r)
                add(p, "take", e, cube_info(c, owner, p, score, crawford))
            if action == "take":
                cube *= 2 ** (1 + beavers)
                owner = p if not beavers else 1 - p
            double, beavers = None, 0

for s in out:
    n, nc = s["decisions"], s["checker"]
    s["pr"] = 500 * s["error"] / n if n else None
    s["checker_pr"] = 500 * s["checker_error"] / nc if nc else None
    s["cube_pr"] = 500 * (s["error"] - s["checker_error"]) / (n - nc) if n - nc else None
    s["mwc_loss"] = 100 * s["mwc"] if length else None
    if length and n:
        l7 = s["mwc"] * math.sqrt(7.0 / length)
        q = max(0.01, 0.5 - l7)
        s["l7"] = 100 * l7
        s["elo"] = 2000 / math.sqrt(7) * math.log10(q / (1 - q))
    else:
        s["l7"] = s["elo"] = None

with open(os.environ["ORACLE_OUT"], "w") as fh:
    json.dump(out, fh)
