"""``approach``: quiet moves make progress towards the opponent's Flag where no material is won."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....game import Move
from ...candidates import approach_move, exposed
from ...leaf import counter_nearness, flag_approach
from ...config import option
from ..plugin import Heuristic, Leaves, Proposal, Turn, register
from .guard import GUARD_PRIOR

#: Draws of the belief that choose ``candidates.approach_move``.
APPROACH_DRAWS = 16

#: How near a draw limit (``leaf.counter_nearness``) the root must be for the approach to apply against an
#: opponent that presses: half the no-attack count, 100 plies in Classic, leaves a Miner time to walk.
APPROACH_NEARNESS = 0.5

#: Against an opponent that does not press, the march's ``Q`` counts ``MARCH`` times ``approach`` more, unless
#: the marching piece is ``candidates.exposed``: the step it gains is worth ``approach`` on average, less than
#: the spread of two plies of rollouts, so that a won ending was walked a step forward and a step back.
MARCH = 3.0


@dataclass(frozen=True)
class ApproachOptions:
    approach: float = option(0.0, "what a leaf gains for each rook step nearer the "
                                                           "opponent's sampled Flag, >= 0 (0: off)")

    def check(self) -> None:
        if self.approach < 0:
            raise ValueError(f"search approach must be >= 0, got {self.approach}")


@register
class Approach(Heuristic):
    """Against an opponent ``passive`` takes for one that does not press, and against any opponent once the root is
    ``APPROACH_NEARNESS`` near a draw limit, a material leaf gains ``approach`` for each rook step the player's
    nearest piece has come nearer the opponent's sampled Flag since the root (``leaf.flag_approach``; against an
    opponent that does not press, past the pieces ``spare`` keeps from attacking), so that quiet moves make
    progress where the few plies searched win no material; and the candidates always hold the
    ``candidates.approach_move`` (over ``APPROACH_DRAWS`` draws of the belief) with at least
    ``guard.GUARD_PRIOR`` times the top move's prior: the prior seldom moves the back-row Miners such an ending
    needs.  Against an opponent that does not press it enters with the top move's prior and ``MARCH`` times
    ``approach`` added to its ``Q``, unless an opponent piece that may take it stands near."""

    name = "approach"
    options = ApproachOptions
    off = {"approach": "0"}
    reads = ("passive", "spare")

    @staticmethod
    def enabled(config) -> bool:
        return config.approach > 0

    def begin(self, turn: Turn) -> None:
        self._nearer, self._march, self._closing, self._spared = None, False, False, 0

    def propose(self, turn: Turn) -> Proposal | None:
        view, meek = turn.view, bool(turn.facts.get("meek", False))
        self._closing = meek or counter_nearness(view.moves_since_attack, view.ply, view.variant) >= APPROACH_NEARNESS
        self._spared = int(turn.facts.get("spare", 0)) if meek else 0
        if not self._closing or turn.draw is None:
            return None
        self._nearer = approach_move(view, turn.ranked, turn.draw(turn.rng, APPROACH_DRAWS), self._spared)
        if self._nearer is None:
            return None
        self._march = meek and not exposed(view, self._nearer)
        return Proposal(self._nearer, 1.0 if self._march else GUARD_PRIOR)

    def at_root(self, turn: Turn, leaves: Leaves) -> None:
        if self._closing:  # the same for every candidate of a sample: measured once per sample
            state, m = leaves.env.state, leaves.m
            leaves.state[self.name] = np.repeat(flag_approach(state.board[::m], leaves.me, state.flags[::m],
                                                              self._spared), m)

    def leaf_term(self, turn: Turn, leaves: Leaves, rows: np.ndarray) -> np.ndarray | None:
        if not self._closing:
            return None
        state = leaves.env.state
        return self.config.approach * (leaves.state[self.name][rows]
                                       - flag_approach(state.board[rows], leaves.me, state.flags[rows], self._spared))

    def adjust_q(self, turn: Turn, q: dict[Move, float]) -> dict[Move, float]:
        return {self._nearer: MARCH * self.config.approach} if self._march and self._nearer in q else {}
