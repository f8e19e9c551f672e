"""How findable the Flag of each setup pool is, as a reasoning opponent and the belief network read it: before a
piece moves, and once the Bombs beside the Flag are revealed.

Usage: ``python scripts/setup_exposure.py [--variant classic] [--setups 300] [--seed 0] [--belief learned] [--json]``

For ``--setups`` setups drawn from each people's pool (``env.setups.PEOPLE_POOLS``: ``human``, ``walled``,
``sheltered``) played as Red against a random Blue, two readers of Blue's view give each Red piece its
probability of being the Flag: the Flag odds of ``infostate.tracking`` (where people hide the Flag, the public
Bombs beside it) and the belief network (``--belief``, as the search's ``belief`` option names it; its Flag
column over Red's pieces, normalised).  Each is read at ply 0 (``start``) and with every Bomb next to the Flag
revealed where it stands (``bombs``: what an opponent has learnt once it has hit them).  Per pool, stage and
reader: the mean and median probability of the true Flag, and how often it is the likeliest piece or among the
three likeliest.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from deepnash.env.setups import PEOPLE_POOLS
from deepnash.game import Game, get_variant, random_deployment
from deepnash.game import kernels as K
from deepnash.game.pieces import BOMB, FLAG
from deepnash.infostate.tracking import flag_odds, possible_types
from deepnash.infostate.view import PlayerView


def stages(variant, red: np.ndarray, blue: np.ndarray) -> dict[str, PlayerView]:
    """Blue's view at ply 0, and with Red's Bombs next to its Flag revealed."""
    game = Game(variant, red.copy(), blue)
    board, flags = game.state.board[0].copy(), game.state.flags[0].copy()
    flag = int(np.flatnonzero(red == FLAG)[0])
    beside = [int(nb) for nb in K.NEIGHBOUR[flag] if nb >= 0 and red[nb] == BOMB]
    flags[beside] |= K.REVEALED
    shown = Game.from_state(variant, board, flags, turn=0)
    return {"start": PlayerView.of(game, 1, ()), "bombs": PlayerView.of(shown, 1, ())}


def summary(p: list[float], rank: list[int]) -> dict:
    p_a, rank_a = np.array(p), np.array(rank)
    return {"mean_p": float(p_a.mean()), "median_p": float(np.median(p_a)), "likeliest": float(np.mean(rank_a == 1)),
            "top3": float(np.mean(rank_a <= 3))}


def exposure(pool: str, variant, n: int, rng: np.random.Generator, belief) -> dict:
    """The true Flag's probability and rank for each stage and reader, over ``n`` setups of ``pool``."""
    setups = PEOPLE_POOLS[pool](variant).setups
    seen: dict[tuple[str, str], tuple[list, list]] = {}
    for i in rng.choice(len(setups), min(n, len(setups)), replace=False):
        red = setups[i]
        flag = int(np.flatnonzero(red == FLAG)[0])
        for stage, view in stages(variant, red, random_deployment(variant, 1, rng)).items():
            readers = {"tracking": flag_odds(view, possible_types(view))}
            if belief is not None:
                q = np.where(view.owner == 0, belief.marginals(view)[:, FLAG], 0.0)
                readers["belief"] = q / q.sum()
            for reader, odds in readers.items():
                p, rank = seen.setdefault((stage, reader), ([], []))
                p.append(odds[flag])
                rank.append(1 + int((odds > odds[flag]).sum()))
    out: dict = {"setups": min(n, len(setups)), "pool": len(setups)}
    for (stage, reader), (p, rank) in seen.items():
        out.setdefault(stage, {})[reader] = summary(p, rank)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--setups", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--belief", default="learned", help="learned (the shipped belief network), a belief network's "
                                                        "directory, or none")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    variant, rng = get_variant(args.variant), np.random.default_rng(args.seed)
    belief = None
    if args.belief != "none":
        from deepnash.agents.network_agent import learned_belief

        belief = learned_belief(args.belief, variant.name)
    out = {}
    for pool in PEOPLE_POOLS:
        try:
            out[pool] = exposure(pool, variant, args.setups, rng, belief)
        except ValueError as e:  # a pool the variant has no setups for (Barrage: walled)
            out[pool] = {"error": str(e)}
    if args.json:
        print(json.dumps(out))
        return
    print("| pool | stage | reader | P(true Flag) mean | median | the likeliest | among three likeliest |")
    print("|---|---|---|---|---|---|---|")
    for pool, row in out.items():
        if "error" in row:
            print(f"| {pool} | {row['error']} | | | | | |")
            continue
        for stage in ("start", "bombs"):
            for reader, r in row[stage].items():
                print(f"| {pool} | {stage} | {reader} | {r['mean_p']:.3f} | {r['median_p']:.3f} | "
                      f"{r['likeliest']:.0%} | {r['top3']:.0%} |")


if __name__ == "__main__":
    main()
