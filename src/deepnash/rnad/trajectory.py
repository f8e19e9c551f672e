"""A batch of whole trajectories, time-major, as the learner consumes it.

Source: ``docs/rnad.md`` (what R-NaD needs per time step) and §7 (whole
games padded to the longest).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch


@dataclass(frozen=True)
class Trajectory:
    """``T`` time steps of ``B`` games; step ``t`` of game ``b`` is valid while the game lasts.

    Attributes:
        valid: ``[T, B]`` bool, False on padding after the game ended.
        player: ``[T, B]`` int64 in {0, 1}, the player to act (any value on padding).
        legal: ``[T, B, A]`` bool, legal actions; at least one per valid step.
        observation: ``[T, B, ...]`` float, the acting player's observation.
        action: ``[T, B]`` int64, the action taken (legal on valid steps).
        behaviour: ``[T, B, A]`` float, the policy mu the actor sampled the action from.
        rewards: ``[T, B, 2]`` float, reward of each player received after the action
            (zero-sum; zero on padding).
    """

    valid: torch.Tensor
    player: torch.Tensor
    legal: torch.Tensor
    observation: torch.Tensor
    action: torch.Tensor
    behaviour: torch.Tensor
    rewards: torch.Tensor

    def __post_init__(self) -> None:
        for f in fields(self):
            if not isinstance(getattr(self, f.name), torch.Tensor):
                raise TypeError(f"Trajectory.{f.name} must be a torch.Tensor, "
                                f"got {type(getattr(self, f.name)).__name__}")
        if self.valid.dim() != 2:
            raise ValueError(f"Trajectory.valid must have shape [T, B], got {tuple(self.valid.shape)}")
        tb = tuple(self.valid.shape)
        expect = {"player": 2, "action": 2, "legal": 3, "behaviour": 3, "rewards": 3}
        for name, ndim in expect.items():
            shape = tuple(getattr(self, name).shape)
            if len(shape) != ndim or shape[:2] != tb:
                raise ValueError(f"Trajectory.{name} has shape {shape}: expected {ndim} dims "
                                 f"starting with [T, B] = {list(tb)}")
        if tuple(self.observation.shape[:2]) != tb:
            raise ValueError(f"Trajectory.observation has shape {tuple(self.observation.shape)}: "
                             f"expected [T, B, ...] with [T, B] = {list(tb)}")
        if self.legal.shape != self.behaviour.shape:
            raise ValueError(f"Trajectory.behaviour has shape {tuple(self.behaviour.shape)}, "
                             f"legal has {tuple(self.legal.shape)}: they must match")
        if self.rewards.shape[2] != 2:
            raise ValueError(f"Trajectory.rewards has shape {tuple(self.rewards.shape)}: expected [T, B, 2]")
        if self.valid.dtype != torch.bool or self.legal.dtype != torch.bool:
            raise TypeError("Trajectory.valid and Trajectory.legal must be bool tensors")

    @property
    def length(self) -> int:
        """T, the number of time steps (padded)."""
        return int(self.valid.shape[0])

    @property
    def batch_size(self) -> int:
        """B, the number of games."""
        return int(self.valid.shape[1])

    def to(self, device: torch.device | str) -> "Trajectory":
        """The same trajectory with every tensor on ``device``."""
        return Trajectory(**{f.name: getattr(self, f.name).to(device) for f in fields(self)})

    def check_consistency(self) -> None:
        """Check the values (costs a device sync): players, actions and behaviour on valid steps.

        Raises:
            ValueError: naming the first broken rule and a (t, b) where it breaks.
        """
        v = self.valid
        where = lambda bad: tuple(int(i) for i in torch.nonzero(bad)[0])  # noqa: E731
        bad = v & (self.player != 0) & (self.player != 1)
        if bad.any():
            raise ValueError(f"Trajectory.player must be 0 or 1 on valid steps; (t, b) = {where(bad)}")
        bad = v & ~self.legal.any(-1)
        if bad.any():
            raise ValueError(f"Trajectory.legal has no legal action on a valid step; (t, b) = {where(bad)}")
        taken = torch.gather(self.legal, -1, self.action.clamp(0, self.legal.shape[-1] - 1)[..., None])[..., 0]
        bad = v & (~taken | (self.action < 0) | (self.action >= self.legal.shape[-1]))
        if bad.any():
            raise ValueError(f"Trajectory.action is not legal on a valid step; (t, b) = {where(bad)}")
        mu = torch.gather(self.behaviour, -1, self.action.clamp(0, self.legal.shape[-1] - 1)[..., None])[..., 0]
        bad = v & ~(mu > 0)
        if bad.any():
            raise ValueError(f"Trajectory.behaviour gives the taken action probability 0; (t, b) = {where(bad)}")
