"""The two-player v-trace estimator over whole trajectories, without bootstrapping.

Source: DeepNash (arXiv) "Methods: additional information", the v-trace
estimator adapted to two players with the regularised reward; the reference
JAX implementation once in OpenSpiel; ``docs/rnad.md`` §4.1 (gamma = lambda = 1).
Nothing here has gradients: targets are computed under ``torch.no_grad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class VTraceTargets:
    """Targets for one player ``i``.

    Attributes:
        own: ``[T, B]`` bool, valid steps where ``i`` acts (where the targets are defined).
        v_target: ``[T, B]`` float, vhat_t^i (0 elsewhere).
        q_target: ``[T, B, A]`` float, Qhat_t^i(a) for every action (0 elsewhere).
    """

    own: torch.Tensor
    v_target: torch.Tensor
    q_target: torch.Tensor


@torch.no_grad()
def v_trace(*, player_id: int, value: torch.Tensor, valid: torch.Tensor, player: torch.Tensor,
            policy: torch.Tensor, log_ratio: torch.Tensor, behaviour: torch.Tensor,
            action: torch.Tensor, reward: torch.Tensor, eta: float,
            rho_bar: float = math.inf, c_bar: float = 1.0) -> VTraceTargets:
    """v-trace targets of player ``player_id`` (``docs/rnad.md`` §4.1), one backward pass over time.

    Args:
        player_id: the player i the targets are for, 0 or 1.
        value: ``[T, B]`` target-network value of the acting player at each step.
        valid: ``[T, B]`` bool, False on padding.
        player: ``[T, B]`` int, the acting player.
        policy: ``[T, B, A]`` the learner's policy pi (possibly fine-tuned), 0 on illegal actions.
        log_ratio: ``[T, B, A]`` ``log pi - log pi_reg`` (mixed over the schedule), 0 on illegal actions.
        behaviour: ``[T, B, A]`` the actor's policy mu.
        action: ``[T, B]`` int64, the taken action.
        reward: ``[T, B]`` reward of player ``player_id`` after the action.
        eta: reward-transform strength.
        rho_bar: clip on the value-target importance weight (default infinity).
        c_bar: clip on the trace weight (default 1).

    Raises:
        ValueError: if ``player_id`` is not 0 or 1 or shapes disagree.
    """
    if player_id not in (0, 1):
        raise ValueError(f"v_trace: player_id = {player_id!r}: must be 0 or 1")
    T, B = valid.shape
    for name, t in (("value", value), ("player", player), ("action", action), ("reward", reward)):
        if tuple(t.shape) != (T, B):
            raise ValueError(f"v_trace: {name} has shape {tuple(t.shape)}, expected [T, B] = [{T}, {B}]")
    for name, t in (("log_ratio", log_ratio), ("behaviour", behaviour)):
        if t.shape != policy.shape or tuple(policy.shape[:2]) != (T, B):
            raise ValueError(f"v_trace: {name} has shape {tuple(t.shape)}, policy {tuple(policy.shape)}: "
                             f"both must be [T, B, A] with [T, B] = [{T}, {B}]")
    idx = action.clamp_min(0)[..., None]
    pi_a = torch.gather(policy, -1, idx)[..., 0]
    mu_a = torch.gather(behaviour, -1, idx)[..., 0]
    ones = torch.ones_like(value)
    ratio = torch.where(valid, pi_a / torch.where(valid, mu_a, ones), ones)
    inv_mu = torch.where(valid, 1.0 / torch.where(valid, mu_a, ones), ones)
    ent = -eta * (policy * log_ratio).sum(-1)
    one_hot = torch.nn.functional.one_hot(action.clamp_min(0), policy.shape[-1]).to(value.dtype)
    own = valid & (player == player_id)
    opp = valid & (player != player_id)

    zero = torch.zeros(B, dtype=value.dtype, device=value.device)
    R, U, v_next, t_next, xi = zero, zero, zero, zero, torch.ones_like(zero)
    v_target = torch.zeros_like(value)
    q_target = torch.zeros_like(policy)
    for t in range(T - 1, -1, -1):
        v, r, w, e = value[t], reward[t], ratio[t], ent[t]
        u_own = r + U + e
        vhat = (v + torch.clamp(w * xi, max=rho_bar) * (u_own + v_next - v)
                + torch.clamp(w * xi, max=c_bar) * (t_next - v_next))
        qhat = (v[:, None] - eta * log_ratio[t]
                + one_hot[t] * (inv_mu[t] * (r + R + xi * t_next - v))[:, None])
        is_own, is_opp = own[t], opp[t]
        v_target[t] = torch.where(is_own, vhat, zero)
        q_target[t] = torch.where(is_own[:, None], qhat, torch.zeros_like(qhat))
        R = torch.where(is_own, zero, torch.where(is_opp, -e + w * (r + R), zero))
        U = torch.where(is_own, zero, torch.where(is_opp, r + U - e, zero))
        xi = torch.where(is_own, 1.0, torch.where(is_opp, w * xi, 1.0))
        v_next = torch.where(is_own, v, torch.where(is_opp, v_next, zero))
        t_next = torch.where(is_own, vhat, torch.where(is_opp, t_next, zero))
    return VTraceTargets(own=own, v_target=v_target, q_target=q_target)
