"""Learning the belief from people's games: it learns, it resumes, it refuses to overwrite, its scores
cross-check by hand, and the commands that train and score it print what they say."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from deepnash.archives import packaged_archive_dir
from deepnash.game import BARRAGE, CLASSIC
from deepnash.game.pieces import FLAG
from deepnash.infostate.setup_stats import deployment_weights
from deepnash.nn.belief import BELIEF_PRESETS, BeliefNet, load_belief
from deepnash.nn.checkpoint import CheckpointError, load_checkpoint
from deepnash.train.belief import (BeliefTrainConfig, belief_metrics, mirror_rows, pretrain_belief, sampler_belief,
                                   start_from)
from deepnash.train.human import SELECT, HumanDecisions, load_games

BARRAGE_GAMES = packaged_archive_dir() / "strados2014-1.zip"

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def barrage():
    return sorted(load_games(BARRAGE_GAMES, "barrage"), key=lambda g: g.key)[:40]


def test_a_short_run_learns_more_than_public_information_and_resumes(barrage, tmp_path):
    cfg = BeliefTrainConfig(net="tiny", variant="barrage", batch_size=64, learning_rate=3e-3, slots=40,
                            buffer=512, sample=0.5, validation=0.0, eval_games=0)
    out = tmp_path / "run"
    before = belief_metrics(load_fresh(cfg), barrage, "barrage")
    r = pretrain_belief(cfg, barrage, out, steps=150, progress=False)
    assert r["step"] == 150 and r["positions"] == 150 * 64 and r["validation"] is None
    net, meta = load_belief(out)
    assert meta["variant"] == "barrage" and meta["counters"]["step"] == 150
    after = belief_metrics(net, barrage, "barrage")
    assert after["public"] == pytest.approx(before["public"]) and after["hidden_pieces"] == before["hidden_pieces"]
    assert after["network"] < before["network"] and after["network"] < after["public"]  # it learnt where pieces stand
    r = pretrain_belief(cfg, barrage, out, steps=160, resume=True, progress=False)
    assert r["step"] == 160 and load_checkpoint(out).meta["counters"]["positions"] == 160 * 64
    with pytest.raises(FileExistsError, match="--resume"):
        pretrain_belief(cfg, barrage, out, steps=170, progress=False)


def load_fresh(cfg: BeliefTrainConfig):
    torch.manual_seed(cfg.seed)
    return BeliefNet(BELIEF_PRESETS[cfg.net]).eval()


def test_the_sampler_belief_tilts_unmoved_pieces_by_the_setup_statistics(barrage):
    batch = next(iter(HumanDecisions(barrage[:4], "barrage", batch_size=400, slots=4, shuffle=False, phases=(SELECT,))))
    public = batch.obs[:, 13:25].reshape(len(batch), 12, 100).transpose(0, 2, 1).astype(np.float64)
    tilted = sampler_belief(public, "barrage")
    weights = deployment_weights(BARRAGE, 1)
    for i, sq in zip(*np.nonzero(public.sum(axis=2) > 0)):
        if public[i, sq, FLAG] > 0:  # not moved: public times the setup statistics, renormalised
            want = public[i, sq] * weights[sq]
            assert np.allclose(tilted[i, sq], want / want.sum())
        else:  # moved (or revealed): the setup statistics say nothing
            assert np.allclose(tilted[i, sq], public[i, sq])
    assert np.array_equal(tilted.sum(axis=2) > 0, public.sum(axis=2) > 0)
    assert deployment_weights(CLASSIC, 1)[:60].min() == 1.0  # in the player's frame the opponent sets up in rows 6-9


def test_mirroring_moves_the_truth_with_the_pieces():
    batch = next(iter(HumanDecisions(load_games(BARRAGE_GAMES, "barrage")[:2], "barrage", batch_size=64, slots=2,
                                     shuffle=False, phases=(SELECT,))))
    obs = torch.from_numpy(batch.obs.copy())
    truth = torch.from_numpy(batch.opponent_types.astype(np.int64))
    mirror_rows(obs, truth, torch.arange(len(obs)))
    public = obs[:, 13:25].reshape(len(obs), 12, 100).transpose(1, 2)
    there = truth >= 0
    assert torch.equal(public.sum(dim=2) > 0, there)  # the truth stands where the mirrored planes put pieces
    assert bool((public.gather(2, truth.clamp(min=0).unsqueeze(2)).squeeze(2)[there] > 0).all())
    mirror_rows(obs, truth, torch.arange(len(obs)))
    assert torch.equal(obs, torch.from_numpy(batch.obs)) and torch.equal(truth, torch.from_numpy(
        batch.opponent_types.astype(np.int64)))


def test_the_commands_train_a_belief_and_score_it(tmp_path):
    cli = [sys.executable, "-c", "from deepnash.cli import main; main()"]
    run = tmp_path / "belief"
    out = subprocess.run([*cli, "pretrain-belief", str(BARRAGE_GAMES), "--variant", "barrage", "--preset", "tiny",
                          "--steps", "3", "--slots", "16", "--eval-games", "3", "--out", str(run), "--json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["step"] == 3 and summary["validation"]["hidden_pieces"] > 0
    assert set(summary["validation"]) >= {"network", "public", "sampler", "phases"}
    network = Path(__file__).parents[1] / "testtime" / "data" / "barrage-network"
    scored = subprocess.run([*cli, "value-check", f"checkpoint:{network}", str(BARRAGE_GAMES), "--variant", "barrage",
                             "--games", "6", "--fit-games", "30", "--belief", str(run), "--json"],
                            capture_output=True, text=True, timeout=600)
    assert scored.returncode == 0, scored.stderr
    r = json.loads(scored.stdout)
    assert r["belief"] == str(run) and 0 < r["belief_nll"] < np.log(12) and r["hidden_pieces"] > 0
    assert r["library"].endswith("setup_library.npz") and 0 < r["network_belief_nll"] < np.log(12)
    assert all(v["n"] == 0 or v["belief_nll"] is not None for v in r["belief_phases"].values())
    # a library of these very games: value-check leaves out the games it scores, and says so by scoring the rest
    library = tmp_path / "setups.npz"
    built = subprocess.run([*cli, "setup-library", str(BARRAGE_GAMES), "--variant", "barrage", "--held-out", "0",
                            "--out", str(library)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0 and "distinct setups" in built.stdout, built.stderr
    own = subprocess.run([*cli, "value-check", f"checkpoint:{network}", str(BARRAGE_GAMES), "--variant", "barrage",
                          "--games", "6", "--fit-games", "30", "--belief", str(run), "--library", str(library),
                          "--json"], capture_output=True, text=True, timeout=600)
    assert own.returncode == 0, own.stderr
    mine = json.loads(own.stdout)
    assert mine["library"] == str(library) and mine["network_belief_nll"] == pytest.approx(r["network_belief_nll"])
    assert 0 < mine["belief_nll"] < np.log(12)
    other = subprocess.run([*cli, "value-check", f"checkpoint:{network}", str(BARRAGE_GAMES), "--games", "2",
                            "--library", str(library)], capture_output=True, text=True, timeout=600)
    assert other.returncode == 2 and "a barrage setup library, not classic" in other.stderr
    exported = subprocess.run([*cli, "export", str(run), str(tmp_path / "compact")], capture_output=True, text=True)
    assert exported.returncode == 0 and "belief=" in exported.stdout
    mirrored = subprocess.run([*cli, "export", str(run), str(tmp_path / "mirrored"), "--mirror-value"],
                              capture_output=True, text=True)
    assert mirrored.returncode == 2 and "holds no DeepNash network" in mirrored.stderr
    assert load_belief(tmp_path / "compact")[1]["counters"]["step"] == 3
    wrong = subprocess.run([*cli, "value-check", f"checkpoint:{network}", str(BARRAGE_GAMES), "--variant", "barrage",
                            "--games", "2", "--belief", str(network)], capture_output=True, text=True, timeout=600)
    assert wrong.returncode == 2 and "not a belief network" in wrong.stderr


def test_a_run_started_from_a_belief_network_starts_from_its_beliefs(barrage, tmp_path):
    """``init``: the run's network is the checkpoint's before its first update; another shape is refused."""
    cfg = BeliefTrainConfig(net="tiny", variant="barrage", batch_size=32, slots=8, buffer=64, validation=0.0,
                            eval_games=0)
    pretrain_belief(cfg, barrage[:8], tmp_path / "first", steps=3, progress=False)
    first, _ = load_belief(tmp_path / "first")
    net = BeliefNet(BELIEF_PRESETS["tiny"])
    batch = next(iter(HumanDecisions(barrage[:2], "barrage", batch_size=32, slots=2, shuffle=False, phases=(SELECT,))))
    obs = torch.from_numpy(batch.obs)
    with torch.inference_mode():
        assert not torch.equal(net(obs), first(obs))
        start_from(net, tmp_path / "first", "barrage")
        assert torch.equal(net(obs), first(obs))
    with pytest.raises(CheckpointError, match="does not fit"):
        start_from(BeliefNet(BELIEF_PRESETS["small"]), tmp_path / "first", "barrage")
    with pytest.raises(CheckpointError, match="learnt barrage, this run learns classic"):
        start_from(BeliefNet(BELIEF_PRESETS["tiny"]), tmp_path / "first", "classic")
    r = pretrain_belief(replace(cfg, init=str(tmp_path / "first"), learning_rate=1e-4), barrage[:8], tmp_path / "next",
                        steps=2, progress=False)
    assert r["step"] == 2 and load_belief(tmp_path / "next")[1]["config"]["init"] == str(tmp_path / "first")
