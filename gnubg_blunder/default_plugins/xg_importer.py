"""The built-in importer of eXtreme Gammon ``.xg`` matches and ``.xgp`` positions."""

from __future__ import annotations

from ..hookspecs import hookimpl


class XgImporter:
    name = "xg"
    extensions = (".xg", ".xgp")

    def read(self, path, require_analysis=True):
        from ..importers.xg import read_match

        return [read_match(path, require_analysis=require_analysis)]


@hookimpl
def register_importers(register):
    register(XgImporter())
