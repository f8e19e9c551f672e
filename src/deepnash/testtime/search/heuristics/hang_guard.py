"""``hang_guard``: no piece left hanging."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ...candidates import hanging_moves
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class HangGuardOptions:
    hang_guard: bool = option(False, "drop quiet moves that leave the moving piece "
                                                              "next to a revealed piece that takes it unanswered")


@register
class HangGuard(Heuristic):
    """Drops the quiet moves that leave the moving piece hanging (``candidates.hanging_moves``): next to a revealed
    opponent piece that takes it, with none of the player's pieces beside it to take that piece back.  A bot
    takes such a piece nearly every time; the rollouts' opponent, which plays as people do and fears a bluff,
    often does not, so the search alone does not see it."""

    name = "hang_guard"
    options = HangGuardOptions
    off = {"hang_guard": "false"}

    @staticmethod
    def enabled(config) -> bool:
        return config.hang_guard

    def prune(self, turn: Turn) -> set[Move]:
        return hanging_moves(turn.view, turn.prior)
