"""How sharp a network's policy is against NeuRD's logit band, on its own self-play positions.

NeuRD moves a legal-mean-centred logit ``z(a)`` only inside ``[-beta, beta]``, except back
towards it (``docs/rnad.md`` §4.3), so R-NaD flattens a policy whose logits lie outside the
band.  This plays ``--games`` self-play games of the network (``train.actor.SelfPlay``, the
positions R-NaD trains on) and prints, over the decisions with more than one legal action:
the policy's mean entropy (nats), quantiles of the most probable action's ``z``, and for each
``--beta`` the share of decisions whose top ``z`` exceeds it and the probability on actions
outside the band (``rnad.losses.outside_band_mass``).  The Classic TRAINING.md quotes:

    python scripts/neurd_band.py src/deepnash/data/shipped/classic --variant classic
    python scripts/neurd_band.py runs/classic-rl-cpu --weights target --variant classic

NETWORK is a run, checkpoint or exported agent directory.
"""

from __future__ import annotations

import argparse
import json
import sys

import torch

from deepnash.agents.network_agent import load_network
from deepnash.rnad.losses import centred_logits, legal_log_softmax, outside_band_mass
from deepnash.train.actor import SelfPlay
from deepnash.train.batch import to_trajectory


def band_report(net: torch.nn.Module, variant: str, games: int, seed: int, betas: list[float]) -> dict:
    """The figures above for ``games`` self-play games of ``net`` (an eval-mode ``DeepNashNet``)."""
    with torch.no_grad():
        traj = to_trajectory(SelfPlay(net, variant, games, seed=seed).play(games))
        keep = traj.valid & (traj.legal.sum(-1) > 1)  # [T, B]: a real choice
        obs, legal = traj.observation[keep].float(), traj.legal[keep]
        logits = torch.cat([net.logits(obs[i:i + 4096]) for i in range(0, len(obs), 4096)])
        pi, log_pi = legal_log_softmax(logits, legal)
        top_z = centred_logits(logits, legal).masked_fill(~legal, float("-inf")).amax(-1)
        ones = torch.ones(len(obs))
        quantiles = (0.1, 0.5, 0.9, 0.99)
        return {
            "decisions": len(obs),
            "entropy": float(-(pi * log_pi).sum(-1).mean()),
            "top_z_quantiles": {str(q): float(top_z.quantile(q)) for q in quantiles},
            "bands": {str(b): {"top_z_above": float((top_z > b).float().mean()),
                               "outside_mass": outside_band_mass(pi, logits, legal, ones, b)} for b in betas},
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("network", help="run/checkpoint/agent directory")
    parser.add_argument("--variant", default="barrage")
    parser.add_argument("--weights", default="online", choices=("online", "target"))
    parser.add_argument("--games", type=int, default=16, help="self-play games (default 16)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--beta", type=float, nargs="+", default=[2.0, 6.0], help="band half-widths (default 2 6)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        net, _ = load_network(args.network, args.weights)
    except ValueError as e:  # CheckpointError is one
        print(f"neurd_band: {e}", file=sys.stderr)
        return 2
    r = band_report(net.eval(), args.variant, args.games, args.seed, args.beta)
    if args.json:
        print(json.dumps(r))
        return 0
    q = r["top_z_quantiles"]
    print(f"{args.network} ({args.weights}), {args.variant}: {r['decisions']} decisions in {args.games} self-play "
          f"games, entropy {r['entropy']:.3f} nats")
    print("top centred logit, quantiles " + ", ".join(f"{k}: {v:.2f}" for k, v in q.items()))
    for b, f in r["bands"].items():
        print(f"beta {b}: top z above it on {100 * f['top_z_above']:.1f}% of decisions; "
              f"{100 * f['outside_mass']:.1f}% of the probability outside the band")
    return 0


if __name__ == "__main__":
    sys.exit(main())
