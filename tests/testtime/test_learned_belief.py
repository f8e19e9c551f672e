"""The learned belief's sampler: its draws follow the network's marginals where the counts allow,
for both colours and for moved and unmoved pieces (the property test that every draw keeps to
public information is ``test_search``'s); and the agent spec that takes one (``belief=``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.agents import PlayerView
from deepnash.agents import network_agent
from deepnash.agents.network_agent import SHIPPED_DIR
from deepnash.agents.registry import AgentSpecError, make_agent
from deepnash.arena import referee_game
from deepnash.game import BARRAGE, CLASSIC, Game
from deepnash.game.pieces import FLAG, MARSHAL, NUM_TYPES
from deepnash.infostate.beliefs import type_distributions
from deepnash.infostate.observe import observe_view
from deepnash.nn.belief import BELIEF_PRESETS, BeliefNet
from deepnash.nn.checkpoint import CheckpointError, save_checkpoint
from deepnash.testtime.belief import LearnedBelief
from test_search import random_position


def sure_of(square: int, kind: int, player: int, p: float = 0.9):
    """A ``MarginalsFn`` for ``player`` that gives the opponent piece on absolute ``square`` type ``kind`` with
    probability ``p`` (the rest spread evenly over the types public information allows), and the other
    pieces the public marginals less what that takes from ``kind``, so that the expected counts stay
    those of the army, as a trained network's do."""
    at = square if player == 0 else 99 - square  # the square in the player's frame

    def fn(obs: np.ndarray) -> np.ndarray:
        q = obs[13:25].reshape(NUM_TYPES, 100).T.astype(np.float64).copy()
        allowed = q[at] > 0
        assert allowed[kind]
        others = (q[:, kind] > 0) & (q.max(axis=1) < 1)
        others[at] = False
        spare = q[others, kind].sum() - (p - q[at, kind])  # what the other pieces keep of ``kind``
        q[others, kind] *= spare / q[others, kind].sum()
        q[others] /= q[others].sum(axis=1, keepdims=True)
        q[at] = np.where(allowed, (1 - p) / (allowed.sum() - 1), 0.0)
        q[at, kind] = p
        return q

    return fn


@pytest.mark.parametrize("player", [0, 1])
def test_an_unmoved_piece_takes_the_type_the_network_is_sure_of(player):
    game = Game(CLASSIC, seed=3)
    view = PlayerView.of(game, player, ())
    opp = np.flatnonzero(view.owner == 1 - player)
    square = int(opp[len(opp) // 2])  # a piece in the middle of the opponent's setup
    draws = LearnedBelief(sure_of(square, FLAG, player))(view)
    rng = np.random.default_rng(0)
    flags = np.mean(draws(rng, 300)[:, square] == FLAG)
    assert flags > 0.75  # 0.9 asked; the public belief alone gives 1/40
    assert type_distributions(view)[square, FLAG] == pytest.approx(1 / 40)


def test_a_moved_piece_takes_the_type_the_network_is_sure_of():
    game, history = random_position(CLASSIC, seed=11, plies=40)
    me = game.turn
    view = PlayerView.of(game, me, history)
    moved = np.flatnonzero((view.owner == 1 - me) & view.moved & ~view.revealed)
    assert len(moved) >= 2
    square = int(moved[0])
    draws = LearnedBelief(sure_of(square, MARSHAL, me))(view)
    rng = np.random.default_rng(1)
    marshals = np.mean(draws(rng, 300)[:, square] == MARSHAL)
    assert marshals > 0.75 > 3 * type_distributions(view)[square, MARSHAL]


def test_public_marginals_leave_the_heuristic_draws_alone():
    """A network that says only what public information says tilts nothing: draws follow the public
    marginals (the Flag is as likely on any unmoved piece)."""
    game = Game(CLASSIC, seed=5)
    view = PlayerView.of(game, 0, ())
    belief = LearnedBelief(lambda obs: obs[13:25].reshape(NUM_TYPES, 100).T)
    assert np.allclose(belief.weights(view), 1.0)
    draws = belief(view)
    rng = np.random.default_rng(2)
    where = np.bincount(np.flatnonzero(draws(rng, 2000) == FLAG) % 100, minlength=100)
    opp = np.flatnonzero(view.owner == 1)
    assert where[opp].sum() == 2000 and where[opp].max() < 2000 * 0.06  # about 1/40 each


def test_with_people_s_setups_the_draws_find_the_flag_of_a_setup_its_pieces_point_to():
    """An opponent whose setup is in the library, late in a recorded game: the public marginals alone put its
    Flag on any of its unmoved pieces; weighed by the library, nearly every draw puts it where it stands."""
    from deepnash.game import Move, get_variant
    from deepnash.game.pieces import FLAG as FLAG_TYPE
    from deepnash.infostate.setup_library import SetupLibrary
    from deepnash.infostate.view import push_recorded
    from deepnash.notation.field import field_placements
    from deepnash.notation.gravon import read_records
    from deepnash.train.human import load_games

    sample = Path(__file__).parents[1] / "train" / "data" / "gravon-sample.zip"
    games = load_games(sample, "classic")
    library = SetupLibrary.from_deployments("classic", np.concatenate([g.setup for g in games]),
                                            [g.key for g in games for _ in (0, 1)])
    record = next(r for r in read_records(sample) if r.variant.lower() == "classic" and len(r.moves) > 300)
    game = Game(get_variant("classic").with_rules(max_moves=0, max_moves_without_attack=0, two_squares=False,
                                                   more_squares=False), *field_placements(record.field))
    history = [push_recorded(game, Move(m.from_sq, m.to_sq)) for m in record.moves[:300]]
    view = PlayerView.of(game, game.turn, tuple(history))
    flag = next(sq for sq in range(100) if (p := game.piece_at(sq)) is not None and p.player != game.turn
                and p.type == FLAG_TYPE)
    public = lambda obs: obs[13:25].reshape(NUM_TYPES, 100).T  # noqa: E731
    rng = np.random.default_rng(0)
    alone = LearnedBelief(public)(view)(rng, 400)
    weighed = LearnedBelief(public, library)(view)(rng, 400)
    assert np.mean(alone[:, flag] == FLAG_TYPE) < 0.3 and np.mean(weighed[:, flag] == FLAG_TYPE) > 0.9


# -- the agent spec --------------------------------------------------------------------------------------

NETWORK = Path(__file__).parent / "data" / "barrage-network"  # a tiny Barrage network


@pytest.fixture(scope="module")
def belief_run(tmp_path_factory) -> Path:
    """A belief network's checkpoint (untrained), as ``deepnash export`` keeps one."""
    out = tmp_path_factory.mktemp("belief")
    torch.manual_seed(0)
    config = BELIEF_PRESETS["tiny"]
    save_checkpoint(out, 1, {"online": BeliefNet(config).state_dict()}, {"kind": "belief", "belief_net": config.to_dict()})
    return out


def test_a_searching_agent_plays_whole_games_from_a_learned_belief(belief_run):
    agent = make_agent(f"checkpoint:{NETWORK},search=on,samples=2,depth=1,candidates=3,rounds=1,belief={belief_run}")
    assert isinstance(agent.search._belief, LearnedBelief) and agent.search._belief.library.variant == "barrage"
    drawn = []
    sampler = agent.search._belief
    agent.search._belief = lambda view, ex: drawn.append(view.ply) or sampler(view, ex)  # count the positions it served
    result = referee_game(agent, make_agent(f"checkpoint:{NETWORK}"), replace(BARRAGE, max_moves=60), seed=3)
    assert result.reason is None and len(drawn) > 5
    heuristic = make_agent(f"checkpoint:{NETWORK},search=on,belief=heuristic")
    assert heuristic.search._belief is None


def test_a_belief_that_is_not_there_is_named(belief_run, tmp_path, monkeypatch):
    with pytest.raises(CheckpointError, match="not a belief network"):
        make_agent(f"checkpoint:{NETWORK},search=on,belief={NETWORK}")
    with pytest.raises(CheckpointError):
        make_agent(f"checkpoint:{NETWORK},search=on,belief={tmp_path / 'nothing'}")
    if not (SHIPPED_DIR / "barrage" / "belief").is_dir():  # people's setups over the heuristic sampler's marginals
        learned = make_agent(f"checkpoint:{NETWORK},search=on,belief=learned").search._belief
        assert learned.library.variant == "barrage"
        public = Game(BARRAGE, seed=4)
        view = PlayerView.of(public, 0, ())
        assert np.allclose(learned.marginals_fn(observe_view(view)).sum(axis=1)[view.owner == 1], 1)
    monkeypatch.setattr(network_agent, "SHIPPED_DIR", tmp_path)  # neither a network nor a library
    with pytest.raises(AgentSpecError, match="no belief network shipped for 'barrage'"):
        make_agent(f"checkpoint:{NETWORK},search=on,belief=learned")
    assert make_agent(f"checkpoint:{NETWORK},belief={NETWORK}").search is None  # no search: no belief to load
