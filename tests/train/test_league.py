"""A league of past networks (``TrainConfig.league``): games against a frozen rival record the learner's side alone."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.nn import DeepNashNet, get_preset
from deepnash.rnad import ScheduleConfig
from deepnash.train.actor import GameRecord, SelfPlay
from deepnash.train.config import TrainConfig, train_preset
from deepnash.train.league import League
from deepnash.train.loop import train

torch.set_num_threads(1)


def record(side: int, winner: int, rival: int = -1, opponent: str = "") -> GameRecord:
    """A game record of one decision, for the tallies."""
    return GameRecord(np.zeros((1, 82, 10, 10), np.float16), np.ones((1, 100), bool), np.zeros(1, np.int8),
                      np.zeros(1, np.int64), np.full((1, 100), 0.01, np.float32), np.zeros((1, 2), np.float32),
                      winner, 0, 1, side, rival, opponent)


def check_one_sided(games: list[GameRecord]) -> None:
    """Barrage games against a rival, the learner deploying: each records the learner's 8 deployment steps and a
    selection and a displacement for each of its own moves, every step's player its side, the last step its
    result; the learner played both colours."""
    sides = set()
    for g in games:
        assert g.side in (0, 1)
        sides.add(g.side)
        assert (g.player == g.side).all()
        own_moves = (g.moves + (1 - g.side)) // 2  # Red moves first
        assert g.steps == 8 + 2 * own_moves, (g.side, g.moves, g.steps)
        result = 0.0 if g.winner < 0 else (1.0 if g.winner == g.side else -1.0)
        assert g.rewards[-1, g.side] == result and not g.rewards[:-1].any()
        assert np.allclose(g.behaviour.sum(1), 1.0, atol=1e-5)
    assert sides == {0, 1}


def _net(seed: int) -> DeepNashNet:
    torch.manual_seed(seed)
    return DeepNashNet(get_preset("tiny")).eval()


class _Counting(torch.nn.Module):
    """A network that counts the observations it is asked about."""

    def __init__(self, net: torch.nn.Module):
        super().__init__()
        self.net, self.rows = net, 0

    def forward(self, obs):
        self.rows += obs.shape[0]
        return self.net(obs)


def test_a_league_game_records_the_learners_side_alone_and_its_rival_plays_the_other():
    """Barrage, the deployment head deploying: a game against a rival records the learner's 8 deployment steps
    and a selection and a displacement for each of its own moves; every step's player is its side, and the last
    step carries its result.  The rival is asked about every other step."""
    learner, rival = _Counting(_net(0)), _Counting(_net(1))
    play = SelfPlay(learner, "barrage", 4, seed=5, league_share=1.0)
    play.set_league([(7, rival)])
    steps = 0
    games = []
    while len(games) < 6:
        games.extend(play.step())
        steps += 1
    assert learner.rows + rival.rows == 4 * steps  # every step of every game was played by one of the two
    assert learner.rows == play.env_steps and rival.rows > 0
    assert all(g.rival == 7 for g in games)
    check_one_sided(games)


def test_without_a_share_or_a_league_every_game_is_self_play():
    for share, league in ((0.0, True), (1.0, False)):
        play = SelfPlay(_net(0), "barrage", 2, seed=2, max_steps=40, league_share=share)
        if league:
            play.set_league([(3, _net(1))])
        for g in play.play(4):
            assert g.rival == -1 and g.side == -1
            assert set(np.unique(g.player)) == {0, 1}


def test_a_share_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="league share of the games"):
        SelfPlay(_net(0), "barrage", 1, league_share=1.5)
    with pytest.raises(ValueError, match="league share of the games"):
        TrainConfig(league=-0.1)
    with pytest.raises(ValueError, match="league_size"):
        TrainConfig(league=0.5, league_size=0)


def test_the_league_keeps_its_first_member_and_drops_the_oldest_of_the_others():
    league = League(3)
    for key in (0, 10, 20, 30):
        league.join(key, _net(key))
    assert [key for key, _ in league.members] == [0, 20, 30]
    assert all(not p.requires_grad for _, m in league.members for p in m.parameters())
    one = League(1)
    one.join(0, _net(0))
    one.join(5, _net(5))
    assert [key for key, _ in one.members] == [0]


def test_the_league_tallies_the_learners_results_against_each_member():
    league = League(2)
    games = [record(side=0, winner=0, rival=0), record(side=1, winner=0, rival=0), record(side=1, winner=-1, rival=4),
             record(side=-1, winner=1)]
    assert league.score(games) == pytest.approx((1 + 0 + 0.5) / 3)
    assert league.results == {0: [1, 0, 1], 4: [0, 1, 0]}
    assert league.score(games[3:]) is None


def test_training_with_a_league_plays_its_start_and_each_new_iterations_network(tmp_path):
    """R-NaD iterations of 2 updates: the network at the start of each joins the league, beside the first."""
    cfg = train_preset("tiny", envs=2, batch_games=2, max_steps=40, eval_games=0, checkpoint_minutes=1e6,
                       league=1.0, league_size=3)
    cfg = replace(cfg, rnad=replace(cfg.rnad, schedule=ScheduleConfig(sizes=(2,), repeats=(1,))))
    summary = train(cfg, tmp_path / "run", steps=6, progress=False)
    played = {int(key): sum(r.values()) for key, r in summary["league"].items()}
    assert 0 in played and max(played) >= 2, played  # the start, and a network of a later iteration
    assert set(played) <= {0, 2, 4}
    assert sum(played.values()) == summary["games"] == 12  # share 1: every game against the league


def test_the_train_command_with_actors_plays_the_league(tmp_path):
    deepnash = str(Path(sys.executable).with_name("deepnash"))
    res = subprocess.run([deepnash, "train", "--preset", "tiny", "--envs", "2", "--batch-games", "2", "--max-steps",
                          "40", "--eval-games", "0", "--no-progress", "--steps", "2", "--actors", "1",
                          "--league", "1", "--out", str(tmp_path / "run"), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert sum(sum(r.values()) for r in summary["league"].values()) == summary["games"] == 4
    res = subprocess.run([deepnash, "train", "--steps", "1", "--league", "2", "--out", str(tmp_path / "bad")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "league" in res.stderr
