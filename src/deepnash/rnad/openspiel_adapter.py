"""OpenSpiel two-player zero-sum games as R-NaD trajectories, and exact NashConv of a learned policy.

Source: ``docs/rnad.md`` §10 (exploitability on small games through
OpenSpiel). Needs the optional dependency ``open_spiel`` (extra
``openspiel``). Observations are OpenSpiel's information-state tensors;
actions are OpenSpiel's distinct actions; chance nodes are sampled from
their outcome distribution and are not steps of the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from .trajectory import Trajectory

PolicyFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""``(observation [N, D] float32, legal [N, A] bool) -> probabilities [N, A]``."""


def _pyspiel():
    try:
        import pyspiel
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("OpenSpiel games need the optional dependency open_spiel: "
                          "pip install 'deepnash[openspiel]'") from e
    return pyspiel


class OpenSpielGame:
    """One OpenSpiel game, e.g. ``OpenSpielGame("kuhn_poker")``.

    Args:
        game: an OpenSpiel game name (with parameters, as ``pyspiel.load_game`` takes) or a loaded game.

    Raises:
        ValueError: if the game is not a two-player, zero-sum, sequential game with
            information-state tensors.
    """

    def __init__(self, game: str | object) -> None:
        pyspiel = _pyspiel()
        self.game = pyspiel.load_game(game) if isinstance(game, str) else game
        gt = self.game.get_type()
        name = gt.short_name
        if self.game.num_players() != 2:
            raise ValueError(f"OpenSpiel game {name}: has {self.game.num_players()} players, R-NaD needs 2")
        if gt.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
            raise ValueError(f"OpenSpiel game {name}: utility {gt.utility} is not zero-sum")
        if gt.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"OpenSpiel game {name}: dynamics {gt.dynamics} is not sequential")
        if not gt.provides_information_state_tensor:
            raise ValueError(f"OpenSpiel game {name}: provides no information-state tensor")
        self.num_actions = int(self.game.num_distinct_actions())
        self.observation_size = int(np.prod(self.game.information_state_tensor_shape()))
        self._tabular = None

    def _advance_chance(self, state, rng: np.random.Generator) -> float:
        """Sample chance nodes until a decision or terminal state; returns their reward to player 0."""
        reward = 0.0
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            u, acc = rng.random() * sum(p for _, p in outcomes), 0.0
            for action, p in outcomes:
                acc += p
                if u < acc:
                    break
            state.apply_action(action)
            reward += state.rewards()[0]
        return reward

    def sample(self, policy: PolicyFn, batch_size: int, rng: np.random.Generator) -> Trajectory:
        """Play ``batch_size`` whole games with both players sampling from ``policy``.

        Returns:
            a :class:`Trajectory` with ``T`` = the longest game's number of decisions;
            each step's rewards are those of the action and the chance nodes after it.

        Raises:
            ValueError: if ``batch_size < 1`` or the policy puts probability on illegal actions.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size = {batch_size!r}: must be >= 1")
        states = [self.game.new_initial_state() for _ in range(batch_size)]
        for s in states:
            self._advance_chance(s, rng)
        steps: list[dict[str, np.ndarray]] = []
        while True:
            live = [b for b, s in enumerate(states) if not s.is_terminal()]
            if not live:
                break
            obs = np.zeros((batch_size, self.observation_size), np.float32)
            legal = np.zeros((batch_size, self.num_actions), bool)
            legal[:, 0] = True  # padding rows: a harmless legal action
            player = np.zeros(batch_size, np.int64)
            for b in live:
                p = states[b].current_player()
                player[b] = p
                obs[b] = states[b].information_state_tensor(p)
                legal[b] = np.asarray(states[b].legal_actions_mask(p), bool)
            probs = policy(torch.from_numpy(obs), torch.from_numpy(legal)).detach().cpu().numpy().astype(np.float64)
            if np.any(probs[legal == 0] > 0):
                raise ValueError("policy gives probability to an illegal action")
            valid = np.zeros(batch_size, bool)
            valid[live] = True
            action = np.zeros(batch_size, np.int64)
            rewards = np.zeros((batch_size, 2), np.float32)
            u = rng.random(batch_size)
            cdf = np.cumsum(probs, axis=1)
            for b in live:
                a = int(min(np.searchsorted(cdf[b], u[b] * cdf[b, -1], side="right"), self.num_actions - 1))
                while not legal[b, a]:  # rounding at the top of the cdf
                    a -= 1
                action[b] = a
                states[b].apply_action(a)
                r = states[b].rewards()[0] + self._advance_chance(states[b], rng)
                rewards[b] = (r, -r)
            steps.append(dict(valid=valid, player=player, legal=legal, observation=obs, action=action,
                              behaviour=probs.astype(np.float32), rewards=rewards))
        fields = {k: torch.from_numpy(np.stack([s[k] for s in steps])) for k in steps[0]}
        return Trajectory(**fields)

    def nash_conv(self, policy: PolicyFn) -> float:
        """Exact NashConv (sum of both best responses' gains) of ``policy``, by OpenSpiel's exploitability code."""
        from open_spiel.python import policy as os_policy
        from open_spiel.python.algorithms import exploitability

        if self._tabular is None:
            tab = os_policy.TabularPolicy(self.game)
            obs = np.array([s.information_state_tensor(s.current_player()) for s in tab.states], np.float32)
            self._tabular = (tab, torch.from_numpy(obs), torch.from_numpy(tab.legal_actions_mask.astype(bool)))
        tab, obs, legal = self._tabular
        probs = policy(obs, legal).detach().cpu().numpy().astype(np.float64)
        tab.action_probability_array[:] = probs / probs.sum(-1, keepdims=True)
        return float(exploitability.nash_conv(self.game, tab))
