"""The uniformly random bot: a random legal setup and a uniformly random legal move."""

from __future__ import annotations

import numpy as np

from ..game import Move, Outcome, Variant, random_deployment
from .base import PlayerView


class RandomAgent:
    """Plays uniformly at random among legal moves; deploys uniformly at random."""

    name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng()
        self._variant: Variant | None = None
        self._player = 0

    def reset(self, variant: Variant, player: int, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._variant = variant
        self._player = player

    def choose_setup(self) -> np.ndarray:
        return random_deployment(self._variant, self._player, self._rng)

    def act(self, view: PlayerView) -> Move:
        return view.legal_moves[int(self._rng.integers(len(view.legal_moves)))]

    def game_over(self, outcome: Outcome, view: PlayerView) -> None:
        pass
