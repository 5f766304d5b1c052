"""What ``bdb`` is at gnubg's Python prompt (``>bdb.analyse()``).

gnubg has no callback when an analysis ends, so the plugin brings its own
commands (SPEC §15): ``bdb.analyse()`` runs gnubg's analysis with the user's
settings, stores the match and prints the summary and the match review;
``bdb.store()`` stores the current, already analysed match (and prints them);
``bdb.review()`` prints the review of the last stored match; ``bdb.report()`` writes the HTML page of
the match just stored (``bdb.report(match="all")``: the collection report); ``bdb.quiz()`` puts a quiz
question on gnubg's board and ``bdb.answer("13/7 8/7")`` grades it (docs/quiz.md); ``bdb("stats --player NAME")``
takes the same words as the ``gnubg-blunder`` command line.
"""

from __future__ import annotations

import ctypes
import functools
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

from .. import __version__
from ..commands import Context, Scope, UserError, _Parser, is_database_error, run_line
from . import gui_output
from ..text import safe_text
from ..lazy import lazy

_db_settings = lazy("gnubg_blunder.db_settings")
_exporters = lazy("gnubg_blunder.exporters")
_importers_files = lazy("gnubg_blunder.importers.files")
_importers_gnubg_match = lazy("gnubg_blunder.importers.gnubg_match")
_importers_records = lazy("gnubg_blunder.importers.records")
_pipeline = lazy("gnubg_blunder.pipeline")
_quiz = lazy("gnubg_blunder.quiz")
_quiz_core = lazy("gnubg_blunder.quiz.core")
_quiz_gnubg_board = lazy("gnubg_blunder.quiz.gnubg_board")
_quiz_terminal = lazy("gnubg_blunder.quiz.terminal")
_views_match_summary = lazy("gnubg_blunder.views.match_summary")
_views_review = lazy("gnubg_blunder.views.review")


def _gnubg():
    import gnubg  # only importable inside gnubg

    return gnubg


class _Said:
    """gnubg's console as a command's error stream, noting whether an error
    line was written (then no exit-status line is added)."""

    def __init__(self, stream):
        self.stream = stream
        self.used = False

    def write(self, text):
        self.used = self.used or bool(text.strip())
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()


def _one_line(exc: BaseException) -> str:
    text = safe_text(" ".join(str(exc).split()), None)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _failure(ctx, exc: BaseException, what: str) -> str:
    """The one line for an exception met inside gnubg (never a traceback).
    The importers and the store are not imported to ask (gnubg starts the
    plugin without numpy)."""
    if isinstance(exc, _importers_records.MatchImportError):
        return f"gnubg-blunder: {what}: {safe_text(str(exc), None)}"
    if is_database_error(exc):
        return f"gnubg-blunder: {what}: " + _pipeline.store_error(exc, ctx, "this match", "try again")[0]
    if isinstance(exc, KeyboardInterrupt):
        return f"gnubg-blunder: {what}: interrupted"
    return f"gnubg-blunder: {what}: internal error ({_one_line(exc)})"


def _shown(title):
    """An entry point whose output, in gnubg's GUI, is also shown in the
    output window (gui_output.py); ``title`` names the call there (a
    function of the call's arguments, or text)."""

    def wrap(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            name = title(*args, **kwargs) if callable(title) else title
            with gui_output.shown(name):
                return method(self, *args, **kwargs)

        return call

    return wrap


def _said(name):
    def title(*args, **kwargs):
        shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        return f"bdb.{name}({', '.join(shown)})"

    return title


class Bdb:
    """The plugin's commands inside gnubg.  Every one of them prints one line
    for any error (the database damaged, of a newer schema, locked,
    read-only, full, ...) and never a traceback: gnubg keeps running."""

    def __init__(self, db_path=None):
        self.db_path = db_path
        self.stored_match_id = None  # the match bdb.analyse() / bdb.store() stored (or found stored) last
        self._quiz = None  # the quiz in progress (bdb.quiz(), bdb.answer())
        self._watcher = None  # the process of bdb.watch()
        self._said_once = set()  # the notes said once a session (Bdb._once)

    def _ctx(self, summary=False) -> Context:
        return Context(db_path=self.db_path, out=sys.stdout, err=_Said(sys.stdout), summary=summary,
                       inside_gnubg=True)

    @_shown(lambda line="--help": f"bdb({line!r})")
    def __call__(self, line: str = "--help") -> None:
        """Run a gnubg-blunder command: ``bdb("stats --player NAME")``."""
        self._run(line)

    def _run(self, line: str) -> int:
        """Run a command line; its exit status (1 after a failure said in one line)."""
        ctx = self._ctx()
        try:
            status = run_line(line, ctx)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            if isinstance(exc, SystemExit) and not isinstance(exc.code, str):
                status = int(exc.code or 0)
            else:
                print(_failure(ctx, exc, f"bdb({line!r})"))
                return 1
        finally:
            _close(ctx)
        if status and not ctx.err.used:
            print(f"(gnubg-blunder: exit status {status})")
        return status

    @_shown(_said('store'))
    def store(self):
        """Store the current match as gnubg analysed it, then print its summary."""
        ctx = self._ctx(summary=True)
        try:
            return self._store(ctx)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            print(_failure(ctx, exc, "cannot store this match"))
            return None
        finally:
            _close(ctx)

    def _store(self, ctx):
        g = _gnubg()
        data = g.match()
        if data is None:
            print("gnubg-blunder: no match is loaded (load or import one first)")
            return None
        if not _has_analysis(data):
            print("gnubg-blunder: this match has no analysis yet: use bdb.analyse()")
            return None
        with _pipeline.gc_paused():  # the live path: gnubg's dict made into the match, then stored (pipeline.gc_paused)
            match = _importers_gnubg_match.match_from_dict(data, source_path=None)
            result = _pipeline.store_match(ctx, match)
        if result.match_id is not None:
            self.stored_match_id = result.match_id
        print("gnubg-blunder: " + _pipeline.describe(match, result, ctx.store()))
        if result.match_id is not None:
            self._once("counts", COUNTS_NOTE)
            self._once("main player", _main_player_howto(ctx.store(), result.match_id))
        if result.status == "already stored":
            print(_views_match_summary.match_summary_text(ctx.store(), result.match_id))
        if result.match_id is not None:  # the review after the figures (stored already: a failure is its own line)
            try:
                print(_views_review.match_review_text(ctx.store(), result.match_id))
            except Exception as exc:
                print(_failure(ctx, exc, "review"))
            if gui_output.collecting():
                self._offer_match_page(result.match_id)
        return result.match_id

    def _once(self, what: str, line) -> None:
        """A note said once in this gnubg session (after the first store)."""
        if line and what not in self._said_once:
            self._said_once.add(what)
            print(line)

    def _offer_match_page(self, match_id) -> None:
        """In the GUI: the match page (the review with SVG boards, docs/review.md)
        written beside the output window, whose button opens it."""
        path = gui_output.pages_folder() / f"match-{match_id}.html"
        said = io.StringIO()
        ctx = Context(db_path=self.db_path, out=said, err=said, inside_gnubg=True)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if run_line(f"report --match {int(match_id)} --html {shlex.quote(str(path))}", ctx) == 0:
                gui_output.offer_page(path)
            else:
                print(f"gnubg-blunder: match page: {' '.join(said.getvalue().split())}")
        except (Exception, SystemExit) as exc:
            print(_failure(ctx, exc, "match page"))
        finally:
            _close(ctx)

    @_shown(_said('analyse'))
    def analyse(self, plies=None):
        """gnubg's ``analyse match`` (or ``session``) with your analysis
        settings, then store the match and print its summary.
        ``plies=N``: this analysis at N plies (checker play and cube), your
        settings put back after it (read from ~/.gnubg/gnubgautorc, gnubg's
        saved settings: gnubg's Python cannot read the ones in memory).  A
        database that cannot be opened is said before gnubg analyses."""
        ctx = self._ctx()
        try:
            if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int)
                                      or not 0 <= plies <= 7):
                print(f"gnubg-blunder: analyse: plies={plies!r}: a whole number from 0 to 7")
                return None
            g = _gnubg()
            data = g.match(analysis=0, boards=0)
            if data is None:
                print("gnubg-blunder: no match is loaded (load or import one first)")
                return None
            ctx.store()  # damaged, newer, locked: said now, not after the analysis
            _close(ctx)
            money = int(data["match-info"].get("match-length", 0)) == 0
            if plies is None:
                g.command("analyse session" if money else "analyse match")
            else:
                saved = _saved_analysis_plies()
                for kind in ("chequerplay", "cubedecision"):
                    g.command(f"set analysis {kind} evaluation plies {int(plies)}")
                try:
                    g.command("analyse session" if money else "analyse match")
                finally:
                    for kind in ("chequerplay", "cubedecision"):
                        g.command(f"set analysis {kind} evaluation plies {saved.get(kind, 2)}")
                print(f"gnubg-blunder: analysed at {int(plies)} plies; gnubg's analysis settings back at "
                      + ", ".join(f"{k} {saved.get(k, 2)} plies" for k in ("chequerplay", "cubedecision")))
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            print(_failure(ctx, exc, "cannot analyse and store this match"))
            return None
        finally:
            _close(ctx)
        return self.store()

    @_shown(_said('review'))
    def review(self, match="last", options: str = ""):
        """The match review (``review MATCH_ID|last OPTIONS``, the same words
        as the command line): default the last stored match, the main
        player's side (else both)."""
        self(f"review {match} {options}".strip())

    @_shown(_said('open_xg'))
    def open_xg(self, path):
        """Open an eXtreme Gammon match (``.xg``) in gnubg: it is converted
        to a temporary gnubg SGF (which keeps UTF-8 names) and loaded with
        ``load match``, to replay it or analyse it again.  Prints one line."""
        path = os.path.expanduser(str(path))
        if not path.lower().endswith((".xg", ".xgp")):
            print(f"gnubg-blunder: {_importers_files.shown_path(path)}: not an XG match file (.xg)")
            return None
        tmp = None
        try:
            match = _pipeline.read_one_match(path)
            tmp = tempfile.mkdtemp(prefix="gnubg-blunder-xg-")
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.splitext(os.path.basename(path))[0]) or "match"
            sgf = os.path.join(tmp, stem + ".sgf")
            _exporters.write_sgf(match, sgf)
            g = _gnubg()
            g.command(f'load match "{sgf}"')
            data = g.match(analysis=0, boards=0)
            info = (data or {}).get("match-info") or {}
            loaded = (
                (info.get("X") or {}).get("name"),
                (info.get("O") or {}).get("name"),
                int(info.get("match-length", -1)),
                len((data or {}).get("games") or ()),
            )
            if loaded != (match.players[0], match.players[1], match.length, len(match.games)):
                print(f"gnubg-blunder: {path}: gnubg did not load the converted match")
                return None
            print(f"gnubg-blunder: opened {path}: {_pipeline.match_words(match)}")
            return match
        except (_pipeline.ConvertError, _exporters.ExportError) as exc:
            print(f"gnubg-blunder: {_importers_files.shown_path(path)}: {safe_text(str(exc), None)}")
        except Exception as exc:  # inside gnubg: one line, never a traceback
            print(f"gnubg-blunder: {_importers_files.shown_path(path)}: cannot open it ({_one_line(exc)})")
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        return None

    @_shown(_said('report'))
    def report(self, path=None, options: str = "", match="stored"):
        """Write an HTML report (``report --html PATH OPTIONS``, the same
        words as the command line).

        ``match``: ``"stored"`` (the default) the page of the match that
        ``bdb.analyse()`` / ``bdb.store()`` stored in this gnubg session
        (``report --match ID``), or the collection report when none was
        stored yet; an ID or ``"last"``: that match's page; ``"all"``: the
        collection report (``options`` its filter, e.g.
        ``bdb.report(match="all", options="--player NAME")``).  Default path:
        ~/gnubg-blunder-match-ID.html for a match, ~/gnubg-blunder-report.html
        for the collection.  Returns the path written to."""
        try:
            which = "all" if match is None else str(match).strip()
            if which == "stored":
                which = "all" if self.stored_match_id is None else str(self.stored_match_id)
            if any(w == "--match" or w.startswith("--match=") for w in shlex.split(options or "")):
                which = "all"  # the options say which match
            default = "~/gnubg-blunder-report.html" if which == "all" else f"~/gnubg-blunder-match-{which}.html"
            path = os.path.expanduser(str(path or default))
            chosen = "" if which == "all" else f"--match {shlex.quote(which)} "
            line = f"report {chosen}--html {shlex.quote(path)} {options or ''}".strip()
        except Exception as exc:  # a path that is not text, unbalanced quotes
            print(f"gnubg-blunder: report: {_one_line(exc)}")
            return None
        if self._run(line):
            return None
        gui_output.open_page(path)  # in the GUI the page opens in the browser
        return path

    # -- the quiz (issue 12, docs/quiz.md) ------------------------------------------------------
    @_shown(_said('quiz'))
    def quiz(self, options: str = ""):
        """Start a quiz (``quiz`` options, the same words as the command
        line: ``bdb.quiz("--player NAME --count 5 --seed 1")``): the first
        question is printed and put on gnubg's own board, with the stored
        match's names; answer with ``bdb.answer("13/7 8/7")``.  The match
        gnubg held comes back when the quiz ends or is quit
        (quiz/gnubg_board.py).  Returns the number of questions (None: not
        started)."""
        ctx = self._ctx()
        kept = None
        try:
            g = _gnubg()
            parser = _Parser(prog="bdb.quiz")
            _quiz_terminal.configure(parser)
            args = parser.parse_args(shlex.split(options or ""))
            items, _flt = _quiz_terminal.questions(Scope(args, ctx), args)
            # a quiz started over another keeps the match the player had before the first
            kept = self._quiz["kept"] if self._quiz else _quiz_gnubg_board.keep(g)
            self._quiz = {"items": items, "k": 0, "session": _quiz.Session(), "kept": kept}
            print(f"gnubg-blunder: quiz of {len(items)} question{'s' if len(items) != 1 else ''}; "
                  'answer with bdb.answer("13/7 8/7") (or "double", "take", ...), bdb.answer("q") quits '
                  "(gnubg's match comes back at the end)")
            self._ask_next(g)
            return len(items)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            if not isinstance(exc, SystemExit):  # --help

                print(f"gnubg-blunder: quiz: {exc}" if isinstance(exc, UserError) else _failure(ctx, exc, "quiz"))
            if kept is not None and (self._quiz or {}).get("kept") is kept and self._quiz.get("k", 0) == 0:
                self._end_quiz()  # nothing asked yet: gnubg's match back at once
            return None
        finally:
            _close(ctx)

    def _end_quiz(self) -> None:
        """The quiz is over (answered, quit or failed): gnubg's match (or
        the players' names) back as before the quiz."""
        kept, self._quiz = (self._quiz or {}).get("kept"), None
        try:
            wrong = _quiz_gnubg_board.give_back(_gnubg(), kept)
        except Exception as exc:
            wrong = _one_line(exc)
        if wrong:
            print(f"gnubg-blunder: the match you had loaded is not back: {wrong}")
        elif kept and kept.get("sgf"):
            print("gnubg-blunder: the match you had loaded is back on gnubg's board")

    def _ask_next(self, g) -> None:
        q = self._quiz
        item = q["items"][q["k"]]
        wrong = _quiz_gnubg_board.put_on_board(g, item)
        if wrong:
            print(f"gnubg-blunder: gnubg's board differs from the quiz position: {wrong}")
        print(_quiz.question_text(item, q["k"] + 1, len(q["items"])))

    @_shown(_said('answer'))
    def answer(self, text: str = ""):
        """Grade an answer to the quiz question on gnubg's board (the move
        typed as text: a move played on gnubg's board is not read, see
        docs/quiz.md).  Stores a graded answer as a study action and asks
        the next question; ``"q"`` ends the quiz with its score.  Returns
        the error in mpt (0 for the best), or None."""
        q = getattr(self, "_quiz", None)
        if not q:
            print("gnubg-blunder: no quiz in progress: bdb.quiz() starts one")
            return None
        if str(text).strip().lower() in _quiz_core.QUIT_WORDS:
            print(q["session"].score_text())
            self._end_quiz()
            return None
        ctx = self._ctx()
        try:
            item = q["items"][q["k"]]
            g = _quiz.grade(item, str(text))
            print(_quiz.feedback_text(item, g))
            if g.retry:
                return None
            q["session"].add(g)
            _quiz.record(ctx.store(), item, g)
            q["k"] += 1
            if q["k"] >= len(q["items"]):
                print(q["session"].score_text())
                self._end_quiz()
            else:
                self._ask_next(_gnubg())
            return None if g.error is None else round(g.error * 1000, 3)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            print(_failure(ctx, exc, "quiz answer"))
            return None
        finally:
            _close(ctx)

    # -- the watch folder inside gnubg (docs/gnubg.md, "The watch inside gnubg") ----------------
    @_shown(_said('watch'))
    def watch(self, *folders, settle=None, stop=False):
        """``gnubg-blunder watch FOLDER...`` beside gnubg (docs/watch.md):
        every analysed match saved into the folders is stored, a line each,
        shown in the output window as it is written (the console in
        ``gnubg -t``).  ``bdb.watch(stop=True)`` ends it (its counts said);
        it ends with gnubg too.  A process of its own: gnubg's embedded
        Python runs no thread of ours while gnubg waits for the player.
        Returns the watcher's process ID (None: not started)."""
        running = self._watcher is not None and self._watcher.poll() is None
        if stop:
            if not running:
                print("gnubg-blunder: no watch is running")
                return None
            self._watcher.terminate()
            try:
                self._watcher.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._watcher.kill()
            self._watcher = None
            print("gnubg-blunder: the watch is stopped")
            return None
        if running:
            print(f"gnubg-blunder: a watch is already running (process {self._watcher.pid}); "
                  "bdb.watch(stop=True) ends it")
            return self._watcher.pid
        if not folders:
            print('gnubg-blunder: watch: name the folders: bdb.watch("~/backgammon/matches")')
            return None
        python = gui_output.system_python()
        if python is None:
            print("gnubg-blunder: watch: no Python interpreter found to run it")
            return None
        line = [python, "-m", "gnubg_blunder"] + (["--db", str(self.db_path)] if self.db_path else [])
        where = [os.path.expanduser(str(f)) for f in folders]
        line += ["watch", *where]
        if settle is not None:
            line += ["--settle", str(settle)]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), PYTHONUNBUFFERED="1")
        log = None
        if gui_output.collecting():  # the GUI: its lines to a file the output window follows
            folder = gui_output.pages_folder()
            folder.mkdir(parents=True, exist_ok=True)
            log = folder / f"watch-{os.getpid()}.log"
        try:
            out = open(log, "ab") if log else None
            try:
                self._watcher = subprocess.Popen(line, stdin=subprocess.DEVNULL, stdout=out,
                                                 stderr=subprocess.STDOUT if out else None, env=env,
                                                 close_fds=True, preexec_fn=_end_with_gnubg)
            finally:
                if out:
                    out.close()
        except OSError as exc:
            print(f"gnubg-blunder: watch: cannot start it ({_one_line(exc)})")
            return None
        shown = log is not None and gui_output.follow("watch", log)
        print(f"gnubg-blunder: watching {', '.join(where)} beside gnubg (process {self._watcher.pid}); its lines "
              + ("follow in this window" if shown else f"go to {log}" if log else "follow here")
              + "; bdb.watch(stop=True) ends it")
        return self._watcher.pid

    def __repr__(self):
        return (f"<gnubg-blunder {__version__}: bdb.analyse() (bdb.analyse(plies=2): at 2 plies), bdb.store(), bdb.review(), "
                f'bdb.report() (the match just stored; match=ID for another, match="all" for the collection), '
                f'bdb.open_xg(FILE), bdb.quiz(), bdb.answer("13/7 8/7"), bdb.watch("FOLDER") (stop=True ends it), '
                f'bdb("stats --player NAME"), bdb("--help"); docs/gnubg.md>')


COUNTS_NOTE = ("gnubg-blunder: decisions and PR are counted by XG's rules, not as gnubg's Match statistics window "
               "counts (unforced moves, close cube decisions, doubtful/bad/very bad marks); the differences: "
               "docs/figures.md, \"Our counts and gnubg's statistics window\"")


def _main_player_howto(store, match_id):
    """With no main player set: how to set one, with the match's two names
    (views without --player pool both sides until then); None when one is
    set."""
    if _db_settings.main_player(store):
        return None
    names = _pipeline.stored_players(store, match_id) or ()
    ways = " or ".join(f'>bdb("main-player {shlex.quote(n)}")' for n in names) or '>bdb("main-player NAME")'
    return (f"gnubg-blunder: no main player is set, so views without --player pool both sides; "
            f"say whose database it is: {ways}")


def _end_with_gnubg() -> None:
    """In the watcher's process before it runs (Linux): SIGTERM when gnubg
    ends, so no watch outlives the gnubg that started it."""
    try:
        ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _saved_analysis_plies() -> dict:
    """The analysis plies of gnubg's saved settings (~/.gnubg/gnubgautorc:
    ``set analysis chequerplay evaluation plies N``); gnubg's default (2)
    for what is not there."""
    found = {}
    path = os.path.join(os.path.expanduser("~"), ".gnubg", "gnubgautorc")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = re.match(r"\s*set analysis (chequerplay|cubedecision) evaluation plies (\d+)", line)
                if m:
                    found[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return found


def _close(ctx) -> None:
    try:
        ctx.close()
    except Exception:
        ctx._store = None


def _has_analysis(data: dict) -> bool:
    """A real analysis puts luck or move lists on move records."""
    for g in data.get("games") or ():
        for rec in g.get("game") or ():
            a = rec.get("analysis") or {}
            if "luck-value" in a or "moves" in a or "nd-cubeful-eq" in a:
                return True
    return False
