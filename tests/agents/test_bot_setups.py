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


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_shipped_agents_deploy_from_human_setups_unless_told_to_use_their_head(variant):
    pool = {row.tobytes() for row in human_pool(variant).setups}
    human = make_agent(f"shipped:{variant.name}")
    own = make_agent(f"shipped:{variant.name},setup=own")
    assert (human.setup, own.setup) == ("human", "own")
    for player in (0, 1):
        placed = {}
        for agent in (human, own):
            agent.reset(variant, player, seed=7)
            placed[agent.setup] = agent.choose_setup()
            legal = deployment(variant, player, deployment_types(variant, player, placed[agent.setup]))
            np.testing.assert_array_equal(legal, placed[agent.setup])
        red_side = {k: (v if player == 0 else v[::-1]).tobytes() for k, v in placed.items()}
        assert red_side["human"] in pool
        human.reset(variant, player, seed=7)  # the seed decides the draw
        np.testing.assert_array_equal(human.choose_setup(), placed["human"])


def test_a_network_checkpoint_deploys_with_its_head_by_default_and_refuses_a_bad_source():
    from deepnash.agents.network_agent import SHIPPED_DIR

    assert make_agent(f"checkpoint:{SHIPPED_DIR / 'barrage'}").setup == "own"
    assert make_agent(f"checkpoint:{SHIPPED_DIR / 'barrage'},setup=guarded").setup == "guarded"
    with pytest.raises(ValueError, match="setup='sideways'"):
        make_agent("shipped:setup=sideways")
