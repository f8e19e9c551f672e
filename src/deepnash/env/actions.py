"""The 100-square action space relative to the acting player, deployment order, and move conversions.

Source: ``docs/observation.md`` ("Action space", "Player-centric view").  An
action is a square index ``0..99`` in the acting player's frame: the absolute
square for Red, its 180-degree rotation ``99 - a`` for Blue.  A move takes two
actions (select the piece, then its destination); a deployment takes one action
per piece, in ``deploy_order(variant)``.
"""

from __future__ import annotations

import numpy as np

from ..game import IllegalMoveError, Move, Variant
from ..game.pieces import (
    BOMB, CAPTAIN, COLONEL, FLAG, GENERAL, LIEUTENANT, MAJOR, MARSHAL, MINER, SCOUT, SERGEANT, SPY,
)

NUM_ACTIONS = 100

#: The paper's deployment order of types: F, B, 10, 9, 8, 7, 6, 5, 4, 3, 2, S.
DEPLOY_TYPE_ORDER = (FLAG, BOMB, MARSHAL, GENERAL, COLONEL, MAJOR, CAPTAIN, LIEUTENANT, SERGEANT, MINER, SCOUT, SPY)


class IllegalActionError(IllegalMoveError):
    """An action outside the legal-action mask (says which game, which player and which action)."""


def deploy_order(variant: Variant) -> np.ndarray:
    """``int8[variant.num_pieces]``: the type placed by each deployment action, in the paper's order
    (F, B×6, 10, 9, 8×2, 7×3, 6×4, 5×4, 4×4, 3×5, 2×8, S for Classic; the same order restricted
    to the variant's pieces otherwise)."""
    return np.repeat(np.array(DEPLOY_TYPE_ORDER, dtype=np.int8),
                     [variant.piece_counts[t] for t in DEPLOY_TYPE_ORDER])


def _check(value: int, what: str) -> int:
    value = int(value)
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"{what} {value} is off the board (0..99)")
    return value


def action_to_square(action: int, player: int) -> int:
    """The absolute square (``row*10+col``) of ``player``'s action (0 Red, 1 Blue).

    Raises:
        ValueError: ``action`` is not 0..99.
    """
    a = _check(action, "action")
    return a if player == 0 else 99 - a


def square_to_action(square: int, player: int) -> int:
    """``player``'s action for an absolute square (the inverse of ``action_to_square``).

    Raises:
        ValueError: ``square`` is not 0..99.
    """
    s = _check(square, "square")
    return s if player == 0 else 99 - s


def move_to_actions(move: Move, player: int) -> tuple[int, int]:
    """The (select, displace) actions with which ``player`` plays ``move``."""
    return square_to_action(move.from_sq, player), square_to_action(move.to_sq, player)


def actions_to_move(select: int, displace: int, player: int) -> Move:
    """The ``Move`` that ``player`` plays with actions (select, displace)."""
    return Move(action_to_square(select, player), action_to_square(displace, player))
