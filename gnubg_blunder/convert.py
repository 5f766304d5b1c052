"""``gnubg-blunder convert FILE OUT.sgf|OUT.mat``: a match file (XG ``.xg``,
gnubg ``.sgf``, any suffix an importer plugin registers) written as a file
gnubg loads: its SGF or a Jellyfish ``.mat`` (docs/convert.md)."""

from __future__ import annotations

from pathlib import Path

from .commands import Command, UserError
from .hookspecs import hookimpl
from .text import safe_text


def convert(src, out) -> object:
    """Read ``src`` and write ``out`` (``.sgf`` or ``.mat``); returns the
    match.  Raises :class:`ConvertError` (reading) or :class:`UserError`."""
    from .exporters import ExportError, writer_for
    from .pipeline import ConvertError, read_one_match

    src, out = Path(src), Path(out)
    writer = writer_for(out)
    if writer is None:
        raise UserError(f"{out}: unknown output format {out.suffix or '(no suffix)'!r} (write .sgf or .mat)")
    if out.exists() and src.exists() and out.resolve() == src.resolve():
        raise UserError(f"{out}: the output would overwrite the input")
    match = read_one_match(src)
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
    from .pipeline import ConvertError, match_words

    try:
        match = convert(args.input, args.output)
    except ConvertError as exc:
        from .importers.files import shown_path

        ctx.error(f"error: {shown_path(args.input)}: {safe_text(str(exc), None)}")
        return 1
    fmt = "gnubg SGF" if Path(args.output).suffix.lower() == ".sgf" else "Jellyfish .mat"
    ctx.print(f"wrote {args.output} ({fmt}): {match_words(match)}, from {args.input}")
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("convert", "write a match file (.xg, .sgf) as a file gnubg loads (.sgf, .mat)",
                         _run, _configure))
