"""v-trace against a plainly written per-game backward loop (spec §3)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.rnad.vtrace import v_trace


def slow_v_trace(i, value, valid, player, policy, log_ratio, mu, action, reward, eta, rho_bar, c_bar):
    """Spec §3 read literally: one game at a time, python floats, backward from the end."""
    T, B, A = policy.shape
    v_out = np.zeros((T, B))
    q_out = np.zeros((T, B, A))
    for b in range(B):
        R, U, V_next, T_next, xi = 0.0, 0.0, 0.0, 0.0, 1.0
        for t in reversed(range(T)):
            if not valid[t, b]:
                R, U, V_next, T_next, xi = 0.0, 0.0, 0.0, 0.0, 1.0
                continue
            a = action[t, b]
            ratio = policy[t, b, a] / mu[t, b, a]
            ent = -eta * sum(policy[t, b, k] * log_ratio[t, b, k] for k in range(A))
            r = reward[t, b]
            v = value[t, b]
            if player[t, b] == i:
                U_t = r + U + ent
                vhat = v + min(rho_bar, ratio * xi) * (U_t + V_next - v) + min(c_bar, ratio * xi) * (T_next - V_next)
                for k in range(A):
                    q_out[t, b, k] = v - eta * log_ratio[t, b, k]
                    if k == a:
                        q_out[t, b, k] += (r + R + xi * T_next - v) / mu[t, b, a]
                v_out[t, b] = vhat
                R, U, V_next, T_next, xi = 0.0, 0.0, v, vhat, 1.0
            else:
                R = -ent + ratio * (r + R)
                U = r + U - ent
                xi = ratio * xi
    return v_out, q_out


def random_case(seed, T, B, A):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, T + 1, size=B)
    valid = np.arange(T)[:, None] < lengths[None, :]
    player = rng.integers(0, 2, size=(T, B))  # any order: repeated turns, chance-like skips
    legal = rng.random((T, B, A)) < 0.7
    legal[..., 0] |= ~legal.any(-1)
    def dist(scale):
        x = np.where(legal, np.exp(scale * rng.normal(size=(T, B, A))), 0.0)
        return x / x.sum(-1, keepdims=True)
    pi, mu, reg = dist(1.0), dist(1.0), dist(2.0)
    log_ratio = np.where(legal, np.log(np.where(legal, pi, 1)) - np.log(np.where(legal, reg, 1)), 0.0)
    action = np.array([[rng.choice(A, p=mu[t, b]) for b in range(B)] for t in range(T)])
    reward0 = np.where(valid, rng.normal(size=(T, B)), 0.0)
    return dict(value=rng.normal(size=(T, B)), valid=valid, player=player, policy=pi, log_ratio=log_ratio,
                mu=mu, action=action, reward=np.stack([reward0, -reward0], -1))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), T=st.integers(1, 9), B=st.integers(1, 4), A=st.integers(1, 4),
       eta=st.sampled_from([0.0, 0.2, 1.0]), rho_bar=st.sampled_from([math.inf, 1.0, 0.5]),
       c_bar=st.sampled_from([1.0, 0.7]))
def test_matches_slow_loop_for_both_players(seed, T, B, A, eta, rho_bar, c_bar):
    c = random_case(seed, T, B, A)
    tt = lambda x: torch.as_tensor(x)  # noqa: E731
    for i in (0, 1):
        out = v_trace(player_id=i, value=tt(c["value"]), valid=tt(c["valid"]), player=tt(c["player"]),
                      policy=tt(c["policy"]), log_ratio=tt(c["log_ratio"]), behaviour=tt(c["mu"]),
                      action=tt(c["action"]), reward=tt(c["reward"][..., i]), eta=eta, rho_bar=rho_bar, c_bar=c_bar)
        v_ref, q_ref = slow_v_trace(i, c["value"], c["valid"], c["player"], c["policy"], c["log_ratio"], c["mu"],
                                    c["action"], c["reward"][..., i], eta, rho_bar, c_bar)
        own = c["valid"] & (c["player"] == i)
        np.testing.assert_array_equal(out.own.numpy(), own)
        np.testing.assert_allclose(out.v_target.numpy(), v_ref, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(out.q_target.numpy(), q_ref, rtol=1e-9, atol=1e-9)


def test_on_policy_alternating_game_gives_the_monte_carlo_return():
    # pi == mu, eta = 0: vhat is the return of the game for the acting player.
    T, A = 5, 2
    pi = torch.full((T, 1, A), 0.5, dtype=torch.float64)
    reward = torch.zeros(T, 1, dtype=torch.float64)
    reward[-1] = 1.0  # player 0 wins on the last move
    player = torch.tensor([[0], [1], [0], [1], [0]])
    out0 = v_trace(player_id=0, value=torch.randn(T, 1, dtype=torch.float64), valid=torch.ones(T, 1, dtype=torch.bool),
                   player=player, policy=pi, log_ratio=torch.zeros_like(pi), behaviour=pi,
                   action=torch.zeros(T, 1, dtype=torch.long), reward=reward, eta=0.0)
    out1 = v_trace(player_id=1, value=torch.randn(T, 1, dtype=torch.float64), valid=torch.ones(T, 1, dtype=torch.bool),
                   player=player, policy=pi, log_ratio=torch.zeros_like(pi), behaviour=pi,
                   action=torch.zeros(T, 1, dtype=torch.long), reward=-reward, eta=0.0)
    assert out0.v_target[[0, 2, 4], 0].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert out1.v_target[[1, 3], 0].tolist() == pytest.approx([-1.0, -1.0])
    assert out0.v_target[[1, 3], 0].tolist() == [0.0, 0.0]


def test_rejects_bad_player_and_shapes():
    z = torch.zeros(2, 1)
    p = torch.ones(2, 1, 2) / 2
    kw = dict(value=z, valid=torch.ones(2, 1, dtype=torch.bool), player=torch.zeros(2, 1, dtype=torch.long),
              policy=p, log_ratio=torch.zeros_like(p), behaviour=p, action=torch.zeros(2, 1, dtype=torch.long),
              reward=z, eta=0.2)
    with pytest.raises(ValueError, match="player_id"):
        v_trace(player_id=2, **kw)
    with pytest.raises(ValueError, match="reward"):
        v_trace(player_id=0, **{**kw, "reward": torch.zeros(3, 1)})
    with pytest.raises(ValueError, match="behaviour"):
        v_trace(player_id=0, **{**kw, "behaviour": torch.ones(2, 1, 3)})


def test_float32_keeps_its_dtype_and_matches_float64():
    # The learner's tensors are float32; the compiled scan must take them and stay close to float64.
    c = random_case(7, 40, 3, 5)
    for i in (0, 1):
        ref = v_trace(player_id=i, value=torch.as_tensor(c["value"]), valid=torch.as_tensor(c["valid"]),
                      player=torch.as_tensor(c["player"]), policy=torch.as_tensor(c["policy"]),
                      log_ratio=torch.as_tensor(c["log_ratio"]), behaviour=torch.as_tensor(c["mu"]),
                      action=torch.as_tensor(c["action"]), reward=torch.as_tensor(c["reward"][..., i]), eta=0.2)
        f32 = lambda x: torch.as_tensor(x, dtype=torch.float32)  # noqa: E731
        out = v_trace(player_id=i, value=f32(c["value"]), valid=torch.as_tensor(c["valid"]),
                      player=torch.as_tensor(c["player"]), policy=f32(c["policy"]), log_ratio=f32(c["log_ratio"]),
                      behaviour=f32(c["mu"]), action=torch.as_tensor(c["action"]),
                      reward=f32(c["reward"][..., i]), eta=0.2)
        assert out.v_target.dtype == out.q_target.dtype == torch.float32
        np.testing.assert_allclose(out.v_target.numpy(), ref.v_target.numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out.q_target.numpy(), ref.q_target.numpy(), rtol=1e-4, atol=1e-3)
