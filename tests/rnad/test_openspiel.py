"""OpenSpiel adapter and a short Kuhn poker run whose exact NashConv falls."""

import numpy as np
import pytest
import torch

pytest.importorskip("pyspiel")

from deepnash.rnad import AdamConfig, RNaDConfig, ScheduleConfig  # noqa: E402
from deepnash.rnad.mlp import PolicyValueMLP  # noqa: E402
from deepnash.rnad.openspiel_adapter import OpenSpielGame  # noqa: E402
from deepnash.rnad.policy_gradient import PolicyGradientLearner  # noqa: E402
from deepnash.rnad.small_games import SmallGamePreset, make_rnad, train  # noqa: E402


def uniform(obs, legal):
    return legal.float() / legal.float().sum(-1, keepdim=True)


def test_uniform_nash_conv_is_openspiel_value():
    # Kuhn poker: NashConv of the uniform policy is 11/12 (OpenSpiel's exploitability tests).
    assert OpenSpielGame("kuhn_poker").nash_conv(uniform) == pytest.approx(11 / 12)


def test_sampled_trajectories_are_consistent_and_zero_sum():
    game = OpenSpielGame("leduc_poker")
    traj = game.sample(uniform, 64, np.random.default_rng(0))
    traj.check_consistency()
    assert traj.observation.shape[1:] == (64, game.observation_size)
    torch.testing.assert_close(traj.rewards.sum(-1), torch.zeros(traj.valid.shape))
    # Kuhn has no ties: each game's only non-zero reward is at its last valid step.
    traj = OpenSpielGame("kuhn_poker").sample(uniform, 64, np.random.default_rng(1))
    last = traj.valid.sum(0) - 1
    final = traj.rewards[last, torch.arange(64), 0]
    assert torch.all(final != 0)
    assert float(traj.rewards[..., 0].abs().sum()) == pytest.approx(float(final.abs().sum()))
    # Players alternate in Kuhn/Leduc betting; the first decision is player 0's.
    assert torch.all(traj.player[0] == 0)


def test_rejects_games_rnad_cannot_learn():
    with pytest.raises(ValueError, match="players"):
        OpenSpielGame("kuhn_poker(players=3)")
    with pytest.raises(ValueError, match="batch_size"):
        OpenSpielGame("kuhn_poker").sample(uniform, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="illegal"):
        OpenSpielGame("leduc_poker").sample(lambda o, l: torch.ones(l.shape) / l.shape[1], 2, np.random.default_rng(0))


def test_short_kuhn_run_lowers_nash_conv_well_below_uniform():
    torch.set_num_threads(1)
    game = OpenSpielGame("kuhn_poker")
    preset = SmallGamePreset(RNaDConfig(batch_size=128, schedule=ScheduleConfig(sizes=(100,), repeats=(1,)),
                                        adam=AdamConfig(learning_rate=5e-4)), hidden=(64, 64))
    curve = train(game, make_rnad(game, preset, seed=0), 128, steps=300, evaluations=3, seed=0)
    first, last = curve.points[0][2], curve.points[-1][2]
    assert last < 0.4 * (11 / 12), curve.points
    assert last < first


def test_policy_gradient_baseline_learns_something():
    torch.manual_seed(0)
    game = OpenSpielGame("kuhn_poker")
    pg = PolicyGradientLearner(lambda: PolicyValueMLP(game.observation_size, game.num_actions, (32,)))
    curve = train(game, pg, 64, steps=30, evaluations=1, seed=0)
    assert curve.points[-1][1] == 30 and curve.points[-1][2] < curve.points[0][2]
