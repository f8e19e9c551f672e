"""The public position: where every piece is, what both players know of it, replayed move by move.

The pointless-threat and memory layers reason about *pieces* (which piece
threatened which, which piece passed up an attack), so this board gives
every piece an identity that follows it as it moves, and it knows only what
both players know: owners, revealed types (from battles and Scout runs),
which pieces have moved, and the pieces lost so far.  It never reads a
hidden type: its input is a ``PlayerView`` and the public ``MoveRecord``s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..game import kernels as K
from ..game.pieces import BOMB, FLAG, NUM_TYPES, SCOUT
from ..infostate.view import MoveRecord, PlayerView

EMPTY, LAKE = -1, 2


@dataclass
class PublicBoard:
    """Public knowledge of one game.

    Attributes:
        variant_counts: ``int64[12]`` pieces of each type per army.
        owner: ``int8[100]``: -1 empty, 0 Red, 1 Blue, 2 lake.
        piece: ``int32[100]``: identity of the piece on each square (-1 none); stable as it moves.
        known: ``int8[100]``: the public type of the piece (-1 while unknown).
        moved: ``bool[100]``: the piece has moved (so it is neither Bomb nor Flag).
        dead: ``int64[2, 12]``: pieces of each player removed so far, by type.
        applied: number of ``MoveRecord``s of the game already replayed.
    """

    variant_counts: np.ndarray
    owner: np.ndarray
    piece: np.ndarray
    known: np.ndarray
    moved: np.ndarray
    dead: np.ndarray
    applied: int

    @classmethod
    def from_view(cls, view: PlayerView) -> "PublicBoard":
        """The public part of ``view`` (its history counts as already replayed)."""
        owner = view.owner.astype(np.int8).copy()
        on = (owner == 0) | (owner == 1)
        piece = np.where(on, np.arange(100), -1).astype(np.int32)
        known = np.where(on & view.revealed, view.types, -1).astype(np.int8)
        dead = view.taken()
        return cls(np.asarray(view.variant.piece_counts, dtype=np.int64), owner, piece, known,
                   view.moved.astype(bool) & on, dead, len(view.history))

    def copy(self) -> "PublicBoard":
        return PublicBoard(self.variant_counts, self.owner.copy(), self.piece.copy(), self.known.copy(),
                           self.moved.copy(), self.dead.copy(), self.applied)

    def apply(self, rec: MoveRecord) -> None:
        """Replay one recorded move (battle outcome as recorded; no rules are re-run).

        Raises:
            ValueError: the record does not fit the board (no piece of the mover on the origin square).
        """
        f, t = rec.move.from_sq, rec.move.to_sq
        if self.owner[f] != rec.player:
            raise ValueError(
                f"move {self.applied + 1} ({rec.move}): no piece of player {rec.player} on its origin square"
            )
        mover = (int(self.piece[f]), int(self.known[f]))
        self.owner[f], self.piece[f], self.known[f], self.moved[f] = EMPTY, -1, -1, False
        kind = SCOUT if abs(t - f) not in (1, 10) else mover[1]
        attacker_lives = True
        if rec.defender >= 0:
            kind = rec.attacker
            lost_attacker = rec.result in (K.RESULT_DEFENDER_WON, K.RESULT_BOTH_REMOVED)
            lost_defender = rec.result != K.RESULT_DEFENDER_WON
            attacker_lives = not lost_attacker
            if lost_attacker:
                self.dead[rec.player, rec.attacker] += 1
            if lost_defender:
                self.dead[1 - rec.player, rec.defender] += 1
                self.owner[t], self.piece[t], self.known[t], self.moved[t] = EMPTY, -1, -1, False
            else:
                self.known[t] = rec.defender
        if attacker_lives:
            self.owner[t], self.piece[t], self.known[t], self.moved[t] = rec.player, mover[0], kind, True
        self.applied += 1

    def sync(self, view: PlayerView) -> list[tuple["PublicBoard", MoveRecord]]:
        """Replay the records of ``view.history`` not yet applied.

        Returns ``(board before the move, record)`` for each replayed move, so
        a caller can look at the position each move was played from.

        Raises:
            ValueError: the view's history is shorter than what was replayed, or
                the replayed owners differ from the view's (the board is out of step).
        """
        if len(view.history) < self.applied:
            raise ValueError(f"ply {view.ply}: history has {len(view.history)} moves, {self.applied} already replayed")
        steps = []
        for rec in view.history[self.applied:]:
            steps.append((self.copy(), rec))
            self.apply(rec)
        if not np.array_equal(self.owner, view.owner):
            diff = np.flatnonzero(self.owner != view.owner)[:5].tolist()
            raise ValueError(f"ply {view.ply}: replayed board differs from the view on squares {diff}")
        return steps

    def possible(self) -> np.ndarray:
        """``bool[100, 12]``: the types each piece may have given public information (all False off pieces).

        A known piece has its type; an unknown piece any type its owner still
        has unrevealed, less Bomb and Flag once it has moved.
        """
        return _possible(self.owner, self.known, self.moved, self.variant_counts, self.dead)

    def attackers(self, sq: int, player: int, possible: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """``player``'s pieces that could move onto ``sq`` with their next move.

        Args:
            possible: ``bool[100, 12]`` from ``possible()`` (of this board or a refined one).

        Returns:
            ``(square, bool[12])`` pairs: the piece's square and the types under
            which it could get there (any movable type from a neighbouring
            square, only a Scout from further along a clear line).
        """
        out = []
        for d in range(4):
            s, dist = int(K.NEIGHBOUR[sq, d]), 1
            while s >= 0 and self.owner[s] == EMPTY:
                s, dist = int(K.NEIGHBOUR[s, d]), dist + 1
            if s < 0 or self.owner[s] != player:
                continue
            types = possible[s].copy()
            types[FLAG] = types[BOMB] = False
            if dist > 1:
                types &= np.arange(NUM_TYPES) == SCOUT
            if types.any():
                out.append((s, types))
        return out


@njit(cache=True)
def _possible(owner, known, moved, counts, dead):
    """``PublicBoard.possible`` on the board's arrays (the look-ahead asks it once per branch)."""
    out = np.zeros((100, NUM_TYPES), dtype=np.bool_)
    for p in range(2):
        left = counts - dead[p]
        for sq in range(100):
            if owner[sq] == p and known[sq] >= 0:
                left[known[sq]] -= 1
        for sq in range(100):
            if owner[sq] != p:
                continue
            if known[sq] >= 0:
                out[sq, known[sq]] = True
                continue
            for t in range(NUM_TYPES):
                out[sq, t] = left[t] > 0 and not (moved[sq] and (t == FLAG or t == BOMB))
    return out
