"""``spy_guard``: the known Marshal kept away from the Spy."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ...candidates import spied_moves
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class SpyGuardOptions:
    spy_guard: bool = option(False, "keep the known Marshal from standing next to a "
                                                             "piece that may be the Spy")


@register
class SpyGuard(Heuristic):
    """Drops the moves after which the player's Marshal, known to the opponent, stands next to an opponent piece
    that is or may be its Spy (``candidates.spied_moves``; where every move does, all but the least exposed).  A
    Spy takes the Marshal it attacks, and eight samples seldom put the Spy on the one square."""

    name = "spy_guard"
    options = SpyGuardOptions
    off = {"spy_guard": "false"}

    @staticmethod
    def enabled(config) -> bool:
        return config.spy_guard

    def prune(self, turn: Turn) -> set[Move]:
        return spied_moves(turn.view, turn.prior)
