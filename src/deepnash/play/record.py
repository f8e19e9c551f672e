"""The record of a game as Gravon XML (``notation.gravon``), with the person and the agent named."""

from __future__ import annotations

from pathlib import Path

from ..notation.gravon import GravonRecord, format_xml, record_from_game, write_xml
from .match import HumanMatch


def match_record(match: HumanMatch) -> GravonRecord:
    """The game as a ``GravonRecord``; it holds both setups.

    Raises:
        GameInProgressError: the game is not over yet.
    """
    names = ["person", match.opponent.name]
    players = (names[0], names[1]) if match.human == 0 else (names[1], names[0])
    return record_from_game(match.finished_game(), players=players)


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
