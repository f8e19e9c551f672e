"""Weights shipped in the package or kept as test data: they load as agents, play legal games, and are trained."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from deepnash.agents import RandomAgent, play_game
from deepnash.agents.network_agent import SHIPPED_DIR, NetworkAgent
from deepnash.agents.registry import AgentSpecError, make_agent
from deepnash.game import get_variant
from deepnash.nn.checkpoint import load_checkpoint
from deepnash.train.evaluate import agent_versus

torch.set_num_threads(1)

#: Networks shipped before, kept to remake the figures measured on them (the variant's TRAINING.md names each).
KEPT_DIR = Path(__file__).resolve().parents[1] / "testtime" / "data"
KEPT = [(KEPT_DIR / "barrage-network", "barrage"), (KEPT_DIR / "barrage-rnad-network", "barrage"),
        (KEPT_DIR / "classic-network", "classic")]


@pytest.mark.parametrize("path, variant", [(SHIPPED_DIR / "barrage", "barrage"), (SHIPPED_DIR / "classic", "classic"), *KEPT])
def test_shipped_and_kept_checkpoints_are_intact_and_documented(path, variant):
    ck = load_checkpoint(path)  # verifies every file's size and SHA-256
    assert set(ck.groups) == {"online"} and ck.meta["variant"] == variant
    assert ck.meta["counters"].get("learner_step", ck.meta["counters"].get("step", 0)) > 0
    training = SHIPPED_DIR / variant / "TRAINING.md"
    if path.parent == KEPT_DIR:
        assert f"tests/testtime/data/{path.name}" in training.read_text()
    else:
        assert training.is_file()


def test_shipped_barrage_policy_is_the_kept_r_nad_networks():
    """The shipped Barrage network is the R-NaD network kept in ``barrage-rnad-network`` with a refitted
    value head (TRAINING.md): every torso and policy weight bit for bit, a version-3 value head of its own."""
    shipped, kept = load_checkpoint(SHIPPED_DIR / "barrage"), load_checkpoint(KEPT_DIR / "barrage-rnad-network")
    assert shipped.meta["net"]["version"] == 3 and kept.meta["net"].get("version", 1) == 1
    ours, theirs = shipped.groups["online"], kept.groups["online"]
    value = ("value_head.", "value_out.", "material_hidden.")
    policy = [k for k in theirs if not k.startswith(value)]
    assert len(policy) > 10 and all(torch.equal(ours[k], theirs[k]) for k in policy)
    assert ours["value_out.weight"].shape[0] == 3 and theirs["value_out.weight"].shape[0] == 1  # win/draw/loss, scalar


def test_shipped_spec_plays_with_every_test_time_layer():
    agent = make_agent("shipped:rounds=1")  # its search (agent.json), one round a move
    assert isinstance(agent, NetworkAgent) and agent.testtime is not None
    assert make_agent("shipped:barrage,value_bounds=off").testtime.config.value_bounds is False
    short = get_variant("barrage").with_rules(max_moves=60)
    game, history = play_game(agent, RandomAgent(), short, 3)  # raises on any illegal setup or move
    assert game.is_over() and len(history) == game.ply


def test_missing_variant_names_what_is_shipped():
    with pytest.raises(AgentSpecError, match="no shipped weights for 'duell'; shipped: barrage, classic"):
        make_agent("shipped:duell")


def test_shipped_classic_agent_plays_legal_games_and_beats_the_random_bot():
    """The Classic agent (behaviour cloning on Gravon games, TRAINING.md): legal whole games, and far
    more wins against the random bot than an untrained network's third."""
    agent = make_agent("shipped:classic,search=off,greedy=false,setup=human,value_bounds=off")  # the weights alone
    game, history = play_game(agent, RandomAgent(), get_variant("classic").with_rules(max_moves=200), 3)
    assert game.is_over() and len(history) == game.ply
    result = agent_versus(agent, RandomAgent(), "classic", 12, seed=1)
    assert result["wins"] >= 8, f"the shipped Classic agent against the random bot: {result}"


def test_shipped_agent_beats_the_random_bot():
    """A regression guard that the shipped weights are the trained ones: with these layers an untrained
    network won 22 of 60 games against the random bot; the shipped network's raw policy wins 84% (TRAINING.md)."""
    result = agent_versus(make_agent("shipped:search=off,greedy=false,value_bounds=off"), RandomAgent(), "barrage", 30,
                          seed=1)
    assert result["wins"] >= 15, f"the shipped agent against the random bot: {result}"


@pytest.mark.parametrize("path, variant", KEPT)
def test_kept_checkpoints_play_legal_games(path, variant):
    """Weights kept in the repository stay playable agents as the code changes."""
    agent = make_agent(f"checkpoint:{path},search=off,greedy=false,setup=human,value_bounds=off")
    game, history = play_game(agent, RandomAgent(), get_variant(variant).with_rules(max_moves=120), 5)
    assert game.is_over() and len(history) == game.ply
