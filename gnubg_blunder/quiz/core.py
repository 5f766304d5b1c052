"""The "Decision" exercise (issue 12, the quiz): pick decisions, ask them,
grade the answers against the stored analysis, score the session.

Pure of I/O except the store reads and the study actions written by
:func:`record`; the terminal loop is :mod:`gnubg_blunder.quiz.terminal`, the
gnubg mode ``bdb.quiz()`` / ``bdb.answer()`` (gnubg/console.py).  Rules:
docs/quiz.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..game_record import place_text
from ..codec.candidates import decider_cube_probs, decode_row
from ..errors import UserError
from ..board import Board, parse_move_notation
from ..board.svg import position_text
from ..importers.build import cube_action, cube_errors
from ..metrics.counting import counted, kind_mask
from ..metrics.kernel import rate
from ..model import CHECKER, DOUBLE, NO_DOUBLE, PASS, TAKE, cube_ask, is_money, is_redouble
from ..units import millipoints
from . import DEFAULT_COUNT  # declared in the package: the parser reads it without numpy
from ..commands import study_selection
from ..formatting import chances_text
from ..text import safe_text
from ..board.moves import legal_plays
from ..metrics.plan import family_mask, plan_mask, study_plan
from ..metrics.study import quiz_error
from ..metrics.verify import evaluation_depth, verification_note
from ..store import verifications

ACTION = "quiz"  # study_actions.action of a graded answer (SPEC §11: a quiz answer is a study action)

# cube answers, as typed (case and extra spaces ignored)
CUBE_WORDS = {
    "double": DOUBLE, "d": DOUBLE, "dbl": DOUBLE, "redouble": DOUBLE,
    "no double": NO_DOUBLE, "nodouble": NO_DOUBLE, "no-double": NO_DOUBLE, "nd": NO_DOUBLE,
    "no redouble": NO_DOUBLE, "no": NO_DOUBLE,
    "take": TAKE, "t": TAKE, "beaver": TAKE,
    "pass": PASS, "p": PASS, "drop": PASS,
}
QUIT_WORDS = ("q", "quit", "exit")
BEAVER_WORD = "beaver"  # a take in money play; refused in match play (beavers exist only for money)


class QuizError(UserError):
    """Nothing to ask (one line for the user)."""


@dataclass
class Item:
    """One question: a stored decision, what the player saw."""

    decision_id: int
    match_id: int
    game: int
    kind: str  # the decision's kind: checker, nodouble, double, take, pass
    position_id: str  # the decider on roll (the responder for take/pass)
    dice: Optional[tuple]
    cube_value: int  # before the decision (before the double for take/pass)
    cube_owner: str  # "centred", "you" or "opponent"
    score_self: int
    score_opp: int
    crawford: bool
    length: int
    you: str
    opponent: str
    candidates: list = field(default_factory=list)  # [{"move", "equity", "position_id", "depth", "probs"}]
    depth: Optional[str] = None  # the decision's analysis depth (a cube decision's: its cube evaluation's)
    cube_probs: Optional[tuple] = None  # a cube decision's chances before the double, from the player's side
    nd: Optional[float] = None
    dt: Optional[float] = None
    dp: Optional[float] = None
    verified_plies: Optional[int] = None  # graded on gnubg's evaluation at that depth (SPEC §16); None: not verified
    mwc_per_emg: Optional[float] = None  # match play: % MWC per EMG (the review's unit); None for money
    move: Optional[int] = None  # the stored move index (the record in its game, from 1)
    gnubg_row: Optional[int] = None  # the row of gnubg's game record listing it, in your column (docs/review.md)

    @property
    def cube_question(self) -> bool:
        return self.kind != CHECKER

    @property
    def responds(self) -> bool:
        """A take/pass question (the player is doubled)."""
        return self.kind in (TAKE, PASS)

    @property
    def redouble(self) -> bool:
        """A cube question whose double is a redouble (the doubler owns the cube)."""
        owner = {"centred": -1, "you": 0, "opponent": 1}[self.cube_owner]
        return is_redouble(self.kind, owner, 0)

    @property
    def cube_choices(self) -> str:
        """"double or no double", "redouble or no redouble" or "take or pass"."""
        return cube_ask(self.kind, self.redouble)

    @property
    def board(self) -> Board:
        return Board.from_position_id(self.position_id)


@dataclass
class Grade:
    """The verdict on one answer.  ``status``: "graded", "not graded" (a
    legal move the analysis did not list: no error, out of the quiz PR),
    "illegal" or "unreadable" (a new try, nothing stored)."""

    status: str
    message: str = ""
    answer: Optional[str] = None  # the answer as gnubg writes it ("13/7 8/7", "take")
    error: Optional[float] = None  # EMG, 0 for the best
    best: Optional[str] = None
    best_gap: Optional[float] = None  # EMG: the best candidate over the second (checker), or the answer's error
    second: Optional[str] = None
    best_board: Optional[str] = None  # position ID after the best play (checker plays)
    best_candidate: Optional[dict] = None  # checker plays: the stored candidates of the best and of the answer
    answer_candidate: Optional[dict] = None

    @property
    def graded(self) -> bool:
        return self.status == "graded"

    @property
    def retry(self) -> bool:
        return self.status in ("illegal", "unreadable")

    @property
    def grade_mpt(self) -> Optional[int]:
        """The stored grade: the error rounded to the millipoint (SPEC §3's rounding)."""
        return None if self.error is None else int(millipoints(self.error))


# -- picking ------------------------------------------------------------------------------

def pool_mask(sel, flt, thresholds, errors_only: bool = True, plan_top: int = 0, metric=None) -> np.ndarray:
    """The decisions a quiz may ask: counted (SPEC §2) decisions of the
    filter's side(s) and decision type with a known position; the counted
    errors (e ≥ the error threshold, rounded to the mpt) unless
    ``errors_only`` is False; with ``plan_top`` N, only the members of the
    study plan's first N families (metrics/plan.py) in the study half's
    cost ``metric`` (default pr)."""
    dec = sel.decisions
    if not len(dec):
        return np.zeros(0, dtype=bool)
    mask = counted(dec) & sel.decision_side_mask() & kind_mask(dec, flt.decision_type or "all")
    mask &= dec.position >= 0
    if errors_only or plan_top:
        mask &= thresholds.classify(dec.error)[0]
    if plan_top:
        plan = study_plan(sel, plan_mask(sel, flt.decision_type or "all"), thresholds, metric)
        top = [f["family"] for f in plan["families"] if f["status"] == "plan"][:plan_top]
        if not top:
            raise QuizError("the study plan has no family yet (`plan` says why): no --plan-top quiz")
        fam = np.zeros(len(dec), dtype=bool)
        for name in top:
            fam |= family_mask(sel, name)
        mask &= fam
    return mask


def pick(sel, mask: np.ndarray, count: int = DEFAULT_COUNT, seed=None) -> list:
    """``count`` decision indices of ``mask`` (0 = all), in a random order
    (``seed``: the same order every time)."""
    idx = [int(i) for i in np.nonzero(mask)[0]]
    rng = random.Random(seed)
    rng.shuffle(idx)
    return idx if not count or count <= 0 else idx[:count]


def load_items(store, sel, indices) -> list:
    """The questions of the decisions ``indices`` of ``sel``, in that order."""
    dec = sel.decisions
    ids = [int(dec.row_id[i]) for i in indices]
    # SPEC §16: the question is graded on the decision's deepest evaluation
    rows = verifications.overlay_rows(store, {r["id"]: r for r in store.decision_rows(ids)})
    places = store.gnubg_rows(ids)
    items = []
    for i in indices:
        r = rows.get(int(dec.row_id[i]))
        if r is None or not r.get("position_id"):
            continue
        info = sel.matches[int(dec.match[i])]
        p = int(r["player"])
        names = info.players
        owner = r["cube_owner"]
        cands = list(decode_row(r))
        items.append(Item(
            decision_id=int(r["id"]), match_id=int(info.id), game=int(r["game"]), kind=r["kind"],
            position_id=r["position_id"],
            dice=(int(r["dice1"]), int(r["dice2"])) if r.get("dice1") else None,
            cube_value=int(r["cube_value"]),
            cube_owner="centred" if owner is None or owner < 0 else "you" if owner == p else "opponent",
            score_self=int(r["score_self"]), score_opp=int(r["score_opp"]), crawford=bool(r["crawford"]),
            length=int(info.length), you=names[p], opponent=names[1 - p],
            candidates=[{"move": c.get("move"), "equity": c.get("equity"), "position_id": c.get("position_id"),
                         "depth": c.get("depth"), "probs": c.get("probs")} for c in cands],
            depth=r.get("depth"), cube_probs=decider_cube_probs(r), nd=r.get("nd"), dt=r.get("dt"), dp=r.get("dp"),
            verified_plies=r.get("verified_plies"), mwc_per_emg=r.get("mwc_per_emg"),
            move=int(r["seq"]) + 1, gnubg_row=places.get(int(r["id"])),
        ))
    return items


def choose(store, flt, thresholds, count: int = DEFAULT_COUNT, seed=None, plan_top: int = 0,
           errors_only: bool = True, row_ids=None, metric=None) -> list:
    """The questions of a quiz over the filter ``flt`` (see :func:`pool_mask`);
    ``row_ids``: only those decisions (e.g. those behind `errors`' rows)."""
    sel = study_selection(store, store.select(flt))  # each decision at its deepest evaluation (SPEC §16)
    mask = pool_mask(sel, flt, thresholds, errors_only=errors_only, plan_top=plan_top, metric=metric)
    if row_ids is not None and len(mask):
        mask &= np.isin(sel.decisions.row_id, np.asarray(list(row_ids), dtype=np.int64))
    if not mask.any():
        what = "counted error" if errors_only or plan_top else "counted decision"
        raise QuizError(f"no {what} in this selection to ask (widen the filter"
                        + (", or --all-decisions" if errors_only and not plan_top else "") + ")")
    return load_items(store, sel, pick(sel, mask, count, seed))


# -- grading ------------------------------------------------------------------------------

def _cube_word(text: str) -> Optional[str]:
    return CUBE_WORDS.get(" ".join(text.lower().replace("/", " ").split()))


def grade(item: Item, text: str) -> Grade:
    """Grade the answer ``text`` to ``item`` against its stored analysis."""
    text = (text or "").strip()
    if not text:
        if item.cube_question:
            return Grade("unreadable", f"type {item.cube_choices}, or q to quit")
        return Grade("unreadable", f"type a move (e.g. {example_play(item)}), or q to quit")
    if item.cube_question:
        return _grade_cube(item, text)
    return _grade_checker(item, text)


def _grade_cube(item: Item, text: str) -> Grade:
    word = _cube_word(text)
    if item.nd is None or item.dt is None or item.dp is None:
        return Grade("not graded", "the analysis has no cube equities here")
    wanted = (TAKE, PASS) if item.responds else (DOUBLE, NO_DOUBLE)
    if word is None or word not in wanted:
        return Grade("unreadable", f"a cube decision: answer {item.cube_choices}")
    if " ".join(text.lower().split()) == BEAVER_WORD and not is_money(item.length):
        return Grade("unreadable", "no beaver in match play (beavers exist only in money play): answer take or pass")
    errs = cube_errors(item.nd, item.dt, item.dp)
    if item.responds:
        best = TAKE if item.dt <= item.dp else PASS
    else:
        best = DOUBLE if errs[DOUBLE] <= errs[NO_DOUBLE] else NO_DOUBLE
    other = [w for w in wanted if w != best][0]
    action = cube_action(item.nd, item.dt, item.dp)
    if item.redouble:  # "redouble/take", "no redouble"
        action = action.replace("double", "redouble")
    label = {DOUBLE: "redouble" if item.redouble else "double",
             NO_DOUBLE: "no redouble" if item.redouble else "no double", TAKE: "take", PASS: "pass"}
    return Grade("graded", answer=label[word], error=max(0.0, errs[word]),
                 best=f"{label[best]} ({action})" if not item.responds else label[best],
                 best_gap=max(0.0, errs[other]), second=label[other])


def _grade_checker(item: Item, text: str) -> Grade:
    board = item.board
    d1, d2 = item.dice
    if _cube_word(text) is not None:
        return Grade("unreadable", f"a checker play: move your checkers for {d1}-{d2} (e.g. {example_play(item)})")
    try:
        play = parse_move_notation(board, d1, d2, text)
    except ValueError:
        return Grade("unreadable", f"cannot read {text!r}: write a move as gnubg does, e.g. {example_play(item)} "
                     "(bar/22, 8/5*, 6/off)")
    if play is None:
        return Grade("illegal", f"{text} is not a legal move with {d1}-{d2}")
    cands = [c for c in item.candidates if c.get("equity") is not None and c.get("position_id")]
    if not cands:
        return Grade("not graded", "the analysis lists no candidate here", answer=play.notation)
    target = play.result.position_id()
    best = cands[0]  # the analysis' first candidate (SPEC §1: lower-depth tails never "best")
    second = cands[1] if len(cands) > 1 else None
    gap = None if second is None else max(0.0, best["equity"] - second["equity"])
    common = dict(answer=play.notation, best=best["move"], best_gap=gap,
                  second=None if second is None else second["move"], best_board=best["position_id"],
                  best_candidate=best)
    for c in cands:
        if c["position_id"] == target:
            return Grade("graded", error=max(0.0, best["equity"] - c["equity"]), answer_candidate=c, **common)
    return Grade("not graded", "the analysis did not list this move: not graded", **common)


def example_play(item: Item) -> str:
    """A legal play of the question's roll, as an example of the notation
    (the board code's first legal play; never the analysis' best)."""
    plays = legal_plays(item.board, *item.dice) if item.dice else []
    return plays[-1].notation if plays else "13/7 8/7"


# -- the session ---------------------------------------------------------------------------

@dataclass
class Session:
    """Answers so far: graded errors (EMG), not graded count."""

    errors: list = field(default_factory=list)
    not_graded: int = 0

    def add(self, g: Grade) -> None:
        if g.graded:
            self.errors.append(stored_error(g))  # as stored and printed: `training` gives the same PR
        elif g.status == "not graded":
            self.not_graded += 1

    @property
    def pr(self) -> Optional[float]:
        """The quiz PR: 500 × Σe / N over the graded answers (SPEC §1, §3's
        scale: comparable with a match PR); None before a graded answer."""
        return rate(sum(self.errors), len(self.errors))

    def score_text(self) -> str:
        n = len(self.errors)
        pr = self.pr
        total = float(sum(self.errors))
        out = (f"Quiz score: {n} graded answer{'s' if n != 1 else ''}, error {fmt_mpt(total)} mpt in all, "
               f"quiz PR {'—' if pr is None else f'{pr:.1f}'} (500 × Σe / N)")
        if self.not_graded:
            out += f"; {self.not_graded} not graded (moves the analysis did not list)"
        return out


def stored_error(g: Grade) -> float:
    """The answer's error as stored and printed: its grade (whole
    millipoints, SPEC §3's rounding) in EMG."""
    return quiz_error(g.grade_mpt)


def record(store, item: Item, g: Grade, at: Optional[str] = None) -> Optional[str]:
    """Store a graded answer as a study action ("quiz", grade = the error in
    whole millipoints, the decision asked, UTC now); returns its time."""
    if not g.graded:
        return None
    return store.add_study_action(item.position_id, ACTION, grade=g.grade_mpt, decision_id=item.decision_id, at=at)


# -- texts ---------------------------------------------------------------------------------

def fmt_mpt(e: float) -> str:
    return f"{float(e) * 1000:.1f}"


def error_text(item: Item, g: Grade) -> str:
    """A graded answer's error as stored (whole mpt) and, in match play, in
    the review's unit: % MWC = 100 × e × mwc_per_emg."""
    text = f"{g.grade_mpt} mpt"
    if item.mwc_per_emg is not None and not is_money(item.length):
        text += f", {100 * stored_error(g) * item.mwc_per_emg:.2f} % MWC"  # mwc_per_emg: MWC as a share
    return text


def _shown_names(item: Item) -> tuple:
    """The two names as the quiz's text shows them (user data: control and
    bidi characters escaped, docs/reliability.md "Hostile text"); the item
    keeps them as stored (gnubg's board is given them as they are)."""
    return safe_text(item.you), safe_text(item.opponent)


def _score_text(item: Item) -> str:
    if is_money(item.length):
        return "money game"
    you, opponent = _shown_names(item)
    text = (f"{item.length}-point match, {you} {item.score_self}, {opponent} {item.score_opp} "
            f"({item.length - item.score_self}-away, {item.length - item.score_opp}-away)")
    if item.crawford:
        return text + ", Crawford game"
    if item.length - item.score_self == 1 or item.length - item.score_opp == 1:
        return text + ", post-Crawford"
    return text


def _cube_text(item: Item) -> str:
    if item.cube_owner == "centred":
        return f"cube centred at {item.cube_value}"
    you, opponent = _shown_names(item)
    who = you if item.cube_owner == "you" else opponent
    return f"cube {item.cube_value} owned by {who}"


def question_text(item: Item, number: int = 1, total: int = 1) -> str:
    """The question: board, dice, cube, score — never the answer."""
    you, opponent = _shown_names(item)
    if item.responds:
        # The doubler is on roll (O); the player answers (X, at the bottom).
        to = 2 * item.cube_value
        doubles = "redoubles" if item.redouble else "doubles"
        board = position_text(item.board, (you, opponent),
                              roles=("to take or pass", f"on roll, {doubles} to {to}"))
        ask = f"{opponent} {doubles} to {to} — {you} (X) to take or pass?"
    elif item.cube_question:
        board = position_text(item.board, (you, opponent))
        ask = f"{you} (X) on roll, before rolling: {item.cube_choices}?"
    else:
        board = position_text(item.board, (you, opponent))
        ask = f"{you} to play {item.dice[0]}-{item.dice[1]}: your move?"
    head = (f"Question {number}/{total} ({where_text(item)}): "
            f"{_score_text(item)}, {_cube_text(item)}")
    return "\n".join([head, board, ask])


def _depth(item: Item, candidate: Optional[dict] = None) -> str:
    return evaluation_depth(None if candidate is None else candidate.get("depth"), item.verified_plies,
                            item.depth) or "—"


def chances_lines(item: Item, g: Grade) -> list:
    """A graded answer's chances and depth: the best play's and the
    answer's (one line when they are the same play), a cube decision's
    position before the double (the player's chances; "—" where not
    stored); where the database verified the decision, which depth
    (docs/quiz.md)."""
    head = "Chances (cubeless) and depth"
    if item.verified_plies is not None:
        head += f", depth check: {verification_note(item.verified_plies)}"
    if item.cube_question:
        return [f"{head}: the position (no double), {_depth(item)}, {_shown_names(item)[0]}'s chances: "
                f"{chances_text(item.cube_probs)}"]
    best, mine = g.best_candidate, g.answer_candidate
    if best is None:
        return []
    if mine is best:
        return [f"{head}: {best['move']} (best = yours), {_depth(item, best)}: "
                f"{chances_text(best.get('probs'))}"]
    out = [f"{head}:", f"  best  {best['move']}, {_depth(item, best)}: {chances_text(best.get('probs'))}"]
    if mine is not None:
        out.append(f"  yours {mine['move']}, {_depth(item, mine)}: {chances_text(mine.get('probs'))}")
    return out


def where_text(item: Item) -> str:
    """Where the question's position is in its match: ``match 5, game 2,
    move 18, gnubg row 10, Weakbot`` (gnubg's game-record row and the
    player's column, docs/review.md)."""
    move = "" if item.move is None else f", move {item.move}"
    return (f"match {item.match_id}, game {item.game + 1}{move}, "
            f"gnubg {place_text(item.gnubg_row, _shown_names(item)[0])}")


def feedback_text(item: Item, g: Grade) -> str:
    """What the player learns after an answer."""
    if g.retry:
        return g.message
    if not g.graded:
        lines = [f"{g.answer or 'that'}: {g.message}"]
        if g.best:
            lines.append(f"The analysis' best: {g.best}")
        return "\n".join(lines)
    if g.error == 0:
        head = f"{g.answer}: right, the best (error {error_text(item, g)})."
        if item.cube_question and g.best != g.answer:
            head = f"{g.answer}: right, the best (error {error_text(item, g)}): {g.best}."
    else:
        head = f"{g.answer}: error {error_text(item, g)}. Best: {g.best}."
    lines = [head]
    if item.verified_plies is not None:  # SPEC §16: which evaluation graded it
        lines.append(f"Graded on gnubg's {item.verified_plies}-ply evaluation (the depth check), "
                     "not the file's analysis.")
    lines += chances_lines(item, g)
    if g.error == 0 and g.best_gap is not None and g.second:
        # only moves the player sees are named (the best, their answer): the runner-up is not
        other = "the other answer" if item.cube_question else "the next best play"
        lines.append(f"The best is {fmt_mpt(g.best_gap)} mpt ahead of {other}.")
    if g.best_board and not item.cube_question:
        lines.append(f"After {g.best}:")
        lines.append(position_text(Board.from_position_id(g.best_board), _shown_names(item),
                                   roles=("has played", None)))
    lines.append(f"In gnubg: {where_text(item)}.")
    return "\n".join(lines)
