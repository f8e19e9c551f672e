"""The Gravon field alphabet: one letter per square for a whole board.

Source: ``docs/rules.md`` ("Record formats"). ``A`` is an empty square, ``_``
a lake; Red's pieces are ``B``..``M`` and Blue's ``N``..``Y``, both in the
order Bomb, Spy, Scout, Miner, Sergeant, Lieutenant, Captain, Major, Colonel,
General, Marshal, Flag.  A field is 100 letters, row-major from rank 1 (Red's
back row), each row from file ``a``: character ``i`` describes square ``i``
(``row*10+col``), the engine's own square index.

Gravon records use it for the start position; position strings
(``notation.position``) use it for the board.
"""

from __future__ import annotations

import numpy as np

from ..game.codes import EMPTY, LAKE, code_of, placements
from ..game.pieces import BOMB, FLAG
from ..game.squares import square_name

EMPTY_CHAR = "A"
LAKE_CHAR = "_"
#: Gravon's order of types within a player's letters: Bomb, Spy .. Marshal, Flag.
GRAVON_TYPE_ORDER = (BOMB, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, FLAG)


def _tables() -> tuple[dict[str, int], dict[int, str]]:
    codes = {EMPTY_CHAR: EMPTY, LAKE_CHAR: LAKE}
    for player in (0, 1):
        first = ord("B") + len(GRAVON_TYPE_ORDER) * player
        for i, t in enumerate(GRAVON_TYPE_ORDER):
            codes[chr(first + i)] = code_of(player, t)
    return codes, {code: ch for ch, code in codes.items()}


#: Field letter -> board code (``game.codes``), and back.
CODE_OF_CHAR, CHAR_OF_CODE = _tables()


def piece_char(player: int, piece_type: int) -> str:
    """The field letter of a piece: ``piece_char(0, FLAG) == "M"``, ``piece_char(1, BOMB) == "N"``."""
    return CHAR_OF_CODE[code_of(player, piece_type)]


def format_field(board: np.ndarray) -> str:
    """``board: int8[100]`` of board codes to its 100-letter field.

    Raises:
        ValueError: a code that is neither empty, lake nor a piece.
    """
    try:
        return "".join(CHAR_OF_CODE[int(v)] for v in board)
    except KeyError as e:
        raise ValueError(f"board code {e.args[0]} is not a square's content") from None


def parse_field(text: str) -> np.ndarray:
    """A 100-letter field to ``int8[100]`` board codes.

    Raises:
        ValueError: wrong length, or a letter outside the alphabet (message names the square).
    """
    if len(text) != 100:
        raise ValueError(f"a field has 100 letters, got {len(text)}")
    out = np.empty(100, dtype=np.int8)
    for sq, ch in enumerate(text):
        code = CODE_OF_CHAR.get(ch)
        if code is None:
            raise ValueError(f"letter {ch!r} at {square_name(sq)} (character {sq}) is not in the field alphabet A-Y, _")
        out[sq] = code
    return out


def field_placements(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Red's and Blue's pieces of a field: ``int8[100]`` types on absolute squares (-1 elsewhere), as ``Game`` takes.

    Raises:
        ValueError: as ``parse_field``.
    """
    return placements(parse_field(text))


def placements_field(red: np.ndarray, blue: np.ndarray, lakes: tuple[int, ...]) -> str:
    """The field of two placements (``int8[100]``, type or -1) and the lake squares; inverse of ``field_placements``."""
    board = np.zeros(100, dtype=np.int8)
    for p, placed in enumerate((red, blue)):
        board[placed >= 0] = code_of(p, placed[placed >= 0])
    board[list(lakes)] = LAKE
    return format_field(board)
