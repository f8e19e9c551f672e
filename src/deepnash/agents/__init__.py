"""Agents: one protocol (``Agent``) for bots, the network agent, people and external programs."""

from .base import UNKNOWN, Agent, MoveRecord, PlayerView, play_game
from .random_agent import RandomAgent

__all__ = ["UNKNOWN", "Agent", "MoveRecord", "PlayerView", "RandomAgent", "play_game"]
