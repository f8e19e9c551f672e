"""scripts/run_summary.py reads a run's TensorBoard scalars back as text, and scripts/gpu_session.sh, the lent GPU
machine's prepared call, runs end to end on a CPU: it trains, brings back a checkpoint that resumes within the
eight files a call returns, and tallies its head-to-head games."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepnash.nn.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("run_summary", ROOT / "scripts" / "run_summary.py")
run_summary = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_summary)


def _write(tb: Path, steps: range, wall0: float, value) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tb))
    for step in steps:
        writer.add_scalar("losses/critic", value(step), step, walltime=wall0 + 2.0 * step)
    writer.close()


def test_run_summary_gives_each_quarters_median_and_the_rate_without_the_pause_between_invocations(tmp_path):
    tb = tmp_path / "tb"
    _write(tb, range(0, 40), 1000.0, lambda s: 1.0 if s < 20 else 0.5)
    # resumed an hour later: one update every two seconds again, and the later value of step 39 wins
    _write(tb, range(39, 80), 1000.0 + 3600, lambda s: 0.25 if s >= 60 else 0.5)
    summary = run_summary.summarise(run_summary.read_scalars(tmp_path), ("losses/critic", "charts/absent"))
    assert summary["updates"] == [0, 79]
    assert summary["updates_per_minute"] == pytest.approx(30.0)  # not dragged down by the hour's pause
    critic = summary["tags"]["losses/critic"]
    assert critic == {"first_quarter": 1.0, "last_quarter": 0.25, "n": 80}
    assert "charts/absent" not in summary["tags"]


def test_run_summary_names_a_folder_without_event_files(tmp_path, capsys):
    assert run_summary.main([str(tmp_path)]) == 2
    assert str(tmp_path / "tb") in capsys.readouterr().err


def test_the_gpu_session_script_runs_on_a_cpu_and_brings_back_a_resumable_checkpoint(tmp_path):
    out, run = tmp_path / "out", tmp_path / "runs" / "session"
    env = dict(os.environ, PY=sys.executable, OUT=str(out), RUN=str(run), DEVICE="cpu", STEPS="1", ENVS="2",
               BATCH="2", MAX_STEPS="60", THREADS="1", GAMES="2", WORKERS="1", BUDGET="400")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_session.sh")], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) <= 8  # what one call of the lent machine brings back
    ck = load_checkpoint(out / "ckpt")  # the manifest's checksums hold for the copies
    assert {"optimizer", "rng"} <= set(ck.groups) and ck.meta["counters"]["learner_step"] == 1
    log = (out / "gpu_session.log").read_text()
    assert "losses/critic: median" in log
    tally = next(line for line in log.splitlines() if line.startswith("R-NaD against the clone"))
    assert " of 2, " in tally
    results = list((tmp_path / "runs" / "session-h2h").glob("*.result.json"))
    assert len(results) == 2 and all(json.loads(p.read_text())["result"]["players"] for p in results)
