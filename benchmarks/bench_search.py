"""What the belief-sampled search costs per move, for each network preset, on one CPU thread.

Usage: ``python benchmarks/bench_search.py [--presets tiny,small] [--variant barrage] [--positions 8]
[--samples 8] [--depth 6] [--candidates 6] [--precision auto] [--json]``

For positions taken from games of the random bot (after 10 to 80 moves), one search round (K
determinisations x M candidates, each played ``depth`` moves on by the network for both sides,
then scored by the value head) is timed per preset with a randomly initialised network (the
cost does not depend on the weights).  It prints the number format the rollouts ran in
(``auto``: bfloat16 only on CPUs with oneDNN's bfloat16 kernels, so figures from two machines
compare only in the same format), the milliseconds per round, the network rows per round and per
second, and how many samples per candidate fit in a budget of 0.5, 1 and 2 seconds a move.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from deepnash.agents import PlayerView
from deepnash.agents.network_agent import NetworkAgent, rollout_dtype
from deepnash.game import Game, get_variant
from deepnash.infostate.view import push_recorded
from deepnash.nn import DeepNashNet, get_preset
from deepnash.testtime.search import PRECISIONS, SearchConfig


def positions(variant: str, count: int) -> list[PlayerView]:
    """Views of the player to move after 10..80 random moves (games that last that long)."""
    rng = np.random.default_rng(0)
    out, seed = [], 0
    while len(out) < count:
        game, history = Game(get_variant(variant), seed=seed), []
        seed += 1
        for _ in range(int(rng.integers(10, 81))):
            if game.is_over():
                break
            moves = game.legal_moves()
            history.append(push_recorded(game, moves[int(rng.integers(len(moves)))]))
        if not game.is_over():
            out.append(PlayerView.of(game, game.turn, tuple(history)))
    return out


def run(preset: str, views: list[PlayerView], config: SearchConfig) -> dict:
    torch.manual_seed(0)
    agent = NetworkAgent(DeepNashNet(get_preset(preset)), search=config)
    rows = [0]

    def counted(fn):  # every network row the search asks for, policy heads or value head
        def call(obs, *follows):
            rows[0] += len(obs)
            return fn(obs, *follows)
        return call

    search = agent.search  # its rollouts run the agent's rollout network (``precision``)
    search.logits_fn, search.value_fn = counted(search.logits_fn), counted(search.value_fn)
    rng = np.random.default_rng(0)
    seconds = 0.0
    for view in views:
        search.reset(view.variant, view.player)
        prior = {m: 1 / len(view.legal_moves) for m in view.legal_moves}
        search.run(view, prior, rng)  # warm-up: builds the rollout batch
        start = time.perf_counter()
        search.run(view, prior, rng)
        seconds += time.perf_counter() - start
    per_round = seconds / len(views)
    network_rows = rows[0] / (2 * len(views))
    return {"ms_per_round": 1000 * per_round, "network_rows_per_round": network_rows,
            "network_rows_per_s": network_rows / per_round,
            "samples_per_candidate": {str(b): config.samples * max(1, int(b / per_round)) for b in (0.5, 1, 2)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="tiny,small")
    ap.add_argument("--variant", default="barrage")
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--samples", type=int, default=SearchConfig.samples)
    ap.add_argument("--depth", type=int, default=SearchConfig.depth)
    ap.add_argument("--candidates", type=int, default=SearchConfig.candidates)
    ap.add_argument("--precision", default=SearchConfig.precision, choices=PRECISIONS,
                    help="the rollouts' number format (auto: bfloat16 where oneDNN supports it)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    torch.set_num_threads(1)
    config = SearchConfig(samples=args.samples, depth=args.depth, candidates=args.candidates, rounds=1,
                          precision=args.precision)
    views = positions(args.variant, args.positions)
    out = {"variant": args.variant, "positions": len(views), "samples": args.samples, "depth": args.depth,
           "candidates": args.candidates, "precision": args.precision,
           "rollout_dtype": str(rollout_dtype(args.precision)).removeprefix("torch."),
           "results": {p: run(p, views, config) for p in args.presets.split(",")}}
    if args.json:
        print(json.dumps(out))
        return
    print(f"search rounds of {args.samples} samples x {args.candidates} candidates, depth {args.depth}, "
          f"{args.variant}, {len(views)} positions, one thread, rollouts in {out['rollout_dtype']} "
          f"(precision={args.precision})")
    for p, r in out["results"].items():
        fits = ", ".join(f"{b} s: {n}" for b, n in r["samples_per_candidate"].items())
        print(f"  {p:6s} {r['ms_per_round']:8.1f} ms/round  {r['network_rows_per_round']:6.0f} network rows/round "
              f"({r['network_rows_per_s']:7.0f}/s)  samples per candidate within {fits}")


if __name__ == "__main__":
    main()
