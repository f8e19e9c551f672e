"""``spare``: the officers kept off pieces that may be Bombs."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ....game.pieces import MARSHAL, SCOUT, SPY
from ...candidates import spared_attacks
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class SpareOptions:
    spare: int = option(0, f"lowest rank kept off unmoved hidden pieces while a Bomb is "
                                                    f"hidden, {SCOUT} to {MARSHAL} (0: off)")

    def check(self) -> None:
        if not (self.spare == 0 or SPY < self.spare <= MARSHAL):
            raise ValueError(f"search spare must be 0 or a rank from {SCOUT} to {MARSHAL}, got {self.spare}")


@register
class Spare(Heuristic):
    """Keeps the player's pieces of rank ``spare`` and above (9: the General and the Marshal) from attacking an
    opponent piece that is hidden and has never moved while one of the opponent's Bombs is unrevealed
    (``candidates.spared_attacks``).  Eight samples and a prior that likes such attacks do not keep the pieces
    that win the game off the Bombs.  It also tells ``approach`` and ``contempt`` the rank (fact ``"spare"``):
    against an opponent that does not press, the spared pieces neither attack its unmoved pieces nor pass them."""

    name = "spare"
    options = SpareOptions
    off = {"spare": "0"}

    @staticmethod
    def enabled(config) -> bool:
        return config.spare > 0

    def begin(self, turn: Turn) -> None:
        turn.facts["spare"] = self.config.spare

    def prune(self, turn: Turn) -> set[Move]:
        return spared_attacks(turn.view, turn.prior, self.config.spare)
