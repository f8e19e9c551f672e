"""Stratego as a PettingZoo AEC environment over a one-game ``VectorEnv`` (same observation and actions)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..game import Variant
from . import render
from .actions import NUM_ACTIONS
from .planes import NUM_PLANES
from .setups import SetupSource
from .vector import VectorEnv

AGENTS = ("red", "blue")


class StrategoEnv(AECEnv):
    """Two agents, ``"red"`` and ``"blue"``; each observation is a dict with ``"observation"``
    (``float32[82, 10, 10]``, ``deepnash.env.planes``) and ``"action_mask"`` (``int8[100]``, all 0
    for the agent not to act); actions are ``Discrete(100)`` squares in the agent's own frame.

    Deployment (when ``setups`` includes ``"learned"``) and both steps of every move are agent
    turns, so the same agent may act several times in a row.  At the end both agents get
    +1/-1 (or 0 for a draw) and are terminated; nothing is truncated (the draw limits are
    rules of the game).  ``render_mode`` ``"ansi"`` returns the whole board as text,
    ``"rgb_array"`` as ``uint8[240, 240, 3]``.

    Raises:
        ValueError: an unknown ``render_mode``, variant or setup source.
    """

    metadata = {"name": "stratego_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": False}

    def __init__(self, variant: Variant | str = "classic", setups: SetupSource | tuple = "learned",
                 render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"unknown render_mode {render_mode!r}; use one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._variant, self._setups = variant, setups
        self._env: VectorEnv | None = None
        self.possible_agents = list(AGENTS)
        box = spaces.Box(-3.0, 1.0, (NUM_PLANES, 10, 10), np.float32)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if self._env is None:
            start = int(np.random.SeedSequence().entropy % 2**63) if seed is None else seed
            self._env = VectorEnv(1, self._variant, setups=self._setups, seed=start, auto_reset=False)
        else:
            self._env.reset(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[int(self._env.player[0])]

    def observe(self, agent: str) -> dict:
        p = AGENTS.index(agent)
        env = self._env
        acting = int(env.player[0]) == p and not self.terminations[agent]
        return {
            "observation": env.encode(0, p),
            "action_mask": env.mask[0].astype(np.int8) if acting else np.zeros(NUM_ACTIONS, np.int8),
        }

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        env = self._env
        env.step(np.array([action], dtype=np.int64))
        if env.done[0]:
            self.rewards = {a: float(env.rewards[0, i]) for i, a in enumerate(AGENTS)}
            self.terminations = {a: True for a in AGENTS}
            for a in AGENTS:
                self.infos[a] = {"winner": int(env.winner[0]), "termination": int(env.termination[0]),
                                 "moves": int(env.length[0])}
        else:
            self.rewards = {a: 0.0 for a in AGENTS}
            self.agent_selection = AGENTS[int(env.player[0])]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self):
        if self.render_mode is None:
            return None
        board = self._env.state.board[0]
        return render.ansi(board) if self.render_mode == "ansi" else render.rgb_array(board)

    def close(self) -> None:
        pass
