"""Pictures of a whole board (both armies' types shown): text for ``ansi``, pixels for ``rgb_array``."""

from __future__ import annotations

import numpy as np

from ..game.codes import owner_of, type_of
from ..game.pieces import PIECE_CHARS
from ..game.squares import FILES

CELL = 24  # pixels per square in ``rgb_array``
_COLOURS = {"empty": (222, 205, 160), "lake": (120, 170, 220), 0: (190, 40, 40), 1: (40, 70, 190)}

# 3x5 glyphs of "FS23456789MB" (rows top to bottom, '#' lit).
_GLYPHS = dict(zip(PIECE_CHARS, [
    "### #.. ##. #.. #..", "### #.. ### ..# ###", "### ..# ### #.. ###", "### ..# ### ..# ###",
    "#.# #.# ### ..# ..#", "### #.. ### ..# ###", "### #.. ### #.# ###", "### ..# ..# ..# ..#",
    "### #.# ### #.# ###", "### #.# ### ..# ###", "#.# ### ### #.# #.#", "##. #.# ##. #.# ##.",
]))


def ansi(board: np.ndarray) -> str:
    """``board: int8[100]`` (engine codes) as text, rank 10 on top: ``R5`` a Red 5, ``BM`` a Blue Marshal,
    ``~~`` a lake, ``..`` empty."""
    lines = []
    for row in range(9, -1, -1):
        cells = []
        for col in range(10):
            v = int(board[row * 10 + col])
            cells.append("~~" if v < 0 else ".." if v == 0 else "RB"[owner_of(v)] + PIECE_CHARS[type_of(v)])
        lines.append(f"{row + 1:>2} " + " ".join(cells))
    lines.append("   " + " ".join(f"{f} " for f in FILES))
    return "\n".join(lines)


def rgb_array(board: np.ndarray) -> np.ndarray:
    """``board: int8[100]`` as an image ``uint8[240, 240, 3]``, rank 10 on top, each piece a square in
    its owner's colour with its type drawn in white."""
    img = np.zeros((10 * CELL, 10 * CELL, 3), dtype=np.uint8)
    for sq in range(100):
        v = int(board[sq])
        y, x = (9 - sq // 10) * CELL, (sq % 10) * CELL
        colour = _COLOURS["lake"] if v < 0 else _COLOURS["empty"] if v == 0 else _COLOURS[owner_of(v)]
        img[y + 1:y + CELL - 1, x + 1:x + CELL - 1] = colour
        if v > 0:
            glyph = np.array([[c == "#" for c in r] for r in _GLYPHS[PIECE_CHARS[type_of(v)]].split()])
            big = np.kron(glyph, np.ones((3, 3), dtype=bool))
            gy, gx = y + (CELL - big.shape[0]) // 2, x + (CELL - big.shape[1]) // 2
            img[gy:gy + big.shape[0], gx:gx + big.shape[1]][big] = 255
    return img
