"""Where the built-in bots' setups come from: their own rule, random, guarded or human (Gravon)."""

import numpy as np
import pytest

from deepnash.agents import make_agent
from deepnash.agents.registry import AgentSpecError
from deepnash.env.setups import human_pool
from deepnash.game import BARRAGE, CLASSIC, deployment
from deepnash.game.state import deployment_types


@pytest.mark.parametrize("bot", ["random", "greedy", "cautious", "montecarlo", "mcts"])
@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_human_setups_come_from_the_gravon_pool_for_either_colour(bot, variant):
    pool = {row.tobytes() for row in human_pool(variant).setups}
    agent = make_agent(f"{bot}:setup=human")
    for player in (0, 1):
        agent.reset(variant, player, seed=player)
        placed = agent.choose_setup()
        # Legal for the player (deployment re-validates the pieces and the zone) ...
        np.testing.assert_array_equal(deployment(variant, player, deployment_types(variant, player, placed)), placed)
        # ... and, seen from Red's side, one of the people's setups.
        assert (placed if player == 0 else placed[::-1]).tobytes() in pool


def test_random_and_guarded_sources_and_a_bad_one():
    guarded = make_agent("random:setup=guarded")
    guarded.reset(CLASSIC, 0, seed=3)
    placed = guarded.choose_setup()
    assert placed[:10].tolist().count(0) == 1  # the Flag on Red's back row
    assert make_agent("greedy:setup=random").setup == "random"
    with pytest.raises((AgentSpecError, ValueError), match="setup"):
        make_agent("greedy:setup=sideways")
