"""What a plugin's hooks hand back, as typed protocols (the plugin API, docs/plugins.md).

Three hooks take objects from a plugin (``hookspecs.py``): an importer
(``register_importers``), a report section (``register_report_sections``)
and a metric (``register_metrics``).  Their shapes are written here once, as
:class:`typing.Protocol` s, so that a plugin author (and a type checker) can
hold a plugin's object against them.  Nothing needs to subclass them: any
object of that shape is one (structural typing).

This module imports nothing heavy (no numpy, no store): the types it names
are for type checkers only, so ``import gnubg_blunder.protocols`` is cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .arrays import Selection
    from .metrics.counting import Thresholds
    from .model import Match
    from .views.report import ReportContext


@runtime_checkable
class Importer(Protocol):
    """A reader of match files, given to ``register_importers``' ``register``.

    ``import`` calls ``read(path)``; ``convert`` calls
    ``read(path, require_analysis=False)`` (a match without analysis is read
    too) where the importer takes that keyword.  For a file it cannot read,
    ``read`` raises ``gnubg_blunder.MatchImportError`` with one line for the
    user.  ``isinstance(obj, Importer)`` checks that the three members exist."""

    #: shown by ``gnubg-blunder plugins`` and ``import --help``
    name: str
    #: the suffixes it reads, with the dot (``(".sgf",)``; compared without case)
    extensions: tuple

    def read(self, path: Path, require_analysis: bool = True) -> list["Match"]:
        """The matches of one file."""
        ...


@runtime_checkable
class ReportSection(Protocol):
    """One section of the HTML report, given to ``register_report_sections``'
    ``register(name, function, order=100)`` as ``function``: an HTML fragment
    (usually one ``<section id="...">``) over the report's scope, or an
    empty string to leave the section out."""

    def __call__(self, context: "ReportContext") -> str:
        ...


@runtime_checkable
class PluginMetric(Protocol):
    """A metric ``stats`` shows, given to ``register_metrics``'
    ``register(name, function)`` as ``function``: pure (arrays in, figures
    out: no SQL, no I/O), called by position; the dict's values are numbers,
    strings or None (never measured)."""

    def __call__(self, selection: "Selection", thresholds: "Thresholds", decision_type: str) -> dict:
        ...
