"""The state of B games as NumPy arrays, and the setups that start them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import kernels as K
from .errors import InvalidSetupError
from .pieces import NUM_TYPES, PIECE_NAMES, PLAYER_NAMES
from .variant import Variant, get_variant


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

