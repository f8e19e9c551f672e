"""A game clock for the search: so many seconds for the whole game, spent where they matter.

A person plays Stratego to a clock (Gravon's games, tournaments), not to a fixed time a move.
``GameClock`` is the search's side of one: a total of seconds for the player's game and an
optional increment added after each move (Fischer's clock, ``5 min + 2 s``).  Each move's budget
is what is left spread over the moves still to come, as chess engines do:

- the moves still to come are the player's share of the plies to the planning horizon,
  ``PLIES_PER_PIECE`` times the pieces a side deploys (three games in four of people's end
  sooner), and never fewer than ``MIN_MOVES_TO_GO``, so that a long game slows the spending
  down and never runs the clock out;
- a critical move (``critical_move``: a battle among the candidates, or a raid on the player's
  Flag) gets ``CRITICAL_FACTOR`` times the share of an ordinary one, so that no move takes more
  than ``CRITICAL_FACTOR / MIN_MOVES_TO_GO`` (15%) of what is left, plus the increment.

The search (``testtime.search``, ``SearchConfig.clock``) asks for the budget before a move and
charges the time the move took after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import Move, Variant
from ..infostate.view import PlayerView
from .flag_guard import guarding_move

#: The planning horizon, in plies per piece a side deploys: people's Classic games (40 pieces) end
#: within 434 plies three times in four, their Barrage games (8 pieces) within 91 (Gravon, 2014-10).
PLIES_PER_PIECE = 11
#: The fewest own moves a budget is planned for: past the horizon, each move spends at most a 20th of
#: what is left (plus the increment), so that the clock lasts however long the game goes on.
MIN_MOVES_TO_GO = 20
#: How many ordinary moves' budget a critical move may spend.
CRITICAL_FACTOR = 3.0


@dataclass
class GameClock:
    """One player's clock for one game.

    Args:
        total: seconds for the whole game, above 0.
        increment: seconds added after each move, at least 0.

    Attributes:
        left: seconds left (below 0 once overspent: the budget is then 0 plus the increment).

    Raises:
        ValueError: ``total`` not above 0 or ``increment`` below 0.
    """

    total: float
    increment: float = 0.0
    left: float = field(init=False)

    def __post_init__(self) -> None:
        if not self.total > 0 or not self.increment >= 0:
            raise ValueError(f"a game clock needs total > 0 and increment >= 0 seconds, "
                             f"got {self.total}, {self.increment}")
        self.left = float(self.total)

    def budget(self, variant: Variant, ply: int, critical: bool = False) -> float:
        """Seconds the move at ``ply`` (plies played in the game) may spend, at least 0.

        The increment is spent with each move; the rest of the clock is spread over the moves to go
        (``moves_to_go``), times ``CRITICAL_FACTOR`` for a ``critical`` move.
        """
        share = max(self.left, 0.0) / moves_to_go(variant, ply)
        return share * (CRITICAL_FACTOR if critical else 1.0) + self.increment

    def charge(self, seconds: float) -> None:
        """A move took ``seconds``: take them off the clock and add the increment."""
        self.left += self.increment - seconds


def moves_to_go(variant: Variant, ply: int) -> float:
    """The player's moves a budget plans for at ``ply``: half the plies to the horizon (``PLIES_PER_PIECE``
    per piece a side deploys), at least ``MIN_MOVES_TO_GO``."""
    horizon = PLIES_PER_PIECE * sum(variant.piece_counts)
    return max(float(MIN_MOVES_TO_GO), (horizon - ply) / 2)


def critical_move(view: PlayerView, candidates: list[Move]) -> bool:
    """Whether the move to make matters more than most: one of the ``candidates`` attacks an opponent
    piece (a battle, whose result decides material), or an opponent piece is racing the defenders to the
    player's Flag (``flag_guard.guarding_move`` finds an answer to a raid)."""
    return guarding_move(view) is not None or any(view.owner[m.to_sq] == 1 - view.player for m in candidates)
