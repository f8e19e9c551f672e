"""The uniformly random bot: a random legal setup and a uniformly random legal move."""

from __future__ import annotations

from ..game import Move
from ..infostate.view import PlayerView
from .base import SeededBot


class RandomAgent(SeededBot):
    """Plays uniformly at random among legal moves; deploys uniformly at random."""

    name = "random"

    def act(self, view: PlayerView) -> Move:
        return view.legal_moves[int(self._rng.integers(len(view.legal_moves)))]
