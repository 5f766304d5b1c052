"""Command-line options declared on a dataclass's fields: a field's
metadata names its flag(s), help, metavar, type, choices and whether it
repeats, and :func:`add_options` adds them to an argparse parser in the
fields' order.  The filter's criteria (:mod:`.filters`) are declared so:
one declaration, from which the flags are made.

Nothing but the standard library: ``--help`` builds its parsers from these.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

OPTION = "gnubg_blunder.option"  # the metadata key of a field's Option


@dataclass(frozen=True)
class Option:
    """One command-line option: ``add_argument(*flags, dest=<field>, ...)``.
    ``repeat``: ``action="append"`` (the option given several times).
    ``None`` is "not given" everywhere: an argument left ``None`` is not
    passed to argparse."""

    flags: tuple
    help: Optional[str] = None
    metavar: Optional[str] = None
    type: Optional[Callable] = None
    choices: Optional[tuple] = None
    repeat: bool = False
    action: Optional[str] = None  # e.g. "store_true"

    def add_to(self, parser, dest: str, default=None) -> None:
        """Add this option to ``parser``, its value in ``dest``."""
        kwargs = {"dest": dest, "metavar": self.metavar, "type": self.type, "choices": self.choices,
                  "action": "append" if self.repeat else self.action, "help": self.help, "default": default}
        parser.add_argument(*self.flags, **{k: v for k, v in kwargs.items() if v is not None})

    @property
    def flag(self) -> str:
        """The option's first flag (``--from``), as a command line spells it."""
        return self.flags[0]


def option_of(f: dataclasses.Field) -> Optional[Option]:
    """The :class:`Option` declared on a dataclass field, None for a field
    that is no option."""
    return f.metadata.get(OPTION)


def options(cls) -> tuple:
    """``(field name, Option)`` of each field of ``cls`` that is an option,
    in the fields' order."""
    return tuple((f.name, option_of(f)) for f in dataclasses.fields(cls) if option_of(f) is not None)


def add_options(parser, cls, leave_out: tuple = ()) -> None:
    """Add the options of ``cls``'s fields to ``parser``, in the fields'
    order, but for the fields named in ``leave_out``."""
    for name, opt in options(cls):
        if name not in leave_out:
            opt.add_to(parser, name)
