"""Determinisation: complete states consistent with what one player knows, to simulate on.

Shared by the Monte-Carlo bot (CNN seed, section 3.1: "a random board state
consistent with all known information about the opponent") and the MCTS bot
(thesis seed, section 4.4.2, state generation).  The opponent's hidden pieces
get types drawn without replacement from its unrevealed counts
(``beliefs.hidden_counts``): moved pieces first, from the movable types only,
then the unmoved ones from what is left.  With uniform ``weights`` every
consistent deployment of the hidden pieces is equally likely; ``weights:
float[100, 12]`` (e.g. setup statistics) tilt each square's draw towards
some types while the counts stay exact.
"""

from __future__ import annotations

import numpy as np

from ..game import kernels as K
from ..game.state import BatchState
from .base import PlayerView
from .beliefs import IMMOVABLE, hidden_counts


def sample_hidden(view: PlayerView, rng: np.random.Generator, weights: np.ndarray | None = None,
                  exclude: np.ndarray | None = None) -> np.ndarray:
    """``int8[100]``: a type for every opponent piece (revealed ones keep theirs), -1 elsewhere.

    Args:
        view: the player's view.
        rng: the random generator.
        weights: optional ``float[100, 12]`` positive weights of each type on each square,
            applied to unmoved pieces (e.g. ``setup_stats.deployment_weights``).
        exclude: optional ``bool[100, 12]``: types taken to be impossible on each square (e.g. the
            memory heuristic's eliminations).  Squares with exclusions draw first within their
            group (moved, then unmoved pieces); soft: a square whose remaining types are all
            excluded draws as if nothing were.

    Raises:
        ValueError: inconsistent public information (see ``beliefs.hidden_counts``),
            or ``weights`` / ``exclude`` of the wrong shape, or ``weights`` not positive.
    """
    if weights is not None and (np.shape(weights) != (100, 12) or np.min(weights) <= 0):
        raise ValueError(f"weights must be positive float[100, 12], got shape {np.shape(weights)}")
    if exclude is not None and np.shape(exclude) != (100, 12):
        raise ValueError(f"exclude must be bool[100, 12], got shape {np.shape(exclude)}")
    opp = 1 - view.player
    out = np.full(100, -1, dtype=np.int8)
    known = (view.owner == opp) & view.revealed
    out[known] = view.types[known]
    left = hidden_counts(view).astype(np.float64)
    hidden = (view.owner == opp) & ~view.revealed
    moved = rng.permutation(np.flatnonzero(hidden & view.moved))
    still = rng.permutation(np.flatnonzero(hidden & ~view.moved))
    for squares, allowed in ((moved, ~IMMOVABLE), (still, np.ones(12, dtype=bool))):
        if exclude is not None:  # constrained squares draw first, while their types are still left
            squares = squares[np.argsort(~exclude[squares].any(axis=1), kind="stable")]
        for sq in squares:
            p = np.where(allowed, left, 0.0)
            if weights is not None and not view.moved[sq]:
                p = p * weights[sq]  # setup statistics speak of pieces still where they were deployed
            if exclude is not None and exclude[sq].any():
                kept = np.where(exclude[sq], 0.0, p)
                p = kept if kept.sum() > 0 else p
            t = int(rng.choice(12, p=p / p.sum()))
            out[sq] = t
            left[t] -= 1
    return out


def load_determinization(view: PlayerView, opponent: np.ndarray, state: BatchState, slot: int) -> None:
    """Write the complete state (``view`` plus opponent types ``opponent: int8[100]``) into ``state[slot]``.

    Flags (revealed, moved), side to move, ply and the no-attack counter come
    from the view; the repetition history starts empty.
    """
    board = np.where(view.owner == 2, K.LAKE, 0).astype(np.int8)
    me = view.owner == view.player
    opp = view.owner == 1 - view.player
    board[me] = 1 + 12 * view.player + view.types[me]
    board[opp] = 1 + 12 * (1 - view.player) + opponent[opp]
    state.board[slot] = board
    state.flags[slot] = np.where(view.revealed, K.REVEALED, 0) | np.where(view.moved, K.MOVED, 0)
    state.meta[slot] = 0
    state.meta[slot, K.M_TO_MOVE] = view.player
    state.meta[slot, K.M_PLY] = view.ply
    state.meta[slot, K.M_SINCE_ATTACK] = view.moves_since_attack
    state.meta[slot, K.M_WINNER] = -1
    state.meta[slot, K.M_LAST_FROM:K.M_LAST_RESULT] = -1
    state.hist[slot] = -1
    pieces = np.flatnonzero(board > 0)
    state.zob[slot] = np.bitwise_xor.reduce(K.ZOBRIST[pieces, board[pieces]]) if len(pieces) else 0
    state.chase[slot] = 0


def determinize(view: PlayerView, rng: np.random.Generator, samples: int = 1, extra_slots: int = 0,
                weights: np.ndarray | None = None) -> BatchState:
    """A ``BatchState`` whose first ``samples`` slots hold independent determinisations of ``view``
    (then ``extra_slots`` unused slots for simulation work)."""
    state = BatchState(samples + extra_slots, view.variant)
    for s in range(samples):
        load_determinization(view, sample_hidden(view, rng, weights), state, s)
    return state
