"""Where people put their pieces: deployment statistics of the human (Gravon) setups.

The thesis' MCTS agent models its opponent with the setup statistics of
Gravon games (seed 004, "opponent modelling"): an unmoved piece on a square
where people usually put their Flag or Bombs is more likely to be one.  These
weights feed ``determinize.sample_hidden``, and ``sampler_belief`` gives the marginals they make.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..game import Variant, get_variant
from ..game.pieces import FLAG, NUM_TYPES


@lru_cache(maxsize=8)
def deployment_weights(variant: Variant, player: int, prior: float = 1.0) -> np.ndarray | None:
    """``float64[100, 12]``: how much likelier type ``t`` is on square ``sq`` of ``player``'s zone in
    human setups than under uniform placement (``prior`` pseudo-counts keep every entry positive); 1
    outside the zone.  ``None`` when no human setups exist for the variant.

    Source: the shipped pool of distinct Gravon setups (``env.setups.human_pool``), all in Red's
    frame; Blue's squares are the same rotated by 180 degrees.
    """
    from ..env.setups import human_pool

    try:
        setups = human_pool(variant).setups
    except ValueError:
        return None
    zone = np.asarray(variant.deploy_squares(0))
    counts = np.zeros((100, NUM_TYPES))
    for t in range(NUM_TYPES):
        counts[:, t] = (setups == t).sum(axis=0)
    share = counts[zone] + prior * np.asarray(variant.piece_counts) / len(zone)  # smoothed counts per square
    uniform = share.sum(axis=0) / len(zone)  # what each square would hold with every setup equally likely
    weights = np.ones((100, NUM_TYPES))
    present = uniform > 0
    weights[np.ix_(zone, present)] = share[:, present] / uniform[present]
    return weights if player == 0 else weights[::-1].copy()


def sampler_belief(public: np.ndarray, variant: Variant | str) -> np.ndarray:
    """``float64[N, 100, 12]``: the heuristic sampler's belief: ``public`` (``nn.belief.public_belief``, in
    the player's frame) times the human setup statistics on the pieces that have not moved, renormalised.

    A hidden piece that has moved is one whose public Flag probability is 0 (a Flag never moves, and
    the opponent always has its Flag while the game goes on).  In the player's frame the opponent
    deploys in rows 6-9, as Blue does on the board (``deployment_weights(variant, 1)``).
    """
    weights = deployment_weights(get_variant(variant), 1)
    if weights is None:
        return np.asarray(public, np.float64)
    still = public[:, :, FLAG] > 0
    tilted = np.where(still[:, :, None], public * weights[None], public)
    total = tilted.sum(axis=2, keepdims=True)
    return np.divide(tilted, total, out=np.zeros_like(tilted), where=total > 0)
