"""The engine benchmark's JSON output: the stable keys, and figures that add up (no timings asserted)."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bench_engine.py"


def test_json_keys_and_counts():
    out = subprocess.run([sys.executable, str(SCRIPT), "--games", "3", "--batch", "4", "--json"],
                         capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    for key in ("moves_per_s_rules_on", "moves_per_s_rules_off", "moves_per_s_batch_rules_on", "mean_game_length"):
        assert report[key] > 0, key
    assert sum(report["terminations"].values()) == 3 == sum(report["terminations_rules_off"].values())
    assert set(report["terminations"]) <= {"flag_captured", "no_moves", "both_stuck", "move_limit", "no_attack_limit"}


def test_bad_arguments_are_refused():
    run = subprocess.run([sys.executable, str(SCRIPT), "--games", "0"], capture_output=True, text=True)
    assert run.returncode != 0 and "--games and --batch must be at least 1" in run.stderr
