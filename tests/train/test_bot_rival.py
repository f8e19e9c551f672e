"""R-NaD's games against bots (``TrainConfig.bots``): the bot plays its side through a ``Game`` kept beside the
env slot, and only the learner's side is recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.agents import make_agent
from deepnash.agents.registry import AgentSpecError
from deepnash.env import VectorEnv
from deepnash.game import Move
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.actor import SelfPlay, self_play_setups
from deepnash.train.bot_rival import BotSide, tally_bots
from deepnash.train.config import TrainConfig, train_preset
from deepnash.train.loop import train

from test_league import check_one_sided, record

torch.set_num_threads(1)


def _net() -> DeepNashNet:
    torch.manual_seed(0)
    return DeepNashNet(get_preset("tiny")).eval()


def _play_checked(play: SelfPlay, games: int) -> tuple[list, int]:
    """Step until ``games`` games finish, checking after every step that each bot's ``Game`` stands as the env's
    game does, and that a game the env ends is over on the bot's ``Game`` too, with the same winner and ending.
    Returns the games and how many bot games ended so checked."""
    env, out, ended_checked = play.env, [], 0
    while len(out) < games:
        before = [slot.bot for slot in play.slots]
        out.extend(play.step())
        for b, slot in enumerate(play.slots):
            ended = before[b]
            if env.done[b] and ended is not None and ended.game is not None:
                outcome = ended.game.outcome()
                assert outcome is not None and outcome.termination == env.termination[b]
                assert (-1 if outcome.winner is None else outcome.winner) == env.winner[b]
                ended_checked += 1
            bot = slot.bot
            if bot is not None and bot.game is not None and not env.deploying[b]:
                assert np.array_equal(bot.game.state.board[0], env.state.board[b])
                assert np.array_equal(bot.game.state.meta[0], env.state.meta[b])
    return out, ended_checked


def test_a_bot_game_records_the_learners_side_and_the_bot_follows_the_game():
    """Barrage, both sides deploying with actions: the turtle deploys its own setup through deployment actions,
    then moves through the select and displace steps; its ``Game`` stays the env's game at every step, and
    the records hold the learner's side alone, named after the bot."""
    play = SelfPlay(_net(), "barrage", 3, seed=4, bots=("turtle",), bot_share=1.0)
    games, ended = _play_checked(play, 4)
    assert ended >= 4
    assert all(g.opponent == "turtle" and g.rival == -1 for g in games)
    check_one_sided(games)


def test_the_bot_deploys_the_setup_it_chose():
    """Where the bot's side deploys with actions, the env's setup of that side is the one the bot chose."""
    env = VectorEnv(1, "barrage", setups="learned", seed=1)
    bot = BotSide(make_agent("sure"), "sure", env, 0, 1, 3)
    while env.deploying[0]:
        if env.player[0] == 1:
            action = bot.action(env)
        else:
            action = int(np.flatnonzero(env.mask[0])[0])
        bot.played(env, action)
        env.step(np.array([action]))
    assert np.array_equal(env.setup[0, 1], bot.setup)


def test_a_bot_on_drawn_setups_plays_classic_with_people_setups():
    """Classic, people's walled setups (nobody deploys with actions): a share of the games against two bots,
    the rest self-play; cut games finish unrecorded as before."""
    play = SelfPlay(_net(), "classic", 4, seed=2, max_steps=300, setups=self_play_setups("walled", "classic"),
                    bots=("turtle", "sure"), bot_share=0.5)
    games, _ = _play_checked(play, 6)
    assert {g.opponent for g in games} <= {"", "turtle", "sure"}
    for g in games:
        assert (g.side >= 0) == bool(g.opponent)


class _Liar:
    """A bot that plays a move from a lake."""

    name = "liar"

    def reset(self, variant, player, seed=None):
        pass

    def choose_setup(self):
        raise AssertionError("not asked: the setups are drawn")

    def act(self, view):
        return Move(42, 52)

    def game_over(self, outcome, view):
        pass


def test_a_bot_that_chooses_an_illegal_move_is_named():
    env = VectorEnv(1, "classic", setups="random", seed=0)
    bot = BotSide(_Liar(), "liar", env, 0, 0, 0)
    with pytest.raises(RuntimeError, match="bot 'liar' in self-play slot 0"):
        bot.action(env)


def test_bad_bots_and_shares_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no bots"):
        SelfPlay(_net(), "barrage", 1, bot_share=0.5)
    with pytest.raises(ValueError, match="bot share"):
        SelfPlay(_net(), "barrage", 1, bots=("turtle",), bot_share=1.5)
    with pytest.raises(ValueError, match="sum to"):
        TrainConfig(league=0.6, bots=("turtle",), bot_share=0.6)
    cfg = TrainConfig(bots=("turtle", "nonsense"), bot_share=0.5)  # a spec is checked when a run starts
    with pytest.raises(AgentSpecError, match="nonsense"):
        train(cfg, tmp_path / "run", steps=1, progress=False)
    assert not (tmp_path / "run").exists()


def test_the_bots_are_tallied_and_stored_with_the_run():
    results: dict[str, list[int]] = {}
    games = [record(0, 0, opponent="turtle"), record(1, 0, opponent="turtle"), record(1, -1, opponent="sure"),
             record(-1, 1), record(0, 1, rival=3)]
    assert tally_bots(results, games) == {"turtle": 0.5, "sure": 0.5}
    assert results == {"turtle": [1, 0, 1], "sure": [0, 1, 0]}
    cfg = TrainConfig(bots=("turtle", "sure"), bot_share=0.25)
    back = TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert back == cfg and back.bots == ("turtle", "sure")
    old = cfg.to_dict()
    del old["bots"], old["bot_share"]
    assert TrainConfig.from_dict(old).bot_share == 0.0


def test_training_against_a_bot_reports_its_results(tmp_path):
    cfg = train_preset("tiny", envs=2, batch_games=2, max_steps=60, eval_games=0, checkpoint_minutes=1e6)
    cfg = replace(cfg, bots=("turtle",), bot_share=1.0)
    summary = train(cfg, tmp_path / "run", steps=2, progress=False)
    assert sum(summary["bots"]["turtle"].values()) == summary["games"] == 4


def test_the_train_command_with_actors_plays_the_bots(tmp_path):
    deepnash = str(Path(sys.executable).with_name("deepnash"))
    res = subprocess.run([deepnash, "train", "--preset", "tiny", "--envs", "2", "--batch-games", "2", "--max-steps",
                          "40", "--eval-games", "0", "--no-progress", "--steps", "2", "--actors", "1",
                          "--bot", "turtle", "--bot", "sure", "--bot-share", "1", "--out", str(tmp_path / "run"),
                          "--json"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert sum(sum(r.values()) for r in summary["bots"].values()) == summary["games"] == 4
    assert set(summary["bots"]) <= {"turtle", "sure"}
    res = subprocess.run([deepnash, "train", "--steps", "1", "--bot-share", "0.5", "--out", str(tmp_path / "bad")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "no bots" in res.stderr
