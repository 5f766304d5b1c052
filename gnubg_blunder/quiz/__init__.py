"""The quiz (issue 12, the "Decision" exercise): docs/quiz.md."""

from ..lazy import lazy

_quiz_core = lazy("gnubg_blunder.quiz.core")

DEFAULT_COUNT = 20  # questions of a quiz (``quiz --count``)

__all__ = ["ACTION", "Grade", "Item", "QuizError", "Session", "choose", "feedback_text", "grade", "question_text",
           "record"]


def __getattr__(name):
    """The names of :mod:`.core`, imported when first asked for: ``core``
    imports numpy, which the command line's parser (``quiz --help``) does
    without."""
    if name in __all__:
        return getattr(_quiz_core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
