"""The quiz (issue 12, the "Decision" exercise): docs/quiz.md."""

from .core import (ACTION, Grade, Item, QuizError, Session, choose, feedback_text, grade, question_text,
                   record)

__all__ = ["ACTION", "Grade", "Item", "QuizError", "Session", "choose", "feedback_text", "grade", "question_text",
           "record"]
