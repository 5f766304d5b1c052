"""The user's own configuration: a YAML file in the user's config directory.

The saved filters live here (SPEC §14: "the filter persists between runs"),
one per database, keyed by :func:`database_key`: they belong to the user,
not to the database, but a player or a collection of one database is
usually in no other.  The report's automatic path lives here too.  Settings
that travel with a database (thresholds, main player, PR goal) live in its
metadata table: :mod:`.db_settings`.  docs/commands.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from .filters import Filter, SavedFrom, filter_keys, flags_given, repeated_keys
from .store import default_db_path, is_database_url, shown_database
from .store.pg_sql import without_password

FILTER_KEYS = filter_keys()  # the saved filter's keys: the filter's criteria (filters.py)


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


FILTERS = "filters"  # the config's mapping: database key -> its saved filter
OLD_GLOBAL_FILTER = "filter"  # the one filter of every database, as versions before per-database filters saved it


def database_key(database) -> str:
    """How the config file names a database: a file's path made absolute
    (``my.db`` and ``./my.db`` are one database), a PostgreSQL URL without
    its password (the config file keeps no secret)."""
    if is_database_url(database):
        return without_password(database)
    return shown_database(Path(os.fsdecode(os.fspath(database))).expanduser().resolve())


def _is_default(database) -> bool:
    return database_key(database) == database_key(default_db_path())


def _saved_entry(data: dict, database) -> tuple:
    """``(values, old)``: the database's saved filter as the config holds it,
    and whether it is the old global one.  That one (saved before filters
    were per database) is the default database's until the default database
    saves its own: it no longer applies to any other database."""
    filters = data.get(FILTERS) or {}
    if not isinstance(filters, dict):
        raise ValueError(f"{config_path()}: '{FILTERS}' is not a mapping of databases to filters")
    key = database_key(database)
    if key in filters:
        return filters[key] or {}, False
    old = data.get(OLD_GLOBAL_FILTER)
    if old and _is_default(database):
        return old, True
    return {}, False


def saved_filter(database) -> dict:
    """The saved filter's values of ``database`` (only those set)."""
    values, _ = _saved_entry(load_config(), database)
    if not isinstance(values, dict):
        raise ValueError(f"{config_path()}: the saved filter of {database_key(database)} is not a mapping")
    return {k: v for k, v in values.items() if k in FILTER_KEYS and v is not None}


def is_old_global_filter(database) -> bool:
    """The database's saved filter is the old global one (:func:`_saved_entry`)."""
    return _saved_entry(load_config(), database)[1]


def save_filter(database, values: dict) -> Path:
    """Save ``database``'s filter (none set: forget it).  The default
    database's own replaces the old global filter."""
    data = load_config()
    filters = data.get(FILTERS) or {}
    if not isinstance(filters, dict):
        raise ValueError(f"{config_path()}: '{FILTERS}' is not a mapping of databases to filters")
    kept = {k: v for k, v in values.items() if k in FILTER_KEYS and v is not None}
    key = database_key(database)
    if kept:
        filters[key] = kept
    else:
        filters.pop(key, None)
    if filters:
        data[FILTERS] = filters
    else:
        data.pop(FILTERS, None)
    if _is_default(database):
        data.pop(OLD_GLOBAL_FILTER, None)
    return save_config(data)


def merged_filter(flags: dict, database, use_config: bool = True) -> Filter:
    """``database``'s saved filter, overridden by the flags given for this
    run (SPEC §14: flags apply to one run).  The filter knows which values
    are the saved ones (``Filter.origin``), and a value refused here because
    of a saved one says so."""
    given = {k: v for k, v in flags.items() if v is not None}
    saved = saved_filter(database) if use_config else {}
    values = {**saved, **given}
    from_saved = frozenset(k for k in saved if k not in given)
    saved_from = None
    if from_saved:
        saved_from = SavedFrom(shown_database(database), from_saved)
    try:
        return _filter_of(values, saved_from)
    except ValueError as exc:
        if saved_from is None:
            raise
        try:
            _filter_of(given, None)
        except ValueError:
            raise exc from None  # the flags alone are refused: theirs is the mistake
        raise ValueError(f"{exc}{saved_from.note()}") from None


def _filter_of(values: dict, saved_from) -> Filter:
    values = dict(values)
    for k in repeated_keys():
        if values.get(k) is not None:
            values[k] = tuple(values[k])
    return Filter(**{k: values[k] for k in FILTER_KEYS if k in values}, saved_from=saved_from)


def filter_flags(args) -> dict:
    """The filter flags given on the command line (None = not given)."""
    return flags_given(args)
