"""Building a person's deployment square by square, at random, or from a pool of human setups."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..game import Variant, deployment, get_variant, random_deployment
from ..game.errors import InvalidSetupError
from ..game.pieces import PIECE_NAMES, PLAYER_NAMES, piece_type
from ..game.squares import parse_square, square_name
from ..game.state import deployment_types

#: A source of whole setups: ``(variant, player, rng) -> int8[100]`` placement.
SetupDraw = Callable[[Variant, int, np.random.Generator], np.ndarray]


def draw_human_setup(variant: Variant, player: int, rng: np.random.Generator) -> np.ndarray:
    """A setup drawn uniformly from the pool of human (Gravon) setups, ``int8[100]`` for ``player``.

    Raises:
        InvalidSetupError: there is no human setup pool for ``variant``.
    """
    from ..env.setups import human_pool

    try:
        pool = human_pool(variant)
    except (OSError, ValueError) as e:
        raise InvalidSetupError(f"no human setups for {variant.name}: {e}") from None
    red = pool.setups[int(rng.integers(len(pool)))]
    return red.copy() if player == 0 else red[::-1].copy()


class SetupBuilder:
    """A deployment being built: ``placed`` is ``int8[100]``, piece type per square, -1 empty.

    Every method checks its input and raises ``InvalidSetupError`` naming the
    square or piece at fault, leaving the setup as it was.
    """

    def __init__(self, variant: Variant | str, player: int):
        self.variant = get_variant(variant)
        self.player = player
        self.zone = frozenset(self.variant.deploy_squares(player))
        self.placed = np.full(100, -1, dtype=np.int8)

    def remaining(self) -> list[int]:
        """Pieces still to place, as counts per type (12 ints)."""
        counts = np.bincount(self.placed[self.placed >= 0], minlength=12)
        return [int(w - c) for w, c in zip(self.variant.piece_counts, counts)]

    def is_complete(self) -> bool:
        return not any(self.remaining())

    def _square(self, name: str | int) -> int:
        sq = parse_square(name) if isinstance(name, str) else int(name)
        if sq not in self.zone:
            raise InvalidSetupError(f"{square_name(sq)} is outside {PLAYER_NAMES[self.player]}'s deployment zone")
        return sq

    def place(self, square: str | int, piece: str | int) -> None:
        """Put ``piece`` (type or label: ``F``, ``S``, ``2``..``10``, ``B``) on ``square``, replacing what was there."""
        sq = self._square(square)
        try:
            t = piece_type(piece) if isinstance(piece, str) else int(piece)
        except ValueError as e:
            raise InvalidSetupError(str(e)) from None
        if not 0 <= t < 12:
            raise InvalidSetupError(f"unknown piece type {t}")
        if self.remaining()[t] <= 0 and self.placed[sq] != t:
            raise InvalidSetupError(f"no {PIECE_NAMES[t]} left to place (all {self.variant.piece_counts[t]} are on the board)")
        self.placed[sq] = t

    def remove(self, square: str | int) -> None:
        """Empty ``square``."""
        self.placed[self._square(square)] = -1

    def swap(self, a: str | int, b: str | int) -> None:
        """Exchange the contents of two squares of the zone."""
        sa, sb = self._square(a), self._square(b)
        self.placed[[sa, sb]] = self.placed[[sb, sa]]

    def clear(self) -> None:
        """Remove every piece."""
        self.placed[:] = -1

    def randomise(self, rng: np.random.Generator) -> None:
        """A uniformly random legal setup."""
        self.placed = random_deployment(self.variant, self.player, rng)

    def load(self, placement: np.ndarray | list[int]) -> None:
        """Take a whole ``int8[100]`` placement (type per square, -1 empty), checked by ``game.deployment``."""
        arr = np.asarray(placement)
        if arr.shape != (100,) or arr.dtype.kind not in "iu":
            raise InvalidSetupError(f"a placement is 100 integers, got {arr.dtype} of shape {arr.shape}")
        outside = [int(sq) for sq in np.flatnonzero(arr >= 0) if sq not in self.zone]
        if outside:
            raise InvalidSetupError(f"piece on {square_name(outside[0])}, outside {PLAYER_NAMES[self.player]}'s zone")
        self.placed = deployment(self.variant, self.player, deployment_types(self.variant, self.player, arr))

    def finish(self) -> np.ndarray:
        """The finished deployment, ``int8[100]``.

        Raises:
            InvalidSetupError: pieces are still missing (it says which).
        """
        missing = [f"{n} {PIECE_NAMES[t]}" for t, n in enumerate(self.remaining()) if n]
        if missing:
            raise InvalidSetupError("still to place: " + ", ".join(missing))
        return self.placed.copy()

