"""``guard``: the Flag guarded against raids."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....game.pieces import MINER
from ....infostate.beliefs import type_distributions
from ....infostate.view import UNKNOWN
from ...flag_guard import flag_danger, guarding_move
from ...config import option
from ..plugin import Heuristic, Leaves, Proposal, Turn, register

#: The least prior the guard's answer to a raid enters the improvement with, as a fraction of the top move's:
#: people seldom play the one quiet move that keeps the Flag, and a prior hundreds of times below the top one
#: outweighed a race the search found lost on every other move.  With ``alpha`` 10 the answer still needs ``Q``
#: about 0.23 above the top move's to overtake it.
GUARD_PRIOR = 0.1


@dataclass(frozen=True)
class GuardOptions:
    guard: float = option(0.0, "how much a raid on the Flag costs a leaf, in [0, 1] "
                                                        "(0: off)")

    def check(self) -> None:
        if not 0 <= self.guard <= 1:
            raise ValueError(f"search guard must be in [0, 1], got {self.guard}")


@register
class Guard(Heuristic):
    """A leaf's value ``v`` becomes ``v (1 - guard D) - guard D``, ``D`` the ``flag_guard.flag_danger`` of its
    sample right after the candidate move (an opponent piece racing a defender to the Flag, a hidden one that
    may be a Miner also as a Miner at half weight; 1 when the race is lost); and the candidates always hold
    the ``flag_guard.guarding_move`` of the most pressing raid on public information, in place of the
    lowest-ranked one, with at least ``GUARD_PRIOR`` times the top move's prior.  Two plies of rollouts blur
    a race that the move itself decides."""

    name = "guard"
    options = GuardOptions
    off = {"guard": "0"}

    @staticmethod
    def enabled(config) -> bool:
        return config.guard > 0

    def begin(self, turn: Turn) -> None:
        self._may_mine = None

    def propose(self, turn: Turn) -> Proposal | None:
        move = guarding_move(turn.view)
        return None if move is None else Proposal(move, GUARD_PRIOR)

    def after_move(self, turn: Turn, leaves: Leaves) -> None:
        view = turn.view
        if self._may_mine is None:  # squares whose hidden piece is also raced as a Miner: the same every round
            self._may_mine = ((view.owner == 1 - view.player) & (view.types == UNKNOWN)
                              & (type_distributions(view)[:, MINER] > 0))
        env = leaves.env
        leaves.state[self.name] = self.config.guard * flag_danger(env.state.board, env.player, leaves.me,
                                                                  self._may_mine)

    def shape(self, turn: Turn, leaves: Leaves) -> None:
        danger: np.ndarray = leaves.state[self.name]
        rows = leaves.pending
        leaves.result[rows] = leaves.result[rows] * (1 - danger[rows]) - danger[rows]
