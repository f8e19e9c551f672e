"""One game of Stratego, in the spirit of python-chess's ``Board``, over the batch kernels."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from . import kernels as K
from .codes import owner_of, placements, type_of
from .errors import GameOverError, IllegalMoveError
from .pieces import PIECE_NAMES, PLAYER_NAMES
from .squares import parse_square, square_name
from .state import BatchState, deployment, random_deployment
from .variant import Variant, get_variant


class Termination(IntEnum):
    """How a game ended (the kernels' ``TERM_*`` codes)."""

    FLAG_CAPTURED = K.TERM_FLAG_CAPTURED
    NO_MOVES = K.TERM_NO_MOVES
    BOTH_STUCK = K.TERM_BOTH_STUCK
    MOVE_LIMIT = K.TERM_MOVE_LIMIT
    NO_ATTACK_LIMIT = K.TERM_NO_ATTACK_LIMIT
    RESIGNATION = K.TERM_RESIGNATION


class BattleResult(IntEnum):
    """What a move did (the kernels' ``RESULT_*`` codes)."""

    MOVE = K.RESULT_MOVE
    ATTACKER_WON = K.RESULT_ATTACKER_WON
    DEFENDER_WON = K.RESULT_DEFENDER_WON
    BOTH_REMOVED = K.RESULT_BOTH_REMOVED
    FLAG_CAPTURED = K.RESULT_FLAG_CAPTURED


@dataclass(frozen=True)
class Outcome:
    """A finished game: how it ended and who won (``None`` for a draw)."""

    termination: Termination
    winner: int | None

    def result(self) -> str:
        """``"1-0"`` (Red won), ``"0-1"`` (Blue won) or ``"1/2-1/2"``."""
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]

    def returns(self) -> tuple[float, float]:
        """Returns ``(Red, Blue)``: +1 to the winner, -1 to the loser, 0 for a draw."""
        if self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)


class Move(NamedTuple):
    """A move from one square to another (indices ``row*10+col``)."""

    from_sq: int
    to_sq: int

    def __str__(self) -> str:
        return f"{square_name(self.from_sq)}-{square_name(self.to_sq)}"

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Parse ``"b4-b5"`` (``x`` or ``-`` or a space between squares).

        Raises:
            InvalidMoveError: if ``text`` is not two squares.
        """
        from .errors import InvalidMoveError

        s = text.strip().lower().replace("x", "-").replace(" ", "-")
        parts = [p for p in s.split("-") if p]
        if len(parts) != 2:
            raise InvalidMoveError(f"{text!r} is not a move; write it as from-to, e.g. b4-b5")
        return cls(parse_square(parts[0]), parse_square(parts[1]))


def _as_move(move: Move | str | tuple[int, int]) -> Move:
    return Move.parse(move) if isinstance(move, str) else Move(int(move[0]), int(move[1]))


class Piece(NamedTuple):
    """A piece on the board: owner (0 Red, 1 Blue), type 0..11, and what the opponent knows of it."""

    player: int
    type: int
    revealed: bool
    moved: bool

    @property
    def name(self) -> str:
        return PIECE_NAMES[self.type]


class Game:
    """A single game of Stratego.

    ``Game()`` starts Classic from two random setups; pass ``red``/``blue``
    placements (``int8[100]`` from ``state.deployment``) to choose them, and
    ``turn=1`` to let Blue move first (hand-built positions only).  All
    rules run in the Numba kernels of ``deepnash.game.kernels``.

    Example::

        g = Game("barrage", seed=1)
        while not g.is_over():
            g.push(g.legal_moves()[0])
        print(g.outcome())
    """

    def __init__(
        self,
        variant: Variant | str = "classic",
        red: np.ndarray | None = None,
        blue: np.ndarray | None = None,
        *,
        seed: int | None = None,
        turn: int = 0,
    ):
        self.variant = get_variant(variant)
        rng = np.random.default_rng(seed)
        self.setups = (
            random_deployment(self.variant, 0, rng) if red is None else np.asarray(red, dtype=np.int8),
            random_deployment(self.variant, 1, rng) if blue is None else np.asarray(blue, dtype=np.int8),
        )
        self.state = BatchState(1, self.variant)
        self.state.reset(0, self.setups[0], self.setups[1], turn)
        self.move_stack: list[Move] = []
        self._resigned: int | None = None
        self._buf = np.empty((K.MAX_MOVES, 2), dtype=np.int16)

    @classmethod
    def from_setups(cls, variant: Variant | str, red: list[int], blue: list[int]) -> "Game":
        """Start from two setups in setup order (see ``state.deployment``).

        Raises:
            InvalidSetupError: if either setup is not legal for the variant.
        """
        v = get_variant(variant)
        return cls(v, deployment(v, 0, red), deployment(v, 1, blue))

    @classmethod
    def from_state(cls, variant: Variant | str, board: np.ndarray, flags: np.ndarray | None = None, *, turn: int,
                   outcome: Outcome | None = None, **counters) -> "Game":
        """A game that continues from a complete position (``BatchState.load``'s arguments), or that
        ended with ``outcome``.

        ``setups`` holds the two placements when ``ply`` is 0, else ``None``; the
        move stack is empty.

        Raises:
            InvalidPositionError: as ``BatchState.load``.
        """
        v = get_variant(variant)
        state = BatchState(1, v)
        resigned = outcome is not None and outcome.termination == Termination.RESIGNATION
        end = None if outcome is None or resigned else (
            int(outcome.termination), -1 if outcome.winner is None else outcome.winner)
        state.load(0, board, flags, turn=turn, outcome=end, **counters)
        setups = placements(state.board[0]) if counters.get("ply", 0) == 0 else None
        return cls._around(v, state, setups, [], 1 - outcome.winner if resigned else None)

    @classmethod
    def _around(cls, variant: Variant, state: BatchState, setups, move_stack: list[Move],
                resigned: int | None) -> "Game":
        """A game over an already built one-game ``state`` (``from_state``, ``copy``)."""
        g = cls.__new__(cls)
        g.variant, g.state, g.setups, g.move_stack, g._resigned = variant, state, setups, move_stack, resigned
        g._buf = np.empty((K.MAX_MOVES, 2), dtype=np.int16)
        return g

    @classmethod
    def from_diagram(cls, text: str, variant: Variant | str = "classic", turn: int = 0) -> "Game":
        """Start from a hand-drawn position (see ``diagram``; piece counts are not checked), ``turn`` to move.

        Every piece starts hidden and unmoved, with no repetition history.

        Raises:
            InvalidPositionError: if the diagram cannot be read.
        """
        from .diagram import parse_diagram

        red, blue = parse_diagram(text, variant)
        return cls(variant, red, blue, turn=turn)

    # -- state ---------------------------------------------------------------
    @property
    def turn(self) -> int:
        """The player to move: 0 Red, 1 Blue."""
        return int(self.state.meta[0, K.M_TO_MOVE])

    @property
    def ply(self) -> int:
        """Moves played so far, both players."""
        return int(self.state.meta[0, K.M_PLY])

    @property
    def moves_since_attack(self) -> int:
        """Consecutive moves without an attack."""
        return int(self.state.meta[0, K.M_SINCE_ATTACK])

    def piece_at(self, sq: int | str) -> Piece | None:
        """The piece on a square (index or name), or ``None`` for an empty or lake square."""
        sq = parse_square(sq) if isinstance(sq, str) else sq
        v = int(self.state.board[0, sq])
        if v <= 0:
            return None
        f = int(self.state.flags[0, sq])
        return Piece(owner_of(v), type_of(v), bool(f & K.REVEALED), bool(f & K.MOVED))

    def is_lake(self, sq: int) -> bool:
        return int(self.state.board[0, sq]) == K.LAKE

    # -- moves ---------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """All legal moves of the player to move (empty once the game is over)."""
        if self.is_over():
            return []
        n = K.legal_moves(*self.state.arrays, 0, self.turn, self._buf)
        return [Move(int(f), int(t)) for f, t in self._buf[:n]]

    def is_legal(self, move: Move | str | tuple[int, int]) -> bool:
        """True when ``move`` may be pushed now."""
        m = _as_move(move)
        return not self.is_over() and bool(K.is_legal(*self.state.arrays, 0, m.from_sq, m.to_sq))

    def push(self, move: Move | str | tuple[int, int]) -> BattleResult:
        """Play a move and return what it did.

        Raises:
            InvalidMoveError: a string that is not a move.
            GameOverError: the game has ended.
            IllegalMoveError: the move is not legal here (the game is unchanged).
        """
        m = _as_move(move)
        if self.is_over():
            raise GameOverError(f"move {self.ply + 1} ({m}): the game is already over ({self.outcome()})")
        if not K.is_legal(*self.state.arrays, 0, m.from_sq, m.to_sq):
            raise IllegalMoveError(f"move {self.ply + 1} ({PLAYER_NAMES[self.turn]}): {m} is illegal: {self._why(m)}")
        s = self.state
        result = K.apply_move(s.board, s.flags, s.meta, s.hist, s.zob, s.chase, s.rules, 0, m.from_sq, m.to_sq)
        self.move_stack.append(m)
        return BattleResult(int(result))

    def _why(self, m: Move) -> str:
        piece = self.piece_at(m.from_sq)
        if piece is None:
            return f"no piece on {square_name(m.from_sq)}"
        if piece.player != self.turn:
            return f"the piece on {square_name(m.from_sq)} belongs to {PLAYER_NAMES[piece.player]}"
        if piece.type in (0, 11):
            return f"a {piece.name} never moves"
        target = self.piece_at(m.to_sq)
        if self.is_lake(m.to_sq):
            return f"{square_name(m.to_sq)} is a lake"
        if target is not None and target.player == self.turn:
            return f"{square_name(m.to_sq)} holds your own piece"
        if not self._legal_with(m, two_squares=False, more_squares=False):
            return f"a {piece.name} cannot move from {square_name(m.from_sq)} to {square_name(m.to_sq)}"
        if not self._legal_with(m, more_squares=False):
            return "it breaks the two-squares rule (the same piece back and forth between the same squares)"
        return "it breaks the more-squares rule (a chasing move back to a position of the chase)"

    def _legal_with(self, m: Move, **rules: bool) -> bool:
        """Whether ``m`` would be legal here with some repetition rules switched off."""
        relaxed = BatchState(1, self.variant.with_rules(**rules))
        self.state.copy_game(0, 0, relaxed)
        return bool(K.is_legal(*relaxed.arrays, 0, m.from_sq, m.to_sq))

    # -- end -----------------------------------------------------------------
    def is_over(self) -> bool:
        return self._resigned is not None or bool(self.state.meta[0, K.M_DONE])

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        if self._resigned is not None:
            return Outcome(Termination.RESIGNATION, 1 - self._resigned)
        if not self.state.meta[0, K.M_DONE]:
            return None
        w = int(self.state.meta[0, K.M_WINNER])
        return Outcome(Termination(int(self.state.meta[0, K.M_TERMINATION])), None if w < 0 else w)

    def resign(self, player: int) -> None:
        """``player`` gives up; the other one wins."""
        if self.is_over():
            raise GameOverError("the game is already over")
        self._resigned = player

    def copy(self) -> "Game":
        """An independent copy (state, setups and move stack)."""
        state = BatchState(1, self.variant)
        self.state.copy_game(0, 0, state)
        return Game._around(self.variant, state, self.setups, list(self.move_stack), self._resigned)
