"""How fast the sparring program searches, and how deep it gets in its time, on positions of people's games.

Usage: ``python benchmarks/bench_alphabeta.py [--variant classic] [--positions 24] [--seconds 0.3] [--json]``

The positions are fixed: the first games of the packaged January 2014 Classic archive (or, for Barrage,
of the packaged 2013-10 one), each replayed to plies 20, 60, 100 and 140 (those it reaches; up to two
more games' positions where one ends early), seen by the player to move.  For each the program
(``alphabeta:seconds=S``) decides once after a warm-up decision that compiles its kernels; the table
gives, over the positions, the nodes it searched per second (alpha-beta and quiescence nodes), the
depth of the last iteration it completed (mean, median, min, max: where every line soon ends
in a battle with a hidden piece, the iterations cost little and it reaches the cap of 58 plies), and the seconds a decision took.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from deepnash.agents import PlayerView, make_agent
from deepnash.archives.locate import packaged_archive_dir
from deepnash.game import Game, Move, get_variant
from deepnash.infostate.view import push_recorded
from deepnash.train.human import load_games

ARCHIVES = {"classic": "strados2014-0.zip", "barrage": "strados2013-10.zip"}
PLIES = (20, 60, 100, 140)


def positions(variant: str, count: int) -> list[PlayerView]:
    """``count`` views of people's games (module docstring), in a fixed order."""
    games = load_games(packaged_archive_dir() / ARCHIVES[variant], variant=variant)
    v = get_variant(variant)
    out: list[PlayerView] = []
    for g in games:
        game = Game(v, g.setup[0], g.setup[1][::-1])
        history = []
        for ply, (f, t) in enumerate(g.moves):
            if ply in PLIES and not game.is_over():
                out.append(PlayerView.of(game, game.turn, tuple(history)))
                if len(out) == count:
                    return out
            if game.is_over():
                break
            history.append(push_recorded(game, Move(int(f), int(t))))
    return out


def run(variant: str, count: int, seconds: float) -> dict:
    views = positions(variant, count)
    agent = make_agent(f"alphabeta:seconds={seconds}")
    agent.reset(views[0].variant, views[0].player, 0)
    agent.act(views[0])  # warm-up: loads or compiles the kernels
    depth, nodes, spent = [], [], []
    for view in views:
        agent.reset(view.variant, view.player, 0)
        start = time.perf_counter()
        agent.act(view)
        spent.append(time.perf_counter() - start)
        depth.append(agent.last["depth"])
        nodes.append(agent.last["nodes"])
    return {"variant": variant, "positions": len(views), "seconds_per_move": seconds,
            "nodes_per_s": float(np.sum(nodes) / np.sum(spent)), "depth_mean": float(np.mean(depth)),
            "depth_median": float(np.median(depth)),
            "depth_min": int(np.min(depth)), "depth_max": int(np.max(depth)),
            "nodes_per_move": float(np.mean(nodes)), "s_per_move": float(np.mean(spent))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="classic", choices=sorted(ARCHIVES))
    ap.add_argument("--positions", type=int, default=24)
    ap.add_argument("--seconds", type=float, default=0.3, help="time per move, as the spec's seconds=")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = ap.parse_args()
    result = run(args.variant, args.positions, args.seconds)
    if args.json:
        print(json.dumps(result))
        return
    print(f"alphabeta:seconds={args.seconds} on {result['positions']} positions of people's {args.variant} games")
    print(f"  nodes/s        {result['nodes_per_s']:12,.0f}")
    print(f"  nodes/move     {result['nodes_per_move']:12,.0f}")
    print(f"  depth reached  {result['depth_mean']:12.1f}  (median {result['depth_median']:.0f}, "
          f"min {result['depth_min']}, max {result['depth_max']})")
    print(f"  s/move         {result['s_per_move']:12.3f}")


if __name__ == "__main__":
    main()
