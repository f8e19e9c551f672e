"""Self-play from drawn setups (``TrainConfig.setups``): people's setups instead of the deployment head."""

from __future__ import annotations

import pytest
import torch

from deepnash.env.setups import flag_on_back_row, flag_walled, human_pool
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.actor import SelfPlay, self_play_setups

torch.set_num_threads(1)


def _net():
    torch.manual_seed(0)
    return DeepNashNet(get_preset("tiny")).eval()


@pytest.mark.parametrize("setups, deployment_steps", [("own", 16), ("human", 0)])
def test_a_drawn_setup_records_no_deployment_steps(setups, deployment_steps):
    """A game is its deployment steps (8 pieces a side on Barrage, when the head deploys) and then a
    selection and a displacement per move, recorded whole."""
    play = SelfPlay(_net(), "barrage", 4, seed=3, setups=self_play_setups(setups, "barrage"))
    games = play.play(4)
    assert games
    for g in games:
        assert len(g.action) == deployment_steps + 2 * g.moves, (setups, len(g.action), g.moves)


def test_walled_self_play_starts_every_game_from_a_walled_human_setup_with_the_flag_on_the_back_row():
    pool = human_pool("classic").setups
    walled = {row.tobytes() for row in pool[flag_walled(pool) & flag_on_back_row(pool)]}
    assert 0 < len(walled) < len({row.tobytes() for row in pool})
    play = SelfPlay(_net(), "classic", 6, seed=1, setups=self_play_setups("walled", "classic"))
    red, blue = play.env.setup[:, 0], play.env.setup[:, 1]
    assert all(r.tobytes() in walled for r in red)
    assert all(b[::-1].tobytes() in walled for b in blue)  # Blue's setups are rotated onto its side


def test_unknown_or_missing_setups_are_refused():
    with pytest.raises(ValueError, match="walls its Flag"):
        self_play_setups("walled", "barrage")  # Barrage's one Bomb walls in no Flag
    with pytest.raises(ValueError, match="choose one of own, random, human, walled"):
        self_play_setups("guarded", "classic")
