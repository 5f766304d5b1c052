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
from .ids import (
    XGID,
    GameState,
    MatchState,
    board_from_xg,
    match_id,
    parse_xgid,
    play_from_xg_move,
    steps_from_xg_move,
    xg_from_board,
)
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
    "GameState",
    "MatchState",
    "XGID",
    "board_from_xg",
    "match_id",
    "parse_xgid",
    "play_from_xg_move",
    "steps_from_xg_move",
    "xg_from_board",
    "board_svg",
    "position_text",
]

# Position features, phase, game plan, themes (docs/positions.md).  The
# function ``features`` stays in its module (``board.features`` is the module).
from .features import (  # noqa: E402
    PositionFeatures,
    SideFeatures,
    blot_sign,
    checker_theme,
    classify,
    like_distance,
)

__all__ += [
    "PositionFeatures",
    "SideFeatures",
    "blot_sign",
    "checker_theme",
    "classify",
    "like_distance",
]
