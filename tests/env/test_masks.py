"""The legal-action mask at every step of whole random games equals the rules engine's legal moves,
and rewards at the end are +1/-1/0 for both players."""

import numpy as np
import pytest

from deepnash.env import IllegalActionError, VectorEnv, square_to_action
from deepnash.game import CLASSIC

from env_tracking import run


def engine_mask(env, b, m) -> np.ndarray:
    p = int(env.player[b])
    want = np.zeros(100, bool)
    if m.game is None:
        for sq in env.variant.deploy_squares(p):
            if m.placed[0][sq] < 0 and m.placed[1][sq] < 0:
                want[square_to_action(sq, p)] = True
        return want
    assert m.game.turn == p
    for mv in m.game.legal_moves():
        if m.selected < 0:
            want[square_to_action(mv.from_sq, p)] = True
        elif mv.from_sq == m.selected:
            want[square_to_action(mv.to_sq, p)] = True
    return want


def check_mask(env, b, m):
    assert np.array_equal(env.mask[b], engine_mask(env, b, m)), f"slot {b}"
    assert bool(env.deploying[b]) == (m.game is None)


@pytest.mark.parametrize("variant, setups, steps, games", [
    ("barrage", "learned", 3000, 8),
    ("barrage", ("random", "learned"), 2000, 4),
    (CLASSIC.with_rules(max_moves=400), ("learned", "random"), 2000, 4),
    ("classic", "learned", 6000, 2),
])
def test_mask_matches_engine_every_step(variant, setups, steps, games):
    env = VectorEnv(4, variant, setups=setups, seed=7, observe=False)
    assert run(env, steps, check_mask) >= games


def test_illegal_action_changes_nothing():
    env = VectorEnv(3, "barrage", seed=1)
    for _ in range(40):
        env.step(env.random_actions())
    before = (env.obs.copy(), env.mask.copy(), env.player.copy(), env.state.board.copy())
    actions = env.random_actions().copy()
    bad = int(np.flatnonzero(~env.mask[1])[0])
    actions[1] = bad
    with pytest.raises(IllegalActionError, match=f"game 1: action {bad}"):
        env.step(actions)
    after = (env.obs, env.mask, env.player, env.state.board)
    assert all(np.array_equal(x, y) for x, y in zip(before, after))
    with pytest.raises(ValueError, match="shape"):
        env.step(actions[:2])
