"""Evaluation matches of a network against a bot.

``versus_random`` plays a network's raw policy in ``VectorEnv`` batches (one
network call per step for every game at once) against the uniformly random bot:
a uniformly random legal setup and, every turn, a uniformly random legal move
(``agents.RandomAgent``, ``VectorEnv.random_move_actions``).  ``agent_versus``
plays any ``Agent`` (the test-time layers included) against any other, game by
game with ``play_game``; ``network_versus`` picks the batched path for the
random bot and the game-by-game one for every other opponent.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import torch
from torch import nn

from ..agents import Agent, make_agent, play_game
from ..agents.base import check_setup_source
from ..agents.network_agent import NetworkAgent
from ..env import VectorEnv
from ..game import Termination, get_variant
from ..nn import masked_log_policy


def _score(tally: Counter, endings: Counter) -> dict:
    games = tally["wins"] + tally["draws"] + tally["losses"]
    return {"games": games, "wins": tally["wins"], "draws": tally["draws"], "losses": tally["losses"],
            "win_rate": tally["wins"] / games if games else 0.0, "endings": dict(endings)}


@torch.no_grad()
def versus_random(net: nn.Module, variant: str, games: int, seed: int = 0) -> dict:
    """Play ``games`` games of ``net``'s raw policy (sampled) against the uniformly random bot.

    The network plays Red in ``ceil(games / 2)`` games and Blue in the others, all of one
    colour at once in a ``VectorEnv`` on the network's device; it deploys with its own
    actions, the bot draws a uniformly random setup.

    Args:
        net: maps ``float32[N, 82, 10, 10]`` observations to ``(logits [N, 100], value [N])``.
        variant: ``"barrage"``, ``"classic"`` or a variant name.
        games: number of games (0 gives an empty score).
        seed: seeds the setups, the bot's moves and the network's sampling.

    Returns:
        ``{"games", "wins", "draws", "losses", "win_rate", "endings": {termination name: count}}``.
    """
    device = next(net.parameters()).device
    generator = torch.Generator(device).manual_seed(seed)
    tally, endings = Counter(), Counter()
    for side, n in ((0, (games + 1) // 2), (1, games // 2)):
        if n == 0:
            continue
        sources = ("learned", "random") if side == 0 else ("random", "learned")
        env = VectorEnv(n, variant, setups=sources, seed=seed * 2 + side, auto_reset=False)
        live = np.ones(n, dtype=bool)
        while live.any():
            obs, mask, player = env.observe()
            actions = env.random_move_actions().copy()
            ours = np.flatnonzero(live & (player == side))
            if ours.size:
                logits, _ = net(torch.from_numpy(obs[ours]).to(device))
                policy = masked_log_policy(logits, torch.from_numpy(mask[ours]).to(device)).exp()
                actions[ours] = torch.multinomial(policy, 1, generator=generator)[:, 0].cpu().numpy()
            env.step(actions)
            for b in np.flatnonzero(env.done & live):
                winner = int(env.winner[b])
                tally["draws" if winner < 0 else ("wins" if winner == side else "losses")] += 1
                endings[Termination(int(env.termination[b])).name.lower()] += 1
            live &= ~env.done
    return _score(tally, endings)


def agent_versus(agent: Agent, opponent: Agent, variant: str, games: int, seed: int = 0) -> dict:
    """Play ``games`` games of ``agent`` against ``opponent``, alternating colours (``agent`` Red first).

    Game ``i`` is ``play_game`` with seed ``seed * 100_003 + i``; both agents are reset for each game.

    Returns:
        The same dict as ``versus_random``.
    """
    v = get_variant(variant)
    tally, endings = Counter(), Counter()
    for i in range(games):
        side = i % 2
        players = (agent, opponent) if side == 0 else (opponent, agent)
        game, _ = play_game(*players, v, seed * 100_003 + i)
        out = game.outcome()
        endings[out.termination.name.lower()] += 1
        tally["draws" if out.winner is None else ("wins" if out.winner == side else "losses")] += 1
    return _score(tally, endings)


def network_versus(net: nn.Module, opponent: str, variant: str, games: int, seed: int = 0,
                   setup: str = "own") -> dict:
    """Play ``games`` games of ``net``'s raw policy (sampled) against the bot ``opponent``.

    Against ``"random"`` with ``setup="own"`` this is ``versus_random`` (batched, on the network's
    device: seconds for 200 games).  Any other opponent spec (``cautious``, ``mcts:sims=50``, ...)
    or setup source plays game by game on the CPU, with a copy of ``net`` as a ``NetworkAgent``
    with no test-time layer (``cautious``: about 2 minutes for 200 Classic games on one core).

    Args:
        setup: where the network's setups come from (``agents.base.SETUP_SOURCES``): ``own``, its
            deployment head, or a drawn setup, e.g. ``walled``, the setups ``shipped:classic`` plays.

    Returns:
        The same dict as ``versus_random``.

    Raises:
        AgentSpecError: ``opponent`` is not an agent spec.
        ValueError: ``setup`` is not a setup source, or has no setups for ``variant``.
    """
    if opponent == "random" and check_setup_source(setup) == "own":
        return versus_random(net, variant, games, seed=seed)
    bot = make_agent(opponent)
    agent = NetworkAgent(copy.deepcopy(net).cpu().requires_grad_(False), setup=setup)
    return agent_versus(agent, bot, variant, games, seed=seed)
