"""Helpers for the play tests."""

from __future__ import annotations

import numpy as np


def snapshot(game) -> tuple:
    """Everything that defines a game's state, for checking that bad input changed nothing."""
    s = game.state
    return (s.board.tobytes(), s.flags.tobytes(), s.meta.tobytes(), s.hist.tobytes(), tuple(game.move_stack),
            game.outcome())


def random_legal(session, rng: np.random.Generator) -> str:
    """A uniformly random legal move of the person in ``session``, as text."""
    moves = session.match.view().legal_moves
    return str(moves[int(rng.integers(len(moves)))])
