"""The real ``deepnash train`` command: train a tiny run, kill it, resume it; refuse a corrupt checkpoint."""

from __future__ import annotations

import json
import math
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


from deepnash.nn.checkpoint import load_checkpoint
from deepnash.train.config import PRIOR_NEURD_BETA, train_preset

DEEPNASH = [str(Path(sys.executable).with_name("deepnash"))]
#: A very small run: 2 games per update, each cut after 40 agent steps (16 deployment + 24 play steps).
SMALL = ["--preset", "tiny", "--envs", "2", "--batch-games", "2", "--max-steps", "40", "--eval-games", "0",
         "--checkpoint-minutes", "0", "--no-progress"]


def run(args, **kw):
    return subprocess.run(DEEPNASH + ["train", *args], capture_output=True, text=True, timeout=120, **kw)


def test_train_kill_resume(tmp_path):
    """Killed (SIGKILL) twice at random moments while it checkpoints after every update, so that kills
    can land inside a checkpoint write: the latest checkpoint always loads whole, and the resumed run's
    counters continue from it."""
    out = tmp_path / "run"
    rng = random.Random(7)
    seen = []
    for attempt in range(2):
        args = [*SMALL, "--steps", "100000"] + (["--out", str(out)] if attempt == 0 else ["--resume", str(out)])
        proc = subprocess.Popen(DEEPNASH + ["train", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            step = seen[-1] if seen else 0
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.2)
                try:
                    now = load_checkpoint(out).meta["counters"]["learner_step"]
                except (ValueError, OSError, KeyError):
                    continue
                if now >= (12 if attempt == 0 else step + 2):
                    break
            time.sleep(rng.uniform(0.0, 1.5))  # then a random moment, likely mid-update or mid-write
            assert proc.poll() is None, f"train stopped by itself; stderr:\n{proc.stderr.read()}"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        counters = load_checkpoint(out).meta["counters"]  # verifies sizes and hashes: never half-written
        assert counters["games"] == 2 * counters["learner_step"]
        seen.append(counters["learner_step"])
    assert seen[0] >= 12 and seen[1] > seen[0], seen
    killed_at = load_checkpoint(out).meta["counters"]

    target = killed_at["learner_step"] + 12
    res = run(["--resume", str(out), "--steps", str(target), "--json", "--checkpoint-minutes", "100"])
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["learner_step"] == target
    assert summary["games"] == 2 * target
    assert summary["env_steps"] > killed_at["env_steps"]
    assert math.isfinite(summary["loss_critic"]) and math.isfinite(summary["loss_policy"])
    final = load_checkpoint(out)
    assert final.meta["counters"]["learner_step"] == target
    delta = train_preset("tiny").rnad.schedule.sizes[0]  # the tiny preset's R-NaD iteration length
    assert final.meta["schedule"]["iteration"] == target // delta
    assert (out / "tb").is_dir() and any((out / "tb").iterdir())
    assert not [p for p in out.iterdir() if p.name.startswith(".ckpt-")]  # a killed write's leftovers are gone


def test_existing_run_and_corrupt_checkpoint_are_refused_and_left_alone(tmp_path):
    out = tmp_path / "run"
    res = run([*SMALL, "--steps", "2", "--out", str(out), "--json", "--actors", "1"])  # one actor process
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1])["games"] == 4
    res = run([*SMALL, "--steps", "2", "--out", str(out)])  # a fresh run would overwrite it
    assert res.returncode == 2 and "--resume" in res.stderr
    agent = tmp_path / "agent"  # the export plays as checkpoint:DIR and keeps only the online network
    res = subprocess.run(DEEPNASH + ["export", str(out), str(agent)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and f"checkpoint:{agent}" in res.stdout, res.stderr
    assert set(load_checkpoint(agent).groups) == {"online"}
    res = subprocess.run(DEEPNASH + ["export", str(out), str(agent)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "already holds" in res.stderr
    mirrored = tmp_path / "mirrored"  # the value read over the board and its mirror; the weights untouched
    res = subprocess.run(DEEPNASH + ["export", str(out), str(mirrored), "--mirror-value"], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert load_checkpoint(mirrored).meta["net"]["mirror_value"]
    assert "mirror_value" not in load_checkpoint(agent).meta["net"]  # unset: readable by a deepnash without it
    assert (load_checkpoint(mirrored).path / "online.safetensors").read_bytes() == \
        (load_checkpoint(agent).path / "online.safetensors").read_bytes()
    ckpt = load_checkpoint(out).path
    weights = ckpt / "online.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    res = run(["--resume", str(out), "--steps", "4", "--json"])
    assert res.returncode == 2
    assert "online.safetensors" in res.stderr and "truncated" in res.stderr
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before


def test_eval_options_set_the_periodic_and_final_matches(tmp_path):
    out = tmp_path / "run"
    i = SMALL.index("--eval-games")
    args = SMALL[:i] + SMALL[i + 2:]
    proc = run([*args, "--steps", "2", "--eval-games", "5", "--eval-minutes", "0", "--out", str(out), "--json"])
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["eval"]["games"] == summary["eval_target"]["games"] == 5
    assert load_checkpoint(out / "best").meta["evaluation"]["win_rate"] == summary["best_win_rate"]
    config = load_checkpoint(out).meta["config"]
    assert config["eval_games"] == 5 and config["eval_minutes"] == 0


def test_eval_opponent_and_setups_are_used_and_bad_ones_fail_before_anything_is_written(tmp_path):
    bad = run([*SMALL, "--steps", "1", "--eval-opponent", "nosuchbot", "--out", str(tmp_path / "bad")])
    assert bad.returncode == 2 and "nosuchbot" in bad.stderr
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "run"
    i = SMALL.index("--eval-games")
    args = SMALL[:i] + SMALL[i + 2:]
    proc = run([*args, "--steps", "1", "--eval-games", "2", "--eval-opponent", "cautious", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "vs cautious (win-draw-loss)" in proc.stderr and "vs cautious:" in proc.stdout
    assert load_checkpoint(out / "best").meta["evaluation"]["opponent"] == "cautious"
    assert load_checkpoint(out).meta["config"]["eval_opponent"] == "cautious"
    walled = run([*SMALL, "--steps", "1", "--eval-setup", "walled", "--out", str(tmp_path / "walled")])
    assert walled.returncode == 2 and "walled" in walled.stderr  # Barrage has no Flag walled in by Bombs
    assert not (tmp_path / "walled").exists()
    human = tmp_path / "human"
    proc = run([*args, "--steps", "1", "--eval-games", "2", "--eval-setup", "human", "--setups", "human",
                "--out", str(human)])
    assert proc.returncode == 0, proc.stderr
    assert "vs random from human setups (win-draw-loss)" in proc.stderr
    evaluation = load_checkpoint(human / "best").meta["evaluation"]
    assert (evaluation["opponent"], evaluation["setup"]) == ("random", "human")
    assert load_checkpoint(human).meta["config"]["setups"] == "human"
    no_pool = run([*SMALL, "--steps", "1", "--setups", "walled", "--out", str(tmp_path / "np")])
    assert no_pool.returncode == 2 and "walls its Flag" in no_pool.stderr and not (tmp_path / "np").exists()


def test_a_run_from_a_prior_gets_the_wider_neurd_band_unless_its_rnad_config_is_given():
    assert train_preset("tiny").rnad.neurd.beta == 2.0  # from scratch: the paper's band
    assert train_preset("tiny", init="runs/bc").rnad.neurd.beta == PRIOR_NEURD_BETA > 2.0
    own = train_preset("tiny").rnad
    assert train_preset("tiny", init="runs/bc", rnad=own).rnad.neurd.beta == 2.0


def test_a_run_from_a_network_takes_its_preset_and_version_unless_told(tmp_path):
    """``--init`` of a version-3 network, without ``--net-version``, builds a version-3 run of its preset (a
    version-2 one would refuse it); with ``--net-version 2`` it is refused, and says why."""
    prior = tmp_path / "prior"
    assert run([*SMALL, "--steps", "1", "--net-version", "3", "--out", str(prior)]).returncode == 0
    i = SMALL.index("--preset")
    args = SMALL[:i] + SMALL[i + 2:]
    res = run([*args, "--steps", "1", "--init", str(prior), "--out", str(tmp_path / "run")])
    assert res.returncode == 0, res.stderr
    config = load_checkpoint(tmp_path / "run").meta["config"]
    assert (config["net"], config["net_version"], config["init"]) == ("tiny", 3, str(prior))
    res = run([*args, "--steps", "1", "--init", str(prior), "--net-version", "2", "--out", str(tmp_path / "old")])
    assert res.returncode == 2 and "version-3" in res.stderr
