"""The PettingZoo façade passes PettingZoo's own checks, plays whole games, and renders."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from deepnash.env.aec import StrategoEnv
from deepnash.game import BARRAGE


def test_pettingzoo_api_test():
    api_test(StrategoEnv("barrage"), num_cycles=400)


def test_pettingzoo_seed_test():
    seed_test(lambda: StrategoEnv("barrage", setups=("learned", "random")), num_cycles=300)


def test_whole_game_rewards_and_renders():
    env = StrategoEnv(BARRAGE.with_rules(max_moves=200), render_mode="rgb_array")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps, final = 0, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = reward
            assert not obs["action_mask"].any() and info["moves"] > 0
            env.step(None)
            continue
        assert obs["observation"].shape == (82, 10, 10) and obs["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps >= 16
    assert set(final) == {"red", "blue"} and sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
    img = env.render()
    assert img.shape == (240, 240, 3) and img.dtype == np.uint8 and len(np.unique(img.reshape(-1, 3), axis=0)) > 3


def test_ansi_render_shows_both_armies():
    env = StrategoEnv("classic", setups="random", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    lines = text.splitlines()
    assert len(lines) == 11 and lines[0].startswith("10 ") and "~~" in lines[4]
    assert sum(c.startswith("R") for c in " ".join(lines[6:10]).split()) == 40
    assert sum(c.startswith("B") for c in " ".join(lines[0:4]).split()) == 40
    with pytest.raises(ValueError, match="render_mode"):
        StrategoEnv(render_mode="human")
