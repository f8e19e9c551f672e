"""The entropy schedule, thresholding and discretisation against worked examples (spec §2, §5)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from deepnash.rnad.config import FineTuneConfig, RNaDConfig, ScheduleConfig
from deepnash.rnad.projection import discretise, project, threshold
from deepnash.rnad.schedule import schedule_point


@pytest.mark.parametrize("step, iteration, n, size, alpha, switch", [
    (0, 0, 0, 10, 0.0, False),
    (4, 0, 4, 10, 0.8, False),
    (5, 0, 5, 10, 1.0, False),
    (9, 0, 9, 10, 1.0, True),
    (10, 1, 0, 10, 0.0, False),
    (999, 99, 9, 10, 1.0, True),
    (1000, 100, 0, 100, 0.0, False),
    (1025, 100, 25, 100, 0.5, False),
    (7499, 164, 99, 100, 1.0, True),
    (7500, 165, 0, 35, 0.0, False),
    (7500 + 35 * 3 + 7, 168, 7, 35, 0.4, False),
])
def test_paper_shaped_schedule(step, iteration, n, size, alpha, switch):
    p = schedule_point(ScheduleConfig(sizes=(10, 100, 35), repeats=(100, 65, 1)), step)
    assert (p.iteration, p.step_in_iteration, p.iteration_size, p.switch) == (iteration, n, size, switch)
    assert p.alpha == pytest.approx(alpha)


def test_paper_defaults():
    c = RNaDConfig()
    assert (c.eta, c.gamma_avg, c.c_bar, c.batch_size, c.max_trajectory_length) == (0.2, 0.001, 1.0, 768, 3600)
    assert c.rho_bar == float("inf")
    assert (c.adam.learning_rate, c.adam.b1, c.adam.b2, c.adam.eps, c.adam.clip) == (5e-5, 0.0, 0.999, 1e-8, 10000)
    assert (c.neurd.beta, c.neurd.clip) == (2.0, 10000)
    assert (c.finetune.threshold, c.finetune.quanta, c.finetune.from_step) == (0.03, 32, None)
    assert schedule_point(c.schedule, 100 * 10_000).iteration_size == 100_000


@pytest.mark.parametrize("bad", [dict(sizes=(), repeats=()), dict(sizes=(1, 2), repeats=(1,)),
                                 dict(sizes=(0,), repeats=(1,)), dict(sizes=(3,), repeats=(0,))])
def test_schedule_config_rejects(bad):
    with pytest.raises(ValueError, match="ScheduleConfig"):
        ScheduleConfig(**bad)


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="RNaDConfig.eta"):
        RNaDConfig(eta=0.0)
    with pytest.raises(ValueError, match="FineTuneConfig.quanta"):
        FineTuneConfig(quanta=0)
    with pytest.raises(ValueError, match="learner_step"):
        schedule_point(ScheduleConfig(), -1)


def test_finetune_switches_on_at_its_step():
    f = FineTuneConfig(from_step=5)
    assert [f.active(s) for s in (0, 4, 5, 6)] == [False, False, True, True]
    assert not FineTuneConfig().active(10**9)


def t(x):
    return torch.tensor(x, dtype=torch.float64)


def test_threshold_examples():
    torch.testing.assert_close(threshold(t([0.5, 0.48, 0.02]), 0.03), t([0.5 / 0.98, 0.48 / 0.98, 0.0]))
    torch.testing.assert_close(threshold(t([0.25] * 4), 0.3), t([0.25] * 4))  # all below: unchanged
    torch.testing.assert_close(threshold(t([[0.97, 0.03, 0.0]]), 0.03), t([[0.97, 0.03, 0.0]]))


def test_discretise_examples():
    torch.testing.assert_close(discretise(t([0.5, 0.3, 0.2]), 4), t([0.5, 0.5, 0.0]))
    torch.testing.assert_close(discretise(t([0.1, 0.6, 0.3]), 32), t([2 / 32, 20 / 32, 10 / 32]))
    torch.testing.assert_close(discretise(t([1 / 3] * 3), 3), t([1 / 3] * 3))
    torch.testing.assert_close(discretise(t([0.0, 0.0]), 4), t([1.0, 0.0]))  # remainder to the first-ranked
    torch.testing.assert_close(project(t([0.6, 0.38, 0.02]), 0.03, 32),
                               t([20 / 32, 12 / 32, 0.0]))  # 0.6/0.98*32 = 19.6 -> 20, then 12 left


def slow_discretise(p, n):
    order = sorted(range(len(p)), key=lambda k: (-p[k], k))
    out, left = [0] * len(p), n
    for k in order:
        take = min(int(np.ceil(p[k] * n - 1e-6)), left)
        out[k], left = take, left - take
    out[order[0]] += left
    return [x / n for x in out]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8).filter(lambda x: sum(x) > 1e-3), st.integers(1, 40))
def test_discretise_matches_slow_loop(raw, n):
    p = np.array(raw) / sum(raw)
    out = discretise(torch.tensor(p), n).numpy()
    np.testing.assert_allclose(out, slow_discretise(list(p), n), atol=1e-12)
    assert out.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(out * n, np.round(out * n), atol=1e-9)
    assert np.all(out[p == 0] == 0) or p[np.argmax(p)] == 0


def test_projection_rejects_bad_input():
    with pytest.raises(ValueError, match="eps"):
        threshold(t([1.0]), 1.0)
    with pytest.raises(ValueError, match="quanta"):
        discretise(t([1.0]), 0)
    with pytest.raises(TypeError, match="floating"):
        discretise(torch.tensor([1, 0]), 4)
