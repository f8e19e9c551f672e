"""Board codes: what one square holds, as one ``int8`` (the only module that knows the arithmetic).

``EMPTY`` 0, ``LAKE`` -1, and a piece of player ``p`` (0 Red, 1 Blue) and type ``t``
(``pieces``: 0 Flag ... 11 Bomb) is ``1 + 12*p + t``, so Red's pieces are 1..12
and Blue's 13..24.  ``docs/rules.md`` describes the board this encodes.

``code_of``, ``owner_of``, ``type_of`` and ``is_piece_of`` are Numba functions:
the kernels inline them, and Python calls them on ints, NumPy integers or whole
integer arrays alike (``owner_of(board)`` is an ``int64`` array).  ``owner_of`` and
``type_of`` are meaningful only where there is a piece (``code > 0``); ``owners``
and ``types`` are the NumPy forms with -1 where there is none.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pieces import NUM_TYPES

EMPTY = 0
LAKE = -1
#: Largest board code (Blue's Bomb).
MAX_CODE = 2 * NUM_TYPES


@njit(cache=True, inline="always")
def code_of(player, piece_type):
    """The board code of ``player``'s piece of ``piece_type`` (scalars or arrays)."""
    return 1 + NUM_TYPES * player + piece_type


@njit(cache=True, inline="always")
def owner_of(code):
    """The player (0 Red, 1 Blue) whose piece ``code`` is; only meaningful for ``code > 0``."""
    return (code - 1) // NUM_TYPES


@njit(cache=True, inline="always")
def type_of(code):
    """The piece type 0..11 of ``code``; only meaningful for ``code > 0``."""
    return (code - 1) % NUM_TYPES


@njit(cache=True, inline="always")
def is_piece_of(code, player):
    """Whether ``code`` is a piece of ``player`` (scalars, or an elementwise ``bool`` array)."""
    return (code > NUM_TYPES * player) & (code <= NUM_TYPES * (player + 1))


def owners(board: np.ndarray) -> np.ndarray:
    """``int8`` array shaped like ``board``: each square's owner, -1 where there is no piece."""
    return np.where(board > 0, owner_of(board), -1).astype(np.int8)


def types(board: np.ndarray) -> np.ndarray:
    """``int8`` array shaped like ``board``: each square's piece type, -1 where there is no piece."""
    return np.where(board > 0, type_of(board), -1).astype(np.int8)


def placements(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Red's and Blue's pieces of ``board``: two ``int8[100]`` arrays of piece types, -1 elsewhere (as ``Game`` takes)."""
    kind = types(board)
    return tuple(np.where(is_piece_of(board, p), kind, -1).astype(np.int8) for p in (0, 1))
