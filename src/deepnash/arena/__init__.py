"""Matches between agents, judged by our engine: tables with confidence intervals, ratings, saved records."""

from .match import MatchResult, TournamentResult, run_match, run_tournament
from .referee import AgentCrashed, GameResult, referee_game

__all__ = ["AgentCrashed", "GameResult", "MatchResult", "TournamentResult", "referee_game", "run_match", "run_tournament"]
