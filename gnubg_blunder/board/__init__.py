"""A minimal backgammon board engine in GNU Backgammon's conventions.

``Board`` (position.py): an immutable position with a player on roll, gnubg
position IDs.  moves.py: single steps, all legal plays for a roll, gnubg's
move notation, SGF move values.  See docs/board.md.
"""

from .moves import (
    IllegalMove,
    Play,
    apply_step,
    apply_steps,
    count_legal_plays,
    find_play,
    format_move,
    legal_plays,
    parse_move_notation,
)
from .position import Board
from .svg import board_svg, position_text

__all__ = [
    "Board",
    "IllegalMove",
    "Play",
    "apply_step",
    "apply_steps",
    "count_legal_plays",
    "find_play",
    "format_move",
    "legal_plays",
    "parse_move_notation",
    "board_svg",
    "position_text",
]
