"""Text formatting shared by every view: "—" for never measured, never 0."""

from __future__ import annotations

import io
import json
import re
from html import escape
from typing import Optional

from .filters import filter_words
from .text import CELL_WIDTH, DASH, ELLIPSIS, FIELD_WIDTH, _shown, clean_text, safe_text  # noqa: F401
from .lazy import lazy

_csv = lazy("csv")


def num(x: Optional[float], digits: int = 2, signed: bool = False) -> str:
    """``x`` to ``digits`` decimals ("—" unknown); a value that rounds to
    zero is "0.00", never "-0.00" (nor "+0.00" when ``signed``)."""
    if x is None:
        return DASH
    text = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return text[1:] if _rounds_to_zero(text) and text[0] in "+-" else text


def count_text(n) -> str:
    """A count ("—" unknown)."""
    return DASH if n is None else str(int(n))


def _rounds_to_zero(text: str) -> bool:
    return not text.strip("+-0.")


def percent(share: Optional[float], digits: int = 1) -> str:
    """A share (0.125) written as a percentage ("12.5 %"); "—" unknown."""
    return DASH if share is None else f"{share:.{digits}%}".replace("%", " %")


CHANCE_HEADERS = ("win", "win g", "win bg", "lose", "lose g", "lose bg")


def chance_cells(probs, unit: bool = True) -> list:
    """A play's cubeless chances (gnubg's win, win gammon, win backgammon,
    lose gammon, lose backgammon) as the six cells of ``CHANCE_HEADERS``
    (lose = 1 − win), in % ("57.4 %"; without the sign when not ``unit``);
    six "—" when unknown (docs/anki.md, docs/quiz.md)."""
    if not probs or probs[0] is None:
        return [DASH] * 6
    win, win_g, win_bg, lose_g, lose_bg = (float(p) for p in probs[:5])
    cells = [percent(x) for x in (win, win_g, win_bg, 1.0 - win, lose_g, lose_bg)]
    return cells if unit else [c.replace(" %", "") for c in cells]


def chances_text(probs) -> str:
    """The cubeless chances in one line: "win 54.1 % (gammon 15.2 %,
    backgammon 0.7 %), lose 45.9 % (gammon 9.8 %, backgammon 0.4 %)";
    "—" when unknown."""
    if not probs or probs[0] is None:
        return DASH
    w, wg, wbg, lo, lg, lbg = chance_cells(probs)
    return f"win {w} (gammon {wg}, backgammon {wbg}), lose {lo} (gammon {lg}, backgammon {lbg})"


def interval(ci, digits: int = 2) -> str:
    if not ci:
        return "(no interval)"
    return f"[{num(ci[0], digits)}, {num(ci[1], digits)}]"


CUBE_ACTION_NAMES = {"NoDouble": "No double", "DoubleTake": "Double/take", "DoublePass": "Double/pass",
                     "TooGood": "Too good"}


def cube_action_text(action: Optional[str]) -> str:
    """A best cube action as a player reads it ("Double/take"); the JSON and
    CSV keep SPEC §14's code ("DoubleTake")."""
    return DASH if action is None else CUBE_ACTION_NAMES.get(action, action)


def avoidable_text(fig: dict) -> str:
    """A side's or a selection's avoidable errors as every text shows them
    (docs/figures.md): match play's count (judged in MWC, d ≤ ℓ/10) as it is,
    money's apart and said in its unit (judged in equity, d ≤ e/10 in EMG):
    "3", "2 money (EMG)", "3 + 2 money (EMG)"; "—" when neither is measured."""
    match_play, money = fig.get("avoidable_errors"), fig.get("avoidable_errors_money")
    money_text = None if money is None else f"{money} money (EMG)"
    if match_play is None:
        return money_text or DASH
    return str(match_play) if money_text is None else f"{match_play} + {money_text}"


AVOIDABLE_NOTE = ("avoidable = errors with d ≤ ℓ/10 (match play, judged in MWC); money's are counted apart, "
                  "d ≤ e/10 in EMG, \"money (EMG)\" (docs/figures.md)")


def elo_text(elo: Optional[float], bound: bool) -> str:
    if elo is None:
        return DASH
    return ("≤ " if bound else "") + f"{round(elo) + 0:d}"


def without_empty_periods(periods: list, is_empty, unit: str, nothing: str) -> tuple:
    """(the periods a text table shows, the line saying how many it left
    out, or None): a view by period (``training``, ``windows``) leaves the
    periods holding nothing out of its text — over years most weeks are
    empty rows — and says how many, e.g. "155 weeks without any match or
    study left out"; its JSON and CSV keep every period (a regular time axis
    for a chart).  ``unit``: "week", "month", "window"; ``nothing``: what an
    empty one lacks ("any match")."""
    shown = [p for p in periods if not is_empty(p)]
    n = len(periods) - len(shown)
    if not n:
        return shown, None
    units = unit if n == 1 else unit + "s"
    return shown, f"{n} {units} without {nothing} left out (JSON and CSV list every {unit})"


# -- user text in text output: gnubg_blunder/text.py (clean_text, safe_text) ----------------------


# -- user text in HTML and Anki cards (docs/reliability.md, "Hostile text") --------------------
#
# The characters text output escapes are escaped in HTML too, by the same
# rule (_shown: "\x1b", "\x07", "\u202e"), but for tab, newline and CR,
# which HTML shows as a space; and every user string (a name, an event, a
# comment, a move) is isolated in <bdi>: a right-to-left name can reorder
# only itself, never the heading or the opponent's name around it.

_HTML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def visible(s: str) -> str:
    """``s`` with every control and bidi character but tab, newline and CR
    shown as text output shows it (``\x1b``, ``\u202e``): never cut."""
    return _HTML_UNSAFE.sub(lambda m: _shown(m.group()), s)


def folded(summary: str, body: str, open_: bool = False) -> str:
    """A section part a reader folds and unfolds (``<details>``, no script):
    ``summary`` (HTML: a heading, a line) always shown, ``body`` (HTML) when
    unfolded; the report opens with the long parts folded (docs/report.md)."""
    return f"<details{' open' if open_ else ''}><summary>{summary}</summary>{body}</details>"


def html_text(s) -> str:
    """User data in HTML (the report, a match's page, an Anki card): its
    control and bidi characters shown escaped (:func:`visible`),
    HTML-escaped, isolated in ``<bdi>``; None is "—"."""
    if s is None:
        return DASH
    return f"<bdi>{escape(visible(str(s)))}</bdi>"


def html_visible(page: str) -> str:
    """A whole page with any raw control or bidi character left in it (a
    name inside an SVG board, a title) shown escaped: the page's last step,
    so that nothing of the files can hide or reorder the page."""
    return _HTML_UNSAFE.sub(lambda m: _shown(m.group()), page)


_NUMBER_CELL = re.compile(r"[-+0-9.,% —–eE]*")


def html_cell(v) -> str:
    """A table cell's content: text isolated (:func:`html_text`), numbers
    and numbers' text (``"1.25"``, ``"—"``) as they are."""
    if v is None:
        return DASH
    if isinstance(v, str) and _DATE.fullmatch(v):
        return f'<span class="date">{escape(v)}</span>'  # never wrapped (the report's style)
    if isinstance(v, str) and not _NUMBER_CELL.fullmatch(v):
        return html_text(v)
    return escape(str(v))


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?")


def scope_text(f: dict, ignored: tuple = (), everything: str = "every stored match, both sides") -> str:
    """The filter in words (every view names its scope, and whose figures
    they are: a player, or both sides); ``f`` is ``Filter.to_json()``; keys
    in ``ignored`` are left out (a view that names its players itself
    ignores "player")."""
    parts = filter_words(f, safe_text, ignored)  # each criterion's words, declared with it (filters.py)
    if parts and not f.get("player") and "player" not in ignored:
        parts.append("both sides")
    return ", ".join(parts) if parts else everything


POOLED = "both sides pooled"  # the label of a one-player figure (level, luck) computed over both sides


def whose(f: dict) -> str:
    """Whose figures a filter's selection holds: the filter's player, else
    both sides of every match (``f`` is ``Filter.to_json()``)."""
    return f"player {safe_text(f['player'])}" if f.get("player") else "both sides of every match"


def table(rows: list, headers: list, align: Optional[str] = None) -> str:
    """A plain text table; align is a string of 'l'/'r' per column.  Every
    cell and header is shown through :func:`clean_text` (control and bidi
    characters escaped, cut at ``CELL_WIDTH``): a name cannot split a row,
    move the cursor or make the table megabytes wide."""
    cells = [[clean_text(str(h), CELL_WIDTH) for h in headers]] + [
        [clean_text(str(c), CELL_WIDTH) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)
    lines = []
    for k, r in enumerate(cells):
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)]
        lines.append("  ".join(parts).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# characters json.dumps leaves raw with ensure_ascii=False (it escapes U+0000-001F itself)
_JSON_RAW = re.compile("[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def to_json(obj) -> str:
    """The JSON text of ``obj``: strings exact, but every control and bidi
    character written as a ``\\uXXXX`` escape (lossless), never raw."""
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Table:
    """A view's one table, declared once: ``headers`` (the CSV header and
    the HTML table's head) and ``rows`` (cells, None = unknown).  CSV and
    HTML are written from it by :func:`csv_of` and :func:`html_of`."""

    def __init__(self, headers, rows):
        self.headers = list(headers)
        self.rows = [list(r) for r in rows]

    def csv(self) -> str:
        return csv_text(self.rows, self.headers)

    def html(self) -> str:
        return html_table(self.rows, self.headers)


def html_table(rows: list, headers: list) -> str:
    """A table as HTML; None is "—" (never measured); numbers as Python
    writes them (the same digits as CSV); user text escaped and isolated."""
    head = "".join(f"<th>{html_cell(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html_cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f'<table class="view"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def table_html(rows: list, headers: list, align: Optional[str] = None, row_classes: Optional[list] = None) -> str:
    """An HTML table of the report's style: every cell escaped (text
    isolated, :func:`html_text`), None is "—";
    ``align`` a string of 'l'/'r' per column (default: first left, the rest
    right); ``row_classes`` a class (or None) per row ("grey", "highlight")."""
    align = align or "l" + "r" * (len(headers) - 1)
    out = ["<table><tr>"]
    out += [f'<th class="{"l" if a == "l" else "r"}">{html_cell(str(h))}</th>' for h, a in zip(headers, align)]
    out.append("</tr>")
    for i, r in enumerate(rows):
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{cls}>")
        for v, a in zip(r, align):
            out.append(f'<td class="{"l" if a == "l" else "r"}">{html_cell(v)}</td>')
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


# A text cell a spreadsheet would evaluate as a formula starts with one of
# these (the full-width forms too: some spreadsheets read them as formulas).
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


# The CSV columns that hold identifiers, declared here once by header: a
# cell of theirs that has an identifier's shape is written as the ID itself
# (a gnubg position ID may begin with "+": "+24DAIBtawQAOA" must read back as
# that ID, not "'+24DAIBtawQAOA").  The shapes are gnubg's position ID (14
# base64 characters), match ID (12) and gnubg ID (POSITION:MATCH): letters,
# digits, "+", "/" and ":" only, so no function call or reference can be
# written in one.  Anything else in such a column (and every other text
# column: names, events, comments, moves) is free text under the formula rule.
ID_COLUMNS = frozenset(("position_id", "gnubg_id", "match_id", "decision_id", "id"))
_ID_SHAPE = re.compile(r"[A-Za-z0-9+/]{14}(?::[A-Za-z0-9+/]{12})?|[A-Za-z0-9+/]{12}")


def csv_cell(v, identifier: bool = False):
    """One CSV cell: None is empty (unknown); a text cell a spreadsheet
    would run as a formula (leading ``= + - @``, tab, CR) gets the usual
    ``'`` in front, but for an identifier (``identifier``: the cell is in
    one of ``ID_COLUMNS``) of an ID's shape, written as it is; numbers stay
    numbers (a luck of -0.5 is ``-0.5``)."""
    if v is None:
        return ""
    if isinstance(v, str) and v.startswith(FORMULA_LEADS):
        if identifier and _ID_SHAPE.fullmatch(v):
            return v
        return "'" + v
    return v


def csv_text(rows: list, headers: list) -> str:
    """A table as CSV (RFC 4180); None is written as an empty field (the
    reader's "unknown"), never 0; text cells (headers too) that a
    spreadsheet would evaluate are neutralised (:func:`csv_cell`), but an
    identifier in one of ``ID_COLUMNS`` is the ID itself; text is otherwise
    exact, as in JSON."""
    buf = io.StringIO()
    # "\r\n" as the writer's terminator makes it quote a field holding a CR
    # as well as a LF; the rows are then joined with "\n"
    w = _csv.writer(buf, lineterminator="\r\n")
    lines = []
    ids = [str(h) in ID_COLUMNS for h in headers]
    for k, r in enumerate([[str(h) for h in headers]] + rows):
        buf.seek(0)
        buf.truncate()
        w.writerow([csv_cell(v, k > 0 and i < len(ids) and ids[i]) for i, v in enumerate(r)])
        lines.append(buf.getvalue()[:-2])
    return "\n".join(lines)
