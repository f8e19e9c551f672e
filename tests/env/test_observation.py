"""The 82-plane observation against spec/observation.md ("What a test must pin")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.env import SetupPool, VectorEnv, square_to_action
from deepnash.env.encode import encode
from deepnash.game import BARRAGE, CLASSIC, Game, Move

from env_reference import observation
from env_tracking import run

SHORT_CLASSIC = CLASSIC.with_rules(max_moves=300, max_moves_without_attack=100)


def reference(env, b, m, player):
    v = env.variant
    mine = player == env.player[b]
    return observation(v.lakes, m.placed[0], m.placed[1], m.moves, player, deploying=m.game is None,
                       step=int(env.substep[b]) if mine else 0, selected=m.selected,
                       max_moves=v.max_moves, max_no_attack=v.max_moves_without_attack)


def check_against_reference(env, b, m):
    p = int(env.player[b])
    assert env.obs.dtype == np.float32 and env.obs[b].shape == (82, 10, 10)
    np.testing.assert_allclose(env.obs[b], reference(env, b, m, p), atol=1e-6, err_msg=f"slot {b} player {p}")
    other = env.encode(b, 1 - p)
    assert other.dtype == np.float32 and other.shape == (82, 10, 10)
    np.testing.assert_allclose(other, reference(env, b, m, 1 - p), atol=1e-6, err_msg=f"slot {b} observer {1 - p}")


@pytest.mark.parametrize("variant, setups, steps, games", [
    (BARRAGE, "learned", 1500, 4),
    (SHORT_CLASSIC, "learned", 900, 2),
    (SHORT_CLASSIC, ("random", "learned"), 700, 2),
])
def test_every_plane_matches_slow_reference_every_step(variant, setups, steps, games):
    env = VectorEnv(2, variant, setups=setups, seed=3)
    assert run(env, steps, check_against_reference) >= games


def check_public_sums(env, b, m, exact_sums=[0]):
    if m.game is None:
        assert not env.obs[b, 13:37].any()
        return
    board, flags = m.game.state.board[0], m.game.state.flags[0]
    for player in (0, 1):
        obs = env.encode(b, player).reshape(82, 100)
        for base, owner in ((13, 1 - player), (25, player)):
            pub = obs[base:base + 12]
            squares = np.flatnonzero((board > 12 * owner) & (board <= 12 * owner + 12))
            frame = [square_to_action(s, player) for s in squares]
            np.testing.assert_allclose(pub[:, frame].sum(axis=0), 1.0, atol=1e-5)
            assert pub.sum(axis=0)[np.setdiff1d(np.arange(100), frame)].max(initial=0) == 0
            # Equation 6 as written gives an unmoved unknown piece the distribution of *all* unknown
            # pieces, so the per-type sums equal the piece counts only while no unknown piece of the
            # player has moved (the paper's claim of exactness needs that; see the module docstring
            # of deepnash.env.encode).
            if not any(flags[s] & 2 and not flags[s] & 1 for s in squares):
                counts = np.bincount(board[squares] - 1 - 12 * owner, minlength=12)
                np.testing.assert_allclose(pub.sum(axis=1), counts, atol=1e-4)
                exact_sums[0] += 1


def test_public_rows_and_type_sums():
    sums = [0]
    env = VectorEnv(2, SHORT_CLASSIC, setups="random", seed=11)
    run(env, 600, lambda env, b, m: check_public_sums(env, b, m, sums))
    assert sums[0] >= 20


def swapped(env, b):
    """Game ``b``'s position with the colours swapped and the board rotated 180 degrees."""
    s = env.state
    board = s.board[b, ::-1].copy()
    pieces = board > 0
    board[pieces] = np.where(board[pieces] <= 12, board[pieces] + 12, board[pieces] - 12)
    moves = env.moves[b:b + 1].copy()
    moves[..., :2] = 99 - moves[..., :2]
    return board[None], s.flags[b:b + 1, ::-1].copy(), moves


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 600), variant=st.sampled_from([BARRAGE, SHORT_CLASSIC]))
def test_blue_view_is_red_view_of_swapped_rotated_position(seed, steps, variant):
    env = VectorEnv(1, variant, seed=seed)
    for _ in range(steps):
        env.step(env.random_actions())
    board, flags, moves = swapped(env, 0)
    meta = env.state.meta[0]
    sel = int(env.selected[0])
    for observer in (0, 1):
        sub = int(env.substep[0]) if env.player[0] == observer else 0
        mine = env.encode(0, observer).reshape(82, 100)
        theirs = np.zeros((82, 100), np.float32)
        encode(board, flags, meta[1], meta[2], moves, env.move_count[:1], bool(env.deploying[0]), sub,
               99 - sel if sel >= 0 else -1, env._cfg[6], 0, 1 - observer, theirs)
        np.testing.assert_array_equal(mine, theirs)


def unrevealed_pair(game, rng):
    """Two unrevealed Blue pieces of different types, both unmoved or both moved: exchanging their
    types keeps every move played so far legal and every public fact the same."""
    board, flags = game.state.board[0], game.state.flags[0]
    for moved in (0, 2):
        cand = [sq for sq in range(100) if board[sq] > 12 and flags[sq] & 1 == 0 and flags[sq] & 2 == moved]
        rng.shuffle(cand)
        for i, a in enumerate(cand):
            for c in cand[i + 1:]:
                if board[a] != board[c]:
                    return a, c
    raise AssertionError("no pair of hidden Blue pieces to exchange")


@pytest.mark.parametrize("variant, steps", [(BARRAGE, 40), (SHORT_CLASSIC, 60), (SHORT_CLASSIC, 240)])
def test_no_plane_depends_on_hidden_opponent_types(variant, steps):
    rng = np.random.default_rng(steps)
    env = VectorEnv(1, variant, setups="random", seed=steps)
    setups = env.setup[0].copy()
    game = Game(variant, setups[0], setups[1])
    actions = []
    for _ in range(steps // 2):
        pair = [int(env.random_actions()[0]), 0]
        env.step(np.array([pair[0]]))
        pair[1] = int(env.random_actions()[0])
        env.step(np.array([pair[1]]))
        if env.done[0]:
            break
        actions += pair
        game.push(Move(*(a if game.turn == 0 else 99 - a for a in pair)))
    a_now, c_now = unrevealed_pair(game, rng)
    origin = {sq: sq for sq in range(100)}
    for mv in game.move_stack:
        origin[mv.to_sq] = origin.pop(mv.from_sq)
    a0, c0 = origin[a_now], origin[c_now]
    other_blue = setups[1].copy()
    other_blue[a0], other_blue[c0] = other_blue[c0], other_blue[a0]
    envs = [VectorEnv(1, variant, setups=(SetupPool(variant, setups[0][None]), SetupPool(variant, blue[::-1][None])))
            for blue in (setups[1], other_blue)]
    blue_differs = False
    for a in actions + [None]:
        x, y = (e.encode(0, 0) for e in envs)
        np.testing.assert_array_equal(x, y)
        if envs[0].player[0] == 0:
            np.testing.assert_array_equal(envs[0].mask, envs[1].mask)
        blue_differs |= not np.array_equal(*(e.encode(0, 1) for e in envs))
        if a is not None:
            for e in envs:
                e.step(np.array([a]))
    assert blue_differs  # Blue's own private planes do see the exchange
