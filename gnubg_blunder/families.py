"""The names of the study plan's families (SPEC §9): every possible family
and the one spelling of each, without numpy.

A family is (game plan, nature, theme); its name is one string, the same
in every command, the ``--family`` filter and the study plan
(:mod:`.metrics.plan`, which re-exports these names and computes the
families of a selection).  Here, below the filter and the metrics, so that
:class:`.filters.Filter` checks a ``--family`` without importing a metric
rule.
"""

from __future__ import annotations
import difflib

from .labels import ALL_GAME_PLANS, CHECKER_THEMES, CUBE_THEMES

FAMILY_SEPARATOR = "/"
CHECKER, CUBE = "checker", "cube"
NATURES = (CHECKER, CUBE)
NATURE_THEMES = {CHECKER: tuple(CHECKER_THEMES), CUBE: tuple(CUBE_THEMES)}

# every possible family, in code order: game plan, then nature, then theme
FAMILIES = tuple((plan, nature, theme) for plan in ALL_GAME_PLANS for nature in NATURES
                 for theme in NATURE_THEMES[nature])


def family_name(game_plan: str, nature: str, theme: str) -> str:
    """The one spelling of a family: ``"holding game/checker/too many blots"``."""
    return FAMILY_SEPARATOR.join((game_plan, nature, theme))


FAMILY_NAMES = tuple(family_name(*f) for f in FAMILIES)
FAMILY_INDEX = {name: k for k, name in enumerate(FAMILY_NAMES)}
_BY_FOLDED = {name.casefold(): name for name in FAMILY_NAMES}


def closest_families(text: str, limit: int = 5) -> list:
    """The family names nearest to ``text`` (containing it, then alike)."""
    low = " ".join(str(text).split()).casefold()
    parts = [p.strip() for p in low.split(FAMILY_SEPARATOR) if p.strip()]
    containing = [n for n in FAMILY_NAMES if parts and all(p in n.casefold() for p in parts)]
    alike = [_BY_FOLDED[k] for k in difflib.get_close_matches(low, list(_BY_FOLDED), n=limit, cutoff=0.4)]
    out = []
    for n in alike + containing:
        if n not in out:
            out.append(n)
    return out[:limit]


def parse_family(text: str) -> tuple:
    """(game plan, nature, theme) of a family name as a user typed it
    (case and spaces around the separator do not matter); ValueError with
    the closest names otherwise."""
    parts = [" ".join(p.split()) for p in str(text).split(FAMILY_SEPARATOR)]
    name = _BY_FOLDED.get(FAMILY_SEPARATOR.join(parts).casefold())
    if name is None:
        near = closest_families(text)
        hint = f" (closest: {'; '.join(near)})" if near else ""
        raise ValueError(f"no family {str(text)!r}: a family is GAME PLAN{FAMILY_SEPARATOR}checker|cube"
                         f"{FAMILY_SEPARATOR}THEME{hint}")
    return FAMILIES[FAMILY_INDEX[name]]


def canonical_family(text: str) -> str:
    """The family's one spelling (``parse_family`` then ``family_name``)."""
    return family_name(*parse_family(text))
