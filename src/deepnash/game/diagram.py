"""ASCII board diagrams: write a position by hand (tests, examples, bug reports) and print one.

A diagram has ten rows, rank 10 first (Blue's back row at the top, as Red
sees the board), each with ten cells separated by spaces; an optional rank
number may start a row and a line of file letters ``a b c ... j`` may follow.
A cell is ``..`` (empty), ``~~`` (lake), or an owner letter ``r``/``b``
(Red/Blue) followed by a piece character from ``pieces.PIECE_CHARS``
(``F S 2 3 4 5 6 7 8 9 M B``: Flag, Spy, Scout, ..., Marshal, Bomb)::

    10 .. .. .. .. .. .. .. .. .. bF
     9 .. .. .. .. .. .. .. .. .. ..
     8 .. .. .. .. .. .. .. .. .. ..
     7 .. .. .. .. .. .. .. .. .. ..
     6 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
     5 .. .. ~~ ~~ .. .. ~~ ~~ .. ..
     4 .. .. .. .. .. .. .. .. .. ..
     3 .. .. .. .. r2 .. b5 .. .. ..
     2 .. .. .. .. .. .. .. .. .. ..
     1 rF .. .. .. .. .. .. .. .. ..
       a  b  c  d  e  f  g  h  i  j
"""

from __future__ import annotations

import numpy as np

from .codes import owner_of, type_of
from .errors import InvalidPositionError
from .pieces import PIECE_CHARS
from .squares import FILES, square_name
from .variant import Variant, get_variant

_OWNERS = "rb"


def parse_diagram(text: str, variant: Variant | str = "classic") -> tuple[np.ndarray, np.ndarray]:
    """Read a diagram into Red's and Blue's placements.

    Returns:
        ``(red, blue)``: two ``int8[100]`` arrays holding the piece type on each
        absolute square (``row*10+col``) and -1 elsewhere, as ``Game`` takes them.

    Raises:
        InvalidPositionError: not ten rows of ten cells, an unknown cell, or
            lakes that differ from the variant's (the message names the square).
    """
    v = get_variant(variant)
    rows = []
    for line in text.strip("\n").splitlines():
        cells = line.split()
        if not cells or "".join(cells) == FILES:
            continue
        if cells[0].isdigit():
            cells = cells[1:]
        rows.append((line, cells))
    if len(rows) != 10:
        raise InvalidPositionError(f"a diagram needs 10 rows of squares, got {len(rows)}")
    red = np.full(100, -1, dtype=np.int8)
    blue = np.full(100, -1, dtype=np.int8)
    for i, (line, cells) in enumerate(rows):
        r = 9 - i
        if len(cells) != 10:
            raise InvalidPositionError(f"rank {r + 1} needs 10 cells, got {len(cells)}: {line!r}")
        for c, cell in enumerate(cells):
            sq = r * 10 + c
            lake = sq in v.lakes
            if cell == "~~" or lake:
                if cell != "~~" or not lake:
                    what = "is a lake" if lake else "is not a lake"
                    raise InvalidPositionError(f"{square_name(sq)} {what} in {v.name}, the diagram has {cell!r}")
                continue
            if cell == "..":
                continue
            if len(cell) != 2 or cell[0] not in _OWNERS or cell[1] not in PIECE_CHARS:
                raise InvalidPositionError(
                    f"{square_name(sq)}: unknown cell {cell!r}; use .. ~~ or r/b and one of {PIECE_CHARS}"
                )
            (red if cell[0] == "r" else blue)[sq] = PIECE_CHARS.index(cell[1])
    return red, blue


def format_diagram(board: np.ndarray) -> str:
    """The diagram of a board (``int8[100]`` codes as in ``kernels``), with rank numbers and file letters."""
    lines = []
    for r in range(9, -1, -1):
        cells = []
        for c in range(10):
            v = int(board[r * 10 + c])
            cells.append(".." if v == 0 else "~~" if v < 0 else _OWNERS[owner_of(v)] + PIECE_CHARS[type_of(v)])
        lines.append(f"{r + 1:>2} " + " ".join(cells))
    lines.append("   " + "  ".join(FILES))
    return "\n".join(lines)
