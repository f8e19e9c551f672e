"""Deployments for the bots: a simple human-like policy (Flag on the back row, walled in by Bombs).

The thesis seed (section 4.4.2) notes that most Gravon players put the Flag
on the back row; ``guarded_deployment`` does so and spends the Bombs on the
Flag's neighbours first, then places everything else uniformly at random.
"""

from __future__ import annotations

import numpy as np

from ..game import Variant
from ..game.pieces import BOMB, FLAG, NUM_TYPES


def guarded_deployment(variant: Variant, player: int, rng: np.random.Generator) -> np.ndarray:
    """A legal deployment ``int8[100]`` (type per square, -1 elsewhere) with the Flag on the back row.

    Bombs go first to the Flag's free neighbours inside the zone, remaining
    Bombs anywhere; the other pieces fill the zone uniformly at random.
    """
    zone = list(variant.deploy_squares(player))
    back = [sq for sq in zone if sq // 10 == (0 if player == 0 else 9)]
    out = np.full(100, -1, dtype=np.int8)
    flag = int(rng.choice(back))
    out[flag] = FLAG
    free = [sq for sq in zone if sq != flag]
    nbrs = [sq for sq in (flag - 1 if flag % 10 else -1, flag + 1 if flag % 10 != 9 else -1, flag + 10, flag - 10)
            if sq in free]
    rng.shuffle(nbrs)
    bombs = variant.piece_counts[BOMB]
    for sq in nbrs[:bombs]:
        out[sq] = BOMB
        free.remove(sq)
    rest = [BOMB] * (bombs - min(bombs, len(nbrs)))
    rest += [t for t in range(NUM_TYPES) if t not in (FLAG, BOMB) for _ in range(variant.piece_counts[t])]
    rest += [FLAG] * (variant.piece_counts[FLAG] - 1)
    chosen = rng.permutation(len(free))[: len(rest)]
    for i, t in zip(chosen, rest):
        out[free[i]] = t
    return out
