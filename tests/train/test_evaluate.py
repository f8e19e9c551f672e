"""Evaluation matches: ``versus_random`` (batched, against the uniformly random bot), ``agent_versus``
(game by game) and ``network_versus`` (a network's raw policy against any bot)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from deepnash.agents import AgentSpecError, RandomAgent
from deepnash.agents.network_agent import SHIPPED_DIR, NetworkAgent, load_network
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.evaluate import agent_versus, network_versus, versus_random

torch.set_num_threads(1)


def test_score_adds_up_and_is_reproducible():
    net = DeepNashNet(get_preset("tiny"))
    a = versus_random(net, "barrage", 9, seed=4)
    assert a["games"] == 9 == a["wins"] + a["draws"] + a["losses"] == sum(a["endings"].values())
    assert a["win_rate"] == a["wins"] / 9
    assert versus_random(net, "barrage", 9, seed=4) == a
    assert versus_random(net, "barrage", 0)["games"] == 0


def test_trained_network_wins_far_more_than_an_untrained_one():
    """TRAINING.md: the shipped network wins about 84% raw, an untrained one about a third; for the
    untrained network and the one-hour network of the agent shipped before, the game-by-game
    game-by-game ``agent_versus`` gave the same rates (a cross-check of the two paths, pinned below)."""
    trained, _ = load_network(SHIPPED_DIR / "barrage")
    won = versus_random(trained, "barrage", 200, seed=2)
    baseline = versus_random(DeepNashNet(get_preset("tiny")), "barrage", 200, seed=2)
    assert won["win_rate"] >= 0.65 and baseline["win_rate"] <= 0.45, (won, baseline)


def test_game_by_game_path_agrees_with_the_batched_one():
    """``agent_versus`` with a ``NetworkAgent`` and ``RandomAgent`` is an independent implementation of
    the same match as ``versus_random``: same network, same opponent, rates within sampling noise."""
    trained, _ = load_network(SHIPPED_DIR / "barrage")
    batched = versus_random(trained, "barrage", 120, seed=5)
    by_game = agent_versus(NetworkAgent(trained), RandomAgent(), "barrage", 120, seed=5)
    assert by_game["games"] == 120 == by_game["wins"] + by_game["draws"] + by_game["losses"]
    assert abs(batched["win_rate"] - by_game["win_rate"]) <= 0.15, (batched, by_game)
    assert network_versus(trained, "random", "barrage", 10, seed=5) == versus_random(trained, "barrage", 10, seed=5)


def test_network_versus_a_bot_plays_that_bot():
    """Against ``cautious`` the shipped network beats an untrained one by far (26-1-13 against 3-0-37 at
    this seed), and the untrained one, which wins about a third against the random bot, wins almost
    nothing: the opponent really is the bot named."""
    trained, _ = load_network(SHIPPED_DIR / "barrage")
    torch.manual_seed(0)
    untrained = DeepNashNet(get_preset("tiny"))
    won = network_versus(trained, "cautious", "barrage", 40, seed=6)
    baseline = network_versus(untrained, "cautious", "barrage", 40, seed=6)
    assert won["games"] == 40 and won["win_rate"] >= baseline["win_rate"] + 0.3, (won, baseline)
    assert baseline["win_rate"] <= 0.2, baseline
    with pytest.raises(AgentSpecError, match="nosuchbot"):
        network_versus(untrained, "nosuchbot", "barrage", 2)


def test_network_versus_deploys_from_the_setup_source_given(monkeypatch):
    """``setup`` reaches the ``NetworkAgent``; only (random, own) takes the batched path."""
    played = []
    monkeypatch.setattr("deepnash.train.evaluate.agent_versus",
                        lambda agent, bot, variant, games, seed=0: played.append((agent.setup, bot.name)) or {})
    monkeypatch.setattr("deepnash.train.evaluate.versus_random",
                        lambda net, variant, games, seed=0: played.append(("batched",)) or {})
    net = DeepNashNet(get_preset("tiny"))
    network_versus(net, "random", "classic", 2)
    network_versus(net, "random", "classic", 2, setup="walled")
    network_versus(net, "cautious", "classic", 2, setup="human")
    assert played == [("batched",), ("walled", "random"), ("human", "cautious")]
    with pytest.raises(ValueError, match="setup='nosuch'"):
        network_versus(net, "random", "classic", 2, setup="nosuch")


SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "versus_random.py"


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--threads", "1"],
                          capture_output=True, text=True, timeout=300)


def test_script_sums_versus_random_over_seeds_with_a_wilson_interval():
    """scripts/versus_random.py remakes the training docs' figures: its tally is versus_random's, summed."""
    done = _script(str(SHIPPED_DIR / "barrage"), "--variant", "barrage", "--games", "5", "--seeds", "3", "4",
                   "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    net, _ = load_network(SHIPPED_DIR / "barrage")
    parts = [versus_random(net.eval(), "barrage", 5, seed=s) for s in (3, 4)]
    for key in ("games", "wins", "draws", "losses"):
        assert got[key] == sum(p[key] for p in parts)
    assert got["per_seed"] == {str(s): [p["wins"], p["draws"], p["losses"]] for s, p in zip((3, 4), parts)}
    lo, hi = got["wilson95"]
    assert lo <= got["win_rate"] <= hi and got["games"] == 10


def test_script_plays_a_fresh_network_and_names_a_missing_checkpoint(tmp_path):
    fresh = _script("fresh:tiny", "--variant", "barrage", "--games", "2", "--seeds", "1")
    assert fresh.returncode == 0, fresh.stderr
    assert "fresh:tiny (online) vs random, barrage, 2 games:" in fresh.stdout
    missing = _script(str(tmp_path / "nope"), "--games", "2")
    assert missing.returncode == 2 and str(tmp_path / "nope") in missing.stderr
