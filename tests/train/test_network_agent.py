"""The network agent: its observation equals the environment's, it plays legal games, loads checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from deepnash.agents import MoveRecord, PlayerView, RandomAgent, play_game
from deepnash.agents.network_agent import NetworkAgent
from deepnash.agents.registry import make_agent
from deepnash.env import VectorEnv, actions_to_move
from deepnash.game import Game, get_variant
from deepnash.infostate.observe import observe_view
from deepnash.nn import DeepNashNet, get_preset
from deepnash.nn.checkpoint import save_checkpoint

torch.set_num_threads(1)


@pytest.mark.parametrize("variant,seed", [("barrage", 1), ("classic", 2)])
def test_view_observation_equals_the_environment_observation(variant, seed):
    """Rebuilt from the player's view alone (hidden types guessed), every select and displace
    observation equals the one the environment computes from the true position."""
    env = VectorEnv(1, variant, setups="random", seed=seed)
    game = Game(get_variant(variant), env.setup[0, 0].copy(), env.setup[0, 1].copy())
    history: list[MoveRecord] = []
    checked = 0
    for _ in range(150):
        p = int(env.player[0])
        view = PlayerView.of(game, p, tuple(history))
        np.testing.assert_array_equal(observe_view(view), env.obs[0])
        first = int(env.random_actions()[0])
        env.step(np.array([first]))
        second = int(env.random_actions()[0])
        np.testing.assert_array_equal(observe_view(view, 1, actions_to_move(first, second, p).from_sq), env.obs[0])
        move = actions_to_move(first, second, p)
        attacker, defender = game.piece_at(move.from_sq), game.piece_at(move.to_sq)
        result = game.push(move)
        battle = defender is not None
        history.append(MoveRecord(move, p, attacker.type if battle else -1, defender.type if battle else -1,
                                  int(result)))
        env.step(np.array([second]))
        checked += 1
        if env.done[0]:
            break
    assert checked > 20


def test_agent_plays_legal_games_from_a_checkpoint(tmp_path):
    net = DeepNashNet(get_preset("tiny"))
    save_checkpoint(tmp_path, 3, {"online": net.state_dict()}, {"net": get_preset("tiny").to_dict()})
    agent = make_agent(f"checkpoint:{tmp_path},greedy=true")
    assert isinstance(agent, NetworkAgent) and agent.name == f"checkpoint:{tmp_path},greedy=true"
    short = get_variant("barrage").with_rules(max_moves=80)
    # play_game raises IllegalMoveError on any illegal move or setup
    game, history = play_game(agent, RandomAgent(), short, 0)
    assert game.is_over() and len(history) == game.ply
    game, _ = play_game(RandomAgent(), agent, short, 1)
    assert game.is_over()


def test_deployment_places_the_whole_army_in_the_players_zone():
    net = DeepNashNet(get_preset("tiny"))
    agent = NetworkAgent(net, greedy=True)
    agent.reset(get_variant("barrage"), 1, seed=0)
    setup = agent.choose_setup()
    assert sorted(setup[setup >= 0].tolist()) == sorted(
        t for t, n in enumerate(get_variant("barrage").piece_counts) for _ in range(n))
    assert all(60 <= sq < 100 for sq in np.flatnonzero(setup >= 0))  # Blue's four back rows


def test_bad_weights_name_is_refused(tmp_path):
    net = DeepNashNet(get_preset("tiny"))
    save_checkpoint(tmp_path, 1, {"online": net.state_dict()}, {"net": get_preset("tiny").to_dict()})
    with pytest.raises(ValueError, match="no 'target' weights"):
        make_agent(f"checkpoint:{tmp_path},weights=target")


@pytest.mark.parametrize("rows", [1, 15, 16, 17, 300])
def test_batched_values_and_logits_are_each_rows_own(rows):
    """The look-ahead's and the search's batches are padded and reordered for the convolutions; every
    row still gets exactly what the network gives it alone."""
    torch.manual_seed(0)
    agent = NetworkAgent(DeepNashNet(get_preset("tiny")).eval())
    obs = np.random.default_rng(rows).random((rows, 82, 10, 10), dtype=np.float32)
    obs[:, 79] = 0.0  # play phase
    obs[:, 80] = np.arange(rows)[:, None, None] % 2  # select and displace steps
    with torch.no_grad():
        alone = [agent.net(torch.from_numpy(o[None])) for o in obs]
    np.testing.assert_allclose(agent._values(obs), [v[0] for _, v in alone], atol=1e-5)
    np.testing.assert_allclose(agent._logits(obs), np.concatenate([lg for lg, _ in alone]), atol=1e-5)
