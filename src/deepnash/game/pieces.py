"""Piece types, their symbols and the Classic army.

Type index ``t`` (used in every 12-wide tensor, see ``docs/observation.md``):
0 Flag, 1 Spy, 2 Scout, 3 Miner, 4 Sergeant, 5 Lieutenant, 6 Captain,
7 Major, 8 Colonel, 9 General, 10 Marshal, 11 Bomb.  For the movable types
1..10 the index is also the rank used in battles.
"""

from __future__ import annotations

FLAG, SPY, SCOUT, MINER, SERGEANT, LIEUTENANT, CAPTAIN, MAJOR, COLONEL, GENERAL, MARSHAL, BOMB = range(12)
NUM_TYPES = 12

#: One character per type, used by setups and the terminal board.
PIECE_CHARS = "FS23456789MB"
PIECE_NAMES = (
    "Flag", "Spy", "Scout", "Miner", "Sergeant", "Lieutenant",
    "Captain", "Major", "Colonel", "General", "Marshal", "Bomb",
)
#: Short labels as players write them ("10" for the Marshal).
PIECE_LABELS = ("F", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B")

#: Number of pieces of each type in a Classic army (40 in all).
CLASSIC_COUNTS = (1, 1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 6)
#: Barrage: Flag, Bomb, Spy, 2 Scouts, Miner, General, Marshal (8 in all).
BARRAGE_COUNTS = (1, 1, 2, 1, 0, 0, 0, 0, 0, 1, 1, 1)

RED, BLUE = 0, 1
PLAYER_NAMES = ("Red", "Blue")


def piece_type(char: str) -> int:
    """Type index of a piece character (``PIECE_CHARS`` or ``"10"``).

    Raises:
        ValueError: if ``char`` names no piece.
    """
    if char == "10":
        return MARSHAL
    idx = PIECE_CHARS.find(char.upper()) if len(char) == 1 else -1
    if idx < 0:
        raise ValueError(f"unknown piece character {char!r}; expected one of {PIECE_CHARS!r}")
    return idx
