"""A learned belief for the search: complete opponent states drawn from a belief network's marginals.

The belief network (``nn.belief.BeliefNet``, trained on people's games by ``deepnash pretrain-belief``)
gives each hidden opponent piece a distribution over its type.  Those are marginals, piece by piece;
the search needs whole armies that keep the exact counts of the opponent's unrevealed pieces and
everything public (revealed types, movable types on pieces that have moved).  ``LearnedBelief`` draws
them with ``determinize.sample_hidden``, tilting each piece's draw by its learned marginal over the
public one: the first piece drawn follows the learned marginal exactly, and the later ones follow it
as closely as the pieces left allow.

With a setup library (``infostate.setup_library``), the marginals are first weighed by which of people's
setups the opponent's pieces shown so far point to: players keep their setups, and a few pieces seen often
tell the whole army.

This module is numpy only: the network comes in as a function (``MarginalsFn``), as the policy and
the value do for the search.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..env.planes import P_PUB_OPP
from ..game.pieces import NUM_TYPES
from ..infostate.determinize import sample_hidden
from ..infostate.observe import observe_view
from ..infostate.setup_library import SetupLibrary, library_belief, public_origins
from ..infostate.setup_stats import sampler_belief
from ..infostate.view import PlayerView

#: ``obs float32[82, 10, 10] -> float[100, 12]``: each opponent piece's type distribution, in the player's frame.
MarginalsFn = Callable[[np.ndarray], np.ndarray]

def people_marginals(variant: str) -> MarginalsFn:
    """The heuristic sampler's marginals as a ``MarginalsFn``: the public information tilted by where people
    deploy each type, on the pieces that have not moved (``infostate.setup_stats.sampler_belief``)."""
    def fn(obs: np.ndarray) -> np.ndarray:
        public = obs[P_PUB_OPP:P_PUB_OPP + NUM_TYPES].reshape(NUM_TYPES, 100).T.astype(np.float64)
        return sampler_belief(public[None], variant)[0]

    return fn


#: Floor of a learned probability in the tilt, so that no type public information allows is ever impossible.
FLOOR = 1e-4


class LearnedBelief:
    """The search's ``Belief`` from a belief network.

    Args:
        marginals_fn: the network (``MarginalsFn``).
        library: people's setups, weighed over the network's marginals where the view's history reaches back
            to the deployment (``None``: the network alone).

    Calling it with a ``PlayerView`` in the play phase (and optionally the memory heuristic's eliminations,
    ``exclude: bool[100, 12]``, which ``sample_hidden`` then honours as it does for the heuristic belief)
    runs the network once and returns a sampler, ``(rng, n) -> int8[n, 100]``: ``n`` draws of a type for every
    opponent piece on the board (absolute squares; revealed pieces keep theirs), -1 elsewhere, the counts exact.
    """

    def __init__(self, marginals_fn: MarginalsFn, library: SetupLibrary | None = None):
        self.marginals_fn = marginals_fn
        self.library = library

    def marginals(self, view: PlayerView) -> np.ndarray:
        """``float64[100, 12]``: each opponent piece's type distribution as the network gives it (weighed by
        people's setups where ``library`` is set and the view's history reaches back to the deployment), on
        absolute squares; the rows of other squares are the network's output there, meaningless."""
        q = self._frame_marginals(observe_view(view), view)
        return q[::-1].copy() if view.player == 1 else q

    def _frame_marginals(self, obs: np.ndarray, view: PlayerView) -> np.ndarray:
        q = np.asarray(self.marginals_fn(obs), np.float64)
        known = None if self.library is None else public_origins(view)
        if known is not None:
            q = library_belief(self.library, q[None], known[0][None], known[1][None])[0]
        return q

    def weights(self, view: PlayerView) -> np.ndarray:
        """``float64[100, 12]``, positive: each square's tilt, the learned marginal over the public one
        (``sample_hidden``'s ``weights``), 1 where public information rules a type out."""
        obs = observe_view(view)
        q = self._frame_marginals(obs, view)
        public = obs[P_PUB_OPP:P_PUB_OPP + NUM_TYPES].reshape(NUM_TYPES, 100).T.astype(np.float64)
        w = np.where(public > 0, np.maximum(q, FLOOR) / np.where(public > 0, public, 1.0), 1.0)
        return w[::-1].copy() if view.player == 1 else w

    def __call__(self, view: PlayerView, exclude: np.ndarray | None = None) -> Callable[[np.random.Generator, int], np.ndarray]:
        weights = self.weights(view)
        return lambda rng, n: sample_hidden(view, rng, weights, exclude=exclude, tilt_moved=True, n=n)
