"""Thresholding and discretisation at test time (paper Table 5: eps 0.03, n_disc 32 deploy / 16 play)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.testtime import TestTimeConfig, TestTimeLayer
from deepnash.testtime.policy import check_policy, project, remove_actions

CFG = TestTimeConfig()


def policy_of(*probs: float) -> np.ndarray:
    p = np.zeros(100)
    p[: len(probs)] = probs
    return p / p.sum()


def test_threshold_that_would_empty_the_support_leaves_the_policy_unchanged():
    flat = np.zeros(100)
    flat[:40] = 1 / 40  # every action at 0.025 < 0.03
    thresholded, _ = project(flat, "play", TestTimeConfig(discretize=False))
    np.testing.assert_array_equal(thresholded, flat)


def test_threshold_drops_small_actions_and_renormalises():
    thresholded, _ = project(policy_of(0.7, 0.2, 0.08, 0.02), "play", TestTimeConfig(discretize=False))
    np.testing.assert_allclose(thresholded[:4], [0.7 / 0.98, 0.2 / 0.98, 0.08 / 0.98, 0.0])


@pytest.mark.parametrize("phase, expected", [
    # 0.5, 0.3, 0.2 in sixteenths: 8, ceil(4.8) = 5, then only 3 of ceil(3.2) = 4 remain.
    ("play", [8 / 16, 5 / 16, 3 / 16]),
    # in 32nds: 16, ceil(9.6) = 10, ceil(6.4) = 7 > the 6 left.
    ("deploy", [16 / 32, 10 / 32, 6 / 32]),
])
def test_discretisation_worked_examples(phase, expected):
    _, final = project(policy_of(0.5, 0.3, 0.2), phase, CFG)
    np.testing.assert_allclose(final[:3], expected)
    assert final[3:].sum() == 0


def test_threshold_then_discretise_worked_example():
    # 0.02 is dropped; 0.7/0.98 = 0.714 -> 12/16, 0.2/0.98 = 0.204 -> 4/16, nothing left for 0.08/0.98.
    _, final = project(policy_of(0.7, 0.2, 0.08, 0.02), "play", CFG)
    np.testing.assert_allclose(final[:4], [12 / 16, 4 / 16, 0, 0])
    # Deployment: 22.86 -> 23, 6.53 -> 7, 2.61 -> 3 but only 2 left.
    _, final = project(policy_of(0.7, 0.2, 0.08, 0.02), "deploy", CFG)
    np.testing.assert_allclose(final[:4], [23 / 32, 7 / 32, 2 / 32, 0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=100).filter(lambda xs: sum(xs) > 1e-3),
       st.sampled_from(["deploy", "play"]))
def test_projection_is_a_distribution_on_quanta_within_the_support(xs, phase):
    p = policy_of(*xs)
    _, final = project(p, phase, CFG)
    n = 32 if phase == "deploy" else 16
    assert final.sum() == pytest.approx(1.0)
    assert np.all(final[p == 0] == 0)
    np.testing.assert_allclose(final * n, np.round(final * n), atol=1e-9)
    assert final.argmax() == p.argmax() or final[p.argmax()] == final.max()


def test_removing_every_supported_action_keeps_the_policy():
    p = policy_of(0.6, 0.4)
    kept, gone = remove_actions(p, p > 0)
    np.testing.assert_array_equal(kept, p)
    assert not gone.any()
    kept, gone = remove_actions(p, np.arange(100) == 0)
    assert kept[1] == 1.0 and gone[0] and gone.sum() == 1


def test_all_layers_off_plays_the_raw_policy():
    layer = TestTimeLayer(TestTimeConfig.all_off())
    raw = policy_of(0.5, 0.49, 0.01)
    final, log = layer.policy(raw, raw > 0, "deploy")
    np.testing.assert_array_equal(final, raw)
    assert log.effects == []


@pytest.mark.parametrize("policy, legal, match", [
    (np.ones(99), np.ones(99, bool), "100 entries"),
    (policy_of(0.5, 0.5), np.zeros(100, bool), "no legal action"),
    (policy_of(0.5, 0.5), np.arange(100) == 0, "illegal actions"),
    (-policy_of(0.5, 0.5), np.ones(100, bool), "negative"),
])
def test_bad_policies_are_rejected(policy, legal, match):
    with pytest.raises(ValueError, match=match):
        check_policy(policy, legal)


def test_unknown_phase_is_rejected():
    with pytest.raises(ValueError, match="phase"):
        project(policy_of(1.0), "endgame", CFG)
