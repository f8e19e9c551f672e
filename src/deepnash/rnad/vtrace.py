"""The two-player v-trace estimator over whole trajectories, without bootstrapping.

Source: DeepNash (arXiv) "Methods: additional information", the v-trace
estimator adapted to two players with the regularised reward; the reference
JAX implementation once in OpenSpiel; ``docs/rnad.md`` §4.1 (gamma = lambda = 1).
Nothing here has gradients: targets are computed under ``torch.no_grad``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from numba import njit


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


def importance_ratio(policy: torch.Tensor, behaviour: torch.Tensor, action: torch.Tensor,
                     valid: torch.Tensor) -> torch.Tensor:
    """``[T, B]`` ``pi(a_t) / mu(a_t)`` of the taken actions, 1 where ``valid`` is False (padding, whose
    action and ``mu`` may be anything).  ``policy``, ``behaviour``: ``[T, B, A]``; ``action``: ``[T, B]`` int64."""
    idx = action.clamp_min(0)[..., None]
    pi_a = torch.gather(policy, -1, idx)[..., 0]
    mu_a = torch.gather(behaviour, -1, idx)[..., 0]
    ones = torch.ones_like(pi_a)
    return torch.where(valid, pi_a / torch.where(valid, mu_a, ones), ones)


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
    ones = torch.ones_like(value)
    ratio = importance_ratio(policy, behaviour, action, valid)
    mu_a = torch.gather(behaviour, -1, action.clamp_min(0)[..., None])[..., 0]
    inv_mu = torch.where(valid, 1.0 / torch.where(valid, mu_a, ones), ones)
    ent = -eta * (policy * log_ratio).sum(-1)
    own = valid & (player == player_id)
    opp = valid & (player != player_id)
    # The recursion over time runs on [T, B] scalars alone, in one compiled loop on the CPU: on a GPU a
    # loop of small kernels per step costs seconds for games of a thousand steps.
    cpu = [x.detach().cpu().numpy() for x in (value, reward.to(value.dtype), ratio, inv_mu, ent, own, opp)]
    vhat, coef = _backward_scan(*cpu, float(rho_bar), float(c_bar))
    vhat = torch.from_numpy(vhat).to(value.device)
    coef = torch.from_numpy(coef).to(value.device)
    one_hot = torch.nn.functional.one_hot(action.clamp_min(0), policy.shape[-1]).to(value.dtype)
    qhat = value[..., None] - eta * log_ratio + one_hot * coef[..., None]
    v_target = torch.where(own, vhat, torch.zeros_like(vhat))
    q_target = torch.where(own[..., None], qhat, torch.zeros_like(qhat))
    return VTraceTargets(own=own, v_target=v_target, q_target=q_target)


@njit(cache=True)
def _backward_scan(value, reward, ratio, inv_mu, ent, own, opp, rho_bar, c_bar):
    """The backward recursion of :func:`v_trace` over ``[T, B]`` arrays of one dtype.

    Returns ``vhat`` (the value target at player i's steps) and ``coef``, the taken action's
    correction ``(r + R + xi * t_next - v) / mu(a)`` at those steps; both 0 elsewhere.  Between
    two of i's steps, the opponent's steps carry the reward ``R``, the return ``U`` and the trace
    ``xi`` back; padding resets them.
    """
    T, B = value.shape
    vhat = np.zeros_like(value)
    coef = np.zeros_like(value)
    for b in range(B):
        big_r = big_u = v_next = t_next = 0.0
        xi = 1.0
        for t in range(T - 1, -1, -1):
            v, r, w, e = value[t, b], reward[t, b], ratio[t, b], ent[t, b]
            if own[t, b]:
                target = (v + min(w * xi, rho_bar) * (r + big_u + e + v_next - v)
                          + min(w * xi, c_bar) * (t_next - v_next))
                vhat[t, b] = target
                coef[t, b] = inv_mu[t, b] * (r + big_r + xi * t_next - v)
                big_r = big_u = 0.0
                xi = 1.0
                v_next, t_next = v, target
            elif opp[t, b]:
                big_r = -e + w * (r + big_r)
                big_u = r + big_u - e
                xi = w * xi
            else:
                big_r = big_u = v_next = t_next = 0.0
                xi = 1.0
    return vhat, coef
