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

from collections.abc import Mapping, Sequence

import numpy as np
from numba import njit

from ..game import Game
from ..game import kernels as K
from ..game.codes import EMPTY, LAKE, code_of
from ..game.pieces import NUM_TYPES
from ..game.state import BatchState
from .beliefs import IMMOVABLE, hidden_counts
from .view import MoveRecord, PlayerView


def sample_hidden(view: PlayerView, rng: np.random.Generator, weights: np.ndarray | None = None,
                  exclude: np.ndarray | None = None, tilt_moved: bool = False, n: int | None = None) -> np.ndarray:
    """``int8[100]``: a type for every opponent piece (revealed ones keep theirs), -1 elsewhere; with ``n``,
    ``int8[n, 100]``: ``n`` independent such draws, made together (about as fast as one).

    The hidden pieces draw one at a time in a random order, the moved ones first (from the movable types),
    then the unmoved ones, each square from the unrevealed pieces left.

    Args:
        view: the player's view.
        rng: the random generator.
        weights: optional ``float[100, 12]`` positive weights of each type on each square,
            applied to unmoved pieces (e.g. ``setup_stats.deployment_weights``), and with
            ``tilt_moved`` to moved ones too (a learned belief's, ``testtime.belief``).  Each square draws
            with probability proportional to the unrevealed pieces left of each type times its weight,
            so weights of (wanted marginals) / (public marginals) draw close to the wanted marginals.
        exclude: optional ``bool[100, 12]``: types taken to be impossible on each square (e.g. the
            memory heuristic's eliminations).  Squares with exclusions draw first within their
            group (moved, then unmoved pieces); soft: a square whose remaining types are all
            excluded draws as if nothing were.
        n: how many draws (``None``: one, without the leading axis).

    Raises:
        ValueError: inconsistent public information (see ``beliefs.hidden_counts``),
            or ``weights`` / ``exclude`` of the wrong shape, or ``weights`` not positive.
    """
    if weights is not None and (np.shape(weights) != (100, 12) or np.min(weights) <= 0):
        raise ValueError(f"weights must be positive float[100, 12], got shape {np.shape(weights)}")
    if exclude is not None and np.shape(exclude) != (100, 12):
        raise ValueError(f"exclude must be bool[100, 12], got shape {np.shape(exclude)}")
    size = 1 if n is None else n
    opp = 1 - view.player
    out = np.full((size, 100), -1, dtype=np.int8)
    known = (view.owner == opp) & view.revealed
    out[:, known] = view.types[known]
    left = np.tile(hidden_counts(view).astype(np.float64), (size, 1))
    hidden = (view.owner == opp) & ~view.revealed
    ruled_out = np.zeros((100, 12), bool) if exclude is None else np.asarray(exclude, bool)
    flat = np.ones((100, 12))
    for squares, allowed, tilted in ((np.flatnonzero(hidden & view.moved), ~IMMOVABLE, tilt_moved),
                                     (np.flatnonzero(hidden & ~view.moved), np.ones(12, bool), True)):
        # a random order per draw; constrained squares first, while their types are still left
        key = rng.random((size, len(squares))) + ~ruled_out[squares].any(axis=1)
        order = squares[np.argsort(key, axis=1)]
        w = np.asarray(weights, np.float64) if weights is not None and tilted else flat
        _draw_types(order, allowed, w, ruled_out, left, rng.random(order.shape), out)
    return out[0] if n is None else out


@njit(cache=True)
def _draw_types(order, allowed, weights, exclude, left, u, out):
    """Draw ``out[i, order[i, k]]`` for every draw ``i`` and step ``k``: type ``t`` with probability
    proportional to ``left[i, t] * weights[sq, t]`` over the ``allowed`` types not in ``exclude[sq]`` (all
    of them if that leaves nothing), by the uniform ``u[i, k]``; ``left`` loses each type drawn."""
    p = np.empty(12)
    for i in range(order.shape[0]):
        for k in range(order.shape[1]):
            sq = order[i, k]
            total = kept = 0.0
            for t in range(12):
                p[t] = left[i, t] * weights[sq, t] if allowed[t] else 0.0
                total += p[t]
                if not exclude[sq, t]:
                    kept += p[t]
            if kept > 0.0:
                for t in range(12):
                    if exclude[sq, t]:
                        p[t] = 0.0
                total = kept
            x = u[i, k] * total
            pick = -1
            for t in range(12):
                if p[t] > 0.0:
                    pick = t
                    x -= p[t]
                    if x < 0.0:
                        break
            out[i, sq] = pick
            left[i, pick] -= 1.0


def history_array(records: Sequence[MoveRecord]) -> np.ndarray:
    """``int8[2, HISTORY, 2]``: each player's last ``kernels.HISTORY`` moves (from, to), newest first, -1 for
    none, as ``BatchState.hist`` keeps them for the two-squares rule."""
    hist = np.full((2, K.HISTORY, 2), -1, dtype=np.int8)
    for p in (0, 1):
        mine = [r.move for r in reversed(records) if r.player == p][: K.HISTORY]
        for k, m in enumerate(mine):
            hist[p, k] = (m.from_sq, m.to_sq)
    return hist


def complete_state(view: PlayerView, opponent: np.ndarray) -> dict:
    """The complete state of ``view`` with the opponent's types ``opponent: int8[100]``, as keyword
    arguments of ``BatchState.load`` and ``Game.from_state``.

    Flags (revealed, moved), the player to move (``view.player``), the move
    counters and each player's recent moves (the two-squares rule) come from the
    view; the more-squares rule's chase state starts empty.
    """
    board = np.where(view.owner == 2, LAKE, EMPTY).astype(np.int8)
    me = view.owner == view.player
    opp = view.owner == 1 - view.player
    board[me] = code_of(view.player, view.types[me])
    board[opp] = code_of(1 - view.player, opponent[opp])
    on = me | opp
    flags = (np.where(on & view.revealed, K.REVEALED, 0) | np.where(on & view.moved, K.MOVED, 0)).astype(np.uint8)
    return dict(board=board, flags=flags, turn=view.player, ply=view.ply, moves_since_attack=view.moves_since_attack,
                history=history_array(view.history))


def load_determinization(view: PlayerView, opponent: np.ndarray, state: BatchState, slot: int) -> None:
    """Write ``complete_state(view, opponent)`` into ``state[slot]``.

    Raises:
        InvalidPositionError: ``opponent`` breaks the variant's piece counts or gives a
            moved piece an immovable type (``BatchState.load``).
    """
    state.load(slot, **complete_state(view, opponent))


def position(view: PlayerView, fixed: Mapping[int, int] | None = None) -> Game | None:
    """A game matching ``view``'s public information, ``view.player`` to move.

    The player's own pieces and every revealed opponent piece have their
    types; each square in ``fixed`` (a hidden opponent piece) gets the given
    type; the other hidden opponent pieces share out the rest of the
    opponent's unrevealed pieces (movable types on the pieces that have moved),
    in a fixed order rather than at random (``complete_state``).

    Returns:
        The game, or ``None`` when ``fixed`` is impossible under public
        information (not enough unrevealed pieces of a type, a Bomb or Flag on a
        piece that has moved, or not enough movable pieces left for the moved ones).

    Raises:
        ValueError: a ``fixed`` square does not hold a hidden opponent piece.
    """
    fixed = dict(fixed or {})
    opp = 1 - view.player
    hidden = (view.owner == opp) & ~view.revealed
    for sq, t in fixed.items():
        if not hidden[sq]:
            raise ValueError(f"square {sq} does not hold a hidden opponent piece")
    pool = hidden_counts(view)
    types = np.where(view.owner == opp, view.types, -1).astype(np.int8)
    for sq, t in fixed.items():
        if pool[t] == 0 or (view.moved[sq] and IMMOVABLE[t]):
            return None
        pool[t] -= 1
        types[sq] = t
    rest = [int(s) for s in np.flatnonzero(hidden) if s not in fixed]
    rest.sort(key=lambda s: not view.moved[s])  # moved pieces first: they need movable types
    order = [t for t in range(NUM_TYPES) if not IMMOVABLE[t]] + [t for t in range(NUM_TYPES) if IMMOVABLE[t]]
    bag = [t for t in order for _ in range(int(pool[t]))]
    for sq, t in zip(rest, bag):
        if view.moved[sq] and IMMOVABLE[t]:
            return None
        types[sq] = t
    return Game.from_state(view.variant, **complete_state(view, types))


def determinize(view: PlayerView, rng: np.random.Generator, samples: int = 1, extra_slots: int = 0,
                weights: np.ndarray | None = None) -> BatchState:
    """A ``BatchState`` whose first ``samples`` slots hold independent determinisations of ``view``
    (then ``extra_slots`` unused slots for simulation work)."""
    state = BatchState(samples + extra_slots, view.variant)
    for s in range(samples):
        load_determinization(view, sample_hidden(view, rng, weights), state, s)
    return state
