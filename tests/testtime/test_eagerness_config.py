"""Eagerness (r' = 1 - (1 - r)^alpha_eag) and the agent-spec switches of the test-time layer."""

from pathlib import Path

import numpy as np
import pytest

from deepnash.agents import AgentSpecError, make_agent
from deepnash.env.planes import P_NO_ATTACK
from deepnash.testtime import LAYERS, TestTimeConfig, TestTimeLayer
from deepnash.testtime.eagerness import apply_eagerness, eager_ratio
from deepnash.testtime.search import SearchConfig


@pytest.mark.parametrize("r, expected", [(0.0, 0.0), (0.5, 0.75), (1.0, 1.0), (0.25, 0.4375)])
def test_eager_ratio_at_alpha_2(r, expected):
    assert eager_ratio(r, 2.0) == pytest.approx(expected)


def test_alpha_1_is_the_identity_and_larger_alpha_is_more_eager():
    r = np.linspace(0, 1, 11)
    np.testing.assert_allclose(eager_ratio(r, 1.0), r)
    assert np.all(eager_ratio(r, 3.0) >= eager_ratio(r, 2.0))


def test_apply_eagerness_rewrites_plane_78_only():
    rng = np.random.default_rng(0)
    obs = rng.random((2, 82, 10, 10)).astype(np.float32)
    obs[:, P_NO_ATTACK] = 0.5
    out = apply_eagerness(obs, 2.0)
    assert np.all(out[:, P_NO_ATTACK] == 0.75)
    np.testing.assert_array_equal(np.delete(out, P_NO_ATTACK, axis=1), np.delete(obs, P_NO_ATTACK, axis=1))
    assert np.all(obs[:, P_NO_ATTACK] == 0.5)  # the input is not modified


def test_layer_logs_the_eagerness_change():
    obs = np.zeros((82, 10, 10), np.float32)
    obs[P_NO_ATTACK] = 0.5
    new, notes = TestTimeLayer().observation(obs)
    assert new[P_NO_ATTACK, 3, 3] == 0.75
    assert [n.layer for n in notes] == ["eagerness"] and "0.500 -> 0.750" in notes[0].detail
    same, notes = TestTimeLayer(TestTimeConfig(eagerness=False)).observation(obs)
    np.testing.assert_array_equal(same, obs)
    assert notes == []


@pytest.mark.parametrize("bad", [(-0.1, 2.0), (1.5, 2.0), (0.5, 0.0)])
def test_eagerness_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        eager_ratio(*bad)
    with pytest.raises(ValueError, match="82"):
        apply_eagerness(np.zeros((81, 10, 10)), 2.0)


def test_defaults_are_the_papers():
    c = TestTimeConfig()
    assert c.enabled() == LAYERS
    assert (c.eps_thres_deploy, c.eps_thres_play, c.n_disc_deploy, c.n_disc_play, c.alpha_eag, c.eps_vb) == (
        0.03, 0.03, 32, 16, 2.0, 0.05)


def _layers(spec: str) -> TestTimeConfig:
    return make_agent(spec).testtime.config


def test_spec_options_switch_layers_one_by_one():
    off = _layers("shipped:threshold=off,value_bounds=off,eagerness=off,memory=off,threats=off,discretize=off")
    assert off == TestTimeConfig.all_off()
    assert _layers("shipped:value_bounds=off") == TestTimeConfig().without("value_bounds")
    assert _layers("shipped:discretise=no,eps_vb=0.1").discretize is False
    # the shipped agents search, and value bounds cannot change the search's choice: off unless search=off
    assert _layers("shipped:classic,eps_vb=0.1,alpha_eag=3") == TestTimeConfig(eps_vb=0.1, alpha_eag=3.0,
                                                                                value_bounds=False)
    assert _layers("shipped") == TestTimeConfig(value_bounds=False)
    assert _layers("shipped:search=off") == TestTimeConfig()


def test_every_config_field_is_an_agent_option():
    """One parser: each field of the two configuration dataclasses is an option of the network agent's spec."""
    kept = f"checkpoint:{Path(__file__).parent / 'data' / 'barrage-network'}"  # no agent.json of defaults there
    agent = make_agent(f"{kept},search=on,rounds=1,samples=3,rollout_threshold=0.1,free_threats=5,n_disc_play=8")
    assert agent.search.config == SearchConfig(rounds=1, samples=3, rollout_threshold=0.1)
    assert (agent.testtime.config.free_threats, agent.testtime.config.n_disc_play) == (5, 8)
    assert make_agent(f"{kept},samples=3").search is None  # settings without search=on leave it off


@pytest.mark.parametrize("text, match", [
    ("thresold=off", "unknown option 'thresold'"),
    ("memory=maybe", "is not a bool"),
    ("eps_vb=lots", "is not a float"),
    ("eps_vb=-1", "eps_vb"),
    ("n_disc_play=0", "n_disc_play"),
    ("search=on,samples=0", "samples"),
])
def test_bad_options_name_what_is_wrong(text, match):
    with pytest.raises(AgentSpecError, match=match):
        make_agent(f"shipped:{text}")
    with pytest.raises(ValueError, match="unknown test-time layer"):
        TestTimeConfig().without("search")
