"""Agents: one protocol (``Agent``) for bots, the network agent, people and external programs.

Build any agent from a spec string with ``make_agent`` (``agents.registry``).
"""

from ..infostate.view import UNKNOWN, MoveRecord, PlayerView
from .base import Agent, play_game
from .random_agent import RandomAgent
from .registry import AgentSpecError, make_agent, register_agent

__all__ = [
    "UNKNOWN", "Agent", "AgentSpecError", "MoveRecord", "PlayerView", "RandomAgent", "make_agent", "play_game",
    "register_agent",
]
