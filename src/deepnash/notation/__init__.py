"""Notation and record formats: setups, position strings, Gravon XML, board diagrams.

Squares and moves are ``game.squares`` and ``game.Move`` (``b4-b5``); this
package adds the formats built on them, each a parse/format pair:

- ``setup``: ``parse_setup`` / ``format_setup`` (a 40-square deployment as text);
- ``position``: ``game_from_position`` / ``position_string`` (everything needed to continue a game);
- ``gravon``: ``read_records`` / ``format_xml`` / ``write_xml``, ``record_from_game`` and ``replay``;
- ``board``: ``board_diagram`` (a text board, omniscient or as one player sees it);
- ``validate``: ``validate_records`` (``deepnash validate-records``).
"""

from .board import board_diagram
from .gravon import GravonRecord, format_xml, read_records, record_from_game, replay, write_xml
from .position import game_from_position, position_string
from .setup import format_setup, parse_setup, setup_string

__all__ = [
    "GravonRecord", "board_diagram", "format_setup", "format_xml", "game_from_position", "parse_setup",
    "position_string", "read_records", "record_from_game", "replay", "setup_string", "write_xml",
]
