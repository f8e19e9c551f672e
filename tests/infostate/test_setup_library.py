"""People's setups as a belief: the library, its posterior over setups and the belief it gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.infostate.setup_library import (MOVED, NOT_DEPLOYED, SetupLibrary, library_belief, public_origins,
                                              setup_posterior)
from deepnash.nn.belief import hidden_pieces, public_belief
from deepnash.train.human import SELECT, HumanDecisions, load_games

SAMPLE = Path(__file__).parents[1] / "train" / "data" / "gravon-sample.zip"  # 12 Classic and 4 Barrage games


def _library(games, **params) -> SetupLibrary:
    return SetupLibrary.from_deployments(games[0].variant, np.concatenate([g.setup for g in games]),
                                         [g.key for g in games for _ in (0, 1)], **params)


@pytest.fixture(scope="module")
def classic():
    games = load_games(SAMPLE, "classic")
    batches = list(HumanDecisions(games, "classic", batch_size=4096, slots=12, shuffle=False, phases=(SELECT,)))
    return games, _concat(batches)


def _concat(batches):
    first = batches[0]
    return type(first)(*(np.concatenate([getattr(b, f) for b in batches]) for f in first.__dataclass_fields__))


def test_the_library_counts_deployments_and_leaves_out_the_games_scored(classic):
    games, _ = classic
    lib = _library(games)
    assert len(lib.deployments) == 2 * len(games) and lib.counts.sum() == 2 * len(games)
    assert all(any((row == g.setup[p][:40]).all() for row in lib.setups) for g in games for p in (0, 1))
    less = lib.without([games[0].key, games[1].key])
    assert less.counts.sum() == 2 * len(games) - 4 and (less.counts > 0).all()
    assert not any((row == games[0].setup[0][:40]).all() for row in less.setups)  # nobody else played it
    with pytest.raises(ValueError, match="outside squares 0-39"):
        SetupLibrary.from_deployments("classic", np.stack([g.setup[1][::-1] for g in games[:1]]), ["x"])
    with pytest.raises(ValueError, match="game keys"):
        SetupLibrary.from_deployments("classic", games[0].setup, ["x"])
    with pytest.raises(ValueError, match="noise"):
        _library(games, noise=0.0)


def test_a_saved_library_loads_the_same_and_a_corrupt_one_is_named(classic, tmp_path):
    lib = _library(classic[0], noise=0.1, novel=0.3, mirrored=0.5)
    lib.save(tmp_path / "lib")  # written under the name given
    back = SetupLibrary.load(tmp_path / "lib")
    assert back.variant == "classic" and (back.noise, back.novel, back.mirrored) == (0.1, 0.3, 0.5)
    assert all(np.array_equal(getattr(back, f), getattr(lib, f)) for f in ("setups", "deployments", "games"))
    (tmp_path / "bad.npz").write_bytes((tmp_path / "lib").read_bytes()[:200])
    with pytest.raises(ValueError, match="bad.npz: not a setup library"):
        SetupLibrary.load(tmp_path / "bad.npz")


def test_the_posterior_finds_the_opponents_setup_as_its_pieces_show(classic):
    """Every game's opponent deployed a setup of the library: as battles reveal pieces, the posterior settles
    on it, and the belief gives the hidden pieces their true types far more often than the public one."""
    games, at = classic
    lib = _library(games)
    late = at.ply >= 150
    weights, novel = setup_posterior(lib, at.opponent_evidence[late])
    truth = np.array([np.flatnonzero((lib.setups == games[g].setup[1 - (p % 2)][:40]).all(axis=1))[0]
                      for g, p in zip(at.game[late], at.ply[late])])
    assert np.mean(weights[np.arange(len(truth)), truth] > 0.9) > 0.9
    assert np.allclose(weights.sum(axis=1) + novel, 1)
    public = public_belief(torch.from_numpy(at.obs[late])).double().numpy()
    belief = library_belief(lib, public, at.opponent_origins[late], at.opponent_evidence[late])
    rows, squares = np.nonzero(hidden_pieces(torch.from_numpy(public)).numpy())
    types = at.opponent_types[late][rows, squares]
    assert np.mean(-np.log(belief[rows, squares, types])) < 0.5 * np.mean(-np.log(public[rows, squares, types]))
    # a library without those games knows nothing of them: the posterior goes to the novel setup
    others = lib.without([g.key for g in games[:6]])
    mine = np.isin(at.game[late], np.arange(6))
    assert np.median(setup_posterior(others, at.opponent_evidence[late][mine])[1]) > 0.5


def test_the_belief_is_a_distribution_over_the_types_public_information_allows():
    """Random libraries, bases and evidence: on every opponent piece's square a distribution that keeps
    the zeros of the base, elsewhere the base as it was; a mirrored setup is found as its mirror image."""
    rng = np.random.default_rng(7)
    setups = rng.integers(-1, 12, size=(30, 100)).astype(np.int8)
    setups[:, 40:] = -1
    lib = SetupLibrary.from_deployments("classic", setups, [f"g{i}" for i in range(30)])
    n = 16
    base = rng.random((n, 100, 12)) * (rng.random((n, 100, 12)) < 0.6)
    base /= np.maximum(base.sum(axis=2, keepdims=True), 1e-12)
    origins = np.where(rng.random((n, 100)) < 0.3, rng.integers(60, 100, size=(n, 100)), -1).astype(np.int8)
    evidence = rng.choice([-1, 3, 7, 10, MOVED, NOT_DEPLOYED], size=(n, 100)).astype(np.int8)
    out = library_belief(lib, base, origins, evidence)
    piece = (origins >= 0) & (base.sum(axis=2) > 0)
    assert np.allclose(out[piece].sum(axis=1), 1) and (out[base == 0] == 0).all()
    assert np.array_equal(out[origins < 0], base[origins < 0])
    mirror = setups[4, :40].reshape(4, 10)[:, ::-1].reshape(40)  # setup 4 seen from the other side
    shown = np.full((1, 100), -1, np.int8)
    shown[0, 99 - np.arange(40)] = np.where(mirror < 0, NOT_DEPLOYED, mirror)
    weights, _ = setup_posterior(lib, shown)
    k = int(np.flatnonzero((lib.setups == setups[4, :40]).all(axis=1))[0])
    assert weights[0].argmax() == len(lib.setups) + k


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_the_search_works_out_the_same_origins_from_the_move_history_as_the_replay_follows(variant):
    """Two ways to the same public facts: ``public_origins`` walks a ``PlayerView``'s history back from the
    board; the human stream follows the pieces forward move by move."""
    from deepnash.game import Game, Move, get_variant
    from deepnash.infostate.view import PlayerView, push_recorded
    from deepnash.notation.field import field_placements
    from deepnash.notation.gravon import read_records

    games = load_games(SAMPLE, variant)[:3]
    records = {f"{Path(r.source).name}#{r.game}": r for r in read_records(SAMPLE)}
    at = _concat(list(HumanDecisions(games, variant, batch_size=4096, slots=3, shuffle=False, phases=(SELECT,))))
    rows = {(int(g), int(p)): i for i, (g, p) in enumerate(zip(at.game, at.ply))}
    checked = 0
    for k, g in enumerate(games):
        record = records[g.key]
        game = Game(get_variant(variant).with_rules(max_moves=0, max_moves_without_attack=0, two_squares=False,
                                                    more_squares=False), *field_placements(record.field))
        history = []
        for ply, m in enumerate(record.moves):
            if ply % 7 == 0 or ply == len(record.moves) - 1:
                view = PlayerView.of(game, game.turn, tuple(history))
                origins, evidence = public_origins(view)
                i = rows[k, ply]
                assert np.array_equal(origins, at.opponent_origins[i]), (g.key, ply)
                assert np.array_equal(evidence, at.opponent_evidence[i]), (g.key, ply)
                checked += 1
            history.append(push_recorded(game, Move(m.from_sq, m.to_sq)))
    assert checked > 20
    cut = PlayerView.of(game, game.turn, tuple(history[5:]))  # a history that does not reach the deployment
    assert public_origins(cut) is None
