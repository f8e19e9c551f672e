"""How much a network's value head knows about its own self-play games.

The network plays both sides of ``--games`` Barrage (or Classic) games with its raw policy, in one
``VectorEnv`` batch.  For every position the script keeps the value head's estimate, the material
balance (the player's pieces less the opponent's, read from the observation's planes) and the final
result for the player to move.  Then it prints, by how far the position is from the end of its game,
the correlation of each with the result, and the value head's mean squared error beside that of a
constant 0::

    python docs/journal/scripts/value_check.py shipped:barrage --games 400
    python docs/journal/scripts/value_check.py runs/barrage-vo --weights target --variant barrage

A value head whose values do not vary (standard deviation 0) is dead: its correlation is undefined
and printed as ``-``.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from deepnash.agents.network_agent import SHIPPED_DIR, load_network
from deepnash.env import VectorEnv
from deepnash.env.planes import P_PRIVATE, P_PUB_OPP
from deepnash.nn import masked_log_policy

#: Buckets of agent steps before the end of the game.
BUCKETS = ((1, 10), (10, 30), (30, 80), (80, 1_000_000))


def _corr(x: np.ndarray, y: np.ndarray) -> str:
    return "-" if x.std() == 0 or y.std() == 0 else f"{np.corrcoef(x, y)[0, 1]:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("network", help="a checkpoint or run directory, or shipped:VARIANT")
    ap.add_argument("--weights", default="online", help="online or target (default online)")
    ap.add_argument("--variant", default="barrage")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--batch", type=int, default=64, help="games played at once")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    path = SHIPPED_DIR / args.network.split(":", 1)[1] if args.network.startswith("shipped:") else args.network
    net, _ = load_network(path, args.weights)
    env = VectorEnv(args.batch, args.variant, seed=args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    open_games: list[list[tuple[int, float, float]]] = [[] for _ in range(args.batch)]
    rows: list[tuple[int, float, float, float]] = []  # steps to the end, value, material, result
    finished = 0
    while finished < args.games:
        obs, mask, player = env.observe()
        with torch.no_grad():
            logits, value = net(torch.from_numpy(obs))
            probs = masked_log_policy(logits, torch.from_numpy(mask)).exp()
        material = obs[:, P_PRIVATE:P_PRIVATE + 12].sum(axis=(1, 2, 3)) - obs[:, P_PUB_OPP:P_PUB_OPP + 12].sum(
            axis=(1, 2, 3))
        for b in range(args.batch):
            open_games[b].append((int(player[b]), float(value[b]), float(material[b])))
        rewards, done = env.step(torch.multinomial(probs, 1, generator=gen)[:, 0].numpy())
        for b in np.flatnonzero(done):
            n = len(open_games[b])
            rows += [(n - i, v, m, float(rewards[b, p])) for i, (p, v, m) in enumerate(open_games[b])]
            open_games[b] = []
            finished += 1
    steps, value, material, result = np.array(rows).T
    print(f"{finished} games, {len(rows)} positions; values: mean {value.mean():.3f}, "
          f"standard deviation {value.std():.3f}")
    print("steps to the end | positions | corr(value, result) | corr(material, result) | MSE value | MSE 0")
    for lo, hi in BUCKETS:
        m = (steps >= lo) & (steps < hi)
        print(f"{lo}-{hi if hi < 1_000_000 else '...'} | {m.sum()} | {_corr(value[m], result[m])} | "
              f"{_corr(material[m], result[m])} | {((value[m] - result[m]) ** 2).mean():.3f} | "
              f"{(result[m] ** 2).mean():.3f}")


if __name__ == "__main__":
    main()
