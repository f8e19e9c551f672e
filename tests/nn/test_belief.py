"""The belief network: a distribution over exactly the types public information allows on each opponent
piece, its loss, and its checkpoints (refused when they are not a belief network's)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from deepnash.agents import PlayerView
from deepnash.game import CLASSIC, Game
from deepnash.infostate.beliefs import type_distributions
from deepnash.infostate.observe import observe_view
from deepnash.nn.belief import (
    BELIEF_PRESETS, BeliefConfig, BeliefNet, belief_loss, hidden_pieces, load_belief, public_belief,
)
from deepnash.infostate.view import push_recorded
from deepnash.nn.checkpoint import CheckpointError, save_checkpoint

torch.set_num_threads(1)


def random_position(seed: int, plies: int):
    """A Classic game after up to ``plies`` random moves, still running, and its move records."""
    rng = np.random.default_rng(seed)
    game, history = Game(CLASSIC, seed=seed), []
    for _ in range(plies):
        moves = game.legal_moves()
        move = moves[int(rng.integers(len(moves)))]
        trial = game.copy()
        trial.push(move)
        if trial.is_over():
            break
        history.append(push_recorded(game, move))
    return game, tuple(history)


def positions(n: int = 6):
    """``(obs float32[n, 82, 10, 10], truth int64[n, 100], views)``: random Classic positions, the player to move's."""
    obs, truth, views = [], [], []
    for seed in range(n):
        game, history = random_position(seed, 30 * seed)
        me = game.turn
        view = PlayerView.of(game, me, history)
        board = game.state.board[0]
        kind = np.where((board > 0) & ((board - 1) // 12 == 1 - me), (board - 1) % 12, -1)
        obs.append(observe_view(view))
        truth.append(kind if me == 0 else kind[::-1])
        views.append(view)
    return torch.from_numpy(np.stack(obs)), torch.from_numpy(np.stack(truth).astype(np.int64)), views


def test_the_belief_covers_exactly_the_types_public_information_allows():
    obs, truth, views = positions()
    log_p = BeliefNet(BELIEF_PRESETS["tiny"])(obs)
    assert log_p.shape == (len(obs), 100, 12) and log_p.dtype == torch.float32
    for i, view in enumerate(views):
        public = type_distributions(view)  # the slow way, on absolute squares
        frame = public if view.player == 0 else public[::-1]
        opp = frame.sum(axis=1) > 0
        p = log_p[i].exp().detach().numpy()
        assert np.allclose(p[opp].sum(axis=1), 1, atol=1e-5)
        assert np.array_equal(p[opp] > 0, frame[opp] > 0)  # zero where public information rules a type out
        assert np.allclose(p[~opp], 1 / 12)
        assert np.array_equal(opp, (truth[i] >= 0).numpy())
        planes = public_belief(obs)[i].numpy()  # the encoder's closed form: the same support
        assert np.array_equal(planes > 0, frame > 0) and np.allclose(planes[opp].sum(axis=1), 1, atol=1e-5)
        hidden = hidden_pieces(public_belief(obs))[i].numpy()
        assert np.array_equal(hidden, opp & ~view.revealed[::1 if view.player == 0 else -1])


def test_the_loss_is_the_mean_surprise_of_the_hidden_pieces():
    obs, truth, _ = positions()
    log_p = BeliefNet(BELIEF_PRESETS["tiny"])(obs).detach()
    hidden = hidden_pieces(public_belief(obs))
    want = np.mean([-float(log_p[i, s, truth[i, s]]) for i, s in zip(*np.nonzero(hidden.numpy()))])
    assert float(belief_loss(log_p, obs, truth)) == pytest.approx(want, rel=1e-5)
    assert float(belief_loss(log_p, obs, torch.full_like(truth, -1))) == 0.0  # nothing hidden, nothing to learn
    with pytest.raises(ValueError, match=r"\[N, 82, 10, 10\]"):
        BeliefNet(BELIEF_PRESETS["tiny"])(obs[:, :80])


def test_checkpoints_load_back_and_others_are_refused(tmp_path):
    net = BeliefNet(BELIEF_PRESETS["tiny"])
    config = BELIEF_PRESETS["tiny"].to_dict()
    save_checkpoint(tmp_path / "run", 1, {"online": net.state_dict()}, {"kind": "belief", "belief_net": config})
    again, _ = load_belief(tmp_path / "run")
    obs, _, _ = positions(2)
    assert torch.equal(again(obs), net.eval()(obs))
    save_checkpoint(tmp_path / "policy", 1, {"online": net.state_dict()}, {"kind": "pretrain", "belief_net": config})
    with pytest.raises(CheckpointError, match="not a belief network"):
        load_belief(tmp_path / "policy")
    save_checkpoint(tmp_path / "wide", 1, {"online": net.state_dict()},
                    {"kind": "belief", "belief_net": BELIEF_PRESETS["small"].to_dict()})
    with pytest.raises(CheckpointError, match="cannot build"):
        load_belief(tmp_path / "wide")
    with pytest.raises(ValueError, match="unknown belief network fields"):
        BeliefConfig.from_dict({**config, "heads": 2})
