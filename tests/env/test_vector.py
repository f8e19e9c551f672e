"""VectorEnv mechanics: seeding, auto-reset, setup sources, observe=False, zero-copy buffers."""

import numpy as np
import pytest
import torch

from deepnash.env import SetupPool, VectorEnv, deploy_order, human_pool
from deepnash.game import BARRAGE, CLASSIC, InvalidSetupError, Variant


def trajectory(env, steps):
    out = []
    for _ in range(steps):
        a = env.random_actions().copy()
        out.append((a, env.obs.copy(), env.mask.copy(), env.player.copy()))
        env.step(a)
        out.append((env.rewards.copy(), env.done.copy()))
    return out


def same(x, y):
    return all(all(np.array_equal(a, b) for a, b in zip(u, v)) for u, v in zip(x, y))


def test_same_seed_same_run_and_reset_reseeds():
    a, b = VectorEnv(3, "barrage", seed=42), VectorEnv(3, "barrage", seed=42)
    run_a = trajectory(a, 300)
    assert same(run_a, trajectory(b, 300))
    assert not same(run_a, trajectory(VectorEnv(3, "barrage", seed=43), 300))
    a.reset(seed=42)
    assert same(run_a, trajectory(a, 300))


def test_observe_false_keeps_masks_and_rewards():
    a, b = VectorEnv(4, "barrage", seed=5), VectorEnv(4, "barrage", seed=5, observe=False)
    for _ in range(500):
        assert np.array_equal(a.mask, b.mask) and np.array_equal(a.player, b.player)
        act = a.random_actions()
        b.random_actions()
        a.step(act)
        b.step(act)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.done, b.done)
    assert not b.obs.any()


def test_auto_reset_starts_next_game_in_the_same_step():
    env = VectorEnv(2, "barrage", seed=9)
    n = len(env.deploy_order)
    ended = 0
    for _ in range(3000):
        env.step(env.random_actions())
        for b in np.flatnonzero(env.done):
            ended += 1
            assert env.rewards[b].sum() == 0 and set(env.rewards[b]) <= {-1, 0, 1}
            assert env.deploying[b] and env.player[b] == 0 and env.move_count[b] == 0
            assert env.obs[b, 79].all() and not env.obs[b, 13:77].any()  # deployment: phase 1, no Pub, no moves
            assert env.mask[b].sum() == len(BARRAGE.deploy_squares(0)) and env.length[b] > 0
            assert env.state.meta[b, 1] == 0
        assert not env.rewards[~env.done].any()
    assert ended >= 3 and n == 8


def test_deployment_places_pieces_in_paper_order_alternating():
    env = VectorEnv(1, "classic", seed=0)
    order = deploy_order(CLASSIC)
    assert "".join("FS23456789MB"[t] for t in order) == "F" + "B" * 6 + "M98877766665555444433333222222" + "22S"
    for i in range(80):
        assert env.player[0] == i % 2 and env.deploying[0]
        a = int(np.flatnonzero(env.mask[0])[-1])
        env.step(np.array([a]))
        sq = a if i % 2 == 0 else 99 - a
        assert env.setup[0, i % 2, sq] == order[i // 2]
    assert not env.deploying[0] and env.player[0] == 0 and env.substep[0] == 0


def test_pool_setups_and_errors():
    pool = human_pool("barrage")
    assert len(pool) > 100
    env = VectorEnv(8, "barrage", setups=pool, seed=1)
    rows = {r.tobytes() for r in pool.setups}
    for b in range(8):
        assert env.setup[b, 0].tobytes() in rows and env.setup[b, 1, ::-1].tobytes() in rows
    assert not env.deploying.any()
    with pytest.raises(ValueError, match="setup pool for 'barrage'"):
        VectorEnv(1, "classic", setups=pool)
    with pytest.raises(ValueError, match="unknown setup source"):
        VectorEnv(1, "classic", setups="human")
    bad = pool.setups[:1].copy()
    bad[0, bad[0] == 0] = 1
    with pytest.raises(InvalidSetupError, match="setup 0 has the wrong pieces"):
        SetupPool(BARRAGE, bad)


def test_custom_variant_and_zero_copy():
    tiny = Variant("tiny", piece_counts=(1, 0, 3, 1, 0, 0, 0, 0, 0, 0, 1, 2), deploy_rows=2, max_moves=50)
    env = VectorEnv(2, tiny, seed=2)
    t_obs, t_mask = torch.from_numpy(env.obs), torch.from_numpy(env.mask)
    done = 0
    for _ in range(400):
        env.step(env.random_actions())
        done += int(env.done.sum())
        assert torch.equal(t_mask, torch.from_numpy(env.mask.copy()))
    assert t_obs.data_ptr() == env.obs.ctypes.data and done > 0
    assert env.obs[..., 77, :, :].max() <= 1.0
