"""The built-in console summary: after a match is stored where the user asked
for it (``>bdb.analyse()``, ``>bdb.store()``), print each player's figures."""

from __future__ import annotations

from ..hookspecs import hookimpl


@hookimpl
def post_analysis(store, match, result, context):
    if not getattr(context, "summary", False):
        return
    from ..views.match_summary import match_summary_text

    context.print(match_summary_text(store, result.match_id))
