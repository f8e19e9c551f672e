"""Adam whose every update element is clipped (the paper's optimiser).

Source: DeepNash (arXiv) Table 3 (Adam b1 = 0, b2 = 0.999, eps = 1e-8,
learning rate 5e-5, c_clip_gradient = 10000); ``docs/rnad.md`` §4.
The update of a parameter is ``clip(-lr * m_hat / (sqrt(v_hat) + eps), -clip, clip)``
with the usual bias-corrected moments m_hat, v_hat.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from .config import AdamConfig


def load_moments(optimizer: torch.optim.Optimizer, state: dict) -> None:
    """``optimizer.load_state_dict(state)`` keeping the optimiser's own hyperparameters (learning rate, betas,
    eps, ...: its constructor's ``defaults``) instead of the saved ones, so a resumed run can change them
    (``train --resume DIR --lr X``, ``pretrain --resume``); the moments and step counts come from ``state``."""
    optimizer.load_state_dict(state)
    for group in optimizer.param_groups:
        group.update(optimizer.defaults)


class ClippedAdam(torch.optim.Optimizer):
    """Adam with element-wise clipping of the final update; state saved by ``state_dict()``."""

    def __init__(self, params: Iterable[torch.Tensor], config: AdamConfig) -> None:
        defaults = dict(lr=config.learning_rate, b1=config.b1, b2=config.b2, eps=config.eps, clip=config.clip)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):  # noqa: D102 - torch.optim.Optimizer API
        if closure is not None:
            raise ValueError("ClippedAdam.step: closures are not supported")
        for group in self.param_groups:
            lr, b1, b2, eps, clip = group["lr"], group["b1"], group["b2"], group["eps"], group["clip"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = torch.zeros((), dtype=torch.float64)
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["step"] += 1
                step = float(state["step"])
                m, v, g = state["m"], state["v"], p.grad
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                m_hat = m / (1 - b1 ** step)
                v_hat = v / (1 - b2 ** step)
                update = (-lr * m_hat / (v_hat.sqrt() + eps)).clamp_(-clip, clip)
                p.add_(update)
        return None
