"""Numba rollouts on determinised states: short continuations, scored for one player.

A rollout copies a slot of a ``BatchState`` into a work slot and plays up to
``depth`` moves with the engine's kernels, either uniformly at random (the
CNN seed's Monte-Carlo baseline) or, with ``greedy=True``, taking a winning
attack whenever one exists (the thesis seed, 4.3.2: both sides are assumed
to see every piece and to take winnable battles).  ``score`` is the thesis'
state evaluation in [-1, 1]: +1/-1 for a win/loss, else 0.9 times the
difference of material (``beliefs.PIECE_VALUE``) over its sum.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..game import kernels as K
from ..game.codes import owner_of, type_of


@njit(cache=True)
def copy_slot(board, flags, meta, hist, zob, chase, src, dst):
    """Copy game ``src`` of a batch into slot ``dst`` of the same batch."""
    board[dst] = board[src]
    flags[dst] = flags[src]
    meta[dst] = meta[src]
    hist[dst] = hist[src]
    zob[dst] = zob[src]
    chase[dst] = chase[src]


@njit(cache=True)
def score(board, meta, b, player, value):
    """Value of game ``b`` for ``player``: +-1 when it is over with a winner, 0 for a draw, else material."""
    if meta[b, K.M_DONE] != 0:
        w = meta[b, K.M_WINNER]
        return 0.0 if w < 0 else (1.0 if w == player else -1.0)
    mine = 0.0
    theirs = 0.0
    for sq in range(100):
        v = board[b, sq]
        if v > 0:
            if owner_of(v) == player:
                mine += value[type_of(v)]
            else:
                theirs += value[type_of(v)]
    return 0.9 * (mine - theirs) / (mine + theirs)


@njit(cache=True)
def _wins(a, d):
    if d == 0:
        return True
    if d == 11:
        return a == 3
    if a == 1 and d == 10:
        return True
    return a > d


@njit(cache=True)
def play_out(board, flags, meta, hist, zob, chase, rules, b, depth, greedy, moves, pick):
    """Play up to ``depth`` moves in game ``b`` (uniform, or winning attacks first when ``greedy``)."""
    for _ in range(depth):
        if meta[b, K.M_DONE] != 0:
            return
        p = meta[b, K.M_TO_MOVE]
        n = K.legal_moves(board, meta, hist, zob, chase, rules, b, p, moves)
        k = np.random.randint(n)
        if greedy:
            good = 0
            for i in range(n):
                w = board[b, moves[i, 1]]
                if w > 0 and _wins(type_of(board[b, moves[i, 0]]), type_of(w)):
                    pick[good] = i
                    good += 1
            if good > 0:
                k = pick[np.random.randint(good)]
        K.apply_move(board, flags, meta, hist, zob, chase, rules, b, moves[k, 0], moves[k, 1])


@njit(cache=True)
def rollout_value(board, flags, meta, hist, zob, chase, rules, src, work, rollouts, depth, greedy, player, value):
    """Mean ``score`` for ``player`` of ``rollouts`` continuations of game ``src`` (played in slot ``work``)."""
    moves = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
    pick = np.empty(K.MAX_MOVES, dtype=np.int64)
    total = 0.0
    for _ in range(rollouts):
        copy_slot(board, flags, meta, hist, zob, chase, src, work)
        play_out(board, flags, meta, hist, zob, chase, rules, work, depth, greedy, moves, pick)
        total += score(board, meta, work, player, value)
    return total / rollouts


@njit(cache=True)
def evaluate_moves(board, flags, meta, hist, zob, chase, rules, samples, work, cand, rollouts, depth, greedy,
                   player, value, out):
    """For each candidate move ``cand[m] = (from, to)``, its mean value for ``player`` over the
    determinisations in slots ``0..samples-1``: play it, then ``rollouts`` continuations of ``depth`` moves.
    ``work`` and ``work+1`` are scratch slots; ``out: float64[M]`` receives the values."""
    for m in range(cand.shape[0]):
        total = 0.0
        for s in range(samples):
            copy_slot(board, flags, meta, hist, zob, chase, s, work)
            K.apply_move(board, flags, meta, hist, zob, chase, rules, work, cand[m, 0], cand[m, 1])
            total += rollout_value(board, flags, meta, hist, zob, chase, rules, work, work + 1, rollouts, depth,
                                   greedy, player, value)
        out[m] = total / samples
