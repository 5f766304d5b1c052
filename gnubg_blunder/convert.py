"""``gnubg-blunder convert FILE OUT.sgf|OUT.mat``: a match file (XG ``.xg``,
gnubg ``.sgf``, any suffix an importer plugin registers) written as a file
gnubg loads: its SGF or a Jellyfish ``.mat`` (docs/convert.md)."""

from __future__ import annotations

from pathlib import Path

from .commands import Command, UserError
from .hookspecs import hookimpl
from .text import safe_text
from .lazy import lazy

_exporters = lazy("gnubg_blunder.exporters")
_importers_files = lazy("gnubg_blunder.importers.files")
_pipeline = lazy("gnubg_blunder.pipeline")


def convert(src, out) -> object:
    """Read ``src`` and write ``out`` (``.sgf`` or ``.mat``); returns the
    match.  Raises :class:`ConvertError` (reading) or :class:`UserError`."""
    src, out = Path(src), Path(out)
    writer = _exporters.writer_for(out)
    if writer is None:
        raise UserError(f"{out}: unknown output format {out.suffix or '(no suffix)'!r} (write .sgf or .mat)")
    if out.exists() and src.exists() and out.resolve() == src.resolve():
        raise UserError(f"{out}: the output would overwrite the input")
    match = _pipeline.read_one_match(src)
    try:
        writer(match, out)
    except _exporters.ExportError as exc:
        raise _pipeline.ConvertError(f"cannot be written as {out.suffix.lower()}: {exc}") from None
    except OSError as exc:
        raise UserError(f"{out}: {exc.strerror or exc}") from None
    return match


def _configure(p):
    p.add_argument("input", metavar="FILE", help="a match file: .xg (eXtreme Gammon), .sgf (gnubg), ...")
    p.add_argument("output", metavar="OUT", help="the file to write: .sgf (gnubg's SGF) or .mat (Jellyfish)")


def _run(args, ctx):
    try:
        match = convert(args.input, args.output)
    except _pipeline.ConvertError as exc:
        ctx.error(f"error: {_importers_files.shown_path(args.input)}: {safe_text(str(exc), None)}")
        return 1
    fmt = "gnubg SGF" if Path(args.output).suffix.lower() == ".sgf" else "Jellyfish .mat"
    ctx.print(f"wrote {args.output} ({fmt}): {_pipeline.match_words(match)}, from {args.input}")
    return 0


@hookimpl
def register_commands(registry):
    registry.add(Command("convert", "write a match file (.xg, .sgf) as a file gnubg loads (.sgf, .mat)",
                         _run, _configure))
