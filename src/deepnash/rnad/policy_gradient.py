"""A plain policy-gradient baseline (actor-critic, Monte-Carlo returns) with the learner's interface.

Source: ``docs/rnad.md`` §10: R-NaD's NashConv must end below a plain
policy-gradient baseline's with the same network and budget. Self-play,
on-policy: loss ``= sum_t [-log pi(a_t|o_t) * (G_t - v(o_t)) + (G_t - v(o_t))^2]``
averaged over valid steps, where ``G_t`` is the acting player's return from
``t`` to the end of the game. Plain Adam (torch's), no regularisation.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from .learner import evaluate, evaluate_logits
from .losses import legal_log_softmax
from .trajectory import Trajectory


class PolicyGradientLearner:
    """Self-play actor-critic on whole trajectories.

    Args:
        make_network: builds the ``(logits, value)`` network.
        learning_rate: Adam's step size.
    """

    def __init__(self, make_network: Callable[[], nn.Module], learning_rate: float = 1e-3) -> None:
        if not learning_rate > 0:
            raise ValueError(f"learning_rate = {learning_rate!r}: must be > 0")
        self.theta = make_network()
        self.optimizer = torch.optim.Adam(self.theta.parameters(), lr=learning_rate)
        self.learner_step = 0

    @torch.no_grad()
    def policy(self, observation: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """The current policy ``[N, A]``."""
        logits = evaluate_logits(self.theta, observation[None], torch.ones(1, observation.shape[0], dtype=torch.bool))
        return legal_log_softmax(logits[0], legal)[0]

    def step(self, trajectory: Trajectory) -> dict[str, float]:
        """One Adam step on the trajectory's policy-gradient and value losses."""
        traj = trajectory
        rewards = torch.where(traj.valid[..., None], traj.rewards, torch.zeros_like(traj.rewards))
        to_go = rewards.flip(0).cumsum(0).flip(0)  # [T, B, 2], returns from t on
        ret = torch.gather(to_go, -1, traj.player.clamp(0, 1)[..., None])[..., 0]
        logits, value = evaluate(self.theta, traj.observation, traj.valid)
        _, log_pi = legal_log_softmax(logits, traj.legal)
        log_pi_a = torch.gather(log_pi, -1, traj.action[..., None])[..., 0]
        adv = ret - value
        mask = traj.valid.float()
        loss = (mask * (-log_pi_a * adv.detach() + adv**2)).sum() / mask.sum().clamp_min(1)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.learner_step += 1
        return {"loss": float(loss.detach()), "learner_step": float(self.learner_step)}
