"""The formats every view writes its object in (``--format``): text, JSON,
CSV (a view with one table) and the HTML of the report's sections, each
registered through ``register_output_formats`` as a plugin's would be
(hookspecs.py).  ``commands.View`` offers and renders what is registered
(``commands.output_formats``)."""

from __future__ import annotations

from .hookspecs import hookimpl
from .formatting import html_visible, to_json


def render_text(view, obj: dict) -> str:
    return view.text(obj)


def render_json(view, obj: dict) -> str:
    return to_json(obj)


def render_csv(view, obj: dict) -> str:
    return view.table(obj).csv()


def render_html(view, obj: dict) -> str:
    """The view's richer HTML where it has one, else its table; no raw
    control or bidi character left (docs/reliability.md, "Hostile text")."""
    return html_visible(view.html(obj) if view.html is not None else view.table(obj).html())


@hookimpl
def register_output_formats(register):
    register("text", render_text, order=10)
    register("json", render_json, order=20)
    register("csv", render_csv, table=True, order=30)
    register("html", render_html, order=40, listed=False)
