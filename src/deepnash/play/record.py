"""The record of a game as Gravon XML (``notation.gravon``), with the person and the agent named."""

from __future__ import annotations

from pathlib import Path

from ..game import Game
from ..notation.gravon import GravonRecord, format_xml, record_from_game, write_xml
from .match import HumanMatch


def match_record(match: HumanMatch) -> GravonRecord:
    """The game as a ``GravonRecord``; it holds both setups.

    Raises:
        GameInProgressError: the game is not over yet.
    """
    return game_record(match.finished_game(), match.human, match.opponent.name)


def game_record(game: Game, human: int, opponent: str) -> GravonRecord:
    """A finished ``game`` between the person (colour ``human``, 0 Red or 1 Blue) and the agent named
    ``opponent``, as a ``GravonRecord``."""
    players = ("person", opponent) if human == 0 else (opponent, "person")
    return record_from_game(game, players=players)


def record_xml(match: HumanMatch) -> str:
    """``match_record(match)`` as Gravon XML text."""
    return format_xml(match_record(match))


def save_record(match: HumanMatch, path: str | Path) -> None:
    """Write the record to ``path`` as Gravon XML.

    Raises:
        GameInProgressError: the game is not over yet.
        OSError: the file cannot be written.
    """
    write_xml(match_record(match), path)
