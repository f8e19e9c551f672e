"""A player's 82-plane observation (``docs/observation.md``), written by the environment's encoder kernel.

``observe`` encodes a game in play from one player's side and
``observe_deployment`` a deployment in progress.  No plane depends on the
opponent's hidden types, except through the battles played, so the network
agent (which holds only a ``PlayerView``) and the value-bounds look-ahead can
encode any game built by ``determinize.position``: the observation is the one
``VectorEnv`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..env.encode import encode
from ..env.planes import NUM_MOVE_PLANES, NUM_PLANES, counter_scale
from ..game import Game, Variant
from ..game import kernels as K
from .determinize import position
from .view import MoveRecord, PlayerView


def move_rows(records: Sequence[MoveRecord]) -> np.ndarray:
    """``int16[n, 3]``: (from, to, attacker type or -1) of the last ``n <= 40`` records, oldest first."""
    last = list(records)[-NUM_MOVE_PLANES:]
    rows = np.empty((len(last), 3), dtype=np.int16)
    for k, r in enumerate(last):
        rows[k] = (r.move.from_sq, r.move.to_sq, r.attacker if r.defender >= 0 else -1)
    return rows


def observe(game: Game, rows: np.ndarray, player: int, sub: int = 0, selected: int = -1) -> np.ndarray:
    """``float32[82, 10, 10]``: ``player``'s play-phase observation of ``game`` (``docs/observation.md``).

    Args:
        rows: the game's last moves as ``move_rows`` gives them (only the last 40 are used).
        sub: 0 select step, 1 displace step; ``selected`` is then the chosen piece's absolute square.
    """
    rows = rows[-NUM_MOVE_PLANES:]
    moves = np.zeros((1, NUM_MOVE_PLANES, 3), dtype=np.int16)
    moves[0, :len(rows)] = rows
    out = np.zeros((NUM_PLANES, 10, 10), dtype=np.float32)
    s = game.state
    encode(s.board, s.flags, int(s.meta[0, K.M_PLY]), int(s.meta[0, K.M_SINCE_ATTACK]), moves,
           np.array([len(rows)], dtype=np.int64), False, sub, selected, counter_scale(game.variant), 0, player, out.reshape(NUM_PLANES, 100))
    return out


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
