"""Notation and record formats: setups, position strings, Gravon XML, board diagrams.

Squares and moves are ``game.squares`` and ``game.Move`` (``b4-b5``); this
package adds the formats built on them. Each is a parse/format pair.
"""

from .position import game_from_position, position_string
from .setup import format_setup, parse_setup, setup_string

__all__ = ["format_setup", "game_from_position", "parse_setup", "position_string", "setup_string"]
