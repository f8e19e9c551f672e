"""Policy projection: thresholding then discretisation (pure functions).

Source: DeepNash (arXiv) "Fine-tuning" and "Test-time" sections (eps_thres,
n_disc, Table 3 and Table 5); ``docs/rnad.md`` §6. The learner applies
``project`` to the policy v-trace uses once fine-tuning starts; the test-time
layer reuses the same functions with its own parameters.

All functions take probabilities ``policy`` of shape ``[..., A]`` (float
tensor, rows summing to 1, illegal actions at probability 0) and return a
new tensor of the same shape and dtype; they never modify their input.
"""

from __future__ import annotations

import torch

# ceil(p * n) must not jump a quantum because p * n carries rounding error.
_ROUNDING_SLACK = 1e-6


def _check_policy(policy: torch.Tensor, name: str) -> None:
    if not isinstance(policy, torch.Tensor) or not policy.is_floating_point():
        raise TypeError(f"{name}: policy must be a floating-point torch.Tensor, got {type(policy).__name__}")
    if policy.dim() < 1 or policy.shape[-1] < 1:
        raise ValueError(f"{name}: policy must have shape [..., A] with A >= 1, got {tuple(policy.shape)}")


def threshold(policy: torch.Tensor, eps: float) -> torch.Tensor:
    """Drop actions whose probability is below ``eps`` and renormalise.

    A row whose every action is below ``eps`` is returned unchanged.

    Raises:
        ValueError: if ``eps`` is outside ``[0, 1)`` or the shape is not ``[..., A]``.
        TypeError: if ``policy`` is not a floating-point tensor.
    """
    _check_policy(policy, "threshold")
    if not 0 <= eps < 1:
        raise ValueError(f"threshold: eps = {eps!r}: must be in [0, 1)")
    kept = torch.where(policy >= eps, policy, torch.zeros_like(policy))
    total = kept.sum(-1, keepdim=True)
    return torch.where(total > 0, kept / total.clamp_min(torch.finfo(policy.dtype).tiny), policy)


def discretise(policy: torch.Tensor, quanta: int) -> torch.Tensor:
    """Round a policy onto multiples of ``1/quanta``.

    Actions are visited from the most to the least probable; each gets its
    probability rounded up to a whole number of quanta, but no more than the
    quanta still unassigned; whatever is left at the end goes to the most
    probable action. Ties keep the lower action index first.

    Raises:
        ValueError: if ``quanta < 1`` or the shape is not ``[..., A]``.
        TypeError: if ``policy`` is not a floating-point tensor.
    """
    _check_policy(policy, "discretise")
    if int(quanta) != quanta or quanta < 1:
        raise ValueError(f"discretise: quanta = {quanta!r}: must be an integer >= 1")
    order = torch.sort(policy, dim=-1, descending=True, stable=True).indices
    ranked = torch.gather(policy, -1, order)
    wanted = torch.ceil(ranked * quanta - _ROUNDING_SLACK).clamp_min(0)
    before = torch.cumsum(wanted, -1) - wanted
    given = torch.minimum(wanted, (quanta - before).clamp_min(0))
    given[..., 0] += quanta - given.sum(-1)
    return torch.zeros_like(policy).scatter(-1, order, given / quanta)


def project(policy: torch.Tensor, eps: float, quanta: int) -> torch.Tensor:
    """``discretise(threshold(policy, eps), quanta)``: the fine-tuning projection."""
    return discretise(threshold(policy, eps), quanta)
