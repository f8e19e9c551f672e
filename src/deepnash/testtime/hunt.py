"""Hunting a revealed piece: the move that sends one of the player's pieces that beats it at it.

Once one of the opponent's officers is revealed and among the player's pieces, it takes one of them every
other ply: the search, two plies deep, sees the next capture and saves that piece, never the five moves that
bring a stronger piece of the player's to it.  In the 200 games of ``shipped:classic`` against ``cautious``
(seed 506, ``hold`` shipped), the opponent's revealed Captains to Generals took 9.7 of the player's pieces
in each lost game, and 5.2 in each won one; in one loss a revealed Colonel took nine in a row along the back
rows while the player's Marshal walked off to trade with the opponent's.  ``hunting_move`` gives the search
the first step of the chase as a candidate (``SearchConfig.hunt``).  At ``hunt=0.15`` the agent was level with
the shipped one against ``cautious`` (106-1-7 on the same 114 games), and lost as many pieces to revealed
officers, so no shipped agent uses it (docs/results.md, "Hunting a revealed officer").
"""

from __future__ import annotations

import numpy as np

from ..game import Move
from ..game.pieces import CAPTAIN, GENERAL, MARSHAL
from ..infostate.view import PlayerView
from .flag_guard import raid_steps, step_towards

#: The weakest revealed piece of the opponent's that is hunted: weaker ones take little and are taken by the
#: pieces near them.
HUNTED = CAPTAIN

#: Hunters more than this many rook steps (round pieces and lakes) from their quarry stay where they are.
HUNT_REACH = 8


def hunting_move(view: PlayerView, moves: list[Move], reach: int = HUNT_REACH) -> Move | None:
    """The move among ``moves`` that takes one of ``view.player``'s pieces at a revealed opponent piece it beats
    (a Captain to a General, ``HUNTED``), through ``flag_guard.step_towards``: its attack where they stand
    side by side, else its step that most shortens its way.  The nearest pair of hunter and quarry within
    ``reach`` rook steps (round pieces and lakes) is chased, the weakest hunter first among equally near ones,
    and the next pair where ``moves`` holds no such move for it.  ``None`` where there is no such pair.

    The opponent's Marshal is not hunted (nothing but the Spy beats it, and ``spy_guard`` and
    ``flag_guard.evicting_move`` see to it); the hunter is known to win, so its own risk on the way is the
    search's to weigh."""
    me = view.player
    quarry = np.flatnonzero((view.owner == 1 - me) & view.revealed & (view.types >= HUNTED)
                            & (view.types <= GENERAL))
    ours = np.flatnonzero((view.owner == me) & (view.types <= MARSHAL))
    pairs = [(int(h), int(q)) for q in quarry for h in ours if view.types[h] > view.types[q]]
    if not pairs:
        return None
    passable = np.repeat((view.owner < 0)[None], len(pairs), axis=0)
    passable[np.arange(len(pairs)), [h for h, _ in pairs]] = True
    dist = raid_steps(passable, np.array([q for _, q in pairs]), reach)
    near = sorted((int(dist[i, h]), int(view.types[h]), i) for i, (h, _) in enumerate(pairs) if dist[i, h] <= reach)
    for _, _, i in near:
        move = step_towards(view, moves, *pairs[i], dist[i])
        if move is not None:
            return move
    return None
