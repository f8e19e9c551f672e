"""The Numba kernel that writes one player's 82-plane observation (layout in ``planes``).

Sources: ``docs/observation.md``; the public-information tensor is the
closed form of the DeepNash paper's equation 6, the move planes its equation 7.

Besides the engine's ``board``/``flags``/``meta`` arrays the kernel reads the
environment's move ring: ``moves: int16[B, 40, 3]`` holding (from, to,
attacker type or -1 for a plain move) in absolute squares, slot
``(count - 1) % 40`` the newest, and ``count: int64[B]`` the moves recorded.

Equation 6 is implemented as the paper writes it.  Its rows always sum to 1,
but its per-type sums equal the player's piece counts only while none of the
player's unknown pieces has moved: with M moved and U unmoved unknown pieces
the exact marginal of an unmoved piece is ``n_F/U``, ``n_B/U`` and
``n_t (U - n_F - n_B) / (U * sum_{k not B,F} n_k)`` for movable ``t``, where
the paper's form has ``n_t / sum_k n_k`` (the moved case is exact).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..game.codes import LAKE, owner_of, type_of
from ..game.kernels import MOVED, REVEALED
from ..game.pieces import BOMB, FLAG
from .planes import (
    NUM_MOVE_PLANES, P_LAKE, P_LENGTH, P_MOVES, P_NO_ATTACK, P_PHASE, P_PRIVATE, P_PUB_OPP, P_PUB_OWN,
    P_SELECTED, P_STEP,
)


@njit(cache=True)
def public_probabilities(board, flags, b, moved_out, unmoved_out):
    """Equation 6 for the unknown pieces of both players in game ``b``.

    Writes ``moved_out[i]: float32[2, 12]`` (player i's type distribution of a
    moved, unrevealed piece: movable unrevealed types only) and
    ``unmoved_out[i]`` (of an unmoved, unrevealed piece: all unrevealed types).
    A row is all 0 when the player has no such piece.
    """
    counts = np.zeros((2, 12), dtype=np.int32)
    for sq in range(100):
        v = board[b, sq]
        if v > 0 and (flags[b, sq] & REVEALED) == 0:
            counts[owner_of(v), type_of(v)] += 1
    for i in range(2):
        total = 0
        for t in range(12):
            total += counts[i, t]
        movable = total - counts[i, FLAG] - counts[i, BOMB]
        for t in range(12):
            unmoved_out[i, t] = counts[i, t] / total if total > 0 else 0.0
            moved_out[i, t] = counts[i, t] / movable if movable > 0 and t != FLAG and t != BOMB else 0.0


@njit(cache=True)
def encode(board, flags, meta_ply, meta_since, moves, count, deploying, sub, sel, scale, b, p, out):
    """Write player ``p``'s observation of game ``b`` to ``out: float32[82, 100]`` (every plane).

    Args:
        meta_ply, meta_since: moves played and moves since the last attack (ints).
        deploying: true during the deployment phase (board holds the pieces placed so far).
        sub: 0 select step, 1 displace step; ``sel`` the selected absolute square (or -1).
        scale: ``float32[2]``: 1 / max game length, 1 / max moves without attack.
    """
    out[:, :] = 0.0
    moved_p = np.empty((2, 12), dtype=np.float32)
    unmoved_p = np.empty((2, 12), dtype=np.float32)
    if not deploying:
        public_probabilities(board, flags, b, moved_p, unmoved_p)
    for j in range(100):
        sq = j if p == 0 else 99 - j
        v = board[b, sq]
        if v == LAKE:
            out[P_LAKE, j] = 1.0
            continue
        if v <= 0:
            continue
        owner = owner_of(v)
        t = type_of(v)
        if owner == p:
            out[P_PRIVATE + t, j] = 1.0
        if deploying:
            continue
        base = P_PUB_OWN if owner == p else P_PUB_OPP
        f = flags[b, sq]
        if f & REVEALED:
            out[base + t, j] = 1.0
        elif f & MOVED:
            for k in range(12):
                out[base + k, j] = moved_p[owner, k]
        else:
            for k in range(12):
                out[base + k, j] = unmoved_p[owner, k]
    n = count[b]
    for k in range(min(n, NUM_MOVE_PLANES)):
        i = (n - 1 - k) % NUM_MOVE_PLANES
        f = moves[b, i, 0]
        t = moves[b, i, 1]
        a = moves[b, i, 2]
        if p == 1:
            f = 99 - f
            t = 99 - t
        out[P_MOVES + k, f] = -1.0 if a < 0 else -(2.0 + a / 12.0)
        out[P_MOVES + k, t] = 1.0
    length = np.float32(meta_ply * scale[0])
    since = np.float32(meta_since * scale[1])
    for j in range(100):
        out[P_LENGTH, j] = length
        out[P_NO_ATTACK, j] = since
        out[P_PHASE, j] = 1.0 if deploying else 0.0
    if sub == 1:
        for j in range(100):
            out[P_STEP, j] = 1.0
        out[P_SELECTED, sel if p == 0 else 99 - sel] = 1.0
