"""The state of B games as NumPy arrays, and the setups that start them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from . import kernels as K
from .codes import LAKE, MAX_CODE, is_piece_of, types
from .errors import InvalidPositionError, InvalidSetupError
from .pieces import BOMB, FLAG, NUM_TYPES, PIECE_CHARS, PIECE_NAMES, PLAYER_NAMES
from .squares import square_name
from .variant import Variant, get_variant


class Chase(NamedTuple):
    """A running chase of the more-squares rule (``kernels`` module docstring)."""

    chaser: int  #: the chasing player
    square: int  #: the square of the chasing piece after its last threat
    boards: int  #: boards recorded since the chase began
    keys: Sequence[int]  #: their Zobrist hashes in ring order (``min(boards, CHASE_CAPACITY)`` of them)


class LastMove(NamedTuple):
    """The last move played, as ``meta`` keeps it (attacker and defender types -1 when there was no battle)."""

    from_sq: int
    to_sq: int
    attacker: int = -1
    defender: int = -1
    result: int = K.RESULT_MOVE


class BatchState:
    """B Stratego games of one variant, held in preallocated arrays.

    Attributes (all C-contiguous, written in place by ``kernels``):
        board: ``int8[B, 100]`` board codes (see ``kernels``).
        flags: ``uint8[B, 100]`` ``REVEALED``/``MOVED`` bits of the piece on each square.
        meta: ``int32[B, NUM_META]`` side to move, counters, outcome, chase and last-move fields.
        hist: ``int8[B, 2, HISTORY, 2]`` each player's last moves (from, to), newest first; -1 none.
        zob: ``uint64[B]`` Zobrist hash of each board.
        chase: ``uint64[B, CHASE_CAPACITY]`` boards seen during the running chase.
    """

    def __init__(self, batch_size: int, variant: Variant | str = "classic"):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.variant = get_variant(variant)
        self.batch_size = batch_size
        self.board = np.zeros((batch_size, 100), dtype=np.int8)
        self.flags = np.zeros((batch_size, 100), dtype=np.uint8)
        self.meta = np.zeros((batch_size, K.NUM_META), dtype=np.int32)
        self.meta[:, K.M_WINNER] = -1
        self.hist = np.full((batch_size, 2, K.HISTORY, 2), -1, dtype=np.int8)
        self.zob = np.zeros(batch_size, dtype=np.uint64)
        self.chase = np.zeros((batch_size, K.CHASE_CAPACITY), dtype=np.uint64)
        self.rules = self.variant.rules_array
        self.lakes = np.asarray(self.variant.lakes, dtype=np.int64)
        self.counts = np.asarray(self.variant.piece_counts, dtype=np.int64)
        self.deploy = (
            np.asarray(self.variant.deploy_squares(0), dtype=np.int64),
            np.asarray(self.variant.deploy_squares(1), dtype=np.int64),
        )

    @property
    def arrays(self) -> tuple:
        """``(board, meta, hist, zob, chase, rules)``: the leading arguments of the move kernels."""
        return (self.board, self.meta, self.hist, self.zob, self.chase, self.rules)

    def reset(self, b: int, red: np.ndarray, blue: np.ndarray, turn: int = 0) -> None:
        """Start game ``b`` from two validated deployments (``int8[100]``, type or -1, see ``deployment``).

        ``turn`` is the player to move first (0 Red, the rules' default; 1 Blue
        for hand-built positions).  The game ends at once if that player cannot move.
        """
        if turn not in (0, 1):
            raise ValueError(f"turn must be 0 (Red) or 1 (Blue), got {turn!r}")
        K.reset_game(self.board, self.flags, self.meta, self.hist, self.zob, self.chase,
                     self.rules, self.lakes, b, red, blue)
        if turn == 1:
            m = self.meta[b]
            m[K.M_TO_MOVE] = 1
            m[K.M_DONE] = 0
            m[K.M_WINNER] = -1
            m[K.M_TERMINATION] = K.TERM_NONE
            K.check_stuck(*self.arrays, b)

    def load(self, b: int, board: np.ndarray, flags: np.ndarray | None = None, *, turn: int, ply: int = 0,
             moves_since_attack: int = 0, history: np.ndarray | None = None, chase: Chase | None = None,
             last_move: LastMove | None = None, outcome: tuple[int, int] | None = None) -> None:
        """Put a complete position into game ``b``: the one way to build a state other than ``reset``.

        Args:
            board: ``int8[100]`` board codes (``codes``).
            flags: ``uint8[100]`` ``REVEALED``/``MOVED`` bits (default: every piece hidden and unmoved).
            turn: the player to move, 0 Red or 1 Blue.
            ply, moves_since_attack: the move counters.
            history: ``int[2, n, 2]``, each player's last ``n <= HISTORY`` moves (from, to), newest
                first, -1 for none (the two-squares rule); default none.
            chase: the running chase of the more-squares rule, if any.
            last_move: the move that led here, if any.
            outcome: ``(TERM_* code, winner or -1)`` of a game that has ended; without it
                the game ends at once only when the player to move has no legal move, as in play.

        The Zobrist hash is computed from the board.

        Raises:
            InvalidPositionError: a part that breaks the state's invariants; the
                message starts with the part (``board``, ``flags``, ``turn``,
                ``counters``, ``history``, ``chase``).
        """
        board = np.asarray(board)
        flags = np.zeros(100, np.uint8) if flags is None else np.asarray(flags)
        self._check(board, flags, turn, ply, moves_since_attack, history, chase)
        self.board[b] = board
        self.flags[b] = flags
        self.zob[b] = K.board_hash(self.board, b)
        m = self.meta[b]
        m[:] = 0
        m[K.M_TO_MOVE], m[K.M_PLY], m[K.M_SINCE_ATTACK], m[K.M_WINNER] = turn, ply, moves_since_attack, -1
        last = LastMove(-1, -1, result=K.RESULT_MOVE) if last_move is None else last_move
        m[K.M_LAST_FROM], m[K.M_LAST_TO], m[K.M_LAST_ATTACKER], m[K.M_LAST_DEFENDER], m[K.M_LAST_RESULT] = last
        self.hist[b] = -1
        if history is not None:
            self.hist[b, :, : history.shape[1]] = history
        self.chase[b] = 0
        if chase is not None:
            m[K.M_CHASE], m[K.M_CHASER], m[K.M_CHASE_SQ], m[K.M_CHASE_N] = 1, chase.chaser, chase.square, chase.boards
            self.chase[b, : len(chase.keys)] = np.asarray(chase.keys, dtype=np.uint64)
        if outcome is None:
            K.check_stuck(*self.arrays, b)
        else:
            m[K.M_DONE], m[K.M_TERMINATION], m[K.M_WINNER] = 1, outcome[0], outcome[1]

    def _check(self, board, flags, turn, ply, since_attack, history, chase) -> None:
        v = self.variant
        if board.shape != (100,) or flags.shape != (100,):
            raise InvalidPositionError(f"board: board and flags must have 100 squares, got {board.shape} and {flags.shape}")
        if board.min() < LAKE or board.max() > MAX_CODE:
            sq = int(np.flatnonzero((board < LAKE) | (board > MAX_CODE))[0])
            raise InvalidPositionError(f"board: {square_name(sq)} holds {int(board[sq])}, not a board code")
        for sq in np.flatnonzero((board == LAKE) != v.lake_mask):
            raise InvalidPositionError(f"board: {square_name(int(sq))} {'is' if board[sq] == LAKE else 'is not'} "
                                       f"a lake, but {v.name} says otherwise")
        kinds = types(board)
        for p in (0, 1):
            counts = np.bincount(kinds[is_piece_of(board, p)], minlength=NUM_TYPES)
            for t in np.flatnonzero(counts > np.asarray(v.piece_counts)):
                raise InvalidPositionError(f"board: {PLAYER_NAMES[p]} has {counts[t]} of piece {PIECE_CHARS[t]}, "
                                           f"{v.name} has {v.piece_counts[t]}")
        for sq in np.flatnonzero((flags != 0) & (board <= 0)):
            raise InvalidPositionError(f"flags: {square_name(int(sq))} has flags {int(flags[sq])} but holds no piece")
        for sq in np.flatnonzero(flags & ~np.uint8(K.REVEALED | K.MOVED)):
            raise InvalidPositionError(f"flags: {square_name(int(sq))} has flags {int(flags[sq])}, not 0..3")
        for sq in np.flatnonzero((flags & K.MOVED).astype(bool) & ((kinds == FLAG) | (kinds == BOMB))):
            raise InvalidPositionError(f"flags: the Flag or Bomb on {square_name(int(sq))} cannot have moved")
        if turn not in (0, 1):
            raise InvalidPositionError(f"turn: {turn!r} is neither 0 (Red) nor 1 (Blue)")
        if not 0 <= since_attack <= ply:
            raise InvalidPositionError(f"counters: {since_attack} moves without an attack but only {ply} moves played")
        if history is not None:
            history = np.asarray(history)
            if history.ndim != 3 or history.shape[0] != 2 or history.shape[1] > K.HISTORY or history.shape[2] != 2:
                raise InvalidPositionError(f"history: shape {history.shape}, expected (2, n <= {K.HISTORY}, 2)")
            if history.min(initial=0) < -1 or history.max(initial=0) > 99:
                raise InvalidPositionError("history: squares must be 0..99, or -1 for none")
        if chase is not None and (chase.chaser not in (0, 1) or not 0 <= chase.square < 100 or chase.boards < 1
                                  or len(chase.keys) != min(chase.boards, K.CHASE_CAPACITY)):
            raise InvalidPositionError(f"chase: {len(chase.keys)} hashes for {chase.boards} boards recorded "
                                       f"(chaser {chase.chaser}, square {chase.square})")

    def copy_game(self, src: int, dst: int, other: "BatchState | None" = None) -> None:
        """Copy game ``src`` of this batch into slot ``dst`` of ``other`` (default: this batch)."""
        o = self if other is None else other
        for name in ("board", "flags", "meta", "hist", "zob", "chase"):
            getattr(o, name)[dst] = getattr(self, name)[src]


def deployment(variant: Variant, player: int, types: Sequence[int]) -> np.ndarray:
    """Validate a setup and place it on the board.

    Args:
        variant: the variant (piece counts, deployment rows, lakes).
        player: 0 Red, 1 Blue.
        types: one entry per deployment square *as the player sees them*: front
            row first, each row from the player's left; 40 entries for a
            4-row zone, piece type 0..11 or -1 for an empty square.

    Returns:
        ``int8[100]``: the type on each absolute square, -1 elsewhere.

    Raises:
        InvalidSetupError: wrong length, unknown type, or wrong piece counts.
    """
    squares = player_zone(variant, player)
    who = PLAYER_NAMES[player]
    if len(types) != len(squares):
        raise InvalidSetupError(f"{who} setup has {len(types)} squares, expected {len(squares)}")
    out = np.full(100, -1, dtype=np.int8)
    counts = [0] * NUM_TYPES
    for sq, t in zip(squares, types):
        t = int(t)
        if t < -1 or t >= NUM_TYPES:
            raise InvalidSetupError(f"{who} setup: unknown piece type {t} at square {sq}")
        if t >= 0:
            if sq in variant.lakes:
                raise InvalidSetupError(f"{who} setup: piece on lake square {sq}")
            out[sq] = t
            counts[t] += 1
    if tuple(counts) != variant.piece_counts:
        diffs = [
            f"{PIECE_NAMES[t]} {counts[t]} (want {variant.piece_counts[t]})"
            for t in range(NUM_TYPES) if counts[t] != variant.piece_counts[t]
        ]
        raise InvalidSetupError(f"{who} setup has the wrong pieces for {variant.name}: " + ", ".join(diffs))
    return out


def player_zone(variant: Variant, player: int) -> list[int]:
    """The squares of ``player``'s deployment zone in setup order: front row first, each row from the player's left.

    Lakes inside the zone (none in the standard variants) are included so
    every row has 10 entries; a setup must leave them empty.
    """
    rows = variant.deploy_rows
    if player == 0:
        return [r * 10 + c for r in range(rows - 1, -1, -1) for c in range(10)]
    return [r * 10 + c for r in range(10 - rows, 10) for c in range(9, -1, -1)]


def random_deployment(variant: Variant, player: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal setup for ``player`` as ``int8[100]`` (see ``deployment``)."""
    squares = np.asarray(variant.deploy_squares(player))
    pieces = np.repeat(np.arange(NUM_TYPES, dtype=np.int8), variant.piece_counts)
    chosen = rng.permutation(len(squares))[: len(pieces)]
    out = np.full(100, -1, dtype=np.int8)
    out[squares[chosen]] = pieces
    return out


def deployment_types(variant: Variant, player: int, placed: np.ndarray) -> list[int]:
    """Inverse of ``deployment``: the setup-order list of types (-1 empty) of an ``int8[100]`` placement."""
    return [int(placed[sq]) for sq in player_zone(variant, player)]

