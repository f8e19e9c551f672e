"""The information state: what one player knows at one point of a game.

An agent never sees the opponent's hidden piece types: it acts on a
``PlayerView``, built from the game by ``PlayerView.of``, which carries only
the player's own pieces, the opponent's public information and the public
move history (``MoveRecord``s, as ``push_recorded`` makes them).  Everything
that reasons from a player's side (the bots, the test-time layer, the network
agent's observation) starts here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..game import Game, Move, Variant
from ..game import kernels as K
from ..game.codes import LAKE, owners, types
from ..game.pieces import NUM_TYPES

#: ``PlayerView.types`` value of an opponent piece whose type is not public.
UNKNOWN = 12


@dataclass(frozen=True)
class MoveRecord:
    """A played move and what it revealed (types are -1 when there was no battle)."""

    move: Move
    player: int
    attacker: int
    defender: int
    result: int  # a kernels.RESULT_* code


@dataclass(frozen=True)
class PlayerView:
    """What ``player`` knows at one point of a game.

    Attributes:
        player: 0 Red, 1 Blue.
        variant: the variant being played.
        owner: ``int8[100]``: -1 empty, 0 Red, 1 Blue, 2 lake.
        types: ``int8[100]``: piece type 0..11 of own pieces and revealed opponent
            pieces, ``UNKNOWN`` (12) for hidden opponent pieces, -1 elsewhere.
        revealed: ``bool[100]``: the piece's type is public.
        moved: ``bool[100]``: the piece has moved (public).
        legal_moves: the player's legal moves (empty when it is not to move).
        history: every move of the game so far, with battle results.
        ply: moves played so far; ``moves_since_attack`` likewise.
        taken_before: ``int64[2, 12]``: pieces of (Red, Blue) taken off the board before ``history``
            begins, by type: public, as every capture is a battle that reveals both pieces.  Zeros when
            ``history`` is the whole game, not for a game continued from a position string
            (``notation.position``) or set up from a diagram with pieces already gone.
    """

    player: int
    variant: Variant
    owner: np.ndarray
    types: np.ndarray
    revealed: np.ndarray
    moved: np.ndarray
    legal_moves: tuple[Move, ...]
    history: tuple[MoveRecord, ...]
    ply: int
    moves_since_attack: int
    taken_before: np.ndarray = field(default_factory=lambda: np.zeros((2, NUM_TYPES), dtype=np.int64))

    @classmethod
    def of(cls, game: Game, player: int, history: tuple[MoveRecord, ...] = ()) -> "PlayerView":
        """The view of ``player`` on ``game`` (``history`` as recorded by the match runner)."""
        board = game.state.board[0]
        flags = game.state.flags[0]
        piece = board > 0
        owner = owners(board)
        owner[board == LAKE] = 2
        kind = types(board)
        revealed = (flags & K.REVEALED).astype(bool) & piece
        hidden = (owner == 1 - player) & ~revealed
        kind[hidden] = UNKNOWN
        return cls(
            player=player,
            variant=game.variant,
            owner=owner,
            types=kind,
            revealed=revealed,
            moved=(flags & K.MOVED).astype(bool) & piece,
            legal_moves=tuple(game.legal_moves()) if game.turn == player else (),
            history=history,
            ply=game.ply,
            moves_since_attack=game.moves_since_attack,
            taken_before=_taken_before(game, history),
        )

    def taken(self) -> np.ndarray:
        """``int64[2, 12]``: pieces of (Red, Blue) taken off the board so far, by type (public)."""
        return self.taken_before + losses(self.history)

    def opponent_view(self) -> "PlayerView":
        """The opponent's view as far as this player can know it: the same board, flags and history, with
        ``player`` the opponent, this player's unrevealed pieces ``UNKNOWN`` and the opponent's own unrevealed
        pieces ``UNKNOWN`` too (the opponent knows them; we do not), and no legal moves.

        What the opponent can reason about *our* pieces from public information alone (``infostate.tracking``:
        ``possible_types``, ``flag_odds``) reads only what both views share, so it gives the same answer on this
        view as on the opponent's own (issue "Beat an opponent that reasons": what the opponent knows of us).
        """
        kind = self.types.copy()
        kind[(self.owner == self.player) & ~self.revealed] = UNKNOWN
        return PlayerView(player=1 - self.player, variant=self.variant, owner=self.owner, types=kind,
                          revealed=self.revealed, moved=self.moved, legal_moves=(), history=self.history,
                          ply=self.ply, moves_since_attack=self.moves_since_attack, taken_before=self.taken_before)


def _taken_before(game: Game, history: tuple[MoveRecord, ...]) -> np.ndarray:
    """``int64[2, 12]``: the pieces of each side missing from ``game``'s board that ``history`` does not
    account for: zeros when it covers the whole game."""
    board = game.state.board[0]
    kind, owner = types(board), owners(board)
    on_board = np.stack([np.bincount(kind[(owner == p) & (kind >= 0)], minlength=NUM_TYPES) for p in (0, 1)])
    return np.asarray(game.variant.piece_counts, dtype=np.int64)[None] - on_board - losses(history)


def losses(records: Sequence[MoveRecord]) -> np.ndarray:
    """``int64[2, 12]``: pieces of (Red, Blue) taken off the board by ``records``, by type.

    Read from the battles alone (public information): every removal is a battle.
    """
    dead = np.zeros((2, NUM_TYPES), dtype=np.int64)
    for r in records:
        if r.defender < 0:
            continue
        if r.result in (K.RESULT_DEFENDER_WON, K.RESULT_BOTH_REMOVED):
            dead[r.player, r.attacker] += 1
        if r.result in (K.RESULT_ATTACKER_WON, K.RESULT_BOTH_REMOVED, K.RESULT_FLAG_CAPTURED):
            dead[1 - r.player, r.defender] += 1
    return dead


def push_recorded(game: Game, move: Move) -> MoveRecord:
    """Push ``move`` on ``game`` and return its ``MoveRecord`` (types revealed by the battle, if any).

    Raises:
        IllegalMoveError, GameOverError: as ``Game.push`` (the game is unchanged).
    """
    p = game.turn
    attacker = game.piece_at(move.from_sq)
    defender = game.piece_at(move.to_sq)
    result = game.push(move)
    battle = defender is not None
    return MoveRecord(
        Move(int(move[0]), int(move[1])), p,
        attacker.type if (attacker and battle) else -1,
        defender.type if battle else -1,
        int(result),
    )
