"""What solving the races to the Flag exactly costs per move (``SearchConfig.hold``), on one CPU thread.

Usage: ``python benchmarks/bench_raid_solve.py [--variant classic] [--games 4] [--plies 600] [--json]``

Plays games of the ``cautious`` bot against ``greedy`` (both raid unmoved pieces, so races to the Flag
come up) and times ``raid_solve.unguarding_moves`` over every legal move at each of the first player's
decisions.  It prints the milliseconds per decision (mean, median, 95th percentile, most), the raiders
raced per decision, and the share of decisions where ``hold`` drops a move.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from deepnash.agents.registry import make_agent
from deepnash.game import Game, get_variant
from deepnash.infostate.view import PlayerView
from deepnash.testtime.raid_solve import forced_raids, unguarding_moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--plies", type=int, default=600, help="the most plies a game is played")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    variant = get_variant(args.variant)
    times, raiders, drops = [], [], 0
    warm = PlayerView.of(Game(variant, seed=0), 0)
    unguarding_moves(warm, warm.legal_moves)  # compiles the kernels
    for seed in range(args.games):
        game = Game(variant, seed=seed)
        bots = [make_agent("cautious"), make_agent("greedy")]
        for player, bot in enumerate(bots):
            bot.reset(variant, player, seed=seed)
        while not game.is_over() and game.ply < args.plies:
            view = PlayerView.of(game, game.turn)
            if game.turn == 0:
                start = time.perf_counter()
                dropped = unguarding_moves(view, view.legal_moves)
                times.append(1000 * (time.perf_counter() - start))
                raiders.append(len(forced_raids(view, view.legal_moves)[0]))
                drops += bool(dropped)
            game.push(bots[game.turn].act(view))
    ms = np.array(times)
    result = {"variant": args.variant, "decisions": len(ms), "ms_mean": float(ms.mean()),
              "ms_median": float(np.median(ms)), "ms_p95": float(np.quantile(ms, 0.95)), "ms_max": float(ms.max()),
              "raiders_mean": float(np.mean(raiders)), "drop_share": drops / len(ms)}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.variant}: {result['decisions']} decisions of {args.games} games (cautious against greedy)")
    print(f"unguarding_moves: {result['ms_mean']:.1f} ms a decision on average, median {result['ms_median']:.1f}, "
          f"95th percentile {result['ms_p95']:.1f}, most {result['ms_max']:.1f}")
    print(f"{result['raiders_mean']:.1f} raiders raced a decision; hold dropped a move at "
          f"{100 * result['drop_share']:.1f}% of them")


if __name__ == "__main__":
    main()
