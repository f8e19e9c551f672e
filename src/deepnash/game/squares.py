"""Square names: ``a1`` .. ``j10``; file ``a`` is Red's left, rank 1 Red's back row.

A square index is ``row*10 + col`` with row 0 = rank 1 and col 0 = file a.
"""

from __future__ import annotations

from .errors import InvalidMoveError

FILES = "abcdefghij"


def square_name(sq: int) -> str:
    """``int`` 0..99 to its name, e.g. ``square_name(13) == "d2"``."""
    if not 0 <= sq < 100:
        raise ValueError(f"square index {sq} is off the board (0..99)")
    return f"{FILES[sq % 10]}{sq // 10 + 1}"


def parse_square(name: str) -> int:
    """A square name (case-insensitive) to its index.

    Raises:
        InvalidMoveError: if ``name`` is not ``a1`` .. ``j10``.
    """
    s = name.strip().lower()
    if len(s) < 2 or s[0] not in FILES or not s[1:].isdigit() or not 1 <= int(s[1:]) <= 10 or s[1] == "0":
        raise InvalidMoveError(f"{name!r} is not a square (a1 .. j10)")
    return (int(s[1:]) - 1) * 10 + FILES.index(s[0])
