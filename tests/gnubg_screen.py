"""gnubg's ``show statistics match`` screen as numbers, for the tests.

The screen is a table: a ``Player  NAME1  NAME2`` line, then sections whose
title ends in ``statistics`` (``Chequerplay statistics``, ``Luck statistics``,
``Cube statistics``, ``Overall statistics``), each line a label and one column
a player.  A value is a number (``54``, ``-29.9``, ``-50.00%``) or a number
with a second one in brackets (``-1.612 (-18.095%)``); the bracketed one is
stored under ``"<section>:<label> paren"``; a count of missed or wrong cube
decisions with its EMG and MWC (``2 (-0.045 (-0.523%))``) gives the count, the
EMG under ``" EMG"`` and the MWC under ``" paren"``.  Keys are
``"<section>:<label>"`` with the section's first word in lower case, e.g.
``"overall:Error total EMG (MWC)"``.  Lines without a number for each player
(ratings, the one-sided FIBS rating difference) are left out.
"""

from __future__ import annotations

import re

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_WITH_BRACKETS = re.compile(rf"({_NUMBER})\s*\(\s*({_NUMBER})%?\s*\)")
_PLAIN = re.compile(rf"({_NUMBER})%?(?=\s|$)")
# "Missed doubles ... (EMG (MWC))": a count, then its EMG and MWC in brackets
_COUNTED = re.compile(rf"(\d+)\s*\(\s*({_NUMBER})\s*\(\s*({_NUMBER})%?\s*\)\s*\)")


def parse_statistics(text: str) -> dict:
    """The last statistics table in ``text`` -> {player: {key: float}}."""
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Player ")]
    if not heads:
        raise ValueError("no 'Player' line: not a gnubg statistics screen")
    head = lines[heads[-1]]
    names = re.split(r"\s{2,}", head[len("Player"):].strip())
    table: dict = {name: {} for name in names}
    section = None
    for line in lines[heads[-1] + 1:]:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.endswith(" statistics") and not re.search(r"\d", stripped):
            section = stripped.split()[0].lower()
            continue
        if section is None:
            continue
        parts = re.split(r"\s{2,}", stripped, maxsplit=1)
        if len(parts) != 2:
            continue
        label, values = parts
        key = f"{section}:{label}"
        counted = _COUNTED.findall(values)
        if counted and len(counted) + len(_PLAIN.findall(_COUNTED.sub("", values))) == len(names):
            # a player without such errors has a bare 0
            found = iter(counted)
            for name, chunk in zip(names, re.findall(rf"\d+\s*\([^()]*\([^()]*\)\s*\)|{_NUMBER}", values)):
                if "(" in chunk:
                    count, emg, mwc = next(found)
                    table[name].update({key: float(count), key + " EMG": float(emg), key + " paren": float(mwc)})
                else:
                    table[name][key] = float(chunk)
            continue
        pairs = _WITH_BRACKETS.findall(values)
        if len(pairs) == len(names):
            for name, (value, bracket) in zip(names, pairs):
                table[name][key] = float(value)
                table[name][key + " paren"] = float(bracket)
            continue
        plain = _PLAIN.findall(values)
        if len(plain) == len(names) and "(" not in values:
            for name, value in zip(names, plain):
                table[name][key] = float(value)
    return table
