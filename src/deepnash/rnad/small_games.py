"""Training R-NaD on an OpenSpiel game against a wall-clock or step budget, with NashConv checkpoints.

Source: ``docs/rnad.md`` §10. The presets are the small-game configurations
tuned for ``benchmarks/bench_rnad_poker.py`` (the learner's code is the same
as for Stratego; only iteration sizes, batch, learning rate and network differ).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch

from .config import AdamConfig, RNaDConfig, ScheduleConfig
from .learner import RNaDLearner
from .mlp import PolicyValueMLP
from .openspiel_adapter import OpenSpielGame
from .trajectory import Trajectory


class Learner(Protocol):
    """What :func:`train` drives: R-NaD or a baseline with the same interface."""

    def step(self, trajectory: Trajectory) -> dict[str, float]: ...
    def policy(self, observation: torch.Tensor, legal: torch.Tensor) -> torch.Tensor: ...


@dataclass(frozen=True)
class SmallGamePreset:
    """A small-game configuration.

    Attributes:
        config: the learner's configuration (batch_size is the actors' batch).
        hidden: hidden-layer widths of :class:`PolicyValueMLP`.
    """

    config: RNaDConfig
    hidden: tuple[int, ...] = (256, 256)


PRESETS: dict[str, SmallGamePreset] = {
    "kuhn_poker": SmallGamePreset(RNaDConfig(
        batch_size=256, max_trajectory_length=3, schedule=ScheduleConfig(sizes=(200, 1000), repeats=(10, 1)),
        adam=AdamConfig(learning_rate=5e-4))),
    "leduc_poker": SmallGamePreset(RNaDConfig(
        batch_size=256, max_trajectory_length=8, schedule=ScheduleConfig(sizes=(200, 1000), repeats=(10, 1)),
        adam=AdamConfig(learning_rate=5e-4))),
}


@dataclass
class TrainingCurve:
    """NashConv measured during training.

    Attributes:
        points: ``(seconds, learner_steps, nash_conv)``; seconds count training
            only (acting and learning), not the NashConv evaluations.
        steps_per_second: learner steps per second of training time.
    """

    points: list[tuple[float, int, float]] = field(default_factory=list)
    steps_per_second: float = 0.0


def make_rnad(game: OpenSpielGame, preset: SmallGamePreset, seed: int = 0) -> RNaDLearner:
    """An R-NaD learner with the preset's MLP for ``game``."""
    torch.manual_seed(seed)
    return RNaDLearner(lambda: PolicyValueMLP(game.observation_size, game.num_actions, preset.hidden), preset.config)


def train(game: OpenSpielGame, learner: Learner, batch_size: int, *, seconds: float | None = None,
          steps: int | None = None, evaluations: int = 10, seed: int = 0) -> TrainingCurve:
    """Sample ``batch_size`` games with the learner's policy and update, until the budget is spent.

    NashConv is measured at the start, about ``evaluations`` times during training and at the end.

    Raises:
        ValueError: unless exactly one of ``seconds`` and ``steps`` is given (positive).
    """
    if (seconds is None) == (steps is None):
        raise ValueError("train: give exactly one of seconds and steps")
    if (seconds is not None and seconds <= 0) or (steps is not None and steps < 1):
        raise ValueError(f"train: budget must be positive, got seconds={seconds}, steps={steps}")
    rng = np.random.default_rng(seed)
    curve = TrainingCurve(points=[(0.0, 0, game.nash_conv(learner.policy))])
    elapsed, n = 0.0, 0
    next_eval = 1
    while (seconds is not None and elapsed < seconds) or (steps is not None and n < steps):
        start = time.perf_counter()
        learner.step(game.sample(learner.policy, batch_size, rng))
        elapsed += time.perf_counter() - start
        n += 1
        progress = elapsed / seconds if seconds is not None else n / steps
        if progress >= next_eval / evaluations:
            curve.points.append((elapsed, n, game.nash_conv(learner.policy)))
            next_eval = int(progress * evaluations) + 1
    if curve.points[-1][1] != n:
        curve.points.append((elapsed, n, game.nash_conv(learner.policy)))
    curve.steps_per_second = n / elapsed if elapsed > 0 else 0.0
    return curve
