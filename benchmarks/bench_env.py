"""Agent steps per second of ``VectorEnv`` on one core, uniformly random legal actions.

Usage: ``python benchmarks/bench_env.py [--batch 1024] [--steps 2000] [--variant classic] [--json]``

An agent step is one action of one game (a deployment action, a select or a
displace); the figure counts B per ``step`` call and includes drawing the
random actions (a Numba kernel), with observations written (``steps_per_s_obs``)
and skipped (``steps_per_s_no_obs``).  Numba runs single-threaded; the figures
divide by the process's CPU time (one core's worth of work, whatever else the
machine runs); ``wall_steps_per_s_obs``/``..._no_obs`` divide by wall time.
"""

from __future__ import annotations

import argparse
import json
import time

from deepnash.env import VectorEnv


def measure(batch: int, steps: int, variant: str, observe: bool, seed: int = 0) -> tuple[float, float]:
    """Agent steps per CPU second and per wall second over ``steps`` calls of ``step`` after a warm-up."""
    env = VectorEnv(batch, variant, seed=seed, observe=observe)
    for _ in range(200):  # compile, and move past the deployment phase
        env.step(env.random_actions())
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        env.step(env.random_actions())
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return batch * steps / cpu, batch * steps / wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    obs = measure(args.batch, args.steps, args.variant, True)
    no_obs = measure(args.batch, args.steps, args.variant, False)
    res = {
        "variant": args.variant,
        "batch": args.batch,
        "steps": args.steps,
        "steps_per_s_obs": obs[0],
        "steps_per_s_no_obs": no_obs[0],
        "wall_steps_per_s_obs": obs[1],
        "wall_steps_per_s_no_obs": no_obs[1],
    }
    if args.json:
        print(json.dumps(res))
    else:
        print(f"VectorEnv {args.variant}, B={args.batch}, one core, random legal actions:")
        print("                        per CPU second   per wall second")
        print(f"  with observations:    {obs[0]:>14,.0f}   {obs[1]:>15,.0f}")
        print(f"  without observations: {no_obs[0]:>14,.0f}   {no_obs[1]:>15,.0f}")


if __name__ == "__main__":
    main()
