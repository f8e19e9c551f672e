"""Data parallelism with ``torch.distributed``: one learner process per rank, gradients averaged every step.

Launch with ``torchrun --nproc-per-node N -m deepnash.cli train ...`` (or across
machines with ``--nnodes``/``--rdzv-endpoint``); without torchrun's environment
variables the run is a single process.  Source: ``docs/rnad.md`` §7 (the paper's
data-parallel learner).  Backend: NCCL on CUDA, gloo on CPU.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import nn


@dataclass(frozen=True)
class Rank:
    """This process's place in the job: ``rank`` of ``world`` processes (0 of 1 when not distributed)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        """Rank 0 writes checkpoints and logs and plays the evaluation games."""
        return self.rank == 0


def init(device: torch.device) -> Rank:
    """Join the process group described by torchrun's environment (``WORLD_SIZE``, ``RANK``...), if any."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Rank()
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return Rank(dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", "0")))


def average_gradients(module: nn.Module, world: int) -> None:
    """All-reduce the mean of ``module``'s gradients in place (missing gradients count as zero)."""
    if world <= 1:
        return
    params = [p for p in module.parameters() if p.requires_grad]
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    dist.all_reduce(flat)
    flat /= world
    offset = 0
    for p in params:
        n = p.numel()
        p.grad.copy_(flat[offset:offset + n].view_as(p))
        offset += n


def broadcast_modules(modules: list[nn.Module], world: int) -> None:
    """Give every rank rank 0's parameters and buffers."""
    if world <= 1:
        return
    for m in modules:
        for t in list(m.parameters()) + list(m.buffers()):
            dist.broadcast(t.data, 0)


def any_rank(flag: bool, world: int, device: torch.device) -> bool:
    """True on every rank if ``flag`` is True on any rank (keeps the ranks' loops in step)."""
    if world <= 1:
        return flag
    t = torch.tensor([float(flag)], device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item() > 0)


def shutdown() -> None:
    """Leave the process group, if one was joined, once every rank has reached this point.

    Without the barrier a rank that finishes first tears down its connections while
    rank 0 is still writing the last checkpoint; gloo then aborted that rank
    ("terminate called without an active exception") in one CI run.
    """
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
