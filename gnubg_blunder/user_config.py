"""The user's own configuration: a YAML file in the user's config directory.

The saved filter lives here (SPEC §14: "the filter persists between runs";
it belongs to the user, not to a database), and the report's automatic
path.  Settings that travel with a database (thresholds, main player, PR
goal) live in its metadata table: :mod:`.db_settings`.
"""

from __future__ import annotations

import os
from pathlib import Path

from .filters import Filter

FILTER_KEYS = ("player", "date_from", "date_to", "lengths", "tournaments", "decision_type", "engine", "min_depth",
               "family", "collection")


def config_path() -> Path:
    """``$GNUBG_BLUNDER_CONFIG``, else ``$XDG_CONFIG_HOME/gnubg-blunder/config.yaml``
    (``~/.config/...``)."""
    env = os.environ.get("GNUBG_BLUNDER_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "gnubg-blunder" / "config.yaml"


def load_config() -> dict:
    path = config_path()
    if not path.exists():
        return {}
    import yaml  # here: a command run without a saved filter file imports no YAML

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not a readable YAML file ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top")
    return data


def save_config(data: dict) -> Path:
    import yaml

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=True, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    return path


def saved_filter() -> dict:
    """The saved filter's values (only those set)."""
    f = load_config().get("filter") or {}
    return {k: v for k, v in f.items() if k in FILTER_KEYS and v is not None}


def save_filter(values: dict) -> Path:
    data = load_config()
    data["filter"] = {k: v for k, v in values.items() if k in FILTER_KEYS and v is not None}
    return save_config(data)


def merged_filter(flags: dict, use_config: bool = True) -> Filter:
    """The saved filter, overridden by the flags given for this run (SPEC
    §14: flags apply to one run)."""
    values = saved_filter() if use_config else {}
    values.update({k: v for k, v in flags.items() if v is not None})
    if values.get("lengths") is not None:
        values["lengths"] = tuple(values["lengths"])
    if values.get("tournaments") is not None:
        values["tournaments"] = tuple(values["tournaments"])
    return Filter(**{k: values[k] for k in FILTER_KEYS if k in values})


def filter_flags(args) -> dict:
    """The filter flags given on the command line (None = not given)."""
    return {
        "player": getattr(args, "player", None),
        "date_from": getattr(args, "date_from", None),
        "date_to": getattr(args, "date_to", None),
        "lengths": tuple(args.lengths) if getattr(args, "lengths", None) else None,
        "tournaments": tuple(args.tournaments) if getattr(args, "tournaments", None) else None,
        "decision_type": getattr(args, "decision_type", None),
        "engine": getattr(args, "engine", None),
        "min_depth": getattr(args, "min_depth", None),
        "family": getattr(args, "family", None),
        "collection": getattr(args, "collection", None),
    }
