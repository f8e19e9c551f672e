"""Numba kernels of the batched environment: slot reset, setups, legal-action masks, the step.

They work on the engine's arrays (``game.state.BatchState``) plus the
environment's own, passed as four named tuples so every kernel has one
signature: ``st`` (``EngineState``), ``es`` (``EnvState``), ``cfg``
(``EnvConfig``) and ``outs`` (``Outputs``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..game import kernels as K
from ..game.codes import code_of, type_of
from .encode import encode
from .planes import NUM_MOVE_PLANES, P_SELECTED, P_STEP

SRC_LEARNED = 0  # the player deploys with its own actions
SRC_RANDOM = 1  # a uniformly random legal setup
SRC_POOL = 2  # a setup drawn uniformly from a pool

class EngineState(NamedTuple):
    """The engine's arrays of ``BatchState`` (see there)."""

    board: np.ndarray
    flags: np.ndarray
    meta: np.ndarray
    hist: np.ndarray
    zob: np.ndarray
    chase: np.ndarray
    rules: np.ndarray
    lakes: np.ndarray


class EnvState(NamedTuple):
    """The environment's per-game arrays."""

    setup: np.ndarray  #: ``int8[B, 2, 100]`` the two deployments (type per absolute square, -1 empty)
    moves: np.ndarray  #: ``int16[B, 40, 3]`` the move ring ``encode`` reads
    count: np.ndarray  #: ``int64[B]`` moves written to the ring
    phase: np.ndarray  #: ``int8[B]`` 1 while deploying
    dstep: np.ndarray  #: ``int32[B]`` deployment actions taken
    sub: np.ndarray  #: ``int8[B]`` 0 select step, 1 displace step
    sel: np.ndarray  #: ``int16[B]`` the selected absolute square
    rng: np.ndarray  #: ``uint64[B]`` a SplitMix64 generator state per game
    legal: np.ndarray  #: ``int16[B, MAX_MOVES, 2]`` the legal moves found at the select step
    nlegal: np.ndarray  #: ``int32[B]`` how many


class EnvConfig(NamedTuple):
    """What stays fixed for a ``VectorEnv``."""

    order: np.ndarray  #: ``int8[N]`` the deployment order (piece types)
    zone: np.ndarray  #: ``int64[Z]`` Red's deployment squares
    modes: np.ndarray  #: ``int64[2]`` each player's setup source (``SRC_*``)
    pool: np.ndarray  #: ``int8[P, 100]`` the setup pool (Red's frame)
    pool_lo: np.ndarray  #: ``int64[2]`` each player's slice of the pool
    pool_hi: np.ndarray
    scale: np.ndarray  #: ``float32[2]`` the scalar planes' factors (``planes.counter_scale``)


class Outputs(NamedTuple):
    """The arrays ``VectorEnv`` exposes, written by the kernels."""

    obs: np.ndarray  #: ``float32[B, 82, 100]``
    mask: np.ndarray  #: ``bool[B, 100]``
    player: np.ndarray  #: ``int8[B]``
    rewards: np.ndarray  #: ``float32[B, 2]``
    done: np.ndarray  #: ``bool[B]``
    winner: np.ndarray  #: ``int8[B]``
    termination: np.ndarray  #: ``int8[B]``
    length: np.ndarray  #: ``int32[B]``


#: Fresh setup draws tried before a slot whose every game ends before the first move gives up.
MAX_REDRAWS = 1000


@njit(cache=True, inline="always")
def next_u64(rng, b):
    """SplitMix64: advance game ``b``'s generator and return 64 random bits."""
    x = rng[b] + np.uint64(0x9E3779B97F4A7C15)
    rng[b] = x
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def randint(rng, b, n):
    """A random int in ``0..n-1`` from game ``b``'s generator."""
    return np.int64(next_u64(rng, b) % np.uint64(n))


@njit(cache=True)
def seed_rng(rng, seed):
    """Give each game its own stream: ``rng[b]`` from SplitMix64 of ``seed`` and ``b``."""
    for b in range(rng.shape[0]):
        rng[b] = np.uint64(seed) * np.uint64(0x100000001B3) + np.uint64(b) * np.uint64(0x9E3779B97F4A7C15)
        next_u64(rng, b)


@njit(cache=True)
def draw_setup(cfg, rng, b, q, out):
    """Fill ``out: int8[100]`` with player ``q``'s setup from its source (-1 on empty squares)."""
    order, zone, modes, pool, pool_lo, pool_hi, scale = cfg
    out[:] = -1
    mode = modes[q]
    if mode == SRC_RANDOM:
        sq = zone.copy()
        for i in range(order.shape[0]):
            k = i + randint(rng, b, sq.shape[0] - i)
            s = sq[k]
            sq[k] = sq[i]
            sq[i] = s
            out[s if q == 0 else 99 - s] = order[i]
    elif mode == SRC_POOL:
        k = pool_lo[q] + randint(rng, b, pool_hi[q] - pool_lo[q])
        for s in range(100):
            if pool[k, s] >= 0:
                out[s if q == 0 else 99 - s] = pool[k, s]


@njit(cache=True)
def begin(st, es, cfg, b):
    """Start a new game in slot ``b``: draw the source setups, then either open the deployment phase
    or (nobody deploys) start play.  Returns False when ``MAX_REDRAWS`` draws all gave games that
    are over before the first move."""
    board, flags, meta, hist, zob, chase, rules, lakes = st
    setup, moves, count, phase, dstep, sub, sel, rng, legal, nlegal = es
    modes = cfg.modes
    learners = (modes[0] == SRC_LEARNED) + (modes[1] == SRC_LEARNED)
    count[b] = 0
    sub[b] = 0
    sel[b] = -1
    dstep[b] = 0
    for _ in range(MAX_REDRAWS):
        draw_setup(cfg, rng, b, 0, setup[b, 0])
        draw_setup(cfg, rng, b, 1, setup[b, 1])
        if learners > 0:
            meta[b, :] = 0
            meta[b, K.M_WINNER] = -1
            flags[b, :] = 0
            for s in range(100):
                board[b, s] = K.EMPTY
                for q in range(2):
                    if setup[b, q, s] >= 0:
                        board[b, s] = code_of(q, setup[b, q, s])
            for i in range(lakes.shape[0]):
                board[b, lakes[i]] = K.LAKE
            phase[b] = 1
            return True
        K.reset_game(board, flags, meta, hist, zob, chase, rules, lakes, b, setup[b, 0], setup[b, 1])
        phase[b] = 0
        if meta[b, K.M_DONE] == 0:
            return True
    return False


@njit(cache=True, inline="always")
def deploy_player(modes, dstep):
    """The player whose deployment action comes next, and the index of the piece it places."""
    if modes[0] == SRC_LEARNED and modes[1] == SRC_LEARNED:
        return dstep & 1, dstep >> 1
    return (0 if modes[0] == SRC_LEARNED else 1), dstep


@njit(cache=True, inline="always")
def fill_mask(st, es, cfg, mask, b, p):
    """Write player ``p``'s legal-action mask of game ``b`` (its frame) to ``mask[b]``."""
    board, flags, meta, hist, zob, chase, rules, lakes = st
    setup, moves, count, phase, dstep, sub, sel, rng, legal, nlegal = es
    zone = cfg.zone
    mask[b, :] = False
    if phase[b] != 0:
        for i in range(zone.shape[0]):
            s = zone[i] if p == 0 else 99 - zone[i]
            if board[b, s] == K.EMPTY:
                mask[b, zone[i]] = True
        return
    if sub[b] == 0:
        nlegal[b] = K.legal_moves(board, meta, hist, zob, chase, rules, b, p, legal[b])
    pick = sel[b]
    for i in range(nlegal[b]):
        if sub[b] == 0:
            s = legal[b, i, 0]
        elif legal[b, i, 0] == pick:
            s = legal[b, i, 1]
        else:
            continue
        mask[b, s if p == 0 else 99 - s] = True


@njit(cache=True, inline="always")
def refresh(st, es, cfg, outs, b, observe):
    """Recompute who acts in game ``b``, its mask and (if ``observe``) its full observation."""
    board, flags, meta, hist, zob, chase, rules, lakes = st
    setup, moves, count, phase, dstep, sub, sel, rng, legal, nlegal = es
    obs, mask, player = outs.obs, outs.mask, outs.player
    if phase[b] != 0:
        p, _ = deploy_player(cfg.modes, dstep[b])
    else:
        p = meta[b, K.M_TO_MOVE]
    player[b] = p
    if phase[b] == 0 and meta[b, K.M_DONE] != 0:
        mask[b, :] = False  # a finished game kept by auto_reset=False
    else:
        fill_mask(st, es, cfg, mask, b, p)
    if observe:
        encode(board, flags, meta[b, K.M_PLY], meta[b, K.M_SINCE_ATTACK], moves, count, phase[b] != 0,
               sub[b], sel[b], cfg.scale, b, p, obs[b])


@njit(cache=True)
def reset_all(st, es, cfg, outs, observe):
    """Begin a new game in every slot and refresh the outputs; returns -1, or the first slot that
    could not start (see ``begin``)."""
    outs.rewards[:, :] = 0.0
    outs.done[:] = False
    for b in range(st.board.shape[0]):
        if not begin(st, es, cfg, b):
            return b
        refresh(st, es, cfg, outs, b, observe)
    return -1


@njit(cache=True)
def reset_one(st, es, cfg, outs, b, observe):
    """Begin a new game in slot ``b`` only and refresh its outputs; returns False as ``begin`` does."""
    outs.rewards[b, :] = 0.0
    outs.done[b] = False
    if not begin(st, es, cfg, b):
        return False
    refresh(st, es, cfg, outs, b, observe)
    return True


@njit(cache=True)
def resume_one(st, es, cfg, outs, b, observe):
    """Continue in slot ``b`` the play-phase game its state arrays now hold (written by the caller),
    at a select step, and refresh its outputs."""
    outs.rewards[b, :] = 0.0
    outs.done[b] = False
    es.phase[b] = 0
    es.sub[b] = 0  # select step
    es.sel[b] = -1
    refresh(st, es, cfg, outs, b, observe)


@njit(cache=True)
def _finish(st, es, cfg, outs, b, auto_reset):
    meta = st.meta
    rewards, done, winner, termination, length = outs.rewards, outs.done, outs.winner, outs.termination, outs.length
    w = meta[b, K.M_WINNER]
    if w >= 0:
        rewards[b, w] = 1.0
        rewards[b, 1 - w] = -1.0
    done[b] = True
    winner[b] = w
    termination[b] = meta[b, K.M_TERMINATION]
    length[b] = meta[b, K.M_PLY]
    return begin(st, es, cfg, b) if auto_reset else True


@njit(cache=True)
def step(st, es, cfg, outs, actions, observe, auto_reset):
    """Apply ``actions: int64[B]`` (one per game, the acting player's frame) and refresh the outputs.

    Checks every action against the mask first and changes nothing if one is
    illegal.  A game that ended is restarted at once (``auto_reset``) or kept
    as it ended, its actions ignored.  Returns -1 on success, ``b`` when game
    ``b``'s action is illegal, or ``-2 - b`` when slot ``b`` could not start a
    new game (see ``begin``).
    """
    board, flags, meta, hist, zob, chase, rules, lakes = st
    setup, moves, count, phase, dstep, sub, sel, rng, legal, nlegal = es
    order, modes = cfg.order, cfg.modes
    obs, mask, player, rewards, done = outs.obs, outs.mask, outs.player, outs.rewards, outs.done
    nb = board.shape[0]
    for b in range(nb):
        a = actions[b]
        over = phase[b] == 0 and meta[b, K.M_DONE] != 0
        if not over and (a < 0 or a >= 100 or not mask[b, a]):
            return b
    rewards[:, :] = 0.0
    done[:] = False
    for b in range(nb):
        if phase[b] == 0 and meta[b, K.M_DONE] != 0:
            continue
        p = player[b]
        s = actions[b] if p == 0 else 99 - actions[b]
        if phase[b] != 0:
            _, i = deploy_player(modes, dstep[b])
            setup[b, p, s] = order[i]
            board[b, s] = code_of(p, order[i])
            dstep[b] += 1
            learners = (modes[0] == SRC_LEARNED) + (modes[1] == SRC_LEARNED)
            if dstep[b] == learners * order.shape[0]:
                K.reset_game(board, flags, meta, hist, zob, chase, rules, lakes, b, setup[b, 0], setup[b, 1])
                phase[b] = 0
                if meta[b, K.M_DONE] != 0 and not _finish(st, es, cfg, outs, b, auto_reset):
                    return -2 - b
        elif sub[b] == 0:
            sub[b] = 1
            sel[b] = s
            fill_mask(st, es, cfg, mask, b, p)
            if observe:
                obs[b, P_STEP, :] = 1.0
                obs[b, P_SELECTED, :] = 0.0
                obs[b, P_SELECTED, actions[b]] = 1.0
            continue
        else:
            f = sel[b]
            i = count[b] % NUM_MOVE_PLANES
            moves[b, i, 0] = f
            moves[b, i, 1] = s
            moves[b, i, 2] = type_of(board[b, f]) if board[b, s] > 0 else -1
            count[b] += 1
            K.apply_move(board, flags, meta, hist, zob, chase, rules, b, f, s)
            sub[b] = 0
            sel[b] = -1
            if meta[b, K.M_DONE] != 0 and not _finish(st, es, cfg, outs, b, auto_reset):
                return -2 - b
        refresh(st, es, cfg, outs, b, observe)
    return -1


@njit(cache=True)
def random_actions(mask, rng, out):
    """Write a uniformly random legal action of each game to ``out: int64[B]`` (``rng: uint64[B]``)."""
    for b in range(mask.shape[0]):
        n = 0
        for a in range(100):
            if mask[b, a]:
                n += 1
        if n == 0:
            out[b] = -1
            continue
        k = randint(rng, b, n)
        for a in range(100):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


@njit(cache=True)
def random_move_actions(es, mask, player, rng, out):
    """Write to ``out: int64[B]`` the actions of the uniformly random bot: each legal *move* equally likely.

    At the select step the piece is drawn with probability proportional to its number
    of legal moves (a uniform pick from the legal-move list); every other step is
    ``random_actions``: the displace step's mask holds exactly the selected piece's
    destinations, so the move made is uniform over the legal moves.  In deployment the
    square is uniform; -1 for a game without a legal action.
    ``rng: uint64[B]`` is the per-game generator (the env's action generator).
    """
    phase, sub, legal, nlegal = es.phase, es.sub, es.legal, es.nlegal
    for b in range(mask.shape[0]):
        if phase[b] == 0 and sub[b] == 0 and mask[b].any():
            s = legal[b, randint(rng, b, nlegal[b]), 0]
            out[b] = s if player[b] == 0 else 99 - s
        else:
            random_actions(mask[b:b + 1], rng[b:b + 1], out[b:b + 1])
