"""The board in a terminal, drawn with rich: a game being played from the person's information state
only, a finished game's record with every piece.

Own pieces show their rank on their colour; opponent pieces show ``?`` while
hidden (``?m`` once they have moved) and their rank once revealed; lakes are
``~~``; the last move's squares are highlighted.
"""

from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.text import Text

from ..game.codes import EMPTY, LAKE, owner_of, type_of
from ..game.pieces import PIECE_LABELS, PIECE_NAMES, PLAYER_NAMES
from ..game.squares import FILES
from ..infostate.view import UNKNOWN, MoveRecord, PlayerView
from .deploy import SetupBuilder
from .match import describe_move

SIDE_STYLE = ("bold white on red3", "bold white on blue3")
LAKE_STYLE = "bold bright_cyan on dark_cyan"
EMPTY_STYLE = "grey50"
ZONE_STYLE = "grey70 on grey23"
LAST_STYLE = "bold black on yellow"
LEGEND = "?  hidden    ?m hidden, has moved    *  your piece the opponent knows    ~~ lake"


def _rows_cols(player: int) -> tuple[range, range]:
    """Rows top to bottom and columns left to right as ``player`` sees the board (own back row at the bottom)."""
    return (range(9, -1, -1), range(10)) if player == 0 else (range(10), range(9, -1, -1))


def _grid(cells: list[tuple[str, str]], player: int, highlight: set[int]) -> Text:
    rows, cols = _rows_cols(player)
    out = Text()
    for r in rows:
        out.append(f"{r + 1:>3} ", style="bold")
        for c in cols:
            sq = r * 10 + c
            label, style = cells[sq]
            out.append(f"{label:^4}", style=LAST_STYLE if sq in highlight else style)
        out.append("\n")
    out.append("    " + "".join(f"{FILES[c]:^4}" for c in cols), style="bold")
    return out


def play_board(view: PlayerView, last: MoveRecord | None = None) -> Text:
    """The board as ``view.player`` knows it; ``last`` is highlighted."""
    cells = []
    for sq in range(100):
        owner, t = int(view.owner[sq]), int(view.types[sq])
        if owner == 2:
            cells.append(("~~", LAKE_STYLE))
        elif owner < 0:
            cells.append(("·", EMPTY_STYLE))
        elif owner == view.player:
            cells.append((PIECE_LABELS[t] + ("*" if view.revealed[sq] else ""), SIDE_STYLE[owner]))
        elif t == UNKNOWN:
            cells.append(("?m" if view.moved[sq] else "?", SIDE_STYLE[owner]))
        else:
            cells.append((PIECE_LABELS[t], SIDE_STYLE[owner]))
    hl = {last.move.from_sq, last.move.to_sq} if last else set()
    return _grid(cells, view.player, hl)


def record_board(board: np.ndarray, revealed: np.ndarray, last: MoveRecord | None = None) -> Text:
    """A position of a finished game, every piece shown, Red at the bottom.

    Args:
        board: ``int8[100]`` board codes (``game.codes``).
        revealed: ``bool[100]``: pieces their opponent knows get a ``*``.
        last: the move that led here, highlighted.
    """
    cells = []
    for sq in range(100):
        v = int(board[sq])
        if v == LAKE:
            cells.append(("~~", LAKE_STYLE))
        elif v == EMPTY:
            cells.append(("·", EMPTY_STYLE))
        else:
            cells.append((PIECE_LABELS[type_of(v)] + ("*" if revealed[sq] else ""), SIDE_STYLE[owner_of(v)]))
    hl = {last.move.from_sq, last.move.to_sq} if last else set()
    return _grid(cells, 0, hl)


def setup_board(builder: SetupBuilder) -> Text:
    """The deployment being built: placed pieces, free zone squares as ``_``, lakes."""
    cells = []
    for sq in range(100):
        t = int(builder.placed[sq])
        if sq in builder.variant.lakes:
            cells.append(("~~", LAKE_STYLE))
        elif t >= 0:
            cells.append((PIECE_LABELS[t], SIDE_STYLE[builder.player]))
        elif sq in builder.zone:
            cells.append(("_", ZONE_STYLE))
        else:
            cells.append(("·", EMPTY_STYLE))
    return _grid(cells, builder.player, set())


def piece_counts(counts: list[int]) -> str:
    """``"2x Scout, 1x Bomb"`` for a 12-int count list; ``"none"`` if empty."""
    parts = [f"{n}x {PIECE_NAMES[t]}" for t, n in enumerate(counts) if n]
    return ", ".join(parts) or "none"


def play_screen(view: PlayerView, last: MoveRecord | None, captured: tuple[list[int], list[int]],
                status: str) -> Group:
    """Board, legend, last move with its battle, pieces lost by each side, and ``status``."""
    me = view.player
    lines = [play_board(view, last), Text(LEGEND, style="dim")]
    if last is not None:
        lines.append(Text(f"Last move: {describe_move(last)}", style="bold"))
    lines.append(Text(f"You ({PLAYER_NAMES[me]}) lost: {piece_counts(captured[me])}"))
    lines.append(Text(f"Opponent ({PLAYER_NAMES[1 - me]}) lost: {piece_counts(captured[1 - me])}"))
    lines.append(Text(status, style="bold green"))
    return Group(*lines)
