"""Rule-based bots in the spirit of the UCC 2012 sample bots described in the thesis seed (section 3.1.1).

* ``GreedyAgent`` (after Asmodeus): scores every attack by the probability of
  winning the fight it starts, from public information only
  (``beliefs.type_distributions``), takes the best favourable attack, and
  otherwise moves a piece forward, towards the nearest opponent piece.  It
  ignores threats along the way.
* ``CautiousAgent`` (after Hunter): scores attacks by expected material,
  never attacks an unmoved piece with its Marshal or General (thesis 4.3.2),
  and weighs the danger of every square: a threatened piece retreats, a
  move into danger is penalised.

Both deploy with ``setups.guarded_deployment`` (Flag on the back row behind Bombs).  All choices depend only on the
``PlayerView`` and the seed passed to ``reset``.
"""

from __future__ import annotations

import numpy as np

from ..game import Move
from ..game.pieces import FLAG, GENERAL, MARSHAL
from ..infostate.beliefs import FIGHT, PIECE_VALUE, fight_odds, threat_odds, type_distributions
from ..infostate.view import PlayerView
from .base import SeededBot
from .registry import register_agent
from .setups import guarded_deployment

#: Share of the no-attack draw limit after which the greedy bot takes any attack that can win.
STALL_FRACTION = 0.5

_ROWS = np.arange(100) // 10
_COLS = np.arange(100) % 10


class HeuristicAgent(SeededBot):
    """Shared plumbing: a guarded setup, and picking the best-scored move (random tie-break)."""

    name = "heuristic"
    deploy = staticmethod(guarded_deployment)

    def act(self, view: PlayerView) -> Move:
        scores = self.scores(view)
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return view.legal_moves[int(self._rng.choice(best))]

    def scores(self, view: PlayerView) -> np.ndarray:
        """``float64[len(view.legal_moves)]``: the value of each legal move (higher is better)."""
        raise NotImplementedError


def _forward(player: int, f: int, t: int) -> int:
    """Rows gained towards the opponent's back row (Red moves up the rows, Blue down)."""
    d = t // 10 - f // 10
    return d if player == 0 else -d


def _nearest(sq: int, targets: np.ndarray) -> int:
    """Manhattan distance from ``sq`` to the closest square in ``targets`` (99 when there is none)."""
    if len(targets) == 0:
        return 99
    return int(np.min(np.abs(_ROWS[targets] - sq // 10) + np.abs(_COLS[targets] - sq % 10)))


def _near_flag(view: PlayerView, sq: int) -> bool:
    """True when ``sq`` is within two steps of the player's own Flag (an intruder to strike first)."""
    flags = np.flatnonzero((view.owner == view.player) & (view.types == FLAG))
    return _nearest(sq, flags) <= 2


class GreedyAgent(HeuristicAgent):
    """Asmodeus-like attacker: best favourable attack by win probability, else advance."""

    name = "greedy"

    def scores(self, view: PlayerView) -> np.ndarray:
        dist = type_distributions(view)
        enemies = np.flatnonzero(view.owner == 1 - view.player)
        out = np.empty(len(view.legal_moves))
        for i, (f, t) in enumerate(view.legal_moves):
            a = int(view.types[f])
            if view.owner[t] == 1 - view.player:
                win, _, loss = fight_odds(a, dist[t])
                # Favourable attacks (win > loss), any attack on an intruder next to the Flag, and,
                # once the no-attack draw limit nears, any attack that can win, rank above every quiet move.
                stalling = view.moves_since_attack >= STALL_FRACTION * view.variant.max_moves_without_attack
                good = win > loss or (_near_flag(view, t) and loss < 1.0) or (stalling and win > 0)
                out[i] = (10.0 if good else -10.0) + win - loss + 2.0 * dist[t, FLAG]
            else:
                approach = _nearest(f, enemies) - _nearest(t, enemies)
                out[i] = _forward(view.player, f, t) + 0.5 * approach
        return out


class CautiousAgent(HeuristicAgent):
    """Hunter-like: expected-material attacks, danger assessment and retreat."""

    name = "cautious"

    def scores(self, view: PlayerView) -> np.ndarray:
        dist = type_distributions(view)
        opp = 1 - view.player
        enemies = np.flatnonzero(view.owner == opp)
        enemy_value = dist @ PIECE_VALUE
        beaten = dist @ (FIGHT > 0).T  # [100, attacker type]: chance the attacker wins there
        out = np.empty(len(view.legal_moves))
        for i, (f, t) in enumerate(view.legal_moves):
            a = int(view.types[f])
            mine = PIECE_VALUE[a]
            here = self._danger(view, dist, f, a, f)
            if view.owner[t] == opp:
                win, _, loss = fight_odds(a, dist[t])
                if a in (MARSHAL, GENERAL) and not view.moved[t] and not view.revealed[t]:
                    out[i] = -5.0  # a top piece never probes unmoved pieces (bombs)
                    continue
                there = self._danger(view, dist, t, a, f)
                guard = 2.0 * (1.0 - loss) if _near_flag(view, t) else 0.0
                out[i] = 3.0 * (win * enemy_value[t] - loss * mine) + 5.0 * dist[t, FLAG] + here - win * there + guard
            else:
                there = self._danger(view, dist, t, a, f)
                prey = enemies[beaten[enemies, a] > 0.5]
                approach = _nearest(f, prey) - _nearest(t, prey)
                out[i] = 2.0 * (here - there) + 0.1 * _forward(view.player, f, t) + 0.05 * approach
        return out

    @staticmethod
    def _danger(view: PlayerView, dist: np.ndarray, sq: int, a: int, vacated: int) -> float:
        """Expected material a piece of type ``a`` standing on ``sq`` risks from adjacent opponent pieces."""
        risk = 0.0
        for nb in (sq - 10, sq + 10, sq - 1 if sq % 10 else -1, sq + 1 if sq % 10 != 9 else -1):
            if 0 <= nb < 100 and nb != vacated and view.owner[nb] == 1 - view.player:
                risk = max(risk, threat_odds(dist[nb], a))
        return risk * PIECE_VALUE[a]


register_agent("greedy", GreedyAgent, summary="Asmodeus-like: best favourable attack by win probability, else advance")
register_agent("cautious", CautiousAgent, summary="Hunter-like: expected-material attacks, danger and retreat")
