"""How often, and since when, each piece on the board has moved: public history the 82 planes keep only 40 moves of.

Every move is public, so both players can follow every piece from square to square.  A piece's moves
say much of what it is: a piece that has moved a hundred times is seldom a Marshal kept back, one that
first moved late in the game was held for a reason.  The observation's move planes (``docs/observation.md``,
planes 37-76) show only the last 40 moves; a ``PieceHistory`` array keeps, for the piece on each square:

- ``MOVES``: how many moves it has made (0: it has not moved);
- ``FIRST``: the ply of its first move (-1: it has not moved);
- ``LAST``: the ply of its last move (-1: it has not moved).

Arrays are ``int32[N, 3, 100]`` (``N`` games, then the three fields above, then absolute squares).
``advance`` moves the history with a batch of moves, as ``train.human.HumanDecisions`` replays records;
``history_of`` rebuilds it from a ``PlayerView``'s records; ``history_planes`` draws the opponent's pieces'
history as input planes of the belief network (``nn.belief``, ``BeliefConfig.history``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game import kernels as K
from .view import MoveRecord

#: Fields of a history array's second axis.
MOVES, FIRST, LAST = 0, 1, 2
#: Planes ``history_planes`` draws.
HISTORY_PLANES = 3
#: A piece's moves are drawn as ``log(1 + moves) / log(1 + MOVES_SCALE)``, at most 1.
MOVES_SCALE = 40
#: Plies since a piece's first and last move are drawn over these, at most 1.
SINCE_FIRST_SCALE, SINCE_LAST_SCALE = 400, 100

_UNMOVED = np.array([0, -1, -1], dtype=np.int32)


def empty_history(n: int) -> np.ndarray:
    """``int32[n, 3, 100]``: no piece has moved."""
    return np.tile(_UNMOVED[None, :, None], (n, 1, 100))


def advance(history: np.ndarray, frm: np.ndarray, to: np.ndarray, result: np.ndarray, ply: np.ndarray,
            games: np.ndarray | None = None) -> None:
    """Play one move in each of ``M`` games of ``history`` (``int32[N, 3, 100]``, changed in place).

    Args:
        frm, to: ``int[M]``, each move's absolute squares.
        result: ``int[M]``, its ``kernels.RESULT_*`` code: the mover then stands on ``to`` (a move, a battle it
            won, the Flag taken), the defender stays there, or both are gone.
        ply: ``int[M]``, the ply of the move (0 for the game's first).
        games: ``int[M]``, the games (rows of ``history``) that move, all ``N`` by default.
    """
    rows = np.arange(len(frm)) if games is None else np.asarray(games)
    mover = history[rows, :, frm]  # [N, 3]
    went = mover[:, MOVES] > 0
    moved = np.stack([mover[:, MOVES] + 1, np.where(went, mover[:, FIRST], ply), np.asarray(ply)], axis=1)
    result = np.asarray(result)
    arrived = (result == K.RESULT_MOVE) | (result == K.RESULT_ATTACKER_WON) | (result == K.RESULT_FLAG_CAPTURED)
    stays = history[rows, :, to]
    history[rows, :, to] = np.where(arrived[:, None], moved,
                                    np.where((result == K.RESULT_BOTH_REMOVED)[:, None], _UNMOVED[None], stays))
    history[rows, :, frm] = _UNMOVED[None]


def history_of(records: Sequence[MoveRecord], first_ply: int = 0) -> np.ndarray:
    """``int32[3, 100]``: the history after ``records``, the first of them played at ply ``first_ply``
    (pieces that moved before it count from there).  One move at a time in plain Python (a game's
    thousand records in about a millisecond, for a search that rebuilds it every move); ``advance``
    does the same for a batch of games."""
    at: dict[int, tuple[int, int, int]] = {}  # square -> (moves, first, last) of a piece that has moved
    for ply, r in enumerate(records, start=first_ply):
        frm, to = r.move.from_sq, r.move.to_sq
        count, first, _ = at.pop(frm, (0, ply, ply))
        if r.result in (K.RESULT_MOVE, K.RESULT_ATTACKER_WON, K.RESULT_FLAG_CAPTURED):
            at[to] = (count + 1, first, ply)
        elif r.result == K.RESULT_BOTH_REMOVED:
            at.pop(to, None)
    history = empty_history(1)[0]
    for sq, fields in at.items():
        history[:, sq] = fields
    return history


def history_planes(history: np.ndarray, ply: np.ndarray, pieces: np.ndarray, blue: np.ndarray) -> np.ndarray:
    """``float32[N, 3, 10, 10]``: the history (``int32[N, 3, 100]``) of the pieces on ``pieces`` (``bool[N, 100]``,
    absolute squares), at ply ``ply: int[N]``, in each player's frame (``blue: bool[N]``, Blue's turned round):
    moves made (``MOVES_SCALE``), plies since the first and since the last move (``SINCE_*_SCALE``); 0 on
    every other square and on pieces that have not moved."""
    ply = np.asarray(ply)[:, None]
    moved = pieces & (history[:, MOVES] > 0)
    out = np.stack([np.log1p(history[:, MOVES]) / np.log1p(MOVES_SCALE),
                    (ply - history[:, FIRST]) / SINCE_FIRST_SCALE,
                    (ply - history[:, LAST]) / SINCE_LAST_SCALE], axis=1)
    out = np.where(moved[:, None], np.clip(out, 0.0, 1.0), 0.0).astype(np.float32)
    out[np.asarray(blue, bool)] = out[np.asarray(blue, bool), :, ::-1]
    return out.reshape(len(out), HISTORY_PLANES, 10, 10)
