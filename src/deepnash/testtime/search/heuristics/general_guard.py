"""``general_guard``: the known General kept away from the Marshal."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ...candidates import marshalled_moves
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class GeneralGuardOptions:
    general_guard: bool = option(False, "keep the known General from standing next to a "
                                                                 "moved or revealed piece that may be the Marshal")


@register
class GeneralGuard(Heuristic):
    """The same as ``spy_guard`` for the player's General and the opponent's Marshal, counting only opponent
    pieces that have moved or are revealed (``candidates.marshalled_moves``)."""

    name = "general_guard"
    options = GeneralGuardOptions
    off = {"general_guard": "false"}

    @staticmethod
    def enabled(config) -> bool:
        return config.general_guard

    def prune(self, turn: Turn) -> set[Move]:
        return marshalled_moves(turn.view, turn.prior)
