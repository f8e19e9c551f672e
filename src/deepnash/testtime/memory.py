"""The memory heuristic: types a piece cannot have because it passed up an obvious attack.

Source: the DeepNash paper (arXiv), supplementary "Memory heuristic";
``docs/test-time.md`` §2.  The heuristic assumes that

* a Spy would attack a known Marshal;
* a Marshal would attack a known General or Colonel if no recapture is possible;
* a General would attack a known Colonel if no recapture is possible;

so when a player makes a non-attacking move, each of its hidden pieces that
had such a chance is taken not to be of that type.  Eliminations follow the
piece for the whole game and zero the matching entries of both public
information tensors (Pub_i and Pub_-i) of the observation, which are then
renormalised per square.  Both players' pieces are tracked.

"Recapture possible" (our reading, from public information only): some
piece of the target's owner could move onto the target's square next move
and, for at least one of its possible types, win or tie against the attacker.
"""

from __future__ import annotations

import numpy as np

from ..env.planes import NUM_PLANES, P_PUB_OPP, P_PUB_OWN
from ..game import Move
from ..game import kernels as K
from ..game.pieces import COLONEL, GENERAL, MARSHAL, NUM_TYPES, PIECE_NAMES, SPY
from ..infostate.beliefs import FIGHT
from ..infostate.view import MoveRecord, PlayerView
from .public import PublicBoard

#: (attacker type, targets it would attack, only when no recapture is possible).
RULES = (
    (SPY, (MARSHAL,), False),
    (MARSHAL, (GENERAL, COLONEL), True),
    (GENERAL, (COLONEL,), True),
)


def recapture_possible(board: PublicBoard, attacker_sq: int, target_sq: int, attacker_type: int) -> bool:
    """Could the target's owner take back a piece of ``attacker_type`` that captured on ``target_sq``?"""
    player = int(board.owner[attacker_sq])
    after = board.copy()
    after.apply(MoveRecord(Move(attacker_sq, target_sq), player, attacker_type,
                           int(board.known[target_sq]), K.RESULT_ATTACKER_WON))
    possible = after.possible()
    for _, types in after.attackers(target_sq, 1 - player, possible):
        if np.any(FIGHT[types, attacker_type] >= 0):
            return True
    return False


def missed_attacks(board: PublicBoard, player: int) -> list[tuple[int, int]]:
    """``(square, type)`` for every hidden piece of ``player`` that, by the heuristic's rules,
    would have attacked a known adjacent opponent piece if it were of ``type``."""
    out = []
    possible = board.possible()
    for sq in np.flatnonzero((board.owner == player) & (board.known < 0)):
        for d in range(4):
            target = int(K.NEIGHBOUR[sq, d])
            if target < 0 or board.owner[target] != 1 - player:
                continue
            for kind, victims, needs_no_recapture in RULES:
                if board.known[target] not in victims or not possible[sq, kind] or (int(sq), kind) in out:
                    continue
                if needs_no_recapture and recapture_possible(board, int(sq), target, kind):
                    continue
                out.append((int(sq), kind))
    return out


class MemoryHeuristic:
    """Tracks the eliminations of one game and applies them to observations.

    Call ``update(view)`` with each new view (any player's view of the same
    game: only public information is read), then ``apply(obs, player)``.
    """

    def __init__(self) -> None:
        self.board: PublicBoard | None = None
        #: ``bool[100, 12]`` by piece identity (``PublicBoard.piece``): types ruled out.
        self.ruled_out = np.zeros((100, NUM_TYPES), dtype=bool)
        #: Human-readable record of each elimination: (ply, square name, type name).
        self.events: list[tuple[int, int, str]] = []

    def update(self, view: PlayerView) -> list[tuple[int, int, str]]:
        """Replay the new moves of ``view.history`` and return the eliminations they caused.

        Raises:
            ValueError: the view does not continue the game seen so far.
        """
        if self.board is None:
            self.board = PublicBoard.from_view(view)
        new = []
        for before, rec in self.board.sync(view):
            if rec.defender >= 0:
                continue
            for sq, kind in missed_attacks(before, rec.player):
                pid = int(before.piece[sq])
                if not self.ruled_out[pid, kind]:
                    self.ruled_out[pid, kind] = True
                    new.append((before.applied + 1, sq if sq != rec.move.from_sq else rec.move.to_sq,
                                PIECE_NAMES[kind]))
        self.events.extend(new)
        return new

    def apply(self, obs: np.ndarray, player: int) -> np.ndarray:
        """Zero eliminated types in both Pub tensors of ``obs: float32[82, 10, 10]`` (``player``'s frame).

        Each touched square is renormalised to sum 1; a square whose every
        type would be eliminated keeps its original entries (the heuristic's
        assumptions were wrong for that piece).  Returns a new array.

        Raises:
            ValueError: ``obs`` is not ``(82, 10, 10)``.
        """
        obs = np.asarray(obs, dtype=np.float32)
        if obs.shape != (NUM_PLANES, 10, 10):
            raise ValueError(f"observation must be ({NUM_PLANES}, 10, 10), got {obs.shape}")
        out = obs.copy()
        if self.board is None:
            return out
        flat = out.reshape(NUM_PLANES, 100)
        for sq in np.flatnonzero(self.board.piece >= 0):
            gone = self.ruled_out[self.board.piece[sq]]
            if not gone.any():
                continue
            j = sq if player == 0 else 99 - sq
            base = P_PUB_OWN if self.board.owner[sq] == player else P_PUB_OPP
            row = flat[base:base + NUM_TYPES, j]
            kept = np.where(gone, 0.0, row)
            if kept.sum() > 0:
                flat[base:base + NUM_TYPES, j] = kept / kept.sum()
        return out
