"""A small policy-value MLP for vector observations (the small-game network; not Stratego's)."""

from __future__ import annotations

import torch
from torch import nn


class PolicyValueMLP(nn.Module):
    """``x [N, D] -> (logits [N, A], value [N])`` with a shared ReLU torso.

    Args:
        input_size: D.
        num_actions: A.
        hidden: widths of the hidden layers.
    """

    def __init__(self, input_size: int, num_actions: int, hidden: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        if input_size < 1 or num_actions < 1 or any(h < 1 for h in hidden):
            raise ValueError(f"PolicyValueMLP: sizes must be >= 1, got input_size={input_size}, "
                             f"num_actions={num_actions}, hidden={hidden}")
        layers: list[nn.Module] = []
        width = input_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.torso = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, num_actions)
        self.value_head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # noqa: D102
        h = self.torso(x)
        return self.policy_head(h), self.value_head(h)[:, 0]
