"""versus_random: the batched match of a network's raw policy against the uniformly random bot."""

from __future__ import annotations

import torch

from deepnash.agents.network_agent import SHIPPED_DIR, load_network
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.evaluate import versus_random

torch.set_num_threads(1)


def test_score_adds_up_and_is_reproducible():
    net = DeepNashNet(get_preset("tiny"))
    a = versus_random(net, "barrage", 9, seed=4)
    assert a["games"] == 9 == a["wins"] + a["draws"] + a["losses"] == sum(a["endings"].values())
    assert a["win_rate"] == a["wins"] / 9
    assert versus_random(net, "barrage", 9, seed=4) == a
    assert versus_random(net, "barrage", 0)["games"] == 0


def test_trained_network_wins_far_more_than_an_untrained_one():
    """TRAINING.md: the shipped network wins about 85% raw, an untrained one about a third; for the
    one-hour and the untrained networks the game-by-game ``agent_versus_random`` gave the same rates
    (a cross-check of the two paths)."""
    trained, _ = load_network(SHIPPED_DIR / "barrage")
    won = versus_random(trained, "barrage", 200, seed=2)
    baseline = versus_random(DeepNashNet(get_preset("tiny")), "barrage", 200, seed=2)
    assert won["win_rate"] >= 0.65 and baseline["win_rate"] <= 0.45, (won, baseline)
