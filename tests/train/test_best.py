"""The training loop keeps its best-evaluated network in ``OUT/best``, across resumes."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
import torch

from deepnash.agents.network_agent import load_network
from deepnash.nn.checkpoint import CheckpointError, load_checkpoint
from deepnash.train.config import train_preset
from deepnash.train.evaluate import versus_random
from deepnash.train.loop import train

#: Two games per update cut at 40 agent steps; only the final evaluation runs (2 games each network).
CFG = train_preset("tiny", envs=2, batch_games=2, max_steps=40, eval_games=2, eval_minutes=1e6,
                   checkpoint_minutes=0.0)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("best") / "run"
    return out, train(CFG, out, steps=1, progress=False)


def _best(out):
    return load_checkpoint(out / "best").meta["evaluation"]


def test_best_is_the_top_evaluation_and_replays_it(run):
    out, summary = run
    best = _best(out)
    assert summary["best_win_rate"] == best["win_rate"]
    assert best["win_rate"] == max(summary["eval"]["win_rate"], summary["eval_target"]["win_rate"])
    assert best["weights"] in ("online", "target") and best["games"] == 2
    net, meta = load_network(out / "best")  # a plain agent checkpoint: one network, no optimiser
    assert set(load_checkpoint(out / "best").groups) == {"online"} and "optimizer" not in meta
    with torch.no_grad():
        replay = versus_random(net, "barrage", 2, seed=best["seed"])
    assert replay == {k: best[k] for k in replay}


def _fake_match(rates, opponents=None):
    """A stand-in for ``network_versus`` that gives the online and the target network the rates in turn
    (and notes each opponent it was asked to play in ``opponents``)."""
    calls = iter(rates)

    def match(net, opponent, variant, games, seed=0, setup="own"):
        if opponents is not None:
            opponents.append(opponent)
        wins = round(next(calls) * games)
        return {"games": games, "wins": wins, "draws": 0, "losses": games - wins, "win_rate": wins / games,
                "endings": {}}
    return match


def test_resume_keeps_the_best_unless_beaten(run, tmp_path, monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(run[0], out)
    before = _best(out)
    files = {p: p.read_bytes() for p in (out / "best").rglob("*") if p.is_file()}
    worse = before["win_rate"] - 0.5
    monkeypatch.setattr("deepnash.train.loop.network_versus", _fake_match([worse, worse]))
    assert train(CFG, out, steps=2, resume=True, progress=False)["best_win_rate"] == before["win_rate"]
    assert files == {p: p.read_bytes() for p in (out / "best").rglob("*") if p.is_file()}

    monkeypatch.setattr("deepnash.train.loop.network_versus", _fake_match([worse, 1.0]))  # the target network wins
    assert train(CFG, out, steps=3, resume=True, progress=False)["best_win_rate"] == 1.0
    after = _best(out)
    assert after["weights"] == "target" and after["win_rate"] == 1.0
    best_net = load_checkpoint(out / "best").groups["online"]
    target = load_checkpoint(out).groups["target"]  # the run's last checkpoint, written just before the evaluation
    assert load_checkpoint(out).meta["counters"]["learner_step"] == 3
    assert all(torch.equal(best_net[k], target[k]) for k in target)


def test_a_resume_against_another_opponent_or_setup_starts_its_best_afresh(run, tmp_path, monkeypatch):
    """Rates against different bots, or from different setups, do not compare: the first evaluation
    against the new opponent or setup source replaces the best, however low, and the manifest names both."""
    out = tmp_path / "run"
    shutil.copytree(run[0], out)
    before = _best(out)
    assert before["opponent"] == "random"
    asked = []
    monkeypatch.setattr("deepnash.train.loop.network_versus", _fake_match([0.0, 0.0], asked))
    cfg = replace(CFG, eval_opponent="cautious")
    assert train(cfg, out, steps=2, resume=True, progress=False)["best_win_rate"] == 0.0
    after = _best(out)
    assert asked == ["cautious", "cautious"]
    assert after["opponent"] == "cautious" and after["win_rate"] == 0.0
    assert load_checkpoint(out / "best").meta["counters"]["learner_step"] == 2
    monkeypatch.setattr("deepnash.train.loop.network_versus", _fake_match([0.0, 0.0]))
    assert train(cfg, out, steps=3, resume=True, progress=False)["best_win_rate"] == 0.0
    assert load_checkpoint(out / "best").meta["counters"]["learner_step"] == 2  # a tie is no new best
    monkeypatch.setattr("deepnash.train.loop.network_versus", _fake_match([0.0, 0.0]))
    assert train(replace(cfg, eval_setup="human"), out, steps=4, resume=True, progress=False)["best_win_rate"] == 0.0
    assert _best(out)["setup"] == "human" and load_checkpoint(out / "best").meta["counters"]["learner_step"] == 4


def test_corrupt_best_refuses_the_resume_and_is_left_alone(run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(run[0], out)
    weights = next((out / "best").glob("ckpt-*/online.safetensors"))
    weights.write_bytes(weights.read_bytes()[:-10])
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and "tb" not in p.parts}
    with pytest.raises(CheckpointError, match="online.safetensors"):
        train(CFG, out, steps=2, resume=True, progress=False)
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and "tb" not in p.parts}
    assert after == before
