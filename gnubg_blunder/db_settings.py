"""Settings kept in the database, in the store's metadata (they travel with
the file): the error thresholds, the main player, the PR goal.  The user's
own saved filter is a YAML file: :mod:`.user_config`.  No SQL here: the
store's ``get_meta``/``set_meta``/``delete_meta``."""

from __future__ import annotations
import datetime as dt
import json
import re

from .metrics.counting import THRESHOLD_PRESETS, Thresholds
from .metrics import vocabulary

ERROR_KEY = "error_threshold"
BLUNDER_KEY = "blunder_threshold"


def thresholds_for(store) -> Thresholds:
    """SPEC §3: defaults 0.050 / 0.100 EMG unless the database says otherwise."""
    default = THRESHOLD_PRESETS["default"]
    err = store.get_meta(ERROR_KEY)
    blunder = store.get_meta(BLUNDER_KEY)
    return Thresholds(
        float(err) if err is not None else default.error,
        float(blunder) if blunder is not None else default.blunder,
    )

MAIN_PLAYER_KEY = "main_player"
GOAL_KEY = "goal"


def main_player(store):
    """Whose database it is (SPEC §14): the default perspective of reviews
    and of the tournament list.  None when not set."""
    return store.get_meta(MAIN_PLAYER_KEY)


def set_main_player(store, name: str) -> None:
    """Set the main player as given (``main-player`` checks that a stored
    match has that player first)."""
    store.set_meta(MAIN_PLAYER_KEY, name)


def clear_main_player(store) -> None:
    store.delete_meta(MAIN_PLAYER_KEY)


def parse_goal(text: str) -> tuple:
    """``"PR < 5"`` -> ("pr", "<", 5.0).  Metrics: PR, MWC, MWC7 (L7)."""
    m = re.fullmatch(r"\s*([a-z0-9_]+)\s*(<=|<)\s*([0-9]+(?:\.[0-9]+)?)\s*", text, re.IGNORECASE)
    try:
        metric = vocabulary.metric(m.group(1).lower()).key if m else None
    except ValueError:
        metric = None
    if metric is None:
        raise ValueError(f"goal {text!r}: write it like \"PR < 5\" (PR, MWC or MWC7, then < or <=, then a number)")
    return metric, m.group(2), float(m.group(3))


def get_goal(store):
    """The PR goal, from the database's metadata (it travels with the file):
    {"metric", "op", "target", "set_on", "deadline"} or None."""
    raw = store.get_meta(GOAL_KEY)
    return json.loads(raw) if raw else None


def set_goal(store, text: str, weeks: float, today=None) -> dict:
    if not weeks or weeks <= 0:
        raise ValueError("a goal needs a positive number of weeks")
    metric, op, target = parse_goal(text)
    today = today or dt.date.today()
    goal = {"metric": metric, "op": op, "target": target, "set_on": today.isoformat(),
            "deadline": (today + dt.timedelta(weeks=weeks)).isoformat()}
    store.set_meta(GOAL_KEY, json.dumps(goal))
    return goal


def clear_goal(store) -> None:
    store.delete_meta(GOAL_KEY)


def set_thresholds(store, error: float, blunder: float) -> Thresholds:
    if not (0 < error <= blunder):
        raise ValueError("thresholds: 0 < error <= blunder (EMG, e.g. 0.050 0.100)")
    store.set_meta(ERROR_KEY, repr(float(error)))
    store.set_meta(BLUNDER_KEY, repr(float(blunder)))
    return Thresholds(error, blunder)
