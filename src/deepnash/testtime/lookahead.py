"""Hypothetical positions for look-ahead: a game consistent with what a player knows, and its observation.

The value-bounds layer scores positions two moves ahead with the value
network.  The observation of such a position never depends on the
opponent's hidden types (``spec/observation.md``), except through the battles
played on the way, so any assignment of the hidden pieces consistent with
public information will do, provided the one or two pieces that fight get
the type under study.  ``position`` builds that game over the rules kernels
(so moves are played by the one rules implementation), and ``observe``
writes its 82-plane observation with the environment's encoder kernel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..agents.base import MoveRecord, PlayerView
from ..agents.beliefs import IMMOVABLE, hidden_counts
from ..env.encode import encode
from ..env.planes import DEFAULT_MAX_MOVES, DEFAULT_MAX_NO_ATTACK, NUM_MOVE_PLANES, NUM_PLANES
from ..game import Game
from ..game import kernels as K
from ..game.pieces import NUM_TYPES


def position(view: PlayerView, fixed: Mapping[int, int] | None = None) -> Game | None:
    """A game matching ``view``'s public information, ``view.player`` to move.

    The player's own pieces and every revealed opponent piece have their
    types; each square in ``fixed`` (a hidden opponent piece) gets the given
    type; the other hidden opponent pieces share out the rest of the
    opponent's unrevealed pieces (movable types on the pieces that have moved).
    Revealed/moved flags, the move counters and each player's recent moves
    (for the two-squares rule) are copied; the more-squares chase state is not.

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
    types = np.where((view.owner == 0) | (view.owner == 1), view.types, -1).astype(np.int8)
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
    red = np.where(view.owner == 0, types, -1).astype(np.int8)
    blue = np.where(view.owner == 1, types, -1).astype(np.int8)
    game = Game(view.variant, red, blue)
    s = game.state
    on = types >= 0
    s.flags[0] = np.where(on & view.revealed, K.REVEALED, 0) | np.where(on & view.moved, K.MOVED, 0)
    meta = s.meta[0]
    meta[K.M_TO_MOVE] = view.player
    meta[K.M_PLY] = view.ply
    meta[K.M_SINCE_ATTACK] = view.moves_since_attack
    meta[K.M_DONE], meta[K.M_WINNER], meta[K.M_TERMINATION] = 0, -1, K.TERM_NONE
    for p in (0, 1):
        mine = [r.move for r in reversed(view.history) if r.player == p][: K.HISTORY]
        for k, m in enumerate(mine):
            s.hist[0, p, k] = (m.from_sq, m.to_sq)
    return game


def move_rows(records: Sequence[MoveRecord]) -> np.ndarray:
    """``int16[n, 3]``: (from, to, attacker type or -1) of the last ``n <= 40`` records, oldest first."""
    last = list(records)[-NUM_MOVE_PLANES:]
    rows = np.empty((len(last), 3), dtype=np.int16)
    for k, r in enumerate(last):
        rows[k] = (r.move.from_sq, r.move.to_sq, r.attacker if r.defender >= 0 else -1)
    return rows


def observe(game: Game, rows: np.ndarray, player: int, sub: int = 0, selected: int = -1) -> np.ndarray:
    """``float32[82, 10, 10]``: ``player``'s play-phase observation of ``game`` (``spec/observation.md``).

    Args:
        rows: the game's last moves as ``move_rows`` gives them (only the last 40 are used).
        sub: 0 select step, 1 displace step; ``selected`` is then the chosen piece's absolute square.
    """
    v = game.variant
    scale = np.array([1.0 / (v.max_moves or DEFAULT_MAX_MOVES),
                      1.0 / (v.max_moves_without_attack or DEFAULT_MAX_NO_ATTACK)], np.float32)
    rows = rows[-NUM_MOVE_PLANES:]
    moves = np.zeros((1, NUM_MOVE_PLANES, 3), dtype=np.int16)
    moves[0, :len(rows)] = rows
    out = np.zeros((NUM_PLANES, 10, 10), dtype=np.float32)
    s = game.state
    encode(s.board, s.flags, int(s.meta[0, K.M_PLY]), int(s.meta[0, K.M_SINCE_ATTACK]), moves,
           np.array([len(rows)], dtype=np.int64), False, sub, selected, scale, 0, player, out.reshape(NUM_PLANES, 100))
    return out
