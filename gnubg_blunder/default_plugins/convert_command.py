"""``gnubg-blunder convert FILE OUT.sgf|OUT.mat``: a match file (XG ``.xg``,
gnubg ``.sgf``, any suffix an importer plugin registers) written as a file
gnubg loads: its SGF or a Jellyfish ``.mat`` (docs/convert.md)."""

from __future__ import annotations

from pathlib import Path

from ..commands import Command, UserError
from ..hookspecs import hookimpl

POSITION_SUFFIXES = (".xgp",)


class ConvertError(Exception):
    """A file that cannot be converted: one line for the user (without the file name)."""


def describe_match(match) -> str:
    what = "money session" if not match.length else f"{match.length}-point match"
    n = len(match.games)
    from ..views.formatting import safe_text

    return f"{safe_text(match.players[0])} vs {safe_text(match.players[1])}, {what}, {n} game{'' if n == 1 else 's'}"


def read_match_file(path) -> object:
    """The one match of a file, through the registered importers.  Raises
    :class:`ConvertError` with a one-line reason."""
    from ..importers.records import MatchImportError
    from ..plugins import importers

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in POSITION_SUFFIXES:
        raise ConvertError("an XG position file (.xgp) holds one position, not a match: nothing to convert")
    if not path.exists():
        raise ConvertError("no such file")
    if not path.is_file():
        raise ConvertError("not a file")
    table = importers()
    importer = table.get(suffix)
    if importer is None:
        readable = ", ".join(s for s in sorted(table) if s not in POSITION_SUFFIXES)
        raise ConvertError(f"cannot read {suffix or 'files without a suffix'} files (readable: {readable})")
    try:
        try:
            matches = importer.read(path, require_analysis=False)
        except TypeError:  # a plugin's importer without the option
            matches = importer.read(path)
    except MatchImportError as exc:
        raise ConvertError(str(exc)) from None
    except OSError as exc:
        raise ConvertError(exc.strerror or str(exc)) from None
    except Exception as exc:  # whatever reading raises is the file's one line (an importer's bug too)
        from ..pipeline import read_failure

        raise ConvertError(read_failure(exc, path, None)) from None
    if len(matches) != 1:
        raise ConvertError(f"holds {len(matches)} matches; convert writes one")
    match = matches[0]
    if getattr(match, "kind", "match") != "match":
        raise ConvertError(f"a {match.kind} file, not a match: nothing to convert")
    return match


def convert(src, out) -> object:
    """Read ``src`` and write ``out`` (``.sgf`` or ``.mat``); returns the
    match.  Raises :class:`ConvertError` (reading) or :class:`UserError`."""
    from ..exporters import ExportError, writer_for

    src, out = Path(src), Path(out)
    writer = writer_for(out)
    if writer is None:
        raise UserError(f"{out}: unknown output format {out.suffix or '(no suffix)'!r} (write .sgf or .mat)")
    if out.exists() and src.exists() and out.resolve() == src.resolve():
        raise UserError(f"{out}: the output would overwrite the input")
    match = read_match_file(src)
    try:
        writer(match, out)
    except ExportError as exc:
        raise ConvertError(f"cannot be written as {out.suffix.lower()}: {exc}") from None
    except OSError as exc:
        raise UserError(f"{out}: {exc.strerror or exc}") from None
    return match


def _configure(p):
    p.add_argument("input", metavar="FILE", help="a match file: .xg (eXtreme Gammon), .sgf (gnubg), ...")
    p.add_argument("output", metavar="OUT", help="the file to write: .sgf (gnubg's SGF) or .mat (Jellyfish)")


def _run(args, ctx):
    try:
        match = convert(args.input, args.output)
    except ConvertError as exc:
        from ..importers.files import shown_path
        from ..views.formatting import safe_text

        ctx.error(f"error: {shown_path(args.input)}: {safe_text(str(exc), None)}")
        return 1
    fmt = "gnubg SGF" if Path(args.output).suffix.lower() == ".sgf" else "Jellyfish .mat"
    ctx.print(f"wrote {args.output} ({fmt}): {describe_match(match)}, from {args.input}")
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("convert", "write a match file (.xg, .sgf) as a file gnubg loads (.sgf, .mat)",
                         _run, _configure))
