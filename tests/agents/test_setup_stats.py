"""Gravon setup statistics as the MCTS bot's opponent model."""

import numpy as np

from deepnash.agents import PlayerView, make_agent
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game.pieces import FLAG
from deepnash.infostate.determinize import sample_hidden
from deepnash.infostate.setup_stats import deployment_weights


def test_weights_are_positive_ratios_to_uniform_placement_and_rotate_for_blue():
    red = deployment_weights(CLASSIC, 0)
    blue = deployment_weights(CLASSIC, 1)
    assert red.shape == (100, 12) and (red > 0).all()
    np.testing.assert_array_equal(blue, red[::-1])
    zone = list(CLASSIC.deploy_squares(0))
    # Averaged over the zone, a ratio to uniform placement is 1 for every type of the army.
    np.testing.assert_allclose(red[zone].mean(axis=0), 1.0, rtol=1e-9)
    assert (red[60:] == 1).all()
    # People put their Flag on the back row.
    assert red[0:10, FLAG].mean() > 3 * red[30:40, FLAG].mean()


def test_sampled_flags_follow_the_human_statistics():
    game = Game(CLASSIC, seed=0)
    view = PlayerView.of(game, 0)
    weights = deployment_weights(CLASSIC, 1)
    rng = np.random.default_rng(0)
    back_row = [int(np.flatnonzero(sample_hidden(view, rng, weights) == FLAG)[0]) >= 90 for _ in range(300)]
    uniform = [int(np.flatnonzero(sample_hidden(view, rng) == FLAG)[0]) >= 90 for _ in range(300)]
    assert np.mean(back_row) > 0.6 and abs(np.mean(uniform) - 0.25) < 0.1


def test_mcts_uses_the_statistics_unless_switched_off():
    bot = make_agent("mcts:sims=8")
    bot.reset(BARRAGE, 1, seed=0)
    np.testing.assert_array_equal(bot._weights, deployment_weights(BARRAGE, 0))
    off = make_agent("mcts:sims=8,setup_stats=off")
    off.reset(BARRAGE, 1, seed=0)
    assert off._weights is None
