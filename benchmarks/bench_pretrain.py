"""Behaviour-cloning throughput: the human-decision stream alone, and whole updates per network preset.

Prints decisions per second of ``train.human.HumanDecisions`` (replaying
Gravon games through ``VectorEnv`` and encoding every decision, shuffled as
``deepnash pretrain`` does) and, per preset, decisions per second of training
(stream plus one ``bc_update`` per batch, mirroring on).

    python benchmarks/bench_pretrain.py                       # the first archive of the default Gravon folder, tiny and small
    python benchmarks/bench_pretrain.py --records DIR --preset paper --device cuda --json
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from deepnash.nn import DeepNashNet, get_preset
from deepnash.archives import default_archive_dir
from deepnash.train.human import HumanDecisions, load_games
from deepnash.train.pretrain import PretrainConfig, bc_update


def stream_rate(games, variant: str, batch_size: int, seconds: float) -> float:
    stream = iter(HumanDecisions(games, variant, batch_size=batch_size, slots=128, buffer=16384, epochs=None))
    next(stream)  # compiles the kernels
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        n += len(next(stream))
    return n / (time.perf_counter() - t0)


def train_rate(games, variant: str, preset: str, device: str, batch_size: int, seconds: float) -> float:
    cfg = PretrainConfig(net=preset, variant=variant, batch_size=batch_size)
    net = DeepNashNet(get_preset(preset)).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    stream = iter(HumanDecisions(games, variant, batch_size=batch_size, slots=cfg.slots, buffer=cfg.buffer,
                                 epochs=None))
    bc_update(net, opt, next(stream), cfg, torch.device(device))  # warm-up
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        batch = next(stream)
        bc_update(net, opt, batch, cfg, torch.device(device))
        n += len(batch)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default=None, help="Gravon records (default: the first archive of the default Gravon folder)")
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--preset", action="append", help="tiny, small, paper (repeatable; default tiny and small)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    records = a.records or sorted(default_archive_dir().glob("*.zip"))[0]
    games = load_games(records, a.variant)
    device = torch.cuda.get_device_name() if a.device.startswith("cuda") else f"cpu ({a.threads} thread)"
    result = {"device": device, "variant": a.variant, "games": len(games), "batch_size": a.batch_size,
              "stream_decisions_per_s": stream_rate(games, a.variant, a.batch_size, a.seconds),
              "train_decisions_per_s": {p: train_rate(games, a.variant, p, a.device, a.batch_size, a.seconds)
                                        for p in a.preset or ["tiny", "small"]}}
    if a.json:
        print(json.dumps(result))
        return
    print(f"device: {device}; {len(games)} {a.variant} games from {records}")
    print(f"stream alone: {result['stream_decisions_per_s']:,.0f} decisions/s")
    for p, r in result["train_decisions_per_s"].items():
        print(f"{p:>6}: training {r:,.0f} decisions/s ({r / a.batch_size:.1f} updates/s)")


if __name__ == "__main__":
    main()
