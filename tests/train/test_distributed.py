"""Data parallelism: two learner processes (gloo, localhost) keep identical parameters while playing different games."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import replace

import torch
import torch.multiprocessing as mp

from deepnash.train.config import train_preset


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank(rank: int, world: int, port: int, out: str, results: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(world), RANK=str(rank),
                      LOCAL_RANK=str(rank))
    torch.set_num_threads(1)
    from deepnash.train.loop import train

    cfg = replace(train_preset("tiny"), envs=2, batch_games=2, max_steps=30, eval_games=0, checkpoint_minutes=100)
    summary = train(cfg, out, steps=5, progress=False)
    with open(os.path.join(results, f"rank{rank}.json"), "w") as f:
        json.dump(summary, f)


def test_two_gloo_learners_stay_in_sync(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    mp.spawn(_rank, args=(2, _free_port(), str(tmp_path / "run"), str(results)), nprocs=2, join=True)
    s0, s1 = (json.loads((results / f"rank{r}.json").read_text()) for r in (0, 1))
    assert s0["world_size"] == s1["world_size"] == 2
    assert s0["learner_step"] == s1["learner_step"] == 5
    assert s0["params_sha256"] == s1["params_sha256"]
    # Each rank played its own games (different seeds): without the all-reduce the parameters would differ.
    assert s0["env_steps"] == s1["env_steps"] and s0["games"] == 2 * 2 * 5
