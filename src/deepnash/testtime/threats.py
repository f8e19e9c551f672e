"""Avoid pointless threats: stop chasing the same piece round the same 2x2 square.

Source: the DeepNash paper (arXiv), supplementary "Avoid repetitive play",
item "Avoid pointless threats"; ``docs/test-time.md`` §3.  The agent may
threaten an opponent piece by moving back and forth three times (as the
two-squares rule allows); after that, for the same two pieces in the same
2x2 region, only a single threatening move is allowed: if the opponent piece
retreats as before, the agent may not immediately re-threaten it unless it
has no alternative move.  Applies to the agent only.

Our reading, in terms of piece identities (``PublicBoard.piece``):

* a *threat* by piece P on piece Q is a non-attacking move of P whose origin,
  destination and Q's square lie in one 2x2 block of the board;
* a *retreat* is Q's answer moving to an empty square of that block;
* once P has made more than ``free_threats`` threats on Q in that block (the
  three back-and-forth ones plus the single one more), a threat by P on Q in
  that block is banned right after Q retreated from P's previous threat.
"""

from __future__ import annotations

from ..game import Move
from ..infostate.view import PlayerView
from .public import EMPTY, PublicBoard

#: A chase: (threatening piece, threatened piece, square of the 2x2 block's lower-left corner).
Chase = tuple[int, int, int]


def block_of(*squares: int) -> int | None:
    """The lower-left square of the 2x2 block holding all ``squares``, or ``None`` if there is none."""
    rows = [s // 10 for s in squares]
    cols = [s % 10 for s in squares]
    if max(rows) - min(rows) > 1 or max(cols) - min(cols) > 1:
        return None
    return min(min(rows), 8) * 10 + min(min(cols), 8)


def threat_of(board: PublicBoard, move: Move, player: int) -> Chase | None:
    """The chase ``move`` by ``player`` would continue (a threat in the sense above), or ``None``."""
    f, t = move.from_sq, move.to_sq
    if board.owner[t] != EMPTY or abs(t - f) not in (1, 10):
        return None
    for q in (t - 10, t + 10, t - 1, t + 1):
        if not 0 <= q < 100 or (abs(q - t) == 1 and q // 10 != t // 10):
            continue
        if board.owner[q] == 1 - player:
            block = block_of(f, t, q)
            if block is not None:
                return int(board.piece[f]), int(board.piece[q]), block
    return None


class PointlessThreats:
    """Follows one agent's chases through a game and says which of its moves are pointless threats.

    Call ``update(view)`` with each of the agent's views, then ``banned(view)``.
    """

    def __init__(self, player: int, free_threats: int = 3) -> None:
        self.player = player
        self.free_threats = free_threats
        self.board: PublicBoard | None = None
        #: Threats made so far per chase.
        self.count: dict[Chase, int] = {}
        self.last: Chase | None = None  # the chase the agent's latest move continued
        self.retreated = False  # the threatened piece then retreated within the block

    def update(self, view: PlayerView) -> None:
        """Replay the moves since the last call.

        Raises:
            ValueError: ``view`` is not the agent's, or does not continue the game seen so far.
        """
        if view.player != self.player:
            raise ValueError(f"view of player {view.player} given to the threat tracker of player {self.player}")
        if self.board is None:
            self.board = PublicBoard.from_view(view)
        for before, rec in self.board.sync(view):
            if rec.player == self.player:
                self.last = threat_of(before, rec.move, self.player) if rec.defender < 0 else None
                if self.last is not None:
                    self.count[self.last] = self.count.get(self.last, 0) + 1
                self.retreated = False
            elif self.last is not None:
                _, q, block = self.last
                f, t = rec.move.from_sq, rec.move.to_sq
                self.retreated = (rec.defender < 0 and int(before.piece[f]) == q
                                  and t in (block, block + 1, block + 10, block + 11))

    def banned(self, view: PlayerView) -> frozenset[Move]:
        """The agent's legal moves that would be a pointless threat now (may be all of them:
        the caller keeps them when there is no alternative)."""
        self.update(view)
        if self.last is None or not self.retreated or self.count.get(self.last, 0) <= self.free_threats:
            return frozenset()
        return frozenset(m for m in view.legal_moves if threat_of(self.board, m, self.player) == self.last)
