"""scripts/neurd_band.py: how much of a network's self-play policy lies outside NeuRD's band."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from deepnash.agents.network_agent import SHIPPED_DIR

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "neurd_band.py"


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--threads", "1"],
                          capture_output=True, text=True, timeout=300)


def test_band_figures_run_from_all_inside_to_all_outside(tmp_path):
    done = _script(str(SHIPPED_DIR / "barrage"), "--variant", "barrage", "--games", "2", "--beta", "0", "2", "100",
                   "--json")
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert r["decisions"] > 50 and r["entropy"] > 0
    q = r["top_z_quantiles"]
    assert 0 < q["0.1"] <= q["0.5"] <= q["0.9"] <= q["0.99"] < 100
    b = r["bands"]
    assert b["0.0"]["outside_mass"] == pytest.approx(1.0) and b["0.0"]["top_z_above"] == 1.0  # |z| >= 0 always
    assert b["100.0"]["outside_mass"] == 0.0 and b["100.0"]["top_z_above"] == 0.0
    assert 0.0 < b["2.0"]["outside_mass"] < 1.0 and 0.0 <= b["2.0"]["top_z_above"] <= 1.0
    text = _script(str(SHIPPED_DIR / "barrage"), "--variant", "barrage", "--games", "1")
    assert text.returncode == 0 and "beta 2.0: top z above it on" in text.stdout
    missing = _script(str(tmp_path / "nope"))
    assert missing.returncode == 2 and str(tmp_path / "nope") in missing.stderr
