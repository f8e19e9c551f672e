"""Each loss, the policy helpers and the optimiser against hand-computed cases (spec §2, §4)."""

import math

import pytest
import torch

from deepnash.rnad.config import AdamConfig
from deepnash.rnad.losses import (critic_loss, legal_log_softmax, neurd_advantage, neurd_loss, outside_band_mass,
                                  regularised_log_ratio, step_weights, truncated_importance_weight)
from deepnash.rnad.optim import ClippedAdam


def test_legal_log_softmax_is_zero_on_illegal():
    pi, log_pi = legal_log_softmax(torch.tensor([0.0, math.log(2.0), 100.0]), torch.tensor([True, True, False]))
    torch.testing.assert_close(pi, torch.tensor([1 / 3, 2 / 3, 0.0]))
    torch.testing.assert_close(log_pi, torch.tensor([math.log(1 / 3), math.log(2 / 3), 0.0]))


def test_log_ratio_mixes_in_log_space():
    out = regularised_log_ratio(torch.tensor([-1.0]), torch.tensor([-2.0]), torch.tensor([-4.0]), 0.25)
    torch.testing.assert_close(out, torch.tensor([-1.0 - (0.25 * -2.0 + 0.75 * -4.0)]))
    with pytest.raises(ValueError, match="alpha"):
        regularised_log_ratio(torch.zeros(1), torch.zeros(1), torch.zeros(1), 1.5)


def test_critic_loss_is_sum_over_players_of_means():
    player = torch.tensor([[0], [0], [1], [1]])
    valid = torch.tensor([[True], [True], [True], [False]])
    w = step_weights([valid & (player == 0), valid & (player == 1)])
    value = torch.tensor([[1.0], [2.0], [3.0], [50.0]], requires_grad=True)
    loss = critic_loss(value, torch.zeros(4, 1), w)
    assert float(loss.detach()) == pytest.approx((1 + 4) / 2 + 9)
    loss.backward()
    torch.testing.assert_close(value.grad, torch.tensor([[1.0], [2.0], [6.0], [0.0]]))


def test_neurd_advantage_centres_and_clips():
    adv = neurd_advantage(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, 0.25, 0.25]), clip=1.0)
    torch.testing.assert_close(adv, torch.tensor([-0.75, 0.25, 1.0]))


@pytest.mark.parametrize("beta, loss_value, grad", [
    # z = [2, 0, -2]; beta 2: only action 1 (positive advantage, z < 2) is pushed.
    (2.0, 0.0, [1 / 3, -2 / 3, 1 / 3, 0.0]),
    # beta 3: every legal action is inside the band: force = [1, 1, -1].
    (3.0, -4.0, [-1 + 1 / 3, -1 + 1 / 3, 1 + 1 / 3, 0.0]),
])
def test_neurd_loss_band(beta, loss_value, grad):
    logits = torch.tensor([[[2.0, 0.0, -2.0, 5.0]]], requires_grad=True)
    legal = torch.tensor([[[True, True, True, False]]])
    adv = torch.tensor([[[1.0, 1.0, -1.0, 7.0]]])
    loss = neurd_loss(logits, legal, adv, torch.ones(1, 1), beta)
    assert float(loss.detach()) == pytest.approx(loss_value)
    loss.backward()
    torch.testing.assert_close(logits.grad[0, 0], torch.tensor(grad))


def test_outside_band_mass_weighs_each_players_steps_and_ignores_illegal_actions():
    # Step 0 (player 0): z = [3, 0, -3] (the illegal 9 is not in the mean): actions 0 and 2 lie outside beta 2.
    # Step 1 (player 1): z = [1, -1]: inside. Step 2 is padding (weight 0) with a huge logit.
    logits = torch.tensor([[[3.0, 0.0, -3.0, 9.0]], [[1.0, -1.0, 0.0, 0.0]], [[50.0, 0.0, 0.0, 0.0]]])
    legal = torch.tensor([[[True, True, True, False]], [[True, True, False, False]], [[True, True, False, False]]])
    weights = step_weights([torch.tensor([[True], [False], [False]]), torch.tensor([[False], [True], [False]])])
    pi, _ = legal_log_softmax(logits, legal)
    e = math.exp(3.0)
    expect = ((e + 1 / e) / (e + 1 + 1 / e) + 0.0) / 2
    assert outside_band_mass(pi, logits, legal, weights, 2.0) == pytest.approx(expect)
    assert outside_band_mass(pi, logits, legal, weights, 3.0) == pytest.approx(expect)  # |z| = beta counts
    assert outside_band_mass(pi, logits, legal, weights, 3.5) == 0.0
    assert outside_band_mass(pi, logits, legal, weights, 0.5) == pytest.approx((expect * 2 + 1) / 2)  # all of step 1


def test_truncated_importance_weight_is_one_on_policy_and_clips_and_weighs_steps():
    # Step 0 (player 0): pi(a) / mu(a) = 0.3 / 0.6.  Step 1 (player 1): 0.9 / 0.3 = 3, clipped to c_bar.
    # Step 2 is padding (weight 0) with mu(a) = 0, which must not turn the mean into NaN.
    pi = torch.tensor([[[0.3, 0.7]], [[0.9, 0.1]], [[0.5, 0.5]]])
    mu = torch.tensor([[[0.6, 0.4]], [[0.3, 0.7]], [[0.0, 1.0]]])
    action = torch.tensor([[0], [0], [-1]])
    weights = step_weights([torch.tensor([[True], [False], [False]]), torch.tensor([[False], [True], [False]])])
    assert truncated_importance_weight(pi, mu, action, weights, 1.0) == pytest.approx((0.5 + 1.0) / 2)
    assert truncated_importance_weight(pi, mu, action, weights, 2.0) == pytest.approx((0.5 + 2.0) / 2)
    assert truncated_importance_weight(pi, pi, action.clamp_min(0), weights, 1.0) == pytest.approx(1.0)


def test_clipped_adam_first_step_and_clip():
    p = torch.nn.Parameter(torch.tensor([1.0, 1.0]))
    opt = ClippedAdam([p], AdamConfig(learning_rate=0.1, clip=0.05))
    p.grad = torch.tensor([3.0, -0.5])
    opt.step()
    # b1 = 0: first update is -lr * g / |g| = -0.1 * sign(g), clipped to 0.05.
    torch.testing.assert_close(p.detach(), torch.tensor([0.95, 1.05]))
    p.grad = torch.tensor([1.0, 0.0])
    opt.step()
    v = 0.999 * 0.001 * 9 + 0.001 * 1  # second moment of element 0
    expect0 = 0.95 - min(0.05, 0.1 * 1.0 / (math.sqrt(v / (1 - 0.999**2)) + 1e-8))
    assert float(p.detach()[0]) == pytest.approx(expect0)
    assert float(p.detach()[1]) == pytest.approx(1.05)
