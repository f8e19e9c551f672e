"""Actors: batched self-play on ``VectorEnv`` recording whole games for the learner.

Source: ``docs/rnad.md`` §7 (actors play whole games into a queue) and the
DeepNash paper's "Infrastructure and Setup".  One batched network call per
environment step; each action is sampled from the network's policy restricted
to the legal-action mask, and that policy is recorded as the behaviour policy mu.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..env import VectorEnv
from ..env.setups import PEOPLE_POOLS, SetupSource
from ..game import Termination
from ..nn import masked_log_policy

#: ``TrainConfig.setups``: where self-play's setups come from.
SELF_PLAY_SETUPS = ("own", "random", "human", "walled", "sheltered")


def self_play_setups(name: str, variant) -> SetupSource:
    """The ``VectorEnv`` setup source of ``TrainConfig.setups``: ``own`` (the deployment head, which then
    learns too), ``random`` (uniform legal), ``human`` (``human_pool``), ``walled`` (``walled_pool``,
    the setups ``shipped:classic`` plays) or ``sheltered`` (``sheltered_pool``, those ``shipped:barrage``
    plays).  With a drawn setup R-NaD trains the move policy alone.

    Raises:
        ValueError: an unknown name, or no such setups for the variant.
    """
    if name not in SELF_PLAY_SETUPS:
        raise ValueError(f"setups={name!r}: choose one of {', '.join(SELF_PLAY_SETUPS)}")
    if name in PEOPLE_POOLS:
        return PEOPLE_POOLS[name](variant)
    return "learned" if name == "own" else name


@dataclass(frozen=True)
class GameRecord:
    """One whole self-play game, ``T`` agent steps (deployment, then select/displace pairs).

    Attributes:
        obs: ``float16[T, 82, 10, 10]`` the acting player's observation (float16 is exact
            enough for every plane and halves the memory).
        legal: ``bool[T, 100]`` legal-action mask.
        player: ``int8[T]`` acting player (0 Red, 1 Blue).
        action: ``int64[T]`` action taken (acting player's frame).
        behaviour: ``float32[T, 100]`` policy the action was sampled from.
        rewards: ``float32[T, 2]`` (Red, Blue) rewards after each action; non-zero only at the end.
        winner: 0, 1, or -1 for a draw (and for a game cut at ``max_steps``).
        termination: a ``game.Termination`` code, or -1 for a game cut at ``max_steps``.
        moves: moves (plies) played.
    """

    obs: np.ndarray
    legal: np.ndarray
    player: np.ndarray
    action: np.ndarray
    behaviour: np.ndarray
    rewards: np.ndarray
    winner: int
    termination: int
    moves: int

    @property
    def steps(self) -> int:
        """T, the number of agent steps."""
        return int(self.action.shape[0])

    @property
    def ending(self) -> str:
        """How the game ended: a lower-case ``Termination`` name, or ``"truncated"``."""
        return "truncated" if self.termination < 0 else Termination(self.termination).name.lower()


class _Slot:
    """The steps recorded so far in one env slot."""

    __slots__ = ("obs", "legal", "player", "action", "behaviour", "skip")

    def __init__(self) -> None:
        self.obs, self.legal, self.player, self.action, self.behaviour = [], [], [], [], []
        self.skip = False  # the running game was cut at max_steps; wait for the slot's next game

    def record(self, obs, legal, player, action, behaviour) -> None:
        self.obs.append(obs)
        self.legal.append(legal)
        self.player.append(player)
        self.action.append(action)
        self.behaviour.append(behaviour)

    def finish(self, final_rewards: np.ndarray, winner: int, termination: int, moves: int) -> GameRecord:
        t = len(self.action)
        rewards = np.zeros((t, 2), dtype=np.float32)
        rewards[-1] = final_rewards
        rec = GameRecord(np.stack(self.obs), np.stack(self.legal), np.asarray(self.player, np.int8),
                         np.asarray(self.action, np.int64), np.stack(self.behaviour), rewards,
                         winner, termination, moves)
        self.__init__()
        return rec


class SelfPlay:
    """``num_envs`` games of one network against itself, stepped together.

    Args:
        net: maps ``float32[N, 82, 10, 10]`` to ``(logits [N, 100], value [N])``; used in eval mode
            without gradients.  Where its class defines ``logits(obs)`` (``DeepNashNet.logits``, the
            policy heads alone), self-play calls that: the value is not needed to act.
        variant: ``"classic"``, ``"barrage"`` or a ``Variant``.
        num_envs: B, games played at once.
        seed: seeds the environment and the action sampling.
        max_steps: a game still running after this many agent steps is recorded as a draw
            (termination -1) and the slot finishes it with random actions, unrecorded
            (the paper's t_max); 0 never cuts.
        device: where the network runs.
        setups: where both players' setups come from (``VectorEnv``'s ``setups``): ``"learned"``, the
            deployment head (its deployment steps are recorded), ``"random"`` or a ``SetupPool``
            (``self_play_setups`` maps ``TrainConfig.setups`` to these).
    """

    def __init__(self, net: nn.Module, variant, num_envs: int, seed: int = 0, max_steps: int = 0,
                 device: str | torch.device = "cpu", setups: SetupSource = "learned"):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if max_steps < 0:
            raise ValueError(f"max_steps must be 0 (no limit) or positive, got {max_steps}")
        self.net = net
        self._logits = net.logits if callable(getattr(type(net), "logits", None)) else (lambda x: net(x)[0])
        self.device = torch.device(device)
        self.env = VectorEnv(num_envs, variant, setups=setups, seed=seed)
        self.max_steps = max_steps
        self.generator = torch.Generator(device=self.device).manual_seed(seed)
        self.slots = [_Slot() for _ in range(num_envs)]
        self.env_steps = 0  # agent steps played by the network (recorded steps), over all slots

    @torch.no_grad()
    def step(self) -> list[GameRecord]:
        """Play one agent step in every game; return the games that ended (recorded whole).

        Slots whose game was cut at ``max_steps`` finish it with the environment's uniformly
        random actions (no network call, nothing recorded).
        """
        env = self.env
        live = np.array([not s.skip for s in self.slots])
        actions = env.random_actions().copy() if not live.all() else np.zeros(len(self.slots), np.int64)
        rows = np.flatnonzero(live)
        if len(rows):
            obs = torch.from_numpy(env.obs[rows] if len(rows) < len(live) else env.obs).to(self.device)
            mask = torch.from_numpy(env.mask[rows]).to(self.device)
            if self.net.training:  # switching modes walks every submodule: only when needed
                self.net.eval()
                logits = self._logits(obs)
                self.net.train()
            else:
                logits = self._logits(obs)
            probs = masked_log_policy(logits.float(), mask).exp()
            actions[rows] = torch.multinomial(probs, 1, generator=self.generator).squeeze(1).cpu().numpy()
            probs = probs.cpu().numpy()
            obs16 = obs.half().cpu().numpy()
            for i, b in enumerate(rows):
                self.slots[b].record(obs16[i], env.mask[b].copy(), env.player[b], actions[b], probs[i])
        env.step(actions)
        self.env_steps += len(rows)
        finished = []
        for b, slot in enumerate(self.slots):
            if env.done[b]:
                if slot.skip:
                    slot.__init__()
                else:
                    finished.append(slot.finish(env.rewards[b], int(env.winner[b]), int(env.termination[b]),
                                                int(env.length[b])))
            elif self.max_steps and not slot.skip and len(slot.action) >= self.max_steps:
                finished.append(slot.finish(np.zeros(2, np.float32), -1, -1, -1))
                slot.skip = True
        return finished

    def play(self, games: int) -> list[GameRecord]:
        """Step until at least ``games`` games have finished; return them (possibly a few more)."""
        out: list[GameRecord] = []
        while len(out) < games:
            out.extend(self.step())
        return out
