"""``passive``: an opponent that does not press its lead is played for what it is."""

from __future__ import annotations

from dataclasses import dataclass

from ...candidates import presses
from ...leaf import movable_left
from ...config import option
from ..plugin import Heuristic, Leaves, Turn, register

#: Against an opponent that does not press, how far beyond the unfinished lines of a round a finished game scores
#: at least: a loss at most the lowest leaf less this, a win at least the highest plus this (and -1 and 1 where
#: the leaves stay inside them).  There the draw term can score a leaf below -1, and a line that drifted to the
#: draw limit would score below the line that lost at once.
DECIDED_MARGIN = 0.1


@dataclass(frozen=True)
class PassiveOptions:
    passive: int = option(0, "plies after which an opponent that has lost or tied no "
                                                      "attack is taken for one that does not press (0: never)")

    def check(self) -> None:
        if self.passive < 0:
            raise ValueError(f"search passive must be >= 0 plies, got {self.passive}")


@register
class Passive(Heuristic):
    """After ``passive`` plies, an opponent that has not once lost or tied an attack (``candidates.presses``) is
    taken for one that does not press its lead (fact ``"meek"``, which ``spare``, ``contempt`` and ``approach``
    read).  Against it a lead does not win and a draw is no rescue: the draw term no longer rewards the player
    behind for stalling (its lead counts for at least 0); a player left without a movable piece loses at the
    leaf, where the rollout did not reach its turn; and a finished game scores beyond every unfinished line of
    the round (``DECIDED_MARGIN``), so that a lost game is never worth more than a drawn-out one."""

    name = "passive"
    options = PassiveOptions
    off = {"passive": "0"}

    @staticmethod
    def enabled(config) -> bool:
        return config.passive > 0

    def begin(self, turn: Turn) -> None:
        self._meek = turn.view.ply >= self.config.passive and not presses(turn.view)
        turn.facts["meek"] = self._meek
        if self._meek:
            turn.draw_floor = 0.0

    def settle(self, turn: Turn, leaves: Leaves) -> None:
        if not self._meek:
            return
        board, me, live, result = leaves.env.state.board, leaves.me, leaves.live, leaves.result
        mine, theirs = movable_left(board, me), movable_left(board, 1 - me)
        result[live & ~mine & theirs], result[live & mine & ~theirs] = -1.0, 1.0
        stuck = live & ~mine & ~theirs
        result[stuck] = 0.0
        leaves.drawn |= stuck

    def shape(self, turn: Turn, leaves: Leaves) -> None:
        pending, result = leaves.pending, leaves.result
        if not self._meek or not pending.any() or pending.all():
            return
        decided = ~pending
        result[decided & (result < 0)] = min(-1.0, result[pending].min() - DECIDED_MARGIN)
        result[decided & (result > 0)] = max(1.0, result[pending].max() + DECIDED_MARGIN)
