"""``benchmarks/bench_serve.py``: its JSON keys and figures that add up, on a small run (no timing asserted)."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "bench_serve.py"


def test_json_keys_and_counts():
    out = subprocess.run([sys.executable, str(SCRIPT), "--games", "3", "--moves", "4", "--search-games", "1",
                          "--search-moves", "1", "--search-agent", "greedy", "--bot", "greedy", "--json"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    report = json.loads(out)
    assert (report["games"], report["games_completed"], report["search_completed"]) == (3, 3, 1)
    assert (report["messages_lost"], report["messages_reordered"], report["errors"]) == (0, 0, 0)
    assert 1 + 3 <= report["moves"] <= 1 + 3 * 4
    for key in ("p50_ms", "p99_ms", "search_p99_ms", "peak_rss_mb", "wall_s"):
        assert report[key] > 0, key
    assert report["p50_ms"] <= report["p99_ms"] and {"lobby_ms", "db_mb"} <= set(report)


def test_bad_arguments_are_refused():
    run = subprocess.run([sys.executable, str(SCRIPT), "--games", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "--games, --moves and --search-moves must be at least 1" in run.stderr
