"""Does reading the value over the board's mirror help?  A network's value on people's games, read on each
position alone and as the mean over the position and its left-to-right mirror (``NetConfig.mirror_value``).

It scores ``value-check``'s held-out games (its split and order) and, as a check that the gain is no accident of
those games, the last ``--fitted`` games of the other side of the split (the games the value was fitted on), by
moves to the end.  For each set: both reads' Brier scores, and the mirrored read's less the plain one's with a 95%
interval from a paired bootstrap over games (``train.value_check.brier_gap``).  ``docs/journal/value-and-belief.md``, "A value read
on the board and its mirror"::

    python docs/journal/scripts/mirror_value.py shipped:classic ../shared/data/gravon --variant classic [--json]
    python docs/journal/scripts/mirror_value.py shipped:barrage ../shared/data/gravon --variant barrage
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np
import torch

from deepnash.agents.registry import make_agent
from deepnash.nn import DeepNashNet
from deepnash.train.human import load_games, split_games
from deepnash.train.value_check import BUCKETS, brier_gap, positions


def with_mirror(net: DeepNashNet, mirror: bool) -> DeepNashNet:
    """``net``'s weights under a configuration whose ``mirror_value`` is ``mirror``."""
    out = DeepNashNet(dataclasses.replace(net.config, mirror_value=mirror)).eval()
    out.load_state_dict(net.state_dict())
    return out


def compare(net: DeepNashNet, games: list, variant: str) -> dict:
    """Per bucket and over all: ``n``, ``plain`` and ``mirror`` Brier scores, ``gap`` ``[gap, low, high]``."""
    plain = positions(games, variant, with_mirror(net, False))
    mirror = positions(games, variant, with_mirror(net, True))
    won, game, to_end = plain["won"], plain["game"], plain["to_end"]
    out = {}
    for name, lo, hi in (*BUCKETS, ("all", 0, np.inf)):
        s = (to_end >= lo) & (to_end < hi)
        if not s.any():
            continue
        p, q = mirror["p_win"][s], plain["p_win"][s]
        out[name] = {"n": int(s.sum()), "plain": float(np.mean((q - won[s]) ** 2)),
                     "mirror": float(np.mean((p - won[s]) ** 2)), "gap": list(brier_gap(p, q, won[s], game[s]))}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="a network agent spec: shipped:classic, checkpoint:DIR ...")
    ap.add_argument("records", nargs="+", help="Gravon .xml files, .zip archives or folders")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--held-out", type=float, default=0.05)
    ap.add_argument("--games", type=int, default=200, help="held-out games scored")
    ap.add_argument("--fitted", type=int, default=300, help="fitted games scored")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    net = make_agent(args.agent).net
    fitted, held = (sorted(part, key=lambda g: g.key) for part in split_games(load_games(args.records, args.variant),
                                                                             args.held_out))
    result = {"held_out": compare(net, held[:args.games], args.variant),
              "fitted": compare(net, fitted[-args.fitted:], args.variant)}
    if args.json:
        print(json.dumps(result))
        return
    for part, rows in result.items():
        print(f"{part}: Brier on the position alone, over the mirror, and their difference [95% over games]")
        for name, r in rows.items():
            gap, low, high = r["gap"]
            print(f"  {name:<8} {r['n']:>7,}  {r['plain']:.4f}  {r['mirror']:.4f}  "
                  f"{gap:+.4f} [{low:+.4f}, {high:+.4f}]")


if __name__ == "__main__":
    main()
