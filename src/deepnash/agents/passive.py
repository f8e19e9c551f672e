"""Passive bots, after the 2012 competition programs that hold back and draw by the no-attack limit
(Ramen, Hunter and Asmodeus drew a third to a half of their games against ``shipped:classic``).  They
test whether an agent can convert a lead into a win.

* ``TurtleAgent`` (``turtle``) never attacks while it has another move.  It shuffles its pieces behind its
  own lines: it keeps them in its own half, steps back from danger, and prefers sideways and backward
  steps to forward ones.
* ``SureAgent`` (``sure``) attacks only pieces it knows it beats: those whose type, from public
  information alone, loses to the attacker for certain (a revealed piece, or one whose every
  possible type loses).  Otherwise it plays as the turtle.

Both deploy with ``setups.guarded_deployment`` and choose from the ``PlayerView`` and the seed alone.
"""

from __future__ import annotations

import numpy as np

from ..infostate.beliefs import PIECE_VALUE, fight_odds, type_distributions
from ..infostate.view import PlayerView
from .heuristic import CautiousAgent, HeuristicAgent, _forward
from .registry import register_agent

#: Score of an attack the bot will not make: below every other move, so only taken when nothing else is legal.
REFUSED = -1000.0


def _own_half(player: int, sq: int) -> bool:
    """Whether ``sq`` lies in ``player``'s half of the board (rows 0-4 for Red, 5-9 for Blue)."""
    return (sq // 10 < 5) == (player == 0)


class TurtleAgent(HeuristicAgent):
    """Never attacks first; shuffles pieces behind its lines, away from danger."""

    name = "turtle"

    def scores(self, view: PlayerView) -> np.ndarray:
        dist = type_distributions(view)
        out = np.empty(len(view.legal_moves))
        for i, (f, t) in enumerate(view.legal_moves):
            attack = view.owner[t] == 1 - view.player
            out[i] = self._attack(view, dist, f, t) if attack else self._quiet(view, dist, f, t)
        return out

    @staticmethod
    def _attack(view: PlayerView, dist: np.ndarray, f: int, t: int) -> float:
        """An attack's score: the turtle makes none while it has another move."""
        return REFUSED

    @staticmethod
    def _quiet(view: PlayerView, dist: np.ndarray, f: int, t: int) -> float:
        """A quiet move's score: out of danger first, then home, then not forward."""
        a = int(view.types[f])
        danger = CautiousAgent._danger(view, dist, f, a, f) - CautiousAgent._danger(view, dist, t, a, f)
        home = 0.0 if _own_half(view.player, t) else -5.0
        return 2.0 * danger + home - 0.5 * _forward(view.player, f, t)


class SureAgent(TurtleAgent):
    """Attacks only what it beats for certain, and otherwise holds back as the turtle does."""

    name = "sure"

    @staticmethod
    def _attack(view: PlayerView, dist: np.ndarray, f: int, t: int) -> float:
        """A certain win scores above every quiet move (the more valuable the prey, the higher); any other
        attack is refused."""
        win = fight_odds(int(view.types[f]), dist[t])[0]
        return 100.0 + float(dist[t] @ PIECE_VALUE) if win >= 1.0 - 1e-9 else REFUSED


register_agent("turtle", TurtleAgent, summary="passive: never attacks first, shuffles behind its lines")
register_agent("sure", SureAgent, summary="passive: attacks only pieces it knows it beats, else as turtle")
