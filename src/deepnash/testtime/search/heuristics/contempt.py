"""``contempt``: a draw is worth less than even, so the search presses for the win."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...candidates import hopeful_attack
from ...leaf import attack_delay, counter_nearness
from ...config import option
from ..plugin import Heuristic, Proposal, Turn, register

#: How far ``step_size`` lets ``alpha`` grow as a draw limit nears.
MAX_STEP_GAIN = 100.0


@dataclass(frozen=True)
class ContemptOptions:
    contempt: float = option(0.0, "how much worse than even a draw is, in [0, 1] (0: off)")

    def check(self) -> None:
        if not 0 <= self.contempt <= 1:
            raise ValueError(f"search contempt must be in [0, 1], got {self.contempt}")


@register
class Contempt(Heuristic):
    """Chess engines' contempt: a drawn rollout scores ``-contempt``, and the draw term of the ``progress`` and
    ``gain`` leaves pulls towards ``-contempt`` instead of 0, its counters running on until the player's nearest
    attack can land (``leaf.attack_delay``; past the pieces ``spare`` keeps off an opponent that does not press);
    the candidates always hold the attack of highest prior that may not lose on public information
    (``candidates.hopeful_attack``), in place of the lowest-ranked one; and the improvement's ``alpha`` grows as
    ``alpha / (1 - r**2)`` with the root's nearness ``r`` to a draw limit (``leaf.counter_nearness``; at most
    ``MAX_STEP_GAIN`` times), so that ``Q``, not the prior (people's moves, which seldom met the limit), decides
    the last moves before a draw.  A player level or a little behind then attacks before the limit."""

    name = "contempt"
    options = ContemptOptions
    off = {"contempt": "0"}
    reads = ("passive", "spare")

    @staticmethod
    def enabled(config) -> bool:
        return config.contempt > 0

    def begin(self, turn: Turn) -> None:
        turn.draw_score = self.config.contempt
        me = turn.view.player

        def delay(boards: np.ndarray, to_move: np.ndarray, flags: np.ndarray) -> np.ndarray:
            spared = turn.facts.get("spare", 0) if turn.facts.get("meek", False) else 0
            return attack_delay(boards, to_move, me, flags, spared)

        turn.attack_delay = delay

    def propose(self, turn: Turn) -> Proposal | None:
        move = hopeful_attack(turn.view, turn.ranked)
        return None if move is None else Proposal(move)

    def step_size(self, turn: Turn, alpha: float) -> float:
        view = turn.view
        r = float(counter_nearness(view.moves_since_attack, view.ply, view.variant))
        return alpha / max(1.0 - r * r, 1.0 / MAX_STEP_GAIN)
