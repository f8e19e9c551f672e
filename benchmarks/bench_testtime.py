"""What the test-time layer costs per move: CPU time with each layer alone, value-bounds evaluations.

Usage: ``python benchmarks/bench_testtime.py [--games 4] [--repeat 3] [--network shipped|random|DIR]
[--preset tiny] [--variant barrage] [--max-moves 200] [--json]``

Plays the network agent against itself, first with every layer off, then
with each layer alone and with all of them, and reports CPU milliseconds per
move on one thread (both players' select and displace decisions, network
included; process CPU time, so other work on the machine does not count),
the value function's positions scored per move and the share of moves on
which value bounds changed the policy.  The same games are played
``--repeat`` times, the configurations taking turns, and the median of each
configuration's runs is reported (``cpu_ms_per_move``; every run in
``cpu_ms_per_move_runs``): a shared virtual machine's speed drifts by 20% or
more within minutes, and one run catches whatever the neighbours do.  ``--network shipped`` (the default)
plays the weights shipped for ``--variant``; ``--network random`` a randomly
initialised network of ``--preset``, whose near-uniform policy makes value
bounds look at every legal move, so its cost is an upper bound for that
preset and its share says nothing about a trained agent; a directory, the
network of that training run or checkpoint (``checkpoint:DIR``).  Games stop
after ``--max-moves`` moves.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from deepnash.agents.network_agent import SHIPPED_DIR, NetworkAgent, load_network
from deepnash.game import Game, get_variant
from deepnash.infostate.view import PlayerView, push_recorded
from deepnash.nn import PRESETS, DeepNashNet, get_preset
from deepnash.testtime import LAYERS, TestTimeConfig


def run(net: DeepNashNet, config: TestTimeConfig | None, variant: str, games: int, max_moves: int) -> dict:
    """Self-play with ``config`` (``None``: no layer at all); CPU ms per move and value-bounds counters."""
    agents = [NetworkAgent(net, testtime=config), NetworkAgent(net, testtime=config)]
    moves, cpu = 0, 0.0
    for seed in range(games):
        v = get_variant(variant)
        for p, a in enumerate(agents):
            a.reset(v, p, seed * 2 + p)
        game = Game(v, agents[0].choose_setup(), agents[1].choose_setup())
        history = []
        while not game.is_over() and game.ply < max_moves:
            p = game.turn
            view = PlayerView.of(game, p, tuple(history))
            start = time.process_time()
            move = agents[p].act(view)
            cpu += time.process_time() - start
            history.append(push_recorded(game, move))
            moves += 1
    stats = [a.testtime.stats for a in agents if a.testtime is not None]
    turns = sum(s.turns for s in stats)
    changed = sum(s.value_bounds_turns for s in stats)
    return {"moves": moves, "cpu_ms_per_move": 1000 * cpu / max(moves, 1),
            "value_evaluations_per_move": sum(s.evaluations for s in stats) / max(moves, 1),
            "value_bounds_share": changed / turns if turns else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration; the median is reported")
    ap.add_argument("--network", default="shipped", help="shipped, random, or a run or checkpoint directory")
    ap.add_argument("--preset", default="tiny", help="with --network random")
    ap.add_argument("--variant", default="barrage")
    ap.add_argument("--max-moves", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    if args.network == "random":
        net = DeepNashNet(get_preset(args.preset))
    else:
        net = load_network(SHIPPED_DIR / args.variant if args.network == "shipped" else args.network)[0]
        args.preset = next((n for n in PRESETS if get_preset(n) == net.config), "custom")
    configs: dict[str, TestTimeConfig | None] = {"none": None, "all_off": TestTimeConfig.all_off()}
    for layer in LAYERS:
        configs[f"only_{layer}"] = TestTimeConfig(**{name: name == layer for name in LAYERS})
    configs["all_on"] = TestTimeConfig()
    runs: dict[str, list[dict]] = {name: [] for name in configs}
    for _ in range(args.repeat):  # round robin: a slow spell of the machine hits every configuration alike
        for name, cfg in configs.items():
            runs[name].append(run(net, cfg, args.variant, args.games, args.max_moves))
    results = {}
    for name, rs in runs.items():
        times = [r["cpu_ms_per_move"] for r in rs]
        results[name] = {**rs[0], "cpu_ms_per_move": statistics.median(times), "cpu_ms_per_move_runs": times}
    out = {"network": args.network, "preset": args.preset, "variant": args.variant, "games": args.games,
           "repeat": args.repeat, "results": results}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.network} {args.preset} network, {args.variant}, {args.games} self-play games (at most "
          f"{args.max_moves} moves), median of {args.repeat} runs")
    for name, r in out["results"].items():
        spread = "-".join(f"{t:.1f}" for t in (min(r["cpu_ms_per_move_runs"]), max(r["cpu_ms_per_move_runs"])))
        print(f"  {name:20s} {r['cpu_ms_per_move']:8.1f} CPU ms/move ({spread})  {r['value_evaluations_per_move']:6.1f} "
              f"value evaluations/move  ({r['moves']} moves, value bounds changed "
              f"{100 * r['value_bounds_share']:.1f}% of turns)")


if __name__ == "__main__":
    main()
