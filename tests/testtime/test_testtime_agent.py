"""The network agent plays through the test-time layer and logs every decision."""

import numpy as np
import pytest
import torch

from deepnash.agents import RandomAgent
from deepnash.agents.network_agent import NetworkAgent
from deepnash.game import Game, get_variant
from deepnash.infostate.view import PlayerView, push_recorded
from deepnash.nn import DeepNashNet, get_preset
from deepnash.testtime import TestTimeConfig, format_decision
from test_value_bounds import blunder_view


def tiny_agent(config):
    torch.manual_seed(0)
    agent = NetworkAgent(DeepNashNet(get_preset("tiny")), testtime=config)
    logs = []
    agent.on_decision = logs.append
    return agent, logs


def test_every_decision_is_logged_and_played_from_the_final_policy():
    agent, logs = tiny_agent(TestTimeConfig(value_bounds=False))
    rival, variant = RandomAgent(), get_variant("barrage")
    agent.reset(variant, 0, seed=1)
    rival.reset(variant, 1, seed=2)
    game = Game(variant, agent.choose_setup(), rival.choose_setup())
    history = []
    while not game.is_over() and game.ply < 16:  # a few moves: the network is slow on a shared CPU
        p = game.turn
        history.append(push_recorded(game, (agent, rival)[p].act(PlayerView.of(game, p, tuple(history)))))
    mine = [r for r in history if r.player == 0]
    assert [log.step for log in logs] == ["deploy"] * 8 + ["select", "displace"] * len(mine)
    for select, displace, rec in zip(logs[8::2], logs[9::2], mine):
        for log in (select, displace):
            assert log.final[log.action] > 0 and abs(log.final.sum() - 1) < 1e-9
            assert np.all(log.final * 16 == np.round(log.final * 16))  # play-phase discretisation
            assert format_decision(log)
        assert (select.action, displace.action) == rec.move  # Red's frame is the board's
    assert agent.testtime.stats.turns == len(mine) > 0


def test_value_bounds_runs_inside_the_agent():
    agent, logs = tiny_agent(TestTimeConfig())
    view = blunder_view()
    agent.reset(view.variant, 0, seed=0)
    move = agent.act(view)
    assert move in view.legal_moves
    assert agent.testtime.stats.turns == 1 and agent.testtime.stats.evaluations > 0
    assert [log.step for log in logs] == ["select", "displace"]


def test_without_a_config_the_agent_plays_the_raw_policy():
    agent, logs = tiny_agent(None)
    view = blunder_view()
    agent.reset(view.variant, 0, seed=0)
    assert agent.act(view) in view.legal_moves and agent.testtime is None and logs == []


def test_spec_options_switch_the_layers_of_a_checkpoint_agent(tmp_path):
    from deepnash.agents.registry import AgentSpecError, make_agent
    from deepnash.nn.checkpoint import save_checkpoint

    config = get_preset("tiny")
    save_checkpoint(tmp_path, 1, {"online": DeepNashNet(config).state_dict()}, {"net": config.to_dict()})
    agent = make_agent(f"checkpoint:{tmp_path},value_bounds=off,memory=off")
    assert agent.testtime.config == TestTimeConfig(value_bounds=False, memory=False)
    assert make_agent(f"checkpoint:{tmp_path}").testtime.config == TestTimeConfig()
    with pytest.raises(AgentSpecError, match="threats='sometimes' is not a bool"):
        make_agent(f"checkpoint:{tmp_path},threats=sometimes")
