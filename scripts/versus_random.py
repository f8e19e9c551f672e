"""A network's raw policy against the uniformly random bot, the yardstick of the training docs.

Plays ``--games`` games for each seed with ``deepnash.train.evaluate.versus_random`` (the network
samples its own policy and deploys with its own head; half the games as Red, half as Blue) and
prints the summed wins, draws and losses with the 95% Wilson interval of the win rate.  The
training docs quote 100 games for each of seeds 21 to 24:

    python scripts/versus_random.py runs/classic-rl-prior --weights target --variant classic
    python scripts/versus_random.py fresh:tiny --variant barrage      # an untrained network

NETWORK is a run, checkpoint or exported agent directory, or ``fresh:PRESET`` for an untrained
network of that preset (weights drawn after ``torch.manual_seed(--net-seed)``).
"""

from __future__ import annotations

import argparse
import json
import sys

import torch

from deepnash.agents.network_agent import load_network
from deepnash.arena.stats import wilson
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.evaluate import versus_random


def network(spec: str, weights: str, net_seed: int) -> DeepNashNet:
    """The network named by ``spec`` (a checkpoint directory or ``fresh:PRESET``), in eval mode.

    Raises:
        CheckpointError: the directory holds no readable checkpoint.
        ValueError: an unknown preset after ``fresh:``.
    """
    if spec.startswith("fresh:"):
        torch.manual_seed(net_seed)
        net = DeepNashNet(get_preset(spec.removeprefix("fresh:")))
    else:
        net, _ = load_network(spec, weights)
    return net.eval()


def score(net: DeepNashNet, variant: str, games: int, seeds: list[int]) -> dict:
    """Summed ``versus_random`` tallies over ``seeds`` (``games`` each), with ``win_rate`` and its ``wilson95``."""
    total = {"games": 0, "wins": 0, "draws": 0, "losses": 0}
    per_seed = {}
    for seed in seeds:
        r = versus_random(net, variant, games, seed=seed)
        per_seed[seed] = [r["wins"], r["draws"], r["losses"]]
        for key in total:
            total[key] += r[key]
    n = total["games"]
    total["win_rate"] = total["wins"] / n if n else 0.0
    total["wilson95"] = list(wilson(total["wins"], n))
    total["per_seed"] = per_seed
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("network", help="run/checkpoint/agent directory, or fresh:PRESET")
    parser.add_argument("--variant", default="barrage")
    parser.add_argument("--weights", default="online", choices=("online", "target"))
    parser.add_argument("--games", type=int, default=100, help="games per seed (default 100)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 22, 23, 24])
    parser.add_argument("--net-seed", type=int, default=0, help="torch seed of a fresh: network")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        net = network(args.network, args.weights, args.net_seed)
    except ValueError as e:  # CheckpointError is one
        print(f"versus_random: {e}", file=sys.stderr)
        return 2
    result = score(net, args.variant, args.games, args.seeds)
    if args.json:
        print(json.dumps(result))
    else:
        lo, hi = result["wilson95"]
        print(f"{args.network} ({args.weights}) vs random, {args.variant}, {result['games']} games: "
              f"{result['wins']}-{result['draws']}-{result['losses']}, "
              f"{100 * result['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
