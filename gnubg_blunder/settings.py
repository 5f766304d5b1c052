"""Per-database settings kept in the store's metadata (they travel with the file)."""

from __future__ import annotations

from .metrics.counting import THRESHOLD_PRESETS, Thresholds

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
