"""XG's comments (``temp.xgc``) are RTF: their plain text, in one linear pass."""

from __future__ import annotations

from typing import List, Optional, Tuple

# Groups whose text is not part of the document.
_RTF_DESTINATIONS = frozenset(
    "fonttbl colortbl stylesheet info pict object header footer headerl headerr headerf "
    "footerl footerr footerf footnote listtable listoverridetable revtbl rsidtbl generator "
    "xmlnstbl themedata colorschememapping latentstyles datastore fldinst filetbl".split()
)
_RTF_SYMBOLS = {
    "par": "\n",
    "line": "\n",
    "sect": "\n",
    "page": "\n",
    "row": "\n",
    "tab": "\t",
    "cell": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
}
_HEX = "0123456789abcdefABCDEF"


def rtf_to_text(rtf: str) -> str:
    """Plain text of one RTF comment: control words dropped, ``\\par`` and
    ``\\line`` as newlines, ``\\'hh`` in the document's ANSI code page,
    ``\\uN`` as Unicode, font/colour tables and ``{\\*...}`` groups skipped.
    Trailing whitespace is removed. One linear pass; never raises."""
    out: List[str] = []
    codepage = "cp1252"
    n = len(rtf)
    i = 0
    skip = False  # inside a group whose text is dropped
    uc = 1  # characters that follow \uN as its ANSI fallback
    pending = 0  # fallback characters still to drop
    stack: List[Tuple[bool, int]] = []

    def emit(s: str) -> None:
        nonlocal pending
        if skip:
            return
        if pending:
            pending -= 1
            return
        out.append(s)

    while i < n:
        c = rtf[i]
        if c == "{":
            if len(stack) < 1000:
                stack.append((skip, uc))
            pending = 0
            i += 1
            continue
        if c == "}":
            if stack:
                skip, uc = stack.pop()
            pending = 0
            i += 1
            continue
        if c in "\r\n":
            i += 1
            continue
        if c != "\\":
            emit(c)
            i += 1
            continue
        # a control word or symbol
        if i + 1 >= n:
            break
        d = rtf[i + 1]
        if d in "\\{}":
            emit(d)
            i += 2
        elif d == "'":
            h = rtf[i + 2 : i + 4]
            if len(h) == 2 and h[0] in _HEX and h[1] in _HEX:
                try:
                    ch = bytes([int(h, 16)]).decode(codepage, "replace")
                except LookupError:
                    ch = bytes([int(h, 16)]).decode("latin-1")
                emit(ch)
                i += 4
            else:
                i += 2
        elif d == "*":
            skip = True  # an ignorable destination: drop the group
            i += 2
        elif d in "\r\n":
            emit("\n")
            i += 2
        elif d == "~":
            emit("\u00a0")
            i += 2
        elif d == "_":
            emit("\u2011")
            i += 2
        elif d.isascii() and d.isalpha():
            j = i + 1
            while j < n and j - i <= 32 and rtf[j].isascii() and rtf[j].isalpha():
                j += 1
            word = rtf[i + 1 : j]
            k = j
            if k < n and rtf[k] == "-":
                k += 1
            while k < n and k - j <= 11 and rtf[k].isascii() and rtf[k].isdigit():
                k += 1
            param: Optional[int] = None
            if k > j and rtf[j:k] != "-":
                param = int(rtf[j:k])
            else:
                k = j
            if k < n and rtf[k] == " ":
                k += 1
            i = k
            if word in _RTF_DESTINATIONS:
                skip = True
            elif word in _RTF_SYMBOLS:
                emit(_RTF_SYMBOLS[word])
            elif word == "u" and param is not None:
                cp = param + 65536 if param < 0 else param
                if 0 <= cp <= 0xFFFF:
                    emit(chr(cp))
                if not skip:
                    pending = max(0, uc)
            elif word == "uc" and param is not None:
                uc = max(0, min(param, 16))
            elif word == "ansicpg" and param is not None:
                codepage = f"cp{param}"
        else:
            i += 2  # another control symbol: nothing to show
    text = "".join(out)
    # \uN pairs may spell surrogate pairs; lone surrogates become U+FFFD.
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.rstrip()
