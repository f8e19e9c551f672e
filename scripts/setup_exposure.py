"""How findable the Flag of each setup pool is before a piece moves, as a reasoning opponent reads it.

Usage: ``python scripts/setup_exposure.py [--variant classic] [--setups 300] [--seed 0] [--json]``

For ``--setups`` setups drawn from each people's pool (``env.setups.PEOPLE_POOLS``: ``human``, ``walled``,
``sheltered``) played as Red against a random Blue, the Flag odds of ``infostate.tracking`` on Blue's view at
ply 0 (where people hide the Flag, nothing yet revealed): the mean and median probability of the true Flag, and
how often it is Blue's likeliest piece or among its three likeliest.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from deepnash.env.setups import PEOPLE_POOLS
from deepnash.game import Game, get_variant, random_deployment
from deepnash.game.pieces import FLAG
from deepnash.infostate.tracking import flag_odds, possible_types
from deepnash.infostate.view import PlayerView


def exposure(pool: str, variant, n: int, rng: np.random.Generator) -> dict:
    """The true Flag's probability and rank under Blue's Flag odds at ply 0, over ``n`` setups of ``pool``."""
    setups = PEOPLE_POOLS[pool](variant).setups
    p, rank = [], []
    for i in rng.choice(len(setups), min(n, len(setups)), replace=False):
        red = setups[i]
        view = PlayerView.of(Game(variant, red.copy(), random_deployment(variant, 1, rng)), 1, ())
        odds = flag_odds(view, possible_types(view))
        flag = int(np.flatnonzero(red == FLAG)[0])
        p.append(odds[flag])
        rank.append(1 + int((odds > odds[flag]).sum()))
    p, rank = np.array(p), np.array(rank)
    return {"setups": len(p), "pool": len(setups), "mean_p": float(p.mean()), "median_p": float(np.median(p)),
            "likeliest": float(np.mean(rank == 1)), "top3": float(np.mean(rank <= 3))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--setups", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    variant, rng = get_variant(args.variant), np.random.default_rng(args.seed)
    out = {}
    for pool in PEOPLE_POOLS:
        try:
            out[pool] = exposure(pool, variant, args.setups, rng)
        except ValueError as e:  # a pool the variant has no setups for (Barrage: walled)
            out[pool] = {"error": str(e)}
    if args.json:
        print(json.dumps(out))
        return
    for pool, row in out.items():
        if "error" in row:
            print(f"{pool:10} {row['error']}")
            continue
        print(f"{pool:10} {row['setups']} of {row['pool']} setups: P(true Flag) mean {row['mean_p']:.3f}, median "
              f"{row['median_p']:.3f}; the likeliest piece in {row['likeliest']:.0%}, among the three likeliest in "
              f"{row['top3']:.0%}")


if __name__ == "__main__":
    main()
