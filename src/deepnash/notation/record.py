"""A game as a Gravon record (``GravonRecord``), and the record of a game played here.

The XML form is ``notation.gravon``; replaying a record is ``notation.replay``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ..game.game import Game, Move, Termination
from .field import placements_field


class ResultType(IntEnum):
    """Gravon's ``<result type=...>`` codes."""

    UNABLE_TO_MOVE = 0
    FLAG_CAPTURED = 1
    BOTH_UNABLE_TO_MOVE = 2
    FORFEIT = 3
    TIE_AGREED = 4
    # 10..14: a player or a clock went missing; Gravon does not document them one by one.


@dataclass(frozen=True)
class GravonRecord:
    """One game as a Gravon record.

    Attributes:
        variant: Gravon's game type (``"classic"``, ``"barrage"``, ``"ultimate lightning"``, ...).
        field: the 100-letter start position (``notation.field``).
        moves: the moves in order (``Move``: square indices ``row*10+col``).
        result_type: Gravon's result code (``ResultType``, or 10..14), ``None`` if the record has none.
        winner: 0 Red, 1 Blue, ``None`` for nobody (a draw, or no result).
        players: the two players' names, Red's first.
        source: where it was read from (``file.xml``, ``archive.zip:member.xml``); ``""`` if made here.
        game: 1-based index of the game inside its file.
    """

    variant: str
    field: str
    moves: tuple[Move, ...]
    result_type: int | None = None
    winner: int | None = None
    players: tuple[str, str] = ("Red", "Blue")
    source: str = ""
    game: int = 1


_RESULT_OF_TERMINATION = {
    Termination.FLAG_CAPTURED: ResultType.FLAG_CAPTURED,
    Termination.NO_MOVES: ResultType.UNABLE_TO_MOVE,
    Termination.BOTH_STUCK: ResultType.BOTH_UNABLE_TO_MOVE,
    Termination.RESIGNATION: ResultType.FORFEIT,
    Termination.MOVE_LIMIT: ResultType.TIE_AGREED,
    Termination.NO_ATTACK_LIMIT: ResultType.TIE_AGREED,
}


def record_from_game(
    game: Game, *, players: tuple[str, str] = ("Red", "Blue"), result_type: int | None = None
) -> GravonRecord:
    """A record of ``game`` from its setups and move stack.

    The result comes from ``game.outcome()`` (a draw by the move limits is
    written as a tie, ``4``); pass ``result_type`` to override it or to give one
    to an unfinished game.

    Raises:
        ValueError: ``game`` was not played from its setups (it came from a position string).
    """
    if game.setups is None or len(game.move_stack) != game.ply:
        raise ValueError("the game was not played from its setups (it started from a position), so it has no record")
    out = game.outcome()
    winner = None if out is None else out.winner
    if result_type is None and out is not None:
        result_type = int(_RESULT_OF_TERMINATION[out.termination])
    field = placements_field(*game.setups, game.variant.lakes)
    return GravonRecord(game.variant.name, field, tuple(game.move_stack), result_type, winner, players)


