"""versus_random: the batched match of a network's raw policy against the uniformly random bot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

from deepnash.agents.network_agent import SHIPPED_DIR, load_network
from deepnash.nn import DeepNashNet, get_preset
from deepnash.train.evaluate import versus_random

torch.set_num_threads(1)


def test_score_adds_up_and_is_reproducible():
    net = DeepNashNet(get_preset("tiny"))
    a = versus_random(net, "barrage", 9, seed=4)
    assert a["games"] == 9 == a["wins"] + a["draws"] + a["losses"] == sum(a["endings"].values())
    assert a["win_rate"] == a["wins"] / 9
    assert versus_random(net, "barrage", 9, seed=4) == a
    assert versus_random(net, "barrage", 0)["games"] == 0


def test_trained_network_wins_far_more_than_an_untrained_one():
    """TRAINING.md: the shipped network wins about 84% raw, an untrained one about a third; for the
    untrained network and the one-hour network of the agent shipped before, the game-by-game
    ``agent_versus_random`` gave the same rates (a cross-check of the two paths)."""
    trained, _ = load_network(SHIPPED_DIR / "barrage")
    won = versus_random(trained, "barrage", 200, seed=2)
    baseline = versus_random(DeepNashNet(get_preset("tiny")), "barrage", 200, seed=2)
    assert won["win_rate"] >= 0.65 and baseline["win_rate"] <= 0.45, (won, baseline)


SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "versus_random.py"


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--threads", "1"],
                          capture_output=True, text=True, timeout=300)


def test_script_sums_versus_random_over_seeds_with_a_wilson_interval():
    """scripts/versus_random.py remakes the training docs' figures: its tally is versus_random's, summed."""
    done = _script(str(SHIPPED_DIR / "barrage"), "--variant", "barrage", "--games", "5", "--seeds", "3", "4",
                   "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    net, _ = load_network(SHIPPED_DIR / "barrage")
    parts = [versus_random(net.eval(), "barrage", 5, seed=s) for s in (3, 4)]
    for key in ("games", "wins", "draws", "losses"):
        assert got[key] == sum(p[key] for p in parts)
    assert got["per_seed"] == {str(s): [p["wins"], p["draws"], p["losses"]] for s, p in zip((3, 4), parts)}
    lo, hi = got["wilson95"]
    assert lo <= got["win_rate"] <= hi and got["games"] == 10


def test_script_plays_a_fresh_network_and_names_a_missing_checkpoint(tmp_path):
    fresh = _script("fresh:tiny", "--variant", "barrage", "--games", "2", "--seeds", "1")
    assert fresh.returncode == 0, fresh.stderr
    assert "fresh:tiny (online) vs random, barrage, 2 games:" in fresh.stdout
    missing = _script(str(tmp_path / "nope"), "--games", "2")
    assert missing.returncode == 2 and str(tmp_path / "nope") in missing.stderr
