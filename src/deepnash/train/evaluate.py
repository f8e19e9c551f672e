"""Evaluation matches of a network against the uniformly random bot (``agents.RandomAgent``, ``play_game``)."""

from __future__ import annotations

import copy
from collections import Counter

from torch import nn

from ..agents import Agent, RandomAgent, play_game
from ..agents.network_agent import NetworkAgent
from ..game import get_variant


def versus_random(net: nn.Module, variant: str, games: int, seed: int = 0) -> dict:
    """Play ``games`` games of the network (raw policy, sampled) against ``RandomAgent``; see ``agent_versus_random``."""
    return agent_versus_random(NetworkAgent(copy.deepcopy(net).cpu()), variant, games, seed)


def agent_versus_random(agent: Agent, variant: str, games: int, seed: int = 0) -> dict:
    """Play ``games`` games of ``agent`` against ``RandomAgent``, alternating colours (``agent`` Red first).

    Returns:
        ``{"games", "wins", "draws", "losses", "win_rate", "endings": {termination name: count}}``.
    """
    v = get_variant(variant)
    score = Counter()
    endings = Counter()
    for i in range(games):
        side = i % 2
        players = (agent, RandomAgent()) if side == 0 else (RandomAgent(), agent)
        game, _ = play_game(*players, v, seed * 100_003 + i)
        out = game.outcome()
        endings[out.termination.name.lower()] += 1
        score["draws" if out.winner is None else ("wins" if out.winner == side else "losses")] += 1
    return {"games": games, "wins": score["wins"], "draws": score["draws"], "losses": score["losses"],
            "win_rate": score["wins"] / games if games else 0.0, "endings": dict(endings)}
