"""``gnubg-blunder verify``: gnubg evaluates again, deeper, the errors the
study advice stands on (SPEC §16, docs/verify.md).

The costliest errors of the filter (metrics/verify.py) become tasks; J
headless gnubg processes (``gnubg -t -q -r -p verify_in_gnubg.py``) each
take a share and write one JSON line a decision as soon as it is
evaluated; this process reads those lines as they come, works out each
decision's deeper error, and stores it (store/verifications.py) in its own
transaction.  Inside gnubg the same: the evaluations run in child gnubg
processes, never in the user's own match.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from ..board.ids import MatchState
from ..board.moves import parse_move_notation
from ..board.position import Board
from ..importers.build import cube_action, cube_errors
from ..metrics.difficulty import decision_difficulty
from ..model import Candidate
from ..codec import candidates as candidate_lists
from ..errors import BlunderError
from ..store import verifications
from .process import find_gnubg
from ..metrics.verify import checker_outcome
from ..run_files import run_folder

WIDE_HINT = 1000  # ``hint N`` prints the N first plays (gnubg's default: 10)
SCRIPT = Path(__file__).with_name("verify_in_gnubg.py")
PACKAGE_PARENT = Path(__file__).resolve().parents[2]
ENGINE = "gnubg"
DEFAULT_MET = "Kazaross-XG2"  # gnubg 1.07's default table (docs/met.md)
GNUBG_METS = Path("/usr/share/gnubg/met")
TIMEOUT_PER_TASK = 600.0  # seconds a decision may take before its gnubg is given up (a 4-ply cube: ~10 s)


class VerifyError(RuntimeError, BlunderError):
    """A run that cannot start (no gnubg) or a gnubg that failed."""


def _relative_owner(owner: int, player: int) -> int:
    """gnubg's cube owner with the player to act as gnubg's player 0."""
    return -1 if owner == -1 else (0 if owner == player else 1)


def met_file(name: Optional[str]) -> Optional[str]:
    """The MET file of gnubg's own folder an analysis names (None: gnubg's default)."""
    if not name:
        return None
    key = re.sub(r"[^a-z0-9]", "", Path(str(name)).stem.lower())
    if key == re.sub(r"[^a-z0-9]", "", DEFAULT_MET.lower()):
        return None
    if GNUBG_METS.is_dir():
        for f in GNUBG_METS.glob("*.xml"):
            if re.sub(r"[^a-z0-9]", "", f.stem.lower()) == key:
                return str(f)
    return None


def played_after(row: dict) -> Optional[str]:
    """The board the played move left (mover still on roll)."""
    cands = candidate_lists.decode(row.get("candidates"), row["position_id"], (row["dice1"], row["dice2"]),
                                   notation=False) if row.get("candidates") else None
    k = row.get("played_index")
    if cands is not None and k is not None and 0 <= k < len(cands):
        b = cands.board(k)
        if b:
            return b
    if row.get("played_move"):
        play = parse_move_notation(Board.from_position_id(row["position_id"]), row["dice1"], row["dice2"],
                                   row["played_move"])
        if play is not None:
            return play.result.position_id()
    return None


def stored_boards(row: dict) -> list:
    """The boards of the stored candidates (each to be evaluated at depth)."""
    if not row.get("candidates"):
        return []
    cands = candidate_lists.decode(row["candidates"], row["position_id"], (row["dice1"], row["dice2"]),
                                   notation=False)
    return [b for b in (cands.board(k) for k in range(len(cands))) if b]


def task_of(row: dict, plies: int) -> dict:
    """The gnubg task of one decision: its position with the player to act
    (checker) or the doubler (cube) as gnubg's player 0 on roll, the
    score, Crawford, cube, Jacoby (money), the MET."""
    length = int(row["length"])
    money = length == 0
    task = {"id": int(row["id"]), "plies": int(plies), "length": length, "met": met_file(row.get("met")),
            "jacoby": int(bool(row.get("jacoby")) and money), "beavers": 1}
    if row["kind"] == "checker":
        after = played_after(row)
        state = MatchState(cube=int(row["cube_value"]), cube_owner=_relative_owner(row["cube_owner"], row["player"]),
                           on_roll=0, crawford=bool(row["crawford"]) and not money,
                           dice=(int(row["dice1"]), int(row["dice2"])), match_length=length,
                           score=(int(row["score_self"]), int(row["score_opp"])), jacoby=bool(task["jacoby"]))
        need = [after] + [b for b in stored_boards(row) if b != after] if after else []
        task.update(kind="checker", matchid=state.match_id(), position_id=row["position_id"],
                    dice=[int(row["dice1"]), int(row["dice2"])], need=need, played_after=after)
        return task
    responder = row["kind"] in ("take", "pass")
    doubler = 1 - row["player"] if responder else row["player"]
    pid = Board.from_position_id(row["position_id"]).swapped().position_id() if responder else row["position_id"]
    score = (row["score_opp"], row["score_self"]) if responder else (row["score_self"], row["score_opp"])
    owner = _relative_owner(row["cube_owner"], doubler)
    crawford = bool(row["crawford"]) and not money
    state = MatchState(cube=int(row["cube_value"]), cube_owner=owner, on_roll=0, crawford=crawford,
                       match_length=length, score=(int(score[0]), int(score[1])), jacoby=bool(task["jacoby"]))
    task.update(kind="cube", matchid=state.match_id(), position_id=pid,
                cube={"value": int(row["cube_value"]), "owner": owner, "score": [int(score[0]), int(score[1])],
                      "crawford": int(crawford)})
    return task


def outcome(row: dict, task: dict, result: dict) -> Optional[dict]:
    """The verifications row of one gnubg result (None: not evaluated, with
    ``result['failed']`` set to say why)."""
    plies = task["plies"]
    base = {"decision_id": task["id"], "plies": plies, "engine": ENGINE,
            "met": None if task["length"] == 0 else (Path(task["met"]).stem if task["met"] else DEFAULT_MET)}
    if "failed" in result:
        return None
    if task["kind"] == "checker":
        got = checker_outcome(result["plays"], plies, task["played_after"])
        if got is None:
            result["failed"] = "gnubg's list holds no evaluation of the played move at that depth"
            return None
        plays = got["plays"]
        cands = [Candidate(p["move"], float(p["equity"]), p["after"], tuple(p["probs"]), f"{p['plies']}-ply")
                 for p in plays]
        d = decision_difficulty("checker", [c.equity for c in cands], None, None, None)
        base.update(error=got["error"], best_move=got["best_move"], played_index=got["played_index"],
                    difficulty=d, candidates=candidate_lists.encode(cands))
        return base
    nd, dt, dp = (float(result[k]) for k in ("nd", "dt", "dp"))
    kind = row["kind"]
    error = cube_errors(nd, dt, dp)[kind]
    best = ("take" if dt <= dp else "pass") if kind in ("take", "pass") else cube_action(nd, dt, dp)
    base.update(error=max(0.0, error), best_move=best, nd=nd, dt=dt, dp=dp,
                difficulty=decision_difficulty(kind, [], nd, dt, dp))
    return base


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """The child gnubg ends when this process does (Linux: PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _start(tasks: list, folder: Path, k: int) -> tuple:
    job = folder / f"tasks-{k}.json"
    out = folder / f"out-{k}.jsonl"
    job.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    out.write_text("", encoding="utf-8")
    env = dict(os.environ, GNUBG_BLUNDER_VERIFY_TASKS=str(job), GNUBG_BLUNDER_VERIFY_OUT=str(out),
               GNUBG_BLUNDER_VERIFY_PATH=str(PACKAGE_PARENT))
    log = open(folder / f"gnubg-{k}.log", "w+", encoding="utf-8", errors="replace")
    proc = subprocess.Popen([find_gnubg(), "-t", "-q", "-r", "-p", str(SCRIPT)], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(folder),
                            preexec_fn=_die_with_parent if os.name == "posix" else None)
    return proc, out, log


def evaluate(rows: list, plies_of: dict, jobs: int, on_result: Callable[[dict, dict, dict], None],
             say: Optional[Callable[[str], None]] = None) -> None:
    """Evaluate ``rows`` (store.verifications.targets dicts) in ``jobs``
    gnubg processes; ``on_result(row, task, result)`` for each as it comes
    (in this process: the caller stores it)."""
    tasks = [task_of(r, plies_of[int(r["id"])]) for r in rows]
    by_id = {t["id"]: (r, t) for r, t in zip(rows, tasks)}
    jobs = max(1, min(int(jobs), len(tasks)))
    shares = [tasks[k::jobs] for k in range(jobs)]

    # in this run's own folder: a killed run's is removed by the next run (docs/reliability.md, "After a kill")
    with tempfile.TemporaryDirectory(prefix="verify-", dir=run_folder(say)) as tmp:
        folder = Path(tmp)
        running = [(*_start(share, folder, k), len(share)) for k, share in enumerate(shares)]
        offsets = [0] * len(running)
        done = [False] * len(running)
        last = time.monotonic()
        try:
            while not all(done):
                moved = False
                for k, (proc, out, log, _n) in enumerate(running):
                    if done[k]:
                        continue
                    with open(out, encoding="utf-8") as fh:
                        fh.seek(offsets[k])
                        text = fh.read()
                    complete = text[:text.rfind("\n") + 1] if "\n" in text else ""
                    offsets[k] += len(complete.encode("utf-8"))
                    for line in complete.splitlines():
                        result = json.loads(line)
                        if result.get("done"):
                            done[k] = True
                            continue
                        row, task = by_id[int(result["id"])]
                        on_result(row, task, result)
                        moved = True
                    if not done[k] and proc.poll() is not None:
                        log.seek(0)
                        said = log.read()[-400:].strip().splitlines()
                        raise VerifyError(f"gnubg stopped (exit status {proc.returncode}) before the end of its "
                                          f"decisions: {said[-1] if said else 'no output'}")
                now = time.monotonic()
                if moved:
                    last = now
                elif now - last > TIMEOUT_PER_TASK:
                    raise VerifyError(f"gnubg gave no evaluation for {TIMEOUT_PER_TASK:.0f} s")
                if not all(done):
                    time.sleep(0.05)
            for proc, _out, _log, _n in running:
                proc.wait(timeout=60)
        finally:
            for proc, _out, log, _n in running:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                log.close()


def hint_commands(task: dict, wide: bool = False) -> str:
    """gnubg command lines that show a task's position and gnubg's own
    ``hint`` at the task's settings (docs/verify.md: what a player types
    to see the same numbers; the tests compare with them).  ``wide``: with
    the move filter that keeps every play at each level (how the played
    move and the stored candidates are evaluated when gnubg's filter
    prunes them)."""
    plies = task["plies"]
    lines = ["set player 0 human", "set player 1 human", "set output mwc off"]
    for what in ("chequerplay", "cubedecision"):
        base = f"set evaluation {what} evaluation "
        lines += [base + f"plies {plies}", base + "cubeful on", base + "deterministic on", base + "noise 0",
                  base + "prune on"]
    if wide:
        lines += [f"set evaluation movefilter {plies} {level} 1000 0 0.0" for level in range(plies)]
    if task.get("met"):
        lines.append(f"set matchequitytable {task['met']}")
    lines += [f"set jacoby {'on' if task['jacoby'] else 'off'}", f"set beavers {3 if task['beavers'] else 0}"]
    length = task["length"]
    lines.append(f"new match {length}" if length else "new session")
    lines += [f"set matchid {task['matchid']}", f"set board {task['position_id']}"]
    lines.append(f"hint {WIDE_HINT}")
    return "\n".join(lines) + "\n"


# gnubg's printed hint: "    1. Cubeful 2-ply    22/17* 16/15       Eq.: +0.792" and "1. Double, take   +0.911"
_HINT_MOVE = re.compile(r"^\s*\d+\.\s+Cubeful (\d)-ply\s+(.+?)\s+Eq\.:\s+([+-]\d+\.\d+)")
_HINT_CUBE = re.compile(r"^\s*\d\.\s+(No double|Double, take|Double, pass)\s+([+-]\d+\.\d+)")


def parse_hint(text: str) -> dict:
    """gnubg's printed ``hint``: {"plays": [(move, plies, equity)], "cube":
    {"No double": x, "Double, take": x, "Double, pass": x}} (3 decimals)."""
    plays, cube = [], {}
    for line in text.splitlines():
        m = _HINT_MOVE.match(line)
        if m:
            plays.append((m.group(2), int(m.group(1)), float(m.group(3))))
            continue
        m = _HINT_CUBE.match(line)
        if m:
            cube[m.group(1)] = float(m.group(2))
    return {"plays": plays, "cube": cube}
