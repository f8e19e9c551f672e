"""VectorEnv.random_move_actions: the random bot's two actions make every legal move equally likely."""

from collections import Counter

import numpy as np

from deepnash.env import SetupPool, VectorEnv
from deepnash.game import Game, get_variant
from deepnash.game.state import deployment_types


def first_moves(env, picker):
    """Red's first move in every slot, as (from, to) absolute squares, drawn by ``picker(env)``."""
    select = picker(env).copy()
    env.step(select)
    displace = picker(env).copy()
    return Counter(zip(select.tolist(), displace.tolist()))


def chi_square(counts, moves, n):
    expected = n / len(moves)
    return sum((counts.get(m, 0) - expected) ** 2 / expected for m in moves)


def test_every_legal_move_is_equally_likely():
    barrage = get_variant("barrage")
    setup = VectorEnv(1, barrage, setups="random", seed=11).setup[0, 0].copy()
    pool = SetupPool(barrage, setup[None])  # Blue gets the same setup, rotated by 180 degrees
    n = 6000
    game = Game.from_setups(barrage, deployment_types(barrage, 0, setup), deployment_types(barrage, 1, setup[::-1]))
    moves = {(m.from_sq, m.to_sq) for m in game.legal_moves()}
    pieces = Counter(f for f, _ in moves)
    assert len(moves) > len(pieces) > 1  # some piece has several moves, else the two samplers agree

    counts = first_moves(VectorEnv(n, "barrage", setups=pool, seed=3), VectorEnv.random_move_actions)
    assert set(counts) == moves
    # chi-square with len(moves) - 1 degrees of freedom; the 0.999 quantile is below df + 5 sqrt(2 df)
    df = len(moves) - 1
    assert chi_square(counts, moves, n) < df + 5 * np.sqrt(2 * df)

    # the per-step sampler (uniform piece, then uniform square) fails the same test
    per_step = first_moves(VectorEnv(n, "barrage", setups=pool, seed=3), VectorEnv.random_actions)
    assert chi_square(per_step, moves, n) > df + 5 * np.sqrt(2 * df)


def test_deployment_and_finished_games():
    env = VectorEnv(8, "barrage", seed=2, auto_reset=False)
    while env.deploying.any():
        a = env.random_move_actions()
        assert all(env.mask[b, a[b]] for b in range(8))
        env.step(a)
    for _ in range(4000):
        a = env.random_move_actions()
        live = env.mask.any(axis=1)
        assert all(a[b] == -1 for b in np.flatnonzero(~live))
        assert all(env.mask[b, a[b]] for b in np.flatnonzero(live))
        if not live.any():
            break
        env.step(a)
    assert not env.mask.any()
