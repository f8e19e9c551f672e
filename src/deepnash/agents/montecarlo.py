"""The CNN seed's Monte-Carlo baseline (section 3.1).

For each legal move: take ``samples`` states consistent with the public
information (``determinize``; the same states for every move, which lowers
the variance of the comparison), play the move, simulate ``rollouts`` random
continuations of ``depth`` moves, and score the end states (``rollout.score``:
win, loss, or material).  Play the move with the best mean.  The seed reports
that this beats a random player 94% of the time.
"""

from __future__ import annotations

import numpy as np

from ..game import Move
from ..game import kernels as K
from ..infostate.beliefs import PIECE_VALUE
from ..infostate.determinize import determinize
from ..infostate.view import PlayerView
from .base import SeededBot
from .registry import register_agent
from .rollout import evaluate_moves
from .setups import guarded_deployment


class MonteCarloAgent(SeededBot):
    """Flat Monte-Carlo over determinisations.

    Args:
        samples: determinisations per decision.
        rollouts: random continuations per (move, determinisation).
        depth: moves per continuation (the seed used 10-50 turns).
        setup: where its setups come from (``base.SeededBot``).
    """

    name = "montecarlo"
    deploy = staticmethod(guarded_deployment)

    def __init__(self, samples: int = 20, rollouts: int = 1, depth: int = 20, setup: str = "own"):
        if samples < 1 or rollouts < 1 or depth < 0:
            raise ValueError(f"montecarlo: samples and rollouts must be >= 1 and depth >= 0, "
                             f"got {samples}, {rollouts}, {depth}")
        super().__init__(setup)
        self.samples, self.rollouts, self.depth = samples, rollouts, depth

    def act(self, view: PlayerView) -> Move:
        if len(view.legal_moves) == 1:
            return view.legal_moves[0]
        values = self.move_values(view)
        best = np.flatnonzero(values >= values.max() - 1e-12)
        return view.legal_moves[int(self._rng.choice(best))]

    def move_values(self, view: PlayerView) -> np.ndarray:
        """``float64[len(view.legal_moves)]``: each move's mean simulated value in [-1, 1]."""
        state = determinize(view, self._rng, self.samples, extra_slots=2)
        K.seed_numba(int(self._rng.integers(2**31)))
        cand = np.asarray(view.legal_moves, dtype=np.int16).reshape(-1, 2)
        out = np.empty(len(cand))
        evaluate_moves(state.board, state.flags, state.meta, state.hist, state.zob, state.chase, state.rules,
                       self.samples, self.samples, cand, self.rollouts, self.depth, False, view.player,
                       PIECE_VALUE, out)
        return out


register_agent("montecarlo", MonteCarloAgent, summary="CNN seed's Monte-Carlo baseline: determinise, random rollouts")
