"""A text diagram of a game's board, omniscient or as one player sees it.

Each square is a two-character cell::

         a  b  c  d  e  f  g  h  i  j
     10 b? b? b? b+ b? b? b? b? b? b?
      ...
      6 .. .. ~~ ~~ B3 .. ~~ ~~ .. ..
      ...
      1 rF rB r3 R9 ...

``r``/``b`` a Red/Blue piece the opponent has not seen, ``R``/``B`` one it
has (revealed in a battle, or a Scout that moved more than one square); the
second character is its type from ``PIECE_CHARS`` (``FS23456789MB``), or for
a piece hidden from the viewer ``?`` (never moved) or ``+`` (has moved, so
it is neither Flag nor Bomb).  ``~~`` is a lake, ``..`` an empty square, as
in ``game.diagram`` (whose hand-drawn positions have no hidden or revealed pieces).
The viewer's own back row is at the bottom (Red's when omniscient).
"""

from __future__ import annotations

from ..game import kernels as K
from ..game.game import Game
from ..game.pieces import PIECE_CHARS, PLAYER_NAMES
from ..game.squares import FILES

OWNER_CHARS = "rb"


def cell(game: Game, sq: int, viewer: int | None = None) -> str:
    """The two-character cell of square ``sq`` (``row*10+col``) as ``viewer`` (0, 1, ``None`` = everything) sees it."""
    v = int(game.state.board[0, sq])
    if v == K.LAKE:
        return "~~"
    if v == K.EMPTY:
        return ".."
    piece = game.piece_at(sq)
    owner = OWNER_CHARS[piece.player].upper() if piece.revealed else OWNER_CHARS[piece.player]
    if viewer is None or viewer == piece.player or piece.revealed:
        return owner + PIECE_CHARS[piece.type]
    return owner + ("+" if piece.moved else "?")


def board_diagram(game: Game, viewer: int | None = None) -> str:
    """The board as lines of text (see the module docstring), with file letters and rank numbers.

    Args:
        game: the game to draw.
        viewer: 0 (Red) or 1 (Blue) to hide what that player cannot see, or
            ``None`` for an omniscient view.

    Returns:
        13 lines joined by ``"\\n"``: files, ten ranks, files again, and a line saying whose
        turn it is (or how the game ended).

    Raises:
        ValueError: ``viewer`` is not 0, 1 or ``None``.
    """
    if viewer not in (None, 0, 1):
        raise ValueError(f"viewer must be 0 (Red), 1 (Blue) or None, got {viewer!r}")
    flip = viewer == 1
    cols = range(9, -1, -1) if flip else range(10)
    rows = range(10) if flip else range(9, -1, -1)
    lines = ["    " + " ".join(f" {FILES[c]}" for c in cols)]
    for r in rows:
        lines.append(f"{r + 1:>3} " + " ".join(cell(game, r * 10 + c, viewer) for c in cols))
    lines.append("    " + " ".join(f" {FILES[c]}" for c in cols))
    out = game.outcome()
    if out is None:
        lines.append(f"move {game.ply + 1}, {PLAYER_NAMES[game.turn]} to play")
    else:
        winner = "draw" if out.winner is None else f"{PLAYER_NAMES[out.winner]} wins"
        lines.append(f"after {game.ply} moves: {winner} ({out.termination.name.lower().replace('_', ' ')})")
    return "\n".join(lines)
