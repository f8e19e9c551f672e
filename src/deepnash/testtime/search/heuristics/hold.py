"""``hold``: no move that lets a raid on the Flag through."""

from __future__ import annotations

from dataclasses import dataclass

from ....game import Move
from ...raid_solve import unguarding_moves
from ...config import option
from ..plugin import Heuristic, Turn, register


@dataclass(frozen=True)
class HoldOptions:
    hold: bool = option(False, "drop moves after which more raids on the Flag are forced "
                                                        "than after the best move")


@register
class Hold(Heuristic):
    """Drops the moves after which more raids on the player's Flag are forced than after the best move
    (``raid_solve.unguarding_moves``): each hidden opponent piece, raced as a Miner where it may be one, as the
    strongest type it is at least a quarter of the time, and as a Scout where it may be one, and each revealed
    movable piece, against the player's pieces that stop it, solved exactly by retrograde analysis.  Every legal
    move is raced, not only the prior's: where the prior holds none of the moves that force the fewest raids
    (the test-time layer may have taken out the one move that blocks a Scout's run), those moves join it, each
    with the prior's least probability, before the others are dropped."""

    name = "hold"
    options = HoldOptions
    off = {"hold": "false"}

    @staticmethod
    def enabled(config) -> bool:
        return config.hold

    def begin(self, turn: Turn) -> None:
        self._unguarding = unguarding_moves(turn.view, turn.view.legal_moves)

    def widen(self, turn: Turn) -> dict[Move, float]:
        prior, out = turn.prior, self._unguarding
        if not out or not all(m in out for m, p in prior.items() if p > 0):
            return {}
        floor = min(p for p in prior.values() if p > 0)
        return {m: floor for m in turn.view.legal_moves if m not in out}

    def prune(self, turn: Turn) -> set[Move]:
        return self._unguarding & set(turn.prior)
