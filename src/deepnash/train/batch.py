"""Whole games → one padded, time-major ``rnad.Trajectory`` (docs/rnad.md §7)."""

from __future__ import annotations

import numpy as np
import torch

from ..rnad import Trajectory
from .actor import GameRecord


def to_trajectory(games: list[GameRecord]) -> Trajectory:
    """Pad ``games`` to the longest and stack them time-major.

    Returns:
        A ``Trajectory`` with ``T = max steps``, ``B = len(games)``: observation
        ``float16[T, B, 82, 10, 10]``, valid ``bool[T, B]`` (False on padding), legal,
        action, behaviour, player and rewards as recorded (zero/False on padding).

    Raises:
        ValueError: for an empty list.
    """
    if not games:
        raise ValueError("to_trajectory needs at least one game")
    t, b = max(g.steps for g in games), len(games)
    obs = np.zeros((t, b) + games[0].obs.shape[1:], np.float16)
    legal = np.zeros((t, b, games[0].legal.shape[1]), bool)
    behaviour = np.zeros(legal.shape, np.float32)
    valid = np.zeros((t, b), bool)
    player = np.zeros((t, b), np.int64)
    action = np.zeros((t, b), np.int64)
    rewards = np.zeros((t, b, 2), np.float32)
    for i, g in enumerate(games):
        n = g.steps
        obs[:n, i], legal[:n, i], behaviour[:n, i] = g.obs, g.legal, g.behaviour
        valid[:n, i], player[:n, i], action[:n, i], rewards[:n, i] = True, g.player, g.action, g.rewards
    return Trajectory(valid=torch.from_numpy(valid), player=torch.from_numpy(player), legal=torch.from_numpy(legal),
                      observation=torch.from_numpy(obs), action=torch.from_numpy(action),
                      behaviour=torch.from_numpy(behaviour), rewards=torch.from_numpy(rewards))
