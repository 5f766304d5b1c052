"""The built-in importer of gnubg ``.sgf`` files."""

from __future__ import annotations

from ..hookspecs import hookimpl


class SgfImporter:
    name = "gnubg-sgf"
    extensions = (".sgf",)

    def read(self, path, require_analysis=True):
        from ..importers.sgf import read_match

        return [read_match(path, require_analysis=require_analysis)]


@hookimpl
def register_importers(register):
    register(SgfImporter())
