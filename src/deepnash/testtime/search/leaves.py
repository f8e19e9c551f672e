"""How the search scores a leaf: a finished game by its result, an unfinished one by the value head or by
material (``SearchConfig.leaf``), with the heuristics' leaf terms (``plugin.Heuristic.leaf_term``).

``value``: the value head's judgement for the player searching.  ``material``: ``tanh`` of the player's piece
values less the opponent's (``leaf.piece_values``) on the sampled complete state.  ``progress``: that times
``1 - r**2``, less ``r**2`` times the draw's cost (``Turn.draw_score``), ``r`` how near the leaf is to a draw limit
(``leaf.draw_nearness``): a lead is worth less the closer the draw, so the side ahead attacks and the side behind
stalls.  ``gain``: ``progress`` with the material term measured from the root, ``tanh(d_leaf - d_root)``, so that a
Marshal lost costs as much far ahead or far behind as level.  A rollout that ended drawn scores as a leaf at the
limit (``r = 1``); with the ``value`` leaf, ``-draw_score``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..leaf import draw_nearness, material_difference
from .plugin import Heuristic, Leaves, Turn

#: ``(rows bool[B]) -> float[R]``: the value head's judgement of the games ``rows`` for the player searching.
ValueOf = Callable[[np.ndarray], np.ndarray]


def score_leaves(turn: Turn, leaves: Leaves, heuristics: list[Heuristic], value_of: ValueOf, worth: np.ndarray,
                 root: np.ndarray | None, deltas: dict[str, np.ndarray]) -> None:
    """Score the games of ``leaves`` the rollouts left unfinished (``leaves.live``) or drawn, in ``leaves.result``.

    Args:
        worth: ``float[12]``, each piece type's value to the material leaves.
        root: ``float[k * m]``, the material difference on each sample before the candidate move (``gain``).
        deltas: each heuristic's leaf terms are added, per game, to its entry (``float[k * m]``).
    """
    cfg, env, result, drawn, live = turn.config, leaves.env, leaves.result, leaves.drawn, leaves.live
    if cfg.leaf == "value":
        if live.any():
            result[live] = value_of(live)
        result[drawn] = -turn.draw_score
        return
    rows = live | drawn
    if not rows.any():
        return
    board = env.state.board[rows]
    lead = material_difference(board, leaves.me, worth)
    if cfg.leaf == "material":
        near = np.zeros(rows.sum())
    else:
        delay = (turn.attack_delay(board, env.player[rows], env.state.flags[rows]) if turn.attack_delay is not None
                 else 0)
        near = draw_nearness(env.state.meta[rows], turn.view.variant, delay) ** 2
    near[drawn[rows]] = 1.0
    gained = np.tanh(lead - root[rows]) if cfg.leaf == "gain" else np.tanh(lead)
    result[rows] = gained - near * (np.maximum(np.tanh(lead), turn.draw_floor) + turn.draw_score)
    for h in heuristics:
        term = h.leaf_term(turn, leaves, rows)
        if term is not None:
            result[rows] += term
            deltas[h.name][rows] += term
    if cfg.value_weight > 0 and live.any():  # the value's judgement of the unfinished leaves
        result[live] += cfg.value_weight * value_of(live)
