"""scripts/piece_values.py: people's piece values, refitted from the packaged records, are the stored ones."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from deepnash.archives.locate import packaged_archive_dir
from deepnash.game.pieces import BOMB, FLAG, GENERAL, MARSHAL, MINER, SCOUT, SPY
from deepnash.infostate.beliefs import PEOPLE_PIECE_VALUE

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "piece_values.py"


def test_the_barrage_values_refit_from_the_packaged_games_are_the_stored_ones():
    """The packaged archives hold every Barrage game of the shared months, so the fit on their training split
    gives ``PEOPLE_PIECE_VALUE["barrage"]`` again to the third decimal; and the fit orders the pieces as people
    play them: Marshal above General, and a Bomb below every piece that moves."""
    done = subprocess.run([sys.executable, str(SCRIPT), str(packaged_archive_dir()), "--variant", "barrage",
                           "--games", "0", "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert r["games"] == 1313 and r["decisions"] == 69950
    values = np.array(r["values"])
    np.testing.assert_allclose(np.maximum(values, 0.0), PEOPLE_PIECE_VALUE["barrage"], atol=1e-3)
    assert values[FLAG] == 0.0  # both sides always have their Flag while the game goes on
    assert values[MARSHAL] > values[GENERAL] > values[SCOUT] > values[MINER] > values[SPY] > values[BOMB] > 0
