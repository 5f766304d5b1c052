"""The standalone HTML report: one file, no scripts at all, no external
images or styles; charts and boards as inline SVG; every name and comment
escaped (SPEC §14).  Also the ``report`` command and the automatic report
after each stored match (``report --auto FILE``), which this module
registers as a plugin (its hookimpls, at the end).  ``report --match
ID|last`` writes one match's page instead (``views/match_report.py``).

The page is made of sections.  Each is a plugin's ``register_report_sections``
(the built-in ones are below): a name, an order and a function
``(ReportContext) -> str`` returning an HTML fragment.  A built-in section
builds its view's JSON object once (:meth:`ReportContext.view_object`, the
object the view's ``--format json`` prints) and renders it with the view's
``html`` function (``views/summary.py: summary_html`` ...): sections compute
no figure.
"""

from __future__ import annotations

import argparse
import datetime as _dt
from dataclasses import dataclass, field
from html import escape
from typing import Callable, Optional

from ..hookspecs import hookimpl
from .. import __version__
from .. import formatting
from ..stash import Stash, StashKey, compute_once, forget, kept_object
from ..formatting import table_html  # noqa: F401  (a plugin's section may use it: the report's table style)
from . import biases, breakdowns, errors, matches, plan, positions, progression, stats, study, summary
from ..commands import Command, Scope, UserError, add_filter_arguments, add_metric, check_player, filter_from_args
from ..plugins import get_plugin_manager
from .players import VIEWS, players_html
from ..lazy import lazy

_arrays = lazy("gnubg_blunder.arrays")
_db_settings = lazy("gnubg_blunder.db_settings")
_metrics_counting = lazy("gnubg_blunder.metrics.counting")
_metrics_figures = lazy("gnubg_blunder.metrics.figures")
_metrics_kernel = lazy("gnubg_blunder.metrics.kernel")
_user_config = lazy("gnubg_blunder.user_config")
_views_match_report = lazy("gnubg_blunder.views.match_report")

STYLE = """
body{font-family:"DejaVu Sans",Arial,sans-serif;color:#1f2328;background:#fff;margin:24px auto;max-width:1000px;
line-height:1.4;font-size:14px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;border-bottom:2px solid #d0d7de;padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;margin:8px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f6f8fa}td.l,th.l{text-align:left}
.scope{background:#f6f8fa;border:1px solid #d0d7de;padding:8px 12px;margin:12px 0}
.headline{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.figure{border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:130px}
.figure .v{font-size:22px;font-weight:bold}.figure .k{color:#57606a;font-size:12px}
.muted,.grey{color:#6e7781}.small td{color:#6e7781}.note{color:#57606a;font-size:12px}
.decision{display:flex;gap:16px;align-items:flex-start;border-top:1px solid #d0d7de;padding:10px 0}
.decision .facts{min-width:280px}
mark{background:#fff3b0}tr.highlight td{background:#fff8c5;font-weight:bold}
.date,.nowrap{white-space:nowrap}
details{margin:8px 0}details>summary{cursor:pointer;color:#0b4f9c}details>summary>h3{display:inline;margin:0}
details>summary .k{color:#57606a;font-size:12px}details.board>summary{color:inherit}details.board svg{display:block}
@media print{body{margin:0}.decision{break-inside:avoid}}
"""


# a view's object over the report's scope, by view and arguments (ReportContext.view_object)
VIEW_OBJECT: StashKey[dict] = StashKey("the report's view object")
# what a section keeps under a name of its own (ReportContext.once with a name, not a StashKey)
SECTION_VALUE: StashKey = StashKey("a report section's named value")


@dataclass
class ReportContext:
    """What every section gets: the store (for drill-down rows), the filter,
    its selection and thresholds, the metric asked for (``--metric``: the
    progression chart's and the study half's cost, metrics/study_cost.py;
    the other built-in sections show PR); ``stash`` holds what sections
    share (stash.py: typed keys, e.g. ``views/plan.py``'s ``PLAN_LISTS``).

    :meth:`view_object` gives a view's JSON object over this one scope (the
    object ``gnubg-blunder VIEW --format json`` prints), computed once: a
    section renders it with the view's ``html`` function."""

    store: object
    filter: object
    selection: object
    thresholds: object
    metric: str = "pr"
    stash: Stash = field(default_factory=Stash)

    def once(self, key, compute: Callable):
        """``compute()`` once for this report under ``key``: a
        :class:`~gnubg_blunder.stash.StashKey`, or (a plugin's section of
        an older API) any hashable name, kept apart from every typed key."""
        if not isinstance(key, StashKey):
            key = SECTION_VALUE.at(key)
        return compute_once(self.stash, key, compute)

    def view_object(self, view, **args) -> dict:
        """``view.compute`` (a :class:`gnubg_blunder.commands.View`) over
        this report's filter and selection, its options at their defaults
        but for ``args`` (e.g. ``sort="decisions:desc"``), once per view and
        arguments; with its ``filter`` as the command writes it; read-only
        (``stash.kept_object``: a section that changes it changes a copy)."""
        key = VIEW_OBJECT.at(view.name, tuple(sorted(args.items())))

        def compute():
            scope = Scope.over(_view_args(view, args), self.store, self.filter, self.selection, self.thresholds)
            obj = view.evaluate(scope)
            obj.setdefault("filter", self.filter.to_json())
            return obj

        return kept_object(self.stash, key, compute)  # read-only: the next section reads the same


def _view_args(view, args: dict):
    """The view's arguments as its command line would parse them with no
    option given, ``args`` over them."""
    parser = argparse.ArgumentParser(add_help=False)
    view.configure(parser)
    defaults = parser.parse_args([])
    for k, v in args.items():
        setattr(defaults, k, v)
    return defaults


def sections(pm=None) -> list:
    """[(order, name, function)] from every plugin, in order."""
    pm = pm or get_plugin_manager()
    found = []

    def register(name: str, function: Callable, order: int = 100):
        found.append((order, name, function))

    pm.hook.register_report_sections(register=register)
    return sorted(found, key=lambda t: (t[0], t[1]))


def scope_text(flt) -> str:
    """The filter in words (the report names its scope at the top)."""
    return formatting.scope_text(flt.to_json())


def build_report(ctx: ReportContext, title: Optional[str] = None) -> str:
    title = title or "gnubg-blunder report"
    body = []
    for _order, name, function in sections():
        try:
            html = function(ctx)
        except Exception as exc:  # one broken section must not lose the report
            html = (f'<section><h2>{escape(name)}</h2><p class="note">This section could not be made: '
                    f"{escape(type(exc).__name__)}: {escape(str(exc))}</p></section>")
        if html:
            body.append(html)
        _release_columns(ctx.selection)
    return html_page(title, "Figures from the stored analyses (gnubg or eXtreme Gammon)",
                     f'<div class="scope"><b>Scope:</b> {escape(scope_text(ctx.filter))}</div>' + "".join(body))


# what the kernel keeps of the whole selection and nearly every section sums (metrics/kernel.py,
# counting.py, figures.py): kept from one section to the next; every other stashed array is a section's own
# and the views' objects kept of the selection (biases, plan, progress-study: a JSON-ready object each,
# which a later section, the summary's cards, reads again)
def shared_keys() -> tuple:
    """The stash keys kept between sections (``_release_columns``)."""
    return (_metrics_kernel.BASE_FLAGS, _metrics_kernel.FLAGS, _metrics_figures.WHOLE_SUMS, _metrics_kernel.MONEY,
            _metrics_kernel.SIDE, _metrics_counting.COUNTED,
            _metrics_kernel.ELL, _metrics_kernel.D_MWC, _metrics_kernel.ERROR_MICRO,
            biases.BIASES_OBJECT, biases.DOUBLE_CELLS, plan.PLAN_OBJECT, study.STUDY_OBJECT)


# the decision columns nearly every section reads (the kernel's terms are worked out from the first three
# at each sum: kernel._term): kept from one section to the next, not decompressed again by each (the
# matches' column is not kept: it is made from the runs' lengths, not decompressed)
SHARED_COLUMNS = ("error", "difficulty", "mwc_per_emg", "kind", "player")


def _release_columns(selection) -> None:
    """After a section: its columns let go (``arrays.release_columns``)
    and what the metrics memoized of the selection for it forgotten but the
    kernel's shared terms (``shared_keys``) and the columns they come
    from (``SHARED_COLUMNS``), so that the report's peak memory is one
    section's arrays beside those, not every section's."""
    keep = shared_keys()
    for owner in (selection, getattr(selection, "decisions", None), getattr(selection, "rolls", None)):
        if owner is not None:
            forget(owner, keep=keep)
    _arrays.release_columns(selection, keep_decisions=SHARED_COLUMNS)


def html_page(title: str, source: str, body: str, heading: Optional[str] = None) -> str:
    """A standalone page (the report, a match's page): one style sheet, no
    external resource, the title, who made it when, ``source`` of the
    figures, then ``body``.  ``heading``: the h1's HTML (names isolated,
    ``formatting.html_text``), else the title isolated.  Any raw control
    or bidi character left in the page is shown escaped
    (``formatting.html_visible``)."""
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    return formatting.html_visible(
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(formatting.visible(title))}</title><style>{STYLE}</style></head><body>"
        f"<h1>{heading if heading is not None else formatting.html_text(title)}</h1>"
        f'<p class="note">Made by gnubg-blunder {escape(__version__)} on {escape(now)}. '
        f"{escape(source)}; “—” means never measured.</p>"
        + body
        + "</body></html>\n"
    )


def write_report(store, flt, thresholds, path, metric: str = "pr", title: Optional[str] = None) -> str:
    """Write the report of ``flt`` to ``path``; returns the HTML."""
    sel = store.select(flt)
    ctx = ReportContext(store=store, filter=flt, selection=sel, thresholds=thresholds, metric=metric)
    html = build_report(ctx, title)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(html)
    return html


# -- the built-in sections: each renders its view's object with the view's html ----------------

MATCHES_SHOWN = 300  # the report lists the most recent matches; the CLI lists them all
LIST_ROWS = 300  # a list in the report shows the costliest; the CLI's `positions` shows them all
LIST_BOARDS = 20  # the first rows of a list unfold their board (a board is ~15 KB of SVG)


def headline_section(ctx: ReportContext) -> str:
    """The headline figures with their intervals (the ``stats`` object):
    whose figures they are, the level labelled as both sides pooled without
    a player."""
    return stats.stats_html(ctx.view_object(stats.VIEW))


def summary_section(ctx: ReportContext) -> str:
    """Rolling PR and the ten costliest decisions, each with its board; the
    cards of the study plan and before / after in the report's --metric."""
    obj = ctx.view_object(summary.VIEW, metric=ctx.metric)
    return summary.summary_html(obj, summary.decision_details(obj["top"], ctx.store))


def progression_section(ctx: ReportContext) -> str:
    """PR per match of the progression's perspective (the filter's player,
    else the main player, else both sides pooled), trend, goal, tournaments."""
    return progression.progression_html(ctx.view_object(progression.VIEW, metric=ctx.metric))


def errors_section(ctx: ReportContext) -> str:
    return errors.errors_html(ctx.view_object(errors.VIEW))


def breakdowns_section(ctx: ReportContext) -> str:
    return breakdowns.breakdowns_html(ctx.view_object(breakdowns.VIEW))


def biases_section(ctx: ReportContext) -> str:
    """Signed biases: take/pass, doubles (by score), blots (SPEC §12)."""
    return biases.biases_html(ctx.view_object(biases.VIEW))


def players_section(ctx: ReportContext) -> str:
    """One row per player of the scope's matches, most decisions first (the
    filter's player is highlighted, not the only row)."""
    return players_html(ctx.view_object(VIEWS[0], sort="decisions:desc"))


def matches_section(ctx: ReportContext) -> str:
    return matches.matches_html(ctx.view_object(matches.VIEW, last=str(MATCHES_SHOWN)), limit=MATCHES_SHOWN)


def lists_section(ctx: ReportContext) -> str:
    """The decisions behind the headline counts (errors, blunders), costliest
    first, so that every count of the page can be checked in the page."""
    html = ['<section id="lists"><h2>The decisions behind the counts</h2>',
            '<p class="note">Each list is folded: click its heading to unfold it, a position ID to unfold its '
            'board.</p>']
    for severity in ("errors", "blunders"):
        obj = ctx.view_object(positions.VIEW, limit=str(LIST_ROWS), **{severity: True})
        shown = obj["decisions"][:LIST_BOARDS]
        boards = {k: v["diagram"] for k, v in summary.decision_details(shown, ctx.store).items() if v["diagram"]}
        html.append(positions.positions_html(obj, heading=severity.capitalize(), anchor=f"list-{severity}", fold=True,
                                             boards=boards))
    html.append("</section>")
    return "".join(html)


# -- the command and the automatic report ------------------------------------------------------

def _configure(p) -> None:
    p.add_argument("--html", metavar="FILE", help="write the report to FILE")
    p.add_argument("--match", metavar="ID|last",
                   help="the page of one match instead: its head, the review (the side(s) `review` picks: "
                        "--player, else the main player, else both), the cumulative MWC lost of both sides "
                        "across its decisions (money: EMG) and the transcript")
    add_metric(p)
    for action in p._actions:
        if action.dest == "metric":
            action.help = ("the metric of the progression chart, of the costliest decisions and of the study half "
                           "(the study plan, the reference positions, before / after study: pr prices an error "
                           "e − d in mpt, mwc ℓ − d in %% MWC, mwc7 ℓ₇ − d₇; docs/plan.md); the other sections show "
                           "PR and L7 side by side; ") + action.help
    p.add_argument("--title", metavar="TEXT")
    p.add_argument("--auto", metavar="FILE|off",
                   help="write the report to FILE after each newly stored match (off: stop)")
    add_filter_arguments(p)


def _run(args, ctx) -> int:
    if args.auto:
        data = _user_config.load_config()
        data["report"] = {"auto": None if args.auto.lower() == "off" else args.auto}
        _user_config.save_config(data)
        ctx.print("automatic report off" if args.auto.lower() == "off" else
                  f"the report is written to {args.auto} after each newly stored match")
        if not args.html:
            return 0
    if not args.html:
        raise UserError("report needs --html FILE")
    store = ctx.store()
    flt = filter_from_args(args, ctx)
    check_player(store, flt)
    if args.match:
        try:
            obj = _views_match_report.write_match_report(store, flt, _db_settings.thresholds_for(store), args.match,
                                                         args.html, title=args.title)
        except OSError as exc:
            raise UserError(f"{args.html}: {exc.strerror or exc}") from None
        ctx.print(f"report of match {obj['match_id']} written to {args.html}")
        return 0
    try:
        write_report(store, flt, _db_settings.thresholds_for(store), args.html, metric=args.metric, title=args.title)
    except OSError as exc:
        raise UserError(f"{args.html}: {exc.strerror or exc}") from None
    ctx.print(f"report written to {args.html}")
    return 0


def command():
    """The ``report`` command (a :class:`gnubg_blunder.commands.Command`)."""
    return Command("report", "a standalone HTML report (no scripts, inline SVG): the collection, or one match "
                   "with --match ID|last", _run, _configure)


def auto_report(store, context) -> None:
    """After a newly stored match: write the report to the file that
    ``report --auto FILE`` saved (the store's database's saved filter
    applies); nothing when none is saved.  A failure is one line on
    ``context``'s error stream: the match is stored all the same."""
    try:
        path = (_user_config.load_config().get("report") or {}).get("auto")
    except ValueError:
        return
    if not path:
        return
    try:
        # a PostgreSQL store's path is redacted
        flt = _user_config.merged_filter({}, getattr(store, "url", None) or store.path)
        write_report(store, flt, _db_settings.thresholds_for(store), path)
        context.print(f"report updated: {path}")
    except Exception as exc:  # the match is stored; the report is a convenience
        context.error(f"report not written ({type(exc).__name__}: {exc})")


# -- what this module registers, as a plugin (plugins.DEFAULT_PLUGINS) ------------------------------

@hookimpl
def register_report_sections(register):
    """The built-in sections this module renders (each with its view's ``html``)."""
    register("headline", headline_section, 10)
    register("summary", summary_section, 20)
    register("progression", progression_section, 30)
    register("errors", errors_section, 40)
    register("breakdowns", breakdowns_section, 50)
    register("biases", biases_section, 55)
    register("players", players_section, 60)
    register("matches", matches_section, 90)
    register("lists", lists_section, 95)


@hookimpl
def register_commands(registry):
    registry.add(command())


@hookimpl
def post_analysis(store, match, result, context):
    """The optional automatic report (``report --auto FILE``)."""
    auto_report(store, context)
