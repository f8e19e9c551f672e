"""``sacrifice=false``: no attack that loses for certain."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ...candidates import doomed_attacks
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class SacrificeOptions:
    sacrifice: bool = option(True, "keep attacks that lose for certain on public "
                                                            "information (false: drop them)")


@register
class Sacrifice(Heuristic):
    """With ``sacrifice=false``, drops the attacks that lose for certain on public information
    (``candidates.doomed_attacks``: a Scout on a revealed Bomb, a Captain on a revealed Major): they win nothing,
    learn nothing, and reset the no-attack count."""

    name = "sacrifice"
    options = SacrificeOptions
    off = {"sacrifice": "true"}

    @staticmethod
    def enabled(config) -> bool:
        return not config.sacrifice

    def prune(self, turn: Turn) -> set[Move]:
        return doomed_attacks(turn.view, turn.prior)
