"""Random games for the notation tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from deepnash.game import Game

DATA = Path(__file__).parent / "data"


def random_game(variant, seed: int, moves: int) -> Game:
    """``Game(variant, seed=seed)`` after up to ``moves`` uniformly random moves (fewer if it ends)."""
    g = Game(variant, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = g.legal_moves()
        if not legal:
            break
        g.push(legal[rng.integers(len(legal))])
    return g


def continue_both(a: Game, b: Game, seed: int, moves: int) -> None:
    """Play the same random moves on ``a`` and ``b``, asserting at every step that they agree."""
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = a.legal_moves()
        assert b.legal_moves() == legal
        assert a.outcome() == b.outcome()
        if not legal:
            return
        m = legal[rng.integers(len(legal))]
        assert a.push(m) == b.push(m)
