"""A player's 82-plane observation (``docs/observation.md``), written by the environment's encoder kernel.

``observe`` encodes a game in play from one player's side,
``observe_reply`` a game one move further on (the look-ahead's inner loop,
compiled), and ``observe_deployment`` a deployment in progress.  No plane depends on the
opponent's hidden types, except through the battles played, so the network
agent (which holds only a ``PlayerView``) and the value-bounds look-ahead can
encode any game built by ``determinize.position``: the observation is the one
``VectorEnv`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from ..env.encode import encode
from ..env.planes import NUM_MOVE_PLANES, NUM_PLANES, counter_scale
from ..game import Game, Move, Variant
from ..game import kernels as K
from ..game.codes import type_of
from .determinize import position
from .view import MoveRecord, PlayerView


def move_rows(records: Sequence[MoveRecord]) -> np.ndarray:
    """``int16[n, 3]``: (from, to, attacker type or -1) of the last ``n <= 40`` records, oldest first."""
    last = list(records)[-NUM_MOVE_PLANES:]
    rows = np.empty((len(last), 3), dtype=np.int16)
    for k, r in enumerate(last):
        rows[k] = (r.move.from_sq, r.move.to_sq, r.attacker if r.defender >= 0 else -1)
    return rows


def move_ring(rows: np.ndarray) -> tuple[np.ndarray, int]:
    """``(int16[40, 3], n)``: the environment's move ring (``env.encode``) holding ``rows`` (``move_rows``):
    its last 40 in slots 0.., ``n`` of them."""
    rows = rows[-NUM_MOVE_PLANES:]
    ring = np.zeros((NUM_MOVE_PLANES, 3), dtype=np.int16)
    ring[:len(rows)] = rows
    return ring, len(rows)


def observe(game: Game, rows: np.ndarray, player: int, sub: int = 0, selected: int = -1) -> np.ndarray:
    """``float32[82, 10, 10]``: ``player``'s play-phase observation of ``game`` (``docs/observation.md``).

    Args:
        rows: the game's last moves as ``move_rows`` gives them (only the last 40 are used).
        sub: 0 select step, 1 displace step; ``selected`` is then the chosen piece's absolute square.
    """
    ring, count = move_ring(rows)
    out = np.zeros((NUM_PLANES, 10, 10), dtype=np.float32)
    s = game.state
    encode(s.board, s.flags, int(s.meta[0, K.M_PLY]), int(s.meta[0, K.M_SINCE_ATTACK]), ring[None],
           np.array([count], dtype=np.int64), False, sub, selected, counter_scale(game.variant), 0, player,
           out.reshape(NUM_PLANES, 100))
    return out


#: ``observe_reply``'s results: the observation is written; the move breaks a repetition rule
#: (nothing written, ``scratch`` undefined); the move ends the game (nothing written, ``scratch`` holds it).
OBSERVED, ILLEGAL, OVER = 0, 1, 2


def observe_reply(game: Game, scratch: Game, move: Move, ring: np.ndarray, count: int, player: int,
                  out: np.ndarray) -> int:
    """Play ``move`` on a copy of ``game`` and write ``player``'s observation of the result to ``out``.

    The same observation as ``observe(g, rows + [the move's record], player)`` where ``g`` is a copy
    of ``game`` with ``move`` pushed, in one compiled call (no ``Game``, record or array is built).

    Args:
        game: the position (not over); left unchanged.
        scratch: a game of the same variant whose state is overwritten with the result.
        move: a move of the player to move in ``game``, legal but for the repetition rules.
        ring: ``int16[40, 3]``, ``count``: ``game``'s moves so far as ``move_ring`` gives them.
        player: whose observation.
        out: ``float32[82, 10, 10]`` (C-contiguous), written when the result is ``OBSERVED``.

    Returns:
        ``OBSERVED``, ``ILLEGAL`` (a repetition rule forbids ``move``) or ``OVER``.

    Raises:
        ValueError: ``out`` is not a C-contiguous ``[82, 10, 10]`` array (a copy would take the writes).
    """
    if out.shape != (NUM_PLANES, 10, 10) or not out.flags.c_contiguous:
        raise ValueError(f"observe_reply: out must be a C-contiguous [82, 10, 10] array, got {out.shape}")
    a, s = game.state, scratch.state
    return int(_observe_reply(a.board, a.flags, a.meta, a.hist, a.zob, a.chase, s.board, s.flags, s.meta, s.hist,
                              s.zob, s.chase, s.rules, move.from_sq, move.to_sq, ring, count,
                              counter_scale(game.variant), player, out.reshape(NUM_PLANES, 100)))


@njit(cache=True)
def _observe_reply(board, flags, meta, hist, zob, chase, s_board, s_flags, s_meta, s_hist, s_zob, s_chase, rules,
                   f, t, ring, count, scale, player, out):
    s_board[0] = board[0]
    s_flags[0] = flags[0]
    s_meta[0] = meta[0]
    s_hist[0] = hist[0]
    s_zob[0] = zob[0]
    s_chase[0] = chase[0]
    if not K.is_legal(s_board, s_meta, s_hist, s_zob, s_chase, rules, 0, f, t):
        return ILLEGAL
    attacker = type_of(s_board[0, f]) if s_board[0, t] > 0 else -1
    K.apply_move(s_board, s_flags, s_meta, s_hist, s_zob, s_chase, rules, 0, f, t)
    if s_meta[0, K.M_DONE]:
        return OVER
    moves = np.empty((1, NUM_MOVE_PLANES, 3), dtype=np.int16)
    moves[0] = ring
    slot = count % NUM_MOVE_PLANES
    moves[0, slot, 0], moves[0, slot, 1], moves[0, slot, 2] = f, t, attacker
    total = np.empty(1, dtype=np.int64)
    total[0] = count + 1
    encode(s_board, s_flags, s_meta[0, K.M_PLY], s_meta[0, K.M_SINCE_ATTACK], moves, total, False, 0, -1, scale, 0,
           player, out)
    return OBSERVED


def observe_deployment(variant: Variant, player: int, board: np.ndarray) -> np.ndarray:
    """``float32[82, 10, 10]``: ``player``'s deployment-phase observation with its own pieces placed so far
    on ``board: int8[1, 100]`` (board codes; only the player's own pieces and the lakes are read)."""
    out = np.zeros((NUM_PLANES, 10, 10), dtype=np.float32)
    encode(board, np.zeros((1, 100), np.uint8), 0, 0, np.zeros((1, NUM_MOVE_PLANES, 3), np.int16),
           np.zeros(1, np.int64), True, 0, -1, counter_scale(variant), 0, player, out.reshape(NUM_PLANES, 100))
    return out


def observe_view(view: PlayerView, sub: int = 0, selected: int = -1) -> np.ndarray:
    """``float32[82, 10, 10]``: ``view.player``'s play-phase observation (``docs/observation.md``), built from the view alone.

    Args:
        view: the player's view of a game in the play phase.
        sub: 0 select step, 1 displace step; ``selected`` is then the chosen piece's absolute square.

    The opponent's hidden pieces get types from the public multiset of its
    unrevealed pieces (``determinize.position``), which no plane can tell apart.

    Raises:
        ValueError: the view is inconsistent (its hidden pieces do not match the army minus public losses).
    """
    game = position(view)
    if game is None:
        raise ValueError(f"player view at ply {view.ply}: the opponent's moved hidden pieces outnumber "
                         "its unrevealed movable pieces")
    return observe(game, move_rows(view.history), view.player, sub, selected)
