"""SGF syntax for GNU Backgammon files (``GM[6]``): the tokenizer/parser of the
collection structure (game trees, nodes, properties, values unescaped).  What
the values mean (gnubg's layouts) is :mod:`.sgf_values`.

Structure::

    collection = game-tree+
    game-tree  = "(" node+ game-tree* ")"
    node       = ";" property*
    property   = IDENT value+          IDENT = one or more of A-Z
    value      = "[" text "]"          "\\" escapes the next character,
                                       "\\" + line break is removed

Whitespace is allowed between all tokens. Values are returned unescaped, with
line breaks normalised to ``"\\n"`` and nothing else changed. A property
repeated in one node (gnubg does it for a comment on a resignation) is kept as
one property with all the values in file order.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from ..errors import BlunderError
from .files import read_match_bytes
from ..text import safe_text

__all__ = [
    "SgfSyntaxError",
    "Node",
    "GameTree",
    "parse_sgf",
    "read_sgf",
    "decode_sgf_bytes",
]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class SgfSyntaxError(ValueError, BlunderError):
    """The text is not a well-formed SGF collection.

    ``str(err)`` is one line: ``"<source>: <problem> at line L:C"``.
    ``source``, ``problem``, ``line`` and ``column`` (1-based, column in
    characters) are kept as attributes; ``line``/``column`` are ``None`` when
    the problem has no position (e.g. an empty file).
    """

    def __init__(self, source: str, problem: str, line: Optional[int] = None, column: Optional[int] = None):
        self.source = source
        self.problem = problem
        self.line = line
        self.column = column
        where = f" at line {line}:{column}" if line is not None else ""
        super().__init__(f"{source}: {problem}{where}")


# ---------------------------------------------------------------------------
# Tree structure
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Node:
    """One SGF node: its properties in file order, values unescaped."""

    props: dict = field(default_factory=dict)  # dict[str, list[str]]
    line: int = 0  # position of the node's ';' (1-based)
    column: int = 0

    def get(self, name: str, default=None):
        """First value of property ``name``, or ``default`` when absent."""
        values = self.props.get(name)
        return values[0] if values else default

    def values(self, name: str) -> list:
        """All values of property ``name`` (a new list; empty when absent)."""
        return list(self.props.get(name, ()))

    def __contains__(self, name: object) -> bool:
        return name in self.props

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" if len(v) > 1 else f"{k}={v[0]!r}" for k, v in self.props.items())
        if len(shown) > 120:
            shown = shown[:117] + "..."
        return f"Node({shown} @{self.line}:{self.column})"


@dataclass(eq=False)
class GameTree:
    """A game tree: the main line ``nodes`` and the ``variations`` after it
    (gnubg writes no variations; they are kept, not interpreted)."""

    nodes: list = field(default_factory=list)  # list[Node]
    variations: list = field(default_factory=list)  # list[GameTree]
    line: int = 0  # position of the tree's '('
    column: int = 0

    @property
    def root(self) -> Node:
        return self.nodes[0]

    def __repr__(self) -> str:
        return f"GameTree({len(self.nodes)} nodes, {len(self.variations)} variations @{self.line}:{self.column})"


# ---------------------------------------------------------------------------
# Tokenizer / parser
# ---------------------------------------------------------------------------

_VALUE_STOP = re.compile(r"[\\\]]")
_IDENT_CHARS = re.compile(r"[A-Za-z0-9_]+")


class _Parser:
    def __init__(self, text: str, source: str):
        if text.startswith("\ufeff"):
            text = text[1:]
        self.text = text
        self.source = source
        self.n = len(text)
        self._newlines: Optional[list] = None

    # positions -----------------------------------------------------------
    def where(self, pos: int) -> tuple:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect_right(self._newlines, pos - 1)  # newlines strictly before pos
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, pos - start + 1

    def error(self, problem: str, pos: Optional[int] = None) -> SgfSyntaxError:
        if pos is None:
            return SgfSyntaxError(self.source, problem)
        line, col = self.where(pos)
        return SgfSyntaxError(self.source, problem, line, col)

    def skip_ws(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n and text[i].isspace():
            i += 1
        return i

    @staticmethod
    def show(ch: str) -> str:
        return repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"

    # grammar -------------------------------------------------------------
    def parse(self, first_node_only: bool = False) -> list:
        text = self.text
        trees: list = []
        stack: list = []  # open game trees, innermost last
        i = self.skip_ws(0)
        while i < self.n:
            ch = text[i]
            if ch == "(":
                line, col = self.where(i)
                tree = GameTree(line=line, column=col)
                if stack:
                    parent = stack[-1]
                    if not parent.nodes:
                        raise self.error("variation before the first node of a game tree", i)
                    parent.variations.append(tree)
                else:
                    trees.append(tree)
                stack.append(tree)
                i += 1
            elif ch == ")":
                if not stack:
                    raise self.error("unbalanced ')' outside a game tree", i)
                tree = stack.pop()
                if not tree.nodes:
                    raise self.error("empty game tree (no node) closed", i)
                i += 1
            elif ch == ";":
                if not stack:
                    raise self.error("node ';' outside a game tree", i)
                tree = stack[-1]
                if tree.variations:
                    raise self.error("node after a variation in the same game tree", i)
                node, i = self.parse_node(i)
                tree.nodes.append(node)
                if first_node_only:
                    return trees
            elif not stack:
                raise self.error(f"unexpected {self.show(ch)} outside a game tree", i)
            else:
                raise self.error(f"unexpected {self.show(ch)} in a game tree (expected ';', '(' or ')')", i)
            i = self.skip_ws(i)
        if stack:
            tree = stack[-1]
            raise self.error(
                f"unterminated game tree (missing ')') starting at line {tree.line}:{tree.column}; file ends",
                self.n,
            )
        if not trees:
            raise self.error("empty collection: no game tree")
        return trees

    def parse_node(self, i: int) -> tuple:
        text, n = self.text, self.n
        line, col = self.where(i)
        node = Node(line=line, column=col)
        props = node.props
        i += 1
        while True:
            i = self.skip_ws(i)
            if i >= n or text[i] in "();":
                return node, i
            m = _IDENT_CHARS.match(text, i)
            if m is None:
                raise self.error(f"unexpected {self.show(text[i])} in a node (expected a property identifier)", i)
            ident = m.group()
            if not ("A" <= ident[0] <= "Z" and ident.isalpha() and ident.isupper() and ident.isascii()):
                raise self.error(f"invalid property identifier {ident!r} (must be upper-case letters A-Z)", i)
            ident_pos = i
            i = self.skip_ws(m.end())
            if i >= n or text[i] != "[":
                raise self.error(f"property {ident} has no value", ident_pos)
            values = []
            find = text.find
            while i < n and text[i] == "[":
                j = find("]", i + 1)
                if j >= 0 and find("\\", i + 1, j) < 0:  # no escape (nearly every value gnubg writes): one slice
                    value = text[i + 1:j]
                    if "\r" in value:
                        value = value.replace("\r\n", "\n").replace("\r", "\n")
                    i = j + 1
                else:
                    value, i = self.parse_value(i)
                values.append(value)
                if i < n and text[i].isspace():
                    i = self.skip_ws(i)
            if ident in props:
                # SGF forbids it, but gnubg writes it: a comment on a
                # resignation (which has no node) is appended to the previous
                # node as a second C[]. Keep every value, in file order.
                props[ident].extend(values)
            else:
                props[ident] = values

    def parse_value(self, i: int) -> tuple:
        text, n = self.text, self.n
        start = i
        i += 1
        parts = []
        while True:
            m = _VALUE_STOP.search(text, i)
            if m is None:
                raise self.error("unterminated property value starting", start)
            j = m.start()
            if j > i:
                parts.append(text[i:j])
            if text[j] == "]":
                value = "".join(parts)
                if "\r" in value:
                    value = value.replace("\r\n", "\n").replace("\r", "\n")
                return value, j + 1
            # backslash escape
            if j + 1 >= n:
                raise self.error("unterminated property value starting", start)
            nxt = text[j + 1]
            if nxt == "\n" or nxt == "\r":
                # soft line break: "\" + line break is removed
                i = j + 2
                if i < n and text[i] in "\r\n" and text[i] != nxt:
                    i += 1
            else:
                parts.append(nxt)
                i = j + 2


def parse_sgf(text: str, source: str = "<string>") -> list:
    """Parse an SGF collection; returns its game trees (``list[GameTree]``).

    Raises :class:`SgfSyntaxError` (a ``ValueError``) naming ``source``, the
    problem and its line:column.
    """
    if not isinstance(text, str):
        raise TypeError("parse_sgf() needs str; use read_sgf() or decode_sgf_bytes() for bytes")
    return _Parser(text, source).parse()


def _declared_charset(raw: bytes) -> Optional[str]:
    """The CA[] of the first node, read without knowing the charset yet.

    Latin-1 maps every byte to one character, and every byte the SGF syntax
    uses is ASCII, so the structure of the first node is the same whatever the
    real charset is (for ASCII-compatible charsets such as UTF-8 and
    ISO-8859-x)."""
    try:
        trees = _Parser(raw.decode("latin-1"), "<sniff>").parse(first_node_only=True)
    except SgfSyntaxError:
        return None
    if not trees or not trees[0].nodes:
        return None
    ca = trees[0].nodes[0].get("CA")
    return ca.strip() if ca else None


def _byte_position(raw: bytes, offset: int) -> tuple:
    line = raw.count(b"\n", 0, offset) + 1
    start = raw.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def decode_sgf_bytes(raw: bytes, source: str = "<bytes>") -> str:
    """Decode the bytes of an SGF file.

    A UTF-8 byte-order mark means UTF-8. Otherwise the charset is the root's
    ``CA[]`` (gnubg writes ``CA[UTF-8]``; e.g. ``CA[ISO-8859-1]`` is honoured);
    without ``CA[]`` UTF-8 is tried, then ISO-8859-1 (the SGF default).
    """
    if raw.startswith(codecs.BOM_UTF8):
        charset = "utf-8"
        raw = raw[len(codecs.BOM_UTF8):]
    else:
        charset = _declared_charset(raw)
    if charset is None:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    shown = safe_text(charset)  # the file's value, escaped and cut as text output shows it: no line forged
    try:
        codec = codecs.lookup(charset)
    except LookupError:
        raise SgfSyntaxError(source, f"unknown charset CA[{shown}]") from None
    try:
        return raw.decode(codec.name)
    except UnicodeDecodeError as exc:
        line, col = _byte_position(raw, exc.start)
        raise SgfSyntaxError(
            source, f"text is not valid {shown} (declared by CA[{shown}]): byte {exc.start}", line, col
        ) from None


def read_sgf(path: Union[str, Path], source: Optional[str] = None) -> list:
    """Read and parse an SGF file (bytes decoded as :func:`decode_sgf_bytes`).

    ``source`` (default: the file name) prefixes error messages."""
    path = Path(path)
    if source is None:
        source = path.name
    raw = read_match_bytes(path)  # a regular file within the size limit, never a blocking open
    return parse_sgf(decode_sgf_bytes(raw, source), source)
