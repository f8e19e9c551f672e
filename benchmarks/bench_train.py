"""Self-play and learner throughput of each network preset.

Prints, per preset: self-play agent steps per second (one ``SelfPlay`` actor,
``--envs`` whole games at once, network calls included), trajectories (finished
games) per second of self-play (few games end in a short measurement), and R-NaD learner updates per second on batches of
``--batch-games`` games cut at ``--game-steps`` agent steps.

    python benchmarks/bench_train.py                 # tiny and small on CPU
    python benchmarks/bench_train.py --preset paper --device cuda --json
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import torch

from deepnash.nn import DeepNashNet
from deepnash.rnad import RNaDLearner
from deepnash.train.actor import SelfPlay
from deepnash.train.batch import to_trajectory
from deepnash.train.config import train_preset


def bench(preset: str, device: str, envs: int, batch_games: int, game_steps: int, seconds: float) -> dict:
    cfg = replace(train_preset(preset), envs=envs, max_steps=game_steps)
    torch.manual_seed(0)  # the same network, so the same games, in every run
    learner = RNaDLearner(lambda: DeepNashNet(cfg.net_config), cfg.rnad, device)
    cut = SelfPlay(learner.theta, cfg.variant, envs, seed=1, max_steps=game_steps, device=device)
    games = cut.play(batch_games)[:batch_games]  # the learner's batch; also warms up Numba and torch
    actor = SelfPlay(learner.theta, cfg.variant, envs, seed=0, device=device)  # whole games
    t0, steps0, n_games = time.perf_counter(), actor.env_steps, 0
    while time.perf_counter() - t0 < seconds:
        n_games += len(actor.step())
    dt = time.perf_counter() - t0
    sps, tps = (actor.env_steps - steps0) / dt, n_games / dt
    traj = to_trajectory(games)
    learner.step(traj, cfg.chunk)
    t0, updates = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        learner.step(traj, cfg.chunk)
        updates += 1
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    ups = updates / (time.perf_counter() - t0)
    return {"selfplay_steps_per_s": sps, "trajectories_per_s": tps, "learner_updates_per_s": ups,
            "learner_steps_per_s": ups * int(traj.valid.sum()), "envs": envs, "batch_games": batch_games,
            "game_steps": game_steps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", action="append", help="tiny, small, paper (repeatable; default tiny and small)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--envs", type=int, default=32, help="games per actor")
    ap.add_argument("--batch-games", type=int, default=8, help="games per learner update")
    ap.add_argument("--game-steps", type=int, default=256, help="agent steps per game (cut) in the learner batch")
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    presets = a.preset or ["tiny", "small"]
    device = torch.cuda.get_device_name() if a.device.startswith("cuda") else f"cpu ({a.threads} thread)"
    results = {p: bench(p, a.device, a.envs, a.batch_games, a.game_steps, a.seconds) for p in presets}
    if a.json:
        print(json.dumps({"device": device, **results}))
        return
    print(f"device: {device}")
    for p, r in results.items():
        print(f"{p:>6}: self-play {r['selfplay_steps_per_s']:,.0f} agent steps/s, "
              f"{r['trajectories_per_s']:.2f} games/s; learner {r['learner_updates_per_s']:.3f} updates/s "
              f"({r['learner_steps_per_s']:,.0f} trajectory steps/s)")


if __name__ == "__main__":
    main()
