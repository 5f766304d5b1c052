"""Run inside gnubg (``gnubg -t -q -r -p THIS``): evaluate decisions again
at a given depth (SPEC §16, docs/verify.md).

The tasks come as a JSON file named by ``GNUBG_BLUNDER_VERIFY_TASKS``; one
JSON line a task goes to ``GNUBG_BLUNDER_VERIFY_OUT``, flushed as soon as it
is known, so the parent stores each evaluation as it comes and a kill loses
at most the one being computed.  ``GNUBG_BLUNDER_VERIFY_PATH`` is the folder
holding the ``gnubg_blunder`` package (its board code names each play's
resulting position).

A checker task is gnubg's ``hint`` at the task's depth with gnubg's own
move filter (the list as gnubg prints it); when the played move or a stored
candidate is not among the plays that list evaluated at that depth, the
position is set up again with a move filter that keeps every play and
those plays are taken from that list (a play's score at a depth does not
depend on the filter that let it through).  A cube task is gnubg's cube
analysis of the doubler's position (``cfevaluate``: what ``hint`` prints
before the roll).  gnubg's state is the decision's: match length, score,
Crawford, cube value and owner, Jacoby and beavers in money, the MET,
cubeful, no noise.
"""

import json
import os
import sys

import gnubg

sys.path.insert(0, os.environ["GNUBG_BLUNDER_VERIFY_PATH"])

from gnubg_blunder.board.moves import parse_move_notation  # noqa: E402
from gnubg_blunder.board.position import Board  # noqa: E402

WIDE_ACCEPT = 1000  # gnubg's move filter keeping every play at each level


def _command(line):
    gnubg.command(line)


def _evaluation_settings(plies):
    for what in ("chequerplay", "cubedecision"):
        base = "set evaluation %s evaluation " % what
        _command(base + "plies %d" % plies)
        _command(base + "cubeful on")
        _command(base + "deterministic on")
        _command(base + "noise 0")
        _command(base + "prune on")


def _set_filter(plies, wide, default_filter):
    """gnubg's hint filter for ``plies``: its default, or every play kept."""
    for f in default_filter:
        if f["ply"] != plies:
            continue
        accept = f["acceptmoves"]
        if wide and accept >= 0:
            _command("set evaluation movefilter %d %d %d 0 0.0" % (plies, f["level"], WIDE_ACCEPT))
        else:
            _command("set evaluation movefilter %d %d %d %d %r" % (
                plies, f["level"], accept, f["extramoves"], float(f["threshold"])))


def _set_up(task):
    length = task["length"]
    _command("new match %d" % length if length else "new session")
    _command("set matchid " + task["matchid"])
    _command("set board " + task["position_id"])


def _plays(hint, board, dice):
    out = []
    for m in hint["hint"]:
        play = parse_move_notation(board, dice[0], dice[1], m["move"])
        after = play.result.position_id() if play is not None else None
        out.append({"move": m["move"], "equity": m["equity"], "plies": m["context"]["plies"],
                    "probs": list(m["details"]["probs"]), "after": after})
    return out


def checker(task, default_filter):
    board = Board.from_position_id(task["position_id"])
    dice = task["dice"]
    plies = task["plies"]
    _set_filter(plies, False, default_filter)
    _set_up(task)
    plays = _plays(gnubg.hint(WIDE_ACCEPT), board, dice)
    deep = {p["after"] for p in plays if p["plies"] == plies}
    missing = [a for a in task["need"] if a not in deep]
    widened = False
    if missing:
        _set_filter(plies, True, default_filter)
        _set_up(task)  # a new position: no hint list of the default filter kept
        wide = {p["after"]: p for p in _plays(gnubg.hint(WIDE_ACCEPT), board, dice) if p["plies"] == plies}
        _set_filter(plies, False, default_filter)
        kept = [p for p in plays if p["after"] not in missing]
        plays = kept + [wide[a] for a in missing if a in wide]
        widened = True
    return {"plays": plays, "widened": widened, "matchid": gnubg.matchid(), "position_id": gnubg.positionid()}


def cube(task):
    c = task["cube"]
    ci = gnubg.cubeinfo(c["value"], c["owner"], 0, task["length"], tuple(c["score"]), c["crawford"])
    ci["jacoby"] = task["jacoby"]
    ci["beavers"] = task["beavers"]
    ec = {"cubeful": 1, "plies": task["plies"], "deterministic": 1, "prune": 1, "noise": 0.0}
    optimal, nd, dt, dp, _rec, text = gnubg.cfevaluate(gnubg.positionfromid(task["position_id"]), ci, ec)
    return {"nd": nd, "dt": dt, "dp": dp, "optimal": optimal, "recommendation": text}


def main():
    with open(os.environ["GNUBG_BLUNDER_VERIFY_TASKS"], encoding="utf-8") as fh:
        job = json.load(fh)
    _command("set player 0 human")
    _command("set player 1 human")
    default_filter = gnubg.getevalhintfilter()
    out = open(os.environ["GNUBG_BLUNDER_VERIFY_OUT"], "a", encoding="utf-8")
    settings = {}
    for task in job["tasks"]:
        if settings.get("plies") != task["plies"]:
            _evaluation_settings(task["plies"])
        if task["met"] and settings.get("met") != task["met"]:
            _command("set matchequitytable " + task["met"])
        if settings.get("jacoby") != task["jacoby"]:
            _command("set jacoby %s" % ("on" if task["jacoby"] else "off"))
        if settings.get("beavers") != task["beavers"]:
            _command("set beavers %d" % (3 if task["beavers"] else 0))
        settings = {k: task[k] for k in ("plies", "met", "jacoby", "beavers")}
        try:
            result = checker(task, default_filter) if task["kind"] == "checker" else cube(task)
        except Exception as exc:  # one decision gnubg could not evaluate: said, the others go on
            result = {"failed": "%s: %s" % (type(exc).__name__, exc)}
        result["id"] = task["id"]
        result["plies"] = task["plies"]
        out.write(json.dumps(result) + "\n")
        out.flush()
    out.write(json.dumps({"done": True}) + "\n")
    out.close()


main()
