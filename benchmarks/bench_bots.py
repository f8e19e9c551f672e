"""Decisions per second of each bot (issue 6).

Collects positions from uniformly random games (every ``--stride``-th position
of each game, both players), then times ``agent.act`` on each position for
every agent spec, one core, after one warm-up decision (Numba compile time
excluded).

    python benchmarks/bench_bots.py                              # a table
    python benchmarks/bench_bots.py --variant barrage --json     # one JSON object
    python benchmarks/bench_bots.py --agents greedy mcts:sims=50

JSON keys: ``variant``, ``positions``, ``seed``, ``bots``: a list of objects with
``agent``, ``decisions_per_s``, ``ms_per_decision``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from deepnash.agents import PlayerView
from deepnash.agents.registry import make_agent
from deepnash.game import Game, get_variant
from deepnash.infostate.view import push_recorded

DEFAULT_AGENTS = ["random", "greedy", "cautious", "montecarlo", "mcts"]


def positions(variant, count: int, stride: int, seed: int) -> list[PlayerView]:
    """``count`` views of the player to move, from random games."""
    rng = np.random.default_rng(seed)
    out: list[PlayerView] = []
    while len(out) < count:
        g = Game(variant, seed=int(rng.integers(2**31)))
        history = []
        while not g.is_over() and len(out) < count:
            if g.ply % stride == stride - 1:
                out.append(PlayerView.of(g, g.turn, tuple(history)))
            moves = g.legal_moves()
            history.append(push_recorded(g, moves[int(rng.integers(len(moves)))]))
    return out


def time_agent(spec: str, views: list[PlayerView], variant, seed: int) -> float:
    """Seconds per decision of ``spec`` over ``views``."""
    agent = make_agent(spec)
    agent.reset(variant, views[0].player, seed)
    agent.act(views[0])  # warm-up: Numba kernels load or compile
    start = time.perf_counter()
    for v in views:
        agent.reset(variant, v.player, seed)
        agent.act(v)
    return (time.perf_counter() - start) / len(views)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", nargs="+", default=DEFAULT_AGENTS, help="agent specs to time")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--stride", type=int, default=7, help="keep every stride-th position of a game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    variant = get_variant(args.variant)
    views = positions(variant, args.positions, args.stride, args.seed)
    bots = []
    for spec in args.agents:
        s = time_agent(spec, views, variant, args.seed)
        bots.append({"agent": spec, "decisions_per_s": 1.0 / s, "ms_per_decision": 1000.0 * s})
    if args.json:
        print(json.dumps({"variant": variant.name, "positions": len(views), "seed": args.seed, "bots": bots}))
        return
    print(f"{variant.name}, {len(views)} positions from random games, one core")
    print(f"{'agent':<28}{'decisions/s':>14}{'ms/decision':>14}")
    for b in bots:
        print(f"{b['agent']:<28}{b['decisions_per_s']:>14.1f}{b['ms_per_decision']:>14.2f}")


if __name__ == "__main__":
    main()
