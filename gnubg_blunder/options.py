"""Command-line options declared on a dataclass's fields: a field's
metadata names its flag(s), help, metavar, type, choices and whether it
repeats, and :func:`add_options` adds them to an argparse parser in the
fields' order.  The filter's criteria (:mod:`.filters`) are declared so,
and each view's own parameters (a dataclass of :func:`param` fields,
``View.params``): one declaration, from which the flags are made and the
parsed arguments read back (:func:`from_args`).

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
    A first flag without a leading ``-`` is a positional argument (its
    value in the field of its name).  ``None`` is "not given" everywhere:
    an argument left ``None`` is not passed to argparse."""

    flags: tuple
    help: Optional[str] = None
    metavar: Optional[str] = None
    type: Optional[Callable] = None
    choices: Optional[tuple] = None
    repeat: bool = False
    action: Optional[str] = None  # e.g. "store_true"
    nargs: Optional[str] = None  # e.g. "?": an optional value (with ``const`` when given bare)
    const: object = None
    group: Optional[str] = None  # options of one group name: at most one of them given (mutually exclusive)

    @property
    def positional(self) -> bool:
        return not self.flags[0].startswith("-")

    def add_to(self, parser, dest: str, default=None) -> None:
        """Add this option to ``parser``, its value in ``dest`` (a
        positional argument's is its own name)."""
        kwargs = {"dest": None if self.positional else dest, "nargs": self.nargs, "const": self.const,
                  "metavar": self.metavar, "type": self.type, "choices": self.choices,
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


def add_options(parser, cls, leave_out: tuple = (), defaults: bool = False) -> None:
    """Add the options of ``cls``'s fields to ``parser``, in the fields'
    order, but for the fields named in ``leave_out``; ``defaults``: each
    with its field's default (a view's parameters)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    groups: dict = {}  # a mutually exclusive group, made where its first option comes
    for name, opt in options(cls):
        if name not in leave_out:
            target = parser
            if opt.group is not None:
                target = groups.get(opt.group) or groups.setdefault(opt.group, parser.add_mutually_exclusive_group())
            opt.add_to(target, name, _default(fields[name]) if defaults else None)


def param(option: Option, default=None):
    """A field of a view's parameters: its default (also the option's) and
    its :class:`Option`."""
    return dataclasses.field(default=default, metadata={OPTION: option})


def from_args(cls, args):
    """An instance of ``cls`` (a parameters dataclass) from parsed
    arguments: each option field's value, its default where ``args`` has
    none (a caller that built them by hand, e.g. gnubg's console)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    return cls(**{name: getattr(args, name, _default(fields[name])) for name, _ in options(cls)})


def _default(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None
