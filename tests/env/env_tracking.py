"""Mirror every slot of a ``VectorEnv`` from the actions alone: setups, moves, and an engine ``Game``."""

from __future__ import annotations

import numpy as np

from deepnash.env import VectorEnv, action_to_square
from deepnash.game import Game, Move


class SlotMirror:
    """What one slot's game is, rebuilt from the actions taken in it (or the setups it started from)."""

    def __init__(self, env: VectorEnv, b: int):
        self.variant = env.variant
        learned = [s == "learned" for s in env.setup_sources]
        self.placed = [np.full(100, -1, np.int8) if learned[p] else env.setup[b, p].copy() for p in (0, 1)]
        self.count = [0, 0]
        self.order = env.deploy_order
        self.moves: list[tuple[int, int]] = []
        self.selected = -1
        self.game: Game | None = None if any(learned) else Game(self.variant, *self.placed)

    def act(self, player: int, action: int) -> None:
        sq = action_to_square(action, player)
        if self.game is None:
            self.placed[player][sq] = self.order[self.count[player]]
            self.count[player] += 1
            if all(int((p >= 0).sum()) == len(self.order) for p in self.placed):
                self.game = Game(self.variant, *self.placed)
        elif self.selected < 0:
            self.selected = sq
        else:
            self.game.push(Move(self.selected, sq))
            self.moves.append((self.selected, sq))
            self.selected = -1


def run(env: VectorEnv, steps: int, check) -> int:
    """Step ``env`` with random legal actions, calling ``check(env, b, mirror)`` for every slot before
    every step; returns the number of games finished."""
    mirrors = [SlotMirror(env, b) for b in range(env.batch_size)]
    finished = 0
    for _ in range(steps):
        for b, m in enumerate(mirrors):
            check(env, b, m)
        actions = env.random_actions().copy()
        for b, m in enumerate(mirrors):
            m.act(int(env.player[b]), int(actions[b]))
        env.step(actions)
        for b in np.flatnonzero(env.done):
            m = mirrors[b]
            assert m.game is not None and m.game.is_over(), f"slot {b} ended but its mirror did not"
            assert tuple(env.rewards[b]) == m.game.outcome().returns()
            assert env.winner[b] == (-1 if m.game.outcome().winner is None else m.game.outcome().winner)
            assert env.length[b] == m.game.ply
            finished += 1
            mirrors[b] = SlotMirror(env, b)
        for b, m in enumerate(mirrors):
            if not env.done[b] and m.game is not None:
                assert not m.game.is_over()
                assert np.array_equal(env.state.board[b], m.game.state.board[0])
    return finished
