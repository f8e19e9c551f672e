"""Value bounds: a two-step look-ahead with the value network that removes obvious blunders.

Source: the DeepNash paper (arXiv), supplementary "Value bounds heuristic",
equation 8 and Table 5 (``eps_vb = 0.05``); ``spec/test_time.md`` item 6.

For each legal move ``a`` of the agent the upper bound

    vhat(x, a) = max_{h in x} min_{a' in A_safe(h a)} v(x(h a a'))

is compared with the value ``v(x)`` of the current information state; ``a``
is removed (if other moves remain) when ``vhat(x, a) + eps_vb < v(x)``.  The
opponent's private information ``h`` is taken at its best for the agent,
the opponent's reply ``a'`` at its worst among *safe* replies only, judged
on public information alone: the piece is known to be movable, a move of
more than one square is by a known Scout, an attack wins for every type
either piece may have, and no piece of the agent could then take the piece
(win or tie) on its new square.

Only two hidden opponent pieces can matter, the one ``a`` attacks (type
``t1``) and the one that attacks in ``a'`` (type ``t2``), so instead of
enumerating hidden states we compute ``max_t1 min_a' max_t2 v``, which is
never below the paper's bound (swapping ``max_t2`` inside the ``min`` can
only raise it), so this layer removes no move the paper's would keep.
A move after which the opponent has no safe reply is never removed;
terminal positions score their result (+1 win, -1 loss, 0 draw).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..agents.base import MoveRecord, PlayerView, push_recorded
from ..agents.beliefs import FIGHT, IMMOVABLE
from ..game import Game, IllegalMoveError, Move
from ..game import kernels as K
from ..game.pieces import SCOUT
from .lookahead import move_rows, observe, position
from .public import EMPTY, PublicBoard

ValueFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ValueBounds:
    """The look-ahead's verdict on one decision.

    Attributes:
        value: ``v(x)``, the value of the current information state.
        bounds: upper bound ``vhat(x, a)`` per legal move (``inf`` when unbounded).
        removed: moves with ``bound + eps_vb < value`` (empty when that would be every move).
        evaluations: positions scored by the value function.
    """

    value: float
    bounds: dict[Move, float]
    removed: frozenset[Move]
    evaluations: int


def safe_replies(board: PublicBoard, player: int) -> list[Move]:
    """``player``'s safe moves on ``board`` (see the module docstring), from public information only."""
    possible = board.possible()
    out = []
    for sq in np.flatnonzero(board.owner == player):
        kinds = possible[sq] & ~IMMOVABLE
        known_movable = (board.known[sq] >= 0 and kinds.any()) or board.moved[sq]
        if not known_movable:
            continue
        scout = board.known[sq] == SCOUT
        for d in range(4):
            to = int(K.NEIGHBOUR[sq, d])
            while to >= 0 and board.owner[to] in (EMPTY, 1 - player):
                attack = board.owner[to] == 1 - player
                if (not attack or np.all(FIGHT[np.ix_(kinds, possible[to])] > 0)) and \
                        not _capturable(board, possible, int(sq), to, kinds, player):
                    out.append(Move(int(sq), to))
                if attack or not scout:
                    break
                to = int(K.NEIGHBOUR[to, d])
    return out


def _capturable(board: PublicBoard, possible: np.ndarray, f: int, t: int, kinds: np.ndarray, player: int) -> bool:
    """Could the other player take (or trade with) a piece of one of ``kinds`` arriving on ``t`` from ``f``?"""
    saved = board.owner[f], board.owner[t]
    board.owner[t], board.owner[f] = player, EMPTY
    try:
        return any(np.any(FIGHT[np.ix_(types, kinds)] >= 0) for _, types in board.attackers(t, 1 - player, possible))
    finally:
        board.owner[f], board.owner[t] = saved


class _Leaves:
    """The positions to score: observations for the value function, or a terminal result."""

    def __init__(self, me: int, rows: np.ndarray) -> None:
        self.me, self.rows, self.obs = me, rows, []

    def add(self, game: Game, records: Sequence[MoveRecord]) -> tuple[float | None, int]:
        if game.is_over():
            return game.outcome().returns()[self.me], -1
        self.obs.append(observe(game, np.concatenate([self.rows, move_rows(records)]), self.me))
        return None, len(self.obs) - 1


def value_bounds(
    view: PlayerView, value_fn: ValueFn, eps_vb: float = 0.05, moves: Iterable[Move] | None = None,
) -> ValueBounds:
    """Score legal moves of ``view.player`` with the two-step value upper bound.

    Args:
        view: the agent's view, the agent to move.
        value_fn: ``float32[N, 82, 10, 10] -> float32[N]``, the value of each
            observation (``lookahead.observe``, select step) for the player it
            belongs to: the value head, in [-1, 1].  Wrap it to change the
            network's input (e.g. eagerness) for every position alike.
        eps_vb: the margin (paper: 0.05).
        moves: the moves to bound (default: every legal move; the paper bounds the
            actions in the policy's support only).

    Raises:
        ValueError: ``view`` has no legal moves (the agent is not to move), a move
            in ``moves`` is not legal, or ``value_fn`` returns the wrong number of values.
    """
    if not view.legal_moves:
        raise ValueError(f"ply {view.ply}: player {view.player} has no legal move to bound")
    todo = list(view.legal_moves) if moves is None else list(dict.fromkeys(moves))
    if not set(todo) <= set(view.legal_moves):
        raise ValueError(f"ply {view.ply}: {sorted(set(todo) - set(view.legal_moves))} are not legal moves")
    me, opp = view.player, 1 - view.player
    start = PublicBoard.from_view(view)
    possible = start.possible()
    base = position(view)
    leaves = _Leaves(me, move_rows(view.history))
    leaves.add(base, ())
    scratch, reply_scratch = base.copy(), base.copy()
    # tree[(move, t1)][reply] = leaves (terminal value or None, observation index), one per t2
    tree: dict[tuple[Move, int], dict[Move | None, list[tuple[float | None, int]]]] = {}
    for a in todo:
        target_hidden = view.owner[a.to_sq] == opp and not view.revealed[a.to_sq]
        for t1 in (np.flatnonzero(possible[a.to_sq]) if target_hidden else [-1]):
            fixed = {a.to_sq: int(t1)} if t1 >= 0 else {}
            game = position(view, fixed) if fixed else _load(base, scratch)
            if game is None:
                continue
            rec_a = push_recorded(game, a)
            branch = tree.setdefault((a, int(t1)), {})
            if game.is_over():
                branch[None] = [leaves.add(game, [rec_a])]
                continue
            after = start.copy()
            after.apply(rec_a)
            after_possible = after.possible()
            for reply in safe_replies(after, opp):
                attacker_hidden = after.owner[reply.to_sq] == me and after.known[reply.from_sq] < 0
                kinds = np.flatnonzero(after_possible[reply.from_sq] & ~IMMOVABLE) if attacker_hidden else [-1]
                for t2 in kinds:
                    g2 = position(view, {**fixed, reply.from_sq: int(t2)}) if t2 >= 0 else _load(game, reply_scratch)
                    if g2 is None:
                        continue
                    try:
                        if t2 >= 0:
                            push_recorded(g2, a)
                        rec_r = push_recorded(g2, reply)
                    except IllegalMoveError:  # a repetition rule forbids it: not a reply at all
                        continue
                    branch.setdefault(reply, []).append(leaves.add(g2, [rec_a, rec_r]))
    values = np.asarray(value_fn(np.stack(leaves.obs)), dtype=np.float64).reshape(-1)
    if values.shape[0] != len(leaves.obs):
        raise ValueError(f"value_fn returned {values.shape[0]} values for {len(leaves.obs)} observations")

    def score(leaf: tuple[float | None, int]) -> float:
        return leaf[0] if leaf[0] is not None else float(values[leaf[1]])

    bounds = {a: -math.inf for a in todo}
    for (a, _), branch in tree.items():
        worst = min((max(score(e) for e in t2s) for t2s in branch.values()), default=math.inf)
        bounds[a] = max(bounds[a], worst)
    bounds = {a: (math.inf if b == -math.inf else b) for a, b in bounds.items()}
    v = float(values[0])
    removed = frozenset(a for a, b in bounds.items() if b + eps_vb < v)
    if len(removed) == len(view.legal_moves):
        removed = frozenset()
    return ValueBounds(v, bounds, removed, len(leaves.obs))


def _load(game: Game, scratch: Game) -> Game:
    """``scratch`` set to ``game``'s position (a cheap copy into a game allocated once)."""
    game.state.copy_game(0, 0, scratch.state)
    scratch.move_stack.clear()
    return scratch
