"""Where the built-in bots' setups come from: their own rule, random, guarded, human (Gravon) or walled."""

import numpy as np
import pytest

from deepnash.agents import make_agent
from deepnash.agents.registry import AgentSpecError
from deepnash.env.setups import flag_on_back_row, flag_sheltered, flag_walled, human_pool, walled_pool
from deepnash.game import BARRAGE, CLASSIC, deployment
from deepnash.game.pieces import BOMB, FLAG
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
def test_shipped_agents_deploy_from_human_setups_or_with_their_head(variant):
    """``setup=human`` is the default on Barrage; Classic's default, ``walled``, is tested in test_shipped_options."""
    pool = {row.tobytes() for row in human_pool(variant).setups}
    human = make_agent(f"shipped:{variant.name},setup=human")
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


def _flag_slowly(setup: np.ndarray) -> tuple[int, list[int]]:
    """The Flag's row, and what stands on each of its neighbours on the board, square by square."""
    flag = int(np.flatnonzero(setup == FLAG)[0])
    row, col = divmod(flag, 10)
    around = [(row + dr, col + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    return row, [int(setup[r * 10 + c]) for r, c in around if 0 <= r < 10 and 0 <= c < 10]


def _walled_slowly(setup: np.ndarray) -> bool:
    """Reference for ``flag_walled``: a Bomb on each of the Flag's neighbours on the board."""
    return all(piece == BOMB for piece in _flag_slowly(setup)[1])


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_flag_walled_agrees_with_a_square_by_square_check_on_every_human_setup(variant):
    setups = human_pool(variant).setups
    expected = np.array([_walled_slowly(s) for s in setups])
    np.testing.assert_array_equal(flag_walled(setups), expected)
    # Blue's setups are Red's turned round: turning them does not change which are walled.
    np.testing.assert_array_equal(flag_walled(setups[:, ::-1]), expected)


def test_walled_setups_are_peoples_with_the_flag_walled_in_and_barrage_has_none():
    pool = {row.tobytes() for row in human_pool(CLASSIC).setups}
    agent = make_agent("cautious:setup=walled")
    drawn = set()
    for player in (0, 1):
        for seed in range(10):
            agent.reset(CLASSIC, player, seed=seed)
            placed = agent.choose_setup()
            np.testing.assert_array_equal(
                deployment(CLASSIC, player, deployment_types(CLASSIC, player, placed)), placed)
            red_side = placed if player == 0 else placed[::-1]
            assert red_side.tobytes() in pool and _walled_slowly(red_side) and _flag_slowly(red_side)[0] == 0
            drawn.add(red_side.tobytes())
    assert len(drawn) >= 8  # ten seeds draw (nearly) ten setups: a pool, not one
    agent.reset(BARRAGE, 0, seed=0)
    with pytest.raises(ValueError, match="walled"):
        agent.choose_setup()


def test_the_walled_pool_is_every_walled_setup_with_its_flag_on_the_back_row():
    """People's walled setups with the Flag further forward lose it more often (``walled_pool``): left out."""
    setups = human_pool(CLASSIC).setups
    rows = np.array([_flag_slowly(s)[0] for s in setups])
    walled = np.array([_walled_slowly(s) for s in setups])
    np.testing.assert_array_equal(flag_on_back_row(setups), rows == 0)
    assert (walled & (rows > 0)).any()  # people do wall a Flag in further forward
    kept = {row.tobytes() for row in walled_pool(CLASSIC).setups}
    assert kept == {row.tobytes() for row in setups[walled & (rows == 0)]}


def _sheltered_slowly(setup: np.ndarray) -> bool:
    """Reference for ``flag_sheltered``: the Flag on Red's back row (rank 1) and a Bomb on one of its neighbours."""
    row, around = _flag_slowly(setup)
    return row == 0 and BOMB in around


@pytest.mark.parametrize("variant", [CLASSIC, BARRAGE])
def test_sheltered_setups_are_peoples_with_the_flag_on_the_back_row_beside_a_bomb(variant):
    setups = human_pool(variant).setups
    expected = np.array([_sheltered_slowly(s) for s in setups])
    np.testing.assert_array_equal(flag_sheltered(setups), expected)
    assert 0 < expected.sum() < len(setups)  # people also put the Flag elsewhere
    back_row = (setups == FLAG).argmax(axis=1) < 10
    assert (expected | ~flag_walled(setups) | ~back_row).all()  # the walled ones on the back row are sheltered too
    agent = make_agent("shipped:barrage,setup=sheltered" if variant is BARRAGE else "cautious:setup=sheltered")
    for player in (0, 1):
        agent.reset(variant, player, seed=player)
        placed = agent.choose_setup()
        assert _sheltered_slowly(placed if player == 0 else placed[::-1])
