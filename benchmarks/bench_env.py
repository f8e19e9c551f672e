"""Agent steps per second of ``VectorEnv`` on one core, uniformly random legal actions.

Usage: ``python benchmarks/bench_env.py [--batch 1024] [--steps 2000] [--variant classic] [--json]``

An agent step is one action of one game (a deployment action, a select or a
displace); the figure counts B per ``step`` call and includes drawing the
random actions (a Numba kernel), with observations written (``steps_per_s_obs``)
and skipped (``steps_per_s_no_obs``).  Numba runs single-threaded.
"""

from __future__ import annotations

import argparse
import json
import time

from deepnash.env import VectorEnv


def measure(batch: int, steps: int, variant: str, observe: bool, seed: int = 0) -> float:
    """Agent steps per second over ``steps`` calls of ``step`` after a warm-up."""
    env = VectorEnv(batch, variant, seed=seed, observe=observe)
    for _ in range(200):  # compile, and move past the deployment phase
        env.step(env.random_actions())
    start = time.perf_counter()
    for _ in range(steps):
        env.step(env.random_actions())
    return batch * steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    res = {
        "variant": args.variant,
        "batch": args.batch,
        "steps": args.steps,
        "steps_per_s_obs": measure(args.batch, args.steps, args.variant, True),
        "steps_per_s_no_obs": measure(args.batch, args.steps, args.variant, False),
    }
    if args.json:
        print(json.dumps(res))
    else:
        print(f"VectorEnv {args.variant}, B={args.batch}, one core, random legal actions:")
        print(f"  with observations:    {res['steps_per_s_obs']:>12,.0f} agent steps/s")
        print(f"  without observations: {res['steps_per_s_no_obs']:>12,.0f} agent steps/s")


if __name__ == "__main__":
    main()
