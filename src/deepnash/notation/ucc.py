"""The UCC 2012 bot protocol's lines, as parse/format pairs (``docs/ucc.md``).

Coordinates: the protocol's ``x`` is our column (file ``a`` = 0) and its ``y``
our row (rank 1 = 0): Red sits at the top of the referee's board with its back
row at ``y = 0``, which is our rank 1, so no flipping is needed.  ``UP`` is
``y - 1``.  Piece characters are UCC ranks (``1`` Marshal ... ``9`` Scout,
``s`` Spy, ``B`` Bomb, ``F`` Flag); the opponent's pieces are always ``#``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..game.errors import StrategoError
from ..game.game import Move

#: UCC character of each of our piece types 0..11 (Flag, Spy, Scout, ..., Marshal, Bomb).
UCC_CHARS = "Fs987654321B"
#: ``(dx, dy)`` of each direction; ``UP`` goes towards ``y = 0`` (Red's back row).
DIRECTIONS = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}
#: Move outcomes that carry the two pieces' ranks.
BATTLES = ("KILLS", "DIES", "BOTHDIE")
OUTCOMES = ("OK", *BATTLES, "VICTORY_FLAG", "VICTORY_ATTRITION", "ILLEGAL")


class UCCProtocolError(StrategoError):
    """A protocol line that cannot be parsed; the message quotes the line and says what was wrong."""


class MoveLine(NamedTuple):
    """A move with its outcome, as the referee announces it: ``x y DIR [n] OUTCOME [a d]``.

    ``attacker``/``defender`` are our piece types (-1 when the outcome names none).
    """

    move: Move
    outcome: str
    attacker: int = -1
    defender: int = -1


def piece_char(t: int) -> str:
    """The UCC character of our piece type ``t`` (0..11)."""
    return UCC_CHARS[t]


def piece_of_char(c: str, line: str = "") -> int:
    """Our piece type of a UCC character. Raises ``UCCProtocolError`` naming ``line`` for an unknown one."""
    i = UCC_CHARS.find(c) if len(c) == 1 else -1
    if i < 0:
        raise UCCProtocolError(f"{line!r}: {c!r} is not a piece (expected one of {UCC_CHARS})")
    return i


def format_move(move: Move) -> str:
    """``"x y DIR"`` or ``"x y DIR n"`` for a move of more than one square."""
    f, t = move
    dx, dy = t % 10 - f % 10, t // 10 - f // 10
    n = abs(dx) + abs(dy)
    name = next(k for k, v in DIRECTIONS.items() if v == (dx // n, dy // n))
    return f"{f % 10} {f // 10} {name}" + (f" {n}" if n > 1 else "")


def parse_move(text: str) -> Move:
    """Parse a bot's reply ``x y DIR [n]`` into a ``Move`` (not checked for legality).

    Raises:
        UCCProtocolError: wrong field count, coordinates off the board, an unknown
            direction, a bad distance, or a move that leaves the board.
    """
    parts = text.split()
    if len(parts) not in (3, 4):
        raise UCCProtocolError(f"{text!r}: a move is 'x y UP|DOWN|LEFT|RIGHT [n]'")
    try:
        x, y, n = int(parts[0]), int(parts[1]), int(parts[3]) if len(parts) == 4 else 1
    except ValueError:
        raise UCCProtocolError(f"{text!r}: x, y and n must be integers") from None
    d = parts[2].upper()
    if d not in DIRECTIONS:
        raise UCCProtocolError(f"{text!r}: direction {parts[2]!r} is not UP, DOWN, LEFT or RIGHT")
    if not (0 <= x < 10 and 0 <= y < 10) or not 1 <= n <= 9:
        raise UCCProtocolError(f"{text!r}: square ({x}, {y}) or distance {n} is off the board")
    tx, ty = x + n * DIRECTIONS[d][0], y + n * DIRECTIONS[d][1]
    if not (0 <= tx < 10 and 0 <= ty < 10):
        raise UCCProtocolError(f"{text!r}: the move leaves the board")
    return Move(y * 10 + x, ty * 10 + tx)


def format_move_line(line: MoveLine) -> str:
    """``"x y DIR [n] OUTCOME [a d]"``."""
    s = f"{format_move(line.move)} {line.outcome}"
    if line.outcome in BATTLES:
        s += f" {piece_char(line.attacker)} {piece_char(line.defender)}"
    return s


def parse_move_line(text: str) -> MoveLine:
    """Parse a referee announcement ``x y DIR [n] OUTCOME [a d]``.

    Raises:
        UCCProtocolError: an unknown outcome, or a battle outcome without both ranks.
    """
    parts = text.split()
    k = next((i for i, p in enumerate(parts) if p in OUTCOMES), -1)
    if k < 3:
        raise UCCProtocolError(f"{text!r}: expected 'x y DIR [n] OUTCOME', outcome one of {', '.join(OUTCOMES)}")
    move = parse_move(" ".join(parts[:k]))
    outcome = parts[k]
    if outcome in BATTLES:
        if len(parts) != k + 3:
            raise UCCProtocolError(f"{text!r}: {outcome} needs the attacker's and defender's ranks")
        return MoveLine(move, outcome, piece_of_char(parts[k + 1], text), piece_of_char(parts[k + 2], text))
    return MoveLine(move, outcome)


def setup_rows(player: int) -> range:
    """The board rows (``y``) of ``player``'s four setup lines, in the order they are sent (top to bottom)."""
    return range(0, 4) if player == 0 else range(6, 10)


def format_setup(placed: np.ndarray, player: int) -> list[str]:
    """The four setup lines of a deployment ``int8[100]`` (type per square, -1 empty, shown as ``.``)."""
    return ["".join(piece_char(int(placed[y * 10 + x])) if placed[y * 10 + x] >= 0 else "." for x in range(10))
            for y in setup_rows(player)]


def parse_setup(lines: list[str], player: int) -> np.ndarray:
    """The deployment ``int8[100]`` of four setup lines (piece counts are checked by the engine, not here).

    Raises:
        UCCProtocolError: not four lines of ten characters, or an unknown piece character.
    """
    if len(lines) != 4 or any(len(r.strip()) != 10 for r in lines):
        raise UCCProtocolError(f"{lines!r}: a setup is four lines of ten characters")
    out = np.full(100, -1, dtype=np.int8)
    for y, row in zip(setup_rows(player), lines):
        for x, c in enumerate(row.strip()):
            if c != ".":
                out[y * 10 + x] = piece_of_char(c, row)
    return out


def format_board(owner: np.ndarray, types: np.ndarray, player: int) -> list[str]:
    """The ten board lines the referee shows ``player``: own pieces by rank, the opponent's as ``#``,
    lakes ``+``, empty ``.`` (``owner``/``types`` as in ``PlayerView``)."""
    def cell(sq: int) -> str:
        o = int(owner[sq])
        if o == 2:
            return "+"
        if o < 0:
            return "."
        return piece_char(int(types[sq])) if o == player else "#"

    return ["".join(cell(y * 10 + x) for x in range(10)) for y in range(10)]


def is_board_line(text: str) -> bool:
    """True for a board line: ten characters of pieces, ``#``, ``+`` or ``.``."""
    s = text.strip()
    return len(s) == 10 and all(c in UCC_CHARS or c in "#+." for c in s)

